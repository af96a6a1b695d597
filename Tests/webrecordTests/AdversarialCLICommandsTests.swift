import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The commands besides `populate`, held to Docs/CLI.md: `export`, `watch`, `lint`, `diagram`,
/// `import-model`, `completion`, the tool's own options, the logging variable, and a `populate`
/// interrupted by a signal.
@Suite struct AdversarialCLICommandsTests {
    static let postSchema = """
        {"entities": {"Post": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}, "rank": {"type": "integer"}}}}}
        """

    /// `Post` with one more attribute: a schema that only adds to `postSchema`.
    static let widerPostSchema = """
        {"entities": {"Post": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}, "rank": {"type": "integer"},
            "extra": {"type": "string"}}}}}
        """

    /// Three levels: `Item`, its sub-entity `Book`, and `Book`'s sub-entity `Ebook`.
    static let hierarchySchema = """
        {"entities": {
          "Item": {"primaryKey": "sku", "subentities": {"key": "kind", "map": {"book": "Book", "ebook": "Ebook"}},
            "attributes": {"sku": {"type": "string"}, "price": {"type": "integer"}}},
          "Book": {"parent": "Item", "attributes": {"isbn": {"type": "string"}}},
          "Ebook": {"parent": "Book", "attributes": {"link": {"type": "string"}}}}}
        """

    let directory: TemporaryDirectory
    let schemaPath: String
    let storePath: String

    init() throws {
        directory = try TemporaryDirectory()
        schemaPath = try directory.write("schema.json", Self.postSchema)
        storePath = directory.path("posts.sqlite")
    }

    func populate(
        _ json: String, name: String, schema: String? = nil, entity: String = "Post", store: String? = nil
    ) async throws {
        let source = try directory.write(name, json)
        let result = try await CLI.run([
            "populate", "--schema", schema ?? schemaPath, "--db", store ?? storePath, "--entity", entity, source,
        ])
        #expect(result.status == 0, "\(result)")
    }

