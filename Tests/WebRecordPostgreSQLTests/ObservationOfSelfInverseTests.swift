import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// An observation of an entity with relationships that are their own inverse: a record that
/// gains a friend or a spouse through the other record's side is modified too, on SQLite and
/// PostgreSQL alike. (Starting the shared PostgreSQL server counts against the limit, which
/// guards against a hang, not against a loaded machine: the suite takes seconds on an idle one.)
@Suite("Observation of a self-inverse relationship", .timeLimit(MachineLoad.hangTimeLimit))
struct ObservationOfSelfInverseTests {
    static let schemaJSON = """
        {"entities": {
          "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "friends": {"destination": "User", "toMany": true, "inverse": "friends"},
              "spouse": {"destination": "User", "inverse": "spouse"}}}
        }}
        """

    /// The two stores the test observes: a SQLite file and a new PostgreSQL database.
    static func stores(in directory: TemporaryDirectory) async throws -> [RecordStore] {
        let schema = try Schema(json: schemaJSON)
        let url = try await ChildProcess.onThread {
            let server = try PostgreSQLTestServer.shared()
            return server.url(database: try server.makeDatabase())
        }
        return [
            try RecordStore(path: directory.path("self.sqlite"), schema: schema),
            try RecordStore(postgreSQL: url, schema: schema),
        ]
    }

    @Test func bothSidesOfALinkAreModifiedOnBothStores() async throws {
        let directory = try TemporaryDirectory()
        for store in try await Self.stores(in: directory) {
            _ = try await store.populate([["id": 1], ["id": 2], ["id": 3]], entity: "User")
            var iterator = store.observe("User", orderBy: [.ascending("id")]).makeAsyncIterator()
            let initial = try #require(try await iterator.next())
            #expect(initial.records.count == 3)

            _ = try await store.populate([["id": 1, "friends": [2]]], entity: "User")
            var next = try #require(try await iterator.next())
            var changes = try #require(next.changes)
            #expect(
                changes.modifications == [.init(old: 0, new: 0), .init(old: 1, new: 1)], "\(store)")
            #expect(next.records[1].relatedRecords("friends", as: Record.self).map(\.primaryKeyValue) == [1])

            _ = try await store.populate([["id": 3, "spouse": 2]], entity: "User")
            next = try #require(try await iterator.next())
            changes = try #require(next.changes)
            #expect(
                changes.modifications == [.init(old: 1, new: 1), .init(old: 2, new: 2)], "\(store)")
            #expect(next.records[1].related("spouse", as: Record.self)?.primaryKeyValue == 3)
        }
    }
}
