import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record of the response whose link a later list of the same response drops, or whose
/// one-to-one's target another record claims, after its own values were compared, counts as its
/// stored row ends (Docs/Population.md, "Unchanged rows"): updated when the link it had before
/// the population is gone, unchanged when the response gives it back, inserted when it is new;
/// whole, and streamed at every batch size, with the same rows. The schema is
/// ``AdversarialIncomingLinksTests``'s: a post's `user` (the user's replaced list `posts`), an
/// ordered `reviewer` (`reviewed`) and a one-to-one `pinned` (`pin`).
@Suite struct LinkDroppedLaterCountTests {
    typealias A = AdversarialIncomingLinksTests

    /// `[inserted, updated, unchanged, deleted]` of `entity`, none when it is not counted.
    static func counts(_ store: PopulatedStore, _ entity: String) -> [Int] {
        guard let counts = store.counts[entity] else { return [] }
        return [counts.inserted, counts.updated, counts.unchanged, counts.deleted]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let earlier: String
        let list: String
        /// Post 2's links as they end (``AdversarialIncomingLinksTests/postLinks(of:after:options:)``).
        let post2: String
        let posts: [Int]
        let users: [Int]
        var testDescription: String { list }
    }

    static let userSeven = #"[{"id": 2, "user": {"id": 7, "name": "s"}}]"#
    static let reviewedBySeven = #"[{"id": 2, "reviewer": {"id": 7, "name": "s"}}]"#
    static let pinnedToSeven = #"[{"id": 2, "pinned": {"id": 7, "name": "s"}}]"#

    @Test(arguments: [
        // Post 2 moved to user 8, whose later list (nested in post 3) drops it: 7 -> none.
        Case(
            earlier: userSeven,
            list:
                #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [3]}}, {"id": 2}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [1, 0, 0, 0]),
        // ... without post 2 named again.
        Case(
            earlier: userSeven,
            list: #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [3]}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [1, 0, 0, 0]),
        // Its own new user's list drops it.
        Case(
            earlier: userSeven, list: #"[{"id": 2, "user": {"id": 8, "name": "n", "posts": []}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [0, 1, 0, 0], users: [1, 0, 0, 0]),
        // Its stored user, given again, lists nothing: post 2 unchanged in memory, unlinked in the
        // store.
        Case(
            earlier: userSeven, list: #"[{"id": 2, "user": {"id": 7, "name": "s", "posts": []}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [0, 1, 0, 0], users: [0, 1, 0, 0]),
        Case(
            earlier: userSeven,
            list: #"[{"id": 2, "user": {"id": 7, "name": "s"}}, {"id": 3, "user": {"id": 7, "posts": [3]}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [0, 1, 0, 0]),
        // Named as a member by an earlier occurrence of the list, dropped by the latest.
        Case(
            earlier: userSeven,
            list:
                #"[{"id": 3, "user": {"id": 7, "name": "s", "posts": [2, 3]}}, {"id": 4, "user": {"id": 7, "posts": [3, 4]}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [2, 1, 0, 0], users: [0, 1, 0, 0]),
        // Dropped, and given the same user back: unchanged.
        Case(
            earlier: userSeven,
            list:
                #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [3]}}, {"id": 2, "user": 7}]"#,
            post2: "user=7 reviewer=- pinned=-", posts: [1, 0, 1, 0], users: [1, 0, 1, 0]),
        Case(
            earlier: userSeven,
            list:
                #"[{"id": 2, "user": {"id": 7, "name": "s"}}, {"id": 3, "user": {"id": 7, "posts": [3]}}, {"id": 2, "user": 7}]"#,
            post2: "user=7 reviewer=- pinned=-", posts: [1, 0, 1, 0], users: [0, 1, 0, 0]),
        // A new post linked and dropped: inserted.
        Case(
            earlier: "[]",
            list:
                #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [3]}}, {"id": 2}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [2, 0, 0, 0], users: [1, 0, 0, 0]),
        // An ordered list back: reviewed by user 8, whose list drops it.
        Case(
            earlier: reviewedBySeven,
            list: #"[{"id": 2, "reviewer": {"id": 8, "name": "n", "reviewed": []}}, {"id": 2}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [0, 1, 0, 0], users: [1, 0, 0, 0]),
        Case(
            earlier: reviewedBySeven,
            list: #"[{"id": 2, "reviewer": {"id": 7, "name": "s", "reviewed": []}}, {"id": 2}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [0, 1, 0, 0], users: [0, 1, 0, 0]),
        // A one-to-one whose target post 3 claims after post 2 took it, from either side.
        Case(
            earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": {"id": 8, "name": "n"}}, {"id": 3, "pinned": {"id": 8}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [1, 0, 0, 0]),
        Case(
            earlier: pinnedToSeven,
            list:
                #"[{"id": 2, "pinned": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "name": "n", "pin": 3}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [1, 0, 0, 0]),
        // ... or after post 2 named the target it held.
        Case(
            earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": {"id": 7, "name": "s"}}, {"id": 3, "pinned": {"id": 7}}]"#,
            post2: "user=- reviewer=- pinned=-", posts: [1, 1, 0, 0], users: [0, 0, 1, 0]),
    ])
    func countsAsTheStoredRowEnds(_ example: Case) async throws {
        let links = try await A.postLinks(of: example.list, after: example.earlier)
        #expect(links.first == "2: " + example.post2, "\(links)")
        let whole = try await A.outcome(of: example.list, after: example.earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(Self.counts(whole, "Post") == example.posts, "whole:\n\(whole)")
        #expect(Self.counts(whole, "User") == example.users, "whole:\n\(whole)")
        // Streamed, at every batch size: the same rows, `_id`s, records and counts.
        let refused = try await A.expectEqualOrRefused(example.list, after: example.earlier)
        #expect(refused.allSatisfy { !$0 }, "refused at \(refused)")
    }
}
