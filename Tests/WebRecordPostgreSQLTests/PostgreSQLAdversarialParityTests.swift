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
    static let blog = schema(AdversarialSchemaJSON.blog)

    /// `AdversarialStreamTests.covers`.
    static let covers = schema(AdversarialSchemaJSON.covers)

    /// `AdversarialStreamTests2.shapes`.
    static let shapes = schema(AdversarialSchemaJSON.shapes)

    /// `AdversarialStreamTests3.catalog`.
    static let catalog = schema(AdversarialSchemaJSON.catalog)

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

    /// A value as text whose bytes are its own (`exactText(_:)`).
    static func exact(_ value: DatabaseValue) -> String { exactText(value) }

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
