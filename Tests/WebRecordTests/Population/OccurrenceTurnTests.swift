import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Occurrences of one record applied in turn (DESIGN §3.7, decision 6), where two
/// proto-records turn out to be one row: a record named by key, and an object without a key
/// where a record is related. Found by a longer run of `OracleSyncTests`' generator.
@Suite struct OccurrenceTurnTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: #"""
                    {"entities": {
                      "Post": {"primaryKey": "id",
                        "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
                        "relationships": {
                          "author": {"destination": "Author", "inverse": "posts"},
                          "stats": {"destination": "Stats", "inverse": "post"}}},
                      "Author": {"primaryKey": "id",
                        "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}, "age": {"type": "integer"}},
                        "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "author"}}},
                      "Stats": {"primaryKey": "post",
                        "attributes": {"views": {"type": "integer"}, "likes": {"type": "integer"}},
                        "relationships": {"post": {"destination": "Post", "inverse": "stats"}}}
                    }}
                    """#, fileName: "OccurrenceTurn.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static func rows(_ response: String, after earlier: String, batchBytes: Int? = nil) async throws -> [String] {
        let populated = try await PopulatedStore.populating(
            response, after: earlier, schema: schema, entity: "Post", batchBytes: batchBytes)
        #expect(populated.failure == nil, "\(populated)")
        return populated.rows
    }

    /// Author 1 is named by key, then through post 4's author as an object without a key, then
    /// by key again with some of the same values. Applied in turn, each attribute the last
    /// occurrence by key gives ends as it gives it: a later occurrence that gives the same value
    /// gives it again, after the object between, whether or not the two dictionaries differ.
    @Test(arguments: [
        // The same dictionary again.
        (
            #"[{"id": 2, "author": {"id": 1, "name": "c"}}, {"id": 4, "author": {"name": "b"}}, {"id": 3, "author": {"id": 1, "name": "c"}}]"#,
            "'c' | 1"
        ),
        // The same name beside a value that differs.
        (
            #"[{"id": 2, "author": {"id": 1, "name": "c"}}, {"id": 4, "author": {"name": "b", "age": 3}}, {"id": 3, "author": {"id": 1, "name": "c", "age": null}}]"#,
            "'c' | NULL"
        ),
        // The same age, with the key given in another form ("1" for 1).
        (
            #"[{"id": 2, "author": {"id": 1, "name": "c", "age": 5}}, {"id": 4, "author": {"age": 3}}, {"id": 3, "author": {"id": "1", "age": 5}}]"#,
            "'c' | 5"
        ),
        // The same name, given three times by key around the object.
        (
            #"[{"id": 2, "author": {"id": 1, "name": "c", "age": 2}}, {"id": 4, "author": {"name": "b"}}, {"id": 2, "author": {"id": 1, "name": "c"}}, {"id": 3, "author": {"id": 1, "name": "c", "age": 2}}]"#,
            "'c' | 2"
        ),
    ])
    func aValueGivenAgainAfterAnObjectWithoutAKeyWins(response: String, values: String) async throws {
        let earlier = #"[{"id": 4, "author": {"id": 1, "name": "a", "age": 1}}]"#
        let rows = try await Self.rows(response, after: earlier)
        #expect(rows.filter { $0.hasPrefix("Author:") } == ["Author: 1 | 'Author' | 1 | \(values)"], "\(rows)")
        for batchBytes in [1, 40, 1 << 20] {
            #expect(try await Self.rows(response, after: earlier, batchBytes: batchBytes) == rows, "\(batchBytes)")
        }
    }
}

extension OccurrenceTurnTests {
    /// A record identified by its owner (`Stats`, keyed by its post), cleared by an occurrence of
    /// the owner (`"stats": null`) and given again by a later one as an object without the key.
    /// The owner is its key, so the later object is that record; and the deletion the `null`
    /// starts spares a record the response contains (Docs/Population.md, "What a response
    /// contained is never deleted by its own links either"). It stays, with its `_id`, and keeps
    /// what the later object does not give, whole and streamed alike.
    @Test(arguments: [
        (#"[{"id": 4, "stats": null}, {"id": 4, "stats": {"likes": 1}}]"#, "2 | 1"),
        (
            #"[{"id": 4, "stats": {"likes": 5}}, {"id": 4, "stats": null}, {"id": 4, "title": "t"}, {"id": 4, "stats": {"likes": 1}}]"#,
            "2 | 1"
        ),
        (#"[{"id": 4, "stats": null}, {"id": 3}, {"id": 4, "stats": {}}]"#, "2 | 3"),
        (#"[{"id": 4, "stats": {"views": 7}}, {"id": 4, "stats": null}, {"id": 4, "stats": {}}]"#, "7 | 3"),
    ])
    func aRecordItsOwnerClearedThenGivesAgainIsKept(response: String, values: String) async throws {
        let earlier = #"[{"id": 4, "stats": {"views": 2, "likes": 3}}]"#
        let populated = try await PopulatedStore.populating(
            response, after: earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(populated.failure == nil, "\(populated)")
        #expect(
            populated.rows.filter { $0.hasPrefix("Stats:") } == ["Stats: 1 | 'Stats' | \(values) | 1"], "\(populated)")
        #expect(populated.counts["Stats"]?.deleted == 0, "\(populated)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                response, after: earlier, schema: Self.schema, entity: "Post", batchBytes: batchBytes)
            #expect(streamed == populated, "\(batchBytes): \(streamed)")
        }
    }
}
