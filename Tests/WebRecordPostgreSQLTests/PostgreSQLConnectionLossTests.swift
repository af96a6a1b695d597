import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A PostgreSQL store whose connection the server closes: a backend terminated
/// (`pg_terminate_backend`) or a server restarted, between populations or in the middle of one.
/// A population that loses its connection fails with an error that says so, and writes
/// nothing; what committed before stays; the next call on the same store connects again, with
/// the same namespace and options, and succeeds.
@Suite struct PostgreSQLConnectionLossTests {
    static let first = #"[{"id": 1, "title": "a", "user": {"id": "u1", "name": "Ann"}}, {"id": 2, "title": "b"}]"#
    static let second =
        #"[{"id": 1, "title": "changed"}, {"id": 3, "title": "c", "user": "u1"}, {"id": 4, "title": "d"}]"#

    static func schema() throws -> Schema {
        try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
    }

    /// A store of `server`'s in a new database, in the namespace `ingest`, with a statement
    /// timeout and an application name to find again after a reconnection. (The timeout, 15
    /// minutes, is one no statement of these tests reaches, however loaded the machine.)
    static func store(on server: PostgreSQLTestServer, observer: (@Sendable (String) -> Void)? = nil) throws
        -> PostgreSQLDatabase
    {
        var options = PostgreSQLDatabase.Options()
        options.namespace = "ingest"
        options.statementTimeout = .seconds(900)
        options.applicationName = "loss test"
        options.sqlObserver = observer
        return try PostgreSQLDatabase(
            server.conninfo(database: try server.makeDatabase()), schema: try schema(), options: options)
    }

    static func populate(_ database: PostgreSQLDatabase, _ json: String) throws -> ChangeCounts {
        try ResponsePopulation(store: database).populate(try JSONReader().read(json), entity: "Post").changes
    }

    /// The rows a SQLite store holds after `responses`.
    static func expectedContent(after responses: [String]) throws -> [String: [[DatabaseValue]]] {
        let sqlite = try PostgreSQLStores.sqlite(try schema())
        for response in responses {
            _ = try ResponsePopulation(store: sqlite).populate(try JSONReader().read(response), entity: "Post")
        }
        return try PostgreSQLStores.content(of: sqlite)
    }

