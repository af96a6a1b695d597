import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A nested object without a key, through a to-one where nothing is related (Docs/Population.md,
/// decision 6). The schema is ``OracleSyncTests``'s: a post's `author`, keyed by `id`.
@Suite struct KeylessWhereNothingIsRelatedTests {
    /// A keyless object through a to-one where nothing is related (decision 6): a new record
    /// with no key, which the next sync updates in place through the same to-one instead of
    /// making another; whole and streamed alike.
    @Test func aKeylessObjectWhereNothingIsRelatedIsANewRecordUpdatedInPlaceLater() async throws {
        let schema = try OracleSyncTests.schema()
        let first = #"[{"id": 1, "author": {"name": "N"}}, {"id": 2, "author": {"name": "Q"}}]"#
        let second = #"[{"id": 1, "author": {"name": "M"}}, {"id": 2, "author": {"age": 3}}]"#
        let store = try RecordStore(inMemory: schema)
        for response in [first, second] {
            _ = try await store.populate(try JSONReader().read(response), entity: "Post")
        }
        let authors = try await store.read { connection in
            try connection.rows(
                "SELECT p.id || ':' || ifnull(a.id, '-') || ',' || a.name || ',' || ifnull(a.age, '-') FROM Post p JOIN Author a ON p.author = a._id ORDER BY p.id"
            ).map { row in
                guard case .text(let text)? = row.first else { return "\(row)" }
                return text
            }
        }
        #expect(authors == ["1:-,M,-", "2:-,Q,3"])
        #expect(try store.count("Author") == 2)
        for earlier in ["[]", first] {
            let whole = try await PopulatedStore.populating(
                second, after: earlier, schema: schema, entity: "Post", batchBytes: nil)
            for batchBytes in [1, 40] {
                let streamed = try await PopulatedStore.populating(
                    second, after: earlier, schema: schema, entity: "Post", batchBytes: batchBytes)
                #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
            }
        }
    }
}
