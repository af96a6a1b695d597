import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs child processes the way a user runs them: the built `webrecord` and examples (see
/// ``BuiltExecutables``), `python3` scripts, system tools.
///
/// A child's standard output and error go to files rather than pipes, so a large output never
/// blocks it. Waiting blocks a thread of its own (see ``onThread(_:)``), so its timing stays
/// exact however busy the tasks running the other tests are, and no test holds one of those
/// tasks' few threads while a child runs.
public enum ChildProcess {
    /// What a child printed and how it ended.
    public struct Result: Sendable, CustomStringConvertible {
        /// The exit status, or the signal's number when a signal ended the child.
        public var status: Int32
        /// Whether a signal ended the child.
        public var killedBySignal: Bool
        /// The standard output's bytes.
        public var stdoutData: Data
        /// The standard error's bytes.
        public var stderrData: Data

        /// The standard output as UTF-8 text.
        public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
        /// The standard error as UTF-8 text.
        public var stderr: String { String(decoding: stderrData, as: UTF8.self) }
        /// The lines of the standard output, without their line ends.
        public var stdoutLines: [String] { Self.lines(stdout) }
        /// The lines of the standard error, without their line ends.
        public var stderrLines: [String] { Self.lines(stderr) }

        public var description: String {
            "\(killedBySignal ? "signal" : "exit") \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        }

        private static func lines(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// A child that did not finish in time; it was killed.
    public struct Timeout: Error, CustomStringConvertible {
        /// The command line, for the message.
        public var command: String
        public var description: String { "\(command) did not finish in time" }
    }

    /// A started child.
    ///
    /// `@unchecked Sendable` is safe: one test owns each child and awaits every call it makes
    /// on it, so no two threads use it at once; `Process` itself may be polled from any thread,
    /// and the exit is signalled through a semaphore.
    public final class Running: @unchecked Sendable {
        /// The child.
        public let process = Process()
        /// The child's own directory: its standard output and error files, and its working
        /// directory unless another was given.
        public let directory: TemporaryDirectory
        private let exited = DispatchSemaphore(value: 0)
        private let handles: [FileHandle]

        /// Starts `executable` with `arguments` in `workingDirectory` (by default the child's
        /// own fresh directory), feeding `input` on standard input (by default nothing), with
        /// `environment` added to this process's environment.
        public init(
            _ executable: URL, _ arguments: [String], in workingDirectory: URL? = nil, input: Data? = nil,
            environment: [String: String] = [:]
        ) throws {
            directory = try TemporaryDirectory()
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.write("stdout", Data())))
            let err = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.write("stderr", Data())))
            var handles = [out, err]
            process.executableURL = executable
            process.arguments = arguments
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.currentDirectoryURL = workingDirectory ?? directory.url
            process.standardOutput = out
            process.standardError = err
            if let input {
                let stdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: directory.write("stdin", input)))
                handles.append(stdin)
                process.standardInput = stdin
            } else {
                process.standardInput = FileHandle.nullDevice
            }
            self.handles = handles
            process.terminationHandler = { [exited] _ in exited.signal() }
            do {
                try process.run()
            } catch {
                for handle in handles { try? handle.close() }
                throw error
            }
        }

        /// The child's standard output so far.
        public var stdout: String { String(decoding: output("stdout"), as: UTF8.self) }

        private func output(_ name: String) -> Data {
            (try? Data(contentsOf: URL(fileURLWithPath: directory.path(name)))) ?? Data()
        }

        /// Waits until standard output contains `text`, or the child ends, or `timeout` passes.
        public func waitForOutput(_ text: String, timeout: TimeInterval) async -> Bool {
            (try? await ChildProcess.onThread {
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    if self.stdout.contains(text) { return true }
                    if !self.process.isRunning { return self.stdout.contains(text) }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return false
            }) ?? false
        }

        /// Watches the child until it ends (or `timeout` passes) and returns its peak resident
        /// size (`VmHWM` in `/proc/PID/status`), read every 2 ms; nil when it could not be read.
        public func peakResidentBytes(timeout: TimeInterval) async -> Int? {
            (try? await ChildProcess.onThread { () -> Int? in
                let deadline = Date().addingTimeInterval(timeout)
                let statusPath = "/proc/\(self.process.processIdentifier)/status"
                var peak: Int?
                while self.process.isRunning && Date() < deadline {
                    if let bytes = ChildProcess.statusField("VmHWM:", in: statusPath) {
                        peak = max(peak ?? 0, bytes)
                    }
                    Thread.sleep(forTimeInterval: 0.002)
                }
                return peak
            }) ?? nil
        }

        /// Sends SIGKILL `delay` seconds after `start`, unless the child has ended by then.
        ///
        /// - Returns: whether the child was still running when killed, and, when it was not,
        ///   how long after `start` it had ended (to within 5 ms).
        public func kill(at delay: TimeInterval, after start: Date) async -> (killed: Bool, endedAfter: TimeInterval?) {
            (try? await ChildProcess.onThread { () -> (Bool, TimeInterval?) in
                let deadline = start.addingTimeInterval(delay)
                while Date() < deadline {
                    if !self.process.isRunning { return (false, Date().timeIntervalSince(start)) }
                    Thread.sleep(forTimeInterval: min(0.005, max(0, deadline.timeIntervalSinceNow)))
                }
                guard self.process.isRunning else { return (false, Date().timeIntervalSince(start)) }
                killHard(self.process.processIdentifier)
                return (true, nil)
            }) ?? (false, nil)
        }

        /// Sends SIGKILL `delay` seconds after the file at `path` first holds any bytes (for a
        /// store's `-wal`: once the write transaction has begun writing), unless the child has
        /// ended by then. Gives up, without killing, after `timeout` seconds.
        ///
        /// - Returns: whether the child was still running when killed, and, when it was not,
        ///   how long after `start` it had ended (to within 1 ms).
        public func kill(
            _ delay: TimeInterval, afterFileGrows path: String, start: Date, timeout: TimeInterval
        ) async -> (killed: Bool, endedAfter: TimeInterval?) {
            (try? await ChildProcess.onThread { () -> (Bool, TimeInterval?) in
                let giveUp = start.addingTimeInterval(timeout)
                func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
                while size() == 0 {
                    if !self.process.isRunning { return (false, Date().timeIntervalSince(start)) }
                    if Date() > giveUp { return (false, nil) }
                    Thread.sleep(forTimeInterval: 0.001)
                }
                let deadline = Date().addingTimeInterval(delay)
                while Date() < deadline {
                    if !self.process.isRunning { return (false, Date().timeIntervalSince(start)) }
                    Thread.sleep(forTimeInterval: min(0.001, max(0, deadline.timeIntervalSinceNow)))
                }
                guard self.process.isRunning else { return (false, Date().timeIntervalSince(start)) }
                killHard(self.process.processIdentifier)
                return (true, nil)
            }) ?? (false, nil)
        }

        /// Waits for the child to end, killing it after `timeout`.
        ///
        /// - Throws: ``Timeout`` when the child was killed for taking too long.
        public func wait(timeout: TimeInterval) async throws -> Result {
            try await ChildProcess.onThread { try self.waitBlocking(timeout: timeout) }
        }

        /// Waits for the child to end, killing it after `timeout`, blocking the calling thread.
        ///
        /// - Throws: ``Timeout`` when the child was killed for taking too long.
        public func waitBlocking(timeout: TimeInterval) throws -> Result {
            if exited.wait(timeout: .now() + timeout) == .timedOut {
                killHard(process.processIdentifier)
                exited.wait()
                exited.signal()
                closeHandles()
                let command = [process.executableURL?.lastPathComponent ?? "?"] + (process.arguments ?? [])
                throw Timeout(command: command.joined(separator: " "))
            }
            // Later waits return at once.
            exited.signal()
            process.waitUntilExit()
            closeHandles()
            return Result(
                status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
                stdoutData: output("stdout"), stderrData: output("stderr"))
        }

        private func closeHandles() {
            for handle in handles { try? handle.close() }
        }
    }

    /// Runs `executable` to the end; the arguments are those of
    /// ``Running/init(_:_:in:input:environment:)``.
    ///
    /// - Throws: ``Timeout`` when the child was killed after `timeout` seconds.
    public static func run(
        _ executable: URL, _ arguments: [String], in workingDirectory: URL? = nil, input: Data? = nil,
        environment: [String: String] = [:], timeout: TimeInterval = 300
    ) async throws -> Result {
        try await Running(executable, arguments, in: workingDirectory, input: input, environment: environment)
            .wait(timeout: timeout)
    }

    /// Runs `body` on a thread of its own and returns its result: for waits that must keep
    /// exact time and must not hold a thread of the task pool.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Swift.Result { try body() }) }
            thread.start()
        }
    }

    /// An executable found on `PATH`.
    public static func onPath(_ name: String) throws -> URL {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let candidates = directories.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
        for candidate in candidates where BuiltExecutables.isExecutableFile(candidate.path) {
            return candidate
        }
        throw BuiltExecutables.Missing(name: name, searched: candidates.map(\.path))
    }

    /// Whether a working `python3` with its `sqlite3` and `ssl` modules is on `PATH`.
    public static let hasPythonSQLite: Bool = {
        guard let python = try? onPath("python3"),
            let result = try? Running(python, ["-c", "import sqlite3, ssl"]).waitBlocking(timeout: 30)
        else { return false }
        return result.status == 0 && !result.killedBySignal
    }()

    /// Starts a `python3` script with arguments.
    public static func python(_ script: String, _ arguments: [String] = []) throws -> Running {
        try Running(try onPath("python3"), ["-c", script] + arguments)
    }

    /// A `kB` field of a `/proc/PID/status` file, in bytes. (`/proc` files report a size of
    /// zero, so they are read with `read(2)` to their end rather than by their size.)
    public static func statusField(_ field: String, in path: String) -> Int? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let number = line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap {
                Int($0)
            }
            return number.map { $0 * 1024 }
        }
        return nil
    }
}

/// Sends SIGKILL to `pid`. (Inside ``ChildProcess/Running``, `kill` names its own methods.)
private func killHard(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
