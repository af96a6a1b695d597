import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A new record that one batch of a streamed population drops as incomplete, and that records
/// of its batch link to through to-ones kept in their own rows, is carried to the batch that
/// names it again, with those links (Docs/Population.md, "Carried, with the links to it"). Each
/// case here is populated whole, and streamed from a reader opened once at several batch
/// sizes: a stream must either equal the whole response row for row (`_id`s, counts, records
/// and failure included), or refuse with the documented message, write nothing, and equal the
/// whole response when it can be read again.
@Suite struct AdversarialIncomingLinksTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "subentities": { "key": "type", "map": { "photo": "Photo" } },
              "attributes": {
                "id": { "type": "integer" },
                "title": { "type": "string" }
              },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "editor": { "destination": "User" },
                "reviewer": { "destination": "User", "inverse": "reviewed" },
                "pinned": { "destination": "User", "inverse": "pin" },
                "manager": { "destination": "Admin", "inverse": "managed" },
                "repostOf": { "destination": "Post", "inverse": "reposts" },
                "reposts": { "destination": "Post", "toMany": true, "inverse": "repostOf" },
                "quoted": { "destination": "Post" },
                "team": { "destination": "Team" }
              }
            },
            "Photo": {
              "parent": "Post",
              "attributes": { "url": { "type": "string", "optional": false } },
              "relationships": { "camera": { "destination": "User", "inverse": "shots" } }
            },
            "User": {
              "primaryKey": "id",
              "subentities": { "key": "role", "map": { "admin": "Admin", "bot": "Bot" } },
              "attributes": {
                "id": { "type": "integer" },
                "name": { "type": "string", "optional": false },
                "handle": { "type": "string" }
              },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
                "reviewed": { "destination": "Post", "toMany": true, "ordered": true, "inverse": "reviewer" },
                "pin": { "destination": "Post", "inverse": "pinned" },
                "shots": { "destination": "Photo", "toMany": true, "inverse": "camera" },
                "stats": { "destination": "Stats", "inverse": "user" },
                "team": { "destination": "Team", "inverse": "members" }
              }
            },
            "Admin": {
              "parent": "User",
              "attributes": { "level": { "type": "integer" } },
              "relationships": { "managed": { "destination": "Post", "toMany": true, "inverse": "manager" } }
            },
            "Bot": { "parent": "User", "attributes": { "model": { "type": "string" } } },
            "Stats": {
              "primaryKey": "user",
              "attributes": { "followers": { "type": "integer" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "stats" },
                "fan": { "destination": "User" }
              }
            },
            "Team": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": { "members": { "destination": "User", "toMany": true, "inverse": "team" } }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "AdversarialIncoming.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let refusal = "occurs again later in the response"

    /// Whether `failure` is a stream's documented refusal: a record dropped as incomplete that
    /// occurs again, or a record stored from a reference by key whose data a later batch gives
    /// without a non-optional value (Docs/Population.md, "applied in turn").
    static func isRefusal(_ failure: String) -> Bool {
        failure.contains(refusal)
            || (failure.contains("was stored from a reference by key where it first occurs")
                && failure.contains("Populate the response whole"))
    }

    /// The rows of `store` without the layout's metadata, for messages.
    static func shown(_ store: PopulatedStore) -> String {
        (store.failure.map { "failure: \($0)\n" } ?? "") + "counts: \(store.counts)\nrecords: \(store.recordIDs)\n"
            + store.rows.filter { !$0.hasPrefix("_webrecord_metadata") }.joined(separator: "\n")
    }
    static let batchSizes = [1, 40, 200, 1 << 20]

    /// `list` populated into a store that holds `earlier`: whole (`batchBytes` nil), or streamed
    /// in batches of `batchBytes` bytes from a reader opened once, unless `reopens`.
    static func outcome(
        of list: String, after earlier: String, batchBytes: Int?, options: PopulationOptions = PopulationOptions(),
        reopens: Bool = false
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Post",
            batchBytes: batchBytes, options: options, reopens: reopens)
    }

    /// Streams `list` at every batch size of ``batchSizes`` and checks each against the whole
    /// response: equal, or refused with nothing written and equal when read again. Returns, per
    /// batch size, whether the stream was refused.
    @discardableResult
    static func expectEqualOrRefused(
        _ list: String, after earlier: String = "[]", options: PopulationOptions = PopulationOptions(),
        note: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Bool] {
        let whole = try await outcome(of: list, after: earlier, batchBytes: nil, options: options)
        let before = try await outcome(of: "[]", after: earlier, batchBytes: nil)
        var refused: [Bool] = []
        for batchBytes in batchSizes {
            let streamed = try await outcome(of: list, after: earlier, batchBytes: batchBytes, options: options)
            if let failure = streamed.failure, isRefusal(failure), whole.failure.map(isRefusal) != true {
                refused.append(true)
                #expect(
                    streamed.rows == before.rows,
                    "\(note)batches of \(batchBytes) bytes: a refused stream wrote\n\(shown(streamed))\nbefore:\n\(shown(before))",
                    sourceLocation: sourceLocation)
                let again = try await outcome(
                    of: list, after: earlier, batchBytes: batchBytes, options: options, reopens: true)
                #expect(
                    again == whole,
                    "\(note)batches of \(batchBytes) bytes, read again:\n\(shown(again))\nwhole:\n\(shown(whole))",
                    sourceLocation: sourceLocation)
                PopulatedStore.expectWarningsEqual(again, whole, batchBytes: batchBytes, sourceLocation: sourceLocation)
                continue
            }
            refused.append(false)
            #expect(
                streamed == whole,
                "\(note)batches of \(batchBytes) bytes:\n\(shown(streamed))\nwhole:\n\(shown(whole))\nearlier: \(earlier)\nresponse: \(list)",
                sourceLocation: sourceLocation)
            PopulatedStore.expectWarningsEqual(streamed, whole, batchBytes: batchBytes, sourceLocation: sourceLocation)
        }
        return refused
    }

    // MARK: - Carried, and equal to the whole response

    /// Cases the design carries: a stream that cannot be read again equals the whole response
    /// at every batch size, without refusing.
    @Test(arguments: [
        // The holder is a sub-entity.
        (
            #"[]"#,
            #"[{"id": 1, "type": "photo", "url": "u", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        // The holder is a sub-entity, linking through a relationship only it has.
        (
            #"[]"#,
            #"[{"id": 1, "type": "photo", "url": "u", "camera": {"id": 5, "handle": "h"}}, {"id": 2, "type": "photo", "url": "v", "camera": {"id": 5, "name": "N"}}]"#
        ),
        // The dropped record is a sub-entity, completed by a copy that does not state it.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "role": "admin", "level": 3}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        // The dropped record switches to another branch where it is completed.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "role": "admin", "level": 3}}, {"id": 2, "editor": {"id": 5, "role": "bot", "name": "N", "model": "m"}}]"#
        ),
        // Dropped as a sub-entity through a relationship to that sub-entity, completed as a more
        // specific copy of the root that states nothing.
        (
            #"[]"#,
            #"[{"id": 1, "manager": {"id": 5, "role": "admin", "handle": "h"}}, {"id": 2, "manager": {"id": 5, "name": "N", "level": 2}}]"#
        ),
        // A holder stored before with other users, keeping them until the new one is complete.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}, "editor": 9}]"#,
            #"[{"id": 1, "editor": {"id": 5}, "user": {"id": 5, "handle": "h"}}, {"id": 4, "title": "x"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#
        ),
        // Completed nested under a record of another entity (a team's members).
        (
            #"[{"id": 40, "team": {"id": 1, "name": "t"}}]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "team": {"id": 1, "members": [{"id": 5, "name": "N"}]}}]"#
        ),
        // Completed nested under a record identified by its owner.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 7, "name": "Y", "stats": {"followers": 1, "fan": {"id": 5, "name": "N"}}}}]"#
        ),
        // Dropped again and again, by holders through three relationships, then completed.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "editor": {"id": 5, "handle": "i"}}, {"id": 3, "type": "photo", "url": "u", "camera": {"id": 5}}, {"id": 4, "editor": 5}, {"id": 6, "user": {"id": 5, "name": "N"}}]"#
        ),
        // Several dropped records linked from one holder, completed in two later posts.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5}, "editor": {"id": 6}}, {"id": 2, "user": {"id": 6, "name": "M"}}, {"id": 3, "user": {"id": 5, "name": "N"}}]"#
        ),
        // Several dropped records, one never completed.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5}, "editor": {"id": 6}}, {"id": 2, "title": "z"}, {"id": 3, "editor": {"id": 6, "name": "M"}}]"#
        ),
        // One holder linking the dropped record through two relationships.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}, "editor": 5}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        // The dropped record gives a child identified by it, which its full copy gives again.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h", "stats": {"followers": 3}}}, {"id": 2, "user": {"id": 5, "name": "N", "stats": {"followers": 4}}}]"#
        ),
        // ... or does not.
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h", "stats": {"followers": 3}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        // Completed at the top level: a photo without its url, quoted by a post.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "quoted": {"id": 5, "type": "photo", "title": "p"}}, {"id": 3, "title": "c"}, {"id": 5, "type": "photo", "url": "u"}]"#
        ),
        // Completed nested, first named nested too: not among the records.
        (
            #"[]"#,
            #"[{"id": 1, "repostOf": {"id": 5, "type": "photo", "title": "p"}}, {"id": 3, "repostOf": {"id": 5, "type": "photo", "url": "u"}}]"#
        ),
    ])
    func carriedCasesEqualTheWholeResponse(earlier: String, list: String) async throws {
        let refused = try await Self.expectEqualOrRefused(list, after: earlier)
        #expect(refused == Self.batchSizes.map { _ in false }, "refused at \(refused)")
    }

    // MARK: - Equal, or refused as documented

    /// Cases the design may refuse: each batch size either equals the whole response or
    /// refuses, writing nothing.
    @Test(arguments: [
        // Union and replace lists back given where the record is completed.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": []}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": null}}]"#,
        // An ordered list back.
        #"[{"id": 1, "reviewer": {"id": 5}}, {"id": 2, "reviewer": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "reviewer": {"id": 5}}, {"id": 2, "reviewer": {"id": 5, "name": "N", "reviewed": [2, 1]}}]"#,
        // A list back given by another user in between, claiming the holder.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 7, "name": "Y", "posts": [1, 3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // The holder's to-one set to null, or to another record, in a later batch.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": null}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 7, "name": "Y"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 7, "name": "Y"}}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 1, "user": 5}]"#,
        // The holder named only by key in between (a reference changes nothing).
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "quoted": 1}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // The holder's own record dropped, and completed later.
        #"[{"id": 1, "type": "photo", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 1, "type": "photo", "url": "u"}]"#,
        #"[{"id": 1, "type": "photo", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // The holder's row changed by a one-to-one that another post takes.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}, "pinned": {"id": 8, "name": "P"}}, {"id": 3, "pinned": {"id": 8}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // A one-to-one to the dropped record.
        #"[{"id": 1, "pinned": {"id": 5}}, {"id": 2, "pinned": {"id": 5, "name": "N"}}]"#,
        // The holder named again with the record, in the batch that completes it.
        #"[{"id": 1, "user": {"id": 5}}, {"id": 3}, {"id": 1, "title": "x", "user": {"id": 5, "name": "N"}}]"#,
        // The record completed by its own link back to the holder (a pin is one-to-one).
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "pin": {"id": 2}}}]"#,
        // The holder a sub-entity, switched in between by a copy that states another.
        #"[{"id": 1, "type": "photo", "url": "u", "user": {"id": 5, "handle": "h"}}, {"id": 1, "type": "post"}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // The record's carried to-one names a post that a later batch makes a photo.
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "pin": 3}}, {"id": 3, "type": "photo", "url": "u"}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // The record's team, identified by key, and the team's list in between.
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "team": {"id": 1}}}, {"id": 3, "team": {"id": 1, "members": []}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // A holder identified by its owner (a user's stats, whose fan is the dropped record).
        #"[{"id": 1, "user": {"id": 7, "name": "Y", "stats": {"followers": 1, "fan": {"id": 5, "handle": "h"}}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // A holder that the dropped record holds itself (a cycle of to-ones).
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "pin": {"id": 1}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "repostOf": {"id": 5, "type": "photo", "quoted": 1}}, {"id": 5, "type": "photo", "url": "u"}]"#,
    ])
    func equalOrRefused(list: String) async throws {
        try await Self.expectEqualOrRefused(list)
        try await Self.expectEqualOrRefused(
            list,
            after:
                #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}, {"id": 2, "editor": {"id": 8, "name": "E"}}]"#
        )
    }

    /// The same lists, with `User.posts` merged by union.
    @Test(arguments: [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 7, "name": "Y", "posts": [3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 9, "name": "Y", "posts": []}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
    ])
    func listsBackMergedByUnion(list: String) async throws {
        var options = PopulationOptions()
        options.mergePolicies["User.posts"] = .union
        let earlier = #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#
        try await Self.expectEqualOrRefused(list, options: options)
        try await Self.expectEqualOrRefused(list, after: earlier, options: options)
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    /// The completing copy's list back merged by union only adds: the link is carried, and the
    /// stream is not refused, into an empty store or one that holds the post with another user.
    @Test func aListBackMergedByUnionOnTheCompletingCopyIsCarried() async throws {
        var options = PopulationOptions()
        options.mergePolicies["User.posts"] = .union
        let list =
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": [2]}}]"#
        for earlier in ["[]", #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#] {
            let refused = try await Self.expectEqualOrRefused(list, after: earlier, options: options)
            #expect(refused.allSatisfy { !$0 }, "\(earlier): \(refused)")
        }
    }

    /// A list back given by the holder's stored user in between, under `replace`, dropping the
    /// holder from it.
    @Test func theStoredUsersListDropsTheHolderInBetween() async throws {
        try await Self.expectEqualOrRefused(
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 9, "name": "Y", "posts": [3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
            after: #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#)
    }

    // MARK: - Orphan deletion

    @Test(arguments: [
        // Never completed.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "handle": "i"}}]"#,
        // Completed.
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        // A top-level photo dropped, quoted by a post, then completed.
        #"[{"id": 1, "quoted": {"id": 5, "type": "photo"}}, {"id": 5, "type": "photo"}, {"id": 3}, {"id": 5, "type": "photo", "url": "u"}]"#,
        // ... never completed: under orphan deletion, the whole response fails.
        #"[{"id": 1, "quoted": {"id": 5, "type": "photo"}}, {"id": 5, "type": "photo"}, {"id": 3}]"#,
        // A top-level photo that holds a link to a post, which links back to it.
        #"[{"id": 5, "type": "photo", "repostOf": {"id": 1, "quoted": 5}}, {"id": 2}, {"id": 5, "type": "photo", "url": "u"}]"#,
    ])
    func orphanDeletion(list: String) async throws {
        let earlier = #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}, {"id": 8, "user": 9}, {"id": 3}]"#
        var options = PopulationOptions()
        options.deleteOrphans = .all
        try await Self.expectEqualOrRefused(list, after: earlier, options: options)
        var matching = PopulationOptions()
        matching.deleteOrphans = .matching("id > ?", [2])
        try await Self.expectEqualOrRefused(list, after: earlier, options: matching)
        var closure = PopulationOptions()
        closure.orphanDeletion = { orphan, records, _, _ in records.count > 1 }
        try await Self.expectEqualOrRefused(list, after: earlier, options: closure)
    }

    // MARK: - Hooks

    /// Keys injected: the compact copies of users and posts lack `id`, given as `uid`/`pid`.
    @Test(arguments: [
        #"[{"pid": 1, "user": {"uid": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"uid": 5, "handle": "h"}, "editor": {"uid": 6}}, {"pid": 2, "user": {"uid": 5, "name": "N"}}, {"id": 3, "editor": {"uid": 6, "name": "M"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"pid": 1}, {"id": 2, "user": {"uid": 5, "name": "N"}}]"#,
    ])
    func primaryKeyInjection(list: String) async throws {
        var options = PopulationOptions()
        options.primaryKeyInjection = { entity, dictionary, _ in
            switch entity.name {
            case "User", "Admin", "Bot": dictionary["uid"]
            case "Post", "Photo": dictionary["pid"]
            default: nil
            }
        }
        try await Self.expectEqualOrRefused(list, options: options)
    }

    /// A pre-population hook that removes the name of a user marked `"stub": true`: the record
    /// the hook makes incomplete is carried like one the response gives incomplete.
    @Test(arguments: [
        #"[{"id": 1, "user": {"id": 5, "name": "A", "stub": true}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "name": "A"}}, {"id": 2, "user": {"id": 5, "name": "N", "stub": true}}]"#,
        #"[{"id": 1, "user": {"id": 5, "name": "A", "stub": true}}, {"id": 2, "user": {"id": 5, "name": "B", "stub": true}}]"#,
    ])
    func prePopulation(list: String) async throws {
        var options = PopulationOptions()
        options.prePopulation = { entity, dictionary in
            if entity.name == "User", dictionary["stub"] == .bool(true) { dictionary["name"] = nil }
        }
        try await Self.expectEqualOrRefused(list, options: options)
    }

    // MARK: - Objects without a key

    /// An object without a key that a post's to-one reaches is the record related there
    /// (decision 6): the holder, through another post's `repostOf` that the store relates to it,
    /// or the dropped record, through the holder's `user` that an earlier occurrence named.
    static let repostedEarlier =
        #"[{"id": 3, "title": "c", "repostOf": {"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}}]"#

    /// The holder reached without a key in between, changing nothing of its link, or switched
    /// to a photo: equal, or refused.
    @Test(arguments: [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"title": "a2"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"type": "photo", "url": "u"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
    ])
    func theHolderReachedWithoutAKey(list: String) async throws {
        try await Self.expectEqualOrRefused(list, after: Self.repostedEarlier)
    }

    /// The holder named only by key in between, or together with the record's last occurrence
    /// (a reference changes nothing, in one batch too): the link is carried, and the stream is
    /// not refused; a reference that a list claims (`"posts": [1]`) could move the holder, and is.
    @Test func aHolderNamedOnlyByKeyKeepsItsCarriedLink() async throws {
        for list in [
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "quoted": 1}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "quoted": 1, "user": {"id": 5, "name": "N"}}]"#,
        ] {
            let refused = try await Self.expectEqualOrRefused(list)
            #expect(refused.allSatisfy { !$0 }, "\(list): \(refused)")
        }
        let claimed =
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 7, "name": "Y", "posts": [1, 3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        let refused = try await Self.expectEqualOrRefused(claimed)
        #expect(refused.first == true, "\(refused)")
    }

    /// The holder reached without a key in between, through another post's `repostOf`, which
    /// sets its `user` to null or to another user: one batch ends with that later link, so the
    /// stream, which meets the holder's row without a key, must not give it the carried link
    /// again (equal, or refused).
    @Test(arguments: [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"title": "a2", "user": null}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"user": {"id": 7, "name": "Y"}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
    ])
    func theHolderRelinkedWithoutAKeyInBetween(list: String) async throws {
        try await Self.expectEqualOrRefused(list, after: Self.repostedEarlier)
    }

    /// The dropped record reached without a key through the holder's `user`, then named by
    /// key again: equal, or refused.
    @Test func theDroppedRecordReachedWithoutAKeyThenByKey() async throws {
        let list =
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2}, {"id": 1, "user": {"name": "N"}}, {"id": 4, "user": 5}]"#
        try await Self.expectEqualOrRefused(list, after: #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#)
        try await Self.expectEqualOrRefused(list)
    }

    /// The dropped record completed by an object without a key through the holder's `user`,
    /// which an earlier occurrence named by key: one batch takes it for that record (decision 6)
    /// and stores user 5 complete; the stream, which did not store user 5, must not update the
    /// user the store related there (user 9) or make a new user without a key (equal, or
    /// refused).
    @Test(arguments: ["[]", #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#])
    func theDroppedRecordCompletedWithoutAKey(earlier: String) async throws {
        try await Self.expectEqualOrRefused(
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"name": "N"}}]"#, after: earlier)
    }

    // MARK: - A stored record that a later batch makes an incomplete sub-entity

    /// A post stored by one batch that a later batch makes a photo without its non-optional
    /// url: one batch merges the occurrences and does not store the photo (equal, or refused).
    @Test(arguments: [
        #"[{"id": 1}, {"id": 2}, {"id": 2, "type": "photo"}]"#,
        #"[{"id": 1}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 2, "type": "photo", "user": {"id": 5, "handle": "h"}}]"#,
    ])
    func aStoredPostMadeAPhotoWithoutItsURL(list: String) async throws {
        try await Self.expectEqualOrRefused(list)
    }

    /// What each post of `list`, populated whole into a store that holds `earlier`, links to
    /// through its `user`, `reviewer` (with its position) and `pinned`: `2: user=8 reviewer=-
    /// pinned=-`, in key order.
    static func postLinks(
        of list: String, after earlier: String = "[]", options: PopulationOptions = PopulationOptions()
    ) async throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(earlier)}"#), entity: "Post")
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(list)}"#), entity: "Post", options: options)
        return try await store.read { connection in
            try connection.rows(
                """
                SELECT p.id || ': user=' || ifnull(u.id, '-') || ' reviewer=' || ifnull(r.id || '@' || p._position_reviewer, '-')
                    || ' pinned=' || ifnull(q.id, '-')
                FROM Post p LEFT JOIN User u ON p.user = u._id LEFT JOIN User r ON p.reviewer = r._id
                LEFT JOIN User q ON p.pinned = q._id ORDER BY p.id
                """
            ).map { row in
                guard case .text(let text)? = row.first else { return "\(row)" }
                return text
            }
        }
    }

    /// A post whose to-one a nested list drops in its first occurrence, and whose later
    /// occurrence points it at a new record that is never complete (user 5 has no `name`):
    /// applied in turn, the later occurrence changes nothing, so the post is left as the list
    /// left it, with no user, whole and streamed (Docs/Population.md, "Incomplete new records").
    @Test(arguments: ["[]", #"[{"id": 6, "user": {"id": 8, "name": "z"}}]"#])
    func aLaterLinkToAnIncompleteRecordAfterAListDroppedTheEarlierOne(earlier: String) async throws {
        let list = #"[{"id": 2, "user": {"id": 8, "name": "n", "posts": []}}, {"id": 2, "user": {"id": 5}}]"#
        let links = try await Self.postLinks(of: list, after: earlier)
        #expect(links.contains("2: user=- reviewer=- pinned=-"), "\(links)")
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    /// The same class: a to-one whose latest occurrence names a record that is never stored is
    /// what the occurrences before it left it, as of the one it falls back on (the record it
    /// named, or none after its `null`), with everything given after that one applied after
    /// it: a list that leaves the post out drops it, another record's list takes it (at its
    /// position, for an ordered list), another record's one-to-one takes its target; a list that
    /// keeps it, or a repeat of the earlier occurrence after those, leaves the link it gave.
    @Test(arguments: [
        // The earlier user's list, nested in another post after the link, leaves post 2 out.
        (
            #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [3]}}, {"id": 2, "user": {"id": 5}}]"#,
            "replace", "user=-"
        ),
        // It lists post 2: the link stays.
        (
            #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "posts": [2, 3]}}, {"id": 2, "user": {"id": 5}}]"#,
            "replace", "user=8"
        ),
        // Merged by union, an empty list drops nothing.
        (
            #"[{"id": 2, "user": {"id": 8, "name": "n", "posts": []}}, {"id": 2, "user": {"id": 5}}]"#, "union",
            "user=8"
        ),
        // Another user's list takes post 2 after the link.
        (
            #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 9, "name": "m", "posts": [2, 3]}}, {"id": 2, "user": {"id": 5}}]"#,
            "replace", "user=9"
        ),
        // ... after a `null`.
        (
            #"[{"id": 2, "user": null}, {"id": 3, "user": {"id": 9, "name": "m", "posts": [2, 3]}}, {"id": 2, "user": {"id": 5}}]"#,
            "replace", "user=9"
        ),
        // ... and the earlier occurrence, repeated after that list, gives its link back.
        (
            #"[{"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 9, "name": "m", "posts": [2, 3]}}, {"id": 2, "user": {"id": 8, "name": "n"}}, {"id": 2, "user": {"id": 5}}]"#,
            "replace", "user=8"
        ),
        // An ordered list: dropped, and taken at its position.
        (
            #"[{"id": 2, "reviewer": {"id": 8, "name": "n", "reviewed": []}}, {"id": 2, "reviewer": {"id": 5}}]"#,
            "replace", "reviewer=-"
        ),
        (
            #"[{"id": 2, "reviewer": {"id": 8, "name": "n"}}, {"id": 3, "reviewer": {"id": 9, "name": "m", "reviewed": [3, 2]}}, {"id": 2, "reviewer": {"id": 5}}]"#,
            "replace", "reviewer=9@1"
        ),
        // A one-to-one whose target another post claims after the link, from either side.
        (
            #"[{"id": 2, "pinned": {"id": 8, "name": "n"}}, {"id": 3, "pinned": {"id": 8}}, {"id": 2, "pinned": {"id": 5}}]"#,
            "replace", "pinned=-"
        ),
        (
            #"[{"id": 2, "pinned": {"id": 8, "name": "n"}}, {"id": 3, "user": {"id": 8, "pin": 3}}, {"id": 2, "pinned": {"id": 5}}]"#,
            "replace", "pinned=-"
        ),
    ])
    func aLaterLinkToAnIncompleteRecordFallsBackInTurn(list: String, policy: String, expected: String) async throws {
        var options = PopulationOptions()
        if policy == "union" { options.mergePolicies["User.posts"] = .union }
        // New records, or post 2 and user 8 stored before.
        for earlier in ["[]", #"[{"id": 2, "title": "s"}, {"id": 4, "user": {"id": 8, "name": "z"}}]"#] {
            let links = try await Self.postLinks(of: list, after: earlier, options: options)
            #expect(
                links.first.map { $0.hasPrefix("2: ") && $0.contains(" \(expected)") } == true,
                "after \(earlier): \(links)")
            try await Self.expectEqualOrRefused(list, after: earlier, options: options)
        }
    }

    // MARK: - Random responses

    /// Random posts that nest compact copies of users (without their `name`) and full ones,
    /// sometimes as editors, with lists back and repeated posts.
    struct Generator {
        var random: SeededRandom

        mutating func chance(_ percent: Int) -> Bool { random.next(below: 100) < percent }

        mutating func user(depth: Int) -> String {
            let id = 5 + random.next(below: 4)
            var members = ["\"id\": \(id)"]
            switch random.next(below: 10) {
            case 0: return "\(id)"
            case 1: return "null"
            case 2, 3, 4: members.append("\"handle\": \"h\(random.next(below: 3))\"")
            case 5: break
            default: members.append("\"name\": \"n\(random.next(below: 3))\"")
            }
            if chance(10) { members.append("\"role\": \"\(chance(50) ? "admin" : "bot")\"") }
            if depth == 0, chance(12) {
                let posts = (0..<random.next(below: 3)).map { _ in "\(1 + random.next(below: 6))" }
                members.append("\"posts\": [\(posts.joined(separator: ", "))]")
            }
            if chance(8) { members.append("\"stats\": {\"followers\": \(random.next(below: 3))}") }
            return "{" + members.joined(separator: ", ") + "}"
        }

        /// Whether posts may be photos, some without their url (an earlier store has none).
        var photos = true

        mutating func post(depth: Int = 0) -> String {
            var members = ["\"id\": \(1 + random.next(below: 6))"]
            if chance(40) { members.append("\"title\": \"t\(random.next(below: 3))\"") }
            if photos, chance(10) {
                members.append("\"type\": \"photo\"")
                members.append("\"url\": \"u\(random.next(below: 2))\"")
            }
            if chance(75) { members.append("\"user\": \(user(depth: depth))") }
            if chance(25) { members.append("\"editor\": \(user(depth: depth))") }
            if depth == 0, chance(10) { members.append("\"repostOf\": \(post(depth: 1))") }
            return "{" + members.joined(separator: ", ") + "}"
        }

        mutating func response(count: Int) -> String {
            var posts: [String] = []
            for _ in 0..<count {
                if !posts.isEmpty, chance(10) {
                    posts.append(posts[random.next(below: posts.count)])
                } else {
                    posts.append(post())
                }
            }
            return "[" + posts.joined(separator: ", ") + "]"
        }
    }

    /// Whether `list` names a user first without a name and later with one.
    static func completesAUserLater(_ list: String) -> Bool {
        guard let posts = try? JSONReader().read(list).arrayValue else { return false }
        var firstLacks: [Int64: Bool] = [:]
        func visit(_ value: JSONValue?) -> Bool {
            guard let object = value?.objectValue, case .integer(let id)? = object["id"] else { return false }
            let hasName = object["name"] != nil
            if let lacks = firstLacks[id] {
                if lacks && hasName { return true }
            } else {
                firstLacks[id] = !hasName
            }
            return false
        }
        for post in posts {
            guard let object = post.objectValue else { continue }
            for value in [object["user"], object["editor"], object["repostOf"]?.objectValue?["user"]]
            where visit(value) {
                return true
            }
        }
        return false
    }

    @Test func randomPostsWithCompactAndFullUsers() async throws {
        var carried = 0
        var refusedSeeds = 0
        for seed in UInt64(1)...UInt64(300) {
            var generator = Generator(random: SeededRandom(seed: seed &* 104_729))
            generator.photos = false
            let earlier = generator.chance(50) ? generator.response(count: 1 + generator.random.next(below: 3)) : "[]"
            generator.photos = true
            let list = generator.response(count: 3 + generator.random.next(below: 8))
            var options = PopulationOptions()
            if generator.chance(30) { options.mergePolicies["User.posts"] = .union }
            let refused = try await Self.expectEqualOrRefused(
                list, after: earlier, options: options, note: "seed \(seed), ")
            if refused.first == false, Self.completesAUserLater(list) { carried += 1 }
            if refused.contains(true) { refusedSeeds += 1 }
        }
        // When this was written: 28 seeds carried such a user at batches of one byte, and 119
        // were refused at one batch size or more.
        #expect(refusedSeeds < 300, "every seed was refused")
        #expect(carried >= 20, "\(carried) of 300 seeds carried a user a later batch completes")
    }
}
