import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// An object without a key, related through its owner's to-one (DESIGN §3.6), that one batch of
/// a stream stores and a later occurrence of its owner unlinks: one batch would never have
/// stored it, so the stream takes its row back when the last batch is written, and the whole
/// response leaves its `_id` unused. Streamed at every batch size, from a source read again and
/// from one read once, the store ends row for row as one batch leaves it, `_id`s included, with
/// the same counts, and without reading the response again.
@Suite("Population: a keyless record a later occurrence unlinks, taken back")
struct StreamedUnmadeRecordTests {
    typealias A = AdversarialStreamTests

    /// Posts with a keyless `cover` kept in the post's row, a keyless `banner` kept in its own
    /// row, and a keyless `badge` that has a list of keyless `stamps`.
    static let schema = A.schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"cover": {"destination": "Image"},
              "banner": {"destination": "Banner", "inverse": "post"},
              "badge": {"destination": "Badge", "inverse": "post"}}},
          "Image": {"attributes": {"url": {"type": "string"}}},
          "Banner": {"attributes": {"url": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "banner"}}},
          "Badge": {"attributes": {"name": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "badge"},
              "stamps": {"destination": "Stamp", "toMany": true, "inverse": "badge"}}},
          "Stamp": {"attributes": {"mark": {"type": "string"}},
            "relationships": {"badge": {"destination": "Badge", "inverse": "stamps"}}}
        }}
        """#)

    /// Populates `elements` whole, then streamed at every batch size, read again when needed and
    /// read once: each ends exactly as whole, never refused. Returns the whole outcome.
    @discardableResult
    static func expectExactWhenReadOnce(
        _ elements: [String], after earlier: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> A.Outcome {
        let text = A.data(elements)
        let before = A.data(earlier)
        let whole = try await A.populate(text, after: before, schema: schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)", sourceLocation: sourceLocation)
        for size in A.batchSizes {
            for reopens in [true, false] {
                let streamed = try await A.populate(
                    text, after: before, schema: schema, entity: "Post", batchBytes: size, reopens: reopens)
                #expect(
                    streamed == whole,
                    "batches of \(size) bytes\(reopens ? "" : ", read once") (+ streamed, - whole):\n\(streamed.difference(from: whole))",
                    sourceLocation: sourceLocation)
            }
        }
        return whole
    }

    @Test(
        "A keyless to-one object a later occurrence sets to null is taken back, and its _id stays unused",
        arguments: ["cover", "banner"])
    func setToNull(relationship: String) async throws {
        let whole = try await Self.expectExactWhenReadOnce(
            [
                #"{"id": 2, "R": {"url": "c1"}}"#, #"{"id": 3, "title": "between"}"#, #"{"id": 2, "R": null}"#,
                #"{"id": 4, "R": {"url": "d1"}}"#,
            ].map { $0.replacingOccurrences(of: "\"R\"", with: "\"\(relationship)\"") })
        let table = relationship == "cover" ? "Image" : "Banner"
        // c1's `_id`, 1, is left unused: d1 takes 2, as a stream whose first batch stored c1 gives it.
        #expect(!whole.rows.contains { $0.contains("'c1'") }, "\(whole)")
        #expect(whole.rows.contains { $0.hasPrefix("\(table): 2 | '\(table)' | 'd1'") }, "\(whole)")
        #expect(whole.counts[table]?.inserted == 1, "\(whole)")
    }

    @Test("A keyless to-one object a later occurrence replaces by another, after a null, is taken back")
    func replacedAfterNull() async throws {
        let whole = try await Self.expectExactWhenReadOnce([
            #"{"id": 2, "cover": {"url": "c1"}, "banner": {"url": "b1"}}"#,
            #"{"id": 2, "cover": null, "banner": null}"#,
            #"{"id": 2, "cover": {"url": "c2"}, "banner": {"url": "b2"}}"#,
        ])
        #expect(whole.rows.contains("Image: 2 | 'Image' | 'c2'"), "\(whole)")
        #expect(whole.rows.contains { $0.hasPrefix("Banner: 2 | 'Banner' | 'b2'") }, "\(whole)")
        #expect(!whole.rows.contains { $0.contains("'c1'") || $0.contains("'b1'") }, "\(whole)")
        #expect(whole.counts["Image"]?.inserted == 1 && whole.counts["Banner"]?.inserted == 1, "\(whole)")
    }

    @Test("A keyless object given again before it is unlinked is still taken back")
    func givenAgainThenUnlinked() async throws {
        try await Self.expectExactWhenReadOnce([
            #"{"id": 2, "cover": {"url": "c1"}}"#, #"{"id": 2, "cover": {"url": "c1b"}}"#,
            #"{"id": 2, "title": "t"}"#, #"{"id": 2, "cover": null}"#,
        ])
    }

    @Test("Into a store that already relates an object there, the stored one is updated and kept unlinked")
    func storedObjectIsNotTakenBack() async throws {
        let whole = try await Self.expectExactWhenReadOnce(
            [#"{"id": 2, "cover": {"url": "c1"}}"#, #"{"id": 2, "cover": null}"#],
            after: [#"{"id": 2, "cover": {"url": "old"}}"#])
        // The stored image is the one related there: updated, then unlinked, never deleted.
        #expect(whole.rows.contains("Image: 1 | 'Image' | 'c1'"), "\(whole)")
        #expect(whole.counts["Image"]?.deleted ?? 0 == 0, "\(whole)")
    }

    @Test("A keyless object with links of its own that a later occurrence unlinks still reads the response again")
    func withLinksOfItsOwn() async throws {
        let text = A.data([
            #"{"id": 2, "badge": {"name": "gold", "stamps": [{"mark": "x"}]}}"#, #"{"id": 3}"#,
            #"{"id": 2, "badge": null}"#,
        ])
        let whole = try await A.expectSameAtEveryBatchSize(text, schema: Self.schema, entity: "Post")
        #expect(!whole.rows.contains { $0.hasPrefix("Badge:") }, "\(whole)")
        // Its stamp, a record of its own in a list, is stored, no longer linked to it.
        #expect(whole.rows.contains("Stamp: 1 | 'Stamp' | 'x' | NULL"), "\(whole)")
        // Read once in batches of one record: its stamps were linked to it, so it is refused.
        let once = try await A.populate(text, schema: Self.schema, entity: "Post", batchBytes: 1, reopens: false)
        #expect(once.failure?.contains("was made, with links of its own") == true, "\(once)")
        #expect(once.rows.isEmpty, "a refused stream wrote something: \(once)")
    }
}
