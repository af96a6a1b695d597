import Foundation
import Testing

@testable import WebRecordModelImport

/// The reader of a model's XML: `XMLParser` behind a scan that locates tags and refuses what
/// must not reach it.
@Suite struct ModelXMLDocumentTests {
    static func read(_ text: String, keptDepth: Int = 100) throws(ModelXMLError) -> ModelXMLElement {
        try ModelXMLDocument(parsing: Data(text.utf8), keptDepth: keptDepth).root
    }

    static func readError(_ text: String) -> ModelXMLError? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Structure

    @Test func parsesElementsAttributesAndChildrenInOrder() throws {
        let root = try Self.read(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model z="1" a="2" m="3">
                <entity name="First"/>
                <entity name="Second">
                    <attribute name="id"></attribute>
                </entity>
                <elements/>
            </model>
            """)
        #expect(root.name == "model")
        #expect(root.attributes == ["z": "1", "a": "2", "m": "3"])
        #expect(root.children.map(\.name) == ["entity", "entity", "elements"])
        #expect(root.children(named: "entity").map { $0.attribute("name") } == ["First", "Second"])
        #expect(root.children[0].children.isEmpty)
        #expect(root.children[1].children.map(\.name) == ["attribute"])
        #expect(root.children[1].children[0].attribute("name") == "id")
        #expect(root.attribute("missing") == nil)
    }

    @Test func recordsTheLineAndColumnOfEachElementsOpeningBracket() throws {
        let root = try Self.read("<a>\n  <b/>\n\t<c>\r\n   <d/></c></a>")
        let b = root.children[0]
        let c = root.children[1]
        #expect((root.line, root.column) == (1, 1))
        #expect((b.line, b.column) == (2, 3))
        #expect((c.line, c.column) == (3, 2))
        #expect((c.children[0].line, c.children[0].column) == (4, 4))
    }

    @Test func locatesAStartTagOverSeveralLinesAtItsFirstLine() throws {
        let root = try Self.read("<a>\n  <b\n     x='>'\n     y=\"&lt;\"/></a>")
        #expect(root.children.map(\.name) == ["b"])
        #expect((root.children[0].line, root.children[0].column) == (2, 3))
        #expect(root.children[0].attributes == ["x": ">", "y": "<"])
    }

    @Test func countsColumnsInCharactersNotBytes() throws {
        let root = try Self.read("<é><ü/>☕<ö/></é>")
        #expect(root.children.map(\.column) == [4, 9])
    }

    @Test func selfClosingTagsHaveNoChildrenAndMayHaveSpaceBeforeTheSlash() throws {
        let root = try Self.read(#"<a><b x="1" /><c/><d></d></a>"#)
        #expect(root.children.map(\.name) == ["b", "c", "d"])
        #expect(root.children.allSatisfy { $0.children.isEmpty })
        #expect(root.children[0].attribute("x") == "1")

        let lone = try Self.read("<only/>")
        #expect(lone.name == "only")
        #expect(lone.children.isEmpty)
    }

    @Test func keepsElementsDownToTheKeptDepthOnly() throws {
        let root = try Self.read("<a><b><c><d/></c></b><e/></a>", keptDepth: 3)
        #expect(root.children.map(\.name) == ["b", "e"])
        #expect(root.children[0].children.map(\.name) == ["c"])
        #expect(root.children[0].children[0].children.isEmpty, "<d> is below the kept depth")
    }

    @Test func readsDeepNestingWithoutKeepingIt() throws {
        for depth in [2_000, 200_000] {
            let text = String(repeating: "<n>", count: depth) + String(repeating: "</n>", count: depth)
            let root = try Self.read(text, keptDepth: 5)
            var levels = 1
            var node = root
            while let child = node.children.first {
                levels += 1
                node = child
            }
            #expect(levels == 5, "depth \(depth)")
        }
    }

    @Test func reportsAnUnclosedElementDeepInside() {
        let text = String(repeating: "<n>", count: 10_000) + String(repeating: "</n>", count: 9_999)
        let error = Self.readError(text)
        #expect(error?.message == "unexpected end of document: <n> opened at line 1, column 1 is not closed")
    }

    // MARK: - Attribute values

    @Test func resolvesPredefinedEntitiesAndCharacterReferencesInAttributes() throws {
        let root = try Self.read(
            """
            <e named="&lt;&gt;&amp;&apos;&quot;" decimal="a&#10;b&#65;" hex="&#x41;&#x1F600;&#xe9;"/>
            """)
        #expect(root.attribute("named") == "<>&'\"")
        #expect(root.attribute("decimal") == "a\nbA")
        #expect(root.attribute("hex") == "A\u{1F600}\u{E9}")
    }

    @Test func acceptsSingleAndDoubleQuotedAttributes() throws {
        let root = try Self.read(#"<e one='say "hi"' two="it's" three = 'x' />"#)
        #expect(root.attribute("one") == #"say "hi""#)
        #expect(root.attribute("two") == "it's")
        #expect(root.attribute("three") == "x")
    }

    @Test func normalizesLiteralWhitespaceInAttributesButKeepsReferencedWhitespace() throws {
        let root = try Self.read("<e a=\"x\ny\tz\r\nw\" b=\"x&#10;y&#9;z\"/>")
        #expect(root.attribute("a") == "x y z w")
        #expect(root.attribute("b") == "x\ny\tz")
    }

    @Test func keepsNonASCIINamesAndValues() throws {
        let root = try Self.read("<entité nom=\"café ☕\"/>")
        #expect(root.name == "entité")
        #expect(root.attribute("nom") == "café ☕")
    }

    // MARK: - Skipped content

    @Test func skipsCommentsEverywhere() throws {
        let root = try Self.read(
            """
            <?xml version="1.0"?>
            <!-- before the root <fake/> -->
            <a><!-- inside <b/> --><c/><!----></a>
            <!-- after the root -->
            """)
        #expect(root.name == "a")
        #expect(root.children.map(\.name) == ["c"])
    }

    @Test func skipsCDATASectionsWithoutReadingMarkupInThem() throws {
        let root = try Self.read("<a>text<![CDATA[<b/> & </a> ]] > ]]><c/></a>")
        #expect(root.children.map(\.name) == ["c"])
        #expect((root.children[0].line, root.children[0].column) == (1, 37))
    }

    @Test func skipsProcessingInstructionsWithDataTextAndAByteOrderMark() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array("<?xml version='1.0'?><?app do this?><a>some &amp; text<?pi ?><b/></a>".utf8)
        let root = try ModelXMLDocument(parsing: Data(bytes), keptDepth: 5).root
        #expect(root.name == "a")
        #expect(root.children.map(\.name) == ["b"])
        #expect(
            (root.children[0].line, root.children[0].column) == (1, 63),
            "the byte-order mark is a character of the first line")
    }

    // MARK: - Errors

    struct Malformed: Sendable, CustomStringConvertible {
        var description: String
        var xml: String
        var line: Int
        var column: Int
        var message: String
    }

    /// Every error is located; where XMLParser notices a problem after its start, the location is
    /// XMLParser's (the column in characters), except for the tags and references the scan finds.
    static let malformed: [Malformed] = [
        Malformed(
            description: "mismatched end tag", xml: "<a>\n  <b></c>\n</a>",
            line: 2, column: 6, message: "mismatched end tag: expected </b> (opened at line 2, column 3), found </c>"),
        Malformed(
            description: "end tag closes the wrong element", xml: "<a><b></a></b>",
            line: 1, column: 7, message: "mismatched end tag: expected </b> (opened at line 1, column 4), found </a>"),
        Malformed(
            description: "unterminated start tag", xml: "<a>\n  <b x='1'",
            line: 2, column: 3, message: "unexpected end of document: unterminated start tag <b>"),
        Malformed(
            description: "unterminated attribute value", xml: "<a b=\"1>",
            line: 1, column: 1, message: "unexpected end of document: unterminated start tag <a>"),
        Malformed(
            description: "'<' in an attribute value", xml: "<a b=\"1<\"/>",
            line: 1, column: 8, message: "'<' is not allowed in an attribute value"),
        Malformed(
            description: "unquoted attribute value", xml: "<a b=1/>",
            line: 1, column: 6, message: "expected a quoted attribute value"),
        Malformed(
            description: "attribute without a value", xml: "<a b/>",
            line: 1, column: 5, message: "attribute without a value"),
        Malformed(
            description: "attributes without whitespace between them", xml: "<a b='1'c='2'/>",
            line: 1, column: 9, message: "expected whitespace (between attributes, or after a name)"),
        Malformed(
            description: "duplicate attribute", xml: "<a b='1' b='2'/>",
            line: 1, column: 15, message: "duplicate attribute"),
        Malformed(
            description: "unexpected end of document", xml: "<a>\n<b></b>\n",
            line: 3, column: 1, message: "unexpected end of document: <a> opened at line 1, column 1 is not closed"),
        Malformed(
            description: "unterminated end tag", xml: "<a></a",
            line: 1, column: 7, message: "expected '>' (an unterminated tag)"),
        Malformed(
            description: "unknown entity", xml: "<a b=\"x&nbsp;\"/>",
            line: 1, column: 8, message: "unknown entity &nbsp;"),
        Malformed(
            description: "unknown entity in text", xml: "<a>\n &copy;</a>",
            line: 2, column: 2, message: "unknown entity &copy;"),
        Malformed(
            description: "bare ampersand", xml: "<a b=\"x & y\"/>",
            line: 1, column: 10, message: "expected a name"),
        Malformed(
            description: "illegal character reference", xml: "<a b=\"&#0;\"/>",
            line: 1, column: 11,
            message: "a character that XML does not allow (a control character, or a reference to one)"),
        Malformed(
            description: "surrogate character reference", xml: "<a b=\"&#xD800;\"/>",
            line: 1, column: 15,
            message: "a character that XML does not allow (a control character, or a reference to one)"),
        Malformed(
            description: "DOCTYPE before the root", xml: "<?xml version=\"1.0\"?>\n<!DOCTYPE a>\n<a/>",
            line: 2, column: 1, message: "DOCTYPE declarations are not supported"),
        Malformed(
            description: "content after the root", xml: "<a/>\n<b/>",
            line: 2, column: 1, message: "unexpected content after the root element </a>"),
        Malformed(
            description: "no root element", xml: "<?xml version=\"1.0\"?>\n<!-- only a comment -->\n",
            line: 3, column: 1, message: "unexpected end of document: there is no root element"),
        Malformed(
            description: "too short to read", xml: "<a>",
            line: 1, column: 4, message: "unexpected end of document: there is no root element"),
        Malformed(
            description: "text before the root", xml: "hello <a/>",
            line: 1, column: 1, message: "expected the root element, found 'h'"),
        Malformed(
            description: "double hyphen in a comment", xml: "<a><!-- a -- b --></a>",
            line: 1, column: 11, message: "'--' is not allowed inside a comment"),
        Malformed(
            description: "unterminated comment", xml: "<a>\n<!-- never closed </a>",
            line: 2, column: 23, message: "unterminated comment"),
        Malformed(
            description: "unterminated CDATA", xml: "<a><![CDATA[ x </a>",
            line: 1, column: 20, message: "unexpected end of document: <a> opened at line 1, column 1 is not closed"),
        Malformed(
            description: "'<!' that starts nothing", xml: "<a>\n  <![CDATAx]]></a>",
            line: 2, column: 3,
            message:
                "markup XMLParser cannot read: a '<' in element content that starts no tag, comment or CDATA section, or a tag of about 10,000,000 bytes or more"
        ),
        Malformed(
            description: "']]>' in text", xml: "<a>x ]]> y</a>",
            line: 1, column: 6, message: "']]>' is not allowed in text"),
        Malformed(
            description: "misplaced XML declaration", xml: "<a><?xml version=\"1.0\"?></a>",
            line: 1, column: 9, message: "the XML declaration is only allowed at the start of the document"),
        Malformed(
            description: "unterminated processing instruction", xml: "<?pi never closed <a/>",
            line: 1, column: 23, message: "unterminated processing instruction"),
        Malformed(
            description: "column counts characters, not bytes", xml: "<é a='&bad;'/>",
            line: 1, column: 7, message: "unknown entity &bad;"),
        Malformed(
            description: "undeclared namespace prefix", xml: "<a><x:b/></a>",
            line: 1, column: 8, message: "malformed namespace declaration or prefix"),
        Malformed(
            description: "XML 1.1", xml: "<?xml version=\"1.1\"?><a/>",
            line: 1, column: 20, message: "unsupported XML version (only 1.0 is supported)"),
    ]

    @Test(arguments: malformed)
    func reportsMalformedXMLWithItsLocation(_ example: Malformed) throws {
        let error = try #require(Self.readError(example.xml))
        #expect(error == ModelXMLError(line: example.line, column: example.column, message: example.message))
    }

    @Test func namesAnUnexpectedErrorCodeByNumber() {
        #expect(XMLParserErrorMessage.message(forCode: 76) == "mismatched end tag")
        #expect(XMLParserErrorMessage.message(forCode: 9_999) == "not well-formed XML (libxml2 error 9999)")
    }

    @Test func describesAnErrorWithItsLocation() {
        let error = ModelXMLError(line: 3, column: 14, message: "unknown entity &nbsp;")
        #expect(error.description == "line 3, column 14: unknown entity &nbsp;")
    }
}
