import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// An observation of an entity with a many-to-many relationship, whose members live in a join
/// table: a change of its members is a change of the record, on SQLite and PostgreSQL alike.
/// (Starting the shared PostgreSQL server counts against the limit, which guards against a
/// hang, not against a loaded machine.)
@Suite("Observation of a many-to-many", .timeLimit(MachineLoad.hangTimeLimit))
struct ObservationOfManyToManyTests {
    static let schemaJSON = """
        {
          "entities": {
            "A": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "bs": { "destination": "B", "toMany": true, "inverse": "as" } }
            },
            "B": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "as": { "destination": "A", "toMany": true, "inverse": "bs" } }
            }
          }
        }
        """

    /// The two stores the test observes: a SQLite file and a new PostgreSQL database.
    static func stores(in directory: TemporaryDirectory) async throws -> [RecordStore] {
        let schema = try Schema(json: schemaJSON)
        let url = try await ChildProcess.onThread {
            let server = try PostgreSQLTestServer.shared()
            return server.url(database: try server.makeDatabase())
        }
        return [
            try RecordStore(path: directory.path("m2m.sqlite"), schema: schema),
            try RecordStore(postgreSQL: url, schema: schema),
        ]
    }

    @Test func aChangeOfMembersIsAModificationOnBothStores() async throws {
        let directory = try TemporaryDirectory()
        for store in try await Self.stores(in: directory) {
            _ = try await store.populate([["id": 1, "bs": [["id": 10]]], ["id": 2]], entity: "A")
            var iterator = store.observe("A", orderBy: [.ascending("id")]).makeAsyncIterator()
            let initial = try #require(try await iterator.next())
            #expect(initial.records.count == 2)

            _ = try await store.populate([["id": 1, "bs": [["id": 10], ["id": 11]]]], entity: "A")
            let next = try #require(try await iterator.next())
            let changes = try #require(next.changes)
            #expect(changes.modifications == [ChangeSet.Modification(old: 0, new: 0)], "\(store)")
            #expect(changes.insertions.isEmpty && changes.deletions.isEmpty)
            #expect(next.records.first?.relatedRecords("bs").count == 2)
        }
    }
}
