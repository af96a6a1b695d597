import Foundation
import TestSupport
import Testing
import WebRecord

// Hostile command lines, sources and stores given to the built `webrecord populate`, run as a
// child process. Each case checks the exit status, the message on standard error (one line
// naming what was wrong and where, for a failure), and the store: byte for byte as it was when
// the run fails, exactly the expected rows when it succeeds.

private let cliSchemaJSON = """
    {
      "version": 1,
      "entities": {
        "Item": {
          "primaryKey": "id",
          "keyPathForResponseObject": "items",
          "attributes": { "id": { "type": "integer" }, "label": { "type": "string" } }
        }
      }
    }
    """

/// A working folder with the schema, a good source and (optionally) a store populated from it.
private struct HostileCLIFixture {
    let directory: TemporaryDirectory
    let schema: String
    let good: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("schema.json", cliSchemaJSON)
        good = try directory.write("good.json", #"{"items": [{"id": 1, "label": "one"}]}"#)
    }

    var db: String { directory.path("store.sqlite") }

    static let seededRows = ["Item: 1 | 'Item' | 1 | 'one'"]

    /// Populates the store from `good.json`.
    func seed() async throws {
        let result = try await run(["populate", "--schema", schema, "--db", db, "--entity", "Item", "--quiet", good])
        #expect(result.status == 0, "\(result)")
    }

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.run(arguments, in: directory.url)
    }

    /// Replaces `$SCHEMA`, `$DB`, `$GOOD` and `$DIR/` in arguments.
    func expand(_ arguments: [String]) -> [String] {
        arguments.map {
            $0.replacingOccurrences(of: "$SCHEMA", with: schema).replacingOccurrences(of: "$DB", with: db)
                .replacingOccurrences(of: "$GOOD", with: good).replacingOccurrences(
                    of: "$DIR/", with: directory.url.path + "/")
        }
    }

    /// The store file's bytes, or nil when there is none; with its `-wal` (which must not be left).
    func storeBytes(_ path: String? = nil) -> Data? {
        try? Data(contentsOf: URL(fileURLWithPath: path ?? db))
    }

    /// The records of the store, every table but WebRecord's metadata, byte-exact.
    func records(_ path: String? = nil) throws -> [String] {
        let store = try RecordStore(path: path ?? db, schema: Schema(json: cliSchemaJSON))
        return try store.read { connection in
            let tables = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_webrecord_metadata' ORDER BY name"
            )
            var lines: [String] = []
            for case .text(let table)? in tables.map(\.first) {
                for row in try connection.rows("SELECT * FROM \"\(table)\" ORDER BY 1") {
                    lines.append(table + ": " + row.map(Self.render).joined(separator: " | "))
                }
            }
            return lines
        }
    }

    static func render(_ value: DatabaseValue) -> String {
        switch value {
        case .text(let text):
            return "'"
                + text.unicodeScalars.map {
                    $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}"
                }.joined() + "'"
        case .real(let value): return "real:" + String(value)
        default: return value.description
        }
    }
}

/// One command line, the files it needs, and what it must do.
struct HostileCLICase: Sendable, CustomTestStringConvertible {
    var name: String
    /// Arguments, with `$SCHEMA`, `$DB`, `$GOOD` and `$DIR/` replaced.
    var arguments: [String]
    /// Files written into the folder first.
    var files: [String: Data] = [:]
    /// Whether the store is populated from `good.json` first.
    var seeded = true
    var status: Int32
    /// Substrings standard error must contain.
    var stderr: [String] = []
    /// The records expected after success; nil means the store is byte for byte as it was.
    var rows: [String]? = nil
    var testDescription: String { name }
}

/// Runs one case and checks status, message and store.
private func check(_ cliCase: HostileCLICase) async throws {
    let fixture = try HostileCLIFixture()
    for (name, data) in cliCase.files { try fixture.directory.write(name, data) }
    if cliCase.seeded { try await fixture.seed() }
    let before = fixture.storeBytes()
    let beforeRows = cliCase.seeded ? HostileCLIFixture.seededRows : nil

    let result = try await fixture.run(fixture.expand(cliCase.arguments))
    #expect(result.status == cliCase.status, "\(result)")
    for part in fixture.expand(cliCase.stderr) {
        #expect(result.stderr.contains(part), "'\(part)' in stderr: \(result)")
    }
    switch cliCase.status {
    case 1:
        #expect(result.stderrLines.count == 1, "one line: \(result)")
        #expect(result.stderr.hasPrefix("webrecord: error: "), "\(result)")
        #expect(!result.stderr.contains("SQLITE_") && !result.stderr.contains("Fatal error"), "\(result)")
    case 2:
        #expect(result.stderr.hasPrefix("webrecord: error: "), "\(result)")
        #expect(result.stderr.contains("Usage: webrecord populate"), "\(result)")
    default:
        break
    }
    if cliCase.status != 0 {
        #expect(result.stdout == "", "\(result)")
    }
    if let rows = cliCase.rows {
        #expect(try fixture.records() == rows)
    } else {
        #expect(fixture.storeBytes() == before, "the store is byte for byte as it was")
        if let beforeRows {
            #expect(try fixture.records() == beforeRows)
        } else {
            #expect(!FileManager.default.fileExists(atPath: fixture.db), "no store is created")
        }
    }
}

