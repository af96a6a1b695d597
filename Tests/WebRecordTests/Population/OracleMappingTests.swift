import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// The mapping from a response's dictionaries to rows, over re-syncs, checked against a reference
/// model written from the documents (Docs/SchemaFormat.md, "Attributes", "Attribute types",
/// "Key paths and candidate keys", "Primary keys", "Choosing a sub-entity"; Docs/Population.md,
/// decisions 3, 5, 7, 9, 10 and 13, "Defaults", "Incomplete new records", "A sub-entity change"
/// and "Large responses: streamed population"; Docs/StorageLayout.md, "Attribute columns").
///
/// Seeded random sequences of 3 to 6 responses go into two store files: one populated with each
/// response whole, one with each response streamed in tiny batches from a source that cannot be
/// read again. After each response both stores must hold, row by row (`_id` included), what the
/// model says, with its counts and its records, or both must refuse it and keep what they held.
///
/// The schema has no relationships: the records are `Item`s, `Article`s (`words`, default 100)
/// and `Video`s (`rate`), chosen by `kind`, keyed by an integer read from `meta.id`, `ident` or
/// `id`, with a name at `user.profile.name`, a non-optional boolean `flag` at `state.on` or
/// `flag`, an integer `count` at `stats.count` or `count` that defaults to 7, a decimal `price`
/// and a date `when` at `at` or `when` (with one date pattern).
///
/// The model covers: a key path's intermediate objects absent, `null` or not objects (a `null`
/// anywhere on the path reads as `null`, a scalar as absent); candidate key paths, the first
/// present winning even when `null`; keys in other JSON forms (`"3"`, `"+3"`, `3.0`, `"03"`) and
/// refused keys; records repeated within a response (later valid values win, refused values and
/// a `null` for a non-optional attribute never replace a valid one); a new record without a valid
/// `flag` dropped, and completed by a later occurrence; defaults for new records only (not for a
/// stored record that becomes an `Article`); the discriminator changing between and within
/// responses (the other sub-entity's attributes cleared on a switch, a `null` or missing
/// discriminator keeping the stored sub-entity, an unmapped value making the record an `Item`);
/// value edge cases of every type used; `_id`s given in the order the response first names new
/// records, one taken by a new record dropped as incomplete; and a response none of whose records
/// is stored refused as a whole.
///
/// Left out, where the documents leave the outcome open: a key path component that meets an
/// array (only digits index one, and what a non-digit component reads there is not said); a
/// decimal's canonical text for trailing or leading zeros; a `string` given a number in exponent
/// form; a scalar at the top level (a reference by key, covered by `OracleStubTests`); and the
/// debugger's warnings.
@Suite("Population: mapping and values across re-syncs against a reference model")
struct OracleMappingTests {
    // MARK: - The schema

