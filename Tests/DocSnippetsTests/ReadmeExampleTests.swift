import Foundation
import TestSupport
import Testing
import WebRecord

/// README.md's library example, built as `readme-example` from the README's first swift block,
/// run as the README says, twice, from a directory holding the files it reads from the package
/// root: the schema and the recorded response.
@Suite struct ReadmeExampleTests {
    /// What the README says the example prints.
    static let lines = ["20 posts, the first by sensei", "observing 20 posts, the newest by sensei"]
    static let output = lines.joined(separator: "\n")

    @Test func theReadmeExampleRunsAgainstTheBundledResponsesAndWritesNothingTheSecondTime() async throws {
        // Copies, not links: the directory's clean-up changes the modes of what it holds.
        let directory = try TemporaryDirectory()
        for file in ["Schemas/AppNet.json", "Examples/AppNet/posts.json"] {
            try directory.write(file, Data(contentsOf: PackageFiles.root.appendingPathComponent(file)))
        }
        let store = directory.url.appendingPathComponent("appnet.sqlite")

        let first = try await PackageFiles.run("readme-example", in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == Self.output + "\n", "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")  // Record.loggingLevel = .info: no warning
        let written = try Data(contentsOf: store)

        let second = try await PackageFiles.run("readme-example", in: directory.url)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout == Self.output + "\n", "\(second)")
        #expect(try Data(contentsOf: store) == written, "the second run changed the store file")

        // The store holds the graph: every post, with its user.
        let schema = try Schema(contentsOf: PackageFiles.root.appendingPathComponent("Schemas/AppNet.json"))
        let opened = try RecordStore(path: store.path, schema: schema)
        defer { opened.close() }
        #expect(try opened.count("Post") == 20)
        #expect(try opened.count("User") == 18)
        #expect(try opened.count("Post", where: "user IS NULL") == 0)
    }

    @Test func theReadmeSaysWhatTheExamplePrints() throws {
        let readme = try PackageFiles.text("README.md")
        let said = Self.lines.map { "`\($0)`" }.joined(separator: " and ")
        #expect(readme.replacingOccurrences(of: "\n", with: " ").contains("it prints \(said)"))
        #expect(readme.contains("swift run readme-example"))
    }
}
