import Foundation
import Synchronization
import TestSupport
import Testing

@testable import WebRecord
import WebRecordTesting

/// Shared helpers of the reliability suites: the App.net schema, store dumps, the built
/// `webrecord` and generated App.net-shaped responses.
enum Reliability {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shipped App.net schema file.
    static var appNetSchemaURL: URL {
        packageRoot.appendingPathComponent("Schemas").appendingPathComponent("AppNet.json")
    }

    /// The shipped App.net schema.
    static func appNetSchema() throws -> Schema {
        try Schema(contentsOf: appNetSchemaURL)
    }

    /// The entities of the App.net schema.
    static let appNetEntities = ["Post", "User", "Counts", "Source", "CoverImage"]

    // MARK: - Store content

    /// Every row of every table (WebRecord's metadata included), as text, in a fixed order.
    static func dump(_ store: RecordStore) throws -> [String] {
        try store.read { connection in
            let tables = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            var lines: [String] = []
            for case .text(let table)? in tables.map(\.first) {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let columns = try connection.rows("PRAGMA table_info(\(quoted))").count
                let order = (1...max(1, columns)).map(String.init).joined(separator: ", ")
                for row in try connection.rows("SELECT * FROM \(quoted) ORDER BY \(order)") {
                    lines.append(table + ": " + row.map(\.description).joined(separator: " | "))
                }
            }
            return lines
        }
    }

    /// The result of `PRAGMA integrity_check` and `PRAGMA foreign_key_check`: `["ok"]` when sound.
    static func integrity(_ store: RecordStore) throws -> [String] {
        try store.read { connection in
            let integrity = try connection.rows("PRAGMA integrity_check").map { $0.map(\.description).joined(separator: " ") }
            let foreignKeys = try connection.rows("PRAGMA foreign_key_check").map {
                "foreign key: " + $0.map(\.description).joined(separator: " ")
            }
            return integrity.map { $0 == "'ok'" ? "ok" : $0 } + foreignKeys
        }
    }

    /// Every record of every App.net entity, as `webrecord export` prints them: the content
    /// independent of row ids.
    static func export(_ store: RecordStore) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for entity in appNetEntities {
            result[entity] = try store.exportJSON(entity: entity)
        }
        return result
    }

    // MARK: - Memory

    /// Whether this process runs under a sanitizer (`swift test --sanitize=thread` or
    /// `address`), which multiplies memory use and slows everything down: the built `webrecord`
    /// is then instrumented too.
    static let isSanitized: Bool = {
        let names: [String] = ["__tsan_init", "__asan_init"]
        return names.contains { name in dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil }
    }()

    /// A `kB` field of a `/proc/PID/status` file, in bytes. (`/proc` files report a size of
    /// zero, so they are read with `read(2)` to their end rather than by their size.)
    static func statusField(_ field: String, in path: String) -> Int? {
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
            let number = line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }
}

// MARK: - Shared state for tasks

/// Lines and a counter that concurrent tasks add to.
final class ReliabilityLog: Sendable {
    private let state = Mutex<(lines: [String], count: Int)>(([], 0))

    /// Adds a line.
    func append(_ line: String) { state.withLock { $0.lines.append(line) } }
    /// Adds one to the counter.
    func increment() { state.withLock { $0.count += 1 } }
    /// The lines added so far.
    var lines: [String] { state.withLock { $0.lines } }
    /// The counter.
    var count: Int { state.withLock { $0.count } }
}

// MARK: - Temporary directories


// MARK: - ChildProcess processes

/// What a child process printed and how it ended.
struct ChildProcessResult: CustomStringConvertible {
    var status: Int32
    var killedBySignal: Bool
    var stdout: String
    var stderr: String

    var description: String {
        "\(killedBySignal ? "signal" : "exit") \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
    }
}

