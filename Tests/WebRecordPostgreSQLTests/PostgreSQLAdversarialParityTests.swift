import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A few of the most intricate adversarial inputs (`AdversarialStreamTests`, `…2`, `…3` of the
/// WebRecordTests target, whose schemas and responses are copied here) populated into a
/// PostgreSQL store and a SQLite one, whole and streamed at several batch sizes: both must end
/// with the same rows (text compared byte for byte, `_id`s included, ranked as
/// ``PostgreSQLStores/content(of:rows:)`` does) and report the same change counts.
@Suite(.serialized) struct PostgreSQLAdversarialParityTests {
    /// The batch byte limits every response is streamed at.
    static let batchSizes = [1, 64, 300, 1 << 22]

    static func data(_ elements: [String]) -> String {
        #"{"data": [\#(elements.joined(separator: ",\n"))]}"#
    }

    static func schema(_ json: String) -> Schema {
        do {
            return try Schema(json: json, fileName: "AdversarialParity.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }

    /// `AdversarialStreamTests.blog`.
    static let blog = schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
              "firstImage": {"type": "string", "key": "images.0.url"},
              "secondWidth": {"type": "integer", "key": "images.1.size.w"},
              "summary": {"type": "string", "key": "meta.summary"},
              "text": {"type": "string"},
              "extra": {"type": "json"}},
            "relationships": {"user": {"destination": "User", "inverse": "posts"},
              "tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts"},
              "labels": {"destination": "Label", "toMany": true, "inverse": "posts", "merge": "union"},
              "cover": {"destination": "Cover", "inverse": "post"}}},
          "User": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string"},
              "bio": {"type": "string", "key": "profile.bio"}, "user": {"type": "string", "key": "handle"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "user", "merge": "union"},
              "counts": {"destination": "Counts", "inverse": "user"}}},
          "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
            "relationships": {"user": {"destination": "User", "inverse": "counts"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "weight": {"type": "integer"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "tags", "merge": "union"}}},
          "Label": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "labels", "merge": "union"}}},
          "Cover": {"attributes": {"url": {"type": "string"}, "w": {"type": "integer"}},
            "relationships": {"post": {"destination": "Post", "inverse": "cover"}}}
        }}
        """#)

    /// `AdversarialStreamTests.covers`.
    static let covers = schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"cover": {"destination": "Image"},
              "banner": {"destination": "Banner", "inverse": "post"}}},
          "Image": {"attributes": {"url": {"type": "string"}}},
          "Banner": {"attributes": {"url": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "banner"}}}
        }}
        """#)

    /// `AdversarialStreamTests2.shapes`.
    static let shapes = schema(
        #"""
        {"entities": {
          "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data", "abstract": true,
            "subentities": {"key": "kind", "map": {"circle": "Circle", "square": "Square"}},
            "attributes": {"id": {"type": "integer"}, "kind": {"type": "string"}}},
          "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double"}},
            "relationships": {"style": {"destination": "Style", "inverse": "circle"},
              "frame": {"destination": "Frame"},
              "label": {"destination": "Label", "inverse": "circle"},
              "dots": {"destination": "Dot", "toMany": true, "inverse": "circle"}}},
          "Square": {"parent": "Shape", "attributes": {"side": {"type": "double"}}},
          "Style": {"attributes": {"color": {"type": "string"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "style"}}},
          "Frame": {"attributes": {"width": {"type": "integer"}}},
          "Label": {"primaryKey": "circle", "attributes": {"text": {"type": "string"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "label"}}},
          "Dot": {"attributes": {"x": {"type": "integer"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "dots"}}}
        }}
        """#)

    /// `AdversarialStreamTests3.catalog`.
    static let catalog = schema(
        #"""
        {"entities": {
          "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false},
              "n": {"type": "integer", "default": 3}, "level": {"type": "integer", "optional": false, "default": 1},
              "extra": {"type": "json"}, "bio": {"type": "string", "key": "profile.bio"},
              "pic": {"type": "string", "key": ["images.0", "image"]},
              "count": {"type": "integer", "key": ["stats.count", "count"]}},
            "relationships": {"owner": {"destination": "Owner", "inverse": "items"},
              "cover": {"destination": "Cover", "inverse": "item"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "items"},
              "marks": {"destination": "Mark", "toMany": true, "inverse": "item", "merge": "union"},
              "parts": {"destination": "Part", "toMany": true, "inverse": "item"},
              "stats": {"destination": "Stats", "inverse": "item"}}},
          "Owner": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "owner", "merge": "union"},
              "badge": {"destination": "Badge", "inverse": "owner"}}},
          "Badge": {"attributes": {"t": {"type": "string"}},
            "relationships": {"owner": {"destination": "Owner", "inverse": "badge"}}},
          "Cover": {"attributes": {"url": {"type": "string"}, "alt": {"type": "string", "default": "d"}},
            "relationships": {"item": {"destination": "Item", "inverse": "cover"},
              "thumb": {"destination": "Thumb", "inverse": "cover"}}},
          "Thumb": {"attributes": {"w": {"type": "integer"}},
            "relationships": {"cover": {"destination": "Cover", "inverse": "thumb"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "weight": {"type": "integer"}},
            "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "tags", "merge": "union"}}},
          "Mark": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string", "default": "m"}},
            "relationships": {"item": {"destination": "Item", "inverse": "marks"}}},
          "Part": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "label": {"type": "string"}},
            "relationships": {"item": {"destination": "Item", "inverse": "parts"}}},
          "Stats": {"primaryKey": "item", "attributes": {"views": {"type": "integer"}, "kind": {"type": "string", "default": "k"}},
            "relationships": {"item": {"destination": "Item", "inverse": "stats"}}}
        }}
        """#)

    // MARK: - Support

    /// What a population leaves: every row, as exact text, and the counts or the failure.
    struct Outcome: Equatable, CustomStringConvertible {
        var rows: [String]
        var counts: [String: ChangeCounts]
        var failure: String?

        var description: String {
            (failure.map { "failure: \($0)\n" } ?? "") + "counts: \(counts)\n" + rows.joined(separator: "\n")
        }

        /// What differs from `other` (SQLite's): `+` only here (PostgreSQL), `-` only there.
        func difference(from other: Outcome) -> String {
            var lines: [String] = []
            if failure != other.failure {
                lines.append("failure: \(failure ?? "none") / SQLite: \(other.failure ?? "none")")
            }
            for entity in Set(counts.keys).union(other.counts.keys).sorted()
            where counts[entity] != other.counts[entity] {
                lines.append(
                    "counts of \(entity): \(String(describing: counts[entity])) / SQLite: \(String(describing: other.counts[entity]))"
                )
            }
            lines += rows.filter { !other.rows.contains($0) }.map { "+ \($0)" }
            lines += other.rows.filter { !rows.contains($0) }.map { "- \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    /// A value as text whose bytes are its own: non-ASCII scalars escaped, so that canonically
    /// equivalent strings (equal as Swift strings) differ here as they do in the store.
    static func exact(_ value: DatabaseValue) -> String {
        guard case .text(let text) = value else { return value.description }
        var escaped = "'"
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                escaped.unicodeScalars.append(scalar)
            } else {
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return escaped + "'"
    }

    static func lines(_ content: [String: [[DatabaseValue]]]) -> [String] {
        content.keys.sorted().flatMap { table in
            (content[table] ?? []).map { "\(table): " + $0.map(exact).joined(separator: " | ") }
        }
    }

    /// `text` populated into `store` (holding `earlier`, populated whole first): whole
    /// (`batchBytes` nil) or streamed.
    static func populate(
        _ store: some RecordStorage, _ text: String, earlier: String?, entity: String, batchBytes: Int?
    ) async throws -> (counts: [String: ChangeCounts], failure: String?) {
        if let earlier {
            _ = try await ResponsePopulation(store: store).populate(try JSONReader().read(earlier), entity: entity)
        }
        do {
            let result: PopulationResult
            if let batchBytes {
                let data = Data(text.utf8)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                }
                result = try await ResponsePopulation(store: store).populate(streaming: open, entity: entity)
            } else {
                result = try await ResponsePopulation(store: store).populate(
                    try JSONReader().read(text), entity: entity)
            }
            return (result.changesByEntity, nil)
        } catch {
            return ([:], error.message)
        }
    }

    /// `text` populated into a new PostgreSQL store and a new SQLite one (each holding `earlier`),
    /// whole and streamed at every batch size: both must end the same.
    static func expectParity(
        _ text: String, after earlier: String? = nil, schema: Schema, entity: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for batchBytes in [nil] + batchSizes.map(Optional.some) {
            let how = batchBytes.map { "streamed in batches of \($0) bytes" } ?? "whole"
            let sqlite = try PostgreSQLStores.sqlite(schema)
            let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
            let expected = try await populate(sqlite, text, earlier: earlier, entity: entity, batchBytes: batchBytes)
            let result = try await populate(postgreSQL, text, earlier: earlier, entity: entity, batchBytes: batchBytes)
            let sqliteOutcome = Outcome(
                rows: lines(try PostgreSQLStores.content(of: sqlite)), counts: expected.counts,
                failure: expected.failure)
            let outcome = Outcome(
                rows: lines(try PostgreSQLStores.content(of: postgreSQL)), counts: result.counts,
                failure: result.failure)
            #expect(
                outcome == sqliteOutcome,
                "\(how) (+ PostgreSQL, - SQLite):\n\(outcome.difference(from: sqliteOutcome))\nSQLite:\n\(sqliteOutcome)",
                sourceLocation: sourceLocation)
            #expect(!sqliteOutcome.rows.isEmpty, "\(how): no rows", sourceLocation: sourceLocation)
            #expect(
                expected.failure == nil, "\(how): SQLite failed: \(expected.failure ?? "")",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: - The inputs

    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test("Canonically equivalent strings: the later bytes, as on SQLite")
    func canonicallyEquivalentStrings() async throws {
        try await Self.expectParity(
            Self.data([
                #"{"id": 1, "title": "caf\#(Self.composed)"}"#, #"{"id": 1, "title": "caf\#(Self.decomposed)"}"#,
            ]),
            schema: Self.blog, entity: "Post")
        try await Self.expectParity(
            Self.data([
                #"{"id": 1, "title": "a", "user": {"id": "u1", "name": "Jos\#(Self.composed)", "profile": {"bio": "x"}}}"#,
                #"{"id": 2, "title": "b", "user": {"id": "u1", "name": "Jos\#(Self.composed)", "profile": {"bio": "x"}}}"#,
                #"{"id": 3, "title": "c", "user": {"id": "u1", "name": "Jos\#(Self.decomposed)", "profile": {"bio": "x"}}}"#,
            ]), schema: Self.blog, entity: "Post")
        try await Self.expectParity(
            Self.data([#"{"id": 1, "title": "caf\#(Self.decomposed)"}"#]),
            after: Self.data([#"{"id": 1, "title": "caf\#(Self.composed)"}"#]), schema: Self.blog, entity: "Post")
    }

    @Test("An array-indexed key path a later occurrence's shorter array leaves absent, as on SQLite")
    func shorterArrayInALaterOccurrence() async throws {
        try await Self.expectParity(
            Self.data([#"{"id": 1, "images": [{"url": "a"}]}"#, #"{"id": 1, "images": []}"#]),
            schema: Self.blog, entity: "Post")
    }

    @Test("An owner-keyed child cleared, then given again, as on SQLite")
    func ownerKeyedChildClearedThenGivenAgain() async throws {
        let user = #"{"id": "u1", "name": "A", "counts": {"followers": 1}}"#
        try await Self.expectParity(
            Self.data([
                #"{"id": 1, "user": \#(user)}"#, #"{"id": 2, "user": {"id": "u1", "counts": null}}"#,
                #"{"id": 3, "user": \#(user)}"#,
            ]), schema: Self.blog, entity: "Post")
        try await Self.expectParity(
            Self.data([
                #"{"id": 2, "user": {"id": "u1", "counts": null}}"#,
                #"{"id": 3, "user": {"id": "u1", "name": "B", "counts": {"followers": 1}}}"#,
            ]), after: Self.data([#"{"id": 1, "user": \#(user)}"#]), schema: Self.blog, entity: "Post")
    }

    @Test("A keyless to-one unlinked by a later occurrence, as on SQLite", arguments: ["cover", "banner"])
    func keylessToOneUnlinkedLater(relationship: String) async throws {
        let cases = [
            [#"{"id": 2, "R": {"url": "c1"}}"#, #"{"id": 2, "R": null}"#],
            [#"{"id": 2, "R": {"url": "c1"}}"#, #"{"id": 2, "R": null}"#, #"{"id": 2, "R": {"url": "c2"}}"#],
            [#"{"id": 2, "R": {"url": "c1"}}"#, #"{"id": 3, "title": "x"}"#, #"{"id": 2, "R": {"url": "c2"}}"#],
        ]
        func named(_ element: String) -> String {
            element.replacingOccurrences(of: "\"R\"", with: "\"\(relationship)\"")
        }
        for elements in cases {
            let text = Self.data(elements.map(named))
            try await Self.expectParity(text, schema: Self.covers, entity: "Post")
            try await Self.expectParity(
                text, after: Self.data([named(#"{"id": 2, "R": {"url": "old"}}"#)]), schema: Self.covers, entity: "Post"
            )
        }
        // The blog's keyless cover (an inverse, in the cover's row).
        try await Self.expectParity(
            Self.data([#"{"id": 2, "cover": {"url": "c1"}}"#, #"{"id": 2, "cover": null}"#]),
            schema: Self.blog, entity: "Post")
    }

    @Test("An owner-keyed child whose owner switches to a sub-entity without it, as on SQLite")
    func ownerKeyedChildOfARecordSwitchedAway() async throws {
        let text = Self.data([
            #"{"id": 1, "kind": "circle", "label": {"text": "red"}}"#, #"{"id": 1, "kind": "square"}"#,
        ])
        let earlier = Self.data([#"{"id": 1, "kind": "circle", "label": {"text": "red"}}"#])
        try await Self.expectParity(text, schema: Self.shapes, entity: "Shape")
        try await Self.expectParity(text, after: earlier, schema: Self.shapes, entity: "Shape")
        let back = Self.data([
            #"{"id": 1, "kind": "circle", "label": {"text": "red"}}"#, #"{"id": 1, "kind": "square"}"#,
            #"{"id": 1, "kind": "circle"}"#,
        ])
        try await Self.expectParity(back, after: earlier, schema: Self.shapes, entity: "Shape")
    }

    @Test("A new record whose attribute with a default gets a refused value, as on SQLite")
    func refusedValueOfANewRecordWithADefault() async throws {
        let cases = [
            [#"{"id": 1, "name": "a", "n": "bad"}"#],
            [#"{"id": 1, "name": "a"}"#, #"{"id": 1, "n": "bad"}"#],
            [#"{"id": 1, "name": "a", "level": null}"#, #"{"id": 2, "name": "b"}"#],
            [#"{"id": 1, "name": "a", "level": "x"}"#, #"{"id": 2, "name": "b"}"#],
        ]
        for elements in cases {
            try await Self.expectParity(Self.data(elements), schema: Self.catalog, entity: "Item")
        }
    }
}
