import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs another program as a child process and measures it from start to exit: the wall time
/// around it, and the CPU time and peak memory the kernel reports for it (`wait4`'s `rusage`).
///
/// The child's standard input is `/dev/null`, and its standard output and error go to files, so
/// a full pipe never stalls it and the timing holds only the child's own work.
struct TimedCommand {
    /// What one run took.
    struct Run {
        /// Wall-clock seconds from `posix_spawn` to the child's exit.
        var wall: Double
        /// The child's user and system CPU seconds.
        var cpu: Double
        /// The child's peak resident set size, in bytes (`ru_maxrss`).
        ///
        /// Linux counts in it the peak of the benchmark's own memory when the child was started:
        /// `posix_spawn` runs the child in the benchmark's memory until it executes the program,
        /// and the kernel keeps that memory's peak. A phase that times children keeps its own
        /// memory below theirs.
        var peakBytes: Int
        /// What the child printed on standard output.
        var output: String
    }

    /// The absolute path of the program.
    let executable: String
    /// A directory for the child's output files.
    let scratch: URL

    /// A child started and not yet waited for.
    struct Started {
        let command: TimedCommand
        let arguments: [String]
        let pid: pid_t
        let start: Timing
        let outputPath: String
        let errorPath: String

        /// Waits for the child to exit.
        ///
        /// - Throws: ``BenchmarkError`` when it exits with a failure (its standard error is in
        ///   the message).
        func wait() throws -> Run {
            defer {
                try? FileManager.default.removeItem(atPath: outputPath)
                try? FileManager.default.removeItem(atPath: errorPath)
            }
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) == -1 {
                guard errno == EINTR else {
                    throw BenchmarkError("waiting for \(command.executable) failed: errno \(errno)")
                }
            }
            let wall = Timing.now().wall - start.wall

            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            // Exited normally (no signal) with status 0.
            let exitedNormally = status & 0x7f == 0
            let exitStatus = (status >> 8) & 0xff
            guard exitedNormally, exitStatus == 0 else {
                let errorText = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
                let how = exitedNormally ? "exited with status \(exitStatus)" : "was killed by signal \(status & 0x7f)"
                throw BenchmarkError(
                    "\(command.executable) \(arguments.joined(separator: " ")) \(how)\n\(errorText.suffix(2000))")
            }
            let cpu =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            return Run(wall: wall, cpu: cpu, peakBytes: Int(usage.ru_maxrss) * 1024, output: output)
        }
    }

    /// Runs the program with `arguments` and waits for it.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot start, or exits with a failure (its standard
    ///   error is in the message).
    func run(_ arguments: [String]) throws -> Run {
        try start(arguments).wait()
    }

    /// Starts the program with `arguments`, without waiting for it: several can run at once,
    /// each with output files of its own. Every child started must be waited for.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot start.
    func start(_ arguments: [String]) throws -> Started {
        let name = "child-\(UUID().uuidString)"
        let outputPath = scratch.appendingPathComponent(name + "-stdout.txt").path
        let errorPath = scratch.appendingPathComponent(name + "-stderr.txt").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }

        var pid: pid_t = 0
        let start = Timing.now()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        return Started(
            command: self, arguments: arguments, pid: pid, start: start, outputPath: outputPath, errorPath: errorPath)
    }

    /// The absolute path of `name` on `PATH`, or nil.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
