import Foundation
import TestSupport
import Testing

/// `--help`, `help`, `--version` and usage errors: the shapes swift-argument-parser users expect.
@Suite struct HelpAndUsageTests {
    static let toolHelp = """
        OVERVIEW: Turn web-service JSON responses into a SQLite object graph.

        USAGE: webrecord <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          lint                    Check schema files and list every problem.
          populate                Populate a store from JSON responses (files or http(s)
                                  URLs).
          export                  Print an entity's records as a JSON array, sorted by
                                  primary key.
          watch                   Follow an entity's records: a JSON line per change.
          import-model            Convert a Core Data model into a schema file.
          diagram                 Draw a schema's entities and relationships, as Mermaid
                                  or DOT.
          generate-swift          Write typed Swift record classes for a schema.
          completion              Print a shell completion script (bash or zsh).
          help                    Show subcommand help information.

          See 'webrecord help <subcommand>' for detailed help.

        EXAMPLES:
          $ webrecord lint Schemas/AppNet.json
          $ webrecord populate --schema Schemas/AppNet.json --db appnet.sqlite \\
              --entity Post Examples/AppNet/posts.json

        """

    static let lintHelp = """
        OVERVIEW: Check schema files and list every problem.

        The files are loaded together as one schema, so relationships may cross files.
        When the schema is valid, prints one line per file on standard output, FILE: N
        entities, M relationships: ok (nothing with --quiet), and exits 0; otherwise
        prints one line per problem, FILE: Entity.property: message, and exits 1.

        --backend names the database of the store: sqlite (the default), whose limits
        every valid schema keeps, or postgresql, which also needs names of at most 63
        bytes, tables of at most 1600 columns and indexes of at most 32 columns.

        USAGE: webrecord lint [--quiet] [--backend <backend>] <schema> ...

        ARGUMENTS:
          <schema> ...            A schema file (JSON).

        OPTIONS:
          --quiet                 Print nothing when the schema is valid.
          --backend <backend>     sqlite (the default) or postgresql.
          -h, --help              Show help information.

        EXAMPLES:
          $ webrecord lint Schemas/AppNet.json

        """

