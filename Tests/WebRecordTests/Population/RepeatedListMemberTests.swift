import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A list that names one member more than once (Docs/Population.md, decision 11): the member is
/// linked once, at the position of its first occurrence, as an ordered set keeps it, and its
/// values merge as any record repeated in a response (the later wins). Whole, and streamed at
/// every batch size, with the same rows. The schema is ``OracleSyncTests``'s: a post's ordered
/// many-to-many `tags` and ordered one-to-many `comments`, both under `replace`, and the unordered
/// many-to-many `labels` under `union`.
@Suite struct RepeatedListMemberTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let earlier: String
        let list: String
        /// Each post's links as they end: `post: tags; comments; labels` (tags and comments in
        /// order, labels by key).
        let ends: [String]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(
            name: "nested objects, an ordered many-to-many and a one-to-many", earlier: "[]",
            list:
                #"[{"id": 1, "tags": [{"id": "x"}, {"id": "y"}, {"id": "x"}], "comments": [{"id": 5, "body": "b"}, {"id": 6, "body": "c"}, {"id": 5, "body": "B"}]}]"#,
            ends: ["1: x y; 5=B 6=c; "]),
        Case(
            name: "references by key", earlier: #"[{"id": 1, "tags": ["x", "y"], "comments": [5, 6]}]"#,
            list: #"[{"id": 1, "tags": ["y", "x", "y"], "comments": [6, 5, 6]}]"#,
            ends: ["1: y x; 6=- 5=-; "]),
        Case(
            name: "a member another list took, listed twice", earlier: "[]",
            list:
                #"[{"id": 1, "comments": [{"id": 5, "body": "b"}]}, {"id": 2, "comments": [{"id": 6, "body": "c"}, {"id": 5}, {"id": 6}]}]"#,
            ends: ["1: ; ; ", "2: ; 6=c 5=b; "]),
        Case(
            name: "a union list", earlier: #"[{"id": 1, "labels": ["x"]}]"#,
            list: #"[{"id": 1, "labels": ["y", "y", "x"]}]"#,
            ends: ["1: ; ; x y"]),
    ])
    func linksTheMemberOnceAtItsFirstPosition(_ example: Case) async throws {
        let schema = try OracleSyncTests.schema()
        #expect(try await Self.ends(example, schema: schema) == example.ends)
        let whole = try await PopulatedStore.populating(
            example.list, after: example.earlier, schema: schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        try await PopulatedStore.expectStreamsEqual(
            example.list, after: example.earlier, schema: schema, entity: "Post", whole: whole)
    }

    /// Each post of `example` once populated: its tags in order, its comments in order with
    /// their bodies, and its labels by key.
    static func ends(_ example: Case, schema: Schema) async throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(example.earlier), entity: "Post")
        _ = try await store.populate(try JSONReader().read(example.list), entity: "Post")
        return try await store.read { connection in
            try connection.rows(
                """
                SELECT p.id || ': ' || ifnull((SELECT group_concat(id, ' ') FROM (SELECT t.id FROM _Post_tags j
                        JOIN Tag t ON t._id = j.target WHERE j.owner = p._id ORDER BY j.position)), '')
                    || '; ' || ifnull((SELECT group_concat(c, ' ') FROM (SELECT c.id || '=' || ifnull(c.body, '-') AS c
                        FROM Comment c WHERE c.post = p._id ORDER BY c._position_post)), '')
                    || '; ' || ifnull((SELECT group_concat(id, ' ') FROM (SELECT t.id FROM _Post_labels j
                        JOIN Tag t ON t._id = j.target WHERE j.owner = p._id ORDER BY t.id)), '')
                FROM Post p ORDER BY p.id
                """
            ).map { row in
                guard case .text(let text)? = row.first else { return "\(row)" }
                return text
            }
        }
    }
}
