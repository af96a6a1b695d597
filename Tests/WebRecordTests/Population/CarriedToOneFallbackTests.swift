import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record a batch drops as incomplete and carries, with a to-one to a stored record, whose
/// later occurrence completes it and sets that to-one to a record that is not stored: the link
/// is what the carried occurrence left it, as one batch falls back on the occurrence before
/// (Docs/Population.md, "Incomplete new records" and "Carried"). Whole, and streamed at every
/// batch size from a stream that cannot be read again, with the same rows.
@Suite struct CarriedToOneFallbackTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: #"""
                    {"version": 1, "entities": {
                      "Post": {"primaryKey": "id",
                        "attributes": {"id": {"type": "string"}, "title": {"type": "string", "optional": false}},
                        "relationships": {"user": {"destination": "User", "inverse": "posts"}}},
                      "User": {"primaryKey": "id",
                        "attributes": {"id": {"type": "string"}, "name": {"type": "string", "optional": false}},
                        "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "user"}}}}}
                    """#, fileName: "Carried.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let earlier: String
        let list: String
        /// Post p1's user as it ends (`-`: none, or p1 not stored).
        let user: String
        /// Whether a stream that cannot be read again may refuse it (a documented read-again case).
        var refused = false
        var testDescription: String { list }
    }

    @Test(arguments: [
        Case(
            earlier: "[]",
            list:
                #"[{"id": "p1", "user": {"id": "u1", "name": "N"}}, {"id": "p1", "title": "T", "user": {"id": "u2"}}]"#,
            user: "u1"),
        Case(
            earlier: #"[{"id": "p0", "title": "t", "user": {"id": "u1", "name": "N"}}]"#,
            list: #"[{"id": "p1", "user": "u1"}, {"id": "p1", "title": "T", "user": {"id": "u2"}}]"#, user: "u1"),
        Case(
            earlier: "[]",
            list:
                #"[{"id": "p1", "user": {"id": "u1", "name": "N"}}, {"id": "p1", "user": {"id": "u3", "name": "M"}}, {"id": "p1", "title": "T", "user": {"id": "u2"}}]"#,
            user: "u3"),
        Case(
            earlier: "[]",
            list:
                #"[{"id": "p1", "user": {"id": "u1", "name": "N"}}, {"id": "p1", "title": "T", "user": {"id": "u3", "name": "M"}}]"#,
            user: "u3"),
        Case(
            earlier: "[]",
            list: #"[{"id": "p1", "user": {"id": "u1", "name": "N"}}, {"id": "p1", "title": "T", "user": null}]"#,
            user: "-"),
        Case(
            earlier: "[]",
            list:
                #"[{"id": "p1", "user": {"id": "u1", "name": "N"}}, {"id": "p1", "user": null}, {"id": "p1", "title": "T", "user": {"id": "u2"}}]"#,
            user: "-", refused: true),
    ])
    func fallsBackOnTheCarriedOccurrence(_ example: Case) async throws {
        let whole = try await PopulatedStore.populating(
            example.list, after: example.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(try await Self.user(of: example) == example.user)
        // A dropped occurrence that set the to-one to null is read again whole
        // (Docs/Population.md, "Read again whole"): refused when the stream cannot be.
        try await PopulatedStore.expectStreamsEqual(
            example.list, after: example.earlier, schema: Self.schema, entity: "Post", whole: whole,
            isRefusal: { example.refused && AdversarialIncomingLinksTests.isRefusal($0) })
    }

    /// Post p1's user once `example` is populated whole.
    static func user(of example: Case) async throws -> String {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(example.earlier), entity: "Post")
        _ = try await store.populate(try JSONReader().read(example.list), entity: "Post")
        let rows = try await store.read { connection in
            try connection.rows(
                "SELECT ifnull(u.id, '-') FROM Post p LEFT JOIN User u ON p.user = u._id WHERE p.id = 'p1'")
        }
        guard case .text(let text)? = rows.first?.first else { return "-" }
        return text
    }
}
