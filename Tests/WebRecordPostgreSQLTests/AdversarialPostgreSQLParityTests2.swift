import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The same responses populated into a SQLite store and a PostgreSQL one: exports, fetches and
/// observations must give the same results on both (Docs/PostgreSQL.md: "populates with the
/// same semantics", "Observations ... work on a PostgreSQL store as on SQLite, with the same
/// deliveries and change sets"), and the documented ones (Docs/CLI.md, `webrecord export`;
/// Docs/Records.md and Docs/PostgreSQL.md, "sorting by a decimal is by value on both";
/// Docs/Observation.md, "What counts as a change").
@Suite(.serialized, .timeLimit(MachineLoad.hangTimeLimit))
struct AdversarialPostgreSQLParityTests2 {
    // MARK: - Support

    /// A SQLite store in a file of `directory` and a PostgreSQL store in a new database, both
    /// for `schemaJSON`, labelled.
    static func stores(_ schemaJSON: String, in directory: TemporaryDirectory) async throws -> [(
        label: String, store: RecordStore
    )] {
        let schema = try Schema(json: schemaJSON)
        let url = try await ChildProcess.onThread {
            let server = try PostgreSQLTestServer.shared()
            return server.url(database: try server.makeDatabase())
        }
        return [
            ("SQLite", try RecordStore(path: directory.path("parity.sqlite"), schema: schema)),
            ("PostgreSQL", try RecordStore(postgreSQL: url, schema: schema)),
        ]
    }

    /// `text`, a JSON response, parsed (numbers keep their digits).
    static func json(_ text: String) throws -> JSONValue { try JSONReader().read(text) }

    /// A record's key as JSON text.
    static func key(_ record: Record) -> String { record.primaryKeyValue?.serialized() ?? "nil" }

    /// A delivery of an observation as one line: its records' keys, and its change set.
    static func line(_ results: ObservedResults<Record>) -> String {
        var text = "[" + results.records.map(key).joined(separator: ",") + "]"
        if let changes = results.changes {
            text += " d[" + changes.deletions.map(String.init).joined(separator: ",") + "]"
            text += " i[" + changes.insertions.map(String.init).joined(separator: ",") + "]"
            text += " m[" + changes.modifications.map { "\($0.old)>\($0.new)" }.joined(separator: ",") + "]"
            text += " mv[" + changes.moves.map { "\($0.from)>\($0.to)" }.joined(separator: ",") + "]"
        }
        return text
    }

    // MARK: - Export

    static let catalogSchema = """
        {"entities": {
          "Person": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string"}, "nick": {"type": "string"},
              "score": {"type": "decimal"}, "big": {"type": "integer"}, "born": {"type": "date"},
              "ratio": {"type": "double"}, "active": {"type": "boolean"}, "extra": {"type": "json"},
              "blob": {"type": "data"}},
            "relationships": {
              "friends": {"destination": "Person", "toMany": true, "inverse": "friends"},
              "notes": {"destination": "Note", "toMany": true, "ordered": true, "inverse": "author"},
              "playlist": {"destination": "Note", "toMany": true, "ordered": true},
              "profile": {"destination": "Profile", "inverse": "owner"},
              "items": {"destination": "Item", "toMany": true, "inverse": "maker"}}},
          "Admin": {"parent": "Person", "attributes": {"level": {"type": "integer"}}},
          "Note": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"author": {"destination": "Person", "inverse": "notes"}}},
          "Profile": {"primaryKey": "owner", "attributes": {"bio": {"type": "string"}},
            "relationships": {"owner": {"destination": "Person", "inverse": "profile"}}},
          "Item": {"primaryKey": ["source", "number"],
            "attributes": {"source": {"type": "string"}, "number": {"type": "integer"}, "price": {"type": "decimal"}},
            "relationships": {"maker": {"destination": "Person", "inverse": "items"}}}
        }}
        """

