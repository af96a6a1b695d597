import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A one-to-one that is its own inverse (`mate`), where a stored record is its own partner: a
/// record that pairs with it in one part of a response and lets go of it in a later one takes
/// only the link's latest occurrence in one batch, so the stored record stays its own partner.
/// A stream whose batches part the two occurrences reads the response again whole, as for any
/// partner taken and let go (Docs/Population.md, "Read again whole"), and ends as the whole
/// response; from a stream that cannot be read again, it is refused and writes nothing.
@Suite struct SelfPairedStreamTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: #"""
                    {"version": 1, "entities": {"Post": {"primaryKey": "id",
                      "attributes": {"id": {"type": "string"}, "title": {"type": "string"}},
                      "relationships": {"mate": {"destination": "Post", "inverse": "mate"}}}}}
                    """#, fileName: "Mates.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let earlier = #"[{"id": "p1", "mate": "p1"}]"#

    @Test(arguments: [
        #"[{"id": "p3", "mate": "p1"}, {"id": "p3", "mate": null}]"#,
        #"[{"id": "p3", "mate": "p1"}, {"id": "p3", "mate": {"id": "p4"}}]"#,
    ])
    func endsAsTheWholeResponse(_ list: String) async throws {
        let whole = try await PopulatedStore.populating(
            list, after: Self.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // One batch takes only p3's latest occurrence: p1 stays its own partner.
        #expect(whole.rows.contains { $0.hasPrefix("Post: 1 | 'Post' | 'p1' | NULL | 1") }, "\(whole)")
        try await PopulatedStore.expectStreamsEqual(
            list, after: Self.earlier, schema: Self.schema, entity: "Post", whole: whole,
            isRefusal: { $0.contains("lets go of it in a later one") })
    }
}
