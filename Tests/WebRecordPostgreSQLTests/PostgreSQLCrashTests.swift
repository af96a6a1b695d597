import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// `webrecord populate --db postgresql://...` killed with SIGKILL at random moments (a fixed
/// seed): the database holds the state before the population or the state after, never one in
/// between, as the server rolls back the transaction of a connection that is gone.
@Suite("PostgreSQL: SIGKILL of a worker")
struct PostgreSQLCrashTests {
    static var schemaFile: URL { PostgreSQLStores.packageRoot.appendingPathComponent("Schemas/AppNet.json") }

    /// Posts `first..<first + count`, with users shared by 20 posts each, their texts and names
    /// of `version`.
    static func response(first: Int, count: Int, version: Int) -> JSONValue {
        let data: [JSONValue] = (first..<first + count).map { index in
            [
                "id": .string("\(index)"), "text": .string("post \(index), version \(version)"),
                "created_at": "2012-11-21T02:33:42Z",
                "user": [
                    "id": .string("u\(index / 20)"), "name": .string("user \(index / 20), version \(version)"),
                    "counts": ["followers": .integer(Int64(version * 100 + index / 20))],
                ],
            ]
        }
        return ["data": .array(data)]
    }

    /// Every entity's export.
    static func state(of url: String, schema: Schema) throws -> [JSONValue] {
        let store = try RecordStore(postgreSQL: url, schema: schema)
        defer { store.close() }
        return try schema.entities.map { try store.exportJSON(entity: $0.name) }
    }

    /// Kills wanted in all; half of them while the population's transaction is open.
    static let requiredKills = 8
    static let maximumTrials = 24

    @Test("SIGKILL during webrecord populate leaves the database before or after, never between")
    func killedWorkersAreAtomic() async throws {
        let schema = try Schema(contentsOf: Self.schemaFile)
        let server = try PostgreSQLTestServer.shared()
        let admin = try PostgreSQLConnection(server.conninfo())
        let webrecord = try BuiltExecutables.executable("webrecord", besides: Bundle.main)
        let directory = try TemporaryDirectory()
        let small = directory.path("small.json")
        let large = directory.path("large.json")
        try Data(Self.response(first: 0, count: 500, version: 0).serializedBytes()).write(
            to: URL(fileURLWithPath: small))
        try Data(Self.response(first: 300, count: 6_000, version: 1).serializedBytes()).write(
            to: URL(fileURLWithPath: large))
        func populate(_ url: String, _ file: String) throws -> ChildProcess.Running {
            try ChildProcess.Running(
                webrecord,
                ["populate", "--schema", Self.schemaFile.path, "--db", url, "--entity", "Post", "--quiet", file])
        }

        // The state before, in a database each trial copies (`CREATE DATABASE ... TEMPLATE`).
        let template = try server.makeDatabase()
        let first = try await populate(server.url(database: template), small).wait(timeout: 300)
        try #require(first.status == 0, "\(first)")
        let before = try Self.state(of: server.url(database: template), schema: schema)
        func copy() throws -> String {
            let name = try server.makeDatabase() + "_trial"
            try admin.execute("CREATE DATABASE \(name) TEMPLATE \(template)")
            return name
        }

        // The state after a complete run, and how long one takes.
        let afterDatabase = try copy()
        let start = Date()
        let complete = try await populate(server.url(database: afterDatabase), large).wait(timeout: 300)
        var duration = Date().timeIntervalSince(start)
        try #require(complete.status == 0, "\(complete)")
        let after = try Self.state(of: server.url(database: afterDatabase), schema: schema)
        try #require(after != before)
        #expect(after[1].arrayValue?.count == 6_300 / 20)

        var random = SeededRandom(seed: 0x9_C0DE)
        var kills = 0
        var trials = 0
        var outcomes: [String: Int] = [:]
        while kills < Self.requiredKills && trials < Self.maximumTrials {
            trials += 1
            let database = try copy()
            let url = server.url(database: database)
            let start = Date()
            let child = try populate(url, large)
            let delay: TimeInterval
            let killed: Bool
            if trials % 2 == 1 {
                // Anywhere from the start to the usual end of a run.
                delay = duration * (0.02 + 0.98 * random.nextFraction())
                let (wasRunning, endedAfter) = await child.kill(at: delay, after: start)
                if let endedAfter { duration = min(duration, endedAfter) }
                killed = wasRunning
            } else {
                // Within 0.2 s of its transaction's first statement.
                delay = 0.2 * random.nextFraction()
                killed = try await Self.kill(child, delay: delay, onceTransactionRunsIn: database, admin: admin)
            }
            let result = try await child.wait(timeout: 300)
            let state = try Self.state(of: url, schema: schema)
            let outcome = state == before ? "before" : state == after ? "after" : "between"
            #expect(
                outcome != "between", "trial \(trials): killed \(delay) s in, the database is neither before nor after")
            if killed && result.killedBySignal {
                kills += 1
                outcomes["killed \(trials % 2 == 1 ? "anywhere" : "mid-transaction"), \(outcome)", default: 0] += 1
            } else {
                outcomes["finished before the kill", default: 0] += 1
            }
        }
        #expect(kills >= Self.requiredKills, "only \(kills) of \(trials) trials were killed mid-run: \(outcomes)")
        #expect(
            outcomes["killed mid-transaction, before", default: 0] >= 1, "no kill hit an open transaction: \(outcomes)")
    }

    /// Sends SIGKILL to `child` `delay` seconds after a backend of `database` first runs a
    /// transaction (the population's), unless the child has ended by then.
    ///
    /// - Returns: whether the child was still running when killed.
    static func kill(
        _ child: ChildProcess.Running, delay: TimeInterval, onceTransactionRunsIn database: String,
        admin: PostgreSQLConnection
    ) async throws -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let open = try admin.scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND xact_start IS NOT NULL AND application_name = 'webrecord'",
                [.text(database)])
            if case .integer(let count)? = open, count > 0 { break }
            if !child.process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(2))
        }
        let (wasRunning, _) = await child.kill(at: delay, after: Date())
        return wasRunning
    }
}
