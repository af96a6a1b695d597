import Foundation
import Testing

@testable import WebRecord

/// A new record that one batch of a streamed population drops as incomplete, with links, and
/// that a later batch names again, ends as in one batch without reading the response again,
/// when its links can be carried: a to-one kept in its row, to a stored record, through a
/// relationship that claims nothing, and a child without a key that the record identifies
/// (Docs/Population.md, "Large responses").
@Suite struct StreamedCarriedLinksTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "integer" },
                "title": { "type": "string", "optional": false },
                "body": { "type": "string" }
              },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "source": { "destination": "Source", "inverse": "post" }
              }
            },
            "Source": {
              "primaryKey": "post",
              "attributes": { "name": { "type": "string" }, "link": { "type": "string" } },
              "relationships": { "post": { "destination": "Post", "inverse": "source" } }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user", "merge": "replace" }
              }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "CarriedLinks.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// `list` populated into a store that holds `earlier` (both the list of records at `data`):
    /// whole, or streamed in batches of `batchBytes` from a reader that cannot be opened twice.
    static func outcome(of list: String, after earlier: String, batchBytes: Int?) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Post",
            batchBytes: batchBytes)
    }

    @Test(arguments: [
        // The child the first occurrence gave, not given again.
        (
            #"[]"#, #"[{"id": 5, "body": "x", "source": {"name": "web"}}, {"id": 5, "title": "t"}]"#,
            "Source: 1 | 'Source' | 'web' | NULL | 1"
        ),
        // Given again: the earlier child's values beneath the later one's.
        (
            #"[]"#,
            #"[{"id": 5, "body": "x", "source": {"name": "web"}}, {"id": 5, "title": "t", "source": {"link": "l"}}]"#,
            "Source: 1 | 'Source' | 'web' | 'l' | 1"
        ),
        // Set to null later: no child.
        (#"[]"#, #"[{"id": 5, "body": "x", "source": {"name": "web"}}, {"id": 5, "title": "t", "source": null}]"#, nil),
        // A user and a child, the user met again in between, among stored rows.
        (
            #"[{"id": 1, "title": "a", "user": "u0", "source": {"name": "app"}}]"#,
            #"[{"id": 5, "body": "x", "user": {"id": "u1", "name": "N"}, "source": {"name": "web"}}, {"id": 6, "title": "s", "user": {"id": "u1", "name": "M"}}, {"id": 5, "title": "t"}]"#,
            "Source: 2 | 'Source' | 'web' | NULL | 2"
        ),
    ])
    func aCarriedRecordKeepsItsLinksAsInOneBatch(earlier: String, list: String, source: String?) async throws {
        let whole = try await Self.outcome(of: list, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // Not only the same as the whole response: the post stored, with its child, if any.
        #expect(whole.rows.contains { $0.contains("| 'Post' | 5 | 't' | 'x' |") }, "\(whole)")
        let sources = whole.rows.filter { $0.hasPrefix("Source: ") && !$0.contains("'app'") }
        #expect(sources == (source.map { [$0] } ?? []), "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(of: list, after: earlier, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// A carried to-one whose record a later batch gives its list back (`User.posts`, merged by
    /// replacing, without the post): one batch applies the post's link when its last
    /// occurrence is given, after the list, as the batch that names it again does with the
    /// carried link. The post keeps its user, streamed as whole.
    @Test func aCarriedToOneWhoseRecordGivesItsListInBetweenIsKept() async throws {
        let list =
            #"[{"id": 5, "body": "x", "user": "u1"}, {"id": 9, "title": "z", "user": {"id": "u1", "posts": [9]}}, {"id": 5, "title": "t"}]"#
        let whole = try await Self.outcome(of: list, after: "[]", batchBytes: nil)
        #expect(whole.rows.contains("Post: 1 | 'Post' | 5 | 't' | 'x' | 1"), "\(whole)")
        for batchBytes in [1, 40] {
            let streamed = try await Self.outcome(of: list, after: "[]", batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }
}
