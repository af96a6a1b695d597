import Foundation

/// Finding the package's built executables (`webrecord`, the examples), for running them the
/// way a user does, with ``ChildProcess``.
public enum BuiltExecutables {
    /// An executable that was not built.
    public struct Missing: Error, CustomStringConvertible {
        public var name: String
        public var searched: [String]
        public init(name: String, searched: [String]) {
            self.name = name
            self.searched = searched
        }
        public var description: String {
            "\(name) was not found; looked in: " + searched.joined(separator: ", ")
                + (name == "webrecord"
                    ? ". Build it first (swift build) or set WEBRECORD_EXECUTABLE." : ". Build it first (swift build).")
        }
    }

    /// The executable `name` in the products directory, which holds the test target's resource
    /// bundle `resources` (`swift build` and `swift test` share it). For `webrecord`,
    /// `$WEBRECORD_EXECUTABLE` comes first.
    public static func executable(_ name: String, besides resources: Bundle) throws -> URL {
        var candidates: [URL] = []
        if name == "webrecord", let path = ProcessInfo.processInfo.environment["WEBRECORD_EXECUTABLE"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        candidates.append(resources.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        let main = Bundle.main.bundleURL
        candidates.append(main.appendingPathComponent(name))
        candidates.append(main.deletingLastPathComponent().appendingPathComponent(name))
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        for candidate in candidates where isExecutableFile(candidate.path) {
            return candidate
        }
        throw Missing(name: name, searched: candidates.map(\.path))
    }

    /// Whether `path` is an executable file (not a directory).
    public static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
