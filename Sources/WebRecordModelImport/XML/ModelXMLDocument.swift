import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A model's XML read into a tree of elements, with Foundation's `XMLParser`.
///
/// `XMLParser` (libxml2 underneath) checks that the document is well-formed. It is set up to
/// load nothing external, and an `XMLMarkupScan` runs first: it refuses DOCTYPE declarations
/// (so no entity can be declared, and none expanded) and what crashes `XMLParser` on Linux,
/// and it finds where each tag starts, so that an element is located at its `<`.
///
/// Elements nested deeper than `keptDepth` are read, and must be well-formed, but are not
/// kept: a deeply nested document costs no tree, and freeing the tree never recurses deeply.
/// Text content, comments, CDATA sections and processing instructions are not kept either.
struct ModelXMLDocument {
    /// The document's root element.
    var root: ModelXMLElement

    /// Reads UTF-8 encoded XML (an optional byte-order mark is skipped).
    ///
    /// - Parameters:
    ///   - data: The document's bytes, which the caller has checked are UTF-8.
    ///   - keptDepth: How many levels of elements to keep, the root being level 1.
    /// - Throws: `ModelXMLError` when the document is not well-formed, has a DOCTYPE
    ///   declaration or an empty processing instruction, or declares another encoding.
    init(parsing data: Data, keptDepth: Int) throws(ModelXMLError) {
        let scan = try XMLMarkupScan(bytes: Array(data))
        let builder = ModelXMLTreeBuilder(scan: scan, keptDepth: keptDepth)
        // From a stream, XMLParser hands libxml2 the document in pieces of 128 KB; given all
        // of it at once, libxml2 refuses a document over 10,000,000 bytes ("Huge input lookup").
        let parser = XMLParser(stream: InputStream(data: data))
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = builder
        _ = parser.parse()  // the builder records the first error; parse() may succeed despite it
        root = try builder.finish()
    }
}

/// The `XMLParser` delegate that builds the element tree and words the first error.
private final class ModelXMLTreeBuilder: NSObject, XMLParserDelegate {
    /// An element whose end tag has not been read yet.
    struct OpenElement {
        var name: String
        var line: Int
        var column: Int
        /// Whether it was `<name/>`, which no end tag closes.
        var isEmpty: Bool
    }

    let scan: XMLMarkupScan
    let keptDepth: Int
    /// The open elements, outermost first, at every depth.
    var open: [OpenElement] = []
    /// The open elements that are kept (the first `keptDepth` of `open`), with their children so far.
    var kept: [ModelXMLElement] = []
    var root: ModelXMLElement?
    /// How many start and end tags have been read: the indexes of the next ones in `scan`.
    var startTagsRead = 0
    var endTagsRead = 0
    var error: ModelXMLError?

    init(scan: XMLMarkupScan, keptDepth: Int) {
        self.scan = scan
        self.keptDepth = keptDepth
    }

    /// The root element, or the error that stopped the parse.
    func finish() throws(ModelXMLError) -> ModelXMLElement {
        if let error { throw error }
        if let root, open.isEmpty { return root }
        let (line, column) = scan.end
        throw ModelXMLError(line: line, column: column, message: endOfDocumentMessage())
    }

    // MARK: XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String]
    ) {
        guard error == nil else { return }
        let tag: XMLMarkupScan.StartTag? =
            startTagsRead < scan.startTags.count ? scan.startTags[startTagsRead] : nil
        startTagsRead += 1
        // The scan finds every start tag XMLParser reports; the parser's own position (the end
        // of the tag) is only a fallback.
        let (line, column) = tag.map { ($0.line, $0.column) } ?? (parser.lineNumber, parser.columnNumber)
        open.append(OpenElement(name: elementName, line: line, column: column, isEmpty: tag?.isEmpty ?? false))
        if open.count <= keptDepth {
            kept.append(
                ModelXMLElement(name: elementName, attributes: attributeDict, children: [], line: line, column: column))
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard error == nil, let element = open.popLast() else { return }
        if !element.isEmpty { endTagsRead += 1 }
        guard kept.count > open.count, let finished = kept.popLast() else { return }
        if kept.isEmpty {
            root = finished
        } else {
            kept[kept.count - 1].children.append(finished)
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard error == nil else { return }
        error = describe(code: (parseError as NSError).code, line: parser.lineNumber, column: parser.columnNumber)
        parser.abortParsing()
    }

    // MARK: Errors

    /// The error for a libxml2 code reported at a position (where the parser noticed it).
    func describe(code: Int, line: Int, column: Int) -> ModelXMLError {
        let offset = scan.offset(line: line, column: column)
        if offset >= scan.bytes.count, let tag = scan.unterminatedStartTag {
            return scan.error("unexpected end of document: unterminated start tag <\(tag.name)>", at: tag.offset)
        }
        switch code {
        case XMLParserErrorMessage.tagNameMismatch where endTagsRead < scan.endTags.count:
            let endTag = scan.endTags[endTagsRead]
            guard let current = open.last else {
                return ModelXMLError(
                    line: endTag.line, column: endTag.column, message: "mismatched end tag </\(endTag.name)>")
            }
            return ModelXMLError(
                line: endTag.line, column: endTag.column,
                message: "mismatched end tag: expected </\(current.name)> (opened at line \(current.line), "
                    + "column \(current.column)), found </\(endTag.name)>")
        case XMLParserErrorMessage.documentEnd, XMLParserErrorMessage.extraContent:
            if let root {
                return ModelXMLError(
                    line: line, column: column, message: "unexpected content after the root element </\(root.name)>")
            }
            let (endLine, endColumn) = scan.end
            return ModelXMLError(line: endLine, column: endColumn, message: endOfDocumentMessage())
        case XMLParserErrorMessage.documentEmpty where offset < scan.bytes.count:
            return ModelXMLError(
                line: line, column: column,
                message: "expected the root element, found \(Self.quoted(scan.bytes[offset]))")
        case XMLParserErrorMessage.undeclaredEntity, XMLParserErrorMessage.undeclaredEntityWarning:
            // The parser stops just after the reference: find its '&'.
            if let reference = entityReference(endingBefore: offset) {
                let name = String(
                    decoding: scan.bytes[(reference.lowerBound + 1)..<(reference.upperBound - 1)], as: UTF8.self)
                return scan.error("unknown entity &\(name);", at: reference.lowerBound)
            }
        default:
            break
        }
        return ModelXMLError(line: line, column: column, message: XMLParserErrorMessage.message(forCode: code))
    }

    /// "unexpected end of document: ...", for a document that ends before its root element does.
    func endOfDocumentMessage() -> String {
        guard let innermost = open.last else { return "unexpected end of document: there is no root element" }
        return
            "unexpected end of document: <\(innermost.name)> opened at line \(innermost.line), column \(innermost.column) is not closed"
    }

    /// The range of the `&name;` that ends at or just before `offset`, if there is one.
    func entityReference(endingBefore offset: Int) -> Range<Int>? {
        let bytes = scan.bytes
        let semicolon = UInt8(ascii: ";")
        var end = min(offset, bytes.count)
        while end > 0, bytes[end - 1] != semicolon, offset - end < 4 { end -= 1 }
        guard end > 0, bytes[end - 1] == semicolon else { return nil }
        var start = end - 1
        while start > 0, end - start < 64, XMLMarkupScan.isNameCharacter(bytes[start - 1]) { start -= 1 }
        guard start > 0, bytes[start - 1] == UInt8(ascii: "&"), start < end - 1 else { return nil }
        return (start - 1)..<end
    }

    /// A byte as a message shows it: `'h'`, or `byte 0x0A`.
    static func quoted(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
}
