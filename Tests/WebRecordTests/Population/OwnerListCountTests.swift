import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A stored user whose list of posts a response gives, and whose membership its posts' own
/// links change anywhere in the response, counts as its lists end (Docs/Population.md,
/// "Unchanged rows"): `updated` when it ends with a post more or fewer, whole and at every batch
/// size, the link before or after the list. The schema is ``AdversarialIncomingLinksTests``'s: a
/// post's `user`, the user's replaced list `posts`.
@Suite struct OwnerListCountTests {
    typealias A = AdversarialIncomingLinksTests

    struct Case: Sendable, CustomTestStringConvertible {
        let earlier: String
        let list: String
        /// `[inserted, updated, unchanged, deleted]` of users.
        let users: [Int]
        var testDescription: String { list }
    }

    @Test(arguments: [
        // The user's list drops post 2, whose own later occurrence clears its user too.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 1, "user": {"id": 5, "name": "s", "posts": []}}, {"id": 2, "user": null}]"#,
            users: [0, 1, 0, 0]),
        // Post 1 names the user by key; the user's later list keeps post 2 and lists post 1.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 1, "user": 5}, {"id": 2, "user": {"id": 5, "name": "s", "posts": [2, 1]}}]"#,
            users: [0, 1, 0, 0]),
        // The user's list first, then post 1 joins the user by its own link.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 2, "user": {"id": 5, "name": "s", "posts": [2]}}, {"id": 1, "user": 5}]"#,
            users: [0, 1, 0, 0]),
        // Post 2 leaves the user by its own link, before the user's list, which keeps post 3.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}, {"id": 3, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 2, "user": null}, {"id": 3, "user": {"id": 5, "name": "s", "posts": [3]}}]"#,
            users: [0, 1, 0, 0]),
        // Post 1 joins the user and leaves it again by its own links, around the user's list:
        // the list ends as it was.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}, {"id": 1, "user": null}]"#,
            list:
                #"[{"id": 1, "user": 5}, {"id": 2, "user": {"id": 5, "name": "s", "posts": [2, 1]}}, {"id": 1, "user": null}]"#,
            users: [0, 0, 1, 0]),
        // A user that gives no list counts only by its own values: post 1 joins it.
        Case(
            earlier: #"[{"id": 2, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 1, "user": 5}, {"id": 2, "user": {"id": 5, "name": "s"}}]"#,
            users: [0, 0, 1, 0]),
        // The user's list gains post 1, and post 1 then names the same user.
        Case(
            earlier: #"[{"id": 1, "user": {"id": 5, "name": "s"}}]"#,
            list: #"[{"id": 3, "user": {"id": 5, "name": "s", "posts": [1]}}, {"id": 3, "user": 5}]"#,
            users: [0, 1, 0, 0]),
    ])
    func countsAsItsListsEnd(_ example: Case) async throws {
        let whole = try await A.outcome(of: example.list, after: example.earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // The rows end alike, whatever the batches.
        for batchBytes in A.batchSizes {
            let streamed = try await A.outcome(of: example.list, after: example.earlier, batchBytes: batchBytes)
            #expect(streamed.rows == whole.rows, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
        #expect(LinkDroppedLaterCountTests.counts(whole, "User") == example.users, "whole:\n\(whole)")
        try await A.expectEqualOrRefused(example.list, after: example.earlier)
    }

    /// Random responses in which posts join and leave stored users by their own links (`user`,
    /// and `reviewer`, whose list back is ordered), before and after users that give their lists:
    /// a stream from a reader opened once equals the whole response at every batch size, counts
    /// included, or refuses as documented.
    @Test(arguments: Array(0..<200) + Array(seedsWithKnownIssues).sorted())
    func ownLinksAndListsInAnyOrderCountAsOneBatch(seed: Int) async throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 0x0_11A7)
        let earlier = #"""
            [{"id": 1, "user": {"id": 5, "name": "a"}, "reviewer": {"id": 5, "name": "a"}},
             {"id": 2, "user": {"id": 6, "name": "b"}, "reviewer": {"id": 5, "name": "a"}},
             {"id": 3, "user": 5, "reviewer": 6}]
            """#
        func user(_ random: inout SeededRandom) -> String {
            ["5", "6", "null"][random.next(below: 3)]
        }
        func list(_ random: inout SeededRandom) -> String {
            let members = [1, 2, 3, 4].filter { _ in random.next(below: 2) == 0 }.shuffled(using: &random)
            return "[" + members.map(String.init).joined(separator: ", ") + "]"
        }
        var items: [String] = []
        for _ in 0..<(3 + random.next(below: 4)) {
            let id = 1 + random.next(below: 4)
            switch random.next(below: 4) {
            case 0: items.append(#"{"id": \#(id), "user": \#(user(&random))}"#)
            case 1: items.append(#"{"id": \#(id), "reviewer": \#(user(&random))}"#)
            case 2:
                let owner = 5 + random.next(below: 2)
                items.append(#"{"id": \#(id), "user": {"id": \#(owner), "name": "n", "posts": \#(list(&random))}}"#)
            default:
                let owner = 5 + random.next(below: 2)
                items.append(
                    #"{"id": \#(id), "reviewer": {"id": \#(owner), "name": "n", "reviewed": \#(list(&random))}}"#)
            }
        }
        let response = "[" + items.joined(separator: ", ") + "]"
        let whole = try await A.outcome(of: response, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(response)\n\(whole)")
        // A stream refuses only as documented: it writes nothing, and read again it is whole.
        let compare = {
            try await PopulatedStore.expectStreamsEqual(
                #"{"data": \#(response)}"#, after: #"{"data": \#(earlier)}"#, schema: A.schema, entity: "Post",
                whole: whole, batchSizes: A.batchSizes, isRefusal: { $0.contains("Populate the response whole") })
        }
        if Self.seedsWithKnownIssues.contains(seed) {
            await withKnownIssue("a post's link that a stream leaves unset: \(response)") { try await compare() }
        } else {
            try await compare()
        }
    }

    /// Seeds past the suite's range whose stream differs from the whole response: a known issue
    /// (Docs/Population.md, "A longer run of the other generators"), run so that it stays in
    /// sight until it is mended.
    static let seedsWithKnownIssues: Set<Int> = [810, 843, 957]

    /// A post that its own link moves out of a user's ordered list (`reviewed`) in one batch, and
    /// that a later occurrence of the link gives back to that user: one batch wires only the
    /// latest occurrence, so the post keeps its position; a stream reads the response again
    /// (here: refuses, as its reader cannot be read again) rather than end without it.
    @Test func aRowMovedOutOfAnOrderedListAndBackIsReadAgain() async throws {
        let earlier = #"[{"id": 1, "reviewer": {"id": 5, "name": "a"}}, {"id": 2, "reviewer": {"id": 6, "name": "b"}}]"#
        let response = #"""
            [{"id": 2, "reviewer": {"id": 6, "name": "b", "reviewed": [1, 2]}},
             {"id": 1, "reviewer": 5},
             {"id": 1, "reviewer": 6}]
            """#
        let whole = try await A.outcome(of: response, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // Post 1 ends first in user 6's list: reviewer `_id` 2, position 0.
        #expect(whole.rows.contains { $0.hasPrefix("Post: 1 |") && $0.contains("| 2 | 0 |") }, "\(whole)")
        let streamed = try await A.outcome(of: response, after: earlier, batchBytes: 1)
        #expect(streamed.failure?.contains("given back to that list's owner") == true, "\(streamed)")
        try await PopulatedStore.expectStreamsEqual(
            #"{"data": \#(response)}"#, after: #"{"data": \#(earlier)}"#, schema: A.schema, entity: "Post",
            whole: whole, batchSizes: A.batchSizes, isRefusal: { $0.contains("Populate the response whole") })
    }
}
