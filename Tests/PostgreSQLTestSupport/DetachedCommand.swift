import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a command that leaves a daemon behind (`pg_ctl start`) or outlives this process (a
/// watcher), with only standard input, output and error open in it.
///
/// `Process` cannot run these: it learns that a child ended when every copy of a descriptor it
/// gives the child is closed, and a daemon the child starts keeps its copy for as long as it
/// runs; and any pipe of this process (the test runner's output) that the daemon inherited
/// would stay open as long. Here the child gets `/dev/null` as input, `outputPath` as output
/// and error, and every other descriptor closed, and it is waited for with `waitpid`.
enum DetachedCommand {
    /// Starts `arguments[0]` (a path) with `arguments`, its output appended to `outputPath`.
    ///
    /// - Returns: the child's process id.
    static func start(_ arguments: [String], outputPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Every descriptor open now but the standard three (a descriptor closed by the time
        // the child starts, such as the listing's own, is ignored).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else {
            throw PostgreSQLTestServer.Failure(
                description: "cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Runs the command to its end and returns its exit status (128 + the signal's number when
    /// a signal ended it) and its output.
    ///
    /// - Throws: ``PostgreSQLTestServer/Failure``, naming the command and quoting its output,
    ///   when it has not ended after `timeout` seconds (ten times as long under a sanitizer:
    ///   ``Sanitizer/bound(_:)``); it is then killed and reaped (its wait after SIGKILL is
    ///   bounded too).
    static func run(_ arguments: [String], timeout: TimeInterval = MachineLoad.hangTimeout) throws -> (
        status: Int32, output: String
    ) {
        let timeout = Sanitizer.bound(timeout)
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-command-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try start(arguments, outputPath: outputPath)
        func output() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        guard let status = reap(pid, until: Date().addingTimeInterval(timeout)) else {
            _ = kill(pid, SIGKILL)
            let ended = reap(pid, until: Date().addingTimeInterval(ChildProcess.killGrace)) != nil
            throw PostgreSQLTestServer.Failure(
                description:
                    "\(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s; it was killed"
                    + (ended ? "" : ", and had not ended \(Int(ChildProcess.killGrace)) s later") + "\n" + output())
        }
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, output())
    }

    /// Polls `waitpid` until `pid` has ended (its wait status) or `deadline` passes (nil).
    private static func reap(_ pid: pid_t, until deadline: Date) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return status }
            if result < 0 && errno != EINTR { return 0 }
            if Date() >= deadline { return nil }
            usleep(10_000)
        }
    }
}
