#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A strict RFC 8259 JSON reader that turns UTF-8 bytes into a ``JSONValue``.
///
/// The reader works directly on the input bytes and validates everything in a single pass:
///
/// - **Grammar.** Exactly RFC 8259: whitespace is only space, tab, line feed and carriage
///   return; the top-level value may be any value, scalars included; no trailing commas, no
///   comments, no `NaN` or `Infinity`, no leading zeros, no leading `+`, no single quotes.
///   Anything other than whitespace after the top-level value is an error.
/// - **Encoding.** The input must be UTF-8. Strings are validated as they are scanned:
///   overlong forms, UTF-8-encoded surrogates (U+D800–U+DFFF), code points above U+10FFFF,
///   stray continuation bytes and truncated sequences are rejected (``WebRecordError/JSONSyntax/invalidUTF8``).
///   A UTF-8 byte order mark at the start is rejected too (``WebRecordError/JSONSyntax/unexpectedCharacter``):
///   RFC 8259 forbids emitting one, and web services do not.
/// - **Strings.** Control characters U+0000–U+001F must be escaped. `\u` escapes that form
///   a UTF-16 surrogate pair are combined into one scalar; a lone or mismatched surrogate
///   escape is rejected (``WebRecordError/JSONSyntax/invalidUnicodeEscape``), because a Swift
///   `String` cannot hold it.
/// - **Numbers.** A number with no fraction and no exponent that fits `Int64` becomes
///   ``JSONValue/integer(_:)`` (`-0` becomes `.integer(0)`). Every other number becomes
///   ``JSONValue/double(_:)``, correctly rounded (the same `Double` that `strtod` returns).
///   A number whose magnitude overflows `Double` (such as `1e400`) is rejected
///   (``WebRecordError/JSONSyntax/invalidNumber``) rather than stored as an infinity; one that
///   underflows (such as `1e-400`) becomes `0.0` or a subnormal.
/// - **Objects.** Keys keep their first-seen order. When a key is repeated in one object,
///   the last value wins and keeps the position of the first occurrence.
/// - **Depth.** Arrays and objects may nest at most ``maximumDepth`` levels
///   (``defaultMaximumDepth``, 512, unless configured); deeper input throws
///   ``WebRecordError/JSONSyntax/tooDeep``. The reader itself is iterative, so no input can
///   overflow the stack while reading.
///
/// Errors carry a 1-based line and column (see ``WebRecordError``).
///
/// ```swift
/// let reader = JSONReader()
/// let value = try reader.read(#"{"data": [{"id": 1, "user": {"name": "alice"}}]}"#)
/// value.value(atKeyPath: "data.0.user.name")   // .string("alice")
/// ```
///
/// `JSONReader` is a small value type; reading allocates its scratch space per call, so one
/// reader can be shared by concurrent tasks.
public struct JSONReader: Sendable {
    /// The default maximum nesting depth of arrays and objects: 512.
    ///
    /// 512 levels is far beyond what any web service returns, and low enough that the
    /// recursive operations on the resulting value (equality, hashing, deallocation) stay well
    /// within a 512 KB secondary-thread stack. (Reading and serialization are iterative.)
    public static let defaultMaximumDepth: Int = 512

    /// The maximum nesting depth of arrays and objects.
    ///
    /// `[[1]]` has depth 2; a scalar has depth 0, so `0` allows only a scalar at the top
    /// level. Input that nests deeper throws ``WebRecordError/JSONSyntax/tooDeep``, reported at
    /// the bracket that opens the level too many.
    ///
    /// Reading is iterative and never overflows the stack, but the value that results is
    /// destroyed, compared and hashed recursively: keep this limit in the thousands at most.
    public var maximumDepth: Int

    /// Creates a reader.
    ///
    /// - Parameter maximumDepth: The maximum nesting depth of arrays and objects; defaults
    ///   to ``defaultMaximumDepth`` (512).
    public init(maximumDepth: Int = JSONReader.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Reads one JSON value from UTF-8 bytes.
    ///
    /// - Parameter bytes: The complete JSON text, UTF-8 encoded, without a byte order mark.
    /// - Returns: The top-level value.
    /// - Throws: ``WebRecordError`` when the bytes are not one valid JSON value, with the
    ///   kind of problem and where it is.
    func read(_ bytes: UnsafeRawBufferPointer) throws(WebRecordError) -> JSONValue {
        try read(bytes, reportingDuplicateKeys: false).value
    }

    /// Reads one JSON value from UTF-8 bytes and, when `reportingDuplicateKeys`, lists the keys
    /// written twice in one object, in document order (otherwise the list is empty).
    func read(
        _ bytes: UnsafeRawBufferPointer, reportingDuplicateKeys: Bool
    ) throws(WebRecordError) -> (value: JSONValue, duplicateKeys: [JSONDuplicateKey]) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw WebRecordError(JSONParseFailure(.emptyInput, at: 0), in: UnsafeBufferPointer(start: nil, count: 0))
        }
        let result = base.withMemoryRebound(to: UInt8.self, capacity: bytes.count) {
            pointer -> Result<(value: JSONValue, duplicateKeys: [JSONDuplicateKey]), WebRecordError> in
            let buffer = UnsafeBufferPointer(start: pointer, count: bytes.count)
            do throws(JSONParseFailure) {
                var parser = JSONParser(
                    pointer, count: bytes.count, maximumDepth: maximumDepth, reportsRepeatedKeys: reportingDuplicateKeys
                )
                let value = try parser.parseDocument()
                guard let repeated = parser.repeatedKeys, !repeated.isEmpty else { return .success((value, [])) }
                return .success((value, JSONDuplicateKey.located(repeated, in: buffer)))
            } catch {
                return .failure(WebRecordError(error, in: buffer))
            }
        }
        return try result.get()
    }

    /// Reads one JSON value from UTF-8 data.
    ///
    /// - Parameter data: The complete JSON text, UTF-8 encoded, without a byte order mark.
    /// - Returns: The top-level value.
    /// - Throws: ``WebRecordError`` when the data is not one valid JSON value.
    public func read(_ data: Data) throws(WebRecordError) -> JSONValue {
        let result = data.withUnsafeBytes { bytes -> Result<JSONValue, WebRecordError> in
            do throws(WebRecordError) {
                return .success(try read(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads one JSON value from UTF-8 bytes.
    ///
    /// - Parameter bytes: The complete JSON text, UTF-8 encoded, without a byte order mark.
    /// - Returns: The top-level value.
    /// - Throws: ``WebRecordError`` when the bytes are not one valid JSON value.
    func read(_ bytes: [UInt8]) throws(WebRecordError) -> JSONValue {
        let result = bytes.withUnsafeBytes { bytes -> Result<JSONValue, WebRecordError> in
            do throws(WebRecordError) {
                return .success(try read(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads one JSON value from a string.
    ///
    /// The string's UTF-8 form is read; it is always valid UTF-8, but a leading U+FEFF
    /// (byte order mark) is still rejected.
    ///
    /// - Parameter string: The complete JSON text.
    /// - Returns: The top-level value.
    /// - Throws: ``WebRecordError`` when the text is not one valid JSON value.
    public func read(_ string: String) throws(WebRecordError) -> JSONValue {
        var string = string
        let result = string.withUTF8 { bytes -> Result<JSONValue, WebRecordError> in
            do throws(WebRecordError) {
                return .success(try read(UnsafeRawBufferPointer(bytes)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