private func data(_ text: String) -> Data { Data(text.utf8) }

@Suite("Hostile CLI input")
struct HostileCLIInputTests {
    // MARK: - Arguments

    static let argumentCases: [HostileCLICase] = [
        HostileCLICase(
            name: "missing --schema", arguments: ["populate", "--db", "$DB", "--entity", "Item", "$GOOD"], status: 2,
            stderr: ["--schema"]),
        HostileCLICase(
            name: "missing --db", arguments: ["populate", "--schema", "$SCHEMA", "--entity", "Item", "$GOOD"],
            status: 2,
            stderr: ["--db"]),
        HostileCLICase(
            name: "missing --entity", arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "$GOOD"], status: 2,
            stderr: ["--entity"]),
        HostileCLICase(
            name: "no source", arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item"],
            status: 2,
            stderr: ["source"]),
        HostileCLICase(
            name: "an unknown flag",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--jsn", "$GOOD"],
            status: 2, stderr: ["'--jsn'", "--json"]),
        HostileCLICase(
            name: "--db given twice",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--db", "$DIR/other.sqlite", "--entity", "Item",
                "$GOOD",
            ],
            status: 2, stderr: ["--db"]),
        HostileCLICase(
            name: "a negative --timeout",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--timeout", "-1", "$GOOD",
            ],
            status: 2, stderr: ["--timeout"]),
        HostileCLICase(
            name: "an unknown entity",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Itme", "$GOOD"],
            status: 1, stderr: ["'Itme'", "Did you mean 'Item'?"]),
        HostileCLICase(
            name: "--key-path '' means the response itself",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--key-path", "",
                "$DIR/single.json",
            ],
            files: ["single.json": data(#"{"id": 2, "label": "two"}"#)], status: 0,
            rows: HostileCLIFixture.seededRows + ["Item: 2 | 'Item' | 2 | 'two'"]),
        HostileCLICase(
            name: "--key-path= means the response itself",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--key-path=", "$DIR/single.json",
            ],
            files: ["single.json": data(#"{"id": 2, "label": "two"}"#)], status: 0,
            rows: HostileCLIFixture.seededRows + ["Item: 2 | 'Item' | 2 | 'two'"]),
        HostileCLICase(
            name: "a source that is a directory",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "$DIR/folder.json"],
            files: ["folder.json/inside": data("x")], status: 1, stderr: ["folder.json"]),
        HostileCLICase(
            name: "a missing source file",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "nowhere.json"],
            status: 1, stderr: ["nowhere.json: no such file"]),
        HostileCLICase(
            name: "an empty source file",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "empty.json"],
            files: ["empty.json": Data()], status: 1, stderr: ["empty.json: "]),
        HostileCLICase(
            name: "a source of only whitespace",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "blank.json"],
            files: ["blank.json": data(" \n\t\n")], status: 1, stderr: ["blank.json: "]),
        HostileCLICase(
            name: "a non-UTF-8 source (Latin-1)",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "latin1.json"],
            files: [
                "latin1.json": Data(#"{"items": [{"id": 3, "label": "caf"#.utf8) + Data([0xE9]) + Data(#""}]}"#.utf8)
            ],
            status: 1, stderr: ["latin1.json: ", "UTF-8"]),
        HostileCLICase(
            name: "a non-UTF-8 first source creates no store",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "bad.json"],
            files: ["bad.json": Data([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00])], seeded: false, status: 1,
            stderr: ["bad.json: "]),
        HostileCLICase(
            name: "--delete-orphans with an error object: fatal, nothing deleted",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--delete-orphans", "error.json",
            ],
            files: ["error.json": data(#"{"error": "rate limited"}"#)], status: 1, stderr: ["error.json: ", "items"]),
        HostileCLICase(
            name: "--delete-orphans with an explicit empty list deletes every record",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--delete-orphans", "none.json",
            ],
            files: ["none.json": data(#"{"items": []}"#)], status: 0, rows: []),
        HostileCLICase(
            name: "--key-path pointing to a string",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--key-path", "meta.note",
                "$DIR/note.json",
            ],
            files: ["note.json": data(#"{"meta": {"note": "none today"}}"#)], status: 1,
            stderr: ["note.json: ", "Item", "meta.note"]),
        HostileCLICase(
            name: "--key-path given twice",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--key-path", "items", "$GOOD",
                "--key-path", "items",
            ],
            status: 2, stderr: ["'--key-path' may be given only once"]),
        HostileCLICase(
            name: "an unknown --paginate kind",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--paginate", "bogus", "$GOOD",
            ],
            status: 2, stderr: ["--paginate 'bogus'"]),
        HostileCLICase(
            name: "--max-pages 0",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--max-pages", "0", "$GOOD",
            ],
            status: 2, stderr: ["--max-pages '0'"]),
        HostileCLICase(
            name: "a --header without a colon",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--header", "nocolon", "$GOOD",
            ],
            status: 2, stderr: ["header 'nocolon'"]),
        HostileCLICase(
            name: "--timeout nan",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--timeout", "nan", "$GOOD",
            ],
            status: 2, stderr: ["timeout 'nan'"]),
        HostileCLICase(
            name: "--timeout 0",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--timeout", "0", "$GOOD",
            ],
            status: 2, stderr: ["timeout '0'"]),
        HostileCLICase(
            name: "an empty --entity",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "", "$GOOD"],
            status: 1, stderr: ["no entity ''"]),
        HostileCLICase(
            name: "a --schema that does not exist",
            arguments: ["populate", "--schema", "nope.json", "--db", "$DB", "--entity", "Item", "$GOOD"],
            status: 1, stderr: ["invalid schema: nope.json: no such file"]),
        HostileCLICase(
            name: "a --schema that is a directory",
            arguments: ["populate", "--schema", "schemas", "--db", "$DB", "--entity", "Item", "$GOOD"],
            files: ["schemas/inside.json": data("{}")], status: 1, stderr: ["invalid schema: schemas"]),
        HostileCLICase(
            name: "the same --schema twice declares every entity twice",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "$GOOD",
            ],
            status: 1, stderr: ["invalid schema: ", "Item", "duplicate entity name"]),
        HostileCLICase(
            name: "an option after -- is a source",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--", "--json"],
            status: 1, stderr: ["--json: no such file"]),
        HostileCLICase(
            name: "a source starting with a UTF-8 byte order mark",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "bom.json"],
            files: ["bom.json": Data([0xEF, 0xBB, 0xBF]) + data(#"{"items": [{"id": 2}]}"#)], status: 1,
            stderr: ["bom.json: line 1, column 1: malformed JSON", "byte order mark"]),
        HostileCLICase(
            name: "a source with a raw NUL inside a string",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "nul.json"],
            files: ["nul.json": data(#"{"items": [{"id": 2, "label": "a"#) + Data([0]) + data(#"b"}]}"#)], status: 1,
            stderr: ["nul.json: line 1, column 33: malformed JSON", "U+0000"]),
        HostileCLICase(
            name: "a source with an escaped NUL inside a string is stored whole",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "nul.json"],
            files: ["nul.json": data(#"{"items": [{"id": 2, "label": "a\u0000b"}]}"#)], status: 0,
            rows: HostileCLIFixture.seededRows + [#"Item: 2 | 'Item' | 2 | 'a\u{0}b'"#]),
        HostileCLICase(
            name: "a later failing source keeps the earlier one",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "two.json", "scalar.json",
            ],
            files: [
                "two.json": data(#"{"items": [{"id": 2, "label": "two"}]}"#), "scalar.json": data(#"{"items": 5}"#),
            ],
            status: 1, stderr: ["scalar.json: ", "the source before it was saved"],
            rows: HostileCLIFixture.seededRows + ["Item: 2 | 'Item' | 2 | 'two'"]),
    ]

    @Test("A hostile command line is a usage error, a named failure or a clean success", arguments: argumentCases)
    func argument(_ cliCase: HostileCLICase) async throws {
        try await check(cliCase)
    }

    static let numberAndNullCases: [HostileCLICase] = [
        HostileCLICase(
            name: "--delete-orphans with a list of nulls: fatal, nothing deleted",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--delete-orphans", "nulls.json",
            ],
            files: ["nulls.json": data(#"{"items": [null]}"#)], status: 1, stderr: ["nulls.json: ", "Item"]),
        HostileCLICase(
            name: "a number beyond a Double's range is one refused value, not a malformed source",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DB", "--entity", "Item", "--quiet", "big.json"],
            files: ["big.json": data(#"{"items": [{"id": 2, "label": 1e400}, {"id": 3, "label": 1.10}]}"#)], status: 0,
            rows: HostileCLIFixture.seededRows + ["Item: 2 | 'Item' | 2 | '1e400'", "Item: 3 | 'Item' | 3 | '1.10'"]),
    ]

    @Test(
        "Nulls where records belong and numbers beyond a double, through the command line",
        arguments: numberAndNullCases)
    func numbersAndNulls(_ cliCase: HostileCLICase) async throws {
        try await check(cliCase)
    }

    static let emptyDBCases: [HostileCLICase] = [
        HostileCLICase(
            name: "--db=", arguments: ["populate", "--schema", "$SCHEMA", "--db=", "--entity", "Item", "$GOOD"],
            status: 2,
            stderr: ["--db"]),
        HostileCLICase(
            name: "--db ''", arguments: ["populate", "--schema", "$SCHEMA", "--db", "", "--entity", "Item", "$GOOD"],
            status: 2,
            stderr: ["--db"]),
    ]

    @Test(
        "An empty --db is a usage error, not a store that vanishes",
        arguments: emptyDBCases)
    func emptyDB(_ cliCase: HostileCLICase) async throws {
        try await check(cliCase)
    }

    @Test(
        "--db :memory: is a usage error, never a success that saves nothing")
    func memoryDB() async throws {
        let fixture = try HostileCLIFixture()
        let result = try await fixture.run([
            "populate", "--schema", fixture.schema, "--db", ":memory:", "--entity", "Item", fixture.good,
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("webrecord: error: ") && result.stderr.contains(":memory:"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path(":memory:")), "no file is created")
    }

    // MARK: - Stores

    static let storeCases: [HostileCLICase] = [
        HostileCLICase(
            name: "a zero-byte --db is an empty database and becomes a store",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DIR/zero.sqlite", "--entity", "Item", "$GOOD"],
            files: ["zero.sqlite": Data()], seeded: false, status: 0),
        HostileCLICase(
            name: "a --db of garbage bytes",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DIR/garbage.sqlite", "--entity", "Item", "$GOOD"],
            files: ["garbage.sqlite": Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })], status: 1,
            stderr: ["$DIR/garbage.sqlite"]),
        HostileCLICase(
            name: "a directory as --db",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$DIR/folder.sqlite", "--entity", "Item", "$GOOD"],
            files: ["folder.sqlite/inside": data("x")], status: 2, stderr: ["$DIR/folder.sqlite"]),
        HostileCLICase(
            name: "a --db in a folder that does not exist",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DIR/no/such/store.sqlite", "--entity", "Item", "$GOOD",
            ],
            status: 1, stderr: ["$DIR/no/such/store.sqlite"]),
        HostileCLICase(
            name: "/dev/null as --db",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "/dev/null", "--entity", "Item", "$GOOD"],
            status: 1, stderr: ["/dev/null"]),
        HostileCLICase(
            name: "a --db that is a dangling symbolic link",
            arguments: [
                "populate", "--schema", "$SCHEMA", "--db", "$DIR/dangling.sqlite", "--entity", "Item", "$GOOD",
            ],
            status: 1, stderr: ["$DIR/dangling.sqlite"]),
        HostileCLICase(
            name: "the schema file given as --db",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$SCHEMA", "--entity", "Item", "$GOOD"],
            status: 1, stderr: ["$SCHEMA"]),
        HostileCLICase(
            name: "the source file given as --db",
            arguments: ["populate", "--schema", "$SCHEMA", "--db", "$GOOD", "--entity", "Item", "$GOOD"],
            status: 1, stderr: ["$GOOD"]),
    ]

    @Test("A hostile store file is refused by name and left as it was", arguments: storeCases)
    func store(_ cliCase: HostileCLICase) async throws {
        let fixture = try HostileCLIFixture()
        for (name, data) in cliCase.files { try fixture.directory.write(name, data) }
        let arguments = fixture.expand(cliCase.arguments)
        let dbPath = arguments[arguments.firstIndex(of: "--db")! + 1]
        let files = [dbPath, fixture.schema, fixture.good]
        if cliCase.name.contains("dangling") {
            try FileManager.default.createSymbolicLink(
                atPath: dbPath, withDestinationPath: "no/such/folder/store.sqlite")
        }
        let before = files.map { fixture.storeBytes($0) }
        let result = try await fixture.run(arguments)
        #expect(result.status == cliCase.status, "\(result)")
        for part in fixture.expand(cliCase.stderr) {
            #expect(result.stderr.contains(part), "'\(part)' in stderr: \(result)")
        }
        if cliCase.status == 0 {
            #expect(try fixture.records(dbPath) == HostileCLIFixture.seededRows)
        } else {
            // A failure is one line; a usage error (exit 2) is followed by the usage.
            #expect(cliCase.status == 2 || result.stderrLines.count == 1, "one line: \(result)")
            #expect(result.stderr.hasPrefix("webrecord: error: "), "\(result)")
            #expect(files.map { fixture.storeBytes($0) } == before, "every file is byte for byte as it was")
            #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("no")), "no folder is made")
        }
    }

    @Test("A truncated store is refused by name and left as it was")
    func truncatedStore() async throws {
        let fixture = try HostileCLIFixture()
        let many = try fixture.directory.write(
            "many.json",
            "{\"items\": ["
                + (1...400).map { #"{"id": \#($0), "label": "\#(String(repeating: "y", count: 200))"}"# }.joined(
                    separator: ",") + "]}")
        let seeded = try await fixture.run([
            "populate", "--schema", fixture.schema, "--db", fixture.db, "--entity", "Item", "--quiet", many,
        ])
        #expect(seeded.status == 0, "\(seeded)")
        for suffix in ["-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: fixture.db + suffix)) }
        let whole = try #require(fixture.storeBytes())
        #expect(whole.count > 16384)
        try whole.prefix(8192).write(to: URL(fileURLWithPath: fixture.db))
        let before = fixture.storeBytes()
        let result = try await fixture.run([
            "populate", "--schema", fixture.schema, "--db", fixture.db, "--entity", "Item", fixture.good,
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderr.contains(fixture.db), "\(result)")
        #expect(fixture.storeBytes() == before)
    }

    @Test(
        "A read-only --db fails naming the store, and is left as it was", .enabled(if: UnwritableFile.isPossible))
    func readOnlyStore() async throws {
        let fixture = try HostileCLIFixture()
        try await fixture.seed()
        let two = try fixture.directory.write("two.json", #"{"items": [{"id": 2}]}"#)
        let undo = try #require(UnwritableFile.make(fixture.db))
        defer { undo() }
        let before = fixture.storeBytes()
        let result = try await fixture.run([
            "populate", "--schema", fixture.schema, "--db", fixture.db, "--entity", "Item", two,
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderrLines.count == 1 && result.stderr.contains(fixture.db), "\(result)")
        #expect(fixture.storeBytes() == before)
        // SQLite may leave its -wal and -shm beside a database it could open only for reading
        // (it cannot checkpoint one); nothing may have been written to the log.
        let log = (try? FileManager.default.attributesOfItem(atPath: fixture.db + "-wal"))?[.size] as? Int
        #expect(log == nil || log == 0, "the write-ahead log holds \(log ?? 0) bytes")
    }

    // MARK: - Concurrency

    @Test("Two processes populating overlapping records end as sequential runs would")
    func twoProcessesOverlapping() async throws {
        let fixture = try HostileCLIFixture()
        func items(_ ids: ClosedRange<Int>) -> String {
            "{\"items\": [" + ids.map { #"{"id": \#($0), "label": "same \#($0)"}"# }.joined(separator: ",") + "]}"
        }
        let first = try fixture.directory.write("first.json", items(1...150))
        let second = try fixture.directory.write("second.json", items(101...250))
        let arguments = ["populate", "--schema", fixture.schema, "--db", fixture.db, "--entity", "Item", "--quiet"]
        // The store exists before both start, as it would for two cron jobs.
        try await fixture.seed()
        async let a = fixture.run(arguments + [first])
        async let b = fixture.run(arguments + [second])
        let (resultA, resultB) = try await (a, b)
        #expect(resultA.status == 0, "\(resultA)")
        #expect(resultB.status == 0, "\(resultB)")
        let rows = try fixture.records()
        // Row ids depend on which ran first; the records themselves do not.
        let content = rows.map { $0.split(separator: "|").dropFirst().joined(separator: "|") }.sorted()
        let expected = (1...250).map { " 'Item' | \($0) | 'same \($0)'" }
        #expect(content == expected.sorted(), "\(content.prefix(3))")
    }
}
