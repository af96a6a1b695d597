import Foundation

/// Makes a file unwritable for this process: by its mode, or, for root (whom modes do not
/// stop), with `chattr +i`. Returns the undo, or nil when neither works here.
public enum UnwritableFile {
    public static func make(_ path: String) -> (@Sendable () -> Void)? {
        if getuid() != 0 {
            chmod(path, 0o444)
            return { chmod(path, 0o600) }
        }
        guard let chattr = ["/usr/bin/chattr", "/bin/chattr"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
            run(chattr, ["+i", path])
        else { return nil }
        return { _ = run(chattr, ["-i", path]) }
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Whether `make` can work here.
    public static var isPossible: Bool {
        getuid() != 0 || ["/usr/bin/chattr", "/bin/chattr"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
