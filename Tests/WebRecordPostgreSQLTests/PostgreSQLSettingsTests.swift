import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The options a PostgreSQL store sets on its session: the statement timeout, which cancels a
/// statement that runs too long and rolls its transaction back, and the application name the
/// server shows.
@Suite struct PostgreSQLSettingsTests {
    private static func store(
        at location: String? = nil, _ change: (inout PostgreSQLDatabase.Options) -> Void
    ) throws -> PostgreSQLDatabase {
        var options = PostgreSQLDatabase.Options()
        change(&options)
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        return try PostgreSQLDatabase(location ?? PostgreSQLStores.newDatabase(), schema: schema, options: options)
    }

    private static func populate(_ database: PostgreSQLDatabase, _ json: String) throws -> ChangeCounts {
        try ResponsePopulation(store: database).populate(try JSONReader().read(json), entity: "Post").changes
    }

    // MARK: - Statement timeout

    @Test func aStatementLongerThanTheTimeoutFailsNamingItAndRollsBack() throws {
        let database = try Self.store { $0.statementTimeout = .milliseconds(200) }
        _ = try Self.populate(database, #"[{"id": 1, "title": "a"}]"#)
        let before = try PostgreSQLStores.content(of: database)
        #expect(try database.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("200ms"))

        // The sleep would last ten minutes: only the timeout can end it with an error, which
        // says so. No elapsed time is compared.
        let error = try #require(throws: WebRecordError.self) {
            try database.write { connection in
                try connection.execute("UPDATE \"Post\" SET \"title\" = 'changed'")
                try connection.execute("SELECT pg_sleep(600)")
            }
        }
        #expect(error.code == .storeError)
        #expect(error.sqlState == "57014")
        #expect(error.message.hasPrefix("the statement ran longer than the statement timeout of 200 ms"), "\(error)")
        #expect(error.message.contains("statement timeout"))
        #expect(error.sql == "SELECT pg_sleep(600)")
        #expect(try PostgreSQLStores.content(of: database) == before)

        // The connection goes on, with the same timeout.
        #expect(try Self.populate(database, #"[{"id": 2, "title": "b"}]"#).inserted == 1)
        #expect(try database.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("200ms"))
    }

