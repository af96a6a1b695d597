import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial value fidelity: every attribute type given boundary values and the same value in
/// several JSON forms. A value is stored exactly as the server meant it, or refused with a
/// non-fatal `typeMismatch` naming the entity, the attribute and the key path, never silently
/// stored as another value (DESIGN §3.9, §3.10; Docs/SchemaFormat.md, "Attribute types").
@Suite("Values: adversarial fidelity")
struct AdversarialValueTests {
    static let schemaJSON = #"""
        {"version": 1, "dateFormats": ["dd/MM/yyyy HH:mm"],
         "entities": {
          "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"},
              "i": {"type": "integer"}, "d": {"type": "double"}, "m": {"type": "decimal"},
              "s": {"type": "string"}, "b": {"type": "boolean"}, "t": {"type": "date"},
              "p": {"type": "date", "dateFormat": "yyyyMMddHHmmss"},
              "x": {"type": "data"}, "u": {"type": "uuid"}, "l": {"type": "url"}, "j": {"type": "json"},
              "n": {"type": "integer", "key": "deep.er"},
              "r": {"type": "string", "transformer": "advVUpper"}}},
          "Coded": {"primaryKey": "code", "keyPathForResponseObject": "data",
            "attributes": {"code": {"type": "string", "transformer": "advVLower"}, "note": {"type": "string"}}},
          "ByDecimal": {"primaryKey": "k", "keyPathForResponseObject": "data",
            "attributes": {"k": {"type": "decimal"}, "note": {"type": "string"}}},
          "ByDate": {"primaryKey": "k", "keyPathForResponseObject": "data",
            "attributes": {"k": {"type": "date"}, "note": {"type": "string"}}},
          "ByUUID": {"primaryKey": "k", "keyPathForResponseObject": "data",
            "attributes": {"k": {"type": "uuid"}, "note": {"type": "string"}}},
          "ByDouble": {"primaryKey": "k", "keyPathForResponseObject": "data",
            "attributes": {"k": {"type": "double"}, "note": {"type": "string"}}}
         }}
        """#

    static let schema: Schema = {
        AttributeTransformers.register("advVUpper") { value in value.stringValue.map { .string($0.uppercased()) } }
        AttributeTransformers.register("advVLower") { value in value.stringValue.map { .string($0.lowercased()) } }
        return AdversarialStreamTests.schema(schemaJSON)
    }()

    static func store() throws -> RecordStore { try RecordStore(inMemory: schema) }

    static func json(_ text: String) throws -> JSONValue { try JSONReader().read(text) }

    /// The stored column `column` of every row of `table`, byte exact, in `_id` order.
    static func column(_ column: String, of table: String, in store: RecordStore) throws -> [String] {
        try store.read { connection in
            try connection.rows(#"SELECT "\#(column)" FROM "\#(table)" ORDER BY _id"#).map { row in
                if case .blob(let bytes) = row[0] {
                    return "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
                }
                return exactText(row[0])
            }
        }
    }

    /// One value given to one attribute of a new Item: stored as `expected` (exact text, as
    /// `exactText` renders it: `'text'`, an integer, `real:`-less doubles as `String(Double)`),
    /// or refused (nil).
    struct Case: Sendable, CustomTestStringConvertible {
        var attribute: String
        var input: String
        var expected: String?
        var testDescription: String { "\(input) → \(attribute): \(expected ?? "refused")" }
        init(_ attribute: String, _ input: String, _ expected: String?) {
            self.attribute = attribute
            self.input = input
            self.expected = expected
        }
    }

    /// Populates `{"id": 1, attribute: input}` into a fresh store; checks the stored column, or
    /// the refusal's message and an absent (NULL) column.
    static func check(_ valueCase: Case, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try store()
        let response = try json(#"{"data": [{"id": 1, "\#(valueCase.attribute)": \#(valueCase.input)}]}"#)
        let result = try store.populate(response, entity: "Item")
        #expect(result.debugger.errors.allSatisfy { !$0.isFatal }, "\(result.debugger)", sourceLocation: sourceLocation)
        let stored = try column(valueCase.attribute, of: "Item", in: store)
        if let expected = valueCase.expected {
            #expect(
                !result.debugger.contains(.typeMismatch), "refused: \(result.debugger)", sourceLocation: sourceLocation)
            #expect(stored == [expected], "sent \(valueCase.input)", sourceLocation: sourceLocation)
        } else {
            let warning = result.debugger.errors.first { $0.code == .typeMismatch }
            #expect(
                warning != nil, "sent \(valueCase.input), stored \(stored) with no typeMismatch",
                sourceLocation: sourceLocation)
            if let warning {
                #expect(warning.entity == "Item" && warning.property == valueCase.attribute, "\(warning)")
                #expect(warning.keyPath == valueCase.attribute, "\(warning)")
            }
            #expect(
                stored == ["NULL"], "a refused value is stored as nothing: \(stored)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Integers

    static let integerCases: [Case] = [
        Case("i", "9223372036854775807", "9223372036854775807"),
        Case("i", "-9223372036854775808", "-9223372036854775808"),
        Case("i", "9223372036854775808", nil),
        Case("i", "-9223372036854775809", nil),
        Case("i", "18446744073709551616", nil),
        Case("i", "1e2", "100"),
        Case("i", "1.0", "1"),
        Case("i", "1.5", nil),
        Case("i", "-0.0", "0"),
        // Past 2^53 a double does not hold the written integer: the digits must be kept.
        Case("i", "123456789012345000.0", "123456789012345000"),
        Case("i", "1.23456789012345e17", "123456789012345000"),
        Case("i", "9.22337203685477e18", "9223372036854770000"),
        Case("i", "-9.223372036854775808e18", "-9223372036854775808"),
        Case("i", "9.223372036854776e18", nil),
        Case("i", "1e19", nil),
        Case("i", "1e400", nil),
        Case("i", "5e-324", nil),
        Case("i", #""+1""#, "1"),
        Case("i", #""0007""#, "7"),
        Case("i", #""\u22125""#, nil),  // U+2212 MINUS SIGN
        Case("i", #""9223372036854775808""#, nil),
        Case("i", #""-9223372036854775808""#, "-9223372036854775808"),
        Case("i", #""0x1F""#, nil),
        Case("i", #""1.0""#, nil),
        Case("i", #""""#, nil),
        Case("i", "true", nil),
        Case("i", "[1]", nil),
        Case("i", #"{"v": 1}"#, nil),
    ]

    @Test("An integer is stored exactly or refused by name", arguments: integerCases)
    func integer(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Doubles

    static let doubleCases: [Case] = [
        Case("d", "5e-324", "\(5e-324)"),
        Case("d", "1.7976931348623157e308", "\(1.7976931348623157e308)"),
        Case("d", "1e308", "\(1e308)"),
        Case("d", "1e400", nil),
        Case("d", "-1e400", nil),
        Case("d", "-0.0", "0.0"),
        Case("d", "0.1", "0.1"),
        Case("d", "0.30000000000000004", "0.30000000000000004"),
        Case("d", "9007199254740993", "9007199254740992.0"),
        Case("d", #""1e400""#, nil),
        Case("d", #""-0""#, "0.0"),
        Case("d", #""0.1""#, "0.1"),
        Case("d", #""1,5""#, nil),
        Case("d", #""1.5 ""#, nil),
        Case("d", #""""#, nil),
        Case("d", "false", nil),
    ]

    @Test("A double is the nearest double or refused by name", arguments: doubleCases)
    func double(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Decimals

    static let decimalCases: [Case] = [
        Case("m", "12345678901234567890.123", "'12345678901234567890.123'"),
        Case("m", #""12345678901234567890.123""#, "'12345678901234567890.123'"),
        Case("m", "0.1", "'0.1'"),
        Case("m", "-12.50", "'-12.5'"),
        Case("m", "1.5e-7", "'0.00000015'"),
        Case("m", "-0.0", "'0'"),
        Case("m", #""+7""#, "'7'"),
        Case("m", "99999999999999999999999999999999999999", "'99999999999999999999999999999999999999'"),
        Case("m", "-99999999999999999999999999999999999999", "'-99999999999999999999999999999999999999'"),
        Case("m", "0.99999999999999999999999999999999999999", "'0.99999999999999999999999999999999999999'"),
        Case("m", "340282366920938463463374607431768211455", nil),
        Case("m", "1.00000000000000000000000000000000000001", nil),
        Case("m", #""1e2e3""#, nil),
        Case("m", #""0x10""#, nil),
        Case("m", "true", nil),
        Case("m", #""""#, nil),
    ]

    @Test("A decimal keeps every digit or is refused by name", arguments: decimalCases)
    func decimal(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Strings

    static let stringCases: [Case] = [
        Case("s", #""a\u0000b""#, "'a\u{0}b'"),
        Case("s", #""\u2028\u2029""#, "'\\u{2028}\\u{2029}'"),
        Case("s", #""\ud83d\ude00""#, "'\\u{1f600}'"),
        Case("s", #""e\u0301""#, "'e\\u{301}'"),
        Case("s", #""\u00e9""#, "'\\u{e9}'"),
        Case("s", #""\ufeffx""#, "'\\u{feff}x'"),
        Case("s", #""""#, "''"),
        Case("s", "1e300", "'1e300'"),
        Case("s", "-0.0", "'-0.0'"),
        Case("s", "1.0e+2", "'1.0e+2'"),
        Case("s", "0.30000000000000004", "'0.30000000000000004'"),
        Case("s", "100", "'100'"),
        Case("s", "false", "'false'"),
        Case("s", "[1]", nil),
        Case("s", #"{"a": "b"}"#, nil),
    ]

    @Test("A string keeps its bytes, and a number its written text", arguments: stringCases)
    func string(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Booleans

    static let booleanCases: [Case] = [
        Case("b", "true", "1"), Case("b", "false", "0"),
        Case("b", "1", "1"), Case("b", "0", "0"), Case("b", "1.0", "1"), Case("b", "-0", "0"), Case("b", "1e0", "1"),
        Case("b", #""TRUE""#, "1"), Case("b", #""Yes""#, "1"), Case("b", #""nO""#, "0"),
        Case("b", #""1""#, "1"), Case("b", #""0""#, "0"),
        Case("b", "2", nil), Case("b", "-1", nil), Case("b", "0.5", nil),
        Case("b", #""2""#, nil), Case("b", #""t""#, nil), Case("b", #""on""#, nil), Case("b", #""1.0""#, nil),
        Case("b", #"" true""#, nil), Case("b", #""""#, nil), Case("b", #""-0""#, nil),
        Case("b", "1.0000000000000000001", nil),
    ]

    @Test("A boolean takes exactly the documented forms", arguments: booleanCases)
    func boolean(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Dates

    static let dateCases: [Case] = [
        Case("t", #""2024-02-29T23:59:59.999999999-00:01""#, "'2024-03-01T00:00:59.999999999Z'"),
        Case("t", #""2024-01-01T00:00:00.000000000000Z""#, "'2024-01-01T00:00:00.000000000Z'"),
        Case("t", #""2024-01-01T12:00:00.Z""#, nil),
        Case("t", #""2024-01-01T12:00:00-00:00""#, "'2024-01-01T12:00:00.000000000Z'"),
        Case("t", #""2024-01-01T12:00:00.5+01:00""#, "'2024-01-01T11:00:00.500000000Z'"),
        Case("t", #""2024-06-01T12:00:00+05:30""#, "'2024-06-01T06:30:00.000000000Z'"),
        Case("t", #""0000-01-01T00:00:00+00:01""#, nil),  // before year 0
        Case("t", #""9999-12-31T23:59:59-01:00""#, nil),  // year 10000
        Case("t", #""9999-12-31T23:59:59.999999999Z""#, "'9999-12-31T23:59:59.999999999Z'"),
        Case("t", #""2023-02-29T00:00:00Z""#, nil),
        Case("t", #""1900-02-29T00:00:00Z""#, nil),
        Case("t", #""2000-02-29T00:00:00Z""#, "'2000-02-29T00:00:00.000000000Z'"),
        Case("t", #""2016-12-31T23:59:60Z""#, nil),
        Case("t", #""2024-00-10T00:00:00Z""#, nil),
        Case("t", #""2024-01-00T00:00:00Z""#, nil),
        Case("t", "1704110400000", nil),  // milliseconds read as seconds: year 55970, refused
        Case("t", "-1e-9", "'1969-12-31T23:59:59.999999999Z'"),
        Case("t", "1e10", "'2286-11-20T17:46:40.000000000Z'"),
        Case("t", "1704110400.1234567890", "'2024-01-01T12:00:00.123456789Z'"),
        Case("t", "1704110400.12345678901", nil),
        Case("t", "-62167219200", "'0000-01-01T00:00:00.000000000Z'"),
        Case("t", "1.7041104e9", "'2024-01-01T12:00:00.000000000Z'"),
        // The schema's pattern, which DateFormatter reads: proleptic Gregorian, not lenient.
        Case("t", #""31/12/1999 23:59""#, "'1999-12-31T23:59:00.000000000Z'"),
        Case("t", #""31/02/2000 10:00""#, nil),
        Case("t", #""29/02/1900 00:00""#, nil),
        Case("t", #""29/02/1600 00:00""#, "'1600-02-29T00:00:00.000000000Z'"),
        Case("t", #""01/01/1500 00:00""#, "'1500-01-01T00:00:00.000000000Z'"),
        Case("t", #""10/10/1582 00:00""#, "'1582-10-10T00:00:00.000000000Z'"),
        Case("t", #""31/12/9999 23:59""#, "'9999-12-31T23:59:00.000000000Z'"),
        // The attribute's own pattern.
        Case("p", #""20240229123456""#, "'2024-02-29T12:34:56.000000000Z'"),
        Case("p", #""20230229123456""#, nil),
        Case("p", #""2024022912345""#, nil),
        Case("p", #""20241301000000""#, nil),
        Case("p", #""15000101000000""#, "'1500-01-01T00:00:00.000000000Z'"),
        Case("p", #""00010101000000""#, "'0001-01-01T00:00:00.000000000Z'"),
        Case("p", #""2024-01-01""#, "'2024-01-01T00:00:00.000000000Z'"),
    ]

    @Test("A date keeps its instant exactly or is refused by name", arguments: dateCases)
    func date(_ valueCase: Case) throws { try Self.check(valueCase) }

    // MARK: - Data, UUID, URL, JSON, transformers

    static let otherCases: [Case] = [
        Case("x", #""AQID""#, "x'010203'"),
        Case("x", #""""#, "x''"),
        Case("x", #""AR==""#, nil),
        Case("x", #""AQ""#, nil),
        Case("x", #""AQID\n""#, nil),
        Case("x", #""-_8=""#, nil),
        Case("x", "1", nil),
        Case("u", #""550e8400-e29b-41d4-a716-446655440000""#, "'550E8400-E29B-41D4-A716-446655440000'"),
        Case("u", #""{550e8400-e29b-41d4-a716-446655440000}""#, nil),
        Case("u", #""550e8400e29b41d4a716446655440000""#, nil),
        Case("u", #"" 550e8400-e29b-41d4-a716-446655440000""#, nil),
        Case("u", #""550e8400-e29b-41d4-a716-4466554400000""#, nil),
        Case("u", #""550e8400-e29b-41d4-a716-44665544000g""#, nil),
        Case("l", #""HTTPS://Example.COM/a?b=c#d""#, "'HTTPS://Example.COM/a?b=c#d'"),
        Case("l", #""https://example.com/a b""#, nil),
        Case("l", #""https://example.com/\u2028""#, nil),
        Case("l", #""https://example.com/%zz""#, nil),
        Case(
            "j", #"{"b": 1, "a": [1.0, 1E2, 1.10, "\u0000\u2028"]}"#, #"'{"a":[1.0,1E2,1.10,"\u0000\u{2028}"],"b":1}'"#),
        Case("j", "-0", "'-0'"),
        Case("j", "12345678901234567890123", "'12345678901234567890123'"),
        Case("j", "1e400", "'1e400'"),
        Case("j", "null", "NULL"),
        Case("r", #""abc""#, "'ABC'"),
        Case("r", "5", nil),  // the transformer refuses a number
    ]

    @Test("Data, UUIDs, URLs, JSON and transformed values are kept or refused by name", arguments: otherCases)
    func other(_ valueCase: Case) throws { try Self.check(valueCase) }

    /// JSON keys are sorted by their UTF-8 bytes (Docs/SchemaFormat.md): canonically equivalent
    /// keys are two keys, in one order whatever order the server wrote them in.
    @Test("JSON object keys sort by their bytes, canonically equivalent keys included")
    func jsonKeysSortByBytes() throws {
        let forms = [
            #"{"f": 1, "e\u0301": 2, "\u00e9": 3, "\uffff": 4, "\ud83d\ude00": 5}"#,
            #"{"\ud83d\ude00": 5, "\uffff": 4, "\u00e9": 3, "e\u0301": 2, "f": 1}"#,
            #"{"\u00e9": 3, "f": 1, "\ud83d\ude00": 5, "e\u0301": 2, "\uffff": 4}"#,
        ]
        for form in forms {
            let store = try Self.store()
            _ = try store.populate(try Self.json(#"{"data": [{"id": 1, "j": \#(form)}]}"#), entity: "Item")
            #expect(
                try Self.column("j", of: "Item", in: store) == [
                    #"'{"e\u{301}":2,"f":1,"\u{e9}":3,"\u{ffff}":4,"\u{1f600}":5}'"#
                ], "\(form)")
        }
    }

    /// A refused value read through a key path names that key path.
    @Test("A refused value at a key path names the key path")
    func refusalNamesTheKeyPath() throws {
        let store = try Self.store()
        let result = try store.populate(
            try Self.json(#"{"data": [{"id": 1, "deep": {"er": "12abc"}}]}"#), entity: "Item")
        let warning = try #require(result.debugger.errors.first { $0.code == .typeMismatch }, "\(result.debugger)")
        #expect(!warning.isFatal)
        #expect(warning.entity == "Item" && warning.property == "n" && warning.keyPath == "deep.er", "\(warning)")
        #expect(warning.value == .string("12abc"))
        #expect(try Self.column("n", of: "Item", in: store) == ["NULL"])
    }

    // MARK: - Re-syncs: the same value in another form is no change; another value is

    struct Resync: Sendable, CustomTestStringConvertible {
        var attribute: String
        var first: String
        var second: String
        var changed: Bool
        var testDescription: String { "\(attribute): \(first) then \(second): \(changed ? "updated" : "unchanged")" }
        init(_ attribute: String, _ first: String, _ second: String, changed: Bool) {
            self.attribute = attribute
            self.first = first
            self.second = second
            self.changed = changed
        }
    }

    static let resyncs: [Resync] = [
        Resync("i", "5", #""5""#, changed: false),
        Resync("i", "5", "5.0", changed: false),
        Resync("i", "5", #""+5""#, changed: false),
        Resync("i", "5", "5e0", changed: false),
        Resync("i", "9223372036854775807", "9223372036854775806", changed: true),
        Resync("d", "0.1", #""0.1""#, changed: false),
        Resync("d", "0", "-0.0", changed: false),
        Resync("d", "1", "1.0000000000000002", changed: true),
        Resync("m", #""0.10""#, "0.1", changed: false),
        Resync("m", "1", "1.000", changed: false),
        Resync("m", "12345678901234567890.123", #""12345678901234567890.124""#, changed: true),
        Resync("m", "0.1", "0.10000000000000000001", changed: true),
        Resync("s", #""\u00e9""#, #""e\u0301""#, changed: true),
        Resync("s", "1.0", "1", changed: true),
        Resync("s", #""a\u0000b""#, #""a\u0000b""#, changed: false),
        Resync("s", #""a\u0000b""#, #""a\u0000c""#, changed: true),
        Resync("b", "true", #""yes""#, changed: false),
        Resync("b", "true", "1.0", changed: false),
        Resync("b", "true", "0", changed: true),
        Resync("t", #""2012-11-21T02:33:42Z""#, #""2012-11-21T03:33:42+01:00""#, changed: false),
        Resync("t", #""2012-11-21T02:33:42Z""#, "1353465222", changed: false),
        Resync("t", #""2012-11-21T02:33:42Z""#, "1353465222.000", changed: false),
        Resync("t", #""2012-11-21T02:33:42Z""#, #""21/11/2012 02:33""#, changed: true),
        Resync("t", #""2012-11-21T02:33:42Z""#, #""2012-11-21T02:33:42.000000001Z""#, changed: true),
        Resync("p", #""20240101000000""#, #""2024-01-01T00:00:00Z""#, changed: false),
        Resync("x", #""AQID""#, #""AQID""#, changed: false),
        Resync("x", #""AQID""#, #""AQIE""#, changed: true),
        Resync(
            "u", #""550e8400-e29b-41d4-a716-446655440000""#, #""550E8400-E29B-41D4-A716-446655440000""#, changed: false),
        Resync("l", #""https://example.com/a""#, #""https://example.com/A""#, changed: true),
        Resync("j", #"{"a": 1, "b": [true]}"#, #"{"b": [true], "a": 1}"#, changed: false),
        Resync("j", "[1]", "[1.0]", changed: true),
        Resync("j", #"{"e\u0301": 1, "\u00e9": 2}"#, #"{"\u00e9": 2, "e\u0301": 1}"#, changed: false),
        Resync("j", #"{"\u00e9": 1}"#, #"{"e\u0301": 1}"#, changed: true),
        Resync("r", #""abc""#, #""ABC""#, changed: false),
    ]

    @Test("A re-sync counts a record updated exactly when a value changed", arguments: resyncs)
    func resync(_ resync: Resync) throws {
        let store = try Self.store()
        let first = try store.populate(
            try Self.json(#"{"data": [{"id": 1, "\#(resync.attribute)": \#(resync.first)}]}"#), entity: "Item")
        #expect(!first.debugger.contains(.typeMismatch), "\(first.debugger)")
        let before = try Self.column(resync.attribute, of: "Item", in: store)
        let second = try store.populate(
            try Self.json(#"{"data": [{"id": 1, "\#(resync.attribute)": \#(resync.second)}]}"#), entity: "Item")
        #expect(!second.debugger.contains(.typeMismatch), "\(second.debugger)")
        let after = try Self.column(resync.attribute, of: "Item", in: store)
        let counts = second.changesByEntity["Item"]
        if resync.changed {
            #expect(after != before, "the new value was not stored: \(after)")
            #expect(counts?.updated == 1 && counts?.unchanged == 0, "\(String(describing: counts))")
        } else {
            #expect(after == before, "an equal value rewrote the row: \(before) → \(after)")
            #expect(counts?.updated == 0 && counts?.unchanged == 1, "\(String(describing: counts))")
        }
        // Re-reading the first form again then restores exactly the first stored value.
        _ = try store.populate(
            try Self.json(#"{"data": [{"id": 1, "\#(resync.attribute)": \#(resync.first)}]}"#), entity: "Item")
        #expect(try Self.column(resync.attribute, of: "Item", in: store) == before)
    }

    // MARK: - Keys in several forms

    struct KeyForms: Sendable, CustomTestStringConvertible {
        var entity: String
        var forms: [String]
        var stored: String
        var testDescription: String { "\(entity): \(forms.joined(separator: ", ")) → \(stored)" }
    }

    static let keyForms: [KeyForms] = [
        KeyForms(
            entity: "ByDecimal", forms: ["1", "1.0", #""1""#, #""1.000""#, "1e0", "0.1e1", #""+1""#], stored: "'1'"),
        KeyForms(entity: "ByDecimal", forms: ["0.1", #""0.10""#, "1e-1"], stored: "'0.1'"),
        KeyForms(
            entity: "ByDecimal",
            forms: ["12345678901234567890.1", #""12345678901234567890.10""#, "1234567890123456789.01e1"],
            stored: "'12345678901234567890.1'"),
        KeyForms(
            entity: "ByDate",
            forms: [
                #""2012-11-21T02:33:42Z""#, #""2012-11-21T03:33:42+01:00""#, "1353465222", "1353465222.0",
                #""2012-11-21T02:33:42.000000000Z""#, #""2012-11-21 02:33:42""#,
            ],
            stored: "'2012-11-21T02:33:42.000000000Z'"),
        KeyForms(
            entity: "ByUUID",
            forms: [#""550e8400-e29b-41d4-a716-446655440000""#, #""550E8400-E29B-41D4-A716-446655440000""#],
            stored: "'550E8400-E29B-41D4-A716-446655440000'"),
        KeyForms(entity: "ByDouble", forms: ["1", "1.0", #""1""#, "1e0", #""1.0""#], stored: "1.0"),
    ]

    /// Forms of one key are one record, inside one response and across responses (DESIGN §3.3).
    @Test("A key's forms are one record, in one response and across responses", arguments: keyForms)
    func keyFormsAreOneRecord(_ keys: KeyForms) throws {
        let store = try Self.store()
        let elements = keys.forms.enumerated().map { #"{"k": \#($1), "note": "n\#($0)"}"# }
        let result = try store.populate(
            try Self.json(#"{"data": [\#(elements.joined(separator: ","))]}"#), entity: keys.entity)
        #expect(result.debugger.errors.isEmpty, "\(result.debugger)")
        #expect(try Self.column("k", of: keys.entity, in: store) == [keys.stored])
        #expect(try Self.column("note", of: keys.entity, in: store) == ["'n\(keys.forms.count - 1)'"])
        for (index, form) in keys.forms.enumerated() {
            _ = try store.populate(
                try Self.json(#"{"data": [{"k": \#(form), "note": "again\#(index)"}]}"#), entity: keys.entity)
            #expect(try Self.column("k", of: keys.entity, in: store) == [keys.stored], "\(form)")
            #expect(try Self.column("note", of: keys.entity, in: store) == ["'again\(index)'"], "\(form)")
        }
    }

    /// A primary key attribute with a value transformer (a schema `webrecord lint` accepts): the
    /// key column holds the transformed value (`abc`), and records are matched on it, so a
    /// re-import of the same response finds the record again and updates it, and one response
    /// giving two spellings the transformer makes one key is one record (DESIGN §3.3: "A schema
    /// that lints never duplicates a record on re-import").
    @Test("A transformed primary key finds its record again on re-import")
    func transformedPrimaryKeyIsFoundAgain() throws {
        let store = try Self.store()
        let response = try Self.json(#"{"data": [{"code": "ABC", "note": "one"}]}"#)
        let first = try store.populate(response, entity: "Coded")
        #expect(first.debugger.errors.allSatisfy { !$0.isFatal }, "\(first.debugger)")
        #expect(try Self.column("code", of: "Coded", in: store) == ["'abc'"])
        let again = try Self.json(#"{"data": [{"code": "ABC", "note": "two"}]}"#)
        do {
            let second = try store.populate(again, entity: "Coded")
            #expect(second.debugger.errors.allSatisfy { !$0.isFatal }, "\(second.debugger)")
            #expect(second.changesByEntity["Coded"]?.inserted ?? 0 == 0, "\(second.changesByEntity)")
        } catch {
            Issue.record("re-importing the same record failed: \(error)")
        }
        #expect(try Self.column("code", of: "Coded", in: store) == ["'abc'"])
        #expect(try Self.column("note", of: "Coded", in: store) == ["'two'"])
        // Two spellings the transformer makes one key, in one response, are one record.
        let store2 = try Self.store()
        let both = try Self.json(#"{"data": [{"code": "X", "note": "a"}, {"code": "x", "note": "b"}]}"#)
        do {
            _ = try store2.populate(both, entity: "Coded")
        } catch {
            Issue.record("two spellings of one transformed key failed the response: \(error)")
        }
        #expect(try Self.column("code", of: "Coded", in: store2) == ["'x'"])
    }

    // MARK: - Whole and streamed

    /// Every accepted case as one response, populated whole and streamed at every batch size:
    /// identical bytes in every row.
    @Test("Every value case populates the same bytes whole and streamed")
    func wholeAndStreamedAgree() async throws {
        let all =
            Self.integerCases + Self.doubleCases + Self.decimalCases + Self.stringCases + Self.booleanCases
            + Self.dateCases + Self.otherCases
        let elements = all.enumerated().map { #"{"id": \#($0 + 1), "\#($1.attribute)": \#($1.input)}"# }
        let text = #"{"data": [\#(elements.joined(separator: ",\n"))]}"#
        let whole = try await AdversarialStreamTests.expectSameAtEveryBatchSize(
            text, schema: Self.schema, entity: "Item")
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows.count == all.count)
    }

    /// Long strings (non-BMP, NUL, U+2028) and a long base64 blob across batch boundaries.
    @Test("Long values cross batch boundaries unchanged")
    func longValuesAcrossBatches() async throws {
        let unit = #"a\u0000\ud83d\ude00\u2028e\u0301\""#
        let long = String(repeating: unit, count: 20_000)
        let bytes = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let text =
            #"{"data": [{"id": 1, "s": "\#(long)", "x": "\#(bytes.base64EncodedString())"}, {"id": 2, "s": "z"}]}"#
        let whole = try await AdversarialStreamTests.expectSameAtEveryBatchSize(
            text, schema: Self.schema, entity: "Item", sizes: [1, 300, 70_000])
        #expect(whole.failure == nil)
        let store = try Self.store()
        _ = try await store.populate(try Self.json(text), entity: "Item")
        let stored = try await store.read { connection in try connection.rows(#"SELECT s, x FROM "Item" ORDER BY _id"#)
        }
        let expectedString = String(repeating: "a\u{0}\u{1F600}\u{2028}e\u{301}\"", count: 20_000)
        #expect(stored[0][0] == .text(expectedString))
        #expect(stored[0][1] == .blob(bytes))
    }

    // MARK: - Duplicates in one response, defaults, and the public read

    /// DESIGN §3.7: a later valid value wins; an invalid later value never replaces a valid
    /// earlier one; the same whole and streamed.
    @Test("Duplicates in one response: a later refused value keeps the earlier valid one")
    func duplicatesKeepTheValidValue() async throws {
        let pad = String(repeating: "p", count: 400)
        let text = #"""
            {"data": [
              {"id": 1, "i": 5, "m": "0.10", "t": "2012-11-21T02:33:42Z", "s": "\#(pad)"},
              {"id": 2, "s": "\#(pad)"},
              {"id": "1", "i": "5x", "m": "1.2.3", "t": "2012-02-30T00:00:00Z"},
              {"id": 1.0, "i": 6.0, "u": "not a uuid"}
            ]}
            """#
        let whole = try await AdversarialStreamTests.expectSameAtEveryBatchSize(
            text, schema: Self.schema, entity: "Item")
        #expect(whole.failure == nil)
        let store = try Self.store()
        let result = try await store.populate(try Self.json(text), entity: "Item")
        #expect(try Self.column("i", of: "Item", in: store) == ["6", "NULL"])
        #expect(try Self.column("m", of: "Item", in: store) == ["'0.1'", "NULL"])
        #expect(try Self.column("t", of: "Item", in: store) == ["'2012-11-21T02:33:42.000000000Z'", "NULL"])
        let refused = result.debugger.errors.filter { $0.code == .typeMismatch }.compactMap(\.property).sorted()
        #expect(refused == ["i", "m", "t", "u"], "\(result.debugger)")
    }

    static let defaultsJSON = #"""
        {"version": 1, "entities": {
          "Thing": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"},
              "m": {"type": "decimal", "default": "0.10"},
              "big": {"type": "decimal", "default": 12345678901234567890.123},
              "t": {"type": "date", "default": "2020-01-01T01:00:00.5+01:00"},
              "i": {"type": "integer", "default": 1e2},
              "d": {"type": "double", "default": -0.0},
              "s": {"type": "string", "default": 1.10},
              "b": {"type": "boolean", "default": "yes"},
              "j": {"type": "json", "default": {"b": 1, "a": 1.0}}}}
        }}
        """#

    /// Defaults are "written as a response would carry it, and checked with the same coercion".
    @Test("A default is stored as the same value a response would store")
    func defaultsAreCoerced() throws {
        let store = try RecordStore(inMemory: try Schema(json: Self.defaultsJSON, fileName: "Defaults.json"))
        _ = try store.populate(
            try Self.json(#"{"data": [{"id": 1}, {"id": 2, "i": "oops", "m": "x"}]}"#), entity: "Thing")
        let columns = ["m", "big", "t", "i", "d", "s", "b", "j"]
        let expected = [
            "'0.1'", "'12345678901234567890.123'", "'2020-01-01T00:00:00.500000000Z'", "100", "0.0", "'1.10'", "1",
            #"'{"a":1.0,"b":1}'"#,
        ]
        for (column, value) in zip(columns, expected) {
            #expect(try Self.column(column, of: "Thing", in: store).first == value, "default of \(column)")
        }
        // A refused value on a new record leaves the default (Docs/SchemaFormat.md, `optional`).
        #expect(try Self.column("i", of: "Thing", in: store) == ["100", "100"])
        #expect(try Self.column("m", of: "Thing", in: store) == ["'0.1'", "'0.1'"])
    }

    /// The public read gives back what was sent: a decimal exactly, an integer's 64 bits, a
    /// date's instant, a string's bytes.
    @Test("The public read returns the values the server sent")
    func publicReadIsExact() throws {
        let store = try Self.store()
        let text = #"""
            {"data": [{"id": 9223372036854775807, "i": -9223372036854775808, "m": 12345678901234567890.123,
              "d": 5e-324, "s": "a\u0000e\u0301", "b": "no", "t": "2024-01-01T12:00:00.5Z",
              "j": {"z": [1.10]}, "x": "AQID"}]}
            """#
        _ = try store.populate(try Self.json(text), entity: "Item")
        let record = try #require(try store.fetchOne("Item", primaryKey: .integer(.max)))
        #expect(record["i"] as Int64? == .min)
        #expect(record["m"] as Decimal? == Decimal(string: "12345678901234567890.123"))
        #expect(record["d"] as Double? == 5e-324)
        #expect(record["s"] as String? == "a\u{0}e\u{301}")
        #expect((record["s"] as String?).map { Array($0.utf8) } == Array("a\u{0}e\u{301}".utf8))
        #expect(record["b"] as Bool? == false)
        #expect(record["t"] as Date? == Date(timeIntervalSince1970: 1_704_110_400.5))
        #expect(record["x"] as Data? == Data([1, 2, 3]))
    }

    // MARK: - Values built in code (a JSONValue literal, or a transformer's result)

    /// A double attribute refuses `.double(.infinity)` and `.double(.nan)` from a value built in
    /// code (a `JSONValue` literal passed to `populate`, or a transformer's result), as the docs
    /// say ("not NaN or infinities"), with a non-fatal error, the stored value kept: SQLite would
    /// store a NaN as NULL, silently clearing it.
    @Test(
        "A non-finite double built in code is refused by name, never stored",
        arguments: [Double.infinity, -Double.infinity, Double.nan])
    func nonFiniteDoubleFromCodeIsRefused(_ number: Double) throws {
        let store = try Self.store()
        _ = try store.populate(try Self.json(#"{"data": [{"id": 1, "d": 2.5}]}"#), entity: "Item")
        let response: JSONValue = .object(["data": .array([.object(["id": .integer(1), "d": .double(number)])])])
        let result = try store.populate(response, entity: "Item")
        let warning = result.debugger.errors.first { $0.code == .typeMismatch }
        #expect(warning?.entity == "Item" && warning?.property == "d", "\(result.debugger)")
        let stored = try Self.column("d", of: "Item", in: store)
        #expect(stored == ["2.5"], "a refused value leaves the record as it was; stored \(stored)")
    }

    /// A NaN double key is no key: it makes no record.
    @Test("A NaN double key is refused, not stored as a record")
    func nanDoubleKeyIsRefused() throws {
        let store = try Self.store()
        let element: JSONValue = .object(["k": .double(.nan), "note": .string("n")])
        let response: JSONValue = .object(["data": .array([element, element])])
        // Every top-level record unidentified: the response fails, naming why, and writes nothing.
        #expect {
            _ = try store.populate(response, entity: "ByDouble")
        } throws: { error in
            (error as? WebRecordError)?.message.contains("none of the 2 top-level records could be identified") == true
        }
        #expect(try Self.column("k", of: "ByDouble", in: store) == [])
    }

    /// A `.number` whose text is not a JSON number (`JSONValue.number("0x10")`, which the reader
    /// never makes but code can) is refused by every type: a double would read it as 16 (Swift's
    /// `Double(String)` reads hex), and a json attribute would store the text `null`.
    @Test(
        "A number text that is not JSON, built in code, is refused by name",
        arguments: ["d", "j", "i", "m", "t"])
    func nonJSONNumberTextFromCodeIsRefused(_ attribute: String) throws {
        let store = try Self.store()
        let response: JSONValue = .object([
            "data": .array([.object(["id": .integer(1), attribute: .number("0x10")])])
        ])
        let result = try store.populate(response, entity: "Item")
        let stored = try Self.column(attribute, of: "Item", in: store)
        #expect(result.debugger.contains(.typeMismatch), "stored \(stored) with no error")
        #expect(stored == ["NULL"], "stored \(stored)")
    }

    /// Every re-sync case at once, over a store holding the first forms, whole and streamed:
    /// the same bytes and the same counts at every batch size.
    @Test("Re-syncs count and store the same whole and streamed")
    func resyncsWholeAndStreamed() async throws {
        let first = Self.resyncs.enumerated().map { #"{"id": \#($0 + 1), "\#($1.attribute)": \#($1.first)}"# }
        let second = Self.resyncs.enumerated().map { #"{"id": \#($0 + 1), "\#($1.attribute)": \#($1.second)}"# }
        let whole = try await AdversarialStreamTests.expectSameAtEveryBatchSize(
            #"{"data": [\#(second.joined(separator: ",\n"))]}"#,
            after: #"{"data": [\#(first.joined(separator: ",\n"))]}"#, schema: Self.schema, entity: "Item")
        let changed = Self.resyncs.filter(\.changed).count
        #expect(whole.counts["Item"]?.updated == changed, "\(whole.counts)")
        #expect(whole.counts["Item"]?.unchanged == Self.resyncs.count - changed, "\(whole.counts)")
    }

    /// Pattern dates the docs are silent on (year 0 through a `yyyy` pattern, an hour 24, a
    /// minus sign in the year): stored as exactly the instant the text says, or refused by name.
    @Test(
        "A pattern date the docs are silent on is exact or refused",
        arguments: [
            (#""01/01/0000 00:00""#, "-"),
            (#""31/12/0000 23:59""#, "-"),
            (#""01/01/-001 00:00""#, "-"),
            (#""01/01/2024 24:00""#, "-"),
            (#""1/1/2024 0:0""#, "'2024-01-01T00:00:00.000000000Z'"),
            (#""01/01/02024 00:00""#, "'2024-01-01T00:00:00.000000000Z'"),
        ])
    func patternDateExactOrRefused(_ input: String, _ exact: String) throws {
        let store = try Self.store()
        let result = try store.populate(try Self.json(#"{"data": [{"id": 1, "t": \#(input)}]}"#), entity: "Item")
        let stored = try Self.column("t", of: "Item", in: store)
        // "-": refused, stored as nothing; otherwise read, as exactly that instant.
        #expect(result.debugger.contains(.typeMismatch) == (exact == "-"), "sent \(input): \(result.debugger)")
        #expect(stored == [exact == "-" ? "NULL" : exact], "sent \(input)")
    }
}
