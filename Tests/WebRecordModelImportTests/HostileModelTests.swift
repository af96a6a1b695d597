import Foundation
import TestSupport
import Testing
import WebRecordModelImport

@testable import WebRecord

/// Model files written to do harm: each one is refused with a located error, or converted, in
/// little time, without crashing the process and without reading anything but the file.
@Suite struct HostileModelTests {
    static func importError(_ xml: String) -> WebRecordError? {
        do {
            _ = try CoreDataModelImporter.schemaJSON(fromModelXML: Data(xml.utf8), fileName: "Hostile/contents")
            return nil
        } catch {
            return error
        }
    }

    static func model(_ entities: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model>\n\(entities)\n</model>\n"
    }

    // MARK: - Entities and DOCTYPE declarations

    @Test func billionLaughsIsRefusedBeforeAnythingIsExpanded() throws {
        var declarations = "<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            declarations += "<!ENTITY lol\(level) \"\(String(repeating: "&\(previous);", count: 10))\">\n"
        }
        let xml =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n\(declarations)]>\n"
            + "<model><entity name=\"E\"><attribute name=\"a\" attributeType=\"String\" defaultValueString=\"&lol9;\"/></entity></model>"
        let clock = ContinuousClock()
        var error: WebRecordError?
        let elapsed = clock.measure { error = Self.importError(xml) }
        #expect(
            error?.description
                == "invalidSchema: Hostile/contents: line 2, column 1: malformed XML: DOCTYPE declarations are not supported"
        )
        // Expanding the nine levels would take a billion copies of "lol": minutes and
        // gigabytes. A refusal takes milliseconds; the bound leaves room for a loaded machine.
        #expect(elapsed < .seconds(Sanitizer.bound(30)))
    }

    @Test func externalEntitiesAndDTDsAreNeverRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "HostileModelTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("secret.txt")
        try "the-secret-text".write(to: secret, atomically: true, encoding: .utf8)

        let attempts = [
            "<!DOCTYPE model [<!ENTITY xxe SYSTEM \"\(secret.absoluteString)\">]>\n"
                + "<model><entity name=\"&xxe;\"/></model>",
            "<!DOCTYPE model SYSTEM \"\(secret.absoluteString)\">\n<model/>",
            "<!DOCTYPE model [<!ENTITY % remote SYSTEM \"\(secret.absoluteString)\"> %remote;]>\n<model/>",
        ]
        for xml in attempts {
            let error = try #require(Self.importError(xml), "\(xml)")
            #expect(error.message == "malformed XML: DOCTYPE declarations are not supported")
            #expect((error.line, error.column) == (1, 1))
            #expect(!error.description.contains("the-secret-text"))
        }
    }

    /// Declarations that crash FoundationXML's XMLParser on Linux when it is given them.
    @Test(arguments: [
        "<!DOCTYPE model [<!ATTLIST model type CDATA #IMPLIED>]>\n<model/>",
        "<!DOCTYPE model [<!NOTATION n SYSTEM \"x\">]>\n<model/>",
        "<!DOCTYPE model [<!ENTITY e SYSTEM \"x\" NDATA n>]>\n<model/>",
        "<!DOCTYPE model [<?pi?>]>\n<model/>",
    ])
    func declarationsThatCrashXMLParserAreRefused(xml: String) {
        #expect(
            Self.importError(xml)?.description
                == "invalidSchema: Hostile/contents: line 1, column 1: malformed XML: DOCTYPE declarations are not supported"
        )
    }

    @Test func anUndeclaredEntityIsNamedAndLocated() {
        let error = Self.importError(
            Self.model("<entity name=\"E\">\n  <attribute name=\"&xxe;\" attributeType=\"String\"/>\n</entity>"))
        #expect(
            error?.description
                == "invalidSchema: Hostile/contents: line 4, column 20: malformed XML: unknown entity &xxe;")
    }

    @Test func markupInsideCommentsAndCDATAIsNotRefused() throws {
        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(
                Self.model("<!-- <!DOCTYPE x> <?pi?> --><entity name=\"E\"><![CDATA[<!DOCTYPE y><?pi?>]]></entity>")
                    .utf8),
            fileName: "Hostile/contents")
        #expect(text.contains("\"E\": {"))
    }

    // MARK: - Processing instructions and encodings

    /// `<?name?>` crashes FoundationXML's XMLParser on Linux (it reads a null pointer).
    @Test(arguments: [
        ("<?pi?>\n<model/>", 1, 1, "<?pi?>"),
        ("<model>\n  <?target?>\n</model>", 2, 3, "<?target?>"),
        ("<model/>\n<?xml-stylesheet?>", 2, 1, "<?xml-stylesheet?>"),
        ("<?xml?><model/>", 1, 1, "<?xml?>"),
    ])
    func emptyProcessingInstructionsAreRefused(xml: String, line: Int, column: Int, instruction: String) throws {
        let error = try #require(Self.importError(xml))
        #expect(error.message == "malformed XML: empty processing instruction \(instruction) is not supported")
        #expect((error.line, error.column) == (line, column))
    }

    @Test func aProcessingInstructionWithDataIsSkipped() throws {
        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(Self.model("<?target ?><?app do this?><entity name=\"E\"/>").utf8),
            fileName: "Hostile/contents")
        #expect(text.contains("\"E\": {"))
    }

    @Test(arguments: ["ISO-8859-1", "UTF-16", "windows-1252"])
    func aDeclaredEncodingOtherThanUTF8IsRefused(encoding: String) {
        let error = Self.importError(
            "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<model><entity name=\"Café\"/></model>")
        #expect(
            error?.description
                == "invalidSchema: Hostile/contents: line 1, column 21: malformed XML: the XML declaration names the encoding \"\(encoding)\"; only UTF-8 is supported"
        )
    }

    @Test(arguments: ["UTF-8", "utf-8", "UTF8"])
    func aDeclaredUTF8EncodingIsRead(encoding: String) throws {
        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(
                "<?xml version='1.0' encoding='\(encoding)'?><model><entity name=\"Café\"/></model>".utf8),
            fileName: "Hostile/contents")
        #expect(text.contains("\"Café\": {"))
    }

    // MARK: - Size

    @Test func deepNestingIsReadWithoutCrashing() throws {
        let depth = 100_000
        let nested = String(repeating: "<n>", count: depth) + String(repeating: "</n>", count: depth)
        let error = Self.importError(nested)
        #expect(
            error?.description
                == "invalidSchema: Hostile/contents: line 1, column 1: not a Core Data model: the root element is <n>, not <model>"
        )

        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(Self.model("<entity name=\"E\"><userInfo>\(nested)</userInfo></entity>").utf8),
            fileName: "Hostile/contents")
        #expect(text.contains("\"E\": {"))
    }

    @Test func manyEntitiesAreConvertedInOrder() throws {
        let count = 5_000
        let entities = (0..<count).map {
            "<entity name=\"E\($0)\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\"/></entity>"
        }
        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(Self.model(entities.joined(separator: "\n")).utf8), fileName: "Hostile/contents")
        let first = try #require(text.range(of: "\"E0\": {"))
        let last = try #require(text.range(of: "\"E\(count - 1)\": {"))
        #expect(first.lowerBound < last.lowerBound)
    }

    /// libxml2's push parser refuses to look more than 10,000,000 bytes ahead ("Huge input
    /// lookup"), so the document is given to XMLParser in pieces, not in one.
    @Test func aModelOverTenMegabytesIsConverted() throws {
        let value = String(repeating: "x", count: 1_000_000)
        let entities = (0..<11).map {
            "<entity name=\"E\($0)\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\" defaultValueString=\"\(value)\"/></entity>"
        }
        let xml = Self.model(entities.joined(separator: "\n"))
        #expect(xml.utf8.count > 11_000_000)
        let text = try CoreDataModelImporter.schemaJSON(fromModelXML: Data(xml.utf8), fileName: "Hostile/contents")
        #expect(text.contains("\"E10\": {"))
    }

    /// libxml2 reads attribute values of up to 10,000,000 bytes.
    @Test func anAttributeValueOverTenMegabytesIsRefusedWhereItStarts() throws {
        let value = String(repeating: "x", count: 10_000_001)
        let error = try #require(
            Self.importError(
                Self.model(
                    "<entity name=\"E\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\" defaultValueString=\"\(value)\"/></entity>"
                )))
        #expect(
            error.description == "invalidSchema: Hostile/contents: line 3, column 95: malformed XML: "
                + "unterminated attribute value, or one longer than XMLParser's limit of 10,000,000 bytes")
    }

    @Test func anAttributeValueOfAMegabyteIsConverted() throws {
        let value = String(repeating: "é", count: 500_000)
        let text = try CoreDataModelImporter.schemaJSON(
            fromModelXML: Data(
                Self.model(
                    "<entity name=\"E\"><attribute name=\"a\" optional=\"YES\" attributeType=\"String\" defaultValueString=\"\(value)\"/></entity>"
                ).utf8),
            fileName: "Hostile/contents")
        #expect(text.contains("\"default\": \"\(value)\""))
    }
}