    /// Starts a thread that, from another session (`conninfo`), cancels the statement of the
    /// backend `backend` once it runs `pg_sleep`, as `pg_cancel_backend` does for an operator.
    /// (It gives up waiting for the statement after ``MachineLoad/hangTimeout``.)
    private static func cancelOnceItSleeps(_ backend: DatabaseValue, from conninfo: String) {
        let cancelling = Thread {
            guard let canceller = try? PostgreSQLConnection(conninfo) else { return }
            let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
            while Date() < deadline {
                let running = try? canceller.scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int AND query LIKE 'SELECT pg_sleep%'",
                    [backend])
                if running == .integer(1) { break }
                Thread.sleep(forTimeInterval: 0.02)
            }
            _ = try? canceller.execute("SELECT pg_cancel_backend($1::int)", [backend])
        }
        cancelling.start()
    }

    @Test func aTimeoutTheLocationSetsIsNamedToo() throws {
        let server = try PostgreSQLTestServer.shared()
        let database = try Self.store(
            at: server.conninfo(database: try server.makeDatabase()) + " options='-c statement_timeout=150'"
        ) { _ in }
        let error = try #require(throws: WebRecordError.self) {
            try database.withConnection { try $0.execute("SELECT pg_sleep(600)") }
        }
        #expect(error.sqlState == "57014")
        #expect(
            error.message.hasPrefix(
                "the statement ran longer than the session's statement timeout of 150ms (set by the server or the connection)"
            ), "\(error)")
        // Without a timeout, a statement another session cancels is not said to have timed out.
        // (Each sleep would last ten minutes, and the timeout below is longer still: however
        // late a loaded machine lets the cancellation come, it ends the statement.)
        let plain = try PostgreSQLConnection(server.conninfo(database: try server.makeDatabase()))
        let backend = try #require(try plain.scalar("SELECT pg_backend_pid()"))
        let other = server.conninfo(database: try server.makeDatabase())
        Self.cancelOnceItSleeps(backend, from: other)
        let cancelled = try #require(throws: WebRecordError.self) { try plain.execute("SELECT pg_sleep(600)") }
        #expect(cancelled.sqlState == "57014")
        #expect(!cancelled.message.contains("statement timeout of"), "\(cancelled)")
        // Nor with a timeout set, when the statement was cancelled before it.
        let timed = try PostgreSQLConnection(
            server.conninfo(database: try server.makeDatabase()) + " options='-c statement_timeout=900000'")
        let timedBackend = try #require(try timed.scalar("SELECT pg_backend_pid()"))
        Self.cancelOnceItSleeps(timedBackend, from: other)
        let early = try #require(throws: WebRecordError.self) { try timed.execute("SELECT pg_sleep(600)") }
        #expect(early.sqlState == "57014")
        #expect(!early.message.contains("statement timeout of"), "\(early)")
    }

    @Test func aPopulationWaitingLongerThanTheTimeoutForALockFailsAndWritesNothing() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try Self.store(at: location) { $0.statementTimeout = .milliseconds(300) }
        _ = try Self.populate(database, #"[{"id": 1, "title": "a"}]"#)
        let before = try PostgreSQLStores.content(of: database)
        // Another session holds the table until the population has ended: its first statement
        // on it waits, and only the timeout can end the wait. No elapsed time is compared. (The
        // population runs on a thread of its own, whose wait for it gives up, failing the test,
        // after ``MachineLoad/hangTimeout``; the lock goes then, and the population with it.)
        let other = try PostgreSQLConnection(location)
        try other.execute("BEGIN")
        try other.execute("LOCK TABLE \"Post\" IN ACCESS EXCLUSIVE MODE")
        let population = StartedThread { () throws -> WebRecordError? in
            do {
                _ = try Self.populate(database, #"[{"id": 1, "title": "changed"}, {"id": 2, "title": "b"}]"#)
                return nil
            } catch let error as WebRecordError {
                return error
            }
        }
        let ended: Result<WebRecordError?, any Error>
        do { ended = .success(try await population.value()) } catch { ended = .failure(error) }
        try other.execute("ROLLBACK")
        let error = try #require(try ended.get(), "the population succeeded while the table was locked")
        #expect(error.code == .storeError)
        #expect(error.sqlState == "57014")
        #expect(error.message.contains("statement timeout of 300 ms"), "\(error)")
        #expect(try PostgreSQLStores.content(of: database) == before)
        #expect(try Self.populate(database, #"[{"id": 2, "title": "b"}]"#).inserted == 1)
    }

    @Test func withoutATimeoutTheServersSettingStays() throws {
        let database = try Self.store { _ in }
        #expect(try database.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("0"))
        // A location that sets one keeps it.
        let server = try PostgreSQLTestServer.shared()
        let location = server.conninfo(database: try server.makeDatabase()) + " options='-c statement_timeout=1234'"
        let configured = try Self.store(at: location) { _ in }
        #expect(try configured.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("1234ms"))
        // The option wins over it.
        let overridden = try Self.store(at: location) { $0.statementTimeout = .seconds(3) }
        #expect(try overridden.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("3s"))
    }

    @Test func aTimeoutIsRoundedUpToTheMillisecond() throws {
        #expect(try PostgreSQLConnection.milliseconds(ofStatementTimeout: .microseconds(1)) == 1)
        #expect(try PostgreSQLConnection.milliseconds(ofStatementTimeout: .microseconds(1_500)) == 2)
        #expect(try PostgreSQLConnection.milliseconds(ofStatementTimeout: .seconds(90)) == 90_000)
        #expect(
            try PostgreSQLConnection.milliseconds(ofStatementTimeout: .milliseconds(2_147_483_647)) == 2_147_483_647)
        let database = try Self.store { $0.statementTimeout = .nanoseconds(1) }
        #expect(try database.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("1ms"))
    }

    @Test(arguments: [Duration.zero, .milliseconds(-5), .milliseconds(2_147_483_648), .seconds(3_000_000)])
    func aTimeoutThatIsNotPositiveOrTooLongIsRefused(timeout: Duration) throws {
        let error = try #require(throws: WebRecordError.self) {
            _ = try Self.store(at: "host=/nowhere dbname=x") { $0.statementTimeout = timeout }
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("statement timeout must be positive and at most 2147483647 ms"))
    }

    // MARK: - Application name

    @Test func theApplicationNameShowsInPgStatActivity() throws {
        let server = try PostgreSQLTestServer.shared()
        let byDefault = try Self.store { _ in }
        #expect(
            try PostgreSQLSessions.applicationName(of: PostgreSQLSessions.backend(of: byDefault), on: server)
                == .text("webrecord"))

        let named = try Self.store { $0.applicationName = "ingest worker 7" }
        #expect(
            try PostgreSQLSessions.applicationName(of: PostgreSQLSessions.backend(of: named), on: server)
                == .text("ingest worker 7"))
        #expect(try named.withConnection { try $0.scalar("SHOW application_name") } == .text("ingest worker 7"))
    }

    @Test func aNameTheLocationGivesWins() throws {
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        let conninfo = try Self.store(at: server.conninfo(database: database) + " application_name=from-conninfo") {
            $0.applicationName = "from-options"
        }
        #expect(
            try PostgreSQLSessions.applicationName(of: PostgreSQLSessions.backend(of: conninfo), on: server)
                == .text("from-conninfo"))
        let url = try Self.store(at: server.url(database: database) + "?application_name=from-url") {
            $0.applicationName = "from-options"
        }
        #expect(
            try PostgreSQLSessions.applicationName(of: PostgreSQLSessions.backend(of: url), on: server)
                == .text("from-url"))
    }

    @Test func aNamespaceThatIsEmptyOrHoldsANULIsRefused() throws {
        for namespace in ["", "ingest\u{0}; DROP SCHEMA public"] {
            let error = try #require(throws: WebRecordError.self) {
                _ = try Self.store(at: "host=/nowhere dbname=x") { $0.namespace = namespace }
            }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("schema (namespace) name"))
        }
    }
}
