/// A first pass over a model's XML, before `XMLParser` reads it: where each tag starts, and the
/// markup `XMLParser` must not be given.
///
/// `XMLParser` tells where it is only once it has read a tag, so the offsets found here place
/// each element at its `<`, and a mismatched end tag at its `</`. The scan also refuses, with
/// its location:
///
/// - A document type declaration (`<!DOCTYPE`). Xcode never writes one. Without it the
///   document declares no entity, so none is expanded (no "billion laughs") and nothing
///   external is loaded, whatever libxml2 is underneath; and some declarations in one
///   (`<!ATTLIST a b CDATA #IMPLIED>`, `<!NOTATION n SYSTEM "x">`) crash FoundationXML's
///   `XMLParser` on Linux.
/// - A processing instruction with no data, `<?name?>`, which crashes FoundationXML's
///   `XMLParser` on Linux (Swift 6.3.1: it reads a null pointer).
/// - An XML declaration that names an encoding other than UTF-8. The bytes are UTF-8 (the
///   importer checks that first), and libxml2 would decode them as the declared encoding.
///
/// The scan does not check well-formedness. Where the markup is broken it stops, or records
/// what it sees, and `XMLParser` reports the error. Up to the first error, the tags it records
/// are those `XMLParser` reports, in the same order: neither text nor attribute values may
/// hold a `<`, and comments, CDATA sections and processing instructions are skipped.
struct XMLMarkupScan {
    /// A start tag: `<name ...>`, or `<name .../>` when `isEmpty`.
    struct StartTag: Equatable {
        /// The offset of its `<`.
        var offset: Int
        /// Whether the tag closes itself (`/>`), so that no end tag matches it.
        var isEmpty: Bool
        /// The 1-based line of its `<`.
        var line = 0
        /// The 1-based column of its `<`, in Unicode scalars.
        var column = 0
    }

    /// An end tag, `</name>`.
    struct EndTag: Equatable {
        /// The offset of its `<`.
        var offset: Int
        /// The name it closes.
        var name: String
        /// The 1-based line of its `<`.
        var line = 0
        /// The 1-based column of its `<`, in Unicode scalars.
        var column = 0
    }

    /// The document's bytes.
    let bytes: [UInt8]
    /// The start tags, in document order.
    private(set) var startTags: [StartTag] = []
    /// The end tags, in document order.
    private(set) var endTags: [EndTag] = []
    /// A start tag that the document ends in the middle of: the offset of its `<`, and its name.
    private(set) var unterminatedStartTag: (offset: Int, name: String)?

    /// Scans a document's bytes.
    ///
    /// - Throws: `ModelXMLError` for a DOCTYPE declaration, a processing instruction with no
    ///   data, or an XML declaration naming another encoding than UTF-8.
    init(bytes: [UInt8]) throws(ModelXMLError) {
        self.bytes = bytes
        try scan()
        locateTags()
    }

    // MARK: Locations

