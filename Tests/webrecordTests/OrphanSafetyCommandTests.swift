import Foundation
import TestSupport
import Testing
import WebRecord

/// `webrecord populate --delete-orphans` never deletes on a response it could not read as a
/// list of records, and never deletes what the response contained (DESIGN §3.5, §3.14).
@Suite struct OrphanSafetyCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write(
            "Tree.json",
            """
            {"entities": {
              "Unit": {
                "primaryKey": "id",
                "keyPathForResponseObject": "units",
                "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false}},
                "relationships": {
                  "children": {"destination": "Unit", "toMany": true, "inverse": "parent"},
                  "parent": {"destination": "Unit", "inverse": "children"}
                }
              }
            }}
            """)
        db = directory.path("tree.sqlite")
    }

    func populate(_ body: String, _ extra: [String] = []) async throws -> CLIResult {
        let source = try directory.write("response-\(UUID().uuidString).json", body)
        return try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Unit", "--json"] + extra + [source])
    }

    func storedIDs() throws -> [Int] {
        let store = try RecordStore(path: db, schema: Schema(contentsOf: URL(fileURLWithPath: schema)))
        return try store.fetch("Unit", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    func seed() async throws {
        let result = try await populate(
            #"{"units": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]}"#)
        #expect(result.status == 0, "\(result)")
    }

    @Test func nestedRecordsInsertedByTheSameRunAreKept() async throws {
        let result = try await populate(
            #"{"units": [{"id": 1, "name": "a", "children": [{"id": 11, "name": "x"}, {"id": 12, "name": "y"}]}]}"#,
            ["--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        let summary = try #require(try JSONReader().read(result.stdoutData).objectValue)
        #expect(summary["inserted"] == 3 && summary["deleted"] == 0)
        #expect(try storedIDs() == [1, 11, 12])
    }

    @Test(arguments: [
        #"{"message": "Bad credentials"}"#,  // an error object where the list was expected
        #"{"units": null}"#,
        #"{"unit": []}"#,  // a misspelt key path finds nothing
        #"{"units": [{"id": 1, "name": "a"}, {"name": "no id"}]}"#,
    ])
    func aResponseThatIsNotTheListFailsAndDeletesNothing(_ body: String) async throws {
        try await seed()
        let before = try storedIDs()
        let result = try await populate(body, ["--delete-orphans"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("invalidResponseFormat"), "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(try storedIDs() == before)
    }

    @Test func aRefusedFirstPopulationLeavesNoStoreFile() async throws {
        let result = try await populate(#"{"message": "Bad credentials"}"#, ["--key-path", ""])
        #expect(result.status == 1, "\(result)")
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: db + suffix), "\(db + suffix) was left behind")
        }
    }

    @Test func anOrphanADenyRuleKeepsIsReportedAsAWarning() async throws {
        let denySchema = try directory.write(
            "Deny.json",
            """
            {"entities": {
              "Post": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                "relationships": {"comments": {"destination": "Comment", "toMany": true, "inverse": "post", "deleteRule": "deny"}}},
              "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                "relationships": {"post": {"destination": "Post", "inverse": "comments"}}}
            }}
            """)
        let store = directory.path("deny.sqlite")
        let first = try directory.write("first.json", #"[{"id": 1, "comments": [{"id": 5}]}, {"id": 2}]"#)
        let second = try directory.write("second.json", #"[{"id": 2}]"#)
        let seeded = try await CLI.run(["populate", "--schema", denySchema, "--db", store, "--entity", "Post", first])
        #expect(seeded.status == 0, "\(seeded)")
        let result = try await CLI.run([
            "populate", "--schema", denySchema, "--db", store, "--entity", "Post", "--delete-orphans", "--json", second,
        ])
        #expect(result.status == 0, "\(result)")
        let summary = try #require(try JSONReader().read(result.stdoutData).objectValue)
        #expect(summary["deleted"] == 0)
        #expect(
            summary["warnings"]?.arrayValue?.contains { $0["message"]?.stringValue?.contains("deny rule") == true }
                == true, "\(result)")
    }

    @Test func anExplicitEmptyListDeletesEveryRecord() async throws {
        try await seed()
        let result = try await populate(#"{"units": []}"#, ["--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        #expect(try storedIDs().isEmpty)
    }

    @Test func withoutOrphanDeletionAnErrorObjectStillFailsAndWritesNothing() async throws {
        try await seed()
        let before = try storedIDs()
        // No key path here: the object itself would be one record, with no key.
        let result = try await populate(#"{"message": "Not Found"}"#, ["--key-path", ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("could be identified"), "\(result)")
        #expect(try storedIDs() == before)
    }

    @Test func severalSourcesKeepTheRecordsNestedInAnyOfThem() async throws {
        try await seed()
        let first = try directory.write(
            "first.json", #"{"units": [{"id": 1, "name": "a", "children": [{"id": 11, "name": "x"}]}]}"#)
        let second = try directory.write("second.json", #"{"units": [{"id": 2, "name": "b", "children": [11]}]}"#)
        let result = try await CLI.run([
            "populate", "--schema", schema, "--db", db, "--entity", "Unit", "--delete-orphans", first, second,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try storedIDs() == [1, 2, 11])
    }
}
