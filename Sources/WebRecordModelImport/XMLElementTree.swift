import Foundation

// A small, strict, non-validating XML parser that builds a tree of elements.
//
// It exists so that `CoreDataModelImporter` can read the `contents` file of an
// .xcdatamodel without FoundationXML, which needs libxml2 at run time. It reads
// UTF-8 only, keeps elements and their attributes in document order, and drops
// text content, comments, CDATA sections and processing instructions. Document
// type declarations are rejected rather than half-supported.

// MARK: - Error

/// A well-formedness error, located by 1-based line and column (in Unicode scalars).
struct XMLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line of the problem.
    var line: Int
    /// The 1-based column of the problem, counted in Unicode scalars.
    var column: Int
    /// What is wrong, in one sentence.
    var message: String

    var description: String { "line \(line), column \(column): \(message)" }
}

// MARK: - Tree

/// One element of a parsed XML document: its name, attributes and child elements.
struct XMLElementNode: Sendable {
    /// The element's name, as written (prefix included).
    var name: String
    /// The attributes in document order, with entity and character references resolved.
    var attributes: [(name: String, value: String)]
    /// The child elements in document order. Text content is not kept.
    var children: [XMLElementNode]
    /// The line of the element's `<`.
    var line: Int
    /// The column of the element's `<`.
    var column: Int

    /// The value of the attribute with this name, or `nil` when the element has none.
    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// The child elements with this name, in document order.
    func children(named name: String) -> [XMLElementNode] {
        children.filter { $0.name == name }
    }
}

/// A parsed XML document: its root element.
struct XMLElementTree: Sendable {
    /// The document's root element.
    var root: XMLElementNode

    /// Parses UTF-8 encoded XML (an optional byte-order mark is skipped).
    init(parsing data: Data) throws(XMLParseError) {
        var parser = XMLTreeParser(bytes: Array(data))
        root = try parser.parseDocument()
    }

    /// Parses XML held in a string.
    init(parsing text: String) throws(XMLParseError) {
        var parser = XMLTreeParser(bytes: Array(text.utf8))
        root = try parser.parseDocument()
    }
}

// MARK: - Parser

private enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22       // "
    static let hash: UInt8 = 0x23        // #
    static let ampersand: UInt8 = 0x26   // &
    static let apostrophe: UInt8 = 0x27  // '
    static let slash: UInt8 = 0x2F       // /
    static let semicolon: UInt8 = 0x3B   // ;
    static let lessThan: UInt8 = 0x3C    // <
    static let equals: UInt8 = 0x3D      // =
    static let greaterThan: UInt8 = 0x3E // >
    static let closeBracket: UInt8 = 0x5D // ]
}

