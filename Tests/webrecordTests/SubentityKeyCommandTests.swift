import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

/// `webrecord populate` of a hierarchy whose sub-entities declare their own keys under a keyless
/// parent (RestKit's `Human`, `Parent` and `Child`): re-imports find the records by those keys
/// and insert nothing, and a child that names its father before the father arrives makes one
/// father, in a SQLite file and in PostgreSQL (DESIGN §3.3).
@Suite struct SubentityKeyCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let family: String
    let lateFather: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("Family.json", Data(subentityKeySchemaJSON.utf8))
        family = try directory.write("family.json", Data(subentityKeyFamilyJSON.utf8))
        lateFather = try directory.write(
            "late.json",
            Data(
                #"[{"kind": "child", "childID": "c9", "father": 42}, {"kind": "parent", "parentID": 42, "name": "Late"}]"#
                    .utf8))
    }

    /// The `--json` summary's inserted, updated and unchanged counts.
    func populate(_ db: String, _ source: String) async throws -> [Int] {
        let result = try await CLI.run([
            "populate", "--schema", schema, "--db", db, "--entity", "Human", "--json", source,
        ])
        try #require(result.status == 0, "\(result)")
        let summary = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        return ["inserted", "updated", "unchanged"].map { summary[$0] as? Int ?? -1 }
    }

    /// The keys `webrecord export` gives for `entity`.
    func exportedKeys(_ db: String, _ entity: String, key: String) async throws -> [String] {
        let result = try await CLI.run(["export", "--schema", schema, "--db", db, "--entity", entity])
        try #require(result.status == 0, "\(result)")
        let records = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        return records.map { "\($0[key] ?? "none")" }
    }

    func expectNoDuplicates(in db: String) async throws {
        #expect(try await populate(db, family) == [5, 0, 0])
        #expect(try await populate(db, family) == [0, 0, 5])
        #expect(try await populate(db, family) == [0, 0, 5])
        #expect(try await populate(db, lateFather) == [2, 0, 0])
        #expect(try await populate(db, lateFather) == [0, 0, 2])
        #expect(try await exportedKeys(db, "Parent", key: "parentID") == ["7", "8", "42"])
        #expect(try await exportedKeys(db, "Child", key: "childID") == ["7", "c1", "c2", "c9"])
    }

    @Test func reimportsIntoASQLiteFileInsertNothing() async throws {
        try await expectNoDuplicates(in: directory.path("family.sqlite"))
    }

    @Test func reimportsIntoPostgreSQLInsertNothing() async throws {
        let server = try PostgreSQLTestServer.shared()
        try await expectNoDuplicates(in: server.url(database: try server.makeDatabase()))
    }
}
