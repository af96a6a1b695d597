import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A PostgreSQL store, whose lookups lock the rows they find, takes a nested record a later
/// batch repeats as is as it wrote it (``RepeatedRecords``), as SQLite does: the same responses
/// streamed into both, in batches of one record and of a few, leave the same rows and changes,
/// also where another record changes the repeated user's counts between two repeats.
@Suite(.serialized) struct PostgreSQLRepeatedAcrossBatchesTests {
    static func post(_ id: Int, name: String = "Ann") -> String { RepeatedAcrossBatches.post(id, name: name) }

    @Test(
        arguments: [
            // Repeated as is, a batch each time; then renamed and repeated again.
            [Self.post(1), Self.post(3), Self.post(4), Self.post(5, name: "Bo"), Self.post(6, name: "Bo")]
        ] + RepeatedAcrossBatches.countsChangedBetweenRepeats)
    func bothStoresEndTheSame(posts: [String]) async throws {
        let schema = try Schema(json: RepeatedAcrossBatches.schemaJSON, fileName: "Repeated.json")
        let data = Data(RepeatedAcrossBatches.response(posts).utf8)
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
            let followers = RepeatedAcrossBatches.followers(after: posts)
            #expect(content["Counts"]?.first?.contains(.integer(Int64(followers))) == true, "\(content)")
        }
    }
}
