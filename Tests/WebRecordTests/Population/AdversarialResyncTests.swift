import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial re-syncs (Docs/Population.md): a response populated into a store that already
/// holds it, or that holds another response for the same records, whole and streamed at every
/// batch size. A re-sync of the same response changes nothing and counts every record
/// unchanged; a re-sync of another ends with what it gives, as a store populated with it alone
/// holds; and a record counted updated differs, one counted unchanged does not.
@Suite("Population: adversarial re-sync")
struct AdversarialResyncTests {
    typealias A = AdversarialStreamTests

    static func data(_ elements: [String]) -> String { A.data(elements) }

    /// Whole (nil) and the streamed batch byte limits.
    static let everySize: [Int?] = [nil] + A.batchSizes.map { $0 }

    /// `response` populated into a store that holds it (populated from it, whole), whole and
    /// streamed at every batch size, from a source read again and one read once: no row differs
    /// from what the first population left, byte for byte, and no record is counted inserted,
    /// updated or deleted. Returns the whole outcome.
    @discardableResult
    static func expectIdempotent(
        _ response: String, history: [String] = [], schema: Schema, entity: String,
        options: PopulationOptions = PopulationOptions(), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> A.Outcome {
        // The store holds `history`, then `response`, each populated whole with `options`.
        let prepare: (RecordStore) -> Void = { store in
            for step in history + [response] {
                do {
                    _ = try store.populate(try JSONReader().read(step), entity: entity, options: options)
                } catch {
                    Issue.record("the history must populate: \(error)", sourceLocation: sourceLocation)
                }
            }
        }
        let first = try await A.populate(
            "[]", schema: schema, entity: entity, batchBytes: nil, prepare: prepare)
        var wholeOutcome: A.Outcome?
        for size in everySize {
            for reopens in size == nil ? [true] : [true, false] {
                let again = try await A.populate(
                    response, schema: schema, entity: entity, batchBytes: size, options: options,
                    reopens: reopens, prepare: prepare)
                if size == nil { wholeOutcome = again }
                let label = "\(size.map { "batches of \($0) bytes\(reopens ? "" : ", read once")" } ?? "whole")"
                #expect(again.failure == nil, "\(label): \(again)", sourceLocation: sourceLocation)
                #expect(
                    again.rows == first.rows,
                    "\(label): the re-sync changed rows (+ re-sync, - first):\n\(again.difference(from: first))",
                    sourceLocation: sourceLocation)
                for (name, counts) in again.counts {
                    #expect(
                        counts.inserted == 0 && counts.updated == 0 && counts.deleted == 0,
                        "\(label): \(name) counted \(counts) on a re-sync of the same response",
                        sourceLocation: sourceLocation)
                }
            }
        }
        return try #require(wholeOutcome)
    }

    /// Inserted, updated, unchanged, deleted.
    static func tuple(_ counts: ChangeCounts?) -> [Int] {
        let counts = counts ?? ChangeCounts()
        return [counts.inserted, counts.updated, counts.unchanged, counts.deleted]
    }

    /// The rows `response` leaves in an empty store, whole.
    static func alone(_ response: String, schema: Schema, entity: String) async throws -> A.Outcome {
        try await A.populate(response, schema: schema, entity: entity, batchBytes: nil)
    }

    /// The rows `earlier` leaves, whole.
    static func before(_ earlier: String, schema: Schema, entity: String) async throws -> [String] {
        try await A.populate("[]", after: earlier, schema: schema, entity: entity, batchBytes: nil).rows
    }
}

// MARK: - Idempotence over every shipped adversarial schema

extension AdversarialResyncTests {
    /// Responses over every adversarial schema (keys of every kind, stubs, owner-keyed and
    /// keyless children, ordered, united and join-table lists, self-inverse links, sub-entities,
    /// cascades, defaults). Lists of keyless objects are left out: each such object is a new
    /// record (SchemaFormat.md, "No key"), so they are not idempotent by design.
    static let idempotenceCases: [(String, String, [String])] = [
        (
            "blog", "Post",
            [
                #"{"id": 1, "title": "a", "images": [{"url": "i"}, {"size": {"w": 3}}], "meta": {"summary": "s"}, "text": "t", "extra": {"b": [1, 1.0, 1.50, -0.0, 1E2], "a": "\u00e9"}, "user": {"id": "u1", "name": "Ann", "profile": {"bio": "b"}, "handle": "h", "counts": {"followers": 2}}, "tags": ["z", {"name": "a", "weight": 1}, "m"], "labels": [{"id": 2, "text": "x"}, 1], "cover": {"url": "c", "w": 5}}"#,
                #"{"id": 2, "title": "b", "user": "u2", "tags": ["m", "z"], "labels": [2], "cover": null}"#,
                #"{"id": 3, "user": {"id": "u1", "counts": {"followers": 2}}, "tags": [], "labels": []}"#,
                #"{"id": 2, "title": "b2", "tags": ["a"], "meta": null}"#,
                #"{"id": 4, "title": "d", "user": [{"id": "u5", "name": "five"}, "u6"], "tags": ["c", null, {"weight": 3}], "labels": [3, {"text": "no key"}]}"#,
                #"{"id": 5, "title": "e", "cover": [{"url": "first"}, {"url": "second"}], "images": {"0": {"url": "x"}}}"#,
            ]
        ),
        (
            "catalog", "Item",
            [
                #"{"id": 1, "name": "a", "extra": {"y": [2, {"k": null}], "x": 1}, "profile": {"bio": "b"}, "image": "p", "stats": {"count": 4, "views": 9}, "owner": {"id": "o1", "name": "O", "badge": {"t": "gold"}}, "cover": {"url": "u", "thumb": {"w": 3}}, "tags": ["t1", {"name": "t2", "weight": 2}], "marks": [5, {"id": 6, "text": "six"}], "parts": [{"id": 7, "label": "p7"}, 8]}"#,
                #"{"id": 2, "name": "b", "level": 4, "owner": "o1", "tags": ["t2", "t1"], "marks": [5], "parts": []}"#,
                #"{"id": 3, "name": "c", "n": null, "owner": {"id": "o2"}, "count": 1, "stats": null}"#,
            ]
        ),
        (
            "keys", "Edition",
            [
                #"{"isbn": "x", "printing": 1, "title": "a", "price": "1.50", "at": "2024-01-01T01:00:00+01:00", "ok": "yes", "extra": {"b": 1, "a": 2}, "stamp": {"value": 1, "name": "one"}, "event": {"at": "2024-01-01T00:00:00Z", "name": "e"}, "thing": {"uuid": "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "name": "t", "cost": "2.0"}}"#,
                #"{"isbn": "x", "printing": 2, "title": "b", "price": 1e2, "at": 1704067200.5, "ok": 0, "stamp": -0.0, "event": 1704067200, "thing": "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#,
                #"{"isbn": "y", "printing": "+1", "title": "c", "stamp": {"value": 0.1}, "event": {"at": "2024-01-01T00:00:00.000000001Z"}}"#,
            ]
        ),
        (
            "people", "Person",
            [
                #"{"id": 1, "name": "a", "spouse": 2, "friends": [2, 3], "ranked": [3, 2], "pals": [4, 2]}"#,
                #"{"id": 2, "friends": [1, 4], "ranked": [1], "pals": [1]}"#,
                #"{"id": 3, "spouse": {"id": 4, "name": "d"}, "ranked": [1], "pals": []}"#,
            ]
        ),
        (
            "folders", "Folder",
            [
                #"{"id": 1, "name": "a", "files": [{"id": 10, "size": 1, "locks": [100], "tags": [{"id": 7}]}, 11], "notes": [{"id": 3, "text": "n"}, 4], "owner": {"n": "o"}}"#,
                #"{"id": 2, "name": "b", "files": [], "notes": [4, 3], "owner": null}"#,
            ]
        ),
        (
            "shapes", "Shape",
            [
                #"{"id": 1, "kind": "circle", "radius": 1.5, "style": {"color": "red"}, "frame": {"width": 2}, "label": {"text": "l"}}"#,
                #"{"id": 2, "kind": "square", "side": 2}"#,
                #"{"id": 3, "kind": "circle", "radius": 1, "style": null, "label": null, "frame": null}"#,
            ]
        ),
        (
            "boxes", "Shape",
            [
                #"{"id": 1, "kind": "poly", "sides": 4, "diag": 1.5, "label": "q", "box": {"id": 9}}"#,
                #"{"id": 2, "kind": "circle", "radius": 2, "boxes": [9, {"id": 8}], "box": 8}"#,
                #"{"id": 3, "kind": "poly", "sides": 3, "color": "red"}"#,
                #"{"id": 4, "kind": "hexagon"}"#,
            ]
        ),
    ]

