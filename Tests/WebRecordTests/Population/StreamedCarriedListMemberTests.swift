import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A new record that one batch of a streamed population drops as incomplete, named in the
/// to-many list of another record of that batch (a post's `mentions`, with a compact user that
/// lacks its non-optional `name`), and completed by a later batch: one batch ends with the user
/// in the post's list, and the stream, which stored the post's list without the user, gives it
/// back where the user is completed (Docs/Population.md, "Carried, with the links to it"). Each
/// case is compared with the whole response, row for row, `_id`s, counts and records included,
/// at batches of one record and more, from a stream that cannot be read again.
@Suite struct StreamedCarriedListMemberTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "integer" },
                "title": { "type": "string" }
              },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "mentions": { "destination": "User", "toMany": true, "inverse": "mentionedIn" },
                "likes": { "destination": "User", "toMany": true, "inverse": "liked", "merge": "union" },
                "seen": { "destination": "User", "toMany": true },
                "cc": { "destination": "User", "toMany": true, "inverse": "ccOf" },
                "ranked": { "destination": "User", "toMany": true, "ordered": true, "inverse": "rankedIn" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "integer" },
                "name": { "type": "string", "optional": false },
                "handle": { "type": "string" }
              },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
                "mentionedIn": { "destination": "Post", "toMany": true, "inverse": "mentions" },
                "liked": { "destination": "Post", "toMany": true, "inverse": "likes" },
                "ccOf": { "destination": "Post", "inverse": "cc" },
                "rankedIn": { "destination": "Post", "toMany": true, "inverse": "ranked" }
              }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "CarriedListMember.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let batchSizes = [1, 40, 120, 1 << 20]

    /// Whether `failure` is a stream's refusal to carry a record it must read again.
    static func isRefusal(_ failure: String) -> Bool {
        failure.contains("occurs again later in the response") || failure.contains("Populate the response whole")
    }

    /// `list` populated into a store that holds `earlier`: whole (`batchBytes` nil), or streamed
    /// in batches of `batchBytes` bytes from a reader opened once, unless `reopens`.
    static func outcome(
        of list: String, after earlier: String, batchBytes: Int?, reopens: Bool = false
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Post",
            batchBytes: batchBytes, reopens: reopens)
    }

    /// Streams `list` at each of ``batchSizes`` and returns how many were refused; each stream
    /// not refused equals the whole response, and each refused one wrote nothing and equals it
    /// when read again.
    @discardableResult
    static func expectEqualOrRefused(
        _ list: String, after earlier: String, note: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        let whole = try await outcome(of: list, after: earlier, batchBytes: nil)
        let before = try await outcome(of: "[]", after: earlier, batchBytes: nil)
        var refused = 0
        for batchBytes in batchSizes {
            let streamed = try await outcome(of: list, after: earlier, batchBytes: batchBytes)
            if let failure = streamed.failure, isRefusal(failure), whole.failure.map(isRefusal) != true {
                refused += 1
                #expect(
                    streamed.rows == before.rows, "\(note)batches of \(batchBytes) bytes: a refused stream wrote",
                    sourceLocation: sourceLocation)
                let again = try await outcome(of: list, after: earlier, batchBytes: batchBytes, reopens: true)
                #expect(
                    again == whole, "\(note)batches of \(batchBytes) bytes, read again:\n\(again)\nwhole:\n\(whole)",
                    sourceLocation: sourceLocation)
                continue
            }
            #expect(
                streamed == whole,
                "\(note)batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)\nearlier: \(earlier)\nresponse: \(list)",
                sourceLocation: sourceLocation)
        }
        return refused
    }

    @Test(arguments: [
        // A list in a join table, the user completed by a later post's to-one.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "mentions": [{"id": 5, "handle": "h"}]}, {"id": 9, "user": {"id": 5, "name": "N", "handle": "h"}}]"#,
            ["_Post_mentions: 1 | 1"]
        ),
        // Among other members, in a join table merged by union, and one without an inverse.
        (
            #"[]"#,
            #"[{"id": 1, "likes": [{"id": 6, "name": "S"}, {"id": 5, "handle": "h"}], "seen": [{"id": 5}, {"id": 7, "name": "T"}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_likes: 1 | 2", "_Post_seen: 1 | 2"]
        ),
        // Kept on the members: the user's foreign key names the post.
        (
            #"[]"#,
            #"[{"id": 1, "cc": [{"id": 6, "name": "S"}, {"id": 5, "handle": "h"}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["User: 2 | 'User' | 5 | 'N' | 'h' | 1"]
        ),
        // A stored post, whose list the later batch completes: updated, as in one batch.
        (
            #"[{"id": 1, "title": "a", "mentions": [{"id": 6, "name": "S"}], "cc": [{"id": 6}]}]"#,
            #"[{"id": 1, "mentions": [{"id": 6}, {"id": 5, "handle": "h"}], "cc": [{"id": 5}]}, {"id": 2, "title": "b"}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 2", "User: 2 | 'User' | 5 | 'N' | 'h' | 1"]
        ),
        // Completed in another post's list.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 9, "mentions": [{"id": 5, "name": "N"}]}]"#,
            ["_Post_mentions: 1 | 1", "_Post_mentions: 2 | 1"]
        ),
        // Another post's list takes the user in between, compact too: a join table keeps both.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 2, "mentions": [{"id": 5, "handle": "i"}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 1", "_Post_mentions: 2 | 1"]
        ),
        // The post again in between, without its list: the user stays in it.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 1, "title": "a2"}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 1"]
        ),
        // The post's list again in between under `replace`, without the user: one batch takes
        // the later list, which leaves the user out.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}, {"id": 6, "name": "S"}]}, {"id": 1, "mentions": [{"id": 6}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 2"]
        ),
        // The same under `union`: the later list adds, and the user stays.
        (
            #"[]"#,
            #"[{"id": 1, "likes": [{"id": 5, "handle": "h"}]}, {"id": 1, "likes": [{"id": 6, "name": "S"}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_likes: 1 | 1", "_Post_likes: 1 | 2"]
        ),
        // The post's list set to `null` in between: under `replace` one batch clears it, and
        // leaves the user out; under `union` it removes nothing, and the user stays.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}, {"id": 6, "name": "S"}]}, {"id": 1, "mentions": null}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | NULL | NULL"]
        ),
        (
            #"[]"#,
            #"[{"id": 1, "likes": [{"id": 5, "handle": "h"}, {"id": 6, "name": "S"}]}, {"id": 1, "likes": null}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_likes: 1 | 1", "_Post_likes: 1 | 2"]
        ),
        // The post's list again where the user is completed, without it, under `replace`.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 9, "user": {"id": 5, "name": "N"}, "title": "x"}, {"id": 1, "mentions": []}]"#,
            ["Post: 1 | 'Post' | 1 | NULL | NULL"]
        ),
        // The post's list again by key only, then the user completed.
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 1, "mentions": [5]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 1"]
        ),
        // The post again where the user is completed, setting its `user` again, not its list.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}, "seen": [{"id": 5}]}, {"id": 2, "title": "b"}, {"id": 1, "user": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | NULL | 1", "_Post_seen: 1 | 1"]
        ),
        // The post's list again where the user is completed: `union` keeps the user in it,
        // `replace` leaves it out.
        (
            #"[]"#,
            #"[{"id": 1, "likes": [{"id": 5, "handle": "h"}]}, {"id": 2, "title": "b"}, {"id": 1, "likes": [{"id": 6, "name": "S"}], "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_likes: 1 | 1", "_Post_likes: 1 | 2"]
        ),
        (
            #"[]"#,
            #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 2, "title": "b"}, {"id": 1, "mentions": [{"id": 6, "name": "S"}], "user": {"id": 5, "name": "N"}}]"#,
            ["_Post_mentions: 1 | 2"]
        ),
        // Never completed: the list leaves it out (the `_id` it took stays unused).
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "mentions": [{"id": 5, "handle": "h"}, {"id": 6, "name": "S"}]}, {"id": 9, "user": {"id": 5, "handle": "i"}}]"#,
            ["_Post_mentions: 1 | 2"]
        ),
    ])
    func aUserNamedInAListEndsAsInOneBatch(earlier: String, list: String, rows: [String]) async throws {
        let whole = try await Self.outcome(of: list, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for row in rows { #expect(whole.rows.contains(row), "\(row)\n\(whole)") }
        for batchBytes in Self.batchSizes {
            let streamed = try await Self.outcome(of: list, after: earlier, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// Cases still read again whole (refused from a stream that cannot be): an ordered list
    /// that a member's list back changes in between (the ordered lists carried are in
    /// `StreamedCarriedOrderedListTests`); the user's own list back given under
    /// `replace` where it is completed; a list kept on the members that another list takes
    /// the user into in between, whose holder occurs again in between, or whose foreign key
    /// the user sets itself where it is completed.
    @Test(arguments: [
        #"[{"id": 1, "ranked": [{"id": 6, "name": "S"}, {"id": 5, "handle": "h"}, {"id": 7, "name": "T"}]}, {"id": 2, "user": {"id": 6, "rankedIn": []}}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "mentions": [{"id": 5, "handle": "h"}]}, {"id": 9, "user": {"id": 5, "name": "N", "mentionedIn": [9]}}]"#,
        #"[{"id": 1, "cc": [{"id": 5, "handle": "h"}]}, {"id": 2, "cc": [{"id": 5, "handle": "i"}]}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "cc": [{"id": 5, "handle": "h"}]}, {"id": 1, "title": "x"}, {"id": 9, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "cc": [{"id": 5, "handle": "h"}]}, {"id": 9, "user": {"id": 5, "name": "N", "ccOf": 9}}]"#,
    ])
    func aListThatCouldEndOtherwiseIsReadAgain(list: String) async throws {
        let whole = try await Self.outcome(of: list, after: "[]", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        let once = try await Self.outcome(of: list, after: "[]", batchBytes: 1)
        #expect(once.failure.map(Self.isRefusal) == true, "\(once)")
        #expect(once.rows == (try await Self.outcome(of: "[]", after: "[]", batchBytes: nil)).rows)
        let again = try await Self.outcome(of: list, after: "[]", batchBytes: 1, reopens: true)
        #expect(again == whole, "read again:\n\(again)\nwhole:\n\(whole)")
    }

    /// A response of posts whose lists name users, compact or full, some of them completed
    /// later, others never; posts repeated with their lists again or without them.
    static func response(seed: UInt64) -> (earlier: String, list: String) {
        var random = SeededRandom(seed: seed &* 104_729)
        let relationships = ["mentions", "likes", "seen", "cc", "mentions", "likes"]
        func user(_ id: Int) -> String {
            switch random.next(below: 4) {
            case 0: "{\"id\": \(id), \"name\": \"N\(id)\"}"
            case 1: "\(id)"
            default: "{\"id\": \(id), \"handle\": \"h\(random.next(below: 3))\"}"
            }
        }
        var posts: [String] = []
        for _ in 0..<(4 + random.next(below: 6)) {
            let id = 1 + random.next(below: 4)
            var fields = ["\"id\": \(id)"]
            if random.next(below: 3) == 0 { fields.append("\"title\": \"t\(random.next(below: 3))\"") }
            for _ in 0..<random.next(below: 3) {
                let name = relationships[random.next(below: relationships.count)]
                guard !fields.contains(where: { $0.hasPrefix("\"\(name)\"") }) else { continue }
                let count = random.next(below: 4)
                let members = (0..<count).map { _ in user(5 + random.next(below: 4)) }
                fields.append("\"\(name)\": [\(members.joined(separator: ", "))]")
            }
            if random.next(below: 3) == 0 { fields.append("\"user\": \(user(5 + random.next(below: 4)))") }
            posts.append("{" + fields.joined(separator: ", ") + "}")
        }
        let earlier =
            random.next(below: 2) == 0
            ? "[]" : #"[{"id": 1, "title": "a", "mentions": [{"id": 6, "name": "S"}], "cc": [{"id": 7, "name": "T"}]}]"#
        return (earlier, "[" + posts.joined(separator: ", ") + "]")
    }

    /// Random responses of ``response(seed:)``: each stream equals the whole response, or is
    /// refused with nothing written and equals it when read again.
    @Test(arguments: UInt64(1)...UInt64(40))
    func aRandomResponseEndsAsInOneBatch(seed: UInt64) async throws {
        let (earlier, list) = Self.response(seed: seed)
        try await Self.expectEqualOrRefused(list, after: earlier, note: "seed \(seed): ")
    }

    /// The seeds above are not all refused: most stream without reading again. (Before a list
    /// was carried, 25 of them were refused at batches of one record; 14 before a to-one's
    /// holder named again without it kept the user carried; 10 are when this was written, for
    /// what is still read again: a to-one's holder that sets it again, a user first named by
    /// key only, two lists kept on the members claiming the user.)
    @Test func mostOfThoseStreamsAreNotRefused() async throws {
        let refused = try await Self.refusedAtOneRecordABatch(seeds: UInt64(1)...UInt64(40), Self.response(seed:))
        #expect(refused <= 10, "\(refused) of 40 seeds refused")
    }

    /// How many of the responses `response` makes of `seeds` a stream of one record a batch
    /// refuses, from a reader that cannot be opened twice.
    static func refusedAtOneRecordABatch(
        seeds: ClosedRange<UInt64>, _ response: (UInt64) -> (earlier: String, list: String)
    ) async throws -> Int {
        var refused = 0
        for seed in seeds {
            let (earlier, list) = response(seed)
            let once = try await outcome(of: list, after: earlier, batchBytes: 1)
            if once.failure.map(isRefusal) == true { refused += 1 }
        }
        return refused
    }
}
