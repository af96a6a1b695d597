import Foundation

/// Finding and running the package's built executables (`webrecord`, the examples) the way a
/// user runs them: as child processes.
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
                + (name == "webrecord" ? ". Build it first (swift build) or set WEBRECORD_EXECUTABLE." : ". Build it first (swift build).")
        }
    }

    /// A child that did not finish in time; it was terminated.
    public struct Timeout: Error, CustomStringConvertible {
        public var command: String
        public init(command: String) { self.command = command }
        public var description: String { "\(command) did not finish in time" }
    }

    /// What a child printed and how it exited.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
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

    /// Runs `executable` with `arguments` in `directory` (a fresh one by default), feeding
    /// `input` on standard input, and waits for it, terminating it after `timeout` seconds.
    /// `environment` is added to this process's environment for the child.
    ///
    /// Output goes to files rather than pipes, so a large output never blocks the child.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, input: Data? = nil, timeout: TimeInterval = 120,
        environment: [String: String] = [:]
    ) async throws -> Output {
        let scratch = try TemporaryDirectory()
        let outPath = try scratch.write("stdout", Data())
        let errPath = try scratch.write("stderr", Data())
        let inPath = try scratch.write("stdin", input ?? Data())
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let stdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        defer {
            try? out.close()
            try? err.close()
            try? stdin.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.currentDirectoryURL = directory ?? scratch.url
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            let finished = FirstClaim()
            process.terminationHandler = { process in
                if finished.claim() { continuation.resume(returning: process.terminationStatus) }
            }
            do {
                try process.run()
            } catch {
                if finished.claim() { continuation.resume(throwing: error) }
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if finished.claim() {
                    process.terminate()
                    continuation.resume(throwing: Timeout(command: command))
                }
            }
        }
        return Output(
            status: status, stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
            stderr: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data())
    }
}

/// A flag the first caller claims: the child's exit or the timeout, whichever comes first.
private final class FirstClaim: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { claimed = true }
        return !claimed
    }
}
