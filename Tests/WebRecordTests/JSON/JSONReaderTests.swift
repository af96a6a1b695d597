import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Reads `text`, returning the error the reader throws (nil when it accepts the input).
func jsonReadError(_ text: String, maximumDepth: Int = JSONReader.defaultMaximumDepth) -> WebRecordError? {
    jsonReadError(Array(text.utf8), maximumDepth: maximumDepth)
}

/// Reads `bytes`, returning the error the reader throws (nil when it accepts the input).
func jsonReadError(_ bytes: [UInt8], maximumDepth: Int = JSONReader.defaultMaximumDepth) -> WebRecordError? {
    do {
        _ = try JSONReader(maximumDepth: maximumDepth).read(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("JSON reader: values and numbers")
struct JSONReaderValueTests {
    @Test("Scalars are accepted at the top level, surrounded by whitespace")
    func topLevelScalars() throws {
        let reader = JSONReader()
        #expect(try reader.read("1") == .integer(1))
        #expect(try reader.read(" \t\r\n true \n") == .bool(true))
        #expect(try reader.read("false") == .bool(false))
        #expect(try reader.read("null") == .null)
        #expect(try reader.read("\"x\"") == .string("x"))
        #expect(try reader.read("[]") == .array([]))
        #expect(try reader.read("{}") == .object(JSONObject()))
    }

    @Test("A nested document reads into the expected value")
    func nestedDocument() throws {
        let value = try JSONReader().read(
            #"{"meta": {"code": 200}, "data": [{"id": "1", "n": -2.5, "ok": true, "tags": [], "x": null}]}"#)
        let expected: JSONValue = [
            "meta": ["code": 200],
            "data": [["id": "1", "n": -2.5, "ok": true, "tags": [], "x": nil]],
        ]
        #expect(value == expected)
        #expect(value.objectValue?.keys == ["meta", "data"])
    }

    @Test("Int64 bounds: exact integers stay integers; beyond them, the digits are kept as written")
    func integerBounds() throws {
        let reader = JSONReader()
        #expect(try reader.read("9223372036854775807") == .integer(Int64.max))
        #expect(try reader.read("9223372036854775808") == .number("9223372036854775808"))
        #expect(try reader.read("-9223372036854775808") == .integer(Int64.min))
        #expect(try reader.read("-9223372036854775809") == .number("-9223372036854775809"))
        #expect(try reader.read("18446744073709551616") == .number("18446744073709551616"))
        #expect(try reader.read("123456789012345678901234567890") == .number("123456789012345678901234567890"))
        #expect(try reader.read("0") == .integer(0))
        #expect(try reader.read("-0") == .number("-0"))  // keeps its sign as text; int64Value 0
        #expect(try reader.read("-0").int64Value == 0)
        #expect(try reader.read("9007199254740993") == .integer(9_007_199_254_740_993))
        // A number past Int64 written as its double's shortest form is a double; written
        // otherwise, its text is kept.
        #expect(try reader.read("1e+19") == .double(1e19))
        #expect(try reader.read("1e19") == .number("1e19"))
        #expect(try reader.read("1.10") == .number("1.10"))
        #expect(try reader.read("5.0") == .double(5.0))
        #expect(try reader.read("18446744073709551616").doubleValue == 18_446_744_073_709_551_616.0)
        #expect(try reader.read("18446744073709551616").int64Value == nil)
    }

    @Test(
        "Doubles equal what strtod gives",
        arguments: [
            "0.1", "1e-7", "5e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
            "2.2250738585072011e-308", "4.9406564584124654e-324", "0.30000000000000004", "3.141592653589793",
            "1e23", "8.98846567431158e307", "9007199254740993.0", "9007199254740992.5",
            "1.00000000000000011102230246251565404236316680908203125",
            "123456789012345678901234567890.5", "0.000000000000000000000000000000001", "7.038531e-26", "2.5e-5",
            "-1.5e-10", "1e22", "1e-22", "4503599627370496.5", "4503599627370497.5", "1448997445238699.0",
            "0.1e1", "100e-2", "12345678901234567890e-10",
        ])
    func doublesMatchStrtod(_ text: String) throws {
        let expected = try #require(Double(text))
        let value = try JSONReader().read(text)
        let double = try #require(value.doubleValue)
        #expect(double.bitPattern == expected.bitPattern, "\(text): \(double) != \(expected)")
        // A double when the text is its shortest form; else the text is kept.
        let shortestIsWritten = expected.description == text
        switch value {
        case .double: #expect(shortestIsWritten, "\(text) read as a double, losing digits")
        case .number(let kept): #expect(!shortestIsWritten && kept == text, "\(text) read as .number(\(kept))")
        default: Issue.record("\(text) read as \(value)")
        }
    }

    @Test("Doubles round-trip: 0.1, 1e-7, 5e-324, 1.7976931348623157e308")
    func doubleRoundTrip() throws {
        for double in [0.1, 1e-7, Double.leastNonzeroMagnitude, 1.7976931348623157e308, -2.5, 1e300, 123.456] {
            let text = JSONValue.double(double).serialized()
            #expect(try JSONReader().read(text) == .double(double), "\(text)")
        }
    }

    @Test("Random doubles in several notations equal Double(_:)")
    func randomDoubles() throws {
        var generator = SeededRandom(seed: 0x5EED)
        let reader = JSONReader()
        for _ in 0..<3000 {
            let double = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            let small = Double(generator.next() % 1_000_000_000) / 1000
            for candidate in [double, small] {
                for text in [
                    candidate.description, String(format: "%.17g", candidate), String(format: "%.6e", candidate),
                ] {
                    guard text.contains(".") || text.contains("e") else { continue }
                    let expected = try #require(Double(text))
                    let value = try reader.read(text)
                    #expect(value.doubleValue?.bitPattern == expected.bitPattern, "\(text)")
                }
            }
        }
    }

    @Test("Numbers beyond Double keep their text: overflow reads as no double, underflow as zero")
    func overflowAndUnderflow() throws {
        // Beyond a double's range, the number keeps its text: no value is refused here, and
        // population refuses it only where it cannot be stored (never as an infinity).
        for text in ["1e400", "-1e400", "123123e100000", "1e99999999999999999999"] {
            #expect(try JSONReader().read(text) == .number(text), "\(text)")
            #expect(try JSONReader().read(text).doubleValue == nil, "\(text)")
        }
        #expect(try JSONReader().read("[1.8e308]") == [.number("1.8e308")])
        // Below the smallest double, the text is kept (a decimal attribute can hold it exactly).
        #expect(try JSONReader().read("1e-400") == .number("1e-400"))
        #expect(try JSONReader().read("1e-400").doubleValue == 0)
        #expect(try JSONReader().read("-1e-400").doubleValue?.sign == .minus)
        #expect(try JSONReader().read("0e999999") == .number("0e999999"))
        #expect(try JSONReader().read("0e999999").doubleValue == 0)
    }

    @Test(
        "Malformed numbers are rejected",
        arguments: ["01", "-01", "-", "1.", ".5", "+1", "1e", "1e+", "1.e3", "0x10", "-a", "1.5e", "00"])
    func malformedNumbers(_ text: String) throws {
        let expected: (alone: WebRecordError.JSONSyntax, inArray: WebRecordError.JSONSyntax) =
            switch text {
            // No value starts with '.' or '+'.
            case ".5", "+1": (.unexpectedCharacter, .unexpectedCharacter)
            // "0" is a whole number, and the 'x' after it is one character too many.
            case "0x10": (.trailingContent, .unexpectedCharacter)
            // Every other one starts as a number and breaks its grammar.
            default: (.invalidNumber, .invalidNumber)
            }
        let error = try #require(jsonReadError(text))
        #expect(error.jsonSyntax == expected.alone, "\(text): \(error)")
        let inArray = try #require(jsonReadError("[\(text)]"))
        #expect(inArray.jsonSyntax == expected.inArray, "\(text): \(inArray)")
    }

    @Test("Leading zeros are invalid numbers reported at the number")
    func leadingZeroPosition() throws {
        let error = try #require(jsonReadError("[1, 012]"))
        #expect(error.jsonSyntax == .invalidNumber)
        #expect(error.offset == 4)
        #expect(error.column == 5)
    }

    @Test(
        "Literals outside the grammar are rejected",
        arguments: [
            "NaN", "Infinity", "-Infinity", "True", "nul", "tru", "fals", "undefined", "'a'", "[1,]", "{\"a\":1,}",
            "// c\n1", "/* c */ 1",
        ])
    func nonJSONLiterals(_ text: String) {
        #expect(jsonReadError(text) != nil, "\(text)")
    }

    @Test("Read overloads agree")
    func overloadsAgree() throws {
        let text = #"{"a": [1, 2.5, "é", null]}"#
        let reader = JSONReader()
        let fromString = try reader.read(text)
        #expect(try reader.read(Array(text.utf8)) == fromString)
        #expect(try reader.read(Data(text.utf8)) == fromString)
        let fromRaw = try Array(text.utf8).withUnsafeBytes { try reader.read($0) }
        #expect(fromRaw == fromString)
    }

    @Test("Concurrent reads with one reader give equal results")
    func concurrentReads() async throws {
        let reader = JSONReader()
        let text = #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c", "extra": [true]}]"#
        let expected = try reader.read(text)
        let results = await withTaskGroup(of: JSONValue?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? reader.read(text) }
            }
            var results: [JSONValue?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == expected })
    }
}

@Suite("JSON reader: strings and UTF-8")
struct JSONReaderStringTests {
    @Test("Simple escapes decode")
    func simpleEscapes() throws {
        let value = try JSONReader().read(#""\"\\\/\b\f\n\r\t""#)
        #expect(value == .string("\"\\/\u{8}\u{c}\n\r\t"))
    }

    @Test("Unicode escapes and surrogate pairs combine")
    func surrogatePairs() throws {
        let reader = JSONReader()
        #expect(try reader.read(#""\uD834\uDD1E""#) == .string("𝄞"))
        #expect(try reader.read(#""\ud83d\ude00 ok""#) == .string("😀 ok"))
        #expect(try reader.read(#""\u00e9\u00E9""#) == .string("éé"))
        #expect(try reader.read(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try reader.read(#""\uFFFF""#) == .string("\u{FFFF}"))
    }

    @Test(
        "Lone and mismatched surrogates are rejected",
        arguments: [
            #""\uD834""#, #""\uDD1E""#, #""\uD834\u0041""#, #""\uDD1E\uD834""#, #""\uD834x""#,
            #""\uD800\uD800""#, #""\uD834\n""#,
        ])
    func loneSurrogates(_ text: String) throws {
        let error = try #require(jsonReadError(text))
        #expect(error.jsonSyntax == .invalidUnicodeEscape, "\(text): \(error)")
        #expect(error.offset == 1)
    }

    @Test("Bad escapes are rejected at the backslash")
    func badEscapes() throws {
        let invalid = try #require(jsonReadError(#"["ab\x"]"#))
        #expect(invalid.jsonSyntax == .invalidEscape)
        #expect(invalid.offset == 4)
        #expect(jsonReadError(#""\u12G4""#)?.jsonSyntax == .invalidUnicodeEscape)
        #expect(jsonReadError(#""\U0041""#)?.jsonSyntax == .invalidEscape)
        #expect(jsonReadError(#""\u00"#)?.jsonSyntax == .unexpectedEnd)
        #expect(jsonReadError(#""abc\"#)?.jsonSyntax == .unexpectedEnd)
    }

    @Test("Control characters must be escaped; DEL need not be")
    func controlCharacters() throws {
        for byte: UInt8 in [0x00, 0x09, 0x0A, 0x0D, 0x1F] {
            let error = try #require(jsonReadError([0x22, 0x61, byte, 0x22]))
            #expect(error.jsonSyntax == .controlCharacterInString)
            #expect(error.offset == 2)
        }
        #expect(try JSONReader().read([0x22, 0x7F, 0x22]) == .string("\u{7F}"))
    }

    @Test("Well-formed multi-byte UTF-8 is accepted as is")
    func validUTF8() throws {
        let text = "\"é € 𝄞 日本語 \u{10FFFF} \u{E000}\""
        #expect(try JSONReader().read(text) == .string(String(text.dropFirst().dropLast())))
    }

    @Test(
        "Ill-formed UTF-8 is rejected at the sequence",
        arguments: [
            [0xC0, 0x80],  // overlong NUL
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0xAF],  // overlong 3-byte
            [0xF0, 0x80, 0x80, 0xAF],  // overlong 4-byte
            [0xED, 0xA0, 0x80],  // UTF-8-encoded surrogate U+D800
            [0xED, 0xBF, 0xBF],  // U+DFFF
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],
            [0xE2, 0x82],  // truncated before the quote
            [0xE2, 0x28, 0xA1],  // bad continuation
            [0x80],  // lone continuation
            [0xBF],
            [0xFE],
            [0xFF],
        ] as [[UInt8]])
    func invalidUTF8(_ sequence: [UInt8]) throws {
        let bytes: [UInt8] = [0x5B, 0x22, 0x61] + sequence + [0x22, 0x5D]
        let error = try #require(jsonReadError(bytes))
        #expect(error.jsonSyntax == .invalidUTF8, "\(sequence): \(error)")
        #expect(error.offset == 3)
        let key: [UInt8] = [0x7B, 0x22] + sequence + [0x22, 0x3A, 0x31, 0x7D]
        #expect(jsonReadError(key)?.jsonSyntax == .invalidUTF8)
    }

    @Test("A sequence truncated by the end of input is invalid UTF-8")
    func truncatedAtEnd() throws {
        #expect(jsonReadError([0x22, 0xF0, 0x9F, 0x98])?.jsonSyntax == .invalidUTF8)
    }

    @Test("Non-ASCII outside strings is an unexpected character")
    func nonASCIIOutsideStrings() throws {
        let error = try #require(jsonReadError("é"))
        #expect(error.jsonSyntax == .unexpectedCharacter)
        #expect(error.offset == 0)
    }

    @Test("A UTF-8 byte order mark is rejected")
    func byteOrderMark() throws {
        let error = try #require(jsonReadError([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]))
        #expect(error.jsonSyntax == .unexpectedCharacter)
        #expect(error.offset == 0)
        #expect(error.message.contains("byte order mark"))
        #expect(jsonReadError("\u{FEFF}{}")?.jsonSyntax == .unexpectedCharacter)
    }

    @Test("A 10 MB string is read, with and without escapes")
    func tenMegabyteString() throws {
        let plain = String(repeating: "abcdefghij", count: 1_000_000)
        let value = try JSONReader().read("[\"\(plain)\"]")
        #expect(value[0]?.stringValue?.utf8.count == 10_000_000)
        #expect(value[0]?.stringValue == plain)

        let escapedUnit = #"é\n\u00e9"#  // 2 + 2 + 6 bytes of JSON, 5 bytes decoded
        let escaped = String(repeating: escapedUnit, count: 1_000_000)
        let decoded = try JSONReader().read("\"\(escaped)\"")
        #expect(decoded.stringValue?.utf8.count == 5_000_000)
        #expect(decoded.stringValue?.hasPrefix("é\né") == true)
    }

    @Test("A 1 MB key is read and found")
    func oneMegabyteKey() throws {
        let key = String(repeating: "k", count: 1_048_576)
        let value = try JSONReader().read("{\"\(key)\": 1, \"b\": 2}")
        #expect(value[key] == .integer(1))
        #expect(value["b"] == .integer(2))
        #expect(value.objectValue?.keys.first?.utf8.count == 1_048_576)
    }
}

@Suite("JSON reader: objects and keys")
struct JSONReaderObjectTests {
    @Test("Duplicate keys: the last value wins, at the first position")
    func duplicateKeys() throws {
        let value = try JSONReader().read(#"{"a": 1, "b": 2, "a": 3}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
        #expect(object.count == 2)
    }

    @Test("Duplicate keys in a large object use the same rule")
    func duplicateKeysLargeObject() throws {
        var members = (0..<40).map { "\"k\($0)\": \($0)" }
        members.append("\"k5\": \"last\"")
        members.append("\"k39\": null")
        let object = try #require(try JSONReader().read("{" + members.joined(separator: ",") + "}").objectValue)
        #expect(object.count == 40)
        #expect(object.keys[5] == "k5")
        #expect(object["k5"] == .string("last"))
        #expect(object["k39"] == .null)
        #expect(object.keys == (0..<40).map { "k\($0)" })
    }

    @Test("Repeated shapes with duplicates each resolve")
    func repeatedShapesWithDuplicates() throws {
        let value = try JSONReader().read(#"[{"a": 1, "a": 2}, {"a": 3, "a": 4}, {"a": 5}]"#)
        #expect(value == [["a": 2], ["a": 4], ["a": 5]])
    }

    @Test("Objects of one shape, nested shapes and escaped keys read correctly")
    func sharedShapes() throws {
        let text = """
            [{"id": 1, "idx": 2}, {"idx": 3, "id": 4}, {"id": 5, "idx": 6},
             {"\\u0069d": 7, "idx": 8}, {"id": 9, "i\\u0064x": 10},
             {"name": "a", "child": {"name": "b", "child": {"name": "c", "child": null}}},
             {"i": 11, "d": 12}, {"id": 13}, {"idx": 14}]
            """
        let value = try JSONReader().read(text)
        let expected: JSONValue = [
            ["id": 1, "idx": 2], ["idx": 3, "id": 4], ["id": 5, "idx": 6],
            ["id": 7, "idx": 8], ["id": 9, "idx": 10],
            ["name": "a", "child": ["name": "b", "child": ["name": "c", "child": nil]]],
            ["i": 11, "d": 12], ["id": 13], ["idx": 14],
        ]
        #expect(value == expected)
        #expect(value[1]?.objectValue?.keys == ["idx", "id"])
        #expect(value.value(atKeyPath: "5.child.child.name") == "c")
        #expect((0..<5).map { value[$0]?["id"]?.int64Value } == [1, 4, 5, 7, 9])
    }

    @Test("Many objects with predicted keys keep their own values")
    func manyObjects() throws {
        let posts = (0..<500).map {
            #"{"id": \#($0), "text": "post \#($0)", "user": {"id": \#($0 % 7), "name": "u\#($0 % 7)"}}"#
        }
        let value = try JSONReader().read("[" + posts.joined(separator: ",") + "]")
        let array = try #require(value.arrayValue)
        #expect(array.count == 500)
        for (index, post) in array.enumerated() {
            #expect(post["id"] == .integer(Int64(index)))
            #expect(post["text"] == .string("post \(index)"))
            #expect(post.value(atKeyPath: "user.name") == .string("u\(index % 7)"))
        }
    }

    @Test("Keys are compared by bytes, not canonical equivalence")
    func keysByBytes() throws {
        let object = try #require(try JSONReader().read(#"{"\u00e9": 1, "e\u0301": 2, "ключ": 3}"#).objectValue)
        #expect(object.count == 3)
        #expect(object["\u{E9}"] == .integer(1))
        #expect(object["e\u{301}"] == .integer(2))
        #expect(object["ключ"] == .integer(3))
    }

    @Test("Repeated keys are reported on request, in document order, with their path and place")
    func reportedDuplicateKeys() throws {
        let text =
            "{\"a\": 1,\n \"list\": [{\"x\": 1, \"x\": 2}],\r\n \"o\": {\"p\": {\"k\": 1, \"\\u006b\": 2, \"k\": 3}},\r \"a\": {\"b\": 1, \"b\": 2}}"
        let (value, duplicates) = try JSONReader().readReportingDuplicateKeys(Data(text.utf8))
        #expect(value == (try JSONReader().read(text)))
        #expect(
            duplicates == [
                JSONDuplicateKey(path: ["list"], key: "x", line: 2, column: 20),
                JSONDuplicateKey(path: ["o", "p"], key: "k", line: 3, column: 22),
                JSONDuplicateKey(path: ["o", "p"], key: "k", line: 3, column: 35),
                JSONDuplicateKey(path: [], key: "a", line: 4, column: 2),
                JSONDuplicateKey(path: ["a"], key: "b", line: 4, column: 16),
            ])
    }

    @Test("Keys with escapes lead to a repeat by their decoded text, and objects without repeats report none")
    func reportedDuplicateKeysPathsAndNone() throws {
        let nested = #"{"e\u0073c": [1, {"in": {"z": 1, "z": 2}}]}"#
        let (_, duplicates) = try JSONReader().readReportingDuplicateKeys(Data(nested.utf8))
        #expect(duplicates == [JSONDuplicateKey(path: ["esc", "in"], key: "z", line: 1, column: 34)])
        // Same bytes only: canonically equivalent keys are two keys, as the reader keeps them.
        let distinct = #"[{"\u00e9": 1, "e\u0301": 2}, {"id": 1}, {"id": 2}]"#
        let (value, none) = try JSONReader().readReportingDuplicateKeys(Data(distinct.utf8))
        #expect(none.isEmpty)
        #expect(value[0]?.objectValue?.count == 2)
        // A repeat in every one of many same-shaped objects is reported for each.
        let many = "[" + (0..<100).map { _ in #"{"id": 1, "id": 2}"# }.joined(separator: ",") + "]"
        let (_, repeats) = try JSONReader().readReportingDuplicateKeys(Data(many.utf8))
        #expect(repeats.count == 100)
        // Each element is 18 bytes and a comma; the repeat is 10 bytes into the last one.
        #expect(repeats.last == JSONDuplicateKey(path: [], key: "id", line: 1, column: 2 + 99 * 19 + 10))
    }

    @Test("A document that does not read throws the reader's error, duplicates or not")
    func reportedDuplicateKeysMalformed() {
        #expect(throws: WebRecordError.self) {
            try JSONReader().readReportingDuplicateKeys(Data(#"{"a": 1, "a": }"#.utf8))
        }
    }
}

@Suite("JSON reader: errors and limits")
struct WebRecordErrorTests {
    @Test("Errors report line and column on multi-line input")
    func lineAndColumn() throws {
        let text = "{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}"
        let error = try #require(jsonReadError(text))
        #expect(error.jsonSyntax == .unexpectedCharacter)
        #expect(error.line == 3)
        #expect(error.column == 14)
        #expect(error.offset == 25)
        #expect(error.message.hasPrefix("unexpected character ']'"), "\(error.message)")
        #expect(error.location == "line 3, column 14")
        #expect(error.description == "invalidJSON: \(error.location ?? "?"): \(error.message)")
    }

    @Test("CR LF and lone CR end lines too")
    func carriageReturns() throws {
        let crlf = try #require(jsonReadError("{\r\n  \"a\": 1,\r\n  \"b\": [1, 2,]\r\n}"))
        #expect(crlf.line == 3 && crlf.column == 14)
        let cr = try #require(jsonReadError("[1,\r2,\rx]"))
        #expect(cr.line == 3 && cr.column == 1)
    }

    @Test("Columns count bytes")
    func columnsInBytes() throws {
        let error = try #require(jsonReadError("[\"é\" x]"))
        #expect(error.line == 1)
        #expect(error.column == 7)
        #expect(error.offset == 6)
    }

    @Test("Unexpected end is reported at the end of input")
    func unexpectedEnd() throws {
        for text in ["[1, 2", "{\"a\"", "{\"a\":", "\"abc", "[", "{", "tru", "[1,"] {
            let error = try #require(jsonReadError(text), "\(text)")
            #expect(error.jsonSyntax == .unexpectedEnd, "\(text): \(error)")
            #expect(error.offset == text.utf8.count, "\(text)")
        }
    }

    @Test("Content after the top-level value is rejected")
    func trailingContent() throws {
        for (text, offset) in [("1 2", 2), ("{} x", 3), ("[]]", 2), ("null\n\nnull", 6)] {
            let error = try #require(jsonReadError(text))
            #expect(error.jsonSyntax == .trailingContent, "\(text)")
            #expect(error.offset == offset, "\(text)")
        }
    }

    @Test("Empty or whitespace-only input is emptyInput")
    func emptyInput() throws {
        for text in ["", " ", "\n\t\r "] {
            let error = try #require(jsonReadError(text))
            #expect(error.jsonSyntax == .emptyInput)
            #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1)
        }
        #expect(try #require(jsonReadError("")).offset == 0)
        #expect(jsonReadError([UInt8]())?.jsonSyntax == .emptyInput)
        #expect(jsonReadError("\u{0B}1")?.jsonSyntax == .unexpectedCharacter)
        #expect(jsonReadError("\u{0C}1")?.jsonSyntax == .unexpectedCharacter)
    }

    @Test("The depth limit allows exactly maximumDepth levels")
    func depthLimit() throws {
        #expect(JSONReader.defaultMaximumDepth == 512)
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(jsonReadError(deepest) == nil)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = try #require(jsonReadError(tooDeep))
        #expect(error.jsonSyntax == .tooDeep)
        #expect(error.offset == 512)
        #expect(error.message.contains("512"))

        #expect(jsonReadError(#"{"a": {"b": [1]}}"#, maximumDepth: 3) == nil)
        #expect(jsonReadError(#"{"a": {"b": [[1]]}}"#, maximumDepth: 3)?.jsonSyntax == .tooDeep)
        #expect(jsonReadError("1", maximumDepth: 0) == nil)
        #expect(jsonReadError("[]", maximumDepth: 0)?.jsonSyntax == .tooDeep)
    }

    @Test("100,000 opening brackets are tooDeep, not a crash")
    func hundredThousandBrackets() throws {
        let brackets = String(repeating: "[", count: 100_000)
        #expect(jsonReadError(brackets)?.jsonSyntax == .tooDeep)
        #expect(jsonReadError(String(repeating: "{\"a\":", count: 100_000))?.jsonSyntax == .tooDeep)
        // With the limit out of the way, the iterative reader still does not overflow the stack.
        #expect(jsonReadError(brackets, maximumDepth: 200_000)?.jsonSyntax == .unexpectedEnd)
    }

    /// Whether this process runs under the Thread Sanitizer (its runtime is linked in).
    static let isThreadSanitized: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        defer { if let process { dlclose(process) } }
        return dlsym(process, "__tsan_init") != nil
    }()

    @Test("512 levels are safe on a thread with a 512 KB stack")
    func deepOnSmallStack() throws {
        let result = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let text = String(repeating: "[{\"a\":", count: 256) + "1" + String(repeating: "}]", count: 256)
            do {
                let value = try JSONReader().read(text)
                let again = try JSONReader().read(value.serialized(prettyPrinted: true))
                result.value = value == again && value.hashValue == again.hashValue ? "ok" : "different"
            } catch {
                result.value = "error: \(error)"
            }
        }
        // The Thread Sanitizer's instrumentation makes every frame several times larger; the
        // guarantee is for ordinary builds, so a sanitized run gives the thread 4 MB.
        thread.stackSize = Self.isThreadSanitized ? 4 * 1024 * 1024 : 512 * 1024
        thread.start()
        // The thread says when it has ended; the bound is one only a hang reaches.
        let ended = done.wait(timeout: .now() + Sanitizer.bound(MachineLoad.hangTimeout))
        #expect(ended == .success, "the thread did not end")
        #expect(result.value == "ok")
    }
}