/// Runs child processes: the built `webrecord`, and `python3` scripts.
enum ChildProcess {
    /// The built `webrecord`, found the way the command-line tests find it.
    static func webrecord() throws -> URL {
        try BuiltExecutables.executable("webrecord", besides: Bundle.module)
    }

    /// An executable found on `PATH`.
    static func onPath(_ name: String) throws -> URL {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let candidates = directories.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
        for candidate in candidates where BuiltExecutables.isExecutableFile(candidate.path) {
            return candidate
        }
        throw BuiltExecutables.Missing(name: name, searched: candidates.map(\.path))
    }

    /// Whether a working `python3` with its `sqlite3` module is on `PATH`.
    static let hasPythonSQLite: Bool = {
        guard let python = try? onPath("python3"),
            let result = try? Running(python, ["-c", "import sqlite3, ssl"]).waitBlocking(timeout: 30)
        else { return false }
        return result.status == 0 && !result.killedBySignal
    }()

    /// A started child whose output goes to files, so a large output never blocks it.
    ///
    /// Waiting and watching block a thread of their own (see ``ChildProcess/onThread(_:)``), so
    /// their timing stays exact however busy the tasks running the other tests are, and no
    /// test holds one of those tasks' few threads while a child runs.
    ///
    /// `@unchecked Sendable` is safe: one test owns each child and awaits every call it makes
    /// on it, so no two threads use it at once; `Process` itself may be polled from any thread.
    final class Running: @unchecked Sendable {
        let process = Process()
        let directory: TemporaryDirectory