    /// The session of `database` is a new one made as the first: its namespace, timeout and name.
    static func expectSessionMadeAgain(_ database: PostgreSQLDatabase, on server: PostgreSQLTestServer) throws {
        #expect(try database.withConnection { try $0.scalar("SHOW search_path") } == .text("ingest"))
        #expect(try database.withConnection { try $0.scalar("SHOW statement_timeout") } == .text("15min"))
        #expect(try database.withConnection { try $0.scalar("SHOW TimeZone") } == .text("UTC"))
        #expect(
            try PostgreSQLSessions.applicationName(of: PostgreSQLSessions.backend(of: database), on: server)
                == .text("loss test"))
    }

    @Test func aBackendEndedBetweenPopulationsIsReplacedByTheNextOne() throws {
        let server = try PostgreSQLTestServer.shared()
        let database = try Self.store(on: server)
        #expect(try Self.populate(database, Self.first).inserted == 3)
        let backend = try PostgreSQLSessions.backend(of: database)
        #expect(try PostgreSQLSessions.terminate(backend, on: server))

        // Nothing of a transaction had run: the population connects again and commits.
        let changes = try Self.populate(database, Self.second)
        #expect(changes.inserted == 2)
        #expect(changes.updated == 1)
        #expect(try PostgreSQLSessions.backend(of: database) != backend)
        #expect(try PostgreSQLStores.content(of: database) == Self.expectedContent(after: [Self.first, Self.second]))
        try Self.expectSessionMadeAgain(database, on: server)
    }

    @Test func aReadAfterTheBackendEndedConnectsAgain() throws {
        let server = try PostgreSQLTestServer.shared()
        let database = try Self.store(on: server)
        _ = try Self.populate(database, Self.first)
        let backend = try PostgreSQLSessions.backend(of: database)
        #expect(try PostgreSQLSessions.terminate(backend, on: server))
        #expect(try database.withConnection { try $0.scalar("SELECT count(*) FROM \"Post\"") } == .integer(2))
        #expect(try PostgreSQLSessions.backend(of: database) != backend)
    }

    @Test func aBackendEndedInTheMiddleOfAPopulationFailsItAndTheNextOneSucceeds() throws {
        let server = try PostgreSQLTestServer.shared()
        let trigger = PostgreSQLSessions.Trigger(before: ["COPY", "INSERT", "UPDATE"])
        let database = try Self.store(on: server, observer: trigger.observer)
        _ = try Self.populate(database, Self.first)
        let before = try PostgreSQLStores.content(of: database)
        let backend = try PostgreSQLSessions.backend(of: database)
        trigger.arm { try PostgreSQLSessions.terminate(backend, on: server) }

        let error = try #require(throws: WebRecordError.self) { _ = try Self.populate(database, Self.second) }
        #expect(trigger.fired.value.count == 1)
        #expect(trigger.errors.isEmpty)
        #expect(error.code == .storeError)
        #expect(error.message.hasPrefix("the connection to postgresql host=\(server.directory)"), "\(error)")
        #expect(error.message.contains("was lost"))
        #expect(!error.message.contains("whether the transaction committed"))
        // What committed before is there, and nothing of the failed population.
        #expect(try PostgreSQLStores.content(of: database) == before)

        // The same population again, on the same store, commits.
        #expect(try Self.populate(database, Self.second).inserted == 2)
        #expect(try PostgreSQLStores.content(of: database) == Self.expectedContent(after: [Self.first, Self.second]))
        try Self.expectSessionMadeAgain(database, on: server)
    }

    @Test func anAsyncPopulationThatLosesItsConnectionFailsAndTheNextOneIsCancellable() async throws {
        let server = try PostgreSQLTestServer.shared()
        let trigger = PostgreSQLSessions.Trigger(before: ["COPY", "INSERT", "UPDATE"])
        let database = try Self.store(on: server, observer: trigger.observer)
        _ = try await ResponsePopulation(store: database).populate(try JSONReader().read(Self.first), entity: "Post")
        let before = try PostgreSQLStores.content(of: database)
        let backend = try PostgreSQLSessions.backend(of: database)
        trigger.arm { try PostgreSQLSessions.terminate(backend, on: server) }
        let response = try JSONReader().read(Self.second)
        let error = await #expect(throws: WebRecordError.self) {
            _ = try await ResponsePopulation(store: database).populate(response, entity: "Post")
        }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("was lost") == true, "\(String(describing: error))")
        #expect(try PostgreSQLStores.content(of: database) == before)

        // The new session's statements can be interrupted as the first's: the canceller follows it.
        // The sleep would last ten minutes, and the statement timeout is longer still: only the
        // cancellation can end it soon, and the error says which did. No elapsed time is
        // compared, so the test holds however late a loaded machine lets the cancellation come.
        let name = try database.withConnection { try $0.scalar("SELECT current_database()") }
        let task = Task {
            try await database.write { connection in
                try connection.execute("UPDATE \"Post\" SET \"title\" = 'x'")
                try connection.execute("SELECT pg_sleep(600)")
            }
        }
        let activity = try PostgreSQLConnection(server.conninfo())
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        var sleeping = false
        while !sleeping, Date() < deadline {
            sleeping =
                try activity.scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query = $2",
                    [name ?? .null, .text("SELECT pg_sleep(600)")]) == .integer(1)
            if !sleeping { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sleeping)
        task.cancel()
        let cancelled = await #expect(throws: WebRecordError.self) { try await task.value }
        #expect(cancelled?.code == .cancelled)
        let cause = cancelled?.cause as? WebRecordError
        #expect(cause?.sqlState == "57014")
        #expect(
            cause?.message.contains("statement timeout") == false,
            "cancelled, not timed out: \(String(describing: cause))")
        #expect(try PostgreSQLSessions.backend(of: database) != backend)
        #expect(try PostgreSQLStores.content(of: database) == before)
    }

    @Test func aConnectionLostAtTheCommitSaysTheOutcomeIsUnknown() throws {
        let server = try PostgreSQLTestServer.shared()
        let trigger = PostgreSQLSessions.Trigger(before: ["COMMIT"])
        let database = try Self.store(on: server, observer: trigger.observer)
        _ = try Self.populate(database, Self.first)
        let before = try PostgreSQLStores.content(of: database)
        let backend = try PostgreSQLSessions.backend(of: database)
        trigger.arm { try PostgreSQLSessions.terminate(backend, on: server) }

        let error = try #require(throws: WebRecordError.self) { _ = try Self.populate(database, Self.second) }
        #expect(trigger.fired.value == ["COMMIT"])
        #expect(error.code == .storeError)
        #expect(error.message.contains("was lost"), "\(error)")
        #expect(error.message.hasSuffix("; whether the transaction committed is unknown"), "\(error)")
        #expect(error.sql == "COMMIT")
        // Here the backend ended before the COMMIT reached it: nothing committed.
        #expect(try PostgreSQLStores.content(of: database) == before)
        #expect(try Self.populate(database, Self.second).inserted == 2)
    }
}

