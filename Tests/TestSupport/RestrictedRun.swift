import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Child processes run under a restriction the test runner must not share: as an ordinary
/// user (whom file modes bind), or with no room to write files (a full disk).
public enum RestrictedRun {
    /// `executable` with `arguments` as an ordinary user: as this user when it is not root,
    /// else as `nobody` through `setpriv` (root ignores file modes).
    public static func asOrdinaryUser(_ executable: URL, _ arguments: [String]) throws -> (URL, [String]) {
        guard geteuid() == 0 else { return (executable, arguments) }
        let setpriv = try ChildProcess.onPath("setpriv")
        return (setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "--", executable.path] + arguments)
    }

    /// `executable` with `arguments` where no file may grow (`RLIMIT_FSIZE` 0, `SIGXFSZ`
    /// ignored, so a write fails with `EFBIG`, as on a full disk). Its output and error go through
    /// a pipe, which the limit does not bind, to standard output, followed by the line
    /// `exit status N`; read it with ``status(_:)``.
    public static func onAFullDisk(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        let script = #"trap '' XFSZ; (ulimit -f 0; "$0" "$@"; echo "exit status $?") 2>&1 | cat"#
        return (URL(fileURLWithPath: "/bin/sh"), ["-c", script, executable.path] + arguments)
    }

    /// The exit status ``onAFullDisk(_:_:)`` printed last, or nil.
    public static func status(_ result: ChildProcess.Result) -> Int32? {
        result.stdoutLines.last.flatMap { line in
            line.hasPrefix("exit status ") ? Int32(line.dropFirst("exit status ".count)) : nil
        }
    }

    /// Runs a restricted command (from ``asOrdinaryUser(_:_:)`` or ``onAFullDisk(_:_:)``).
    public static func run(_ command: (URL, [String]), timeout: TimeInterval = MachineLoad.hangTimeout) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(command.0, command.1, timeout: timeout)
    }

    /// Whether ``asOrdinaryUser(_:_:)`` can work here: not root, or `setpriv` on the path.
    public static var hasOrdinaryUser: Bool {
        geteuid() != 0 || (try? ChildProcess.onPath("setpriv")) != nil
    }

    /// The names in `directory`, sorted.
    public static func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}