        init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
            directory = try TemporaryDirectory()
            let out = directory.path("stdout")
            let err = directory.path("stderr")
            try Data().write(to: URL(fileURLWithPath: out))
            try Data().write(to: URL(fileURLWithPath: err))
            process.executableURL = executable
            process.arguments = arguments
            if let environment {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// The child's standard output so far.
        var stdout: String { (try? String(contentsOfFile: directory.path("stdout"), encoding: .utf8)) ?? "" }

        /// Waits until standard output contains `text`, or the child ends, or the time is up.
        func waitForOutput(_ text: String, timeout: TimeInterval) async -> Bool {
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
        func peakResidentBytes(timeout: TimeInterval) async -> Int? {
            (try? await ChildProcess.onThread { () -> Int? in
                let deadline = Date().addingTimeInterval(timeout)
                let statusPath = "/proc/\(self.process.processIdentifier)/status"
                var peak: Int?
                while self.process.isRunning && Date() < deadline {
                    if let bytes = Reliability.statusField("VmHWM:", in: statusPath) {
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
        func kill(at delay: TimeInterval, after start: Date) async -> (killed: Bool, endedAfter: TimeInterval?) {
            (try? await ChildProcess.onThread { () -> (Bool, TimeInterval?) in
                let deadline = start.addingTimeInterval(delay)
                while Date() < deadline {
                    if !self.process.isRunning { return (false, Date().timeIntervalSince(start)) }
                    Thread.sleep(forTimeInterval: min(0.005, max(0, deadline.timeIntervalSinceNow)))
                }
                guard self.process.isRunning else { return (false, Date().timeIntervalSince(start)) }
                Glibc.kill(self.process.processIdentifier, SIGKILL)
                return (true, nil)
            }) ?? (false, nil)
        }

        /// Sends SIGKILL `delay` seconds after the file at `path` first holds any bytes (for a
        /// store's `-wal`: once the write transaction has begun writing), unless the child has
        /// ended by then. Gives up, without killing, after `timeout` seconds.
        ///
        /// - Returns: whether the child was still running when killed, and, when it was not,
        ///   how long after `start` it had ended (to within 1 ms).
        func kill(
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
                Glibc.kill(self.process.processIdentifier, SIGKILL)
                return (true, nil)
            }) ?? (false, nil)
        }

        /// Waits for the child to end, killing it after `timeout`.
        func wait(timeout: TimeInterval) async throws -> ChildProcessResult {
            try await ChildProcess.onThread { try self.waitBlocking(timeout: timeout) }
        }

        /// Waits for the child to end, blocking the calling thread.
        fileprivate func waitBlocking(timeout: TimeInterval) throws -> ChildProcessResult {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            if process.isRunning {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw BuiltExecutables.Timeout(command: ([process.executableURL?.lastPathComponent ?? "?"] + (process.arguments ?? [])).joined(separator: " "))
            }
            process.waitUntilExit()
            return ChildProcessResult(
                status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
                stdout: stdout,
                stderr: (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? "")
        }
    }

    /// Runs `body` on a thread of its own and returns its result: for waits that must keep
    /// exact time and must not hold a thread of the task pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.start()
        }
    }

    /// Runs `executable` to the end.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 300
    ) async throws -> ChildProcessResult {
        try await Running(executable, arguments, environment: environment).wait(timeout: timeout)
    }

    /// Starts a `python3` script with arguments.
    static func python(_ script: String, _ arguments: [String] = []) throws -> Running {
        try Running(try onPath("python3"), ["-c", script] + arguments)
    }
}

// MARK: - Generated responses

/// App.net-shaped stream responses (`{"data": [post...], "meta": {...}}`), generated from a seed.
enum AppNetResponses {
    /// One post object, with its user (avatar, cover image, counts) and source.
    static func post(id: Int, userID: Int, text: String, version: Int = 0) -> JSONValue {
        post(id: id, userID: userID, text: text, version: version, formatter: ISO8601DateFormatter())
    }

    private static func post(id: Int, userID: Int, text: String, version: Int, formatter: ISO8601DateFormatter) -> JSONValue {
        let user: JSONValue = [
            "id": .string(String(userID)),
            "name": .string("user \(userID) v\(version)"),
            "username": .string("user\(userID)"),
            "avatar_image": ["url": .string("https://example.com/avatar/\(userID).png"), "width": 200, "height": 200],
            "cover_image": [
                "url": .string("https://example.com/cover/\(userID).png"), "width": .integer(Int64(960 + userID % 64)),
                "height": 362,
            ],
            "counts": [
                "followers": .integer(Int64(userID * 3 + version)), "following": .integer(Int64(userID % 97)),
                "posts": .integer(Int64(userID * 11)), "stars": .integer(Int64(version)),
            ],
        ]
        return [
            "id": .string(String(id)),
            "created_at": .string(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(1_353_465_222 + id * 37)))),
            "text": .string(text),
            "thread_id": .string(String(id - id % 5)),
            "source": ["client_id": .string("client-\(id % 7)"), "link": "https://alpha.app.net", "name": "Alpha"],
            "user": user,
        ]
    }

    /// `count` posts numbered from `firstID`, with one user for every 20 posts, as a response.
    static func response(posts count: Int, firstID: Int = 1, seed: UInt64, version: Int = 0) -> JSONValue {
        var random = SeededRandom(seed: seed)
        let formatter = ISO8601DateFormatter()
        let users = max(1, count / 20)
        var data: [JSONValue] = []
        data.reserveCapacity(count)
        for index in 0..<count {
            let id = firstID + index
            let words = (0..<(3 + random.next(below: 12))).map { _ in vocabulary[random.next(below: vocabulary.count)] }
            data.append(post(id: id, userID: 1 + random.next(below: users), text: words.joined(separator: " "), version: version, formatter: formatter))
        }
        return ["data": .array(data), "meta": ["code": 200, "more": false]]
    }

    /// A response's bytes, as a server would send them.
    static func bytes(_ response: JSONValue) -> Data {
        Data(response.serialized().utf8)
    }

    private static let vocabulary = [
        "app", "net", "stream", "post", "reply", "star", "repost", "thread", "client", "alpha", "hello", "world",
        "swift", "record", "store", "sqlite", "json", "café", "日本", "😀", "\"quoted\"", "back\\slash",
    ]
}
