import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record of the response whose owner or partner the population deletes (orphan deletion),
/// and which the delete rule then unlinks, counts as it was (Docs/Population.md, "Unchanged
/// rows"): `unchanged` when the response gives it as it is stored, `updated` only for a change
/// the response gives; whole, and streamed at every batch size, with the same rows. The schema
/// is ``AdversarialIncomingLinksTests``'s: a post's `repostOf` (its inverse `reposts`), `user`
/// (`posts`), an ordered `reviewer` (`reviewed`) and a one-to-one `pinned` (`pin`).
@Suite struct OwnerDeletedCountTests {
    typealias A = AdversarialIncomingLinksTests

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let earlier: String
        let list: String
        /// `[inserted, updated, unchanged, deleted]` of posts and of users (none: not counted).
        let posts: [Int]
        let users: [Int]
        var testDescription: String { name }
    }

    static let orphans: PopulationOptions = {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        return options
    }()

    @Test(arguments: [
        Case(
            name: "a repost of a deleted post, given as it is",
            earlier: #"[{"id": 1}, {"id": 2, "repostOf": 1}]"#, list: #"[{"id": 2}]"#,
            posts: [0, 0, 1, 1], users: []),
        Case(
            name: "a repost of a deleted post, given a new title",
            earlier: #"[{"id": 1}, {"id": 2, "repostOf": 1}]"#, list: #"[{"id": 2, "title": "t"}]"#,
            posts: [0, 1, 0, 1], users: []),
        Case(
            name: "a user whose one-to-one partner is deleted",
            earlier: #"[{"id": 1, "pinned": {"id": 7, "name": "s"}}]"#,
            list: #"[{"id": 2, "user": {"id": 7, "name": "s"}}]"#,
            posts: [1, 0, 0, 1], users: [0, 0, 1, 0]),
        Case(
            name: "a user whose ordered list loses a deleted post",
            earlier: #"[{"id": 1, "reviewer": {"id": 7, "name": "s"}}]"#,
            list: #"[{"id": 2, "user": {"id": 7, "name": "s"}}]"#,
            posts: [1, 0, 0, 1], users: [0, 0, 1, 0]),
        Case(
            name: "a user whose list loses a deleted post",
            earlier: #"[{"id": 1, "user": {"id": 7, "name": "s"}}]"#,
            list: #"[{"id": 2, "editor": {"id": 7, "name": "s"}}]"#,
            posts: [1, 0, 0, 1], users: [0, 0, 1, 0]),
    ])
    func countsAsItWas(_ example: Case) async throws {
        let whole = try await A.outcome(
            of: example.list, after: example.earlier, batchBytes: nil, options: Self.orphans)
        #expect(whole.failure == nil, "\(whole)")
        #expect(LinkDroppedLaterCountTests.counts(whole, "Post") == example.posts, "whole:\n\(whole)")
        #expect(LinkDroppedLaterCountTests.counts(whole, "User") == example.users, "whole:\n\(whole)")
        // Post 1 is gone, and with it every link to it: the repost's `repostOf` is null.
        #expect(try await Self.remaining(example) == ["2: repostOf=-"])
        // Streamed, at every batch size: the same rows, `_id`s, records and counts.
        let refused = try await A.expectEqualOrRefused(example.list, after: example.earlier, options: Self.orphans)
        #expect(refused.allSatisfy { !$0 }, "refused at \(refused)")
    }

    /// The posts stored once `example` is populated with orphan deletion, with their `repostOf`.
    static func remaining(_ example: Case) async throws -> [String] {
        let store = try RecordStore(inMemory: A.schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(example.earlier)}"#), entity: "Post")
        _ = try await store.populate(
            try JSONReader().read(#"{"data": \#(example.list)}"#), entity: "Post", options: orphans)
        return try await store.read { connection in
            try connection.rows(
                """
                SELECT p.id || ': repostOf=' || ifnull(r.id, '-') FROM Post p LEFT JOIN Post r ON p.repostOf = r._id
                ORDER BY p.id
                """
            ).map { row in
                guard case .text(let text)? = row.first else { return "\(row)" }
                return text
            }
        }
    }
}