    static func namedSchema(_ name: String) -> Schema {
        switch name {
        case "blog": A.blog
        case "catalog": AdversarialStreamTests3.catalog
        case "keys": AdversarialStreamTests2.keys
        case "people": AdversarialStreamTests2.people
        case "folders": AdversarialStreamTests2.folders
        case "shapes": AdversarialStreamTests2.shapes
        default: AdversarialStreamTests3.shapes
        }
    }

    @Test(
        "A response populated into a store that holds it changes no row and counts nothing changed",
        arguments: idempotenceCases.indices)
    func sameResponseTwice(index: Int) async throws {
        let (name, entity, elements) = Self.idempotenceCases[index]
        let schema = Self.namedSchema(name)
        let text = Self.data(elements)
        let whole = try await Self.expectIdempotent(text, schema: schema, entity: entity)
        #expect(whole.counts.values.reduce(0) { $0 + $1.unchanged } > 0, "\(whole)")
        var options = PopulationOptions()
        options.deleteOrphans = .all
        try await Self.expectIdempotent(text, schema: schema, entity: entity, options: options)
    }
}

// MARK: - Values equal in one sense and not another

extension AdversarialResyncTests {
    /// One attribute of every type, and keys of several types in other entities.
    static let values = A.schema(
        #"""
        {"entities": {
          "Value": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "i": {"type": "integer"}, "d": {"type": "double"},
              "m": {"type": "decimal"}, "t": {"type": "date"}, "b": {"type": "boolean"}, "j": {"type": "json"},
              "s": {"type": "string"}, "u": {"type": "uuid"}, "l": {"type": "url"}, "x": {"type": "data"}}}
        }}
        """#)

    /// How a later value compares with an earlier one of the same attribute.
    enum Relation: String, Sendable { case same, different }

    /// (attribute, earlier value, later value, how they compare as the docs define the type:
    /// SchemaFormat.md, "Attribute types"; Population.md decision 10).
    static let valueCases: [(String, String, String, Relation)] = [
        // integer: numbers that are exactly the integer, and strings of digits.
        ("i", "1", "1.0", .same), ("i", "1", "1e0", .same), ("i", "1", #""1""#, .same), ("i", "1", #""+1""#, .same),
        ("i", "100", "1E2", .same), ("i", "0", "-0", .same), ("i", "0", "-0.0", .same),
        ("i", "9007199254740993", "9007199254740993.0", .same),
        ("i", "9007199254740992", "9007199254740993.0", .different),
        ("i", "9007199254740992", "9.007199254740993e15", .different),
        ("i", "9223372036854775807", "9223372036854775807.0", .same),
        ("i", "9223372036854775806", "9.223372036854775807e18", .different),
        ("i", "-9223372036854775808", #""-9223372036854775808""#, .same),
        ("i", "1234567890123456768", "1.2345678901234568e18", .different),
        // double: the nearest double; a negative zero is stored as 0.
        ("d", "1", "1.0", .same), ("d", "0.1", #""0.1""#, .same), ("d", "0", "-0.0", .same), ("d", "-0.0", "0", .same),
        ("d", "0.1", "0.10000000000000001", .same), ("d", "9007199254740992", "9007199254740993", .same),
        ("d", "1.5", "1.50", .same), ("d", "1e-7", #""1e-7""#, .same), ("d", "1e300", "1E+300", .same),
        ("d", "0.1", "0.1000000000000001", .different),
        // decimal: exact, in canonical form.
        ("m", #""1.5""#, "1.50", .same), ("m", #""1.50""#, #""1.5""#, .same), ("m", "100", "1e2", .same),
        ("m", "100", #""1E+2""#, .same), ("m", #""0""#, #""-0""#, .same), ("m", #""0.0""#, "0", .same),
        ("m", "0.1", #""0.1""#, .same), ("m", #""1.5""#, #""1.6""#, .different),
        ("m", "12345678901234567890123456789012345678", "1.2345678901234567890123456789012345678e37", .same),
        ("m", #""0.10000000000000000000000000000000000001""#, "0.1", .different),
        // date: the instant, to the nanosecond.
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01T00:00:00.000Z""#, .same),
        ("t", #""2024-01-01T00:00:00Z""#, "1704067200", .same),
        ("t", #""2024-01-01T00:00:00Z""#, "1704067200.0", .same),
        ("t", #""2024-01-01T00:00:00Z""#, "1.7040672e9", .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01T01:00:00+01:00""#, .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01""#, .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01 00:00:00""#, .same),
        ("t", #""2024-01-01T00:00:00.1Z""#, "1704067200.1", .same),
        ("t", #""2024-01-01T12:00:00.123456Z""#, "1704110400.123456", .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01T00:00:00.000000001Z""#, .different),
        ("t", "1704067200.000000001", #""2024-01-01T00:00:00.000000001Z""#, .same),
        ("t", "-1.5", #""1969-12-31T23:59:58.5Z""#, .same), ("t", #""0001-01-01T00:00:00Z""#, "-62135596800", .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2024-01-01T00:00:00+00:00""#, .same),
        ("t", #""2024-01-01T00:00:00Z""#, #""2023-12-31T19:00:00-0500""#, .same),
        ("m", #""1e-3""#, "0.001", .same), ("m", #""-0.0""#, "0", .same), ("m", "1.5", #""+1.5""#, .same),
        ("m", "0.1", "0.1000000000000000055511151231257827", .different),
        ("b", "true", #""1""#, .same), ("b", "false", #""0""#, .same),
        // boolean: true, 1 in any form, and the words.
        ("b", "true", "1", .same), ("b", "true", "1.0", .same), ("b", "true", "1e0", .same),
        ("b", "true", #""YES""#, .same),
        ("b", "false", "0", .same), ("b", "false", #""no""#, .same), ("b", "true", "false", .different),
        // json: canonical, an object's key order is no change; numbers keep their digits.
        ("j", #"{"a": 1, "b": 2}"#, #"{"b": 2, "a": 1}"#, .same),
        ("j", #"{"a": {"y": 1, "x": [{"q": 1, "p": 2}]}}"#, #"{"a": {"x": [{"p": 2, "q": 1}], "y": 1}}"#, .same),
        ("j", #""\u00e9""#, #""é""#, .same), ("j", #""a\/b""#, #""a/b""#, .same),
        ("j", #"{"\u00e9": 1, "e": 2}"#, #"{"e": 2, "é": 1}"#, .same),
        ("j", "1", "1.0", .different), ("j", "[1, 2]", "[2, 1]", .different), ("j", "0", "-0.0", .different),
        ("j", #"{"a": null}"#, "{}", .different), ("j", "100", "1e2", .different),
        // string: bytes as written; numbers as their JSON text.
        ("s", #""a""#, #""a ""#, .different), ("s", #""caf\u00e9""#, #""cafe\u0301""#, .different),
        ("s", "1", #""1""#, .same), ("s", #""1""#, "1.0", .different), ("s", "true", #""true""#, .same),
        ("s", #""a\u0000b""#, #""a""#, .different), ("s", #""a\u0000b""#, #""a\u0000c""#, .different),
        ("s", "1E2", #""1E2""#, .same), ("s", "-0", #""-0""#, .same), ("s", "1.50", #""1.50""#, .same),
        ("s", "-0.0", #""-0.0""#, .same), ("s", "12345678901234567890123", #""12345678901234567890123""#, .same),
        ("j", "12345678901234567890123", "12345678901234567890123", .same), ("j", "[1.0e+2]", "[1.0e+2]", .same),
        ("j", #"{"a": 1, "a": 2}"#, #"{"a": 2}"#, .same),
        // uuid: upper-case canonical form; url as given; data as its bytes.
        ("u", #""6ba7b810-9dad-11d1-80b4-00c04fd430c8""#, #""6BA7B810-9DAD-11D1-80B4-00C04FD430C8""#, .same),
        ("l", #""https://example.com/a""#, #""HTTPS://example.com/a""#, .different),
        ("x", #""AQI=""#, #""AQI=""#, .same), ("x", #""AQI=""#, #""AQM=""#, .different),
    ]

    /// The bytes of `Value.x` (hex) after `text` is populated whole into a store holding `earlier`.
    static func blobHex(_ text: String, after earlier: String) async throws -> [String] {
        var kept: RecordStore?
        _ = try await A.populate(
            text, after: earlier, schema: Self.values, entity: "Value", batchBytes: nil, prepare: { kept = $0 })
        let store = try #require(kept)
        return try await store.read { connection in
            try connection.rows(#"SELECT hex("x") FROM "Value" ORDER BY "_id""#).map {
                "\($0.first.map { "\($0)" } ?? "nil")"
            }
        }
    }

    /// For each value case: the later response into a store holding the earlier one ends with
    /// the rows the later one leaves alone (the same `_id`), whole and at every batch size, and
    /// counts the record unchanged exactly when the stored row did not change.
    @Test(
        "A value given again in another form is unchanged when it is the same value and updated when not",
        arguments: valueCases.indices)
    func valueGivenAgainInAnotherForm(index: Int) async throws {
        let (attribute, first, second, relation) = Self.valueCases[index]
        let earlier = Self.data([#"{"id": 1, "\#(attribute)": \#(first)}"#])
        let text = Self.data([#"{"id": 1, "\#(attribute)": \#(second)}"#])
        let label = "\(attribute): \(first) then \(second)"
        let resynced = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.values, entity: "Value")
        let alone = try await Self.alone(text, schema: Self.values, entity: "Value")
        let before = try await Self.before(earlier, schema: Self.values, entity: "Value")
        #expect(resynced.failure == nil, "\(label): \(resynced)")
        #expect(resynced.rows == alone.rows, "\(label): (+ re-sync, - alone)\n\(resynced.difference(from: alone))")
        var changed = resynced.rows != before
        if attribute == "x" {
            // Rows show a blob as its length only: compare its bytes.
            let bytes = try await Self.blobHex(text, after: earlier)
            let bytesBefore = try await Self.blobHex("[]", after: earlier)
            let bytesAlone = try await Self.blobHex(text, after: "[]")
            #expect(bytes == bytesAlone, "\(label): \(bytes) / alone \(bytesAlone)")
            changed = changed || bytes != bytesBefore
        }
        let counts = resynced.counts["Value"] ?? ChangeCounts()
        #expect(
            counts.updated == (changed ? 1 : 0) && counts.unchanged == (changed ? 0 : 1) && counts.inserted == 0,
            "\(label): counted \(counts), the row \(changed ? "changed" : "did not change"):\n\(resynced)")
        #expect(
            changed == (relation == .different),
            "\(label): documented \(relation.rawValue), stored \(changed ? "differently" : "the same"):\n\(before)\n\(resynced)"
        )
        // Each value populated twice is the same value.
        try await Self.expectIdempotent(text, schema: Self.values, entity: "Value")
    }
}

// MARK: - Keys given again in another form

extension AdversarialResyncTests {
    static let keyed = A.schema(
        #"""
        {"entities": {
          "IKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "integer"}, "v": {"type": "string"}}},
          "DKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "double"}, "v": {"type": "string"}}},
          "MKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "decimal"}, "v": {"type": "string"}}},
          "TKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "date"}, "v": {"type": "string"}}},
          "SKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "string"}, "v": {"type": "string"}}},
          "UKey": {"primaryKey": "k", "keyPathForResponseObject": "data", "attributes": {"k": {"type": "uuid"}, "v": {"type": "string"}}},
          "CKey": {"primaryKey": ["a", "b"], "keyPathForResponseObject": "data",
            "attributes": {"a": {"type": "string"}, "b": {"type": "double"}, "v": {"type": "string"}}}
        }}
        """#)

    /// (entity, earlier key, later key, whether they name one record: SchemaFormat.md, "Primary
    /// keys": normalized to the type, then compared exactly).
    static let keyCases: [(String, String, String, Relation)] = [
        ("IKey", "-9223372036854775808", #""-9223372036854775808""#, .same),
        ("IKey", "9223372036854775807", "9223372036854775807.0", .same),
        ("IKey", "-9223372036854775808", "-9223372036854775808", .same),
        ("IKey", "0", "-0", .same), ("IKey", "1", "1e0", .same), ("IKey", "1", #""01""#, .same),
        ("DKey", "0", "-0.0", .same), ("DKey", "-0.0", "0", .same), ("DKey", "1", "1.0", .same),
        ("DKey", "0.1", #""0.1""#, .same), ("DKey", "1e300", "1E300", .same), ("DKey", "0.1", "0.2", .different),
        ("MKey", #""1.50""#, "1.5", .same), ("MKey", "100", "1e2", .same), ("MKey", #""0""#, #""-0""#, .same),
        ("MKey", "12345678901234567890123456789012345678", "1.2345678901234567890123456789012345678e37", .same),
        ("TKey", #""2024-01-01T00:00:00Z""#, "1704067200", .same),
        ("TKey", #""2024-01-01T00:00:00Z""#, #""2024-01-01T01:00:00+01:00""#, .same),
        ("TKey", #""2024-01-01T00:00:00Z""#, #""2024-01-01T00:00:00.000000001Z""#, .different),
        ("SKey", #""a\u0000b""#, #""a\u0000b""#, .same), ("SKey", #""a\u0000b""#, #""a\u0000c""#, .different),
        ("SKey", #""a\u0000b""#, #""a""#, .different),
        ("SKey", #""caf\u00e9""#, #""cafe\u0301""#, .different), ("SKey", #""a""#, #""a ""#, .different),
        ("SKey", #""a""#, #""A""#, .different), ("SKey", "1", #""1""#, .same), ("SKey", "1.0", #""1.0""#, .same),
        ("SKey", "18446744073709551615", #""18446744073709551615""#, .same),
        ("SKey", #""1""#, #""1.0""#, .different),
        ("UKey", #""6ba7b810-9dad-11d1-80b4-00c04fd430c8""#, #""6BA7B810-9DAD-11D1-80B4-00C04FD430C8""#, .same),
    ]

    @Test(
        "A key given again in another form names the same record exactly when the docs say so",
        arguments: keyCases.indices)
    func keyGivenAgainInAnotherForm(index: Int) async throws {
        let (entity, first, second, relation) = Self.keyCases[index]
        let earlier = Self.data([#"{"k": \#(first), "v": "x"}"#])
        let text = Self.data([#"{"k": \#(second), "v": "x"}"#])
        let label = "\(entity): \(first) then \(second)"
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: Self.keyed, entity: entity)
        #expect(resynced.failure == nil, "\(label): \(resynced)")
        let counts = resynced.counts[entity] ?? ChangeCounts()
        let rows = resynced.rows.filter { $0.hasPrefix("\(entity):") }
        switch relation {
        case .same:
            #expect(
                rows.count == 1 && counts.unchanged == 1 && counts.inserted == 0,
                "\(label): \(counts)\n\(resynced)")
        case .different:
            #expect(rows.count == 2 && counts.inserted == 1, "\(label): \(counts)\n\(resynced)")
        }
        try await Self.expectIdempotent(text, schema: Self.keyed, entity: entity)
        // A composite key whose double part is given in the other form.
        if entity == "DKey" {
            let compositeEarlier = Self.data([#"{"a": "p", "b": \#(first), "v": "x"}"#])
            let composite = Self.data([#"{"a": "p", "b": \#(second), "v": "x"}"#])
            let outcome = try await A.expectSameAtEveryBatchSize(
                composite, after: compositeEarlier, schema: Self.keyed, entity: "CKey")
            #expect(
                outcome.rows.filter { $0.hasPrefix("CKey:") }.count == (relation == .same ? 1 : 2),
                "\(label), composite:\n\(outcome)")
            try await Self.expectIdempotent(composite, schema: Self.keyed, entity: "CKey")
        }
    }
}

// MARK: - Convergence: another response for the same records

extension AdversarialResyncTests {
    /// Every row `alone` holds is in `resynced`, byte for byte: the responses are written so
    /// that the records the later one names are first named in the same order by the earlier
    /// one, so their `_id`s agree.
    static func expectContains(
        _ resynced: A.Outcome, _ alone: A.Outcome, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let missing = alone.rows.filter { !resynced.rows.contains($0) }
        #expect(
            missing.isEmpty,
            "\(label): rows the later response alone leaves that the re-sync does not:\n\(missing.joined(separator: "\n"))\nre-sync:\n\(resynced)",
            sourceLocation: sourceLocation)
    }

    @Test("A response for the same posts with other values, nulls, lists and children ends with what it gives")
    func postsConvergeToTheLaterResponse() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "old", "images": [{"url": "o"}, {"size": {"w": 1}}], "meta": {"summary": "os"}, "text": "ot", "extra": {"a": 1}, "user": {"id": "u1", "name": "Old", "profile": {"bio": "ob"}, "handle": "oh", "counts": {"followers": 1}}, "tags": [{"name": "a", "weight": 1}, {"name": "b", "weight": 2}], "labels": [{"id": 1, "text": "l1"}], "cover": {"url": "oc", "w": 1}}"#,
            #"{"id": 2, "title": "old2", "images": [{"url": "o2"}, {"size": {"w": 8}}], "meta": {"summary": "s"}, "text": "t", "extra": [1], "user": {"id": "u2", "name": "U2"}, "tags": ["c"], "cover": {"url": "c2"}}"#,
        ])
        let text = Self.data([
            #"{"id": 1, "title": "new", "images": [{"url": "n"}, {"size": {"w": 2}}], "meta": {"summary": null}, "text": null, "extra": {"b": 2}, "user": {"id": "u1", "name": "New", "profile": {"bio": null}, "handle": "nh", "counts": {"followers": 5}}, "tags": [{"name": "a", "weight": 3}, {"name": "b", "weight": 4}], "labels": [{"id": 1, "text": "l1b"}], "cover": {"url": "nc", "w": 2}}"#,
            #"{"id": 2, "title": "new2", "images": [{"url": "n2"}, {"size": {"w": 9}}], "meta": null, "text": "t2", "extra": null, "user": null, "tags": [], "labels": [], "cover": null}"#,
        ])
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: A.blog, entity: "Post")
        let alone = try await Self.alone(text, schema: A.blog, entity: "Post")
        Self.expectContains(resynced, alone, "posts")
        // Post 2's tag c is dropped (replace); its cover and user stay, unlinked.
        #expect(
            resynced.rows.filter { $0.hasPrefix("_Post_tags:") } == alone.rows.filter { $0.hasPrefix("_Post_tags:") },
            "\(resynced)")
        let expected: [String: (Int, Int, Int, Int)] = [
            "Post": (0, 2, 0, 0), "User": (0, 1, 0, 0), "Counts": (0, 1, 0, 0), "Tag": (0, 2, 0, 0),
            "Label": (0, 1, 0, 0), "Cover": (0, 1, 0, 0),
        ]
        for (entity, (inserted, updated, unchanged, deleted)) in expected {
            let counts = resynced.counts[entity] ?? ChangeCounts()
            #expect(
                counts.inserted == inserted && counts.updated == updated && counts.unchanged == unchanged
                    && counts.deleted == deleted,
                "\(entity): \(counts)\n\(resynced)")
        }
        try await Self.expectIdempotent(text, history: [earlier], schema: A.blog, entity: "Post")
    }

    @Test("Stubs a first response made are completed by a second, as the second alone stores them")
    func stubsCompletedOnResync() async throws {
        let schema = AdversarialStreamTests3.catalog
        let earlier = Self.data([#"{"id": 1, "name": "a", "owner": "o1", "tags": ["t1"], "marks": [5], "parts": [7]}"#])
        let text = Self.data([
            #"{"id": 1, "name": "a", "owner": {"id": "o1", "name": "O"}, "tags": [{"name": "t1", "weight": 2}], "marks": [{"id": 5}], "parts": [{"id": 7, "label": "p"}]}"#
        ])
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: schema, entity: "Item")
        let alone = try await Self.alone(text, schema: schema, entity: "Item")
        #expect(resynced.rows == alone.rows, "(+ re-sync, - alone)\n\(resynced.difference(from: alone))")
        for entity in ["Owner", "Tag", "Part"] {
            #expect(resynced.counts[entity]?.updated == 1, "\(entity): \(resynced)")
        }
        #expect(resynced.counts["Item"]?.unchanged == 1, "\(resynced)")
        try await Self.expectIdempotent(text, history: [earlier], schema: schema, entity: "Item")
    }
}

// MARK: - Sub-entities, nulls, empty lists and orphans on re-sync

extension AdversarialResyncTests {
    @Test(
        "A record that switches sub-entity on re-sync ends as the new sub-entity alone, its owner-keyed label deleted")
    func subentitySwitchOnResync() async throws {
        let schema = AdversarialStreamTests2.shapes
        let circle = Self.data([
            #"{"id": 1, "kind": "circle", "radius": 2, "style": {"color": "red"}, "frame": {"width": 1}, "label": {"text": "l"}}"#
        ])
        let square = Self.data([#"{"id": 1, "kind": "square", "side": 3}"#])
        let toSquare = try await A.expectSameAtEveryBatchSize(square, after: circle, schema: schema, entity: "Shape")
        let squareAlone = try await Self.alone(square, schema: schema, entity: "Shape")
        #expect(
            toSquare.rows.filter { $0.hasPrefix("Shape:") } == squareAlone.rows.filter { $0.hasPrefix("Shape:") },
            "\(toSquare.difference(from: squareAlone))")
        #expect(!toSquare.rows.contains { $0.hasPrefix("Label:") }, "\(toSquare)")
        #expect(toSquare.counts["Square"]?.updated == 1 && toSquare.counts["Label"]?.deleted == 1, "\(toSquare)")
        try await Self.expectIdempotent(square, history: [circle], schema: schema, entity: "Shape")
        // And back: nothing of the square remains, nothing of the first circle reappears.
        let back = Self.data([#"{"id": 1, "kind": "circle", "radius": 4}"#])
        let toCircle = try await A.expectSameAtEveryBatchSize(back, after: square, schema: schema, entity: "Shape")
        let circleAlone = try await Self.alone(back, schema: schema, entity: "Shape")
        #expect(
            toCircle.rows.filter { $0.hasPrefix("Shape:") } == circleAlone.rows.filter { $0.hasPrefix("Shape:") },
            "\(toCircle.difference(from: circleAlone))")
        try await Self.expectIdempotent(back, history: [circle, square], schema: schema, entity: "Shape")
    }

    @Test("A to-one cleared with null on re-sync: the link is gone, an owner-keyed child deleted, counts exact")
    func toOneClearedOnResync() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "p", "user": {"id": "u1", "name": "A", "counts": {"followers": 3}}, "cover": {"url": "c"}}"#
        ])
        let text = Self.data([#"{"id": 1, "title": "p", "user": null, "cover": null}"#])
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: A.blog, entity: "Post")
        let alone = try await Self.alone(text, schema: A.blog, entity: "Post")
        Self.expectContains(resynced, alone, "post")
        #expect(resynced.rows.contains { $0.hasPrefix("Cover:") && $0.hasSuffix("NULL") }, "\(resynced)")
        #expect(resynced.counts["Post"]?.updated == 1, "\(resynced)")
        try await Self.expectIdempotent(text, history: [earlier], schema: A.blog, entity: "Post")
        // The user's counts cleared with null: deleted (an owner-keyed record goes with its link).
        let user = Self.data([#"{"id": 1, "title": "p", "user": {"id": "u1", "name": "A", "counts": null}}"#])
        let cleared = try await A.expectSameAtEveryBatchSize(user, after: earlier, schema: A.blog, entity: "Post")
        #expect(!cleared.rows.contains { $0.hasPrefix("Counts:") }, "\(cleared)")
        #expect(
            cleared.counts["Counts"]?.deleted == 1 && cleared.counts["User"]?.updated == 1
                && cleared.counts["Post"]?.unchanged == 1,
            "\(cleared)")
        try await Self.expectIdempotent(user, history: [earlier], schema: A.blog, entity: "Post")
    }

    @Test("To-many lists emptied on re-sync: replaced ones empty (cascading), united ones keep every member")
    func toManyEmptiedOnResync() async throws {
        let schema = AdversarialStreamTests2.folders
        let earlier = Self.data([
            #"{"id": 1, "name": "a", "files": [{"id": 10, "size": 1}, 11], "notes": [{"id": 3, "text": "n"}, 4], "owner": {"n": "o"}}"#
        ])
        for empty in ["[]", "null"] {
            let text = Self.data([#"{"id": 1, "name": "a", "files": \#(empty), "notes": \#(empty), "owner": null}"#])
            let resynced = try await A.expectSameAtEveryBatchSize(
                text, after: earlier, schema: schema, entity: "Folder")
            let alone = try await Self.alone(text, schema: schema, entity: "Folder")
            #expect(resynced.rows == alone.rows, "\(empty): (+ re-sync, - alone)\n\(resynced.difference(from: alone))")
            #expect(
                resynced.counts["Folder"]?.updated == 1 && resynced.counts["File"]?.deleted == 2
                    && resynced.counts["Note"]?.deleted == 2 && resynced.counts["Owner"]?.deleted == 1,
                "\(empty): \(resynced)")
            try await Self.expectIdempotent(text, history: [earlier], schema: schema, entity: "Folder")
        }
        // Under union, [] and null remove nothing: the post is unchanged.
        let posts = Self.data([#"{"id": 1, "title": "p", "labels": [1, 2]}"#])
        for empty in ["[]", "null"] {
            let text = Self.data([#"{"id": 1, "title": "p", "labels": \#(empty)}"#])
            let resynced = try await A.expectSameAtEveryBatchSize(text, after: posts, schema: A.blog, entity: "Post")
            let before = try await Self.before(posts, schema: A.blog, entity: "Post")
            #expect(resynced.rows == before && resynced.counts["Post"]?.unchanged == 1, "\(empty): \(resynced)")
        }
    }

    @Test("Orphans deleted on re-sync are counted deleted once, and a second re-sync deletes nothing")
    func orphansOnResync() async throws {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let earlier = Self.data([
            #"{"id": 1, "title": "a", "user": {"id": "u1", "counts": {"followers": 1}}}"#,
            #"{"id": 2, "title": "b", "cover": {"url": "c"}}"#, #"{"id": 3, "title": "c", "tags": ["t"]}"#,
        ])
        let text = Self.data([#"{"id": 1, "title": "a"}"#, #"{"id": 3, "title": "c"}"#])
        let resynced = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: A.blog, entity: "Post", options: options)
        #expect(!resynced.rows.contains { $0.hasPrefix("Post: 2 ") }, "\(resynced)")
        #expect(
            resynced.counts["Post"]?.deleted == 1 && resynced.counts["Post"]?.unchanged == 2
                && resynced.counts["Post"]?.updated == 0,
            "\(resynced)")
        try await Self.expectIdempotent(text, history: [earlier], schema: A.blog, entity: "Post", options: options)
        // Named only by key (a reference), a stored post is contained, not an orphan.
        let byKey = #"{"data": [1, 3]}"#
        let referenced = try await A.expectSameAtEveryBatchSize(
            byKey, after: earlier, schema: A.blog, entity: "Post", options: options)
        #expect(referenced.rows.filter { $0.hasPrefix("Post:") }.count == 2, "\(referenced)")
        #expect(referenced.counts["Post"]?.inserted == 0 && referenced.counts["Post"]?.updated == 0, "\(referenced)")
    }
}

// MARK: - Order

extension AdversarialResyncTests {
    @Test("An unordered list given in another order is unchanged; an ordered one is updated, then settles")
    func listOrderOnResync() async throws {
        let catalog = AdversarialStreamTests3.catalog
        let earlier = Self.data([#"{"id": 1, "name": "a", "tags": ["t1", "t2"], "parts": [7, 8], "marks": [5, 6]}"#])
        let text = Self.data([#"{"id": 1, "name": "a", "tags": ["t2", "t1"], "parts": [8, 7], "marks": [6, 5]}"#])
        let unordered = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: catalog, entity: "Item")
        let before = try await Self.before(earlier, schema: catalog, entity: "Item")
        #expect(
            unordered.rows == before,
            "\(unordered.difference(from: A.Outcome(rows: before, counts: [:], recordIDs: [], failure: nil)))")
        #expect(unordered.counts["Item"]?.unchanged == 1, "\(unordered)")
        // Ordered, replaced: the positions follow the later response.
        let posts = Self.data([#"{"id": 1, "title": "p", "tags": ["a", "b", "c"]}"#])
        let reordered = Self.data([#"{"id": 1, "title": "p", "tags": ["c", "a", "b"]}"#])
        let ordered = try await A.expectSameAtEveryBatchSize(reordered, after: posts, schema: A.blog, entity: "Post")
        #expect(ordered.counts["Post"]?.updated == 1, "\(ordered)")
        try await Self.expectIdempotent(reordered, history: [posts], schema: A.blog, entity: "Post")
        // Ordered, united: a subset moves first, the rest keep their order after it; again, nothing moves.
        var options = PopulationOptions()
        options.mergePolicies = ["Post.tags": .union]
        let subset = Self.data([#"{"id": 1, "title": "p", "tags": ["c"]}"#])
        let united = try await A.expectSameAtEveryBatchSize(
            subset, after: posts, schema: A.blog, entity: "Post", options: options)
        #expect(united.counts["Post"]?.updated == 1, "\(united)")
        try await Self.expectIdempotent(subset, history: [posts], schema: A.blog, entity: "Post", options: options)
        try await Self.expectIdempotent(
            Self.data([#"{"id": 1, "title": "p", "tags": []}"#]), history: [posts, subset], schema: A.blog,
            entity: "Post", options: options)
    }
}

// MARK: - A re-sync of the same response changes no row and counts no change

extension AdversarialResyncTests {
    /// Items and tags in a many-to-many (a join table, `replace` on both sides), and parts in a
    /// one-to-many, for comparison.
    static let joins = A.schema(AdversarialSchemaJSON.joins)

    /// Decision 11: "Each relationship pair is stored once, so inverses cannot disagree", and a
    /// re-sync of a response already stored changes nothing. Item 1 lists tag 7; tag 7, nested
    /// in that list, lists no item (or another one). Populated again into the store it left
    /// (and a third time), the response changes no row and counts nothing inserted, updated or
    /// deleted; so does the one-to-many analog (`parts`, whose member names another item). It
    /// used to delete on the re-sync the join row the first population wrote, and then to count
    /// both owners `updated` on every re-sync (each owner's own list operation was compared, not
    /// the join rows as they end).
    @Test(
        "A many-to-many whose nested member gives the inverse list is idempotent on re-sync",
        arguments: [
            [#"{"id": 1, "tags": [{"id": 7, "items": []}]}"#],
            [#"{"id": 1, "tags": [{"id": 7, "items": [2]}]}"#],
            [#"{"id": 1, "tags": [7]}"#, #"{"id": 2, "tags": [{"id": 7, "items": [3]}]}"#],
            [#"{"id": 1, "parts": [{"id": 7, "item": 2}]}"#],
            [#"{"id": 1, "parts": [7]}"#, #"{"id": 2, "parts": [{"id": 7, "item": 1}]}"#],
            [#"{"id": 1, "parts": [{"id": 7, "item": null}]}"#],
        ])
    func manyToManyNestedInverseListIsIdempotent(elements: [String]) async throws {
        let text = Self.data(elements)
        try await Self.expectIdempotent(text, schema: Self.joins, entity: "Item")
        // A third time, into the store the second left.
        try await Self.expectIdempotent(text, history: [text], schema: Self.joins, entity: "Item")
    }

    /// Docs/Population.md, "Unchanged rows": a named record counts as updated when "its row
    /// changed or its to-many membership changed"; unchanged rows count as `unchanged`. A
    /// self-inverse link a later record undoes (`friends`, replace: person 1 lists 2, then person
    /// 2 lists only 3, so 1 and 2 end unlinked), populated again into the store that holds
    /// exactly that, changes no row and counts the three persons `unchanged`. The same for a
    /// list merged by union (`pals`), an ordered one (`ranked`) and the one-to-one `spouse`. Such
    /// a record used to be counted `updated` on every re-sync, as it gained and lost the link
    /// within the population.
    @Test(
        "A self-inverse list that a later record undoes counts nothing updated when the store holds the result",
        arguments: [
            [#"{"id": 1, "friends": [2]}"#, #"{"id": 2, "friends": [3]}"#],
            [#"{"id": 1, "friends": [2, 3]}"#, #"{"id": 3, "friends": []}"#],
            [#"{"id": 1, "ranked": [3, 2]}"#, #"{"id": 2, "ranked": [1]}"#, #"{"id": 3, "ranked": []}"#],
            [#"{"id": 1, "spouse": 2}"#, #"{"id": 2, "spouse": 3}"#],
            [#"{"id": 1, "pals": [2]}"#, #"{"id": 2, "pals": [3]}"#, #"{"id": 3, "name": "c"}"#],
        ])
    func selfInverseListUndoneIsUnchangedOnResync(elements: [String]) async throws {
        let text = Self.data(elements)
        let whole = try await Self.expectIdempotent(text, schema: AdversarialStreamTests2.people, entity: "Person")
        #expect(whole.counts["Person"]?.unchanged == 3, "\(whole)")
    }
}

extension AdversarialResyncTests {
    /// A many-to-many (a join table) whose nested member lists its owner back, as a server
    /// that embeds both sides of a link sends it: item 1's tags are `[7]`, tag 7's items `[1]`.
    /// Both lists agree, and the pair "is stored once, so inverses cannot disagree" (decision
    /// 11; SchemaFormat.md, "Inverses"): the population stores at most one join row, whole and
    /// streamed, and a re-sync changes nothing; so with `blog`'s `Post.labels` and the
    /// one-to-many analog (`parts`). It used to fail, first import and re-sync alike, with
    /// SQLite's `UNIQUE constraint failed: _Item_tags.owner, _Item_tags.target`: the link was
    /// inserted once from each side.
    @Test(
        "A many-to-many whose nested member lists its owner back populates, once, and re-syncs unchanged",
        arguments: [
            ("joins", "Item", #"{"id": 1, "tags": [{"id": 7, "items": [1]}]}"#),
            ("joins", "Item", #"{"id": 1, "tags": [{"id": 7, "items": [{"id": 1}]}]}"#),
            ("blog", "Post", #"{"id": 1, "labels": [{"id": 5, "posts": [1]}]}"#),
            ("joins", "Item", #"{"id": 1, "parts": [{"id": 7, "item": 1}]}"#),
        ])
    func manyToManyListingItsOwnerBack(schema name: String, entity: String, element: String) async throws {
        let schema = name == "joins" ? Self.joins : Self.namedSchema(name)
        let text = Self.data([element])
        let whole = try await A.expectSameAtEveryBatchSize(text, schema: schema, entity: entity)
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows.filter { $0.hasPrefix("_") }.count <= 1, "\(whole)")
        if whole.failure == nil {
            try await Self.expectIdempotent(text, schema: schema, entity: entity)
        }
    }
}

extension AdversarialResyncTests {
    /// A member named by key that moves from one owner to another (its row changes) counts as
    /// updated, the owner that gains it too; the owner it left, which the response does not
    /// name, is not counted (Docs/Population.md, "Unchanged rows").
    @Test("A member that moves to another owner on re-sync is counted updated, with the owner that gains it")
    func memberMovingToAnotherOwnerCounts() async throws {
        let earlier = Self.data([#"{"id": 1, "parts": [7, 8]}"#, #"{"id": 2, "parts": []}"#])
        let text = Self.data([#"{"id": 2, "parts": [8]}"#])
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: Self.joins, entity: "Item")
        #expect(resynced.rows.contains("Part: 2 | 'Part' | 8 | 2"), "\(resynced)")
        #expect(resynced.rows.contains("Part: 1 | 'Part' | 7 | 1"), "\(resynced)")
        #expect(
            Self.tuple(resynced.counts["Part"]) == [0, 1, 0, 0] && Self.tuple(resynced.counts["Item"]) == [0, 1, 0, 0],
            "\(resynced)")
        try await Self.expectIdempotent(text, history: [earlier], schema: Self.joins, entity: "Item")
    }
}

// MARK: - More shapes of response, each populated twice

extension AdversarialResyncTests {
    /// Venues whose one `PhotoGroup` is identified by the venue and nested in its to-many
    /// (Foursquare's `photoGroups`, decision 4).
    static let venues = A.schema(
        #"""
        {"entities": {
          "Venue": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {"photoGroups": {"destination": "PhotoGroup", "toMany": true, "inverse": "venue"}}},
          "PhotoGroup": {"primaryKey": "venue", "attributes": {"name": {"type": "string"}, "count": {"type": "integer"}},
            "relationships": {"venue": {"destination": "Venue", "inverse": "photoGroups"}}}
        }}
        """#)

    static let moreIdempotenceCases: [(String, String, String)] = [
        (
            "compound", "Article",
            #"{"data": [{"id": "1", "title": "a", "author": {"id": 9}}, {"id": "2", "author": {"id": "9"}}], "included": [{"type": "articles", "id": "3", "title": "t3"}, {"type": "people", "id": "9", "name": "N", "articles": ["3", "1", "2"]}]}"#
        ),
        (
            "venues", "Venue",
            #"{"data": [{"id": 1, "name": "v", "photoGroups": [{"name": "a", "count": 1}, {"name": "b"}]}, {"id": 2, "photoGroups": []}, {"id": 3, "photoGroups": [{"count": 4}]}]}"#
        ),
        (
            "blog", "Post",
            #"{"data": [{"id": 1, "title": "a", "user": {"id": "u1", "name": "A", "counts": {"followers": 1}}}, {"id": 2, "user": "u1"}, {"id": 1, "user": {"id": "u1"}}, 3, "4"]}"#
        ),
    ]

    @Test(
        "Compound responses, owner-keyed lists and references by key populated twice change nothing",
        arguments: moreIdempotenceCases.indices)
    func moreShapesTwice(index: Int) async throws {
        let (name, entity, text) = Self.moreIdempotenceCases[index]
        let schema =
            switch name {
            case "compound": AdversarialStreamTests3.compound
            case "venues": Self.venues
            default: A.blog
            }
        try await Self.expectIdempotent(text, schema: schema, entity: entity)
        var options = PopulationOptions()
        options.deleteOrphans = .all
        try await Self.expectIdempotent(text, schema: schema, entity: entity, options: options)
    }

    /// A record given in full by one response, then named only by key (or by an object with
    /// only its key) by the next, keeps every value: a reference changes nothing.
    @Test("A stored record named only by key on re-sync keeps its values and counts unchanged")
    func referenceByKeyChangesNothing() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "a", "user": {"id": "u1", "name": "A", "profile": {"bio": "b"}, "counts": {"followers": 1}}, "tags": [{"name": "t", "weight": 2}]}"#
        ])
        let text = Self.data([
            #"{"id": 2, "title": "b", "user": "u1", "tags": ["t"]}"#, #"{"id": 1, "user": {"id": "u1"}}"#,
        ])
        let resynced = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: A.blog, entity: "Post")
        let before = try await Self.before(earlier, schema: A.blog, entity: "Post")
        for prefix in ["User:", "Counts:", "Tag:", "Post: 1 "] {
            #expect(
                resynced.rows.filter { $0.hasPrefix(prefix) } == before.filter { $0.hasPrefix(prefix) },
                "\(prefix)\n\(resynced.difference(from: A.Outcome(rows: before, counts: [:], recordIDs: [], failure: nil)))"
            )
        }
        #expect(Self.tuple(resynced.counts["User"]) == [0, 0, 1, 0], "\(resynced)")
        #expect(Self.tuple(resynced.counts["Post"]) == [1, 0, 1, 0], "\(resynced)")
        // Orphan deletion scoped by a predicate: only the matching records not named go.
        var options = PopulationOptions()
        options.deleteOrphans = .matching(#""title" = ?"#, ["a"])
        let scoped = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "title": "b"}"#]), after: earlier, schema: A.blog, entity: "Post", options: options)
        #expect(!scoped.rows.contains { $0.hasPrefix("Post: 1 ") } && scoped.counts["Post"]?.deleted == 1, "\(scoped)")
        try await Self.expectIdempotent(
            Self.data([#"{"id": 2, "title": "b"}"#]), history: [earlier], schema: A.blog, entity: "Post",
            options: options)
    }
}

extension AdversarialResyncTests {
    /// A tree: `children` (replace) and its inverse `parent`, a foreign key in the child's row.
    static let nodes = A.schema(
        #"""
        {"entities": {
          "Node": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {"children": {"destination": "Node", "toMany": true, "inverse": "parent"},
              "parent": {"destination": "Node", "inverse": "children"}}}
        }}
        """#)

    /// Node 1 gives its children (`[]`, or `[2]`) and node 3 names node 1 as its parent. Records
    /// are applied in order, the link named last winning (Docs/Population.md, decision 7: "the
    /// claim named last wins"; a streamed response applies its batches in turn, "as consecutive
    /// responses would be"). So node 3 ends with parent 1 when its own link comes last, and
    /// with none when node 1's list comes last, whatever the store held, and a re-sync changes
    /// no row and counts no change. A replaced list used to remove only the members the store
    /// held before the population, whatever their order: node 3 kept parent 1 in both orders
    /// into an empty store, and lost it in both on the re-sync (counted `unchanged`).
    @Test(
        "A member's own link to its owner and the owner's replaced list end in response order, on first import and re-sync",
        arguments: [
            (#"{"data": [{"id": 1, "children": []}, {"id": 3, "parent": 1}]}"#, true),
            (#"{"data": [{"id": 1, "children": [2]}, {"id": 3, "parent": 1}]}"#, true),
            (#"{"data": [{"id": 3, "parent": 1}, {"id": 1, "children": []}]}"#, false),
        ])
    func ownerListAndMemberLinkInResponseOrder(text: String, linked: Bool) async throws {
        let first = try await A.expectSameAtEveryBatchSize(text, schema: Self.nodes, entity: "Node")
        let again = try await A.expectSameAtEveryBatchSize(text, after: text, schema: Self.nodes, entity: "Node")
        for (label, outcome) in [("first import", first), ("re-sync", again)] {
            // Node 3's row; node 1's _id is the one whose key is 1.
            let one = try #require(outcome.rows.first { $0.hasPrefix("Node: ") && $0.contains("'Node' | 1 |") })
            let oneID = String(one.dropFirst("Node: ".count).prefix { $0 != " " })
            let three = try #require(outcome.rows.first { $0.contains("'Node' | 3 |") })
            #expect(
                three.hasSuffix(linked ? "| \(oneID)" : "| NULL"),
                "\(label): node 3 should \(linked ? "have parent 1" : "have no parent"):\n\(outcome)")
        }
        #expect(again.rows == first.rows, "re-sync (+) / first (-):\n\(again.difference(from: first))")
        for (name, counts) in again.counts {
            #expect(counts.inserted == 0 && counts.updated == 0 && counts.deleted == 0, "\(name): \(counts)")
        }
    }
}

extension AdversarialResyncTests {
    /// The tree's case in a JSON:API compound response: article 2 names author 9, and the
    /// included person 9 lists no article (`replace`). Populated again into the store it left,
    /// the response changes no row and counts no change. It used to link article 2 to person 9
    /// in an empty store and unlink it on the re-sync, counting article 2 `unchanged` although
    /// its row changed (and person 9 `updated`).
    @Test("A compound response whose included owner's list omits a member that names it is idempotent")
    func compoundOwnerListOmittingAMember() async throws {
        let text =
            #"{"data": [{"id": "2", "author": {"id": 9}}], "included": [{"type": "people", "id": "9", "articles": []}]}"#
        try await Self.expectIdempotent(text, schema: AdversarialStreamTests3.compound, entity: "Article")
    }
}
