import Foundation
import TestSupport
import Testing

/// `webrecord lint --backend sqlite|postgresql`: the limits of the store's database that a
/// valid schema may still exceed, found before any `CREATE` meets them.
@Suite struct LintBackendTests {
    /// A schema file of one entity `name` with the attributes `attributes` (all integers) and,
    /// when given, a composite primary key of its first `keyParts`.
    static func schema(_ name: String = "Wide", attributes: [String], keyParts: Int? = nil) -> String {
        let declared = attributes.map { "\"\($0)\": {\"type\": \"integer\"}" }.joined(separator: ", ")
        let key = keyParts.map { parts in
            "\"primaryKey\": [" + attributes.prefix(parts).map { "\"\($0)\"" }.joined(separator: ", ") + "], "
        }
        return "{\"version\": 1, \"entities\": {\"\(name)\": {\(key ?? "")\"attributes\": {\(declared)}}}}\n"
    }

    /// `count` attribute names: `a0`, `a1`, ...
    static func names(_ count: Int) -> [String] { (0..<count).map { "a\($0)" } }

    /// Runs `webrecord lint ARGUMENTS schema.json` on a file holding `schema`.
    static func lint(_ schema: String, _ arguments: [String] = []) async throws -> CLIResult {
        let directory = try TemporaryDirectory()
        try directory.write("schema.json", schema)
        return try await CLI.run(["lint"] + arguments + ["schema.json"], in: directory.url)
    }

    @Test func aNameOf64BytesFailsForPostgreSQLOnly() async throws {
        let long = String(repeating: "n", count: 64)
        let schema = Self.schema(attributes: ["id", long])
        let postgreSQL = try await Self.lint(schema, ["--backend", "postgresql"])
        #expect(postgreSQL.status == 1, "\(postgreSQL)")
        #expect(
            postgreSQL.stdoutLines == [
                "schema.json: Wide.\(long): the column name '\(long)' is 64 bytes; PostgreSQL names are at most 63 bytes"
            ])
        #expect(postgreSQL.stderr == "")

        for arguments in [[], ["--backend", "sqlite"], ["--backend=sqlite"]] {
            let sqlite = try await Self.lint(schema, arguments)
            #expect(sqlite.status == 0, "\(arguments): \(sqlite)")
            #expect(sqlite.stdoutLines == ["schema.json: 1 entity, 0 relationships: ok"])
        }
    }

    @Test func aNameOf63BytesPasses() async throws {
        let schema = Self.schema(attributes: ["id", String(repeating: "n", count: 63)])
        let result = try await Self.lint(schema, ["--backend=postgresql"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["schema.json: 1 entity, 0 relationships: ok"])
        let quiet = try await Self.lint(schema, ["--backend", "postgresql", "--quiet"])
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.stdout == "")
    }

    @Test func aTableOf1601ColumnsFailsAnd1600Passes() async throws {
        // `_id` and `_entity` are columns too: 1599 attributes make 1601 columns.
        let wide = try await Self.lint(Self.schema(attributes: Self.names(1599)), ["--backend", "postgresql"])
        #expect(wide.status == 1, "\(wide)")
        #expect(
            wide.stdoutLines == [
                "schema.json: Wide: its table would have 1601 columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); PostgreSQL allows at most 1600"
            ])
        // SQLite allows 2000.
        #expect(try await Self.lint(Self.schema(attributes: Self.names(1599))).status == 0)

        let fits = try await Self.lint(Self.schema(attributes: Self.names(1598)), ["--backend", "postgresql"])
        #expect(fits.status == 0, "\(fits)")
        #expect(fits.stdoutLines == ["schema.json: 1 entity, 0 relationships: ok"])
    }

    @Test func aCompositeKeyOf33AttributesFailsAnd32Passes() async throws {
        let schema33 = Self.schema(attributes: Self.names(40), keyParts: 33)
        let result = try await Self.lint(schema33, ["--backend", "postgresql"])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdoutLines == [
                "schema.json: Wide: its primary key's unique index '_pk_Wide' would cover 33 columns; PostgreSQL allows at most 32"
            ])
        #expect(try await Self.lint(schema33).status == 0)
        let schema32 = Self.schema(attributes: Self.names(40), keyParts: 32)
        #expect(try await Self.lint(schema32, ["--backend", "postgresql"]).status == 0)
    }

    @Test func eachProblemNamesTheFileOfItsEntity() async throws {
        let directory = try TemporaryDirectory()
        let long = String(repeating: "L", count: 64)
        try directory.write("short.json", Self.schema("Short", attributes: ["id"]))
        try directory.write("Schemas/long.json", Self.schema(long, attributes: ["id"], keyParts: 1))
        let result = try await CLI.run(
            ["lint", "--backend", "postgresql", "short.json", "Schemas/long.json"], in: directory.url)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdoutLines == [
                "Schemas/long.json: \(long): the table name '\(long)' is 64 bytes; PostgreSQL names are at most 63 bytes",
                "Schemas/long.json: \(long): the index name '_pk_\(long)' is 68 bytes; PostgreSQL names are at most 63 bytes",
            ])
    }

    @Test func schemaProblemsComeFirstAndAlone() async throws {
        // An invalid schema has no layout to check: its own problems are listed, as without --backend.
        let schema = "{\"version\": 1, \"entities\": {\"Post\": {\"attributes\": {\"d\": {\"type\": \"dte\"}}}}}"
        let plain = try await Self.lint(schema)
        let postgreSQL = try await Self.lint(schema, ["--backend", "postgresql"])
        #expect(plain.status == 1)
        #expect(postgreSQL.status == 1)
        #expect(postgreSQL.stdoutLines.count == 1)
        #expect(postgreSQL.stdoutLines.first?.hasPrefix("schema.json: Post.d: ") == true, "\(postgreSQL)")
        #expect(postgreSQL.stdout == plain.stdout)
    }

    @Test func anUnknownBackendIsAUsageError() async throws {
        let result = try await Self.lint(Self.schema(attributes: ["id"]), ["--backend", "mysql"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderrLines == [
                "webrecord: error: invalid --backend 'mysql'; expected sqlite or postgresql",
                "Usage: webrecord lint [--quiet] [--backend <backend>] <schema> ...",
                "  See 'webrecord lint --help' for more information.",
            ])
        let missing = try await CLI.run(["lint", "x.json", "--backend"])
        #expect(missing.status == 2)
        #expect(missing.stderrLines.first == "webrecord: error: missing value for '--backend <backend>'")
    }

    @Test func bashCompletesTheBackends() async throws {
        #expect(
            try await CompletionCommandTests.bashCompletes(["webrecord", "lint", "--backend", ""]) == [
                "sqlite", "postgresql",
            ])
    }
}
