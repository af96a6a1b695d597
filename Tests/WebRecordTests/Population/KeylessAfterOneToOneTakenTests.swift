import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// An object without a key, reached through a one-to-one, whose owner named the record related
/// there earlier in the response, while another record took that record in between
/// (Docs/Population.md, decision 6, and "An object without a key whose related record another
/// record took first"). Applied in turn, the owner no longer holds it: the object is a new
/// record. Taken by another record's link (by key or as a nested object), by the partner's
/// inverse named from the other side (to another record, or `null`), and given back to the owner
/// in between (by the owner itself or from the other side). Each response is populated whole
/// into a file store and checked against the rule, then streamed from a reader opened once at
/// every batch size, down to one record a batch, which must end row for row as the whole
/// response (`_id`s, counts and records included).
@Suite("Population: an object without a key after its one-to-one was taken")
struct KeylessAfterOneToOneTakenTests {
    typealias A = AdversarialStreamTests

    /// `Post.att` and `Att.post`, one-to-one, both keyed by `id`; `Post.files` names attachments
    /// (with their own `post`) apart from the one-to-one.
    static let schema = A.schema(
        #"""
        {"version": 1, "entities": {
          "Post": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"att": {"destination": "Att", "inverse": "post"},
              "files": {"destination": "Att", "toMany": true}}},
          "Att": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "u": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "att"}}}
        }}
        """#)

    /// People whose `spouse` is its own inverse: a one-to-one between two records of one entity.
    static let spouses = A.schema(
        #"""
        {"version": 1, "entities": {
          "Person": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "u": {"type": "string"}},
            "relationships": {"spouse": {"destination": "Person", "inverse": "spouse"}}}
        }}
        """#)

    static let batchSizes = [1, 20, 64, 300, 1 << 22]

    /// Where a response's one-to-one is read: the top-level entity, and the entity and
    /// relationship whose records ``Outcome/attachments`` lists with their partners.
    struct Layout {
        var schema: Schema
        var entity: String
        var listed: String
        var partner: String

        static let posts = Layout(
            schema: KeylessAfterOneToOneTakenTests.schema, entity: "Post", listed: "Att", partner: "post")
        static let people = Layout(schema: spouses, entity: "Person", listed: "Person", partner: "spouse")
    }

    /// What a population leaves: every row, the counts, the records returned, or the failure.
    /// `attachments` reads each attachment (or person) as `key u=value post=key` in `_id` order
    /// (`-` for no key, `NULL` for no value, `none` for no post or spouse, `post=-` for one
    /// without a key).
    struct Outcome: Equatable, CustomStringConvertible {
        var rows: [String]
        var counts: [String: ChangeCounts]
        var recordIDs: [Int64]
        var failure: String?
        var attachments: [String]

        var description: String {
            (failure.map { "failure: \($0)\n" } ?? "") + "counts: \(counts)\nrecords: \(recordIDs)\n"
                + rows.joined(separator: "\n")
        }
    }

    /// `text`, a list of posts, populated into a new file store that holds `earlier`: whole
    /// (`batchBytes` nil), or streamed in batches of `batchBytes` bytes from a reader that cannot
    /// be opened twice, unless `reopens`.
    static func populate(
        _ text: String, after earlier: String, batchBytes: Int?, reopens: Bool = false, layout: Layout = .posts
    ) async throws -> Outcome {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: layout.schema)
        let entity = layout.entity
        _ = try await store.populate(try JSONReader().read(earlier), entity: entity)
        var result: PopulationResult?
        var failure: String?
        do {
            if let batchBytes {
                let population = ResponsePopulation(store: try #require(store.sqlite))
                let data = Data(text.utf8)
                if reopens {
                    result = try await population.populate(
                        streaming: { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: batchBytes) },
                        entity: entity)
                } else {
                    result = try await population.populate(
                        streaming: readingOnce(data, batchByteLimit: batchBytes), entity: entity, reopens: false)
                }
            } else {
                result = try await store.populate(try JSONReader().read(text), entity: entity)
            }
        } catch let error as WebRecordError {
            failure = error.message
        }
        let attachments = try store.fetch(layout.listed).map { record in
            let key: String? = record["id"]
            let value: String? = record["u"]
            let partner = record.related(layout.partner, as: Record.self)
            let partnerKey: String? = partner?["id"]
            return "\(key ?? "-") u=\(value ?? "NULL") post=\(partner == nil ? "none" : partnerKey ?? "-")"
        }
        return Outcome(
            rows: try A.rows(of: store), counts: result?.changesByEntity ?? [:],
            recordIDs: result?.records.map(\.rowID) ?? [], failure: failure, attachments: attachments)
    }

    /// The refusal of a stream whose one-to-one a record takes in one part and lets go of in a
    /// later one (Docs/Population.md, "A member a list takes from another record and a later
    /// occurrence drops").
    static let letGoRefusal = "is taken by a one-to-one from another record in one part of the response and let go of"

    /// Populates `text` whole and checks its attachments against `expected`, then streams it at
    /// every batch size from a reader opened once and checks each against the whole response.
    /// With `mayRefuse`, a stream may instead be refused for a one-to-one taken and let go of:
    /// then it wrote nothing, and read again it ends as the whole response.
    static func expectAttachments(
        _ expected: [String], of text: String, after earlier: String = "[]", mayRefuse: Bool = false,
        layout: Layout = .posts, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let whole = try await populate(text, after: earlier, batchBytes: nil, layout: layout)
        #expect(whole.failure == nil, "\(whole)", sourceLocation: sourceLocation)
        #expect(whole.attachments == expected, "whole:\n\(whole)", sourceLocation: sourceLocation)
        let before = try await populate("[]", after: earlier, batchBytes: nil, layout: layout)
        for size in batchSizes {
            let streamed = try await populate(text, after: earlier, batchBytes: size, layout: layout)
            if mayRefuse, let failure = streamed.failure, failure.contains(letGoRefusal) {
                #expect(
                    streamed.rows == before.rows, "batches of \(size) bytes: a refused stream wrote\n\(streamed)",
                    sourceLocation: sourceLocation)
                let again = try await populate(
                    text, after: earlier, batchBytes: size, reopens: true, layout: layout)
                #expect(
                    again == whole, "batches of \(size) bytes, read again:\n\(again)\nwhole:\n\(whole)",
                    sourceLocation: sourceLocation)
                continue
            }
            #expect(
                streamed == whole, "batches of \(size) bytes:\n\(streamed)\nwhole:\n\(whole)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: - Taken by another record's link

    /// Post 2 links a1, post 1 takes it (by key): post 2's object without a key is a new
    /// attachment, and a1 stays with post 1 without a `u`.
    @Test("Taken by another record's link by key: the object is a new record")
    func takenByKey() async throws {
        try await Self.expectAttachments(
            ["a1 u=NULL post=p1", "- u=k post=p2"],
            of: #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p2", "att": {"u": "k"}}]"#)
    }

    /// The same, post 1 taking a1 as a nested object, and post 2 naming it as one.
    @Test(
        "Taken by another record's nested object: the object is a new record",
        arguments: [
            #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": {"id": "a1"}}, {"id": "p2", "att": {"u": "k"}}]"#,
            #"[{"id": "p2", "att": {"id": "a1"}}, {"id": "p1", "att": {"id": "a1"}}, {"id": "p2", "att": {"u": "k"}}]"#,
        ])
    func takenByNestedObject(text: String) async throws {
        try await Self.expectAttachments(["a1 u=NULL post=p1", "- u=k post=p2"], of: text)
    }

    /// Post 1 takes a1 and lets it go again (`null`, or another attachment) before post 2's
    /// object. One batch wires only a link's latest occurrence, so post 1's earlier claim takes
    /// nothing and a1 stays related to post 2: the object is a1 (Docs/Population.md, "A member a
    /// list takes from another record and a later occurrence drops"); a stream read once that
    /// splits the claim from the letting go is refused, and read again ends as the whole.
    @Test(
        "Taken and let go by another record: the object is the record related there",
        arguments: [
            (
                #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p1", "att": null}, {"id": "p2", "att": {"u": "k"}}]"#,
                ["a1 u=k post=p2"]
            ),
            (
                #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p1", "att": "a3"}, {"id": "p2", "att": {"u": "k"}}]"#,
                ["a1 u=k post=p2", "a3 u=NULL post=p1"]
            ),
        ])
    func takenAndLetGo(text: String, expected: [String]) async throws {
        try await Self.expectAttachments(expected, of: text, mayRefuse: true)
    }

    /// The same through a relationship that is its own inverse: person 1 takes a1 as spouse
    /// from person 2, whose spouse without a key is then a new person, married to person 2.
    @Test("Taken through a one-to-one that is its own inverse: the object is a new record")
    func takenThroughASelfInverse() async throws {
        try await Self.expectAttachments(
            ["p2 u=NULL post=-", "a1 u=NULL post=p1", "p1 u=NULL post=a1", "- u=k post=p2"],
            of: #"[{"id": "p2", "spouse": "a1"}, {"id": "p1", "spouse": "a1"}, {"id": "p2", "spouse": {"u": "k"}}]"#,
            layout: .people)
    }

    // MARK: - Taken through the partner's inverse

    /// a1, named apart from the one-to-one (a post's `files`), gives its own `post`: another post,
    /// or `null`. Either takes it from post 2, whose object is then a new record.
    @Test(
        "Taken through the partner's inverse, named from the other side: the object is a new record",
        arguments: [
            (
                #"[{"id": "p2", "att": "a1"}, {"id": "p9", "files": [{"id": "a1", "post": "p1"}]}, {"id": "p2", "att": {"u": "k"}}]"#,
                ["a1 u=NULL post=p1", "- u=k post=p2"]
            ),
            (
                #"[{"id": "p2", "att": "a1"}, {"id": "p9", "files": [{"id": "a1", "post": null}]}, {"id": "p2", "att": {"u": "k"}}]"#,
                ["a1 u=NULL post=none", "- u=k post=p2"]
            ),
        ])
    func takenThroughTheInverse(text: String, expected: [String]) async throws {
        try await Self.expectAttachments(expected, of: text)
    }

    /// The store relates a1 to post 2; the response names a1 from the other side with another
    /// post, then gives post 2 an object without a key: a new record, whole and streamed.
    @Test("The stored partner taken through its inverse: the object is a new record")
    func storedPartnerTakenThroughTheInverse() async throws {
        try await Self.expectAttachments(
            ["a1 u=NULL post=p1", "- u=k post=p2"],
            of: #"[{"id": "p9", "files": [{"id": "a1", "post": "p1"}]}, {"id": "p2", "att": {"u": "k"}}]"#,
            after: #"[{"id": "p2", "att": {"id": "a1"}}]"#)
    }

    /// A stored a1, related to post 2, that post 1 takes and lets go again before post 2's object:
    /// as above, a1 stays related there.
    @Test("The stored partner taken and let go by another record: the object is the record related there")
    func storedPartnerTakenAndLetGo() async throws {
        try await Self.expectAttachments(
            ["a1 u=k post=p2"],
            of: #"[{"id": "p1", "att": "a1"}, {"id": "p1", "att": null}, {"id": "p2", "att": {"u": "k"}}]"#,
            after: #"[{"id": "p2", "att": {"id": "a1"}}]"#, mayRefuse: true)
    }

    // MARK: - An earlier object without a key, the stored record

    /// Post 2's first object without a key is a1, which the store relates there; post 1 then
    /// takes a1 (by key, or a1 names post 1 from the other side), so post 2's second object is
    /// a new record, and a1 keeps the first one's `u` and goes with post 1.
    @Test(
        "The owner's earlier object without a key, the stored record, taken in between: a new record",
        arguments: [#"{"id": "p1", "att": "a1"}"#, #"{"id": "p9", "files": [{"id": "a1", "post": "p1"}]}"#])
    func earlierKeylessStoredRecordTaken(taking: String) async throws {
        try await Self.expectAttachments(
            ["a1 u=x post=p1", "- u=k post=p2"],
            of: #"[{"id": "p2", "att": {"u": "x"}}, \#(taking), {"id": "p2", "att": {"u": "k"}}]"#,
            after: #"[{"id": "p2", "att": {"id": "a1"}}]"#)
    }

    /// A one-to-one set in between that takes nothing from post 2 (post 1 given a5): both
    /// objects without a key are the one record related there, the stored a1 or a new one.
    @Test(
        "The owner's earlier object without a key, not taken in between: one record",
        arguments: [
            (#"[{"id": "p2", "att": {"id": "a1"}}]"#, ["a1 u=k post=p2", "a5 u=NULL post=p1"]),
            ("[]", ["- u=k post=p2", "a5 u=NULL post=p1"]),
        ])
    func earlierKeylessNotTaken(earlier: String, expected: [String]) async throws {
        try await Self.expectAttachments(
            expected,
            of: #"[{"id": "p2", "att": {"u": "x"}}, {"id": "p1", "att": "a5"}, {"id": "p2", "att": {"u": "k"}}]"#,
            after: earlier)
    }

    // MARK: - The owner taken through the inverse

    /// Another attachment names post 2 from the other side: it takes post 2 from a1, and is the
    /// record related there, which the object updates. Whether post 2 named a1 in the response
    /// or the store related it.
    @Test(
        "The owner taken through the inverse: the object is the record that took it",
        arguments: [
            (
                #"[{"id": "p2", "att": "a1"}, {"id": "p9", "files": [{"id": "a2", "post": "p2"}]}, {"id": "p2", "att": {"u": "k"}}]"#,
                "[]"
            ),
            (
                #"[{"id": "p9", "files": [{"id": "a2", "post": "p2"}]}, {"id": "p2", "att": {"u": "k"}}]"#,
                #"[{"id": "p2", "att": {"id": "a1"}}]"#
            ),
        ])
    func ownerTakenThroughTheInverse(text: String, earlier: String) async throws {
        try await Self.expectAttachments(["a1 u=NULL post=none", "a2 u=k post=p2"], of: text, after: earlier)
    }

    // MARK: - Given back in between

    /// Post 1 takes a1, then post 2 takes it back (by itself, repeated as is or not, or through
    /// a1's `post` named from the other side): a1 is related there again, and the object updates it.
    @Test(
        "Taken, then given back to the owner: the object is the record related there",
        arguments: [
            #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p2", "att": "a1"}, {"id": "p2", "att": {"u": "k"}}]"#,
            #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p2", "att": {"id": "a1"}}, {"id": "p2", "att": {"u": "k"}}]"#,
            #"[{"id": "p2", "att": "a1"}, {"id": "p1", "att": "a1"}, {"id": "p9", "files": [{"id": "a1", "post": "p2"}]}, {"id": "p2", "att": {"u": "k"}}]"#,
        ])
    func givenBack(text: String) async throws {
        try await Self.expectAttachments(["a1 u=k post=p2"], of: text)
    }
}
