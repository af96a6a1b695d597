import Foundation
import Testing
@testable import WebRecordModelImport

@Suite struct XMLElementTreeTests {
    // MARK: - Structure

    @Test func parsesElementsAttributesAndChildrenInOrder() throws {
        let tree = try XMLElementTree(parsing: """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model z="1" a="2" m="3">
                <entity name="First"/>
                <entity name="Second">
                    <attribute name="id"></attribute>
                </entity>
                <elements/>
            </model>
            """)
        let root = tree.root
        #expect(root.name == "model")
        #expect(root.attributes.map(\.name) == ["z", "a", "m"])
        #expect(root.attributes.map(\.value) == ["1", "2", "3"])
        #expect(root.children.map(\.name) == ["entity", "entity", "elements"])
        #expect(root.children(named: "entity").map { $0.attribute("name") } == ["First", "Second"])
        #expect(root.children[0].children.isEmpty)
        #expect(root.children[1].children.map(\.name) == ["attribute"])
        #expect(root.children[1].children[0].attribute("name") == "id")
        #expect(root.attribute("missing") == nil)
    }

    @Test func recordsTheLineAndColumnOfEachElement() throws {
        let tree = try XMLElementTree(parsing: "<a>\n  <b/>\n\t<c>\r\n   <d/></c></a>")
        let b = tree.root.children[0]
        let c = tree.root.children[1]
        #expect((tree.root.line, tree.root.column) == (1, 1))
        #expect((b.line, b.column) == (2, 3))
        #expect((c.line, c.column) == (3, 2))
        #expect((c.children[0].line, c.children[0].column) == (4, 4))
    }

