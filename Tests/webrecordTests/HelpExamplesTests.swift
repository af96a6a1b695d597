import Foundation
import TestSupport
import Testing

/// Every subcommand's `--help` ends with an example, and the examples work: those of lint,
/// populate and export run as shown from a copy of the package's schema and example data, and
/// import-model's converts a model at the path it names.
@Suite struct HelpExamplesTests {
    static let subcommands = [
        "lint", "populate", "export", "watch", "import-model", "diagram", "generate-swift", "completion",
    ]

    /// The package's root, where the examples' relative paths start.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The command lines under EXAMPLES in `help`, without the `$ webrecord` prompt, lines
    /// ending in ` \` joined to the next as a shell joins them.
    static func examples(in help: String) -> [[String]] {
        guard let start = help.range(of: "\nEXAMPLES:\n") else { return [] }
        let text = help[start.upperBound...].replacingOccurrences(of: " \\\n", with: " ")
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  $ webrecord ") else { return nil }
            return line.dropFirst("  $ webrecord ".count).split(separator: " ").map(String.init)
        }
    }

    @Test(arguments: subcommands)
    func everySubcommandsHelpShowsAnExample(_ name: String) async throws {
        let help = try await CLI.run([name, "--help"])
        #expect(help.status == 0)
        let examples = Self.examples(in: help.stdout)
        #expect(!examples.isEmpty, "\(help.stdout)")
        #expect(examples.allSatisfy { $0.first == name }, "\(examples)")
    }

    @Test func theExamplesRunAsShown() async throws {
        let directory = try TemporaryDirectory()
        for file in ["Schemas/AppNet.json", "Examples/AppNet/posts.json"] {
            try directory.write(file, try Data(contentsOf: Self.packageRoot.appendingPathComponent(file)))
        }
        var ran: [String] = []
        for name in ["lint", "populate", "export", "diagram", "generate-swift"] {
            for example in Self.examples(in: try await CLI.run([name, "--help"]).stdout) {
                let result = try await CLI.run(example, in: directory.url)
                #expect(result.status == 0, "\(example): \(result)")
                ran.append(name)
                if name == "export" {
                    #expect(result.stdout.hasPrefix("["), "\(result.stdout.prefix(80))")
                    #expect(result.stdout.contains(#""name": "Kevin Munc""#), "a user of the example posts")
                }
            }
        }
        #expect(ran == ["lint", "populate", "export", "diagram", "generate-swift", "generate-swift"])
        #expect(
            FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("Generated/Post.swift").path))
    }

    @Test func importModelsExampleConvertsTheModelItNames() async throws {
        let directory = try TemporaryDirectory()
        let example = try #require(Self.examples(in: try await CLI.run(["import-model", "--help"]).stdout).first)
        // `import-model MODEL > SCHEMA`: the model is the argument, the schema is standard output.
        let arguments = Array(example.prefix { $0 != ">" })
        let model = try #require(arguments.last)
        try directory.write(model + "/contents", try Data(contentsOf: try CLI.fixture("appnet-model.xml")))
        let result = try await CLI.run(arguments, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(#""entities""#))
    }
}
