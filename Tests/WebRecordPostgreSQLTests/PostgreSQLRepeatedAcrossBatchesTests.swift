import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A PostgreSQL store, whose lookups lock the rows they find, takes a nested record a later
/// batch repeats as is as it wrote it (``RepeatedRecords``), as SQLite does: the same responses
/// streamed into both, in batches of one record and of a few, leave the same rows and changes,
/// also where another record changes the repeated user's counts between two repeats.
@Suite(.serialized) struct PostgreSQLRepeatedAcrossBatchesTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "stats": { "destination": "Counts", "inverse": "statsOf" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user", "merge": "union" },
                "counts": { "destination": "Counts", "inverse": "user" }
              }
            },
            "Counts": {
              "primaryKey": "user",
              "attributes": { "followers": { "type": "integer" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "counts" },
                "statsOf": { "destination": "Post", "toMany": true, "inverse": "stats" }
              }
            }
          }
        }
        """

    static func post(_ id: Int, name: String = "Ann", title: String = "t") -> String {
        #"{"id": \#(id), "title": "\#(title)", "user": {"id": "u1", "name": "\#(name)", "counts": {"followers": 1}}}"#
    }

    static let stats = #"{"id": 2, "title": "s", "stats": {"user": "u1", "followers": 5}}"#

    @Test(arguments: [
        // Repeated as is, a batch each time; then renamed and repeated again.
        [Self.post(1), Self.post(3), Self.post(4), Self.post(5, name: "Bo"), Self.post(6, name: "Bo")],
        // The counts changed between two repeats, in a batch of their own or in the repeat's.
        [Self.post(1, title: String(repeating: "x", count: 200)), Self.stats, Self.post(3)],
        [Self.post(1, title: String(repeating: "x", count: 200)), Self.post(3), Self.stats],
    ])
    func bothStoresEndTheSame(posts: [String]) async throws {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Repeated.json")
        let data = Data("{\"data\": [\(posts.joined(separator: ", "))]}".utf8)
        for batchBytes in [1, 200] {
            let sqlite = try PostgreSQLStores.sqlite(schema)
            let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
            let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
            }
            let expected = try await ResponsePopulation(store: sqlite).populate(streaming: open, entity: "Post")
            let result = try await ResponsePopulation(store: postgreSQL).populate(streaming: open, entity: "Post")
            #expect(result.changesByEntity == expected.changesByEntity, "batches of \(batchBytes) bytes")
            let content = try PostgreSQLStores.content(of: postgreSQL)
            #expect(content == (try PostgreSQLStores.content(of: sqlite)), "batches of \(batchBytes) bytes")
            // The followers the last occurrence that gives them says.
            let followers = posts.last == Self.stats ? 5 : 1
            #expect(content["Counts"]?.first?.contains(.integer(Int64(followers))) == true, "\(content)")
        }
    }
}