    @Test func selfClosingTagsHaveNoChildrenAndMayHaveSpaceBeforeTheSlash() throws {
        let tree = try XMLElementTree(parsing: #"<a><b x="1" /><c/><d></d></a>"#)
        #expect(tree.root.children.map(\.name) == ["b", "c", "d"])
        #expect(tree.root.children.allSatisfy { $0.children.isEmpty })
        #expect(tree.root.children[0].attribute("x") == "1")

        let lone = try XMLElementTree(parsing: "<only/>")
        #expect(lone.root.name == "only")
        #expect(lone.root.children.isEmpty)
    }

    // MARK: - Attribute values

    @Test func resolvesPredefinedEntitiesAndCharacterReferencesInAttributes() throws {
        let tree = try XMLElementTree(parsing: """
            <e named="&lt;&gt;&amp;&apos;&quot;" decimal="a&#10;b&#65;" hex="&#x41;&#x1F600;&#xe9;"/>
            """)
        #expect(tree.root.attribute("named") == "<>&'\"")
        #expect(tree.root.attribute("decimal") == "a\nbA")
        #expect(tree.root.attribute("hex") == "A\u{1F600}\u{E9}")
    }

    @Test func acceptsSingleAndDoubleQuotedAttributes() throws {
        let tree = try XMLElementTree(parsing: #"<e one='say "hi"' two="it's" three = 'x' />"#)
        #expect(tree.root.attribute("one") == #"say "hi""#)
        #expect(tree.root.attribute("two") == "it's")
        #expect(tree.root.attribute("three") == "x")
    }

    @Test func normalizesLiteralWhitespaceInAttributesButKeepsReferencedWhitespace() throws {
        let tree = try XMLElementTree(parsing: "<e a=\"x\ny\tz\r\nw\" b=\"x&#10;y&#9;z\"/>")
        #expect(tree.root.attribute("a") == "x y z w")
        #expect(tree.root.attribute("b") == "x\ny\tz")
    }

    @Test func keepsNonASCIINamesAndValues() throws {
        let tree = try XMLElementTree(parsing: "<entité nom=\"café ☕\"/>")
        #expect(tree.root.name == "entité")
        #expect(tree.root.attribute("nom") == "café ☕")
    }

    // MARK: - Skipped content

    @Test func skipsCommentsEverywhere() throws {
        let tree = try XMLElementTree(parsing: """
            <?xml version="1.0"?>
            <!-- before the root <fake/> -->
            <a><!-- inside <b/> --><c/><!----></a>
            <!-- after the root -->
            """)
        #expect(tree.root.name == "a")
        #expect(tree.root.children.map(\.name) == ["c"])
    }

    @Test func skipsCDATASectionsWithoutReadingMarkupInThem() throws {
        let tree = try XMLElementTree(parsing: "<a>text<![CDATA[<b/> & </a> ]] > ]]><c/></a>")
        #expect(tree.root.children.map(\.name) == ["c"])
    }

    @Test func skipsProcessingInstructionsTextAndAByteOrderMark() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array("<?xml version='1.0'?><?app do this?><a>some &amp; text<?pi?><b/></a>".utf8)
        let tree = try XMLElementTree(parsing: Data(bytes))
        #expect(tree.root.name == "a")
        #expect(tree.root.children.map(\.name) == ["b"])
    }

    @Test func parsesDeepNestingWithoutRecursion() throws {
        let depth = 2_000
        let text = String(repeating: "<n>", count: depth) + String(repeating: "</n>", count: depth)
        let tree = try XMLElementTree(parsing: text)
        var levels = 1
        var node = tree.root
        while let child = node.children.first {
            levels += 1
            node = child
        }
        #expect(levels == depth)
    }

    // MARK: - Errors

    struct Malformed: Sendable, CustomStringConvertible {
        var description: String
        var xml: String
        var line: Int
        var column: Int
        var message: String
    }

    static let malformed: [Malformed] = [
        Malformed(description: "mismatched end tag", xml: "<a>\n  <b></c>\n</a>",
                  line: 2, column: 6, message: "mismatched end tag: expected </b>"),
        Malformed(description: "end tag closes the wrong element", xml: "<a><b></a></b>",
                  line: 1, column: 7, message: "expected </b> (opened at line 1, column 4), found </a>"),
        Malformed(description: "unterminated start tag", xml: "<a>\n  <b x='1'",
                  line: 2, column: 3, message: "unterminated start tag <b>"),
        Malformed(description: "unterminated attribute value", xml: "<a b=\"1>",
                  line: 1, column: 6, message: "unterminated value of attribute b"),
        Malformed(description: "'<' in an attribute value", xml: "<a b=\"1<\"/>",
                  line: 1, column: 8, message: "'<' is not allowed"),
        Malformed(description: "unquoted attribute value", xml: "<a b=1/>",
                  line: 1, column: 6, message: "expected a quoted value for attribute b"),
        Malformed(description: "attribute without a value", xml: "<a b/>",
                  line: 1, column: 5, message: "expected '=' after attribute b"),
        Malformed(description: "attributes without whitespace between them", xml: "<a b='1'c='2'/>",
                  line: 1, column: 9, message: "unexpected 'c' in start tag <a>"),
        Malformed(description: "duplicate attribute", xml: "<a b='1' b='2'/>",
                  line: 1, column: 10, message: "duplicate attribute b"),
        Malformed(description: "unexpected end of document", xml: "<a>\n<b></b>\n",
                  line: 3, column: 1, message: "unexpected end of document: <a> opened at line 1, column 1"),
        Malformed(description: "unterminated end tag", xml: "<a></a",
                  line: 1, column: 4, message: "unterminated end tag </a>"),
        Malformed(description: "unknown entity", xml: "<a b=\"x&nbsp;\"/>",
                  line: 1, column: 8, message: "unknown entity &nbsp;"),
        Malformed(description: "unknown entity in text", xml: "<a>\n &copy;</a>",
                  line: 2, column: 2, message: "unknown entity &copy;"),
        Malformed(description: "unterminated reference", xml: "<a b=\"x & y\"/>",
                  line: 1, column: 9, message: "unterminated entity or character reference"),
        Malformed(description: "illegal character reference", xml: "<a b=\"&#0;\"/>",
                  line: 1, column: 7, message: "invalid character reference &#0;"),
        Malformed(description: "surrogate character reference", xml: "<a b=\"&#xD800;\"/>",
                  line: 1, column: 7, message: "invalid character reference &#xD800;"),
        Malformed(description: "DOCTYPE before the root", xml: "<?xml version=\"1.0\"?>\n<!DOCTYPE a>\n<a/>",
                  line: 2, column: 1, message: "DOCTYPE declarations are not supported"),
        Malformed(description: "content after the root", xml: "<a/>\n<b/>",
                  line: 2, column: 1, message: "unexpected content after the root element"),
        Malformed(description: "no root element", xml: "<?xml version=\"1.0\"?>\n<!-- only a comment -->\n",
                  line: 3, column: 1, message: "there is no root element"),
        Malformed(description: "text before the root", xml: "hello <a/>",
                  line: 1, column: 1, message: "expected the root element, found 'h'"),
        Malformed(description: "double hyphen in a comment", xml: "<a><!-- a -- b --></a>",
                  line: 1, column: 11, message: "'--' is not allowed inside a comment"),
        Malformed(description: "unterminated comment", xml: "<a>\n<!-- never closed </a>",
                  line: 2, column: 1, message: "unterminated comment"),
        Malformed(description: "unterminated CDATA", xml: "<a><![CDATA[ x </a>",
                  line: 1, column: 4, message: "unterminated CDATA section"),
        Malformed(description: "misplaced XML declaration", xml: "<a><?xml version=\"1.0\"?></a>",
                  line: 1, column: 4, message: "only allowed at the start"),
        Malformed(description: "unterminated processing instruction", xml: "<?pi never closed <a/>",
                  line: 1, column: 1, message: "unterminated processing instruction <?pi"),
        Malformed(description: "column counts characters, not bytes", xml: "<é a='&bad;'/>",
                  line: 1, column: 7, message: "unknown entity &bad;"),
    ]

    @Test(arguments: malformed)
    func reportsMalformedXMLWithItsLocation(_ example: Malformed) {
        #expect {
            _ = try XMLElementTree(parsing: example.xml)
        } throws: { error in
            guard let error = error as? XMLParseError else { return false }
            return error.line == example.line && error.column == example.column
                && error.message.contains(example.message)
        }
    }

    @Test func reportsInvalidUTF8AtTheBadByte() {
        var bytes = Array("<a>\n  <b x='".utf8)
        bytes += [0xC3, 0x28]  // a lead byte followed by a non-continuation byte
        bytes += Array("'/></a>".utf8)
        #expect(throws: XMLParseError(line: 2, column: 9, message: "the document is not valid UTF-8 (only UTF-8 is supported)")) {
            _ = try XMLElementTree(parsing: Data(bytes))
        }
    }

    @Test func describesAnErrorWithItsLocation() {
        let error = XMLParseError(line: 3, column: 14, message: "unknown entity &nbsp;")
        #expect(error.description == "line 3, column 14: unknown entity &nbsp;")
    }
}