private struct XMLTreeParser {
    let bytes: [UInt8]
    var position = 0
    /// The offset at which each line starts; line breaks are LF, CRLF or a lone CR.
    let lineStarts: [Int]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.newline {
                starts.append(index + 1)
            } else if byte == ASCII.carriageReturn,
                      index + 1 >= bytes.count || bytes[index + 1] != ASCII.newline {
                starts.append(index + 1)
            }
            index += 1
        }
        lineStarts = starts
    }

    // MARK: Locations and errors

    func location(of offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        var column = 1
        var index = lineStarts[low]
        let end = min(offset, bytes.count)
        while index < end {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }  // count scalars, not bytes
            index += 1
        }
        return (low + 1, column)
    }

    func error(_ message: String, at offset: Int) -> XMLParseError {
        let (line, column) = location(of: offset)
        return XMLParseError(line: line, column: column, message: message)
    }

    // MARK: Low-level scanning

    var isAtEnd: Bool { position >= bytes.count }

    func hasPrefix(_ text: StaticString, at offset: Int? = nil) -> Bool {
        let start = offset ?? position
        let count = text.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        return text.withUTF8Buffer { buffer in
            for index in 0..<count where bytes[start + index] != buffer[index] { return false }
            return true
        }
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

    /// Skips whitespace and tells whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while !isAtEnd, Self.isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    /// The offset of the next occurrence of `text` at or after `position`, if any.
    func offset(of text: StaticString) -> Int? {
        var index = position
        while index < bytes.count {
            if hasPrefix(text, at: index) { return index }
            index += 1
        }
        return nil
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    // MARK: Document

    mutating func parseDocument() throws(XMLParseError) -> XMLElementNode {
        try validateUTF8()
        if hasPrefix("\u{FEFF}") { position = 3 }
        if hasPrefix("<?xml"), position + 5 < bytes.count,
           Self.isWhitespace(bytes[position + 5]) || bytes[position + 5] == 0x3F {
            try skipProcessingInstruction(allowingXMLDeclaration: true)
        }
        try skipMiscellany()
        guard !isAtEnd else {
            throw error("unexpected end of document: there is no root element", at: position)
        }
        guard bytes[position] == ASCII.lessThan, position + 1 < bytes.count,
              Self.isNameStart(bytes[position + 1]) else {
            throw error("expected the root element, found \(describe(bytes[position]))", at: position)
        }
        let root = try parseElement()
        try skipMiscellany()
        if !isAtEnd {
            throw error("unexpected content after the root element </\(root.name)>", at: position)
        }
        return root
    }

    mutating func validateUTF8() throws(XMLParseError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error: throw error("the document is not valid UTF-8 (only UTF-8 is supported)", at: offset)
            }
        }
    }

    /// Skips whitespace, comments and processing instructions outside the root element.
    mutating func skipMiscellany() throws(XMLParseError) {
        while true {
            skipWhitespace()
            if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction(allowingXMLDeclaration: false)
            } else if hasPrefix("<!DOCTYPE") {
                throw error("DOCTYPE declarations are not supported", at: position)
            } else {
                return
            }
        }
    }

    // MARK: Elements

    /// Parses the element starting at `position` (a `<` followed by a name), iteratively,
    /// so that deep nesting cannot overflow the stack.
    mutating func parseElement() throws(XMLParseError) -> XMLElementNode {
        var open: [XMLElementNode] = []
        while true {
            let (element, isEmpty) = try parseStartTag()
            if isEmpty {
                guard !open.isEmpty else { return element }
                open[open.count - 1].children.append(element)
            } else {
                open.append(element)
            }
            // Content of the innermost open element, up to the next start tag.
            content: while let current = open.last {
                guard !isAtEnd else {
                    throw error(
                        "unexpected end of document: <\(current.name)> opened at line \(current.line), "
                            + "column \(current.column) is not closed",
                        at: position)
                }
                switch bytes[position] {
                case ASCII.lessThan:
                    if hasPrefix("</") {
                        let tagStart = position
                        let name = try parseEndTag()
                        guard name == current.name else {
                            throw error(
                                "mismatched end tag: expected </\(current.name)> (opened at line \(current.line), "
                                    + "column \(current.column)), found </\(name)>",
                                at: tagStart)
                        }
                        let finished = open.removeLast()
                        guard !open.isEmpty else { return finished }
                        open[open.count - 1].children.append(finished)
                    } else if hasPrefix("<!--") {
                        try skipComment()
                    } else if hasPrefix("<![CDATA[") {
                        try skipCDATA()
                    } else if hasPrefix("<?") {
                        try skipProcessingInstruction(allowingXMLDeclaration: false)
                    } else if hasPrefix("<!DOCTYPE") {
                        throw error("DOCTYPE declarations are not supported", at: position)
                    } else if hasPrefix("<!") {
                        throw error("unsupported markup declaration", at: position)
                    } else {
                        break content
                    }
                case ASCII.ampersand:
                    _ = try parseReference()  // text is dropped, but its references must be well-formed
                case ASCII.closeBracket where hasPrefix("]]>"):
                    throw error("']]>' is not allowed in text", at: position)
                default:
                    position += 1
                }
            }
        }
    }

    /// Parses `<name attr="value" ...>` or `<name ... />`.
    mutating func parseStartTag() throws(XMLParseError) -> (element: XMLElementNode, isEmpty: Bool) {
        let start = position
        position += 1  // <
        let name = try parseName(what: "an element name")
        let (line, column) = location(of: start)
        var element = XMLElementNode(name: name, attributes: [], children: [], line: line, column: column)
        while true {
            let hadWhitespace = skipWhitespace()
            guard !isAtEnd else {
                throw error("unterminated start tag <\(name)>", at: start)
            }
            if bytes[position] == ASCII.greaterThan {
                position += 1
                return (element, false)
            }
            if hasPrefix("/>") {
                position += 2
                return (element, true)
            }
            guard hadWhitespace, Self.isNameStart(bytes[position]) else {
                throw error("unexpected \(describe(bytes[position])) in start tag <\(name)>", at: position)
            }
            let attributeStart = position
            let attributeName = try parseName(what: "an attribute name")
            skipWhitespace()
            guard !isAtEnd, bytes[position] == ASCII.equals else {
                if isAtEnd { throw error("unterminated start tag <\(name)>", at: start) }
                throw error("expected '=' after attribute \(attributeName) in <\(name)>", at: position)
            }
            position += 1
            skipWhitespace()
            guard !isAtEnd, bytes[position] == ASCII.quote || bytes[position] == ASCII.apostrophe else {
                if isAtEnd { throw error("unterminated start tag <\(name)>", at: start) }
                throw error("expected a quoted value for attribute \(attributeName) in <\(name)>", at: position)
            }
            let value = try parseAttributeValue(of: attributeName)
            if element.attributes.contains(where: { $0.name == attributeName }) {
                throw error("duplicate attribute \(attributeName) in <\(name)>", at: attributeStart)
            }
            element.attributes.append((name: attributeName, value: value))
        }
    }

    /// Parses `</name>` and returns the name.
    mutating func parseEndTag() throws(XMLParseError) -> String {
        let start = position
        position += 2  // </
        let name = try parseName(what: "an element name")
        skipWhitespace()
        guard !isAtEnd else { throw error("unterminated end tag </\(name)>", at: start) }
        guard bytes[position] == ASCII.greaterThan else {
            throw error("unexpected \(describe(bytes[position])) in end tag </\(name)>", at: position)
        }
        position += 1
        return name
    }

    mutating func parseName(what: String) throws(XMLParseError) -> String {
        let start = position
        guard !isAtEnd else { throw error("unexpected end of document: expected \(what)", at: position) }
        guard Self.isNameStart(bytes[position]) else {
            throw error("expected \(what), found \(describe(bytes[position]))", at: position)
        }
        while !isAtEnd, Self.isNameCharacter(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Parses a quoted attribute value, resolving references and normalizing
    /// literal tabs and line breaks to spaces, as XML requires.
    mutating func parseAttributeValue(of attributeName: String) throws(XMLParseError) -> String {
        let quoteStart = position
        let quote = bytes[position]
        position += 1
        var value: [UInt8] = []
        while true {
            guard !isAtEnd else {
                throw error("unterminated value of attribute \(attributeName)", at: quoteStart)
            }
            let byte = bytes[position]
            switch byte {
            case quote:
                position += 1
                return String(decoding: value, as: UTF8.self)
            case ASCII.lessThan:
                throw error("'<' is not allowed in the value of attribute \(attributeName)", at: position)
            case ASCII.ampersand:
                let scalar = try parseReference()
                value.append(contentsOf: Array(String(Character(scalar)).utf8))
            case ASCII.carriageReturn:
                value.append(ASCII.space)
                position += 1
                if !isAtEnd, bytes[position] == ASCII.newline { position += 1 }
            case ASCII.newline, ASCII.tab:
                value.append(ASCII.space)
                position += 1
            default:
                value.append(byte)
                position += 1
            }
        }
    }

    /// Parses `&name;`, `&#NNN;` or `&#xHHH;` and returns the character it stands for.
    mutating func parseReference() throws(XMLParseError) -> Unicode.Scalar {
        let start = position
        position += 1  // &
        let bodyStart = position
        while !isAtEnd, bytes[position] != ASCII.semicolon, position - bodyStart < 32,
              Self.isNameCharacter(bytes[position]) || bytes[position] == ASCII.hash {
            position += 1
        }
        guard !isAtEnd, bytes[position] == ASCII.semicolon, position > bodyStart else {
            throw error("unterminated entity or character reference", at: start)
        }
        let body = String(decoding: bytes[bodyStart..<position], as: UTF8.self)
        position += 1  // ;
        if body.hasPrefix("#") {
            let isHex = body.hasPrefix("#x")
            let digits = body.dropFirst(isHex ? 2 : 1)
            let allowed = isHex ? "0123456789abcdefABCDEF" : "0123456789"
            guard !digits.isEmpty, digits.allSatisfy({ allowed.contains($0) }),
                  let code = UInt32(digits, radix: isHex ? 16 : 10),
                  let scalar = Unicode.Scalar(code), Self.isXMLCharacter(code) else {
                throw error("invalid character reference &\(body);", at: start)
            }
            return scalar
        }
        switch body {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "apos": return "'"
        case "quot": return "\""
        default: throw error("unknown entity &\(body);", at: start)
        }
    }

    static func isXMLCharacter(_ code: UInt32) -> Bool {
        code == 0x9 || code == 0xA || code == 0xD
            || (0x20...0xD7FF).contains(code) || (0xE000...0xFFFD).contains(code)
            || (0x10000...0x10FFFF).contains(code)
    }

    // MARK: Comments, CDATA, processing instructions

    mutating func skipComment() throws(XMLParseError) {
        let start = position
        position += 4  // <!--
        guard let dashes = offset(of: "--") else {
            throw error("unterminated comment", at: start)
        }
        guard hasPrefix("-->", at: dashes) else {
            throw error("'--' is not allowed inside a comment", at: dashes)
        }
        position = dashes + 3
    }

    mutating func skipCDATA() throws(XMLParseError) {
        let start = position
        position += 9  // <![CDATA[
        guard let end = offset(of: "]]>") else {
            throw error("unterminated CDATA section", at: start)
        }
        position = end + 3
    }

    mutating func skipProcessingInstruction(allowingXMLDeclaration: Bool) throws(XMLParseError) {
        let start = position
        position += 2  // <?
        let target = try parseName(what: "a processing-instruction target")
        if target.lowercased() == "xml" && !allowingXMLDeclaration {
            throw error("the XML declaration is only allowed at the start of the document", at: start)
        }
        guard let end = offset(of: "?>") else {
            throw error("unterminated processing instruction <?\(target)", at: start)
        }
        position = end + 2
    }
}