    static let schemaJSON = #"""
        {"version": 1, "dateFormats": ["dd/MM/yyyy HH:mm"], "entities": {
          "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "subentities": {"key": "kind", "map": {"article": "Article", "video": "Video", "1": "Video"}},
            "attributes": {
              "id": {"type": "integer", "key": ["meta.id", "ident"]},
              "name": {"type": "string", "key": "user.profile.name"},
              "flag": {"type": "boolean", "key": "state.on", "optional": false},
              "count": {"type": "integer", "key": "stats.count", "default": 7},
              "price": {"type": "decimal"},
              "when": {"type": "date", "key": "at"}}},
          "Article": {"parent": "Item", "attributes": {"words": {"type": "integer", "default": 100}}},
          "Video": {"parent": "Item", "attributes": {"rate": {"type": "double"}}}
        }}
        """#

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "OracleMapping.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// Each attribute's candidate key paths, in the documented order (`key` entries, then the
    /// name), and the entities that store it.
    static let candidates: [(name: String, paths: [String], entities: Set<String>)] = [
        ("name", ["user.profile.name", "name"], ["Item", "Article", "Video"]),
        ("flag", ["state.on", "flag"], ["Item", "Article", "Video"]),
        ("count", ["stats.count", "count"], ["Item", "Article", "Video"]),
        ("price", ["price"], ["Item", "Article", "Video"]),
        ("when", ["at", "when"], ["Item", "Article", "Video"]),
        ("words", ["words"], ["Article"]),
        ("rate", ["rate"], ["Video"]),
    ]

    static let optional: Set<String> = ["name", "count", "price", "when", "words", "rate"]
    static let defaults: [String: [String: Value]] = [
        "Item": ["count": .int(7)], "Video": ["count": .int(7)],
        "Article": ["count": .int(7), "words": .int(100)],
    ]
    static let entities = ["Article", "Item", "Video"]

    // MARK: - Responses, as values

    /// A stored value, as the model and the store's columns give it.
    ///
    /// Text compares byte for byte, not as Swift's `String` does (canonical equivalence):
    /// Docs/Population.md, decision 7, "Values compare byte for byte: a later `"cafe\u0301"`
    /// replaces an earlier `"café"`", so a stored record given its name decomposed after it was
    /// stored composed counts as `updated`.
    enum Value: Hashable, CustomStringConvertible {
        case int(Int64)
        case text(String)
        case real(Double)

        static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.int(let left), .int(let right)): return left == right
            case (.text(let left), .text(let right)): return left.utf8.elementsEqual(right.utf8)
            case (.real(let left), .real(let right)): return left == right
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .int(let number): hasher.combine(number)
            case .text(let text): hasher.combine(Array(text.utf8))
            case .real(let number): hasher.combine(number)
            }
        }

        var description: String {
            switch self {
            case .int(let number): return String(number)
            case .text(let text):
                return "'"
                    + text.unicodeScalars.map { $0.isASCII ? String($0) : "U+\(String($0.value, radix: 16))" }.joined()
                    + "'"
            // `-0.0` and `0.0` are told apart.
            case .real(let number): return "real \(number.sign == .minus ? "-" : "")\(number.magnitude)"
            }
        }
    }

    /// A JSON value of a response: what an attribute reads (its text, and what it stores, `nil`
    /// when the attribute refuses it), `null`, an object, or another value, which a key path
    /// does not read through.
    indirect enum Node: Equatable {
        case leaf(String, Value?)
        case null
        case other(String)
        case object([Member])
    }

    struct Member: Equatable {
        var key: String
        var node: Node
    }

    /// One dictionary of the list at `data`.
    typealias Occurrence = [Member]

    struct Sync: Equatable {
        var occurrences: [Occurrence]
        /// The batch size streamed, in bytes.
        var batchBytes: Int
    }

    // MARK: - JSON text

    static func json(_ node: Node) -> String {
        switch node {
        case .leaf(let text, _), .other(let text): return text
        case .null: return "null"
        case .object(let members): return json(members)
        }
    }

    static func json(_ members: [Member]) -> String {
        "{" + members.map { "\"\($0.key)\": \(json($0.node))" }.joined(separator: ", ") + "}"
    }

    static func json(_ sync: Sync) -> String {
        #"{"data": ["# + sync.occurrences.map { json($0) }.joined(separator: ",\n") + "]}"
    }

    // MARK: - Reading key paths, as the documents say

    enum Read: Equatable {
        case absent
        case null
        /// A value, `nil` when refused.
        case value(Value?)
    }

    /// The value at `path` (SchemaFormat.md, "Key paths and candidate keys"): a `null` met
    /// anywhere reads as `null`; a missing key, or a value that is neither an object nor `null`
    /// before the end, reads as absent.
    static func read(_ path: ArraySlice<Substring>, in node: Node) -> Read {
        guard let first = path.first else {
            switch node {
            case .null: return .null
            case .leaf(_, let value): return .value(value)
            case .other, .object: return .absent
            }
        }
        switch node {
        case .null: return .null
        case .leaf, .other: return .absent
        case .object(let members):
            guard let member = members.first(where: { $0.key == first }) else { return .absent }
            return read(path.dropFirst(), in: member.node)
        }
    }

    /// The first candidate present wins, even when it is `null`.
    static func read(_ paths: [String], in occurrence: Occurrence) -> Read {
        for path in paths {
            let found = read(ArraySlice(path.split(separator: ".")), in: .object(occurrence))
            if found != .absent { return found }
        }
        return .absent
    }

    static func key(of occurrence: Occurrence) -> Int64? {
        if case .value(.int(let key)?) = read(["meta.id", "ident", "id"], in: occurrence) { return key }
        return nil
    }

    /// The entity a discriminator states, or `nil` when it is missing or `null`.
    static func statedEntity(of occurrence: Occurrence) -> String? {
        if case .value(.text(let entity)?) = read(["kind"], in: occurrence) { return entity }
        return nil
    }

    // MARK: - The reference model

    struct Row: Equatable {
        var rowID: Int64
        var entity: String
        var values: [String: Value] = [:]
    }

    struct Model: Equatable {
        var rows: [Int64: Row] = [:]

        var text: [String] {
            rows.map { key, row in
                let values = OracleMappingTests.candidates.map {
                    "\($0.name)=\(row.values[$0.name].map(\.description) ?? "NULL")"
                }
                return "_id \(row.rowID) \(row.entity) \(key): " + values.joined(separator: " ")
            }.sorted()
        }
    }

    struct Expected: Equatable {
        var counts: [String: ChangeCounts] = [:]
        var recordIDs: [Int64] = []
        /// What the response exercised.
        var dropped = 0
        var unidentified = 0
        var completedLater = 0
        var switched = 0
        var defaulted = 0
        var refused = 0
    }

    /// `sync` applied to `model` as the documents say, or `nil` when the response must fail.
    static func apply(_ sync: Sync, to model: Model) -> (Model, Expected)? {
        var expected = Expected()
        var order: [Int64] = []
        var groups: [Int64: [Occurrence]] = [:]
        for occurrence in sync.occurrences {
            guard let key = key(of: occurrence) else {
                expected.unidentified += 1
                continue
            }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(occurrence)
        }
        var next = model
        var nextID = (model.rows.values.map(\.rowID).max() ?? 0) + 1
        for key in order {
            let occurrences = groups[key] ?? []
            // Decision 7: each attribute's later valid value wins; a refused value, or a `null`
            // for a non-optional attribute, never replaces one.
            var merged: [String: Value?] = [:]
            var validSoFar: [Bool] = []
            for occurrence in occurrences {
                for attribute in candidates {
                    switch read(attribute.paths, in: occurrence) {
                    case .absent, .value(nil): break
                    case .null: if optional.contains(attribute.name) { merged[attribute.name] = .some(nil) }
                    case .value(let value?): merged[attribute.name] = .some(value)
                    }
                }
                validSoFar.append((merged["flag"] ?? nil) != nil)
            }
            let stated = occurrences.compactMap(statedEntity(of:)).last
            if var row = model.rows[key] {
                let entity = stated ?? row.entity
                if entity != row.entity {
                    expected.switched += 1
                    // Attributes the old sub-entity had and the new one lacks are cleared.
                    for attribute in candidates where !attribute.entities.contains(entity) {
                        row.values[attribute.name] = nil
                    }
                    row.entity = entity
                }
                for attribute in candidates where attribute.entities.contains(entity) {
                    if let value = merged[attribute.name] { row.values[attribute.name] = value }
                }
                if row == model.rows[key] {
                    expected.counts[entity, default: ChangeCounts()].unchanged += 1
                } else {
                    expected.counts[entity, default: ChangeCounts()].updated += 1
                }
                next.rows[key] = row
                expected.recordIDs.append(row.rowID)
            } else {
                let entity = stated ?? "Item"
                let rowID = nextID
                nextID += 1
                guard (merged["flag"] ?? nil) != nil else {
                    expected.dropped += 1
                    continue
                }
                if validSoFar.first == false { expected.completedLater += 1 }
                var row = Row(rowID: rowID, entity: entity)
                for attribute in candidates where attribute.entities.contains(entity) {
                    if let value = merged[attribute.name] {
                        row.values[attribute.name] = value
                    } else if let value = defaults[entity]?[attribute.name] {
                        row.values[attribute.name] = value
                        expected.defaulted += 1
                    }
                }
                next.rows[key] = row
                expected.counts[entity, default: ChangeCounts()].inserted += 1
                expected.recordIDs.append(rowID)
            }
        }
        // Decision 5: a response none of whose records is stored fails.
        if !sync.occurrences.isEmpty && expected.recordIDs.isEmpty { return nil }
        return (next, expected)
    }

    /// The store, read as the model writes it.
    static func model(of store: RecordStore) throws -> Model {
        try store.read { connection in
            var model = Model()
            let names = candidates.map { "\"\($0.name)\"" }.joined(separator: ", ")
            for row in try connection.rows(#"SELECT "_id", "_entity", "id", \#(names) FROM "Item""#) {
                guard case .integer(let rowID) = row[0], case .text(let entity) = row[1],
                    case .integer(let key) = row[2]
                else {
                    model.rows[-1 - Int64(model.rows.count)] = Row(rowID: -1, entity: "\(row)")
                    continue
                }
                var stored = Row(rowID: rowID, entity: entity)
                for (index, attribute) in candidates.enumerated() {
                    switch row[3 + index] {
                    case .null: break
                    case .integer(let number): stored.values[attribute.name] = .int(number)
                    case .real(let number): stored.values[attribute.name] = .real(number)
                    case .text(let text): stored.values[attribute.name] = .text(text)
                    case .blob(let data): stored.values[attribute.name] = .text("blob \(data)")
                    }
                }
                model.rows[key] = stored
            }
            return model
        }
    }

    // MARK: - Populating

    struct Outcome: Equatable {
        var rows: [String]
        var counts: [String: ChangeCounts]
        var recordIDs: [Int64]
        var failure: String?
    }

    static func populate(_ sync: Sync, into store: RecordStore, streamed: Bool) async throws -> Outcome {
        let text = json(sync)
        let result: PopulationResult
        do {
            if streamed {
                let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
                result = try await population.populate(
                    streaming: readingOnce(Data(text.utf8), batchByteLimit: sync.batchBytes), entity: "Item",
                    reopens: false)
            } else {
                result = try await store.populate(try JSONReader().read(text), entity: "Item")
            }
        } catch let error as WebRecordError {
            return Outcome(rows: try dumpContent(store), counts: [:], recordIDs: [], failure: error.message)
        }
        return Outcome(
            rows: try dumpContent(store), counts: result.changesByEntity.filter { $0.value != ChangeCounts() },
            recordIDs: result.records.map(\.rowID), failure: nil)
    }

    struct Mismatch {
        var text: String
    }

    /// The first difference between the stores and the model over `syncs`, or `nil`.
    static func firstMismatch(_ syncs: [Sync], tally: inout Expected) async throws -> Mismatch? {
        let directory = try TemporaryDirectory()
        let whole = try RecordStore(path: directory.path("whole.sqlite"), schema: schema)
        let streamed = try RecordStore(path: directory.path("streamed.sqlite"), schema: schema)
        var model = Model()
        for (index, sync) in syncs.enumerated() {
            let wanted = apply(sync, to: model)
            let before = try dumpContent(whole)
            let got = try await populate(sync, into: whole, streamed: false)
            let gotStreamed = try await populate(sync, into: streamed, streamed: true)
            var problems: [String] = []
            if gotStreamed != got {
                problems.append("  streamed in batches of \(sync.batchBytes) bytes, read once:\n\(gotStreamed)")
                problems.append("  whole:\n\(got)")
            }
            if let (next, expected) = wanted {
                if let failure = got.failure { problems.append("  failed: \(failure)") }
                model = next
                let stored = try Self.model(of: whole).text
                let wantedRows = model.text
                problems += stored.filter { !wantedRows.contains($0) }.map { "  store holds: \($0)" }
                problems += wantedRows.filter { !stored.contains($0) }.map { "  model holds: \($0)" }
                if got.failure == nil {
                    if got.counts != expected.counts {
                        problems.append("  counts: \(got.counts.sorted { $0.key < $1.key })")
                        problems.append("  model:  \(expected.counts.sorted { $0.key < $1.key })")
                    }
                    if got.recordIDs != expected.recordIDs {
                        problems.append("  records \(got.recordIDs), model \(expected.recordIDs)")
                    }
                }
                tally.dropped += expected.dropped
                tally.unidentified += expected.unidentified
                tally.completedLater += expected.completedLater
                tally.switched += expected.switched
                tally.defaulted += expected.defaulted
            } else {
                tally.refused += 1
                if got.failure == nil { problems.append("  succeeded; the documents say it fails") }
                if got.rows != before { problems.append("  a refused response wrote something") }
            }
            if !problems.isEmpty {
                let history = syncs[...index].map { "(\($0.batchBytes) bytes) " + json($0) }
                let text =
                    "after response \(index + 1) of\n" + history.joined(separator: "\n") + "\n"
                    + problems.joined(separator: "\n")
                return Mismatch(text: text)
            }
        }
        return nil
    }

    // MARK: - Generating sequences

    struct Generator {
        var random: SeededRandom

        init(seed: UInt64) { random = SeededRandom(seed: seed) }

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        /// Leaves each attribute reads: the JSON text and what it stores, `nil` when refused.
        static let pools: [String: [(String, Value?)]] = [
            "name": [
                (#""a""#, .text("a")), (#""b""#, .text("b")), (#""""#, .text("")),
                (#""é""#, .text("\u{E9}")), (#""e\u0301""#, .text("e\u{301}")),
                (#""\ud83d\ude00""#, .text("\u{1F600}")), (#""😀""#, .text("\u{1F600}")),
                (#""tab\there \"q\"""#, .text("tab\there \"q\"")), ("12", .text("12")), ("1.5", .text("1.5")),
                ("1.0", .text("1.0")), ("18446744073709551615", .text("18446744073709551615")),
                ("0.30000000000000004", .text("0.30000000000000004")), ("true", .text("true")),
            ],
            "flag": [
                ("true", .int(1)), ("false", .int(0)), ("0", .int(0)), ("1", .int(1)), ("1.0", .int(1)),
                ("1e0", .int(1)), (#""TRUE""#, .int(1)), (#""yes""#, .int(1)), (#""No""#, .int(0)),
                (#""0""#, .int(0)), (#""1""#, .int(1)), ("2", nil), (#""y""#, nil), (#""""#, nil), ("0.5", nil),
            ],
            "count": [
                ("12", .int(12)), (#""12""#, .int(12)), (#""-3""#, .int(-3)), (#""+5""#, .int(5)), ("3.0", .int(3)),
                ("1e3", .int(1000)), ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
                (#""9223372036854775807""#, .int(.max)), ("9223372036854775808", nil),
                (#""-9223372036854775809""#, nil), ("1.5", nil), (#""1.0""#, nil), ("true", nil),
                (#""12abc""#, nil), (#""+-5""#, nil), (#""""#, nil),
            ],
            "price": [
                (#""0.1""#, .text("0.1")), ("0.1", .text("0.1")),
                ("0.12345678901234567890123", .text("0.12345678901234567890123")),
                (
                    #""12345678901234567890.123456789012345678""#,
                    .text("12345678901234567890.123456789012345678")
                ),
                ("-7.25", .text("-7.25")), ("42", .text("42")), (#""-0.5""#, .text("-0.5")),
                (#""2.5E-3""#, .text("0.0025")), (#""1.2.3""#, nil),
                (#""123456789012345678901.123456789012345678""#, nil), ("true", nil), (#""abc""#, nil),
            ],
            "when": [
                (#""2012-11-21T02:33:42Z""#, .text("2012-11-21T02:33:42.000000000Z")),
                (#""2014-06-11T07:33:42.009+0000""#, .text("2014-06-11T07:33:42.009000000Z")),
                (#""2012-11-21 02:33:42""#, .text("2012-11-21T02:33:42.000000000Z")),
                (#""2024-01-01""#, .text("2024-01-01T00:00:00.000000000Z")),
                (#""2024-01-01T12:00:00.123456789Z""#, .text("2024-01-01T12:00:00.123456789Z")),
                (#""2024-01-01T12:00:00.1234567890Z""#, .text("2024-01-01T12:00:00.123456789Z")),
                (#""2024-01-01T17:30:00+05:30""#, .text("2024-01-01T12:00:00.000000000Z")),
                ("1704110400", .text("2024-01-01T12:00:00.000000000Z")),
                ("1704110400.123456", .text("2024-01-01T12:00:00.123456000Z")),
                (#""21/11/2012 02:33""#, .text("2012-11-21T02:33:00.000000000Z")),
                (#""2016-12-31T23:59:60Z""#, nil), (#""2024-04-31T00:00:00Z""#, nil), (#""yesterday""#, nil),
                (#""2024-01-01T12:00:00.1234567891Z""#, nil), ("true", nil), (#""01/02/12 00:00""#, nil),
            ],
            "words": [("250", .int(250)), (#""7""#, .int(7)), ("0", .int(0)), (#""many""#, nil)],
            "rate": [
                ("1.5", .real(1.5)), (#""-2e3""#, .real(-2000)), ("-0.0", .real(0)), ("0.1", .real(0.1)),
                ("7", .real(7)), (#""NaN""#, nil), ("true", nil), (#""fast""#, nil),
            ],
            "kind": [
                (#""article""#, .text("Article")), (#""video""#, .text("Video")), ("1", .text("Video")),
                (#""podcast""#, .text("Item")),
            ],
        ]

        mutating func leaf(_ attribute: String) -> Node {
            let (text, value) = pick(Self.pools[attribute] ?? [])
            return .leaf(text, value)
        }

        mutating func key() -> Node {
            let id = 1 + below(4)
            if chance(8) { return pick([.leaf(#""3a""#, nil), .leaf("3.5", nil), .leaf("true", nil)]) }
            return pick([
                .leaf(String(id), .int(Int64(id))), .leaf("\"\(id)\"", .int(Int64(id))),
                .leaf("\"+\(id)\"", .int(Int64(id))), .leaf("\(id).0", .int(Int64(id))),
                .leaf("\"0\(id)\"", .int(Int64(id))),
            ])
        }

        /// A value that is neither an object nor `null`, which a key path does not read through.
        mutating func other() -> Node { .other(pick(["5", #""x""#, "true"])) }

        /// A member: absent (`nil`), `null`, or a value.
        /// `reads` names the pool of values (`id` for a key).
        mutating func plain(_ name: String, _ reads: String, absent: Int, null: Int = 10) -> Member? {
            let roll = below(100)
            if roll < absent { return nil }
            if roll < absent + null { return Member(key: name, node: .null) }
            return Member(key: name, node: reads == "id" ? key() : leaf(reads))
        }

        mutating func nested(_ head: String, _ rest: [String], absent: Int) -> Member? {
            guard !chance(absent) else { return nil }
            let attribute = ["meta": "id", "user": "name", "state": "flag", "stats": "count"][head] ?? ""
            let roll = below(100)
            let made: Node
            if roll < 10 {
                made = .null
            } else if roll < 18 {
                made = other()
            } else if roll < 24 {
                made = .object([])
            } else if rest.count == 2 {
                let inner = below(100)
                let innerNode: Node
                if inner < 12 {
                    innerNode = .null
                } else if inner < 20 {
                    innerNode = other()
                } else if inner < 26 {
                    innerNode = .object([])
                } else {
                    innerNode = .object([Member(key: rest[1], node: chance(12) ? .null : leaf(attribute))])
                }
                made = .object([Member(key: rest[0], node: innerNode)])
            } else {
                let value: Node = attribute == "id" ? key() : leaf(attribute)
                made = .object([Member(key: rest[0], node: chance(12) ? .null : value)])
            }
            return Member(key: head, node: made)
        }

        mutating func occurrence() -> Occurrence {
            var members: [Member?] = [
                nested("meta", ["id"], absent: 65),
                plain("ident", "id", absent: 70, null: 5),
                plain("id", "id", absent: 15, null: 3),
                nested("user", ["profile", "name"], absent: 45),
                plain("name", "name", absent: 55),
                nested("state", ["on"], absent: 50),
                plain("flag", "flag", absent: 45),
                nested("stats", ["count"], absent: 60),
                plain("count", "count", absent: 60),
                plain("price", "price", absent: 55),
                plain("at", "when", absent: 60),
                plain("when", "when", absent: 65),
                plain("words", "words", absent: 60),
                plain("rate", "rate", absent: 60),
                plain("kind", "kind", absent: 40, null: 10),
            ]
            // The order of a dictionary's members says nothing.
            for index in members.indices.reversed() where index > 0 {
                members.swapAt(index, below(index + 1))
            }
            return members.compactMap { $0 }
        }

        mutating func syncs() -> [Sync] {
            (0..<(3 + below(4))).map { _ in
                Sync(occurrences: (0..<(1 + below(5))).map { _ in occurrence() }, batchBytes: pick([1, 40, 200]))
            }
        }
    }

    // MARK: - Shrinking

    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices where syncs.count > 1 {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in syncs.indices {
            for position in syncs[index].occurrences.indices {
                var fewer = syncs
                fewer[index].occurrences.remove(at: position)
                variants.append(fewer)
                for member in syncs[index].occurrences[position].indices {
                    var shorter = syncs
                    shorter[index].occurrences[position].remove(at: member)
                    variants.append(shorter)
                }
            }
        }
        return variants
    }

    static func shrink(_ syncs: [Sync]) async throws -> [Sync] {
        var current = syncs
        var progress = true
        while progress {
            progress = false
            for variant in smaller(current) {
                var ignored = Expected()
                if try await firstMismatch(variant, tally: &ignored) != nil {
                    current = variant
                    progress = true
                    break
                }
            }
        }
        return current
    }

    // MARK: - The model comparison

    static let seeds: ClosedRange<UInt64> = 1...500

    @Test("random re-syncs, whole and streamed read once, leave the rows, counts and records the model gives")
    func randomResyncsMatchTheModel() async throws {
        var failures = 0
        var tally = Expected()
        for seed in Self.seeds {
            var generator = Generator(seed: seed)
            let syncs = generator.syncs()
            guard try await Self.firstMismatch(syncs, tally: &tally) != nil else { continue }
            failures += 1
            if failures > 3 { continue }
            let minimal = try await Self.shrink(syncs)
            var ignored = Expected()
            Issue.record(
                "seed \(seed), shrunk:\n\(try await Self.firstMismatch(minimal, tally: &ignored)?.text ?? "(no longer fails)")"
            )
        }
        #expect(failures == 0, "\(failures) of \(Self.seeds.count) seeds disagree with the model")
        // The sequences exercise what the suite is about.
        #expect(
            tally.dropped > 200 && tally.unidentified > 300 && tally.completedLater > 50 && tally.switched > 150
                && tally.defaulted > 200 && tally.refused > 100,
            "\(tally)")
    }

    // MARK: - Sub-entities named late

    /// A new record that one batch stores as an `Item` and a later batch makes an `Article`
    /// gets the `Article`'s default `words` whole (Docs/Population.md, "Defaults": "applied when
    /// a record is created and the response does not give the attribute"), and a streamed
    /// population must leave the rows the whole response leaves ("The same store": "row for
    /// row ... whatever the batch size, for every response").
    @Test("a new record a later batch makes an Article gets the Article's defaults, streamed as whole")
    func defaultsOfASubEntityALaterBatchMakes() async throws {
        let text = #"{"data": [{"id": 2, "flag": 1}, {"id": 2, "kind": "article"}]}"#
        let whole = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: Self.schema, entity: "Item", batchBytes: nil)
        #expect(whole.rows.contains("Item: 1 | 'Article' | 2 | NULL | 1 | 7 | NULL | NULL | 100 | NULL"), "\(whole)")
        let oneBatch = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: Self.schema, entity: "Item", batchBytes: 1 << 20)
        #expect(oneBatch == whole, "one batch:\n\(oneBatch)\nwhole:\n\(whole)")
        let streamed = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: Self.schema, entity: "Item", batchBytes: 1)
        #expect(streamed == whole, "batches of 1 byte:\n\(streamed)\nwhole:\n\(whole)")
    }

    /// Decision 7 (Docs/Population.md): "Values compare byte for byte: a later `"cafe\u0301"`
    /// replaces an earlier `"café"`"; decision 3: strings compare "byte for byte, with no Unicode
    /// normalization". A stored item named `é` composed, given `e\u{301}` decomposed, stores the
    /// decomposed name and counts as `updated`, and the model agrees (it compared text as Swift's
    /// `String` does, canonically, and expected `unchanged`). Whole, and streamed at 1 and 40 bytes
    /// and in one batch of 1 MB.
    @Test("a name given again decomposed after it was stored composed counts as updated")
    func decomposedNameAfterComposedCountsUpdated() async throws {
        let earlier = #"{"data": [{"ident": 2, "state": {"on": 1}, "user": {"profile": {"name": "\#u{e9}"}}}]}"#
        let text = #"{"data": [{"ident": 2, "user": {"profile": {"name": "e\u0301"}}}]}"#
        let whole = try await PopulatedStore.populating(
            text, after: earlier, schema: Self.schema, entity: "Item", batchBytes: nil)
        let counted = whole.counts["Item"].map { [$0.inserted, $0.updated, $0.unchanged, $0.deleted] }
        #expect(counted == [0, 1, 0, 0], "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                text, after: earlier, schema: Self.schema, entity: "Item", batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
        #expect(Value.text("\u{e9}") != Value.text("e\u{301}"))
    }

    /// Decision 7 (Docs/Population.md): "The merge is decided as if after coercion: a later
    /// value the attribute would refuse (`"n": "bad"` after `"n": 5`, ...) never replaces a valid
    /// earlier one", also for an attribute of a sub-entity that the occurrences do not state: a
    /// stored `Video` takes the valid `rate`, a new `Article` the valid `words`, as when each
    /// occurrence states the sub-entity.
    @Test(
        "a refused value of a sub-entity's attribute keeps an earlier valid one",
        arguments: [
            // A stored Video; the response states no kind.
            (
                #"[{"id": 1, "flag": true, "kind": "video"}]"#, #"[{"id": 1, "rate": 1.5}, {"id": 1, "rate": true}]"#,
                "Item: 1 | 'Video' | 1 | NULL | 1 | 7 | NULL | NULL | NULL | 1.5"
            ),
            // The same, stating the kind each time.
            (
                #"[{"id": 1, "flag": true, "kind": "video"}]"#,
                #"[{"id": 1, "rate": 1.5, "kind": "video"}, {"id": 1, "rate": true, "kind": "video"}]"#,
                "Item: 1 | 'Video' | 1 | NULL | 1 | 7 | NULL | NULL | NULL | 1.5"
            ),
            // A new record, made an Article by its last occurrence.
            (
                #"[]"#,
                #"[{"id": 1, "words": 250}, {"id": 1, "words": "many"}, {"id": 1, "flag": false, "kind": "article"}]"#,
                "Item: 1 | 'Article' | 1 | NULL | 0 | 7 | NULL | NULL | 250 | NULL"
            ),
            // The same, stating the kind each time.
            (
                #"[]"#,
                #"[{"id": 1, "words": 250, "kind": "article"}, {"id": 1, "words": "many", "kind": "article"}, {"id": 1, "flag": false, "kind": "article"}]"#,
                "Item: 1 | 'Article' | 1 | NULL | 0 | 7 | NULL | NULL | 250 | NULL"
            ),
        ])
    func refusedValueOfASubEntityAttributeKeepsTheEarlierOne(
        earlier: String, list: String, row: String
    ) async throws {
        let whole = try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: Self.schema, entity: "Item",
            batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows.contains(row), "\(whole)")
        for batchBytes in [1, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: Self.schema, entity: "Item",
                batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }
}
