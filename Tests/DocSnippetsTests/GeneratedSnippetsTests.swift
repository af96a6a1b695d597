import Foundation
import Testing

/// The files `generate.py` writes from README.md and Docs/*.md are what it would write now:
/// a swift block edited without regenerating fails here, so the build compiles every block as
/// the documents show it.
@Suite struct GeneratedSnippetsTests {
    @Test func theGeneratedFilesMatchTheDocuments() async throws {
        let run = try await PackageFiles.runGenerator(["--check"])
        #expect(
            run.status == 0,
            "The swift blocks of README.md or Docs/*.md changed since the files compiled from them were written. Run python3 Tests/DocSnippetsTests/generate.py from the package root.\n\(run)"
        )
    }

    @Test func everyDocumentWithSwiftBlocksHasItsGeneratedFile() throws {
        let generated = PackageFiles.root.appendingPathComponent("Tests/DocSnippetsTests/Generated")
        let documents = try FileManager.default.contentsOfDirectory(
            atPath: PackageFiles.root.appendingPathComponent("Docs").path
        )
        .filter { $0.hasSuffix(".md") }
        var checked = 0
        for document in documents {
            let text = try PackageFiles.text("Docs/" + document)
            let blocks = text.components(separatedBy: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces) == "```swift"
            }.count
            let file = generated.appendingPathComponent(document.replacingOccurrences(of: ".md", with: ".swift"))
            #expect(
                FileManager.default.fileExists(atPath: file.path) == (blocks > 0), "\(document): \(blocks) swift blocks"
            )
            if blocks > 0 {
                let swift = try String(contentsOf: file, encoding: .utf8)
                #expect(swift.components(separatedBy: "// Docs/\(document), block ").count - 1 == blocks, "\(document)")
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