    static let people = #"""
        [
          {"id": "a", "name": "", "nick": "\\N", "score": 10, "big": 9223372036854775807,
           "born": "2012-11-21T02:33:42.123456789Z", "ratio": 0.1, "active": true,
           "extra": {"z": 1, "a": "x\u0000y", "\u00e9": [1.50, 2e3]}, "blob": "AAEC/w==",
           "friends": ["B", "\ud83d\ude00"], "notes": [{"id": 3, "text": "tab\there"}, {"id": 1, "text": "\\."}],
           "playlist": [3, 2, 1], "profile": {"bio": "cr\r\nlf"},
           "items": [{"source": "b", "number": 2}, {"source": "a", "number": 10, "price": 99999999999999999999.5},
                     {"source": "a", "number": 9}, {"source": "a", "number": -1, "price": -0.1000000000000000000001},
                     {"source": "\u00e9", "number": 0, "price": 0.0000001}]},
          {"id": "B", "name": null, "nick": "back\\slash", "score": 9.5, "big": -9223372036854775808,
           "born": "1969-12-31T23:59:59.999999999Z", "ratio": -0.0, "active": false, "extra": null,
           "notes": [{"id": 2, "text": ""}]},
          {"id": "\u00e9", "score": -0.1000000000000000000001, "ratio": 1e300, "friends": ["e\u0301"]},
          {"id": "e\u0301", "score": -0.1, "ratio": 2.5e-308},
          {"id": "\uff5e", "score": 99999999999999999999.5, "ratio": 123456789.123456789},
          {"id": "\ud83d\ude00", "score": 100000000000000000000},
          {"id": "Z", "nick": "\u007f\u0001"}
        ]
        """#

    static let admins = #"[{"id": "\u007f", "level": 3, "friends": ["a", "\u007f"]}, {"id": "0", "level": 1}]"#

    /// Docs/CLI.md, `webrecord export`: records sorted by primary key, "text by its UTF-8 bytes
    /// (as SQLite's `BINARY` collation sorts)", "a composite key part by part", "a key that is a
    /// to-one relationship by the owner's key", unordered to-many members sorted the same way,
    /// ordered ones in response order; and Docs/SchemaFormat.md: strings are keys "byte for byte,
    /// with no Unicode normalization" (`é` as one code point and as `e` plus a combining accent
    /// are two records). Both stores must print the same bytes.
    @Test(
        "Exports of unicode, composite, owner-keyed, self-inverse, ordered and sub-entity records are byte for byte the same"
    )
    func exportParity() async throws {
        let directory = try TemporaryDirectory()
        var exports: [String: [String: [UInt8]]] = [:]
        for (label, store) in try await Self.stores(Self.catalogSchema, in: directory) {
            _ = try await store.populate(try Self.json(Self.people), entity: "Person")
            _ = try await store.populate(try Self.json(Self.admins), entity: "Admin")
            var byEntity: [String: [UInt8]] = [:]
            for entity in ["Person", "Admin", "Note", "Profile", "Item"] {
                byEntity[entity] = try store.exportJSON(entity: entity).serializedBytes(prettyPrinted: true)
            }
            exports[label] = byEntity

            // The documented order and values, on each store.
            let persons = try #require(try store.exportJSON(entity: "Person").arrayValue)
            let ids = persons.map { Array(($0["id"]?.stringValue ?? "?").utf8) }
            let expectedIDs = ["0", "B", "Z", "a", "e\u{301}", "\u{7F}", "\u{E9}", "\u{FF5E}", "\u{1F600}"]
                .map { Array($0.utf8) }
            #expect(ids == expectedIDs, "\(label): Person ids in UTF-8 byte order")
            let a = try #require(persons.first { $0["id"]?.stringValue.map { Array($0.utf8) } == [0x61] })
            #expect(a["name"] == .string(""), "\(label): an empty string stays an empty string")
            #expect(a["nick"] == .string(#"\N"#), "\(label): a backslash-N string is not a null")
            #expect(a["notes"] == .array([.integer(3), .integer(1)]), "\(label): ordered to-many in response order")
            #expect(
                a["playlist"] == .array([.integer(3), .integer(2), .integer(1)]),
                "\(label): ordered many-to-many in response order")
            let b = try #require(persons.first { $0["id"]?.stringValue == "B" })
            #expect(b["name"] == .null, "\(label): a null stays a null")
            #expect(b["friends"] == .array([.string("a")]), "\(label): self-inverse many-to-many on the other side")
            let items = try #require(try store.exportJSON(entity: "Item").arrayValue)
            #expect(
                items.map { "\($0["source"]?.stringValue ?? "?")/\($0["number"]?.serialized() ?? "?")" }
                    == ["a/-1", "a/9", "a/10", "b/2", "\u{E9}/0"],
                "\(label): composite keys part by part")
            let profiles = try #require(try store.exportJSON(entity: "Profile").arrayValue)
            #expect(profiles.map { $0["owner"] } == [.string("a")], "\(label): a record keyed by its owner")
        }
        let sqlite = try #require(exports["SQLite"])
        let postgreSQL = try #require(exports["PostgreSQL"])
        for entity in sqlite.keys.sorted() {
            let left = sqlite[entity] ?? []
            let right = postgreSQL[entity] ?? []
            #expect(
                left == right,
                "\(entity) export differs:\nSQLite:\n\(String(decoding: left, as: UTF8.self))\nPostgreSQL:\n\(String(decoding: right, as: UTF8.self))"
            )
        }
    }

    // MARK: - NUL characters

    static let wordSchema = """
        {"entities": {"Word": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}, "tag": {"type": "string"},
            "extra": {"type": "json"}}}}}
        """

    /// Docs/PostgreSQL.md, "Values": "A text holding a NUL character cannot be stored by
    /// PostgreSQL. It is refused with an `invalidArgument` error ..., never truncated; the
    /// population rolls back." For a new row, a changed row and a lookup's key alike; a NUL
    /// inside a `json` value is JSON's `\u0000` escape, stored on both stores.
    @Test("A NUL character is refused whole on PostgreSQL, in a new row, an update and a key; in JSON it is stored")
    func nulCharacters() async throws {
        let directory = try TemporaryDirectory()
        let stores = try await Self.stores(Self.wordSchema, in: directory)
        for (label, store) in stores {
            _ = try await store.populate(
                try Self.json(#"[{"id": 1, "text": "ab", "tag": "t", "extra": {"k\u0000": "v\u0000w"}}]"#),
                entity: "Word")
            let attempts = [
                #"[{"id": 2, "text": "a\u0000b"}]"#,  // a new row
                #"[{"id": 1, "text": "a\u0000b", "tag": "u"}]"#,  // a changed row
            ]
            for attempt in attempts {
                do {
                    _ = try await store.populate(try Self.json(attempt), entity: "Word")
                    #expect(label == "SQLite", "\(label): a NUL was stored: \(attempt)")
                } catch let error as WebRecordError {
                    #expect(label == "PostgreSQL", "\(label): \(error)")
                    #expect(error.code == .invalidArgument, "\(label): \(error)")
                }
            }
            let words = try store.fetch("Word", orderBy: [.ascending("id")])
            if label == "PostgreSQL" {
                #expect(words.map(Self.key) == ["1"])
                #expect(words.first?.jsonValue("text") == .string("ab"), "never truncated, rolled back")
                #expect(words.first?.jsonValue("tag") == .string("t"), "the whole population rolled back")
            } else {
                #expect(words.map(Self.key) == ["1", "2"])
                #expect(words.first?.jsonValue("text") == .string("a\u{0}b"))
            }
            #expect(
                words.first?.jsonValue("extra") == .object(["k\u{0}": .string("v\u{0}w")]),
                "\(label): NUL inside a json value")
        }
        let exports = try stores.map { try $0.store.exportJSON(entity: "Word").serializedBytes() }
        // The json column exports the same on both (the SQLite store also holds word 2).
        let first = try #require(try stores[0].store.exportJSON(entity: "Word").arrayValue?.first)
        let second = try #require(try stores[1].store.exportJSON(entity: "Word").arrayValue?.first)
        #expect(first["extra"]?.serializedBytes() == second["extra"]?.serializedBytes())
        #expect(exports.count == 2)
    }

    // MARK: - Fetch

    static let priceSchema = """
        {"entities": {"Price": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "amount": {"type": "decimal"}}}}}
        """

    /// Decimals that a double cannot tell apart, whose canonical text sorts against their value:
    /// `10.000000000000000001` > `9.9999999999999999999` (both the double 10),
    /// `-0.1` > `-0.1000000000000000000001` (both the double -0.1).
    static let prices = """
        [{"id": 1, "amount": 10.000000000000000001}, {"id": 2, "amount": 9.9999999999999999999},
         {"id": 3, "amount": -0.1}, {"id": 4, "amount": -0.1000000000000000000001}, {"id": 5, "amount": null},
         {"id": 6, "amount": 100000000000000000000}, {"id": 7, "amount": 99999999999999999999.5}]
        """

    /// Docs/PostgreSQL.md, "What differs from SQLite": "sorting by a decimal is by value on
    /// both"; Docs/Records.md. NULL first ascending, last descending (SQLite's order); ties by
    /// `_id`.
    @Test("Fetches sorted by a decimal are in value order on both stores, beyond a double's precision")
    func fetchSortedByDecimal() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.priceSchema, in: directory) {
            _ = try await store.populate(try Self.json(Self.prices), entity: "Price")
            let ascending = try store.fetch("Price", orderBy: [.ascending("amount")]).map(Self.key)
            #expect(ascending == ["5", "4", "3", "2", "1", "7", "6"], "\(label) ascending")
            let descending = try store.fetch("Price", orderBy: [.descending("amount")]).map(Self.key)
            #expect(descending == ["6", "7", "1", "2", "3", "4", "5"], "\(label) descending")
            let exported = try #require(try store.exportJSON(entity: "Price").arrayValue).map {
                $0["amount"]?.serialized() ?? "?"
            }
            #expect(
                exported == [
                    #""10.000000000000000001""#, #""9.9999999999999999999""#, #""-0.1""#,
                    #""-0.1000000000000000000001""#, "null", #""100000000000000000000""#,
                    #""99999999999999999999.5""#,
                ], "\(label) export keeps every digit")
        }
    }

    /// An observation sorted by a decimal delivers records in value order, and a new record
    /// lands at its place by value (Docs/Observation.md: "places them by the sort order (a
    /// `decimal` by its value, as a fetch sorts it)").
    @Test("Observations sorted by a decimal place records by value on both stores")
    func observationSortedByDecimal() async throws {
        let directory = try TemporaryDirectory()
        var lines: [String: [String]] = [:]
        for (label, store) in try await Self.stores(Self.priceSchema, in: directory) {
            _ = try await store.populate(try Self.json(Self.prices), entity: "Price")
            var iterator = store.observe("Price", orderBy: [.ascending("amount")]).makeAsyncIterator()
            var found: [String] = []
            found.append(Self.line(try #require(try await iterator.next())))
            _ = try await store.populate(
                try Self.json(#"[{"id": 8, "amount": 9.99999999999999999995}]"#), entity: "Price")
            found.append(Self.line(try #require(try await iterator.next())))
            lines[label] = found
            #expect(
                found == [
                    "[5,4,3,2,1,7,6]",
                    "[5,4,3,2,8,1,7,6] d[] i[4] m[] mv[]",
                ], "\(label)")
        }
        #expect(lines["SQLite"] == lines["PostgreSQL"])
    }

    static let textSchema = """
        {"entities": {"Word": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}}}}}
        """

    static let words = #"""
        [{"id": 1, "text": "b"}, {"id": 2, "text": "B"}, {"id": 3, "text": "a"}, {"id": 4, "text": "\u00e9"},
         {"id": 5, "text": "e\u0301"}, {"id": 6, "text": "\uff5e"}, {"id": 7, "text": "\ud83d\ude00"},
         {"id": 8, "text": null}, {"id": 9, "text": ""}, {"id": 10, "text": "\u00c9t\u00e9"},
         {"id": 11, "text": "\u00e9t\u00e9"}, {"id": 12, "text": "a\\%b"}, {"id": 13, "text": "a%b"}]
        """#

    /// Docs/PostgreSQL.md: "Text sorts and compares byte by byte (`COLLATE "C"`), as in SQLite";
    /// "`LIKE` ... ignores the case of ASCII letters, as SQLite's does" (folding ASCII letters
    /// only), and a backslash in its pattern is a backslash.
    @Test("Fetches sorted by text and filtered on unicode text give the same records on both stores")
    func fetchByUnicodeText() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.textSchema, in: directory) {
            _ = try await store.populate(try Self.json(Self.words), entity: "Word")
            let ascending = try store.fetch("Word", orderBy: [.ascending("text")]).map(Self.key)
            #expect(ascending == ["8", "9", "2", "3", "13", "12", "1", "5", "10", "4", "11", "6", "7"], "\(label)")
            let descending = try store.fetch("Word", orderBy: [.descending("text")]).map(Self.key)
            #expect(descending == ["7", "6", "11", "4", "10", "5", "1", "12", "13", "3", "2", "9", "8"], "\(label)")
            func matching(_ predicate: String, _ argument: String) throws -> [String] {
                try store.fetch("Word", where: predicate, arguments: [argument]).map(Self.key)
            }
            #expect(try matching("text = ?", "\u{E9}") == ["4"], "\(label): no Unicode normalization")
            #expect(try matching("text = ?", "e\u{301}") == ["5"], "\(label): no Unicode normalization")
            #expect(try matching("text LIKE ?", "b%") == ["1", "2"], "\(label): ASCII case folded")
            #expect(try matching("text LIKE ?", "\u{E9}t%") == ["11"], "\(label): non-ASCII case kept")
            #expect(try matching("text LIKE ?", "\u{C9}T\u{E9}") == ["10"], "\(label): ASCII T folded only")
            #expect(try matching("text LIKE ?", #"a\%"#) == ["12"], "\(label): backslash is a backslash")
            #expect(try matching("text > ?", "\u{E9}") == ["6", "7", "11"], "\(label): byte order")
            #expect(try matching("text < ?", "B") == ["9"], "\(label): byte order")
            #expect(try store.count("Word", where: "text >= ?", arguments: ["a"]) == 10, "\(label)")
        }
    }

    // MARK: - Observation

    static let membersSchema = """
        {"entities": {
          "A": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"bs": {"destination": "B", "toMany": true, "inverse": "as"}}},
          "B": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"as": {"destination": "A", "toMany": true, "inverse": "bs"}}}
        }}
        """

    /// Docs/Observation.md: "a record whose many-to-many members (its join table's rows)
    /// change" is modified, on both stores: a population that changes only join rows modifies
    /// the records on both sides, and nothing else.
    @Test("A change of join rows only modifies exactly the records on both sides, on both stores")
    func joinRowsOnly() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.membersSchema, in: directory) {
            _ = try await store.populate(
                try Self.json(#"[{"id": 1, "bs": [{"id": 10}]}, {"id": 2, "bs": [{"id": 11}, {"id": 12}]}]"#),
                entity: "A")
            var bs = store.observe("B", orderBy: [.ascending("id")]).makeAsyncIterator()
            var asIterator = store.observe("A", orderBy: [.ascending("id")]).makeAsyncIterator()
            #expect(Self.line(try #require(try await bs.next())) == "[10,11,12]", "\(label)")
            #expect(Self.line(try #require(try await asIterator.next())) == "[1,2]", "\(label)")
            // A1 trades 10 for 12: only join rows change.
            _ = try await store.populate(try Self.json(#"[{"id": 1, "bs": [12]}]"#), entity: "A")
            #expect(Self.line(try #require(try await bs.next())) == "[10,11,12] d[] i[] m[0>0,2>2] mv[]", "\(label)")
            #expect(Self.line(try #require(try await asIterator.next())) == "[1,2] d[] i[] m[0>0] mv[]", "\(label)")
            // B12 given from its side: it leaves A2; A1 and A2 and B12 change.
            _ = try await store.populate(try Self.json(#"[{"id": 12, "as": [1]}]"#), entity: "B")
            #expect(Self.line(try #require(try await bs.next())) == "[10,11,12] d[] i[] m[2>2] mv[]", "\(label)")
            #expect(Self.line(try #require(try await asIterator.next())) == "[1,2] d[] i[] m[1>1] mv[]", "\(label)")
        }
    }

    static let treeSchema = """
        {"entities": {"Node": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
          "relationships": {
            "parent": {"destination": "Node", "inverse": "children"},
            "children": {"destination": "Node", "toMany": true, "inverse": "parent", "merge": "union"}}}}}
        """

    /// Docs/Observation.md: a tree's `parent` "changes the parent's `children`": moving a node
    /// modifies it, its old parent and its new one; a sort by name moves exactly the renamed
    /// node.
    @Test("A node moved in a tree modifies it and both parents, on both stores")
    func treeMoves() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.treeSchema, in: directory) {
            _ = try await store.populate(
                try Self.json(
                    #"[{"id": 1, "name": "r", "children": [{"id": 2, "name": "x"}, {"id": 3, "name": "y"}]}, {"id": 4, "name": "z"}]"#
                ), entity: "Node")
            var iterator = store.observe("Node", orderBy: [.ascending("name")]).makeAsyncIterator()
            #expect(Self.line(try #require(try await iterator.next())) == "[1,2,3,4]", "\(label)")
            _ = try await store.populate(try Self.json(#"[{"id": 3, "parent": 4}]"#), entity: "Node")
            #expect(
                Self.line(try #require(try await iterator.next())) == "[1,2,3,4] d[] i[] m[0>0,2>2,3>3] mv[]",
                "\(label)")
            // Renaming 2 to "zz" moves it to the end, and changes nothing else.
            _ = try await store.populate(try Self.json(#"[{"id": 2, "name": "zz"}]"#), entity: "Node")
            #expect(
                Self.line(try #require(try await iterator.next())) == "[1,3,4,2] d[] i[] m[1>3] mv[1>3]",
                "\(label)")
        }
    }

    static let mediaSchema = """
        {"entities": {
          "Media": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}},
          "Photo": {"parent": "Media", "attributes": {"lens": {"type": "string"}},
            "relationships": {"tags": {"destination": "Tag", "toMany": true, "inverse": "photos"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}},
            "relationships": {"photos": {"destination": "Photo", "toMany": true, "inverse": "tags"}}}
        }}
        """

    /// Docs/Observation.md: "A sub-entity's records are part of its parent's results", with
    /// their members ("a photo's tags, in an observation of media").
    @Test("A sub-entity's many-to-many change modifies it in an observation of its parent, on both stores")
    func subentityMembers() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.mediaSchema, in: directory) {
            _ = try await store.populate(try Self.json(#"[{"id": 1}, {"id": 3}]"#), entity: "Media")
            _ = try await store.populate(try Self.json(#"[{"id": 2, "tags": [{"name": "sea"}]}]"#), entity: "Photo")
            _ = try await store.populate(try Self.json(#"[{"name": "sky"}]"#), entity: "Tag")
            var iterator = store.observe("Media", orderBy: [.ascending("id")]).makeAsyncIterator()
            #expect(Self.line(try #require(try await iterator.next())) == "[1,2,3]", "\(label)")
            _ = try await store.populate(try Self.json(#"[{"id": 2, "tags": ["sea", "sky"]}]"#), entity: "Photo")
            #expect(
                Self.line(try #require(try await iterator.next())) == "[1,2,3] d[] i[] m[1>1] mv[]", "\(label)")
        }
    }

    /// Orphan deletion delivers the deletions (Docs/Observation.md: "Every way a row can
    /// change: populations, orphan deletions, ..."); a population that fails and rolls back
    /// delivers nothing, so the next delivery goes from the results before it.
    @Test("Orphan deletions are delivered and a rolled-back population delivers nothing, on both stores")
    func orphansAndRollback() async throws {
        let directory = try TemporaryDirectory()
        for (label, store) in try await Self.stores(Self.membersSchema, in: directory) {
            _ = try await store.populate(
                try Self.json(#"[{"id": 1, "bs": [{"id": 10}]}, {"id": 2}, {"id": 3}]"#), entity: "A")
            var asIterator = store.observe("A", orderBy: [.descending("id")]).makeAsyncIterator()
            var bs = store.observe("B", orderBy: [.ascending("id")]).makeAsyncIterator()
            #expect(Self.line(try #require(try await asIterator.next())) == "[3,2,1]", "\(label)")
            #expect(Self.line(try #require(try await bs.next())) == "[10]", "\(label)")
            // A population that writes A 4 and A 5 (and a join row), then fails at its orphan
            // rule, whose condition names no column: it rolls back, and delivers nothing.
            var failing = PopulationOptions()
            failing.deleteOrphans = .matching("no_such_column = ?", [1])
            await #expect(throws: WebRecordError.self, "\(label)") {
                _ = try await store.populate(
                    try Self.json(#"[{"id": 4}, {"id": 5, "bs": [{"id": 10}]}]"#), entity: "A", options: failing)
            }
            #expect(try store.count("A") == 3, "\(label): rolled back")
            var options = PopulationOptions()
            options.deleteOrphans = .all
            // Orphans 1 and 3 deleted: B 10 loses its member A 1.
            _ = try await store.populate(try Self.json(#"[{"id": 2}]"#), entity: "A", options: options)
            #expect(Self.line(try #require(try await asIterator.next())) == "[2] d[0,2] i[] m[] mv[]", "\(label)")
            #expect(Self.line(try #require(try await bs.next())) == "[10] d[] i[] m[0>0] mv[]", "\(label)")
        }
    }

    // MARK: - Extreme doubles

    static let numberSchema = """
        {"entities": {"Number": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "value": {"type": "double"}}}}}
        """

    /// Any finite double a response holds is stored and exported as it is on both stores
    /// (Docs/PostgreSQL.md, "Values": a double "is sent in its shortest form that reads back
    /// exactly"), subnormal ones and the largest included.
    @Test("Subnormal and extreme doubles are stored and exported the same on both stores")
    func extremeDoubles() async throws {
        let directory = try TemporaryDirectory()
        let response = """
            [{"id": 1, "value": 5e-324}, {"id": 2, "value": 2.2250738585072014e-308},
             {"id": 3, "value": 1.7976931348623157e308}, {"id": 4, "value": -4.9e-324},
             {"id": 5, "value": 1e-320}]
            """
        var exports: [String: [UInt8]] = [:]
        for (label, store) in try await Self.stores(Self.numberSchema, in: directory) {
            do {
                _ = try await store.populate(try Self.json(response), entity: "Number")
            } catch {
                Issue.record("\(label): \(error)")
            }
            let values = try store.fetch("Number", orderBy: [.ascending("id")]).map {
                $0.jsonValue("value")?.doubleValue
            }
            #expect(
                values == [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -5e-324, 1e-320], "\(label)")
            exports[label] = try store.exportJSON(entity: "Number").serializedBytes()
        }
        #expect(exports["SQLite"] == exports["PostgreSQL"])
    }
}
