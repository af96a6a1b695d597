import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The sequences of `OracleDeleteTests` and `OracleMappingTests` (the WebRecordTests target,
/// whose schemas are copied here and whose generators are rewritten here in the same shapes)
/// populated into a SQLite store and a PostgreSQL one, each response whole and streamed.
///
/// Delete rules: a file system of `Entry`s, `Folder`s and `File`s (a self-referencing tree under
/// cascade, a cycle Folder → File → Blob → Folder, a many-to-many under cascade, a record
/// identified by its owner, a one-to-one under deny and a cascade into the denied record), with
/// orphan deletion off, of every folder, or of those a predicate matches; streamed in batches
/// of 1, 40 or 120 bytes from a source read again when needed.
///
/// Mapping: `Item`s, `Article`s and `Video`s chosen by `kind`, keyed from candidate key paths,
/// keys in other JSON forms, a non-optional boolean, defaults, and values at the edges of their
/// types (64-bit integers, decimals of many digits, dates in several forms, booleans given as
/// text or numbers, unicode); streamed in batches of 1, 40 or 200 bytes from a source read once.
///
/// Docs/PostgreSQL.md: a PostgreSQL store "populates with the same semantics", and "both stores
/// give the same rows the same `_id`s in the same order" (only a deleted last `_id` is not given
/// again, so `_id`s are compared by rank, as ``PostgreSQLStores/content(of:rows:)`` ranks them).
/// After every response both stores must hold the same rows (`_id`, `_entity` and every value,
/// as exact text), report the same counts, the same records in the same order and as many
/// deny-rule warnings, and refuse the same responses.
///
/// Left out: a text holding a NUL character (PostgreSQL refuses it, as Docs/PostgreSQL.md
/// says); the wording of errors and warnings; how many times a stream is read when it may be
/// read again.
@Suite(.serialized, .timeLimit(MachineLoad.hangTimeLimit))
struct PostgreSQLOracleDeleteMappingParityTests {
    typealias P = PostgreSQLAdversarialParityTests

    // MARK: - The schemas

    /// `OracleDeleteTests.schemaJSON`.
    static let deleteSchemaJSON = #"""
        {"entities": {
          "Entry": {"primaryKey": "id",
            "subentities": {"key": "kind", "map": {"folder": "Folder", "file": "File"}},
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {"parent": {"destination": "Folder", "inverse": "children"}}},
          "Folder": {"parent": "Entry",
            "relationships": {
              "children": {"destination": "Entry", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
              "origins": {"destination": "Blob", "toMany": true, "inverse": "origin"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "folders", "deleteRule": "cascade"},
              "meta": {"destination": "Meta", "inverse": "folder"},
              "lock": {"destination": "Lock", "inverse": "folder", "deleteRule": "deny"}}},
          "File": {"parent": "Entry",
            "relationships": {
              "blobs": {"destination": "Blob", "toMany": true, "inverse": "file", "deleteRule": "cascade"},
              "locks": {"destination": "Lock", "toMany": true, "inverse": "file", "deleteRule": "cascade"}}},
          "Blob": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "file": {"destination": "File", "inverse": "blobs"},
              "origin": {"destination": "Folder", "inverse": "origins", "deleteRule": "cascade"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"folders": {"destination": "Folder", "toMany": true, "inverse": "tags"}}},
          "Meta": {"primaryKey": "folder", "attributes": {"size": {"type": "integer"}},
            "relationships": {"folder": {"destination": "Folder", "inverse": "meta"}}},
          "Lock": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "folder": {"destination": "Folder", "inverse": "lock"},
              "file": {"destination": "File", "inverse": "locks"}}}
        }}
        """#

    /// `OracleMappingTests.schemaJSON`.
    static let mappingSchemaJSON = #"""
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

    /// Which of the two the sequences are about.
    enum Kind: String {
        case delete
        case mapping

        var schema: Schema {
            switch self {
            case .delete: PostgreSQLOracleDeleteMappingParityTests.deleteSchema
            case .mapping: PostgreSQLOracleDeleteMappingParityTests.mappingSchema
            }
        }

        /// The entity populated.
        var entity: String { self == .delete ? "Folder" : "Item" }

        /// The table of the records a population gives.
        var table: String { self == .delete ? "Entry" : "Item" }

        func text(_ sync: Sync) -> String {
            let list = "[" + sync.elements.map(\.json).joined(separator: ",\n") + "]"
            return self == .delete ? list : #"{"data": \#(list)}"#
        }
    }

    static let deleteSchema = P.schema(deleteSchemaJSON)
    static let mappingSchema = P.schema(mappingSchemaJSON)

    // MARK: - Responses

    /// A JSON value of a response: a scalar as its text, an object, or a list.
    indirect enum Node: Equatable {
        case raw(String)
        case object([Member])
        case list([Node])

        var json: String {
            switch self {
            case .raw(let text): text
            case .object(let members):
                "{" + members.map { "\"\($0.key)\": \($0.node.json)" }.joined(separator: ", ") + "}"
            case .list(let elements): "[" + elements.map(\.json).joined(separator: ", ") + "]"
            }
        }

        /// This value with one member or element left out, anywhere in it.
        var smaller: [Node] {
            switch self {
            case .raw: return []
            case .object(let members):
                var variants: [Node] = []
                for index in members.indices {
                    var fewer = members
                    fewer.remove(at: index)
                    variants.append(.object(fewer))
                }
                for index in members.indices {
                    for inner in members[index].node.smaller {
                        var changed = members
                        changed[index].node = inner
                        variants.append(.object(changed))
                    }
                }
                return variants
            case .list(let elements):
                var variants: [Node] = []
                for index in elements.indices {
                    var fewer = elements
                    fewer.remove(at: index)
                    variants.append(.list(fewer))
                }
                for index in elements.indices {
                    for inner in elements[index].smaller {
                        var changed = elements
                        changed[index] = inner
                        variants.append(.list(changed))
                    }
                }
                return variants
            }
        }
    }

    struct Member: Equatable {
        var key: String
        var node: Node
    }

    /// An object of the members given (`nil`: absent).
    static func object(_ members: [(String, Node?)]) -> Node {
        .object(members.compactMap { key, node in node.map { Member(key: key, node: $0) } })
    }

    /// Which stored folders the orphan pass may delete.
    enum Orphans: Equatable {
        case none
        case all
        /// Folders not named `b`, in SQL both stores read alike.
        case notNamedB
    }

    struct Sync: Equatable {
        var elements: [Node]
        var orphans = Orphans.none
        /// The batch size streamed, in bytes.
        var batchBytes = 1
    }

    // MARK: - Generating delete sequences

    /// `OracleDeleteTests.Generator`'s shapes, without its model's filter: folders 1 to 6 and
    /// files 11 to 14, children by key or as objects, a file's blobs at most once a response.
    struct DeleteGenerator {
        var random: SeededRandom
        /// The entries named by earlier responses and this one so far.
        var known: Set<Int> = []

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        mutating func blob() -> Node {
            let id = 1 + below(5)
            guard chance(70) else { return .raw(String(id)) }
            let roll = below(100)
            let origin: Node? = roll < 45 ? nil : roll < 60 ? .raw("null") : .raw(String(1 + below(6)))
            return PostgreSQLOracleDeleteMappingParityTests.object([("id", .raw(String(id))), ("origin", origin)])
        }

        mutating func folder(_ id: Int, blobsGiven: inout Set<Int>) -> Node {
            known.insert(id)
            var members: [(String, Node?)] = [("id", .raw(String(id))), ("kind", .raw(#""folder""#))]
            let name = below(100)
            members.append(("name", name < 50 ? nil : name < 60 ? .raw("null") : .raw(pick([#""a""#, #""b""#]))))
            let children = below(100)
            if children < 35 {
            } else if children < 45 {
                members.append(("children", .raw("null")))
            } else {
                var made: [Node] = []
                var ids: [Int] = []
                for _ in 0..<below(4) {
                    let child = chance(50) ? 1 + below(6) : 11 + below(4)
                    if child == id || ids.contains(child) { continue }
                    ids.append(child)
                    if known.contains(child) && chance(40) {
                        made.append(.raw(String(child)))
                        continue
                    }
                    var fields: [(String, Node?)] = [
                        ("id", .raw(String(child))), ("kind", .raw(child < 10 ? #""folder""# : #""file""#)),
                    ]
                    if child > 10 && !blobsGiven.contains(child) && chance(60) {
                        blobsGiven.insert(child)
                        if chance(15) {
                            fields.append(("blobs", .raw("null")))
                        } else {
                            var blobs: [Node] = []
                            var blobIDs: Set<String> = []
                            for _ in 0..<below(4) {
                                let made = blob()
                                let key =
                                    if case .object(let members) = made { members[0].node.json } else { made.json }
                                if blobIDs.insert(key).inserted { blobs.append(made) }
                            }
                            fields.append(("blobs", .list(blobs)))
                        }
                    }
                    known.insert(child)
                    made.append(PostgreSQLOracleDeleteMappingParityTests.object(fields))
                }
                members.append(("children", .list(made)))
            }
            let tags = below(100)
            if tags < 45 {
            } else if tags < 55 {
                members.append(("tags", .raw("null")))
            } else {
                var made: [Int] = []
                for _ in 0..<below(3) {
                    let tag = 1 + below(4)
                    if !made.contains(tag) { made.append(tag) }
                }
                members.append(("tags", .list(made.map { .raw(String($0)) })))
            }
            let meta = below(100)
            members.append(
                ("meta", meta < 50 ? nil : meta < 65 ? .raw("null") : .raw("{\"size\": \(1 + below(3))}")))
            let lock = below(100)
            if lock < 70 {
            } else if lock < 82 {
                members.append(("lock", .raw("null")))
            } else {
                let lockID = 1 + below(3)
                if chance(60) {
                    let file = below(100)
                    let given: Node? = file < 30 ? nil : file < 45 ? .raw("null") : .raw(String(11 + below(4)))
                    members.append(
                        (
                            "lock",
                            PostgreSQLOracleDeleteMappingParityTests.object([
                                ("id", .raw(String(lockID))), ("file", given),
                            ])
                        ))
                } else {
                    members.append(("lock", .raw(String(lockID))))
                }
            }
            return PostgreSQLOracleDeleteMappingParityTests.object(members)
        }

        /// A later, short occurrence of a folder: its name left out, its tags at times.
        mutating func shortened(_ node: Node) -> Node {
            guard case .object(let members) = node else { return node }
            let dropsTags = chance(50)
            return .object(members.filter { $0.key != "name" && !(dropsTags && $0.key == "tags") })
        }

        mutating func syncs(batchBytes: Int) -> [Sync] {
            (0..<(3 + below(4))).map { _ in
                let roll = below(100)
                var sync = Sync(
                    elements: [], orphans: roll < 60 ? .none : roll < 85 ? .all : .notNamedB, batchBytes: batchBytes)
                guard !(sync.orphans != .none && chance(8)) else { return sync }
                var ids: [Int] = []
                for _ in 0..<(1 + below(4)) {
                    let id = 1 + below(6)
                    if !ids.contains(id) { ids.append(id) }
                }
                var blobsGiven: Set<Int> = []
                for id in ids { sync.elements.append(folder(id, blobsGiven: &blobsGiven)) }
                if chance(25) { sync.elements.append(shortened(folder(pick(ids), blobsGiven: &blobsGiven))) }
                return sync
            }
        }
    }

    // MARK: - Generating mapping sequences

    /// `OracleMappingTests.Generator`'s shapes: each attribute at its key path or its name, the
    /// path's objects absent, `null`, empty or not objects; values from pools of the forms each
    /// type reads or refuses, with more decimals and dates than the model's.
    struct MappingGenerator {
        var random: SeededRandom

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        /// The JSON texts each attribute is given.
        static let pools: [String: [String]] = [
            "name": [
                #""a""#, #""b""#, #""""#, #""é""#, #""e\u0301""#, #""\ud83d\ude00""#, #""😀""#,
                #""tab\there \"q\"""#, "12", "1.5", "1.0", "18446744073709551615", "0.30000000000000004", "true",
                #""\\N""#, #""NULL""#, #""line\nend\r""#, #""\u001f\u007f""#, "1e400", "-0", "[1]", #"{"a": 1}"#,
            ],
            "flag": [
                "true", "false", "0", "1", "1.0", "1e0", #""TRUE""#, #""yes""#, #""No""#, #""0""#, #""1""#, "2",
                #""y""#, #""""#, "0.5", #""t""#, #""f""#, "-0", "0e5",
            ],
            "count": [
                "12", #""12""#, #""-3""#, #""+5""#, "3.0", "1e3", "9223372036854775807", "-9223372036854775808",
                #""9223372036854775807""#, "9223372036854775808", #""-9223372036854775809""#, "1.5", #""1.0""#,
                "true", #""12abc""#, #""+-5""#, #""""#, "-0", "9007199254740993", "1e18", "1e19", "-0.0",
            ],
            "price": [
                #""0.1""#, "0.1", "0.12345678901234567890123", #""12345678901234567890.123456789012345678""#,
                "-7.25", "42", #""-0.5""#, #""2.5E-3""#, #""1.2.3""#, #""123456789012345678901.123456789012345678""#,
                "true", #""abc""#, "1.50", "-0", "0.0", "1E+5", "100", #""007.50""#,
                "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
                "0.00000000000000000000000000000000000001", "1e127", "-1e-128", "9223372036854775808",
                "1e-7", #"" 1.5""#, #""NaN""#, #""Infinity""#,
            ],
            "when": [
                #""2012-11-21T02:33:42Z""#, #""2014-06-11T07:33:42.009+0000""#, #""2012-11-21 02:33:42""#,
                #""2024-01-01""#, #""2024-01-01T12:00:00.123456789Z""#, #""2024-01-01T12:00:00.1234567890Z""#,
                #""2024-01-01T17:30:00+05:30""#, "1704110400", "1704110400.123456", #""21/11/2012 02:33""#,
                #""2016-12-31T23:59:60Z""#, #""2024-04-31T00:00:00Z""#, #""yesterday""#,
                #""2024-01-01T12:00:00.1234567891Z""#, "true", #""01/02/12 00:00""#, "0", "-1", "-62135596800",
                #""0001-01-01T00:00:00Z""#, #""9999-12-31T23:59:59.999999999Z""#, "253402300800", "1e10",
                #""1969-12-31T23:59:59.5Z""#,
            ],
            "words": [
                "250", #""7""#, "0", #""many""#, "9223372036854775807", "-9223372036854775808", "2.0", "null",
            ],
            "rate": [
                "1.5", #""-2e3""#, "-0.0", "0.1", "7", #""NaN""#, "true", #""fast""#, "1e300", "-1e300", "5e-324",
                "1.7976931348623157e308", "1e309", "9007199254740993", "123456789.123456789",
            ],
            "kind": [#""article""#, #""video""#, "1", #""podcast""#, #""Article""#, "1.0", #""1""#],
        ]

        mutating func leaf(_ attribute: String) -> Node { .raw(pick(Self.pools[attribute] ?? ["null"])) }

        mutating func key() -> Node {
            let id = 1 + below(4)
            if chance(8) { return .raw(pick([#""3a""#, "3.5", "true"])) }
            return .raw(pick([String(id), "\"\(id)\"", "\"+\(id)\"", "\(id).0", "\"0\(id)\""]))
        }

        /// A value that is neither an object nor `null`, which a key path does not read through.
        mutating func other() -> Node { .raw(pick(["5", #""x""#, "true"])) }

        /// A member: absent (`nil`), `null`, or a value of the pool `reads` (`id` for a key).
        mutating func plain(_ name: String, _ reads: String, absent: Int, null: Int = 10) -> Member? {
            let roll = below(100)
            if roll < absent { return nil }
            if roll < absent + null { return Member(key: name, node: .raw("null")) }
            return Member(key: name, node: reads == "id" ? key() : leaf(reads))
        }

        mutating func nested(_ head: String, _ rest: [String], absent: Int) -> Member? {
            guard !chance(absent) else { return nil }
            let attribute = ["meta": "id", "user": "name", "state": "flag", "stats": "count"][head] ?? ""
            let roll = below(100)
            let made: Node
            if roll < 10 {
                made = .raw("null")
            } else if roll < 18 {
                made = other()
            } else if roll < 24 {
                made = .object([])
            } else if rest.count == 2 {
                let inner = below(100)
                let innerNode: Node
                if inner < 12 {
                    innerNode = .raw("null")
                } else if inner < 20 {
                    innerNode = other()
                } else if inner < 26 {
                    innerNode = .object([])
                } else {
                    innerNode = .object([Member(key: rest[1], node: chance(12) ? .raw("null") : leaf(attribute))])
                }
                made = .object([Member(key: rest[0], node: innerNode)])
            } else {
                let value: Node = attribute == "id" ? key() : leaf(attribute)
                made = .object([Member(key: rest[0], node: chance(12) ? .raw("null") : value)])
            }
            return Member(key: head, node: made)
        }

        mutating func occurrence() -> Node {
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
            for index in members.indices.reversed() where index > 0 {
                members.swapAt(index, below(index + 1))
            }
            return .object(members.compactMap { $0 })
        }

        mutating func syncs() -> [Sync] {
            (0..<(3 + below(4))).map { _ in
                Sync(elements: (0..<(1 + below(5))).map { _ in occurrence() }, batchBytes: pick([1, 40, 200]))
            }
        }
    }

    // MARK: - Running a sequence

    /// How each response is populated: whole, or streamed in its sync's batch size from a
    /// source read again when needed or read once.
    enum Run: CustomStringConvertible {
        case whole
        case streamed(reopens: Bool)

        var description: String {
            switch self {
            case .whole: "whole"
            case .streamed(let reopens): reopens ? "streamed" : "streamed, read once"
            }
        }
    }

    final class Openings {
        var count = 0
    }

    /// A population's result, or its failure.
    struct Populated {
        var result: PopulationResult?
        var failure: String?
    }

    static func populate(_ store: some RecordStorage, _ sync: Sync, kind: Kind, run: Run) async -> Populated {
        var options = PopulationOptions()
        switch sync.orphans {
        case .none: break
        case .all: options.deleteOrphans = .all
        case .notNamedB: options.deleteOrphans = .matching(#"("name" IS NULL OR "name" <> ?)"#, ["b"])
        }
        let text = kind.text(sync)
        do {
            let population = ResponsePopulation(store: store, options: options)
            guard case .streamed(let reopens) = run else {
                return Populated(
                    result: try await population.populate(try JSONReader().read(text), entity: kind.entity))
            }
            let data = Data(text.utf8)
            let openings = Openings()
            let batchBytes = sync.batchBytes
            let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                openings.count += 1
                #expect(reopens || openings.count == 1, "a source read once was read again")
                return JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
            }
            return Populated(
                result: try await population.populate(streaming: open, entity: kind.entity, reopens: reopens))
        } catch {
            return Populated(failure: error.message)
        }
    }

    /// What a store holds after a response, and what the population reported.
    struct Outcome: Equatable {
        var rows: [String]
        var counts: [String: ChangeCounts]
        /// Each record the population gives, in order: its entity and its `_id`'s rank.
        var records: [String]
        var denied: Int
        var failed: Bool
    }

    static func outcome(
        _ populated: Populated, kind: Kind, content: [String: [[DatabaseValue]]], rowIDs: [DatabaseValue]
    ) -> Outcome {
        var ranks: [Int64: Int] = [:]
        for (index, value) in rowIDs.enumerated() {
            if case .integer(let rowID) = value { ranks[rowID] = index + 1 }
        }
        let records = (populated.result?.records ?? []).map { record in
            "\(record.entity.name) \(ranks[record.rowID].map(String.init) ?? "gone")"
        }
        let denied = populated.result?.debugger.warnings.filter { $0.message.contains("deny rule") }.count ?? 0
        return Outcome(
            rows: P.lines(content), counts: populated.result?.changesByEntity ?? [:], records: records,
            denied: denied, failed: populated.result == nil)
    }

    static func outcome(of store: SQLiteDatabase, _ populated: Populated, kind: Kind) throws -> Outcome {
        let rowIDs = try store.read { connection in
            try connection.rows(#"SELECT "_id" FROM "\#(kind.table)" ORDER BY "_id""#).map { $0[0] }
        }
        return outcome(populated, kind: kind, content: try PostgreSQLStores.content(of: store), rowIDs: rowIDs)
    }

    static func outcome(of store: PostgreSQLDatabase, _ populated: Populated, kind: Kind) throws -> Outcome {
        let rowIDs = try store.withConnection { connection in
            try connection.rows(#"SELECT "_id" FROM "\#(kind.table)" ORDER BY "_id""#).map { $0[0] }
        }
        return outcome(populated, kind: kind, content: try PostgreSQLStores.content(of: store), rowIDs: rowIDs)
    }

    /// What differs between PostgreSQL's outcome and SQLite's (`+` only on PostgreSQL, `-` only
    /// on SQLite).
    static func difference(_ postgreSQL: Outcome, _ sqlite: Outcome) -> String {
        var lines: [String] = []
        if postgreSQL.failed != sqlite.failed {
            lines.append("failed: PostgreSQL \(postgreSQL.failed), SQLite \(sqlite.failed)")
        }
        for entity in Set(postgreSQL.counts.keys).union(sqlite.counts.keys).sorted()
        where postgreSQL.counts[entity] != sqlite.counts[entity] {
            lines.append(
                "counts of \(entity): PostgreSQL \(postgreSQL.counts[entity].map { "\($0)" } ?? "none"), "
                    + "SQLite \(sqlite.counts[entity].map { "\($0)" } ?? "none")")
        }
        if postgreSQL.records != sqlite.records {
            lines.append("records: PostgreSQL \(postgreSQL.records), SQLite \(sqlite.records)")
        }
        if postgreSQL.denied != sqlite.denied {
            lines.append("deny warnings: PostgreSQL \(postgreSQL.denied), SQLite \(sqlite.denied)")
        }
        lines += postgreSQL.rows.filter { !sqlite.rows.contains($0) }.map { "+ " + String($0.prefix(300)) }
        lines += sqlite.rows.filter { !postgreSQL.rows.contains($0) }.map { "- " + String($0.prefix(300)) }
        return lines.joined(separator: "\n")
    }

    /// A PostgreSQL store the runs share, emptied before each (its `_id`s restarted, as a new
    /// store's), and what the runs reached on SQLite.
    final class SharedStore {
        let kind: Kind
        let database: PostgreSQLDatabase
        let tables: [String]
        var populations = 0
        var failures = 0
        var deleted = 0
        var denied = 0
        var entities: Set<String> = []

        init(_ kind: Kind) throws {
            self.kind = kind
            database = try PostgreSQLStores.postgreSQL(kind.schema)
            tables = database.layout.tables.map(\.name) + database.layout.joinTables.map(\.name)
        }

        func emptied() throws -> PostgreSQLDatabase {
            let list = tables.map { "\"\($0)\"" }.joined(separator: ", ")
            try database.write { connection in _ = try connection.execute("TRUNCATE \(list) RESTART IDENTITY") }
            return database
        }
    }

    static func label(_ sync: Sync, run: Run) -> String {
        var label = ""
        switch sync.orphans {
        case .none: break
        case .all: label += "orphans "
        case .notNamedB: label += "orphans not named b "
        }
        if case .streamed = run { label += "(\(sync.batchBytes) bytes) " }
        return label
    }

    /// The first response after which the two stores differ, described, or nil.
    static func firstDifference(_ syncs: [Sync], run: Run, store: SharedStore) async throws -> String? {
        let kind = store.kind
        let sqlite = try PostgreSQLStores.sqlite(kind.schema)
        let postgreSQL = try store.emptied()
        for (index, sync) in syncs.enumerated() {
            let expected = await populate(sqlite, sync, kind: kind, run: run)
            let result = await populate(postgreSQL, sync, kind: kind, run: run)
            let sqliteOutcome = try outcome(of: sqlite, expected, kind: kind)
            let postgreSQLOutcome = try outcome(of: postgreSQL, result, kind: kind)
            store.populations += 1
            if sqliteOutcome.failed { store.failures += 1 }
            store.deleted += sqliteOutcome.counts.values.map(\.deleted).reduce(0, +)
            store.denied += sqliteOutcome.denied
            store.entities.formUnion(
                sqliteOutcome.rows.compactMap { $0.split(separator: "'").dropFirst().first.map(String.init) })
            guard postgreSQLOutcome != sqliteOutcome else { continue }
            var failures = ""
            if let failure = result.failure { failures += "\nPostgreSQL failed: \(failure)" }
            if let failure = expected.failure { failures += "\nSQLite failed: \(failure)" }
            let history = syncs[...index].map { label($0, run: run) + kind.text($0) }
            return "\(run), after response \(index + 1) of\n" + history.joined(separator: "\n") + "\n"
                + difference(postgreSQLOutcome, sqliteOutcome) + failures
        }
        return nil
    }

    // MARK: - Shrinking

    /// Smaller variants of a sequence: a response left out, its orphan deletion off, a record
    /// left out, a member or an element left out anywhere in a record.
    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices where syncs.count > 1 {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in syncs.indices where syncs[index].orphans != .none {
            var plain = syncs
            plain[index].orphans = .none
            variants.append(plain)
        }
        for index in syncs.indices {
            for position in syncs[index].elements.indices {
                var fewer = syncs
                fewer[index].elements.remove(at: position)
                variants.append(fewer)
            }
            for position in syncs[index].elements.indices {
                for element in syncs[index].elements[position].smaller {
                    var changed = syncs
                    changed[index].elements[position] = element
                    variants.append(changed)
                }
            }
        }
        return variants
    }

    /// `syncs` made as small as they can be while the stores still differ, within `budget` runs.
    static func shrink(_ syncs: [Sync], run: Run, store: SharedStore, budget: Int = 300) async throws -> [Sync] {
        var current = syncs
        var tries = 0
        var progress = true
        while progress && tries < budget {
            progress = false
            for variant in smaller(current) {
                tries += 1
                if tries > budget { break }
                if try await firstDifference(variant, run: run, store: store) != nil {
                    current = variant
                    progress = true
                    break
                }
            }
        }
        return current
    }

    /// Every seed of `seeds`, its sequence populated into both stores at each of `runs`; the
    /// first few differences shrunk, and all of them returned.
    static func compare(
        _ store: SharedStore, seeds: ClosedRange<UInt64>, runs: [Run], sequence: (UInt64) -> [Sync]
    ) async throws -> [String] {
        var reports: [String] = []
        for seed in seeds {
            let syncs = sequence(seed)
            for run in runs {
                guard try await firstDifference(syncs, run: run, store: store) != nil else { continue }
                guard reports.count < 3 else {
                    reports.append("seed \(seed), \(run)")
                    continue
                }
                let minimal = try await shrink(syncs, run: run, store: store)
                let report = try await firstDifference(minimal, run: run, store: store) ?? "(no longer differs)"
                reports.append("seed \(seed), shrunk:\n\(report)")
            }
        }
        return reports
    }

    // MARK: - The comparison itself

    /// A response populated into SQLite only is a difference in the rows, the counts and the
    /// records.
    @Test("The comparison finds rows, counts and records that only one store has")
    func comparisonFindsADifference() async throws {
        for kind in [Kind.delete, .mapping] {
            let store = try SharedStore(kind)
            let element: Node =
                kind == .delete
                ? .raw(#"{"id": 1, "kind": "folder", "children": [{"id": 11, "kind": "file"}], "tags": [2]}"#)
                : .raw(#"{"id": 2, "kind": "article", "flag": true, "price": "0.10"}"#)
            let sync = Sync(elements: [element])
            #expect(try await Self.firstDifference([sync], run: .whole, store: store) == nil)
            let sqlite = try PostgreSQLStores.sqlite(kind.schema)
            let expected = await Self.populate(sqlite, sync, kind: kind, run: .whole)
            let postgreSQL = try store.emptied()
            let sqliteOutcome = try Self.outcome(of: sqlite, expected, kind: kind)
            let postgreSQLOutcome = try Self.outcome(of: postgreSQL, Populated(failure: "not populated"), kind: kind)
            let difference = Self.difference(postgreSQLOutcome, sqliteOutcome)
            #expect(difference.contains("failed: PostgreSQL true, SQLite false"), "\(difference)")
            #expect(difference.contains("counts of \(kind == .delete ? "Folder" : "Article")"), "\(difference)")
            #expect(difference.contains("records: PostgreSQL [], SQLite"), "\(difference)")
            #expect(difference.contains("- \(kind.table): 1 | "), "\(difference)")
        }
    }

    // MARK: - The randomized comparisons

    @Test("Random delete-rule and orphan re-syncs end the same on PostgreSQL as on SQLite, whole and streamed")
    func deleteSequences() async throws {
        let store = try SharedStore(.delete)
        let reports = try await Self.compare(store, seeds: 1...150, runs: [.whole, .streamed(reopens: true)]) { seed in
            var generator = DeleteGenerator(random: SeededRandom(seed: seed))
            return generator.syncs(batchBytes: [1, 40, 120][Int(seed % 3)])
        }
        #expect(reports.isEmpty, "\(reports.count) runs differ:\n\(reports.joined(separator: "\n\n"))")
        #expect(store.failures * 4 < store.populations, "\(store.failures) of \(store.populations) failed on SQLite")
        #expect(store.deleted > 200 && store.denied > 10, "deleted \(store.deleted), denied \(store.denied)")
    }

    @Test("Random mapping re-syncs of keys and values at the edges end the same on PostgreSQL as on SQLite")
    func mappingSequences() async throws {
        let store = try SharedStore(.mapping)
        let reports = try await Self.compare(store, seeds: 1...200, runs: [.whole, .streamed(reopens: false)]) { seed in
            var generator = MappingGenerator(random: SeededRandom(seed: seed))
            return generator.syncs()
        }
        #expect(reports.isEmpty, "\(reports.count) runs differ:\n\(reports.joined(separator: "\n\n"))")
        // A response none of whose records has a valid `flag` is refused (decision 5): about a
        // quarter are, and both stores must refuse them alike.
        #expect(
            store.failures > 50 && store.failures * 2 < store.populations,
            "\(store.failures) of \(store.populations) failed on SQLite")
        #expect(store.entities.isSuperset(of: ["Item", "Article", "Video"]), "\(store.entities)")
    }
}
