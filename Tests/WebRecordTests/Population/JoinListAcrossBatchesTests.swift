import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Lists kept in a join table, given from both sides across batches: posts list their tags,
/// tags list their posts (an ordered list), and stored records lose and gain members by either
/// side in any order. A stream from a reader opened once equals the whole response at every
/// batch size, rows, join rows and counts included, or refuses as documented (and then equals
/// it read again).
@Suite struct JoinListAcrossBatchesTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Post": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
                          "relationships": {
                            "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" },
                            "topics": { "destination": "Tag", "toMany": true, "inverse": "ranked", "merge": "union" }
                          }
                        },
                        "Tag": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": {
                            "posts": { "destination": "Post", "toMany": true, "inverse": "tags" },
                            "ranked": { "destination": "Post", "toMany": true, "ordered": true, "inverse": "topics" }
                          }
                        }
                      }
                    }
                    """, fileName: "JoinLists.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let earlier = #"""
        [{"id": 1, "tags": [{"id": 7, "name": "a"}, {"id": 8, "name": "b"}], "topics": [7]},
         {"id": 2, "tags": [8], "topics": [{"id": 8, "name": "b", "ranked": [2, 1]}]},
         {"id": 3, "tags": [], "topics": [9]}]
        """#

    static func list(_ random: inout SeededRandom, of ids: [Int]) -> String {
        let members = ids.filter { _ in random.next(below: 2) == 0 }.shuffled(using: &random)
        return "[" + members.map(String.init).joined(separator: ", ") + "]"
    }

    /// The seeds whose stream differs from the whole response: a known issue (Docs/Population.md,
    /// "A longer run of the other generators"). Seed 592, found past the suite's range, is run
    /// with it so that the difference stays in sight until it is mended.
    static let seedsWithKnownIssues: Set<Int> = [592]

    /// A post that gives its list of topics counts as updated when it ends with a topic more,
    /// whichever side's list added the join row: here tag 7's list, written before the post's
    /// own, added it. One batch counted the post `unchanged`; a stream, `updated`.
    @Test func aListerWhoseJoinRowsTheOtherSideAddedCountsAsUpdated() async throws {
        let response = #"[{"id": 2, "topics": [{"id": 7, "name": "n", "ranked": [2, 1]}]}, {"id": 2, "topics": [7]}]"#
        let whole = try await PopulatedStore.populating(
            response, after: Self.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.counts["Post"]?.updated == 1 && whole.counts["Post"]?.unchanged == 1, "\(whole)")
        #expect(whole.rows.contains("_Post_topics: 2 | 1 | 0"), "\(whole)")
        try await PopulatedStore.expectStreamsEqual(
            response, after: Self.earlier, schema: Self.schema, entity: "Post", whole: whole,
            batchSizes: [1, 40, 200, 1 << 20])
    }

    /// A united list's member that only an earlier occurrence named, whose own replaced list
    /// leaves the record out after that occurrence, is not added back by the list's later
    /// occurrence: applied in turn, tag 7's `ranked` drops post 3, and post 3's second
    /// occurrence names tag 8 only. One batch used to wire the united list at its latest
    /// occurrence, after tag 7's list, and ended with post 3 linked to tag 7.
    @Test func aUnitedMemberTheOtherSideDropsLaterStaysDropped() async throws {
        let response = #"[{"id": 3, "topics": [{"id": 7, "name": "n", "ranked": [2]}]}, {"id": 3, "topics": [8]}]"#
        let whole = try await PopulatedStore.populating(
            response, after: Self.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        // Tags 7, 8 and 9 are `_id`s 1, 2 and 3; post 3 is `_id` 3, and kept tag 9.
        let topics = whole.rows.filter { $0.hasPrefix("_Post_topics: 3 |") }
        #expect(topics == ["_Post_topics: 3 | 2 | NULL", "_Post_topics: 3 | 3 | NULL"], "\(whole)")
        try await PopulatedStore.expectStreamsEqual(
            response, after: Self.earlier, schema: Self.schema, entity: "Post", whole: whole,
            batchSizes: [1, 40, 200, 1 << 20])
    }

    @Test(arguments: Array(0..<150) + [592])
    func listsFromBothSidesEndAsOneBatch(seed: Int) async throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 0x7A65)
        var items: [String] = []
        for _ in 0..<(3 + random.next(below: 4)) {
            let post = 1 + random.next(below: 4)
            let tag = 7 + random.next(below: 3)
            switch random.next(below: 4) {
            case 0: items.append(#"{"id": \#(post), "tags": \#(Self.list(&random, of: [7, 8, 9]))}"#)
            case 1: items.append(#"{"id": \#(post), "topics": \#(Self.list(&random, of: [7, 8, 9]))}"#)
            case 2:
                items.append(
                    #"{"id": \#(post), "tags": [{"id": \#(tag), "name": "n", "posts": \#(Self.list(&random, of: [1, 2, 3, 4]))}]}"#
                )
            default:
                items.append(
                    #"{"id": \#(post), "topics": [{"id": \#(tag), "name": "n", "ranked": \#(Self.list(&random, of: [1, 2, 3, 4]))}]}"#
                )
            }
        }
        let response = "[" + items.joined(separator: ", ") + "]"
        let whole = try await PopulatedStore.populating(
            response, after: Self.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(response)\n\(whole)")
        let compare = {
            try await PopulatedStore.expectStreamsEqual(
                response, after: Self.earlier, schema: Self.schema, entity: "Post", whole: whole,
                batchSizes: [1, 40, 200, 1 << 20], isRefusal: { $0.contains("Populate the response whole") })
        }
        if Self.seedsWithKnownIssues.contains(seed) {
            await withKnownIssue("a join-table list across batches: \(response)") { try await compare() }
        } else {
            try await compare()
        }
    }
}
