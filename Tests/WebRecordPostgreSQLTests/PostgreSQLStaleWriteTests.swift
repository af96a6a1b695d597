import Foundation
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The shared link operations read rows without locking them, then write them. On a store that
/// other writers share, a row another worker changes between the read and the write must not
/// be overwritten with what was read: each write carries the condition its read matched, and
/// PostgreSQL re-checks it on the row as the other worker's commit left it.
///
/// Each test makes the interleaving happen for real: another connection locks the row first,
/// the operation reads it (a plain read does not wait for the lock) and then waits at its
/// write; once the server shows it waiting, the other connection changes the row and commits.
@Suite(.timeLimit(MachineLoad.hangTimeLimit)) struct PostgreSQLStaleWriteTests {
    static let schema = """
        {"entities": {
          "Board": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {
              "notes": {"destination": "Note", "toMany": true, "ordered": true, "inverse": "board", "merge": "union"}}},
          "Note": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"board": {"destination": "Board", "inverse": "notes"}}},
          "Person": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"badge": {"destination": "Badge", "inverse": "holder"}}},
          "Badge": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"holder": {"destination": "Person", "inverse": "badge"}}}
        }}
        """

    static func json(_ text: String) throws -> JSONValue { try JSONReader().read(Data(text.utf8)) }

    /// Runs `operation` in a transaction of `database` on a thread of its own while `other`
    /// holds a lock on the row `id` of `table`; once the operation waits for that lock, runs
    /// `change` on `other` and commits it. Returns what the operation returned.
    static func interleave<T: Sendable>(
        _ database: PostgreSQLDatabase, other: PostgreSQLConnection, location: String, table: String, id: String,
        change: String, operation: @escaping @Sendable (PostgreSQLRecordTransaction) throws -> T
    ) async throws -> T {
        try other.execute("BEGIN")
        _ = try other.execute("SELECT 1 FROM \"\(table)\" WHERE \"id\" = $1 FOR UPDATE", [.text(id)])
        // The store's own writer runs the operation (no thread of the test's pool waits for it).
        let running = Task { try await database.inTransaction { transaction in try operation(transaction) } }
        let watcher = try PostgreSQLConnection(location)
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        var waiting = false
        while !waiting, Date() < deadline {
            waiting =
                try watcher.scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE%'")
                == .integer(1)
            if !waiting { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(waiting, "the operation never waited at its write")
        try other.execute(change)
        try other.execute("COMMIT")
        return try await running.value
    }

    @Test func aReferenceAnotherWorkerMovedIsNotClearedFromTheRowItNowHolds() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try PostgreSQLStores.postgreSQL(Schema(json: Self.schema, fileName: "Links.json"), at: location)
        _ = try await database.populate(
            Self.json(#"[{"id": "p1", "badge": {"id": "x1"}}, {"id": "p2"}]"#), entity: "Person",
            options: PopulationOptions())
        let other = try PostgreSQLConnection(location)
        let p1 = try #require(try other.scalar(#"SELECT "_id" FROM "Person" WHERE "id" = 'p1'"#))
        let p2 = try #require(try other.scalar(#"SELECT "_id" FROM "Person" WHERE "id" = 'p2'"#))
        guard case .integer(let p2ID) = p2 else { throw CancellationError() }
        // This worker clears the badges that name p1; the other gives x1 to p2 in the meantime.
        let cleared = try await Self.interleave(
            database, other: other, location: location, table: "Badge", id: "x1",
            change: #"UPDATE "Badge" SET "holder" = \#(p2ID) WHERE "id" = 'x1'"#
        ) { transaction in
            try transaction.clearReferences(in: "Badge", column: "holder", to: p1, except: nil)
        }
        #expect(cleared.isEmpty, "the badge no longer named p1 when the write came")
        #expect(try other.scalar(#"SELECT "holder" FROM "Badge" WHERE "id" = 'x1'"#) == p2)
    }

    @Test func aMemberAnotherWorkerMovedKeepsThePositionItWasGivenThere() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try PostgreSQLStores.postgreSQL(Schema(json: Self.schema, fileName: "Links.json"), at: location)
        _ = try await database.populate(
            Self.json(#"[{"id": "b1", "notes": [{"id": "n1"}, {"id": "n2"}]}, {"id": "b2"}]"#), entity: "Board",
            options: PopulationOptions())
        let other = try PostgreSQLConnection(location)
        let b1 = try #require(try other.scalar(#"SELECT "_id" FROM "Board" WHERE "id" = 'b1'"#))
        let b2 = try #require(try other.scalar(#"SELECT "_id" FROM "Board" WHERE "id" = 'b2'"#))
        guard case .integer(let b1ID) = b1, case .integer(let b2ID) = b2 else { throw CancellationError() }
        // This worker moves b1's members after one listed member; the other moves n1 to b2, at 0.
        let moved = try await Self.interleave(
            database, other: other, location: location, table: "Note", id: "n1",
            change: #"UPDATE "Note" SET "board" = \#(b2ID), "_position_board" = 0 WHERE "id" = 'n1'"#
        ) { transaction in
            try !transaction.moveMembers(
                of: b1ID, in: "Note", column: "board", positionColumn: "_position_board", after: [-1]
            ).isEmpty
        }
        // n2 moved from 1 to 2 in b1; n1, in b2 now, kept its position there.
        #expect(moved)
        #expect(try other.scalar(#"SELECT "_position_board" FROM "Note" WHERE "id" = 'n1'"#) == .integer(0))
        #expect(try other.scalar(#"SELECT "board" FROM "Note" WHERE "id" = 'n1'"#) == b2)
        #expect(try other.scalar(#"SELECT "_position_board" FROM "Note" WHERE "id" = 'n2'"#) == .integer(2))
    }
}