/// A server that restarts under a store (`pg_ctl restart -m fast`, on the same data
/// directory), and one that stops. Each test starts a server of its own.
@Suite struct PostgreSQLServerRestartTests {
    @Test func aServerRestartedBetweenAndDuringPopulationsLosesNothingCommitted() throws {
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let trigger = PostgreSQLSessions.Trigger(before: ["COPY", "INSERT", "UPDATE"])
        let database = try PostgreSQLConnectionLossTests.store(on: server, observer: trigger.observer)
        let first = PostgreSQLConnectionLossTests.first
        let second = PostgreSQLConnectionLossTests.second
        let third = #"[{"id": 5, "title": "e"}]"#
        #expect(try PostgreSQLConnectionLossTests.populate(database, first).inserted == 3)
        let before = try PostgreSQLStores.content(of: database)

        // Restarted while the store was idle: the next population connects again and commits.
        try server.restart()
        #expect(try PostgreSQLConnectionLossTests.populate(database, second).inserted == 2)
        let afterSecond = try PostgreSQLConnectionLossTests.expectedContent(after: [first, second])
        #expect(try PostgreSQLStores.content(of: database) == afterSecond)
        #expect(try PostgreSQLStores.content(of: database) != before)

        // Restarted in the middle of a population: it fails, and nothing of it is written.
        trigger.arm { try server.restart() }
        let error = try #require(throws: WebRecordError.self) {
            _ = try PostgreSQLConnectionLossTests.populate(database, third)
        }
        #expect(trigger.fired.value.count == 1)
        #expect(trigger.errors.isEmpty)
        #expect(error.code == .storeError)
        #expect(error.message.contains("was lost"), "\(error)")
        #expect(try PostgreSQLStores.content(of: database) == afterSecond)
        #expect(try PostgreSQLConnectionLossTests.populate(database, third).inserted == 1)
        #expect(
            try PostgreSQLStores.content(of: database)
                == PostgreSQLConnectionLossTests.expectedContent(after: [first, second, third]))
        try PostgreSQLConnectionLossTests.expectSessionMadeAgain(database, on: server)
    }

    @Test func aStoreWhoseServerStoppedSaysItCannotConnectAgainAtEachCall() throws {
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let database = try PostgreSQLConnectionLossTests.store(on: server)
        _ = try PostgreSQLConnectionLossTests.populate(database, PostgreSQLConnectionLossTests.first)
        server.stop()
        for _ in 0..<2 {
            let error = try #require(throws: WebRecordError.self) {
                _ = try PostgreSQLConnectionLossTests.populate(database, PostgreSQLConnectionLossTests.second)
            }
            #expect(error.code == .storeError)
            #expect(error.message.hasPrefix("cannot connect again to postgresql host=\(server.directory)"), "\(error)")
        }
        let read = try #require(throws: WebRecordError.self) {
            try database.withConnection { try $0.scalar("SELECT 1") }
        }
        #expect(read.message.hasPrefix("cannot connect again to postgresql host="), "\(read)")
    }
}
