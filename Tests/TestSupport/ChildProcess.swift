import Foundation
import WebRecord

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
        /// The seconds it was given.
        public var seconds: TimeInterval = 0
        /// Whether it still had not ended ``killGrace`` seconds after
        /// SIGKILL: then it is left behind, and the test goes on.
        public var survivedKill = false
        public var description: String {
            let given = String(format: "%.0f", seconds)
            return survivedKill
                ? "\(command) did not finish within \(given) s, and had not ended \(Int(killGrace)) s after SIGKILL"
                : "\(command) did not finish within \(given) s; it was killed"
        }
    }

    /// How long a wait goes on after SIGKILL for the child's end before it gives up.
    public static let killGrace: TimeInterval = 30

    /// Whether `pid` is a zombie: ended, and not yet reaped (its `/proc/PID/stat` state is `Z`).
    public static func isZombie(_ pid: Int32) -> Bool {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so the state
        // follows the last ')'.
        let text = buffer[0..<count]
        guard let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        return text[close + 2] == UInt8(ascii: "Z")
    }

    /// A started child.
    ///
    /// `@unchecked Sendable` is safe: one test owns each child and awaits every call it makes
    /// on it, so no two threads use it at once; ``SpawnedProcess`` may be polled from any
    /// thread.
    public final class Running: @unchecked Sendable {
        /// The child, started with `posix_spawn` (see ``SpawnedProcess`` for why not with
        /// Foundation's `Process`).
        public let process: SpawnedProcess
        /// The child's own directory: its standard output and error files, and its working
        /// directory unless another was given.
        public let directory: TemporaryDirectory
        /// The command, for messages.
        private let command: [String]

        /// Starts `executable` with `arguments` in `workingDirectory` (by default the child's
        /// own fresh directory), feeding `input` on standard input (by default nothing), with
        /// `environment` added to this process's environment.
        public init(
            _ executable: URL, _ arguments: [String], in workingDirectory: URL? = nil, input: Data? = nil,
            environment: [String: String] = [:]
        ) throws {
            let directory = try TemporaryDirectory()
            let output = try directory.write("stdout", Data())
            let error = try directory.write("stderr", Data())
            let stdin = try input.map { try directory.write("stdin", $0) }
            self.directory = directory
            command = [executable.lastPathComponent] + arguments
            process = try SpawnedProcess(
                executable.path, arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                directory: (workingDirectory ?? directory.url).path, input: stdin, output: output, error: error)
        }

        /// The child's standard output so far.
        public var stdout: String { String(decoding: output("stdout"), as: UTF8.self) }

        private func output(_ name: String) -> Data {
            (try? Data(contentsOf: URL(fileURLWithPath: directory.path(name)))) ?? Data()
        }

        /// Waits until standard output contains `text`, or the child ends, or `timeout` passes
        /// (stretched under a sanitizer: ``Sanitizer/bound(_:)``).
        public func waitForOutput(_ text: String, timeout: TimeInterval = MachineLoad.hangTimeout) async -> Bool {
            (try? await ChildProcess.onThread {
                let deadline = Date().addingTimeInterval(Sanitizer.bound(timeout))
                while Date() < deadline {
                    if self.stdout.contains(text) { return true }
                    if self.hasEnded { return self.stdout.contains(text) }
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
                while !self.hasEnded && Date() < deadline {
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
                    if self.hasEnded { return (false, Date().timeIntervalSince(start)) }
                    Thread.sleep(forTimeInterval: min(0.005, max(0, deadline.timeIntervalSinceNow)))
                }
                guard !self.hasEnded else { return (false, Date().timeIntervalSince(start)) }
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
                let giveUp = start.addingTimeInterval(Sanitizer.bound(timeout))
                func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
                while size() == 0 {
                    if self.hasEnded { return (false, Date().timeIntervalSince(start)) }
                    if Date() > giveUp { return (false, nil) }
                    Thread.sleep(forTimeInterval: 0.001)
                }
                let deadline = Date().addingTimeInterval(delay)
                while Date() < deadline {
                    if self.hasEnded { return (false, Date().timeIntervalSince(start)) }
                    Thread.sleep(forTimeInterval: min(0.001, max(0, deadline.timeIntervalSinceNow)))
                }
                guard !self.hasEnded else { return (false, Date().timeIntervalSince(start)) }
                killHard(self.process.processIdentifier)
                return (true, nil)
            }) ?? (false, nil)
        }

        /// Waits for the child to end, killing it after `timeout` (ten times as long under a
        /// sanitizer: ``Sanitizer/bound(_:)``).
        ///
        /// - Throws: ``Timeout`` when the child was killed for taking too long.
        public func wait(timeout: TimeInterval = MachineLoad.hangTimeout) async throws -> Result {
            try await ChildProcess.onThread { try self.waitBlocking(timeout: timeout) }
        }

        /// Waits for the child to end, killing it after `timeout`, blocking the calling thread.
        ///
        /// Every wait is bounded: after SIGKILL it waits at most ``ChildProcess/killGrace``
        /// seconds more.
        ///
        /// - Throws: ``Timeout`` when the child was killed for taking too long.
        public func waitBlocking(timeout: TimeInterval) throws -> Result {
            let timeout = Sanitizer.bound(timeout)
            guard process.wait(until: Date().addingTimeInterval(timeout)), let ending = process.termination else {
                killHard(process.processIdentifier)
                let ended = process.wait(until: Date().addingTimeInterval(ChildProcess.killGrace))
                throw Timeout(command: command.joined(separator: " "), seconds: timeout, survivedKill: !ended)
            }
            return Result(
                status: ending.status, killedBySignal: ending.bySignal, stdoutData: output("stdout"),
                stderrData: output("stderr"))
        }

        /// Whether the child has ended (and was reaped).
        public var hasEnded: Bool { !process.isRunning }
    }

    /// Runs `executable` to the end; the arguments are those of
    /// ``Running/init(_:_:in:input:environment:)``.
    ///
    /// - Throws: ``Timeout`` when the child was killed after `timeout` seconds.
    public static func run(
        _ executable: URL, _ arguments: [String], in workingDirectory: URL? = nil, input: Data? = nil,
        environment: [String: String] = [:], timeout: TimeInterval = MachineLoad.hangTimeout
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
            let result = try? Running(python, ["-c", "import sqlite3, ssl"]).waitBlocking(
                timeout: MachineLoad.hangTimeout)
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
