import Foundation

/// Makes a file unwritable for this process: by its mode, or, for root (whom modes do not
/// stop), with `chattr +i`. Returns the undo, or nil when neither works here.
public enum UnwritableFile {
    public static func make(_ path: String) -> (@Sendable () -> Void)? {
        if getuid() != 0 {
            chmod(path, 0o444)
            return { chmod(path, 0o600) }
        }
        guard
            let chattr = ["/usr/bin/chattr", "/bin/chattr"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            }),
            run(chattr, ["+i", path])
        else { return nil }
        return { _ = run(chattr, ["-i", path]) }
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        guard
            let result = try? ChildProcess.Running(URL(fileURLWithPath: tool), arguments).waitBlocking(
                timeout: MachineLoad.hangTimeout)
        else {
            return false
        }
        return result.status == 0 && !result.killedBySignal
    }

    /// Whether `make` can work here.
    public static var isPossible: Bool {
        getuid() != 0
            || ["/usr/bin/chattr", "/bin/chattr"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
