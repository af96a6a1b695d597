extension WebRecordError {
    /// What is wrong with a text that is not one valid JSON value: the ``WebRecordError/jsonSyntax``
    /// of an ``WebRecordError/Code/invalidJSON`` error.
    ///
    /// The error's position is that of the first offending byte: the unexpected character,
    /// the first byte of an invalid number, the backslash of an invalid escape, the first byte
    /// of an invalid UTF-8 sequence, the bracket that nests too deep, or the end of the input
    /// for ``unexpectedEnd``. Lines are separated by LF, CR LF or a lone CR. Columns count
    /// **bytes** (not characters) from the start of the line, so a line that starts with
    /// `"é",` has its comma at column 5.
    ///
    /// ```swift
    /// do {
    ///     _ = try JSONReader().read("{\n  \"a\": 1,\n}")
    /// } catch {
    ///     error.code          // .invalidJSON
    ///     error.jsonSyntax    // .unexpectedCharacter
    ///     error.location      // "line 3, column 1"
    ///     error.message       // "unexpected character '}' (expected a string key)"
    /// }
    /// ```
    public enum JSONSyntax: Sendable, Hashable {
        /// The input ends in the middle of a value.
        case unexpectedEnd
        /// A byte that cannot start or continue the expected token (including a byte order
        /// mark, a comment, a single quote, or a trailing comma's closing bracket).
        case unexpectedCharacter
        /// A malformed number (leading zero, missing digits, `+`), or one that overflows `Double`.
        case invalidNumber
        /// A backslash followed by a character that is not a JSON escape.
        case invalidEscape
        /// A `\u` escape with bad hex digits, or a lone or mismatched UTF-16 surrogate.
        case invalidUnicodeEscape
        /// Bytes in a string that are not well-formed UTF-8.
        case invalidUTF8
        /// An unescaped control character (U+0000–U+001F) in a string.
        case controlCharacterInString
        /// Arrays and objects nest deeper than ``JSONReader/maximumDepth``.
        case tooDeep
        /// Something other than whitespace follows the top-level value.
        case trailingContent
        /// The input is empty or only whitespace.
        case emptyInput
    }

    /// The error for an internal failure of the JSON reader, located in the input.
    init(_ failure: JSONParseFailure, in input: UnsafeBufferPointer<UInt8>) {
        let offset = min(max(failure.offset, 0), input.count)
        var lines = JSONLineCounter(input)
        let (line, column) = lines.position(of: offset)
        let found = Self.describeByte(at: offset, in: input)
        var text: String
        switch failure.kind {
        case .unexpectedEnd:
            text = "unexpected end of input"
        case .unexpectedCharacter:
            text = "unexpected character \(found)"
        case .invalidNumber:
            text = "invalid number"
        case .invalidEscape:
            text = "invalid escape sequence"
        case .invalidUnicodeEscape:
            text = "invalid \\u escape"
        case .invalidUTF8:
            text = "invalid UTF-8 \(found) in string"
        case .controlCharacterInString:
            text = "unescaped control character \(found) in string"
        case .tooDeep:
            text = "arrays and objects nest deeper than \(failure.limit) levels"
        case .trailingContent:
            text = "unexpected character \(found) after the JSON value"
        case .emptyInput:
            text = "empty input, no JSON value"
        }
        if let detail = failure.detail {
            text += " (\(detail))"
        }
        self.init(.invalidJSON, text)
        self.jsonSyntax = failure.kind
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// A short, printable rendering of the byte at `offset`, for messages.
    private static func describeByte(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> String {
        guard offset < input.count else { return "end of input" }
        let byte = input[offset]
        if byte < 0x20 {
            let hex = String(byte, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        if byte < 0x7F {
            return "'" + String(UnicodeScalar(byte)) + "'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" : "") + hex
    }
}
