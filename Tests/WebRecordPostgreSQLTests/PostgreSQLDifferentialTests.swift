import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The same responses populated into a PostgreSQL store and a SQLite store, value by value:
/// both must report the same changes and warnings, hold the same rows and export the same
/// text. Hand-picked edge values of every attribute type, then seeded random ones.
///
/// A sweep puts each value in a record of its own; when the stores disagree, each value is
/// populated again alone, in new stores, so that a failure names the single value that
/// differs.
@Suite struct PostgreSQLDifferentialTests {
    /// One attribute of every type on `Item` (keyed by a string), an integer-keyed `Counter`,
    /// and an entity keyed by each other type a key may have.
    static let schemaJSON = """
        {
          "entities": {
            "Item": {
              "primaryKey": "key",
              "attributes": {
                "key": { "type": "string" }, "s": { "type": "string" }, "i": { "type": "integer" },
                "d": { "type": "double" }, "m": { "type": "decimal" }, "b": { "type": "boolean" },
                "t": { "type": "date" }, "x": { "type": "data" }, "u": { "type": "uuid" }, "l": { "type": "url" },
                "j": { "type": "json" }
              },
              "relationships": {
                "counter": { "destination": "Counter", "inverse": "items" },
                "labels": { "destination": "Label", "toMany": true, "ordered": true }
              }
            },
            "Label": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } },
            "Box": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "parts": { "destination": "Part", "toMany": true, "ordered": true, "inverse": "box" } }
            },
            "Part": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "box": { "destination": "Box", "inverse": "parts" } }
            },
            "Entry": {
              "primaryKey": ["name", "when", "amount"],
              "attributes": {
                "name": { "type": "string" }, "when": { "type": "date" }, "amount": { "type": "decimal" },
                "n": { "type": "integer" }
              }
            },
            "Counter": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "label": { "type": "string" } },
              "relationships": { "items": { "destination": "Item", "toMany": true, "inverse": "counter" } }
            },
            "ByDouble": { "primaryKey": "k", "attributes": { "k": { "type": "double" }, "n": { "type": "integer" } } },
            "ByDecimal": { "primaryKey": "k", "attributes": { "k": { "type": "decimal" }, "n": { "type": "integer" } } },
            "ByDate": { "primaryKey": "k", "attributes": { "k": { "type": "date" }, "n": { "type": "integer" } } },
            "ByUUID": { "primaryKey": "k", "attributes": { "k": { "type": "uuid" }, "n": { "type": "integer" } } },
            "ByURL": { "primaryKey": "k", "attributes": { "k": { "type": "url" }, "n": { "type": "integer" } } }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "Differential.json")
        } catch {
            fatalError("the differential schema does not load: \(error)")
        }
    }()

    // MARK: - Integers

    @Test func integersAgree() throws {
        expectAgreement(
            try sweep(
                "i",
                [
                    "0", "1", "-1", "9223372036854775807", "-9223372036854775808", "1.0", "1e3", "1E3", "2.5",
                    #""42""#, #"" 42 ""#, #""4.0""#, #""+5""#, #""-0""#, "-0", "0.0", "-0.0", "9223372036854775808",
                    "-9223372036854775809", "1e19", "123456789012345678901234567890", "9.223372036854775807e18",
                    "9223372036854775807.0", "1e-3", "true", #""""#, #""0x10""#, #""1e3""#, "null", "[1]", #"{"a":1}"#,
                    #""00042""#, #""-9223372036854775808""#, #""9223372036854775808""#,
                ]))
    }

    // MARK: - Doubles

    @Test func doublesAgree() throws {
        expectAgreement(
            try sweep(
                "d",
                [
                    "0", "1", "-1", "1.0", "3", "0.1", "0.30000000000000004", "5e-324", "4.9e-324", "-5e-324",
                    "2.2250738585072014e-308", "2.225073858507201e-308", "1e308", "-1e-308", "1.7976931348623157e308",
                    "1e309", "-1e309", "1e-400", "9007199254740993", "123456789012345678901234567890",
                    "0.1000000000000000055511151231257827021181583404541015625", #""1.5""#, #""-2e3""#, #"" 1.5""#,
                    #""1.5 ""#, #""NaN""#, #""Infinity""#, #""-inf""#, #""0x1p3""#, #""1e309""#, #""5e-324""#,
                    #""12345678901234567890123456789012345678901234567890""#, "-0.0", "true", #""""#,
                    String(repeating: "9", count: 400), "0." + String(repeating: "0", count: 400) + "1",
                ]))
    }

    // MARK: - Decimals

    @Test func decimalsAgree() throws {
        expectAgreement(
            try sweep(
                "m",
                [
                    "0", "1", "-1", "0.1", #""0.1""#, "1e-20", #""1e-20""#, "1E+30", #""1E+30""#, #""1.50""#,
                    "1.50", #""100""#, "100", "1e2", #""-0""#, #""-0.00""#, "-0", "-0.0", "0.12345678901234567890123",
                    #""12345678901234567890123456789012345678""#, #""123456789012345678901234567890123456789""#,
                    #""1234567890123456789012345678901234567800000""#, #""1e127""#, #""1e128""#, #""1e-128""#,
                    #""1e-129""#, #""-1.5e-10""#, #""1.2.3""#, #"" 1""#, #""+1""#, #"".5""#, #""5.""#, "123.4500",
                    #""0.000""#, #""1e0""#, "true", #""""#, #""NaN""#, "9223372036854775808",
                    #""0.00000000000000000000000000000000000001""#,
                ]))
    }

    // MARK: - Booleans

    @Test func booleansAgree() throws {
        expectAgreement(
            try sweep(
                "b",
                [
                    "true", "false", "0", "1", #""true""#, #""yes""#, #""1""#, #""YES""#, #""False""#, #""no""#,
                    #""0""#, #""TRUE""#, "2", "-1", "1.0", "0.0", "1e0", #""on""#, #""""#, #""t""#, #"" true""#,
                    "null", "[]",
                ]))
    }

    // MARK: - Dates

    @Test func datesAgree() throws {
        expectAgreement(
            try sweep(
                "t",
                [
                    #""2012-11-21T02:33:42Z""#, #""2014-06-11T07:33:42.009+0000""#, #""2012-11-21 02:33:42""#,
                    #""2012-11-21""#, #""2012-11-21T02:33:42.123456Z""#, #""2012-11-21T02:33:42.123000Z""#,
                    #""2012-11-21T02:33:42.1Z""#, #""2012-11-21T02:33:42.12Z""#, #""2012-11-21T02:33:42+14:00""#,
                    #""2012-11-21T02:33:42-12:00""#, #""2012-11-21T02:33:42+1400""#, #""2012-11-21T02:33:42+05:45""#,
                    #""2024-02-29T00:00:00Z""#, #""2023-02-29""#, #""1900-02-29""#, #""2000-02-29T23:59:59.999Z""#,
                    #""0001-01-01T00:00:00Z""#, #""0001-01-01""#, #""9999-12-31T23:59:59.999Z""#,
                    #""9999-12-31T23:59:59-01:00""#, #""0001-01-01T00:00:00+01:00""#, #""2012-11-21T23:59:60Z""#,
                    #""2012-11-21T02:33:42,5Z""#, #""20121121T023342Z""#, #""1353465222""#, "1353465222",
                    "1353465222.5", "1353465222.123", "1353465222.1234", "1353465222123", "0", "-1",
                    "-62135596800", "253402300799.999", "253402300800", "-62167219200", "1.5e9", #""""#, "true",
                    #""2012-11-21T02:33:42.000000001Z""#, #""2012-13-01""#, #""2012-11-21T24:00:00Z""#,
                    #""1970-01-01T00:00:00.0005Z""#,
                ]))
    }

    // MARK: - Strings, URLs, UUIDs, JSON, data

    static let unicodeTexts = [
        "e\u{301}", "\u{E9}", "👩‍👩‍👧‍👦", "שלום עולם", "مرحبا", "a\u{2028}b\u{2029}c", "\u{FEFF}bom",
        "\t\n\r\\\"'", "\u{1}\u{1F}\u{7F}", "\u{10FFFF}", "\\N", "NULL", "\\x00", "{\"a\",NULL}", "$1", "?", "",
        " ", "  trailing  ", "42", "0042", "1e3", "2012-11-21T02:33:42Z", "true", "ß", "ﬃ", "İ", "Ω\u{2126}",
    ]

    @Test func stringsAgree() throws {
        let texts = Self.unicodeTexts.map(Self.quoted)
        let numbers = ["12", "1.5", "1.50", "-0", "-0.0", "1e3", "1E+30", "18446744073709551615", "true", "false"]
        let long = [Self.quoted(String(repeating: "é👍a", count: 1_048_576 / 7))]
        expectAgreement(try sweep("s", texts + numbers + long))
    }

    @Test func urlsAgree() throws {
        expectAgreement(
            try sweep(
                "l",
                [
                    "https://example.com/", "https://example.com/a b", "relative/path", "", "http://例え.jp/é",
                    "mailto:someone@example.com", "https://example.com/?q=1&r=%20#frag", " http://x ", "//host/path",
                    "https://EXAMPLE.com/A", "file:///tmp/x", "a:b", "%", "http://[::1]:80/", "🙂",
                ].map(Self.quoted) + ["12", "true"]))
    }

    @Test func uuidsAgree() throws {
        expectAgreement(
            try sweep(
                "u",
                [
                    "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                    "00000000-0000-0000-0000-000000000000", "{e621e1f8-c36c-495a-93fc-0c247a3e6e5f}",
                    "e621e1f8c36c495a93fc0c247a3e6e5f", "not-a-uuid", "", " e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
                ].map(Self.quoted) + ["12"]))
    }

    @Test func jsonValuesAgree() throws {
        expectAgreement(
            try sweep(
                "j",
                [
                    #"{"b":1,"a":2}"#, #"{"a":2,"b":1}"#, #"[1,[2,{"c":null}]]"#, #""str""#, "1.50", "1e400", "-0",
                    "-0.0", #""\u2028""#, #"{"a":"\u00e9","e\u0301":"\ud83d\ude00"}"#, #"{"":""}"#,
                    "123456789012345678901234567890", "true", "false", "[]", "{}", #""\\\"\/\b\f\n\r\t""#,
                    #"{"a":{"b":{"c":{"d":[1,2,3,{"e":"f"}]}}}}"#, "1E+2", "0.1", "null", #""""#,
                ]))
    }

    @Test func dataAgree() throws {
        var random = SeededRandom(seed: 7)
        let lengths = [0, 1, 2, 3, 4, 5, 63, 64, 65, 255, 256, 1000, 100_000]
        let encoded = lengths.map { length in
            Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }).base64EncodedString()
        }
        let odd = [
            "AA==", "AQ==", "AR==", "AAA=", "AAAA", "/w==", "////", "A===", "AA", "not base64", " AA==", "AA==\n",
        ]
        expectAgreement(try sweep("x", (encoded + odd).map(Self.quoted) + ["12", "null"]))
    }

    // MARK: - Seeded random values

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomValuesAgree(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for attribute in ["s", "i", "d", "m", "b", "t", "x", "u", "l", "j"] {
            let values = (0..<40).map { _ in Self.randomValue(for: attribute, &random) }
            expectAgreement(try sweep(attribute, values), "seed \(seed), attribute \(attribute)")
        }
    }

    // MARK: - Primary keys

    @Test func stringKeysAreMergedAndSplitAlike() throws {
        let pairs: [(String, String)] = [
            (#""\u00e9""#, #""e\u0301""#), (#""a""#, #""A""#), (#""a""#, #""a ""#), (#""1""#, #""01""#),
            (#""1""#, "1"), (#""1.0""#, "1.0"), (#""1.5""#, "1.50"), (#""ß""#, #""ss""#), (#""K""#, #""\u212a""#),
            (#""x""#, #""x\u0001""#),
            ("18446744073709551615", #""18446744073709551615""#), ("true", #""true""#),
        ]
        for (first, second) in pairs {
            let together = "[{\"key\": \(first), \"s\": \"one\"}, {\"key\": \(second), \"s\": \"two\"}]"
            let apart = ["[{\"key\": \(first), \"s\": \"one\"}]", "[{\"key\": \(second), \"s\": \"two\"}]"]
            expectAgreement(try Self.compare([together, together].map { ("Item", $0) }), "\(first) \(second)")
            expectAgreement(try Self.compare((apart + apart).map { ("Item", $0) }), "\(first) then \(second)")
        }
    }

    @Test func integerKeysAreMergedAndSplitAlike() throws {
        let ids = [
            "1", #""1""#, "1.0", "1e0", #""01""#, #""+1""#, #"" 1""#, #""1.0""#, "9223372036854775807",
            #""9223372036854775807""#, "9.223372036854775807e18", "-0", #""-0""#, "0",
        ]
        // As the key of top-level records, as nested objects and as references by key.
        for (index, id) in ids.enumerated() {
            let steps = [
                ("Counter", "[{\"id\": \(id), \"label\": \"first \(index)\"}]"),
                ("Item", "[{\"key\": \"k\(index)\", \"counter\": {\"id\": \(id), \"label\": \"nested\"}}]"),
                ("Item", "[{\"key\": \"r\(index)\", \"counter\": \(id)}]"),
                ("Counter", "[{\"id\": \(id), \"label\": \"again\"}]"),
            ]
            expectAgreement(try Self.compare(steps), "id \(id)")
        }
        // All of them in one response, after each other.
        let all = "[" + ids.enumerated().map { "{\"id\": \($1), \"label\": \"l\($0)\"}" }.joined(separator: ", ") + "]"
        expectAgreement(try Self.compare([("Counter", all), ("Counter", all)]), "all ids")
    }

    @Test(arguments: [
        (
            "ByDouble",
            [
                "1", "1.0", #""1""#, "1e0", "0.1", "0.30000000000000004", "5e-324", "-0.0", "0", "9007199254740993",
                "9007199254740992", "1e308",
            ]
        ),
        (
            "ByDecimal",
            [
                "1.5", "1.50", #""1.5""#, #""1.50""#, "15e-1", "1", "1.0", "-0", "0", #""-0.00""#, "1E+30",
                #""1000000000000000000000000000000""#, "1e-20",
            ]
        ),
        (
            "ByDate",
            [
                #""2012-11-21T02:33:42Z""#, #""2012-11-21T03:33:42+01:00""#, "1353465222", #""2012-11-21 02:33:42""#,
                #""2012-11-21T02:33:42.000Z""#, "1353465222.0005", #""0001-01-01""#, #""9999-12-31T23:59:59.999Z""#,
            ]
        ),
        (
            "ByUUID",
            [
                #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#, #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#,
                #""e621e1f8-c36c-495a-93fc-0c247a3e6e5F""#,
            ]
        ),
        (
            "ByURL",
            [
                #""https://example.com""#, #""https://example.com/""#, #""HTTPS://example.com""#,
                #""https://example.com ""#, #""https://ex%61mple.com""#,
            ]
        ),
    ])
    func otherKeysAreMergedAndSplitAlike(entity: String, keys: [String]) throws {
        let all = "[" + keys.enumerated().map { "{\"k\": \($1), \"n\": \($0)}" }.joined(separator: ", ") + "]"
        expectAgreement(try Self.compare([(entity, all), (entity, all)]), "\(entity), all together")
        // One response per key, then again with other values.
        let apart = keys.enumerated().map { (entity, "[{\"k\": \($1), \"n\": \($0)}]") }
        let again = keys.enumerated().map { (entity, "[{\"k\": \($1), \"n\": \($0 + 100)}]") }
        expectAgreement(try Self.compare(apart + again), "\(entity), one at a time")
    }

    @Test func compositeKeysAreMergedAndSplitAlike() throws {
        let keys = [
            #""name": "a", "when": "2012-11-21T02:33:42Z", "amount": "1.50""#,
            #""name": "a", "when": "2012-11-21T03:33:42+01:00", "amount": 1.5"#,
            #""name": "a", "when": 1353465222, "amount": "15e-1""#,
            #""name": "A", "when": "2012-11-21", "amount": "-0""#, #""name": "A", "when": "2012-11-21", "amount": 0"#,
            #""name": "\u00e9", "when": "0001-01-01", "amount": "1e-20""#,
            #""name": "e\u0301", "when": "0001-01-01", "amount": "1e-20""#,
            #""name": "b", "when": "9999-12-31T23:59:59.999Z", "amount": "1E+30""#,
            #""name": "b", "amount": "1""#, #""name": "b", "when": null, "amount": "1""#,
        ]
        let all = "[" + keys.enumerated().map { "{\($1), \"n\": \($0)}" }.joined(separator: ", ") + "]"
        expectAgreement(try Self.compare([("Entry", all), ("Entry", all)]), "together")
        let apart = keys.enumerated().map { ("Entry", "[{\($1), \"n\": \($0)}]") }
        let again = keys.enumerated().map { ("Entry", "[{\($1), \"n\": \($0 + 100)}]") }
        expectAgreement(try Self.compare(apart + again), "one at a time")
    }

    @Test func orderedLabelsAreMergedAndSplitAlike() throws {
        let steps = [
            #"[{"key": "a", "labels": ["\u00e9", "e\u0301", "x", "x", "X", "x ", "1", "01"]}]"#,
            #"[{"key": "a", "labels": ["e\u0301", "\u00e9", "01", 1, "y"]}, {"key": "b", "labels": ["\u00e9"]}]"#,
            #"[{"key": "a", "labels": []}, {"key": "b", "labels": [{"name": "e\u0301"}, "\u00e9"]}]"#,
        ].map { ("Item", $0) }
        expectAgreement(try Self.compare(steps + steps))
    }

    @Test func orderedPartsSetByTheirBoxAgree() throws {
        let steps = [
            ("Box", #"[{"id": "b", "parts": ["p1", "p2"]}]"#), ("Box", #"[{"id": "b", "parts": ["p2", "p3", "p1"]}]"#),
            ("Box", #"[{"id": "c", "parts": [{"id": "p1"}, "p4"]}, {"id": "b", "parts": ["p4"]}]"#),
        ]
        expectAgreement(try Self.compare(steps))
    }

    /// A part linked to its box from the part's side (`"box": "b"`) has no position (NULL in
    /// both stores); the export and the box's related records list an ordered to-many by
    /// position, NULL first, on both stores: after `{"id": "b", "parts": ["p1"]}` and `{"id":
    /// "p2", "box": "b"}`, the box's parts are `["p2", "p1"]`. (PostgreSQL sorts NULL last
    /// unless told.)
    @Test func aPartLinkedFromItsOwnSideIsListedAlike() throws {
        let steps = [("Box", #"[{"id": "b", "parts": ["p1"]}]"#), ("Part", #"[{"id": "p2", "box": "b"}]"#)]
        let pair = try StorePair()
        for (entity, json) in steps { expectAgreement(try pair.populate(json, entity: entity), entity) }
        let sqliteBox = try #require(
            try RecordStore(database: pair.sqlite, configuration: RecordStore.Configuration()).fetchOne(
                "Box", primaryKey: "b"))
        let box = try #require(
            try RecordStore(database: pair.postgreSQL, configuration: RecordStore.Configuration()).fetchOne(
                "Box", primaryKey: "b"))
        let sqliteParts = sqliteBox.relatedRecords("parts").map { "\($0.primaryKeyValue ?? nil)" }
        let parts = box.relatedRecords("parts").map { "\($0.primaryKeyValue ?? nil)" }
        #expect(parts == sqliteParts)
        #expect(parts == ["\"p2\"", "\"p1\""], "\(parts)")
    }

    // MARK: - Re-imports and changes

    @Test func aReimportAndAChangeReportTheSameCounts() throws {
        var random = SeededRandom(seed: 11)
        func record(_ index: Int, _ random: inout SeededRandom) -> String {
            let attributes = ["s", "i", "d", "m", "b", "t", "x", "u", "l", "j"].map { attribute in
                "\"\(attribute)\": \(Self.randomValue(for: attribute, &random))"
            }
            return "{\"key\": \"r\(index)\", \(attributes.joined(separator: ", ")), \"counter\": \(index % 5)}"
        }
        let records = (0..<60).map { record($0, &random) }
        let first = "[" + records.joined(separator: ", ") + "]"
        // Every third record changes all its values.
        let changed = records.enumerated().map { $0 % 3 == 0 ? record($0, &random) : $1 }
        let second = "[" + changed.joined(separator: ", ") + "]"
        let pair = try StorePair()
        expectAgreement(try pair.populate(first, entity: "Item"), "first")
        expectAgreement(try pair.populate(first, entity: "Item", expectNoWrites: true), "re-import")
        expectAgreement(try pair.populate(second, entity: "Item"), "changes")
        expectAgreement(try pair.populate(second, entity: "Item", expectNoWrites: true), "re-import of changes")
    }

    @Test func aStreamedPopulationInSmallBatchesAgrees() async throws {
        var random = SeededRandom(seed: 13)
        let records = (0..<120).map { index in
            let attributes = ["s", "i", "d", "m", "b", "t", "x", "u", "l", "j"].map { attribute in
                "\"\(attribute)\": \(Self.randomValue(for: attribute, &random))"
            }
            return "{\"key\": \"r\(index % 100)\", \(attributes.joined(separator: ", ")), \"counter\": \(index % 7)}"
        }
        let data = Data(("[" + records.joined(separator: ", ") + "]").utf8)
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 2_000)
        }
        let pair = try StorePair()
        for pass in ["first", "again"] {
            let expected = try await ResponsePopulation(store: pair.sqlite).populate(streaming: open, entity: "Item")
            let result = try await ResponsePopulation(store: pair.postgreSQL).populate(streaming: open, entity: "Item")
            #expect(result.changesByEntity == expected.changesByEntity, "\(pass)")
            #expect(
                result.debugger.warnings.map(\.message).sorted() == expected.debugger.warnings.map(\.message).sorted(),
                "\(pass)")
            expectAgreement(try pair.contentDifferences() + pair.exportDifferences(), pass)
        }
    }

    @Test func moreRecordsThanOneUpdateStatementHoldsAgree() throws {
        let count = PostgreSQLRecordTransaction.rowsPerStatement + 100
        func response(_ version: Int) -> String {
            "["
                + (0..<count).map { index in
                    "{\"key\": \"k\(index)\", \"i\": \(index * version), \"m\": \"\(index).\(version)0\", \"t\": \(1_353_465_222 + index * version), \"counter\": \(index % 50)}"
                }.joined(separator: ", ") + "]"
        }
        let pair = try StorePair()
        for (index, json) in [response(1), response(1), response(2)].enumerated() {
            expectAgreement(try pair.populate(json, entity: "Item"), "step \(index + 1)")
        }
    }

    // MARK: - Fetches

    /// Records with and without a value of each attribute, fetched in ascending and
    /// descending order of it.
    static let orderedRecords = """
        [
          {"key": "a", "s": "b", "i": 2, "d": 2.5, "m": "10", "b": true, "t": "2012-11-21T02:33:42Z", "x": "AQ==",
           "u": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "l": "https://b.example", "j": [2], "counter": 2},
          {"key": "b"},
          {"key": "c", "s": "a", "i": -1, "d": -0.5, "m": "9", "b": false, "t": "1999-01-01", "x": "/w==",
           "u": "00000000-0000-0000-0000-000000000000", "l": "https://a.example", "j": {"a": 1}, "counter": 1},
          {"key": "d", "m": "-2"}
        ]
        """

    @Test func fetchesSortValuesTheSameWay() throws {
        let pair = try StorePair()
        // Two records with a value of every attribute but the decimal (see below).
        let complete = Self.orderedRecords.replacingOccurrences(of: #"{"key": "b"},"#, with: "")
            .replacingOccurrences(
                of: #"{"key": "d", "m": "-2"}"#,
                with:
                    #"{"key": "d", "m": "3", "s": "c", "i": 0, "d": 0, "b": 0, "t": 0, "x": "", "u": "10000000-0000-0000-0000-000000000000", "l": "c", "j": 0, "counter": 3}"#
            )
            .replacingOccurrences(of: #""m": "9""#, with: #""m": "1""#).replacingOccurrences(
                of: #""m": "10""#, with: #""m": "2""#)
        expectAgreement(try pair.populate(complete, entity: "Item"))
        expectAgreement(
            try pair.fetchOrderDifferences(
                entity: "Item", by: ["key", "s", "i", "d", "b", "t", "x", "u", "l", "j", "counter"]))
    }

    /// In ascending order the records without a value come first, in descending order last, on
    /// both stores (PostgreSQL is told `NULLS FIRST` and `NULLS LAST`, SQLite's order).
    @Test func fetchesSortRecordsWithoutAValueTheSameWay() throws {
        let pair = try StorePair()
        expectAgreement(try pair.populate(#"[{"key": "a", "i": 1}, {"key": "b"}]"#, entity: "Item"))
        expectAgreement(try pair.fetchOrderDifferences(entity: "Item", by: ["i"]))
        let store = RecordStore(database: pair.postgreSQL, configuration: RecordStore.Configuration())
        #expect(try store.fetch("Item", orderBy: [.ascending("i")]).map(\.primaryKeyValue) == ["b", "a"])
        #expect(try store.fetch("Item", orderBy: [.descending("i")]).map(\.primaryKeyValue) == ["a", "b"])
        // Every type of attribute, and a to-one.
        let all = try StorePair()
        expectAgreement(try all.populate(Self.orderedRecords, entity: "Item"))
        expectAgreement(
            try all.fetchOrderDifferences(
                entity: "Item", by: ["s", "i", "d", "m", "b", "t", "x", "u", "l", "j", "counter"]))
    }

    /// Decimals sort by value on both stores: `9` before `10`, `-10.5` before `-2`. (SQLite keeps
    /// a decimal as its canonical text, whose order is not the value's.)
    @Test func fetchesSortDecimalsTheSameWay() throws {
        let pair = try StorePair()
        let decimals = [
            ("a", "10"), ("b", "9"), ("c", "-10.5"), ("d", "-2"), ("e", "0.000000000000000000001"), ("f", "0"),
        ]
        let json = "[" + decimals.map { #"{"key": "\#($0.0)", "m": "\#($0.1)"}"# }.joined(separator: ", ") + "]"
        expectAgreement(try pair.populate(json, entity: "Item"))
        expectAgreement(try pair.fetchOrderDifferences(entity: "Item", by: ["m"]))
        for database in [pair.sqlite as any RecordDatabase, pair.postgreSQL] {
            let store = RecordStore(database: database, configuration: RecordStore.Configuration())
            #expect(
                try store.fetch("Item", orderBy: [.ascending("m")]).map(\.primaryKeyValue)
                    == ["c", "d", "f", "e", "b", "a"], "\(database.dialect)")
        }
    }

    @Test func fetchingByEachKeyFindsTheSameRecord() throws {
        let pair = try StorePair()
        let steps = [
            ("Item", #"[{"key": "\u00e9"}, {"key": "01"}, {"key": "a "}]"#), ("Counter", #"[{"id": 5}]"#),
            ("ByDouble", #"[{"k": 0.1}, {"k": 5e-324}]"#), ("ByDecimal", #"[{"k": "1.50"}, {"k": "1e-20"}]"#),
            ("ByDate", #"[{"k": "2012-11-21T02:33:42Z"}]"#),
            ("ByUUID", #"[{"k": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}]"#),
            ("ByURL", #"[{"k": "https://example.com/"}]"#),
        ]
        for (entity, json) in steps { expectAgreement(try pair.populate(json, entity: entity), entity) }
        let lookups: [(String, JSONValue)] = [
            ("Item", "\u{E9}"), ("Item", "e\u{301}"), ("Item", "01"), ("Item", "1"), ("Item", 1), ("Item", "a "),
            ("Item", "a"), ("Counter", 5), ("Counter", "5"), ("Counter", 5.0), ("Counter", "05"), ("ByDouble", 0.1),
            ("ByDouble", "0.1"), ("ByDouble", .number("5e-324")), ("ByDecimal", "1.5"), ("ByDecimal", .number("1.5")),
            ("ByDecimal", .number("1.500")), ("ByDecimal", "0.00000000000000000001"),
            ("ByDate", "2012-11-21T03:33:42+01:00"), ("ByDate", 1_353_465_222),
            ("ByUUID", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), ("ByURL", "https://example.com/"),
            ("ByURL", "https://example.com"),
        ]
        let sqlite = RecordStore(database: pair.sqlite, configuration: RecordStore.Configuration())
        let postgreSQL = RecordStore(database: pair.postgreSQL, configuration: RecordStore.Configuration())
        for (entity, key) in lookups {
            let expected = Result { try sqlite.fetchOne(entity, primaryKey: key)?.primaryKeyValue }
            let found = Result { try postgreSQL.fetchOne(entity, primaryKey: key)?.primaryKeyValue }
            #expect("\(found)" == "\(expected)", "\(entity) \(key)")
        }
    }

    @Test func theComparisonSeesAValueThatDiffers() throws {
        let pair = try StorePair()
        expectAgreement(try pair.populate(#"[{"key": "a", "m": "1.5", "s": "x"}]"#, entity: "Item"))
        _ = try pair.postgreSQL.withConnection { try $0.execute(#"UPDATE "Item" SET "s" = 'y'"#) }
        let differences = try pair.contentDifferences() + pair.exportDifferences()
        #expect(differences.count == 2, "\(differences)")
        #expect(differences.first?.contains(#"text "x""#) == true, "\(differences)")
    }

    // MARK: - Comparing

    /// Records an issue per difference.
    func expectAgreement(
        _ differences: [String], _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for difference in differences {
            Issue.record("\(context.isEmpty ? "" : context + ": ")\(difference)", sourceLocation: sourceLocation)
        }
    }

    /// Each value of `values` (JSON text) as `attribute` of a record of its own: the
    /// population, a re-import, a change (each record takes the next record's value) and a
    /// re-import of the change, in both stores. When they disagree, each value is tried alone
    /// in new stores: the differences name the values that differ.
    func sweep(_ attribute: String, _ values: [String]) throws -> [String] {
        func steps(_ indexes: [Int]) -> [(String, String)] {
            func response(_ shift: Int) -> String {
                "["
                    + indexes.map { index in
                        "{\"key\": \"\(attribute)\(index)\", \"\(attribute)\": \(values[(index + shift) % values.count])}"
                    }.joined(separator: ", ") + "]"
            }
            return [response(0), response(0), response(1), response(1)].map { ("Item", $0) }
        }
        let pair = try StorePair()
        let differences = try Self.compare(steps(Array(values.indices)), in: pair)
        // The sweep stored a record per value.
        #expect(pair.sqliteOutcomes.first?.changes["Item"]?.hasPrefix("inserted \(values.count),") == true)
        guard !differences.isEmpty else { return [] }
        var isolated: [String] = []
        for index in values.indices {
            let alone = try Self.compare(steps([index]))
            if !alone.isEmpty {
                let next = values[(index + 1) % values.count]
                isolated.append(
                    "value \(Self.shortened(values[index])) (then \(Self.shortened(next))):\n  "
                        + alone.joined(separator: "\n  "))
            }
        }
        return isolated.isEmpty ? differences : isolated
    }

    /// Populates new stores with each step's response; the differences, step by step.
    static func compare(_ steps: [(entity: String, json: String)], in pair: StorePair? = nil) throws -> [String] {
        let pair = try pair ?? StorePair()
        var differences: [String] = []
        for (index, step) in steps.enumerated() {
            differences += try pair.populate(step.json, entity: step.entity).map { "step \(index + 1): \($0)" }
        }
        return differences
    }

    /// A SQLite store and a PostgreSQL store of the schema, populated alike.
    final class StorePair {
        let sqlite: SQLiteDatabase
        let postgreSQL: PostgreSQLDatabase
        /// What each population reported on SQLite.
        private(set) var sqliteOutcomes: [Outcome] = []

        init() throws {
            sqlite = try PostgreSQLStores.sqlite(PostgreSQLDifferentialTests.schema)
            postgreSQL = try PostgreSQLStores.postgreSQL(PostgreSQLDifferentialTests.schema)
            // The tables, made before any population, which may write nothing.
            try postgreSQL.write { _ in }
        }

        /// What a population reported, or its error.
        struct Outcome: Equatable {
            var changes: [String: String] = [:]
            var warnings: [String] = []
            var error: WebRecordError.Code?
            var errorMessage = ""

            static func == (lhs: Outcome, rhs: Outcome) -> Bool {
                lhs.changes == rhs.changes && lhs.warnings == rhs.warnings && lhs.error == rhs.error
            }
        }

        static func outcome(_ populate: () throws -> PopulationResult) -> Outcome {
            do {
                let result = try populate()
                var outcome = Outcome()
                for (entity, counts) in result.changesByEntity where counts != ChangeCounts() {
                    outcome.changes[entity] =
                        "inserted \(counts.inserted), updated \(counts.updated), unchanged \(counts.unchanged), deleted \(counts.deleted)"
                }
                outcome.warnings = result.debugger.warnings.map(\.message).sorted()
                return outcome
            } catch let error as WebRecordError {
                return Outcome(error: error.code, errorMessage: error.message)
            } catch {
                return Outcome(error: .storeError, errorMessage: "\(error)")
            }
        }

        /// Populates both stores with `json` for `entity`; how they differ (nothing when they
        /// agree): the changes reported, the warnings, the rows and the export of every entity.
        func populate(_ json: String, entity: String, expectNoWrites: Bool = false) throws -> [String] {
            let response = try JSONReader().read(json)
            let expected = Self.outcome { try ResponsePopulation(store: sqlite).populate(response, entity: entity) }
            let actual = Self.outcome { try ResponsePopulation(store: postgreSQL).populate(response, entity: entity) }
            sqliteOutcomes.append(expected)
            var differences: [String] = []
            if expected != actual {
                differences.append(
                    "SQLite reported \(Self.describe(expected)), PostgreSQL \(Self.describe(actual))")
            }
            if expectNoWrites, expected.changes.values.contains(where: { !$0.contains("inserted 0, updated 0") }) {
                differences.append("a re-import wrote: \(expected.changes)")
            }
            differences += try contentDifferences()
            differences += try exportDifferences()
            return differences
        }

        static func describe(_ outcome: Outcome) -> String {
            if let error = outcome.error { return "error \(error): \(shortened(outcome.errorMessage))" }
            let changes = outcome.changes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return "[\(changes.joined(separator: "; "))] with \(outcome.warnings.count) warnings "
                + shortened(outcome.warnings.joined(separator: " | "), to: 400)
        }

        /// The keys of `entity`'s records fetched in ascending, then descending, order of each
        /// of `names`, where the two stores give them in different orders.
        func fetchOrderDifferences(entity: String, by names: [String]) throws -> [String] {
            let sqliteStore = RecordStore(database: sqlite, configuration: RecordStore.Configuration())
            let store = RecordStore(database: postgreSQL, configuration: RecordStore.Configuration())
            var differences: [String] = []
            for name in names {
                for order in [SortOrder.ascending(name), .descending(name)] {
                    let expected = try sqliteStore.fetch(entity, orderBy: [order]).map {
                        "\($0.primaryKeyValue ?? nil)"
                    }
                    let fetched = try store.fetch(entity, orderBy: [order]).map { "\($0.primaryKeyValue ?? nil)" }
                    if expected != fetched {
                        differences.append(
                            "fetch \(entity) by \(name) \(order.ascending ? "ascending" : "descending"): SQLite \(expected), PostgreSQL \(fetched)"
                        )
                    }
                }
            }
            return differences
        }

        /// The rows that differ, table by table (rows in `_id` order, `_id`s as ranks).
        func contentDifferences() throws -> [String] {
            let expected = try PostgreSQLStores.content(of: sqlite)
            let actual = try PostgreSQLStores.content(of: postgreSQL)
            var differences: [String] = []
            for table in Set(expected.keys).union(actual.keys).sorted() {
                let sqliteRows = expected[table] ?? []
                let rows = actual[table] ?? []
                guard sqliteRows != rows else { continue }
                if sqliteRows.count != rows.count {
                    differences.append(
                        "table \(table): SQLite holds \(sqliteRows.count) rows, PostgreSQL \(rows.count)")
                }
                for (sqliteRow, row) in zip(sqliteRows, rows) where sqliteRow != row {
                    differences.append(
                        "table \(table): SQLite row \(describe(sqliteRow)), PostgreSQL row \(describe(row))")
                }
            }
            return differences
        }

        /// The first line of each entity's export text that differs.
        func exportDifferences() throws -> [String] {
            let configuration = RecordStore.Configuration()
            let sqliteStore = RecordStore(database: sqlite, configuration: configuration)
            let store = RecordStore(database: postgreSQL, configuration: configuration)
            var differences: [String] = []
            for entity in PostgreSQLDifferentialTests.schema.entities.map(\.name).sorted() {
                let expected = try sqliteStore.exportJSON(entity: entity).serialized(prettyPrinted: true)
                let actual = try store.exportJSON(entity: entity).serialized(prettyPrinted: true)
                guard expected != actual else { continue }
                let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
                let lines = actual.split(separator: "\n", omittingEmptySubsequences: false)
                let first =
                    zip(expectedLines, lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(expectedLines.count, lines.count)
                func line(_ lines: [Substring]) -> String {
                    first < lines.count ? shortened(String(lines[first])) : "(end)"
                }
                differences.append(
                    "export of \(entity), line \(first + 1): SQLite \(line(expectedLines)), PostgreSQL \(line(lines))")
            }
            return differences
        }

        func describe(_ row: [DatabaseValue]) -> String {
            "(" + row.map(PostgreSQLDifferentialTests.describe).joined(separator: ", ") + ")"
        }
    }

    // MARK: - Text

    static func describe(_ value: DatabaseValue) -> String {
        switch value {
        case .real(let number): "real \(number)"
        case .text(let text): "text " + shortened(JSONValue.string(text).serialized())
        case .blob(let data): "blob " + shortened(data.map { String(format: "%02x", $0) }.joined())
        default: value.description
        }
    }

    /// `text`, cut to `limit` characters with the length it had.
    static func shortened(_ text: String, to limit: Int = 120) -> String {
        text.count <= limit ? text : "\(text.prefix(limit))… (\(text.utf8.count) bytes)"
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        JSONValue.string(text).serialized()
    }

    // MARK: - Random values

    /// A random JSON value for `attribute`, as the response's text: mostly values its type
    /// accepts, in the forms responses give them, some it refuses.
    static func randomValue(for attribute: String, _ random: inout SeededRandom) -> String {
        switch attribute {
        case "s": return quoted(randomText(&random))
        case "i": return randomInteger(&random)
        case "d": return randomDouble(&random)
        case "m": return randomDecimal(&random)
        case "b":
            let values = ["true", "false", "0", "1", #""yes""#, #""No""#, #""TRUE""#, #""1""#, #""0""#, "2", #""x""#]
            return values[random.next(below: values.count)]
        case "t": return randomDate(&random)
        case "x":
            let length = [0, 1, 2, 3, random.next(below: 64), random.next(below: 2_000)][random.next(below: 6)]
            return quoted(
                Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }).base64EncodedString())
        case "u":
            let bytes = (0..<16).map { _ in String(format: "%02x", random.next(below: 256)) }.joined()
            var text = bytes.prefix(8) + "-" + bytes.dropFirst(8).prefix(4) + "-" + bytes.dropFirst(12).prefix(4)
            text += "-" + bytes.dropFirst(16).prefix(4) + "-" + bytes.dropFirst(20)
            return quoted(random.next(below: 2) == 0 ? text.uppercased() : String(text))
        case "l":
            let path = (0..<random.next(below: 5)).map { _ in randomText(&random, maximum: 6) }
            let text = "https://example.com/" + path.joined(separator: "/")
            return quoted(
                random.next(below: 4) == 0 ? text.replacingOccurrences(of: "https://example.com", with: "") : text)
        default: return randomJSON(&random, depth: 0)
        }
    }

    static let scalarPools: [[UInt32]] = [
        Array(0x20...0x7E), Array(0xA0...0x17F), Array(0x300...0x36F), Array(0x590...0x5FF), Array(0x600...0x6FF),
        Array(0x4E00...0x4EFF), Array(0x1F300...0x1F6FF),
        [0x1, 0x9, 0xA, 0xD, 0x1F, 0x5C, 0x22, 0x2028, 0x2029, 0xFEFF, 0x200D, 0x10FFFF],
    ]

    static func randomText(_ random: inout SeededRandom, maximum: Int = 40) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<random.next(below: maximum + 1) {
            let pool = scalarPools[random.next(below: scalarPools.count)]
            if let scalar = Unicode.Scalar(pool[random.next(below: pool.count)]) { text.append(scalar) }
        }
        return String(text)
    }

    /// `count` random digits, the first of them not 0 (JSON numbers have no leading zeros).
    static func randomDigits(_ random: inout SeededRandom, count: Int) -> String {
        String(1 + random.next(below: 9))
            + String((1..<max(1, count)).map { _ in Character(String(random.next(below: 10))) })
    }

    static func randomInteger(_ random: inout SeededRandom) -> String {
        let number = Int64(bitPattern: random.next()) >> UInt64(random.next(below: 64))
        switch random.next(below: 6) {
        case 0: return quoted(String(number))
        case 1: return "\(number).0"
        case 2: return "\(number / 1000 * 1000 / 1000)e3"
        case 3:
            return (random.next(below: 2) == 0 ? "-" : "") + randomDigits(&random, count: 19 + random.next(below: 3))
        default: return String(number)
        }
    }

    static func randomDouble(_ random: inout SeededRandom) -> String {
        switch random.next(below: 5) {
        case 0:
            let number = Double(bitPattern: random.next())
            return number.isFinite ? "\(number)" : "1e308"
        case 1:
            let digits = randomDigits(&random, count: 1 + random.next(below: 30))
            return "\(digits)e\(random.next(below: 640) - 330)"
        case 2: return quoted("\(random.nextFraction() * 1e6)")
        case 3: return "\(random.next(below: 1_000_000) - 500_000)"
        default: return "\(Double(bitPattern: random.next() >> 12))"  // subnormals and tiny values
        }
    }

    static func randomDecimal(_ random: inout SeededRandom) -> String {
        let digits = randomDigits(&random, count: 1 + random.next(below: 40))
        let sign = random.next(below: 3) == 0 ? "-" : ""
        var text: String
        switch random.next(below: 3) {
        case 0: text = sign + digits + "e" + String(random.next(below: 300) - 150)
        case 1:
            let point = random.next(below: digits.count + 1)
            text = sign + (point == 0 ? "0" : String(digits.prefix(point))) + "." + digits.dropFirst(point) + "0"
            if text.hasSuffix(".0") && point == digits.count { text += "0" }
        default: text = sign + digits
        }
        return random.next(below: 2) == 0 ? quoted(text) : text
    }

    static func randomDate(_ random: inout SeededRandom) -> String {
        // Milliseconds from 0001-01-01 to 9999-12-31.
        let low: Int64 = -62_135_596_800_000
        let high: Int64 = 253_402_300_799_999
        var milliseconds = low + Int64(random.next() % UInt64(high - low + 1))
        if random.next(below: 4) == 0 { milliseconds = milliseconds / 1000 * 1000 }
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        switch random.next(below: 4) {
        case 0: return "\(milliseconds / 1000)"
        case 1:
            return milliseconds % 1000 == 0
                ? "\(milliseconds / 1000)"
                : "\(milliseconds / 1000).\(String(format: "%03d", abs(Int(milliseconds % 1000))))"
        default:
            let offsets = [0, 60, -60, 330, 345, 14 * 60, -12 * 60, -9 * 60 - 30]
            let offset = offsets[random.next(below: offsets.count)]
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = TimeZone(secondsFromGMT: offset * 60)
            let fractions = ["", ".SSS", ".SSS'000'", ".S'00'"]
            let zones = ["XXX", "XX", "'Z'"]
            let zone = offset == 0 ? zones[random.next(below: 3)] : zones[random.next(below: 2)]
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss" + fractions[random.next(below: fractions.count)] + zone
            return quoted(formatter.string(from: date))
        }
    }

    static func randomJSON(_ random: inout SeededRandom, depth: Int) -> String {
        switch random.next(below: depth > 2 ? 4 : 6) {
        case 0: return quoted(randomText(&random, maximum: 10))
        case 1: return randomDouble(&random)
        case 2: return ["true", "false", "null", "-0", "1.50", "1E+2"][random.next(below: 6)]
        case 3: return randomInteger(&random)
        case 4:
            let elements = (0..<random.next(below: 4)).map { _ in randomJSON(&random, depth: depth + 1) }
            return "[" + elements.joined(separator: ",") + "]"
        default:
            let members = (0..<random.next(below: 4)).map { _ in
                quoted(randomText(&random, maximum: 5)) + ":" + randomJSON(&random, depth: depth + 1)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }
}
