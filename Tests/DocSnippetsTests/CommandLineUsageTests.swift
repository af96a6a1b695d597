import Foundation
import Testing

/// The usage lines README.md and Docs/CLI.md show are those `webrecord --help` and each
/// subcommand's `--help` print.
@Suite struct CommandLineUsageTests {
    static let subcommands = ["lint", "populate", "export", "import-model"]

    /// The `USAGE:` line of `webrecord ARGUMENTS --help`.
    static func usage(_ arguments: [String]) async throws -> String? {
        let run = try await PackageFiles.run("webrecord", arguments + ["--help"])
        #expect(run.status == 0, "\(run)")
        return run.stdout.components(separatedBy: "\n").first { $0.hasPrefix("USAGE: ") }
    }

    @Test func theReadmeShowsEveryUsageLineOfTheHelp() async throws {
        let readmeLines = Set(try PackageFiles.text("README.md").components(separatedBy: "\n"))
        var usages: [String] = []
        for arguments in [[]] + Self.subcommands.map({ [$0] }) {
            let usage = try #require(
                try await Self.usage(arguments), "webrecord \(arguments) --help prints no USAGE line")
            usages.append(usage)
            #expect(readmeLines.contains(usage), "README.md lacks the line: \(usage)")
        }
        #expect(Set(usages).count == 1 + Self.subcommands.count)
    }

    @Test func theCommandLineDocShowsEachSubcommandsUsageLine() async throws {
        let cliLines = Set(try PackageFiles.text("Docs/CLI.md").components(separatedBy: "\n"))
        for subcommand in Self.subcommands {
            let usage = try #require(try await Self.usage([subcommand]))
            #expect(cliLines.contains(usage), "Docs/CLI.md lacks the line: \(usage)")
        }
    }
}
