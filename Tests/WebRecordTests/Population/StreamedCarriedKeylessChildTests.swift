import Foundation
import Testing

@testable import WebRecord

/// A compact copy of a user (without its non-optional `name`) nested in a post, with its
/// `cover_image`, an object without a key related through the user's to-one (decision 6, as in
/// the App.net schema), and the full user in a later batch. The batch that drops the user
/// carries the cover image with it, as it carries a child the relationship identifies
/// (Docs/Population.md, "Carried"): the stream ends as one batch, row for row (`_id`s
/// included), with the same counts and records, from a stream that cannot be read again, and
/// refuses nothing.
@Suite struct StreamedCarriedKeylessChildTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: #"""
                    {"version": 1, "entities": {
                      "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
                        "attributes": {"id": {"type": "string"}, "text": {"type": "string"}},
                        "relationships": {"user": {"destination": "User", "inverse": "posts"}}},
                      "User": {"primaryKey": "id",
                        "attributes": {"id": {"type": "string"}, "name": {"type": "string", "optional": false},
                          "username": {"type": "string"}},
                        "relationships": {
                          "posts": {"destination": "Post", "toMany": true, "merge": "union", "inverse": "user"},
                          "coverImage": {"destination": "CoverImage", "key": "cover_image", "inverse": "user"},
                          "pinned": {"destination": "Post"}}},
                      "CoverImage": {"primaryKey": "id",
                        "attributes": {"id": {"type": "integer"}, "url": {"type": "string"},
                          "width": {"type": "integer", "default": 0}},
                        "relationships": {"user": {"destination": "User", "inverse": "coverImage"}}}}}
                    """#, fileName: "CarriedKeylessChild.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let list: String
        /// Rows the whole response must hold, and rows it must not: what the case is about.
        let rows: [String]
        var absent: [String] = []
        var testDescription: String { list }
    }

    @Test(arguments: [
        // The full user without its cover image: the compact copy's stays.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "2", "user": {"id": "5", "name": "N"}}]"#,
            rows: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 0 | 1", "User: 1 | 'User' | '5' | 'N' | 'h' | NULL"]),
        // The full user with its cover image: one image, the later values over the earlier.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "2", "user": {"id": "5", "name": "N", "cover_image": {"url": "d", "width": 3}}}]"#,
            rows: ["CoverImage: 1 | 'CoverImage' | NULL | 'd' | 3 | 1"]),
        // The full user clears it: no image.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "2", "user": {"id": "5", "name": "N", "cover_image": null}}]"#,
            rows: ["User: 1 | 'User' | '5' | 'N' | 'h' | NULL"],
            absent: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 0 | 1"]),
        // The full user names an image by key: the one without a key is not stored.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "2", "user": {"id": "5", "name": "N", "cover_image": {"id": 9, "url": "k"}}}]"#,
            rows: ["User: 1 | 'User' | '5' | 'N' | 'h' | NULL"],
            absent: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 0 | 1"]),
        // Compact twice, each time with an image, then complete.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "3", "user": {"id": "5", "cover_image": {"width": 4}}}, {"id": "2", "user": {"id": "5", "name": "N"}}]"#,
            rows: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 4 | 1"]),
        // The same post on two overlapping pages, then the full user.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "2", "user": {"id": "5", "name": "N"}}]"#,
            rows: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 0 | 1", "Post: 1 | 'Post' | '1' | NULL | 1"]),
        // Never completed: neither the user nor its image is stored.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "3", "text": "t"}, {"id": "2", "user": {"id": "5", "username": "i"}}]"#,
            rows: ["Post: 1 | 'Post' | '1' | NULL | NULL"],
            absent: ["CoverImage: 1 | 'CoverImage' | NULL | 'c' | 0 | 1"]),
    ])
    func aCompactUserWithItsCoverImageEndsAsInOneBatch(_ example: Case) async throws {
        let whole = try await PopulatedStore.populating(
            #"{"data": \#(example.list)}"#, after: #"{"data": []}"#, schema: Self.schema, entity: "Post",
            batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for row in example.rows { #expect(whole.rows.contains(row), "\(row)\n\(whole)") }
        for row in example.absent { #expect(!whole.rows.contains(row), "\(row)\n\(whole)") }
        for batchBytes in [1, 40, 120, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                #"{"data": \#(example.list)}"#, after: #"{"data": []}"#, schema: Self.schema, entity: "Post",
                batchBytes: batchBytes)
            #expect(streamed.failure == nil, "batches of \(batchBytes) bytes refused: \(streamed)")
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
            // A batch that drops the user warns that its image is not stored either; the batch
            // that completes the user withdraws that warning, as it does the user's own.
            PopulatedStore.expectWarningsEqual(
                streamed, whole, batchBytes: batchBytes, sourceLocation: #_sourceLocation)
        }
    }

    /// A user never completed: its image is not stored either, and the warning names the user,
    /// whole and streamed alike, once.
    @Test func anImageWhoseUserIsNeverCompletedIsReportedWithItsUser() async throws {
        let list =
            #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": {"url": "c"}}}, {"id": "3", "text": "t"}, {"id": "2", "user": {"id": "5", "username": "i"}}]"#
        let expected =
            "CoverImage(owned by User.coverImage) belongs to User '5', which was not stored; it is not stored either"
        for batchBytes in [nil, 1, 40, 1 << 20] {
            let outcome = try await PopulatedStore.populating(
                #"{"data": \#(list)}"#, after: #"{"data": []}"#, schema: Self.schema, entity: "Post",
                batchBytes: batchBytes)
            #expect(outcome.warnings.filter { $0 == expected }.count == 1, "\(batchBytes ?? 0): \(outcome)")
        }
    }

    /// A compact copy that gives its to-ones as `null` (`"cover_image": null`, `"pinned": null`),
    /// as many feeds give an absent nested object: the user has no row, so the `null` lets go
    /// of nothing, and the batch that drops the user carries it without that link. The later
    /// occurrences decide, as in one batch (Docs/Population.md, "Carried").
    @Test(arguments: [
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": null, "pinned": null}}, {"id": "2", "user": {"id": "5", "name": "N"}}]"#,
            rows: ["User: 1 | 'User' | '5' | 'N' | 'h' | NULL"]),
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": null}}, {"id": "2", "user": {"id": "5", "name": "N", "cover_image": {"url": "d"}, "pinned": "1"}}]"#,
            rows: ["CoverImage: 1 | 'CoverImage' | NULL | 'd' | 0 | 1", "User: 1 | 'User' | '5' | 'N' | 'h' | 1"]),
        // Null twice (two overlapping copies), then the full user pinning a post it gives.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "pinned": null}}, {"id": "1", "user": {"id": "5", "username": "h", "pinned": null}}, {"id": "2", "user": {"id": "5", "name": "N", "pinned": {"id": "9", "text": "p"}}}]"#,
            rows: ["User: 1 | 'User' | '5' | 'N' | 'h' | 3"]),
        // Null in two batches, never completed.
        Case(
            list:
                #"[{"id": "1", "user": {"id": "5", "username": "h", "cover_image": null}}, {"id": "3", "text": "t"}, {"id": "2", "user": {"id": "5", "cover_image": null}}]"#,
            rows: ["Post: 1 | 'Post' | '1' | NULL | NULL"], absent: ["User: 1 | 'User' | '5' | NULL | 'h' | NULL"]),
    ])
    func aCompactUserWithNullsEndsAsInOneBatch(_ example: Case) async throws {
        try await aCompactUserWithItsCoverImageEndsAsInOneBatch(example)
    }
}
