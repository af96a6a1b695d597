import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A response into a schema with an ordered to-many that is its own inverse is read whole,
/// whatever its batch size and whether it can be read again (Docs/Population.md, "What is read
/// whole"): each list is also ordered by the records that list it, which batches applied in
/// turn would order otherwise. A top-level array is read whole too, not only a list at a key
/// path.
@Suite struct ReadWholeSchemaTests {
    static let schemaJSON = #"""
        {"version": 1, "entities": {"Post": {"primaryKey": "id",
          "attributes": {"id": {"type": "string"}, "title": {"type": "string"}},
          "relationships": {"ranked": {"destination": "Post", "toMany": true, "ordered": true, "inverse": "ranked"}}}}}
        """#

    /// Each post's `ranked`, in order.
    static func ranked(_ text: String, batchBytes: Int?) async throws -> [String] {
        let schema = try Schema(json: schemaJSON, fileName: "Ranked.json")
        let store = try RecordStore(inMemory: schema)
        if let batchBytes {
            let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
            _ = try await population.populate(
                streaming: readingOnce(Data(text.utf8), batchByteLimit: batchBytes), entity: "Post",
                reopens: false)
        } else {
            _ = try await store.populate(try JSONReader().read(text), entity: "Post")
        }
        return try await store.read { connection in
            try connection.rows(
                """
                SELECT p.id || ':' || ifnull((SELECT group_concat(id, ' ') FROM (SELECT o.id FROM _Post_ranked j
                    JOIN Post o ON o._id = j.target WHERE j.owner = p._id ORDER BY j.position)), '')
                FROM Post p ORDER BY p.id
                """
            ).map { row in
                guard case .text(let text)? = row.first else { return "\(row)" }
                return text
            }
        }
    }

    @Test(arguments: [
        #"[{"id": "c", "ranked": ["b"]}, {"id": "d", "ranked": ["b"]}, {"id": "c", "ranked": ["b"]}]"#,
        #"[{"id": "c", "ranked": ["b", "d"]}, {"id": "e", "title": "t"}, {"id": "d", "ranked": ["b"]}, {"id": "b", "ranked": ["e", "c"]}]"#,
    ])
    func anOrderedSelfInverseListIsReadWhole(_ text: String) async throws {
        let whole = try await Self.ranked(text, batchBytes: nil)
        for batchBytes in [1, 40, 1 << 20] {
            #expect(try await Self.ranked(text, batchBytes: batchBytes) == whole, "batches of \(batchBytes) bytes")
        }
    }

    @Test func theOrderIsTheWholeResponses() async throws {
        let text = #"[{"id": "c", "ranked": ["b"]}, {"id": "d", "ranked": ["b"]}, {"id": "c", "ranked": ["b"]}]"#
        #expect(try await Self.ranked(text, batchBytes: 1) == ["b:d c", "c:b", "d:b"])
    }
}
