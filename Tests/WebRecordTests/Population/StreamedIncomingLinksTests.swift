import Foundation
import Testing

@testable import WebRecord

/// A new record that one batch of a streamed population drops as incomplete, and that the
/// records of its batch link to through a to-one kept in their own rows, is carried to the batch
/// that names it again, with those links: a compact copy of a user (without its non-optional
/// `name`) nested in a post, and the full user in a later batch, end as in one batch, from a
/// stream that cannot be read again (Docs/Population.md, "Carried, with the links to it").
@Suite struct StreamedIncomingLinksTests {
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
                "editor": { "destination": "User" },
                "pinned": { "destination": "User", "inverse": "pin" }
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
                "pin": { "destination": "Post", "inverse": "pinned" }
              }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "IncomingLinks.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// `list` populated into a store that holds `earlier`, whole or streamed in batches of
    /// `batchBytes` (from a reader opened once, unless `reopens`).
    static func outcome(
        of list: String, after earlier: String, batchBytes: Int?, reopens: Bool = false
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Post",
            batchBytes: batchBytes, reopens: reopens)
    }

    @Test(arguments: [
        // The compact copy first, the full user in the next post.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL", "User: 1 | 'User' | 5 | 'N' | 'h'"]
        ),
        // Two holders, through two relationships, one of them without an inverse.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 3, "editor": {"id": 5}}, {"id": 2, "title": "b", "editor": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL", "Post: 2 | 'Post' | 3 | NULL | NULL | 1 | NULL"]
        ),
        // A stored post given another user, which stays its user until the new one is complete.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            #"[{"id": 1, "user": {"id": 5}}, {"id": 4, "title": "x"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a' | 2 | NULL | NULL", "User: 2 | 'User' | 5 | 'N' | NULL"]
        ),
        // Never completed: the stored post keeps its user.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "handle": "i"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL"]
        ),
        // Dropped again in the middle, completed last: every holder links to it.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "handle": "i"}}, {"id": 3, "title": "c", "user": {"id": 5, "name": "N"}}]"#,
            [
                "Post: 1 | 'Post' | 1 | 'a' | 1 | NULL | NULL", "Post: 2 | 'Post' | 2 | 'b' | 1 | NULL | NULL",
                "User: 1 | 'User' | 5 | 'N' | 'i'",
            ]
        ),
        // Completed where it is named at the top level's nested record of another entity's
        // link, a later holder's own link winning over the carried one.
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}, "editor": 5}]"#,
            ["Post: 2 | 'Post' | 2 | 'b' | 1 | 1 | NULL", "User: 1 | 'User' | 5 | 'N' | 'h'"]
        ),
    ])
    func aRecordLinkedToWhereItIsDroppedEndsAsInOneBatch(earlier: String, list: String, rows: [String]) async throws {
        let whole = try await Self.outcome(of: list, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // Not only the same as the whole response: the rows the case is about.
        for row in rows { #expect(whole.rows.contains(row), "\(row)\n\(whole)") }
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(of: list, after: earlier, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// A holder that occurs again with data, before the record or with it, without setting or
    /// clearing the to-one that named the record (nor made another entity, nor claimed by a
    /// list): one batch keeps the link its earlier occurrence gave, and the stream keeps the
    /// record carried and gives the link again where the record is completed. Compared with
    /// the whole response, row for row, `_id`s, counts and records included, at batches of one
    /// record and more, from a stream that cannot be read again. (Both were read again whole
    /// before such a holder kept the record carried.)
    @Test(arguments: [
        // Again before the record, with a title only.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 1, "title": "a2"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a2' | 1 | NULL | NULL", "User: 1 | 'User' | 5 | 'N' | NULL"]
        ),
        // Again with the record, which it names through another relationship.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 1, "title": "a2", "editor": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a2' | 1 | 1 | NULL", "User: 1 | 'User' | 5 | 'N' | NULL"]
        ),
        // Again before the record and in its batch, a record never completed in between.
        (
            #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 1, "title": "a2"}, {"id": 3, "title": "c", "user": {"id": 6}}, {"id": 1, "title": "a3", "editor": {"id": 5, "name": "N"}}]"#,
            ["Post: 1 | 'Post' | 1 | 'a3' | 1 | 1 | NULL", "User: 1 | 'User' | 5 | 'N' | NULL"]
        ),
    ])
    func aHolderNamedAgainWithoutItsLinkKeepsTheRecordCarried(list: String, rows: [String]) async throws {
        let whole = try await Self.outcome(of: list, after: "[]", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for row in rows { #expect(whole.rows.contains(row), "\(row)\n\(whole)") }
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(of: list, after: "[]", batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// Where the links given again could end otherwise than in one batch, the record is not
    /// carried: a stream that cannot be read again refuses it and writes nothing; one that can
    /// is read again whole. The record's last occurrence gives its list of holders; the link
    /// is a one-to-one, which another record could take in between; the holder occurs again
    /// and sets the to-one, or is claimed by another record's list.
    @Test(arguments: [
        #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "title": "a", "pinned": {"id": 5}}, {"id": 2, "title": "b", "pinned": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 3, "title": "c", "user": {"id": 7, "name": "M", "posts": [{"id": 1, "title": "a2"}, 3]}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
    ])
    func aLinkThatCouldEndOtherwiseIsReadAgain(list: String) async throws {
        let whole = try await Self.outcome(of: list, after: "[]", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        let once = try await Self.outcome(of: list, after: "[]", batchBytes: 1)
        #expect(once.failure?.contains("occurs again later in the response") == true, "\(once)")
        #expect(once.rows == (try await Self.outcome(of: "[]", after: "[]", batchBytes: nil)).rows)
        let again = try await Self.outcome(of: list, after: "[]", batchBytes: 1, reopens: true)
        #expect(again == whole, "read again:\n\(again)\nwhole:\n\(whole)")
    }
}
