import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A stored record whose ordered list the response gives with the same members in another
/// order counts as `updated` (Docs/Population.md, "Unchanged rows"), whether the list is kept in
/// a join table or on its members, and whether the response names the members or only moves
/// them; given back in its stored order by a later occurrence, it counts as `unchanged`. Whole,
/// and streamed at every batch size, with the same rows. The schema is ``OracleSyncTests``'s: a
/// post's ordered many-to-many `tags` (a join table) and ordered one-to-many `comments` (on the
/// comments, with their positions).
@Suite struct ReorderedListCountTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let list: String
        /// `[inserted, updated, unchanged, deleted]` of posts, tags and comments.
        let posts: [Int]
        let tags: [Int]
        let comments: [Int]
        var testDescription: String { name }
    }

    static let earlier =
        #"[{"id": 1, "title": "a", "tags": [{"id": "x"}, {"id": "y"}], "comments": [{"id": 5, "body": "b"}, {"id": 6, "body": "c"}]}]"#

    @Test(arguments: [
        Case(
            name: "tags reordered by key", list: #"[{"id": 1, "tags": ["y", "x"]}]"#,
            posts: [0, 1, 0, 0], tags: [0, 0, 2, 0], comments: []),
        Case(
            name: "comments reordered by key", list: #"[{"id": 1, "comments": [6, 5]}]"#,
            posts: [0, 1, 0, 0], tags: [], comments: [0, 2, 0, 0]),
        Case(
            name: "comments reordered as objects", list: #"[{"id": 1, "comments": [{"id": 6}, {"id": 5}]}]"#,
            posts: [0, 1, 0, 0], tags: [], comments: [0, 2, 0, 0]),
        Case(
            name: "comments in their stored order", list: #"[{"id": 1, "comments": [5, 6]}]"#,
            posts: [0, 0, 1, 0], tags: [], comments: [0, 0, 2, 0]),
        Case(
            name: "a comment dropped: the other moves up, unnamed", list: #"[{"id": 1, "comments": [6]}]"#,
            posts: [0, 1, 0, 0], tags: [], comments: [0, 1, 0, 0]),
        Case(
            name: "reordered, then given back in the stored order",
            list:
                #"[{"id": 1, "tags": ["y", "x"], "comments": [6, 5]}, {"id": 1, "tags": ["x", "y"], "comments": [5, 6]}]"#,
            posts: [0, 0, 1, 0], tags: [0, 0, 2, 0], comments: [0, 0, 2, 0]),
        Case(
            name: "reordered in one occurrence, named without the list in a later one",
            list: #"[{"id": 1, "comments": [6, 5]}, {"id": 1, "title": "a"}]"#,
            posts: [0, 1, 0, 0], tags: [], comments: [0, 2, 0, 0]),
    ])
    func countsTheOwnerUpdated(_ example: Case) async throws {
        let schema = try OracleSyncTests.schema()
        let whole = try await PopulatedStore.populating(
            example.list, after: Self.earlier, schema: schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(LinkDroppedLaterCountTests.counts(whole, "Post") == example.posts, "\(whole)")
        #expect(LinkDroppedLaterCountTests.counts(whole, "Tag") == example.tags, "\(whole)")
        #expect(LinkDroppedLaterCountTests.counts(whole, "Comment") == example.comments, "\(whole)")
        try await PopulatedStore.expectStreamsEqual(
            example.list, after: Self.earlier, schema: schema, entity: "Post", whole: whole)
    }
}
