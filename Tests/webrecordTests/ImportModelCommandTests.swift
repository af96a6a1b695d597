import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordModelImport

/// `webrecord import-model`
@Suite struct ImportModelCommandTests {
    static let models = [
        "appnet-model.xml", "atlassian-model.xml", "foursquare-model.xml", "instagram-model.xml", "twitter-model.xml",
    ]

    @Test(arguments: models)
    func importedModelLintsClean(model: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["import-model", try CLI.fixture(model).path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(result.stdout.hasSuffix("}\n"))
        // Exactly what the library produces.
        let expected = try CoreDataModelImporter.schemaJSON(contentsOf: try CLI.fixture(model))
        #expect(result.stdout == expected)

        let schema = try directory.write("schema.json", result.stdout)
        let lint = try await CLI.run(["lint", schema])
        #expect(lint.status == 0, "\(lint)")
        #expect(lint.stdoutLines.count == 1)
        #expect(lint.stdoutLines.first?.hasPrefix("\(schema): ") == true, "\(lint)")
        #expect(lint.stdoutLines.first?.hasSuffix(": ok") == true, "\(lint)")
    }

    @Test func importedAppNetModelKeepsMMRecordKeys() async throws {
        let result = try await CLI.run(["import-model", try CLI.fixture("appnet-model.xml").path])
        let schema = try #require(try JSONReader().read(result.stdoutData).objectValue, "\(result)")
        #expect(schema["entities"]?["Post"]?["primaryKey"] == "id")
        #expect(schema["entities"]?["Counts"]?["primaryKey"] == "user")
        #expect(schema["entities"]?["Post"]?["attributes"]?["date"]?["key"] == "created_at")
    }

    @Test func missingModel() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["import-model", "Nowhere.xcdatamodel/contents"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: Nowhere.xcdatamodel/contents") == true, "\(result)")
        #expect(result.stderr.contains("no such file"))
    }

    @Test func malformedModel() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("contents", "<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"Post\">\n</model>\n")
        let result = try await CLI.run(["import-model", "contents"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("webrecord: error: contents:") == true, "\(result)")
    }

    @Test func noArgumentIsAUsageError() async throws {
        let result = try await CLI.run(["import-model"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: missing expected argument '<contents-xml>'")
    }
}
