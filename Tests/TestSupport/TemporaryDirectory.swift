import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh temporary directory for one test, removed with everything in it when released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates an empty directory with a unique name.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Read-only files and folders left by a test must not stop the clean-up.
        if let paths = FileManager.default.enumerator(atPath: url.path) {
            for case let path as String in paths {
                chmod(url.appendingPathComponent(path).path, 0o700)
            }
        }
        chmod(url.path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of a file in the directory (by default the store file's).
    public func path(_ name: String = "store.sqlite") -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `data` to `name`, a path relative to the directory (its folders are created),
    /// and returns the file's path.
    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file.path
    }

    /// Writes `text` as UTF-8 to `name`, a path relative to the directory, and returns the
    /// file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }
}
