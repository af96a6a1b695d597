import Foundation
import Testing

@testable import WebRecord

/// A paged feed read as one response repeats the posts where its pages overlap, each with the
/// user as the feed gives it there: a compact copy (without its non-optional `name`) on both
/// pages, and the full user on a later post. The batch that drops the compact user carries it
/// with the post's link to it (Docs/Population.md, "Carried, with the links to it"); the batch
/// that holds the post's copy from the next page names the post again, with data, together
/// with the user. That copy's own link through the same to-one is a later occurrence of the
/// link carried: the stream ends as one batch, row for row (`_id`s and join rows included),
/// with the same counts and records, from a stream that cannot be read again, and refuses
/// nothing.
@Suite struct StreamedOverlappingPagesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let earlier: String
        let list: String
        /// Rows the whole response must hold: what the case is about, not only the same as
        /// the stream.
        let rows: [String]
        var testDescription: String { list }
    }

    static let batchSizes = [1, 40, 120, 1 << 20]

    @Test(arguments: [
        // The same post on two pages, with the same compact user; the full user on a later post.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            rows: [
                "Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL", "Post: 2 | 'Post' | 2 | 'b' | 1 | NULL | NULL",
                "User: 1 | 'User' | 5 | 'N' | 'h'",
            ]),
        // Both copies in one batch at 120 bytes, the second naming the user by key, and the
        // full user in the next.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "title": "the last post of page 1", "user": {"id": 5, "handle": "h"}}, {"id": 1, "title": "the last post of page 1", "user": 5}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            rows: [
                "Post: 1 | 'Post' | 1 | 'the last post of page 1' | 1 | NULL | NULL",
                "User: 1 | 'User' | 5 | 'N' | 'h'",
            ]),
        // The post's copy on the next page gives the full user.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 1, "title": "a", "user": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL", "User: 1 | 'User' | 5 | 'N' | 'h'"]),
        // The next page names the user by key only; another post completes it later.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 1, "title": "a2", "user": 5}, {"id": 3, "title": "c"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | 'a2' | 1 | NULL | NULL", "User: 1 | 'User' | 5 | 'N' | 'h'"]),
        // Three overlapping pages, the user compact on each, completed last.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 5, "handle": "i"}}, {"id": 1, "user": {"id": 5}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | NULL | 1 | NULL | NULL", "User: 1 | 'User' | 5 | 'N' | 'i'"]),
        // Never completed: the stored post keeps its user.
        Case(
            earlier: #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            list:
                #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "title": "a2", "user": {"id": 5, "handle": "i"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | 'a2' | 1 | NULL | NULL", "User: 1 | 'User' | 9 | 'Z' | NULL"]),
        // The next page's copy moves the post to another user; the first is completed there.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 7, "name": "Y"}, "editor": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | NULL | 2 | 1 | NULL"]),
        // The next page's copy names a user that is not stored: the post falls back on the
        // carried occurrence, completed there.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 8}, "editor": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | NULL | 1 | 1 | NULL"]),
        // The next page's copy clears the user.
        Case(
            earlier: #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            list:
                #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": null, "editor": {"id": 5, "name": "N"}}]"#,
            rows: ["Post: 1 | 'Post' | 1 | 'a' | NULL | 2 | NULL"]),
    ])
    func theSamePostOnOverlappingPagesEndsAsInOneBatch(_ example: Case) async throws {
        let whole = try await StreamedIncomingLinksTests.outcome(
            of: example.list, after: example.earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for row in example.rows { #expect(whole.rows.contains(row), "\(row)\n\(whole)") }
        for batchBytes in Self.batchSizes {
            let streamed = try await StreamedIncomingLinksTests.outcome(
                of: example.list, after: example.earlier, batchBytes: batchBytes)
            #expect(streamed.failure == nil, "batches of \(batchBytes) bytes refused: \(streamed)")
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }
}