    @Test(arguments: [["--help"], ["-h"], ["help"], ["help", "--help"]])
    func toolHelp(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == Self.toolHelp)
        #expect(result.stderr == "")
    }

    @Test func lintHelpIsExact() async throws {
        let result = try await CLI.run(["lint", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == Self.lintHelp)
        #expect(result.stderr == "")
    }

    static let subcommands: [(name: String, abstract: String, usage: String)] = [
        (
            "lint", "Check schema files and list every problem.",
            "USAGE: webrecord lint [--quiet] [--backend <backend>] <schema> ..."
        ),
        (
            "populate", "Populate a store from JSON responses (files or http(s) URLs).",
            "USAGE: webrecord populate --schema <schema> ... --db <db> --entity <name> [--key-path <key-path>] [--json] [--quiet] [--header <header> ...] [--timeout <seconds>] [--max-body-size <bytes>] [--paginate <kind>] [--max-pages <n>] [--delete-orphans] <source> ..."
        ),
        (
            "export", "Print an entity's records as a JSON array, sorted by primary key.",
            "USAGE: webrecord export --schema <schema> ... --db <db> --entity <name>"
        ),
        (
            "import-model", "Convert a Core Data model into a schema file.",
            "USAGE: webrecord import-model <contents-xml>"
        ),
        (
            "diagram", "Draw a schema's entities and relationships, as Mermaid or DOT.",
            "USAGE: webrecord diagram [--format <format>] <schema> ..."
        ),
        (
            "completion", "Print a shell completion script (bash or zsh).",
            "USAGE: webrecord completion <shell>"
        ),
    ]

    @Test(arguments: subcommands.map(\.name))
    func subcommandHelp(name: String) async throws {
        let expected = try #require(Self.subcommands.first { $0.name == name })
        let long = try await CLI.run([name, "--help"])
        let short = try await CLI.run([name, "-h"])
        let viaHelp = try await CLI.run(["help", name])
        // Help wins even when the other arguments are wrong.
        let amidErrors = try await CLI.run([name, "--no-such-flag", "--help"])
        for result in [long, short, viaHelp, amidErrors] {
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr == "")
            #expect(result.stdout == long.stdout)
        }
        #expect(long.stdout.hasPrefix("OVERVIEW: \(expected.abstract)\n"))
        #expect(long.stdoutLines.contains(expected.usage))
        #expect(long.stdoutLines.contains("  -h, --help              Show help information."))
        #expect(
            long.stdoutLines.allSatisfy { $0.count <= 80 || $0.hasPrefix("USAGE: ") }, "help is wrapped at 80 columns")
    }

    @Test func populateHelpListsEveryFlag() async throws {
        let result = try await CLI.run(["populate", "--help"])
        for flag in [
            "--schema <schema>", "--db <db>", "--entity <name>", "--key-path <key-path>", "--json", "--quiet",
            "--header <header>", "--timeout <seconds>",
        ] {
            #expect(result.stdoutLines.contains { $0.hasPrefix("  \(flag) ") }, "missing \(flag)")
        }
    }

    @Test func version() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(result)")
        #expect(result.stderr == "")
    }

    @Test func unknownSubcommandSuggestsTheClosest() async throws {
        let result = try await CLI.run(["lnit", "schema.json"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                webrecord: error: unknown subcommand 'lnit'. Did you mean 'lint'?
                Usage: webrecord <subcommand>
                  See 'webrecord --help' for more information.

                """)
    }

    @Test(arguments: [
        ("exprot", "export"), ("populte", "populate"), ("import-modle", "import-model"), ("hlep", "help"),
    ])
    func misspeltSubcommands(typed: String, meant: String) async throws {
        let result = try await CLI.run([typed])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unknown subcommand '\(typed)'. Did you mean '\(meant)'?")
    }

    @Test func unrelatedSubcommandGetsNoSuggestion() async throws {
        let result = try await CLI.run(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unknown subcommand 'frobnicate'")
        #expect(result.stderrLines.count == 3)
    }

    @Test func noSubcommandIsAUsageError() async throws {
        let result = try await CLI.run([])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: missing expected subcommand")
        #expect(result.stderrLines.dropFirst().first == "Usage: webrecord <subcommand>")
    }

    @Test func helpForAnUnknownSubcommand() async throws {
        let result = try await CLI.run(["help", "lnt"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unknown subcommand 'lnt'. Did you mean 'lint'?")
    }

    @Test func unknownToolOptionSuggestsTheClosest() async throws {
        let result = try await CLI.run(["--verison"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unknown option '--verison'. Did you mean '--version'?")
    }

    @Test func unknownFlagSuggestsTheClosest() async throws {
        let result = try await CLI.run([
            "populate", "--schema", "s.json", "--db", "d.sqlite", "--entity", "Post", "--jsn", "a.json",
        ])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                webrecord: error: unknown option '--jsn'. Did you mean '--json'?
                Usage: webrecord populate --schema <schema> ... --db <db> --entity <name> [--key-path <key-path>] [--json] [--quiet] [--header <header> ...] [--timeout <seconds>] [--max-body-size <bytes>] [--paginate <kind>] [--max-pages <n>] [--delete-orphans] <source> ...
                  See 'webrecord populate --help' for more information.

                """)
    }

    @Test(arguments: [
        ("-json", "--json"), ("--keypath", "--key-path"), ("--shema", "--schema"), ("--entities", "--entity"),
    ])
    func flagSuggestions(typed: String, meant: String) async throws {
        let result = try await CLI.run(["populate", typed, "x", "a.json"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unknown option '\(typed)'. Did you mean '\(meant)'?")
    }

    @Test func missingRequiredFlagIsNamed() async throws {
        let result = try await CLI.run(["export", "--schema", "s.json", "--db", "d.sqlite"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderrLines == [
                "webrecord: error: missing expected option '--entity <name>'",
                "Usage: webrecord export --schema <schema> ... --db <db> --entity <name>",
                "  See 'webrecord export --help' for more information.",
            ])
    }

    @Test func missingSourceIsNamed() async throws {
        let result = try await CLI.run(["populate", "--schema", "s.json", "--db", "d.sqlite", "--entity", "Post"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: missing expected argument '<source> ...'")
    }

    @Test func missingOptionValue() async throws {
        let result = try await CLI.run(["export", "--db", "d.sqlite", "--entity", "Post", "--schema"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: missing value for '--schema <schema>'")
    }

    @Test func flagWithAValueIsAUsageError() async throws {
        let result = try await CLI.run([
            "populate", "--schema", "s.json", "--db", "d.sqlite", "--entity", "Post", "--json=yes", "a.json",
        ])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: option '--json' takes no value")
    }

    @Test func singleValueOptionGivenTwice() async throws {
        let result = try await CLI.run([
            "export", "--schema", "s.json", "--db", "a.sqlite", "--db", "b.sqlite", "--entity", "Post",
        ])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: option '--db' may be given only once")
    }

    @Test func extraArgumentIsAUsageError() async throws {
        let result = try await CLI.run(["import-model", "a.xml", "b.xml"])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: unexpected argument 'b.xml'")
    }

    @Test(arguments: ["nope", "0", "-1", "inf"])
    func invalidTimeoutIsAUsageError(value: String) async throws {
        let result = try await CLI.run([
            "populate", "--schema", "s.json", "--db", "d.sqlite", "--entity", "Post", "--timeout=\(value)", "a.json",
        ])
        #expect(result.status == 2)
        #expect(
            result.stderrLines.first
                == "webrecord: error: invalid timeout '\(value)'; expected a positive number of seconds")
    }

    @Test func invalidHeaderIsAUsageError() async throws {
        let result = try await CLI.run([
            "populate", "--schema", "s.json", "--db", "d.sqlite", "--entity", "Post", "--header", "NoColon", "a.json",
        ])
        #expect(result.status == 2)
        #expect(result.stderrLines.first == "webrecord: error: invalid header 'NoColon'; expected 'Name: value'")
    }

    @Test func doubleDashEndsOptions() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["lint", "--", "--help"], in: directory.url)
        // "--help" after "--" is a file name, not a request for help.
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "--help: no such file\n")
    }
}
