import Foundation
import Testing

@testable import WebRecord

/// The JSONTestSuite parsing corpus (Nicolas Seriot, MIT license; see
/// `Fixtures/JSONTestSuite/LICENSE`), run file by file against ``JSONReader``.
///
/// - `y_*.json` must be accepted, and must survive a serialize/read round trip.
/// - `n_*.json` must be rejected with a positioned ``WebRecordError``.
/// - `i_*.json` are implementation-defined; each must be accepted or rejected without
///   crashing, and the outcome must match the decision recorded in
///   ``JSONTestSuiteCorpus/implementationDefinedAccepted``.
///
/// Decisions for the `i_` files:
///
/// Accepted (11):
/// - `i_number_double_huge_neg_exp`, `i_number_real_underflow`: numbers that underflow
///   `Double` keep their text (`.number`) and read as `0.0`.
/// - `i_number_too_big_neg_int`, `i_number_too_big_pos_int`, `i_number_very_big_negative_int`:
///   integers outside `Int64` keep their digits (`.number`).
/// - `i_number_huge_exp`, `i_number_neg_int_huge_exp`, `i_number_pos_double_huge_exp`,
///   `i_number_real_neg_overflow`, `i_number_real_pos_overflow`: numbers that overflow `Double`
///   keep their text (`.number`), never a silent infinity; population refuses them where they
///   cannot be stored.
/// - `i_structure_500_nested_arrays`: 500 levels is within the default limit of 512.
///
/// Rejected (24):
/// - `i_object_key_lone_2nd_surrogate`, `i_string_1st_surrogate_but_2nd_missing`,
///   `i_string_1st_valid_surrogate_2nd_invalid`, `i_string_incomplete_surrogate_and_escape_valid`,
///   `i_string_incomplete_surrogate_pair`, `i_string_incomplete_surrogates_escape_valid`,
///   `i_string_invalid_lonely_surrogate`, `i_string_invalid_surrogate`,
///   `i_string_inverted_surrogates_U+1D11E`, `i_string_lone_second_surrogate`: lone or
///   mismatched surrogate escapes are `.invalidUnicodeEscape` (a Swift `String` cannot hold them).
/// - `i_string_UTF-8_invalid_sequence`, `i_string_UTF8_surrogate_U+D800`, `i_string_invalid_utf-8`,
///   `i_string_iso_latin_1`, `i_string_lone_utf8_continuation_byte`, `i_string_not_in_unicode_range`,
///   `i_string_overlong_sequence_2_bytes`, `i_string_overlong_sequence_6_bytes`,
///   `i_string_overlong_sequence_6_bytes_null`, `i_string_truncated-utf-8`: ill-formed UTF-8 is
///   `.invalidUTF8`.
/// - `i_string_UTF-16LE_with_BOM`, `i_string_utf16BE_no_BOM`, `i_string_utf16LE_no_BOM`: the
///   input must be UTF-8.
/// - `i_structure_UTF-8_BOM_empty_object`: a UTF-8 byte order mark is rejected.
enum JSONTestSuiteCorpus {
    /// The `test_parsing` directory inside the test bundle's fixtures.
    static let directory: URL? = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
        .appendingPathComponent("JSONTestSuite")
        .appendingPathComponent("test_parsing")

    /// The corpus file names with a prefix (`y_`, `n_` or `i_`), sorted.
    static func names(prefix: String) -> [String] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            return []
        }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    /// The bytes of one corpus file.
    static func bytes(_ name: String) throws -> [UInt8] {
        let directory = try #require(Self.directory)
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The recorded outcome of every `i_` file: `true` when accepted.
    static let implementationDefinedAccepted: [String: Bool] = [
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": true,
        "i_number_neg_int_huge_exp.json": true,
        "i_number_pos_double_huge_exp.json": true,
        "i_number_real_neg_overflow.json": true,
        "i_number_real_pos_overflow.json": true,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_second_surrogate.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        "i_structure_500_nested_arrays.json": true,
        "i_structure_UTF-8_BOM_empty_object.json": false,
    ]
}

@Suite("JSONTestSuite corpus")
struct JSONTestSuiteTests {
    @Test("The corpus is complete in the test bundle")
    func corpusIsPresent() {
        #expect(JSONTestSuiteCorpus.names(prefix: "y_").count == 95)
        #expect(JSONTestSuiteCorpus.names(prefix: "n_").count == 188)
        #expect(JSONTestSuiteCorpus.names(prefix: "i_").count == 35)
        #expect(
            Set(JSONTestSuiteCorpus.names(prefix: "i_"))
                == Set(JSONTestSuiteCorpus.implementationDefinedAccepted.keys))
    }

    @Test("y_ files are accepted and round-trip", arguments: JSONTestSuiteCorpus.names(prefix: "y_"))
    func accepts(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        let value: JSONValue
        do {
            value = try JSONReader().read(bytes)
        } catch {
            Issue.record("\(name) was rejected: \(error)")
            return
        }
        for (sorted, pretty) in [(false, false), (true, false), (false, true)] {
            let text = value.serialized(sortedKeys: sorted, prettyPrinted: pretty)
            #expect(try JSONReader().read(text) == value, "\(name) round trip: \(text)")
        }
    }

    @Test("n_ files are rejected with a position", arguments: JSONTestSuiteCorpus.names(prefix: "n_"))
    func rejects(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        do {
            let value = try JSONReader().read(bytes)
            Issue.record("\(name) was accepted as \(value)")
        } catch {
            #expect((error.line ?? 0) >= 1)
            #expect((error.column ?? 0) >= 1)
            #expect((0...bytes.count).contains(error.offset ?? -1))
            #expect(error.location == "line \(error.line ?? 0), column \(error.column ?? 0)", "\(error.message)")
            #expect(error.description == "invalidJSON: \(error.location ?? "?"): \(error.message)")
        }
    }

    @Test("i_ files follow the recorded decision", arguments: JSONTestSuiteCorpus.names(prefix: "i_"))
    func implementationDefined(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        guard let expected = JSONTestSuiteCorpus.implementationDefinedAccepted[name] else {
            Issue.record("\(name) has no recorded decision")
            return
        }
        let accepted: Bool
        do {
            _ = try JSONReader().read(bytes)
            accepted = true
        } catch {
            #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1)
            accepted = false
        }
        #expect(accepted == expected, "\(name): accepted \(accepted), recorded \(expected)")
    }
}