    /// The 1-based line and column (in Unicode scalars) of a byte offset. Errors use it; the
    /// tags are located all at once by `locateTags()`.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var position = TextPosition()
        while position.offset < min(offset, bytes.count) { position.step(over: bytes) }
        return (position.line, position.column)
    }

    /// The byte offset of a 1-based line and column (in Unicode scalars), clamped to the
    /// document.
    func offset(line: Int, column: Int) -> Int {
        var position = TextPosition()
        while position.offset < bytes.count,
            (position.line, position.column) < (line, column) || bytes[position.offset] & 0xC0 == 0x80
        {
            position.step(over: bytes)  // and past the rest of a character's bytes
        }
        return position.offset
    }

    /// Gives every tag its line and column, in one pass over the document (counting from each
    /// line's start instead would take time in the square of a long line's length).
    private mutating func locateTags() {
        var position = TextPosition()
        var startIndex = 0
        var endIndex = 0
        while startIndex < startTags.count || endIndex < endTags.count {
            if endIndex == endTags.count
                || (startIndex < startTags.count && startTags[startIndex].offset < endTags[endIndex].offset)
            {
                while position.offset < startTags[startIndex].offset { position.step(over: bytes) }
                startTags[startIndex].line = position.line
                startTags[startIndex].column = position.column
                startIndex += 1
            } else {
                while position.offset < endTags[endIndex].offset { position.step(over: bytes) }
                endTags[endIndex].line = position.line
                endTags[endIndex].column = position.column
                endIndex += 1
            }
        }
    }

    /// Where the document ends.
    var end: (line: Int, column: Int) { location(of: bytes.count) }

    func error(_ message: String, at offset: Int) -> ModelXMLError {
        let (line, column) = location(of: offset)
        return ModelXMLError(line: line, column: column, message: message)
    }

    // MARK: Scanning

    private mutating func scan() throws(ModelXMLError) {
        var position = hasPrefix([0xEF, 0xBB, 0xBF], at: 0) ? 3 : 0  // a byte-order mark
        if hasPrefix("<?xml", at: position), position + 5 < bytes.count, Self.isWhitespace(bytes[position + 5]) {
            guard let end = find("?>", from: position + 5) else { return }
            try checkEncoding(ofDeclarationIn: position..<end)
            position = end + 2
        }
        while let start = bytes[position...].firstIndex(of: ASCII.lessThan) {
            position = start
            if hasPrefix("<!--", at: start) {
                guard let end = find("-->", from: start + 4) else { return }
                position = end + 3
            } else if hasPrefix("<![CDATA[", at: start) {
                guard let end = find("]]>", from: start + 9) else { return }
                position = end + 3
            } else if hasPrefix("<!DOCTYPE", at: start) {
                throw error("DOCTYPE declarations are not supported", at: start)
            } else if hasPrefix("<?", at: start) {
                let nameEnd = nameEnd(from: start + 2)
                if nameEnd > start + 2, hasPrefix("?>", at: nameEnd) {
                    let name = String(decoding: bytes[(start + 2)..<nameEnd], as: UTF8.self)
                    throw error("empty processing instruction <?\(name)?> is not supported", at: start)
                }
                guard let end = find("?>", from: start + 2) else { return }
                position = end + 2
            } else if hasPrefix("</", at: start) {
                let nameEnd = nameEnd(from: start + 2)
                endTags.append(
                    EndTag(offset: start, name: String(decoding: bytes[(start + 2)..<nameEnd], as: UTF8.self)))
                position = nameEnd
            } else if start + 1 < bytes.count, Self.isNameStart(bytes[start + 1]) {
                guard let (end, isEmpty) = startTagEnd(from: start + 1) else {
                    let name = String(decoding: bytes[(start + 1)..<nameEnd(from: start + 1)], as: UTF8.self)
                    unterminatedStartTag = (start, name)
                    return
                }
                startTags.append(StartTag(offset: start, isEmpty: isEmpty))
                position = end
            } else {
                position = start + 1
            }
        }
    }

    /// The offset after a start tag's `>`, and whether it was `/>`; `nil` at the end of the
    /// document. A `<` ends the tag early (it is malformed; `XMLParser` says so).
    private func startTagEnd(from offset: Int) -> (end: Int, isEmpty: Bool)? {
        var index = offset
        while index < bytes.count {
            switch bytes[index] {
            case ASCII.quote, ASCII.apostrophe:
                guard let close = bytes[(index + 1)...].firstIndex(of: bytes[index]) else { return nil }
                index = close + 1
            case ASCII.greaterThan:
                return (index + 1, bytes[index - 1] == ASCII.slash)
            case ASCII.lessThan:
                return (index, false)
            default:
                index += 1
            }
        }
        return nil
    }

    /// Refuses an XML declaration whose `encoding` is not UTF-8.
    private func checkEncoding(ofDeclarationIn range: Range<Int>) throws(ModelXMLError) {
        guard let keyword = find("encoding", from: range.lowerBound), keyword < range.upperBound else { return }
        var index = keyword + 8
        while index < range.upperBound, Self.isWhitespace(bytes[index]) { index += 1 }
        guard index < range.upperBound, bytes[index] == ASCII.equals else { return }
        index += 1
        while index < range.upperBound, Self.isWhitespace(bytes[index]) { index += 1 }
        guard index < range.upperBound, bytes[index] == ASCII.quote || bytes[index] == ASCII.apostrophe,
            let close = bytes[(index + 1)..<range.upperBound].firstIndex(of: bytes[index])
        else { return }
        let encoding = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
        guard ["utf-8", "utf8"].contains(encoding.lowercased()) else {
            throw error("the XML declaration names the encoding \"\(encoding)\"; only UTF-8 is supported", at: keyword)
        }
    }

    // MARK: Bytes

    private func hasPrefix(_ prefix: some Collection<UInt8>, at offset: Int) -> Bool {
        guard offset + prefix.count <= bytes.count else { return false }
        var index = offset
        for byte in prefix {
            guard bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    private func hasPrefix(_ text: StaticString, at offset: Int) -> Bool {
        text.withUTF8Buffer { hasPrefix($0, at: offset) }
    }

    /// The offset of the next occurrence of `text` at or after `offset`, if any.
    private func find(_ text: StaticString, from offset: Int) -> Int? {
        text.withUTF8Buffer { pattern -> Int? in
            guard let first = pattern.first else { return nil }
            var index = offset
            while index < bytes.count, let candidate = bytes[index...].firstIndex(of: first) {
                if hasPrefix(pattern, at: candidate) { return candidate }
                index = candidate + 1
            }
            return nil
        }
    }

    /// The offset after the name that starts at `offset` (`offset` itself when none does).
    private func nameEnd(from offset: Int) -> Int {
        var index = offset
        guard index < bytes.count, Self.isNameStart(bytes[index]) else { return offset }
        while index < bytes.count, Self.isNameCharacter(bytes[index]) { index += 1 }
        return index
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.tab || byte == ASCII.newline || byte == ASCII.carriageReturn
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F || byte == 0x3A || byte >= 0x80
    }

    static func isNameCharacter(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    }
}

/// A byte offset in a document with its 1-based line and column: lines break at LF, CRLF or
/// a lone CR, and columns count Unicode scalars.
private struct TextPosition {
    var offset = 0
    var line = 1
    var column = 1

    /// Moves past the byte at `offset`.
    mutating func step(over bytes: [UInt8]) {
        let byte = bytes[offset]
        if byte == ASCII.newline
            || (byte == ASCII.carriageReturn && (offset + 1 == bytes.count || bytes[offset + 1] != ASCII.newline))
        {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
        offset += 1
    }
}

private enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22  // "
    static let apostrophe: UInt8 = 0x27  // '
    static let slash: UInt8 = 0x2F  // /
    static let lessThan: UInt8 = 0x3C  // <
    static let equals: UInt8 = 0x3D  // =
    static let greaterThan: UInt8 = 0x3E  // >
}