    func export(schema: String? = nil, entity: String = "Post", store: String? = nil) async throws -> CLIResult {
        try await CLI.run(["export", "--schema", schema ?? schemaPath, "--db", store ?? storePath, "--entity", entity])
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Runs `webrecord ARGUMENTS > /dev/full` in bash and returns what it wrote on standard
    /// error and its exit status, printed by bash after it as `status N`.
    func runIntoFullDisk(_ arguments: [String]) async throws -> CLIResult {
        let quoted = ([try CLI.executable().path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try await ChildProcess.run(
            try ChildProcess.onPath("bash"), ["-c", "\(quoted) > /dev/full; echo \"status $?\" >&2"],
            in: directory.url)
    }

    // MARK: - Output that cannot be written

    /// "1 | Failure: ... One line on standard error": output that the disk refuses is lost, and a
    /// run that lost its whole result has failed; exit 0 would tell a script the file is complete.
    @Test(arguments: [
        "export", "lint", "diagram", "import-model", "completion", "generate-swift",
    ])
    func aResultThatCannotBeWrittenIsAFailure(command: String) async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let model = try CLI.fixture("appnet-model.xml").path
        let arguments: [String] =
            switch command {
            case "export": ["export", "--schema", schemaPath, "--db", storePath, "--entity", "Post"]
            case "lint": ["lint", schemaPath]
            case "diagram": ["diagram", schemaPath]
            case "import-model": ["import-model", model]
            case "completion": ["completion", "bash"]
            default: ["generate-swift", schemaPath]
            }
        let result = try await runIntoFullDisk(arguments)
        #expect(result.stderrLines.last == "status 1", "\(command): \(result)")
        #expect(result.stderrLines.count == 2, "one error line, then the status: \(result)")
        #expect(result.stderrLines.first?.hasPrefix("webrecord: error: ") == true, "\(result)")
    }

    /// "SIGINT (Ctrl-C) or a closed pipe ends it with status 0": a full disk is neither; the
    /// lines are lost, so watch must not end as if it had been asked to stop.
    @Test func watchIntoAFullDiskIsAFailure() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let result = try await runIntoFullDisk([
            "watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post",
        ])
        #expect(result.stderrLines.last == "status 1", "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("webrecord: error: ") == true, "\(result)")
    }

    // MARK: - export reads, never writes

    /// "Reading never creates or migrates a store file: with a schema that only adds entities or
    /// attributes, the new ones read as empty tables and NULL values".
    @Test func exportWithAWiderSchemaLeavesTheStoreFileAsItWas() async throws {
        try await populate(#"[{"id": 2, "title": "b", "rank": 7}, {"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let before = bytes(storePath)
        let wider = try directory.write("wider.json", Self.widerPostSchema)
        let result = try await export(schema: wider)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                [
                  {
                    "id": 1,
                    "title": "a",
                    "rank": 5,
                    "extra": null
                  },
                  {
                    "id": 2,
                    "title": "b",
                    "rank": 7,
                    "extra": null
                  }
                ]

                """, "\(result)")
        #expect(result.stderr == "")
        #expect(bytes(storePath) == before, "the store file is unchanged")
        #expect(!FileManager.default.fileExists(atPath: storePath + "-wal"))
    }

    /// "a schema the store cannot migrate to is refused (`incompatibleStore`, exit 1) before
    /// anything is read, the store untouched."
    @Test func exportWithAnIncompatibleSchemaIsRefusedAndTouchesNothing() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let before = bytes(storePath)
        let other = try directory.write(
            "other.json",
            #"{"entities": {"Post": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "rank": {"type": "date"}}}}}"#
        )
        let result = try await export(schema: other)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: \(storePath): incompatibleStore: ") == true,
            "\(result)")
        #expect(bytes(storePath) == before)
        // The store still reads with its own schema.
        let again = try await export()
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("\"title\": \"a\""), "\(again)")
    }

    /// "An empty store prints `[]`", and an empty database with no tables "reads as an empty
    /// store"; reading creates nothing in it.
    @Test func exportOfAnEmptyFilePrintsAnEmptyArrayAndWritesNothing() async throws {
        try directory.write("posts.sqlite", Data())
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "[]\n")
        #expect(result.stderr == "")
        #expect(bytes(storePath) == Data(), "reading never creates or migrates a store file")
    }

    // MARK: - Sub-entities, at two levels

    func populateHierarchy() async throws -> String {
        let schema = try directory.write("items.json", Self.hierarchySchema)
        try await populate(
            #"""
            [{"sku": "c", "kind": "ebook", "price": 3, "isbn": "978-3", "link": "https://x/c"},
             {"sku": "a", "kind": "book", "price": 1, "isbn": "978-1"},
             {"sku": "b", "price": 2}]
            """#, name: "items-source.json", schema: schema, entity: "Item")
        return schema
    }

    /// "The entity to export, sub-entities included", `_entity` "only when the exported entity
    /// has sub-entities", "inherited ones first".
    @Test func exportOfAMiddleEntityHoldsItAndItsSubEntitiesOnly() async throws {
        let schema = try await populateHierarchy()
        let book = try await export(schema: schema, entity: "Book")
        #expect(book.status == 0, "\(book)")
        #expect(
            book.stdout == """
                [
                  {
                    "_entity": "Book",
                    "sku": "a",
                    "price": 1,
                    "isbn": "978-1"
                  },
                  {
                    "_entity": "Ebook",
                    "sku": "c",
                    "price": 3,
                    "isbn": "978-3",
                    "link": "https://x/c"
                  }
                ]

                """, "\(book)")
        let ebook = try await export(schema: schema, entity: "Ebook")
        #expect(
            ebook.stdout == """
                [
                  {
                    "sku": "c",
                    "price": 3,
                    "isbn": "978-3",
                    "link": "https://x/c"
                  }
                ]

                """, "\(ebook)")
        let item = try await export(schema: schema, entity: "Item")
        #expect(
            item.stdout.components(separatedBy: "\"_entity\": ").dropFirst().map { $0.prefix { $0 != "," } }
                == ["\"Book\"", "\"Item\"", "\"Ebook\""], "\(item)")
    }

    /// watch "Observes the entity's records (sub-entities included)": a sub-entity's count is
    /// that of its own records and its descendants', as export lists them.
    @Test func watchOfASubEntityCountsOnlyItsOwnHierarchy() async throws {
        let schema = try await populateHierarchy()
        for (entity, count) in [("Book", 2), ("Ebook", 1), ("Item", 3)] {
            let watching = try ChildProcess.Running(
                try CLI.executable(), ["watch", "--schema", schema, "--db", storePath, "--entity", entity])
            #expect(await watching.waitForOutput("}\n"), "\(watching.stdout)")
            kill(watching.process.processIdentifier, SIGINT)
            let result = try await watching.wait()
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines == [#"{"count":\#(count)}"#], "\(entity): \(result)")
        }
    }

    // MARK: - Text keys sort by their UTF-8 bytes

    /// "text by its UTF-8 bytes (as SQLite's `BINARY` collation sorts)": `e` + U+0301 (65 CC 81),
    /// then `z` (7A), then the precomposed `é` (C3 A9); the first and last are canonically
    /// equivalent but two different keys, so two records.
    @Test func canonicallyEquivalentKeysAreTwoRecordsInByteOrder() async throws {
        let schema = try directory.write(
            "tags.json",
            #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "n": {"type": "integer"}}}}}"#
        )
        try await populate(
            "[{\"name\": \"\u{E9}\", \"n\": 1}, {\"name\": \"e\u{301}\", \"n\": 2}, {\"name\": \"z\", \"n\": 3}]",
            name: "tags-source.json", schema: schema, entity: "Tag")
        let result = try await export(schema: schema, entity: "Tag")
        #expect(result.status == 0, "\(result)")
        let names = try (JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]] ?? []).map {
            ($0["name"] as? String).map { Array($0.unicodeScalars.map(\.value)) } ?? []
        }
        #expect(names == [[0x65, 0x301], [0x7A], [0xE9]], "\(result)")
        let numbers = try (JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]] ?? []).map {
            $0["n"] as? Int
        }
        #expect(numbers == [2, 3, 1], "\(result)")
    }

    // MARK: - watch

    /// `--where` "with a `?` for each `--arg`": a `?` with no `--arg` to fill it fails (exit 1,
    /// one line) before any line is printed, rather than being bound as NULL and matching nothing.
    @Test func watchWithFewerArgsThanPlaceholdersFailsBeforePrinting() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let watching = try ChildProcess.Running(
            try CLI.executable(),
            [
                "watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post", "--where",
                "rank < ? AND id = ?", "--arg", "10",
            ])
        _ = await watching.waitForOutput("}\n", timeout: 5)
        if !watching.hasEnded { kill(watching.process.processIdentifier, SIGINT) }
        let result = try await watching.wait()
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "", "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix(
                "webrecord: error: \(storePath): invalidArgument: the statement has 3 placeholders and 2 arguments were given"
            ) == true, "\(result)")
    }

    /// A `--order-by` naming no field of the entity fails (exit 1, one line naming the field),
    /// nothing on standard output.
    @Test func watchOrderedByAnUnknownFieldFailsNamingIt() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let watching = try ChildProcess.Running(
            try CLI.executable(),
            ["watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post", "--order-by", "nosuch:desc"])
        _ = await watching.waitForOutput("}\n", timeout: 5)
        if !watching.hasEnded { kill(watching.process.processIdentifier, SIGINT) }
        let result = try await watching.wait()
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "", "\(result)")
        #expect(
            result.stderrLines
                == [
                    "webrecord: error: \(storePath): invalidArgument: Post.nosuch: entity 'Post' has no property 'nosuch'"
                ],
            "\(result)")
    }

    /// Another process populates with a schema that only adds to the watcher's: the store is
    /// migrated in place (same file). Only the record that arrived is reported: record 1 did not
    /// change ("the primary keys of the records that left, arrived and changed"), and a later
    /// change to it is reported on a line of its own.
    @Test func watchAfterAnotherProcessMigratesTheStoreReportsOnlyWhatChanged() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let watching = try ChildProcess.Running(
            try CLI.executable(), ["watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post"])
        #expect(await watching.waitForOutput("{\"count\":1}\n"), "\(watching.stdout)")
        let wider = try directory.write("wider.json", Self.widerPostSchema)
        try await populate(#"[{"id": 2, "title": "b", "rank": 6, "extra": "x"}]"#, name: "2.json", schema: wider)
        #expect(await watching.waitForOutput("\"inserted\":[2]"), "\(watching.stdout)")
        try await populate(#"[{"id": 1, "title": "a2", "rank": 5}]"#, name: "3.json")
        #expect(await watching.waitForOutput("\"inserted\":[],\"modified\":[1]"), "\(watching.stdout)")
        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                #"{"count":1}"#,
                #"{"deleted":[],"inserted":[2],"modified":[]}"#,
                #"{"deleted":[],"inserted":[],"modified":[1]}"#,
            ], "\(result)")
        #expect(result.stderr == "", "\(result)")
    }

    /// The control: the same insertion without a migration reports record 2 alone.
    @Test func watchWithoutAMigrationReportsOnlyTheInsertion() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let watching = try ChildProcess.Running(
            try CLI.executable(), ["watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post"])
        #expect(await watching.waitForOutput("{\"count\":1}\n"), "\(watching.stdout)")
        try await populate(#"[{"id": 2, "title": "b", "rank": 6}]"#, name: "2.json")
        #expect(await watching.waitForOutput("\"inserted\":[2]"), "\(watching.stdout)")
        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == [#"{"count":1}"#, #"{"deleted":[],"inserted":[2],"modified":[]}"#], "\(result)")
    }

    // MARK: - populate interrupted

    /// A large response: `count` posts, one per line.
    func largeSource(_ count: Int, title: String) throws -> String {
        var text = "[\n"
        for id in 1...count {
            text +=
                "{\"id\": \(id), \"title\": \"\(title) \(id) \(String(repeating: "x", count: 40))\", \"rank\": \(id % 97)}"
            text += id == count ? "\n]\n" : ",\n"
        }
        return try directory.write("large-\(title).json", text)
    }

    /// "A source that fails leaves the store exactly as it was before that source": a populate
    /// ended by SIGINT or SIGKILL while it writes commits nothing, and does not exit 0.
    @Test(arguments: [SIGINT, SIGKILL])
    func anInterruptedPopulateLeavesTheStoreAsItWas(signal: Int32) async throws {
        try await populate(#"[{"id": 1, "title": "kept", "rank": 5}]"#, name: "1.json")
        let before = try await export()
        #expect(before.status == 0, "\(before)")
        let source = try largeSource(300_000, title: "new")
        let running = try ChildProcess.Running(
            try CLI.executable(), ["populate", "--schema", schemaPath, "--db", storePath, "--entity", "Post", source])
        // Once the write transaction has begun writing the log, well before its end.
        let wal = storePath + "-wal"
        let deadline = Date().addingTimeInterval(60)
        func walSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int) ?? 0 }
        while walSize() < 64 * 1024, !running.hasEnded, Date() < deadline { usleep(1000) }
        #expect(!running.hasEnded, "the populate was still running when the signal was sent")
        kill(running.process.processIdentifier, signal)
        let result = try await running.wait()
        #expect(result.killedBySignal || result.status != 0, "\(result)")
        #expect(result.stdout == "", "no summary for a run that was interrupted: \(result)")
        let after = try await export()
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == before.stdout, "the store holds exactly what it held before")
    }

    // MARK: - The tool's options and arguments

    /// "Help goes to standard output and exits 0, even when other arguments are wrong."
    @Test func theToolsHelpWinsOverAnUnknownOptionBeforeIt() async throws {
        let result = try await CLI.run(["--bogus", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("OVERVIEW: Turn web-service JSON responses into a SQLite object graph.\n"))
        #expect(result.stderr == "")
    }

    /// "`--` ends the options: every argument after it is a positional argument, even `--help`";
    /// "A missing file is a problem like any other (`FILE: no such file`, exit 1)".
    @Test func helpAfterTheEndOfOptionsIsASchemaFile() async throws {
        let result = try await CLI.run(["lint", "--", "--help"], in: directory.url)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "--help: no such file\n", "\(result)")
        #expect(result.stderr == "")
    }

    /// "A single-value option may be given only once", whichever way its value is given.
    @Test func aSingleValueOptionGivenTwiceInEitherFormIsAUsageError() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let result = try await CLI.run([
            "export", "--schema", schemaPath, "--db", storePath, "--entity", "Post", "--db=\(storePath)",
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: option '--db' may be given only once", "\(result)")
    }

    /// `--db=` is the empty value: "`''` (empty) | SQLite opens a temporary database" is a usage
    /// error for export, and nothing is created.
    @Test func anEmptyDBGivenWithEqualsIsAUsageErrorForExport() async throws {
        let result = try await CLI.run(
            ["export", "--schema", schemaPath, "--db=", "--entity", "Post"], in: directory.url)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderrLines.first?.hasPrefix("webrecord: error: invalid --db '': ") == true, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["schema.json"])
    }

    /// "`webrecord --version` prints the version (`0.1.0`)".
    @Test func theVersion() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "0.1.0\n")
        #expect(result.stderr == "")
    }

    // MARK: - lint

    /// "Paths in messages are printed as they were given on the command line", and each valid
    /// file gets its own summary line, with the counts of what it declares.
    @Test func lintNamesEachFileAsGivenWithItsOwnCounts() async throws {
        try directory.write(
            "sub/a.json",
            #"{"entities": {"A": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}, "relationships": {"b": {"destination": "B", "inverse": "a"}}}}}"#
        )
        try directory.write(
            "sub/b.json",
            #"{"entities": {"B": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}, "relationships": {"a": {"destination": "A", "inverse": "b", "toMany": true}}}, "C": {"attributes": {"x": {"type": "string"}}}}}"#
        )
        let result = try await CLI.run(["lint", "./sub/a.json", "sub//b.json"], in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                ./sub/a.json: 1 entity, 1 relationship: ok
                sub//b.json: 2 entities, 1 relationship: ok

                """, "\(result)")
    }

    /// "`--quiet` | Print nothing when the schema is valid": problems are still listed.
    @Test func lintQuietStillListsProblems() async throws {
        let bad = try directory.write(
            "bad.json", #"{"entities": {"Post": {"primaryKey": "ident", "attributes": {"id": {"type": "integer"}}}}}"#)
        let result = try await CLI.run(["lint", "--quiet", bad])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "\(bad): Post.ident: primary key names no property\n", "\(result)")
    }

    // MARK: - Logging

    /// "Set `WEBRECORD_LOGGING_LEVEL` to `info`, `debug` or `all` (in any case ...). Any other
    /// value is a usage error."
    @Test func theLoggingLevelInAnyCaseAndAnEmptyOne() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let upper = try await CLI.run(
            ["export", "--schema", schemaPath, "--db", storePath, "--entity", "Post"],
            environment: ["WEBRECORD_LOGGING_LEVEL": "NoNe"])
        #expect(upper.status == 0, "\(upper)")
        #expect(upper.stderr == "", "\(upper)")
        let empty = try await CLI.run(
            ["export", "--schema", schemaPath, "--db", storePath, "--entity", "Post"],
            environment: ["WEBRECORD_LOGGING_LEVEL": ""])
        #expect(empty.status == 2, "\(empty)")
        #expect(empty.stdout == "", "\(empty)")
        #expect(
            empty.stderrLines.first
                == "webrecord: error: invalid WEBRECORD_LOGGING_LEVEL ''; expected one of none, info, debug, all",
            "\(empty)")
    }

    // MARK: - completion

    /// The bash script completes "the values of an option that takes a fixed set": lint's
    /// `--backend` takes `sqlite` or `postgresql`.
    @Test func bashCompletesLintsBackends() async throws {
        let script = try await CLI.run(["completion", "bash"])
        let file = try directory.write("webrecord.bash", script.stdout)
        let run = try await ChildProcess.run(
            try ChildProcess.onPath("bash"),
            [
                "-c",
                #"source "$1"; COMP_WORDS=(webrecord lint --backend ''); COMP_CWORD=3; _webrecord; printf '%s\n' "${COMPREPLY[@]}""#,
                "bash", file,
            ], in: directory.url)
        #expect(run.stdoutLines.filter { !$0.isEmpty } == ["sqlite", "postgresql"], "\(run)")
    }

    // MARK: - diagram and import-model

    /// "Any other format is a usage error (exit 2)", the format named in the message.
    @Test func diagramInAnUnknownFormatIsAUsageError() async throws {
        let result = try await CLI.run(["diagram", "--format", "DOT", schemaPath])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: invalid --format 'DOT'; expected mermaid or dot")
    }

    /// import-model takes one model: a second is "unexpected argument 'b.xml'" (exit 2).
    @Test func importModelTakesOneModel() async throws {
        let model = try CLI.fixture("appnet-model.xml").path
        let result = try await CLI.run(["import-model", model, "b.xml"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: unexpected argument 'b.xml'", "\(result)")
    }
}
