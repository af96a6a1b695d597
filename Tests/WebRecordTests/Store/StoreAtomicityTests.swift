import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Creating and migrating a store are part of its first write transaction: opening and reading
/// write nothing, and a failed first write leaves the store, or the absence of one, as it was.
@Suite struct StoreAtomicityTests {
    struct Injected: Error {}

    /// The store file and its companions that exist.
    static func files(at path: String) -> [String] {
        ["", "-wal", "-shm", "-journal"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The schema objects of the file at `path`, read with a connection of its own.
    static func catalog(at path: String) throws -> [[DatabaseValue]] {
        let connection = try Connection(path: path, mustExist: true)
        return try connection.rows("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
    }

    /// The v1 blog store of ``StoreMigratorTests``, closed, with its file as it is, and the v2
    /// schema that adds an attribute (`Post.summary`) and an entity (`Tag`) to it.
    struct MigratingStore {
        let directory: TemporaryDirectory
        let path: String
        let v2: Schema
        let before: FileSnapshot
        let catalog: [[DatabaseValue]]

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.path()
            try StoreMigratorTests.makeStore(at: path, schema: StoreMigratorTests.schema())
            v2 = try StoreMigratorTests.schema(
                postAttributes:
                    #""id": { "type": "integer" }, "title": { "type": "string" }, "date": { "type": "date" }, "summary": { "type": "string" }"#,
                extraEntities: #", "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }"#)
            before = try FileSnapshot(path: path)
            catalog = try StoreAtomicityTests.catalog(at: path)
        }
    }

    /// Populates `response` in a task cancelled before it starts: the population fails inside
    /// its write transaction, after the store's tables were made or migrated there.
    static func populateInACancelledTask(_ response: JSONValue, into store: RecordStore) async -> WebRecordError.Code? {
        await Task { () -> WebRecordError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try store.populate(response, entity: "Post")
                return nil
            } catch {
                return (error as? WebRecordError)?.code
            }
        }.value
    }

    // MARK: - A new store

    @Test func openingANewPathMakesAnEmptyDatabaseWithNoTables() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try RecordStore(path: path, schema: StoreSchemas.blog())
        #expect(try Self.catalog(at: path).isEmpty)
        // Reads see the schema's tables, empty, and write nothing.
        #expect(try store.fetch("Post").isEmpty)
        #expect(try store.count("Post") == 0)
        #expect(try store.exportJSON(entity: "Post") == .array([]))
        #expect(try store.fetchOne("User", primaryKey: "u1") == nil)
        #expect(try Self.catalog(at: path).isEmpty)
        #expect(try store.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    @Test func aFailedFirstWriteRemovesTheFileTheStoreCreated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try RecordStore(path: path, schema: StoreSchemas.blog())
        #expect(Self.files(at: path).contains(path))
        expectClosureFailure(causedBy: Injected.self) {
            try store.write { connection in
                try connection.insert("Tag", ["_entity": "Tag", "name": "lost"])
                throw Injected()
            }
        }
        #expect(Self.files(at: path) == [])

        // The store is still usable: its next write makes the file again, owner-only, in WAL.
        try store.write { try $0.insert("Tag", ["_entity": "Tag", "name": "kept"]) }
        #expect(try store.fetch("Tag").map { $0["name"] as String? } == ["kept"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.uint16Value == 0o600)
        #expect(try store.write { try $0.scalar("PRAGMA journal_mode") } == .text("wal"))
    }

    @Test(arguments: [#"42"#, #"{"message": "Bad credentials"}"#, #"[{"title": "no key"}]"#])
    func aFirstPopulationRefusedBeforeWritingLeavesNoFileBehind(_ body: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try RecordStore(path: path, schema: StoreSchemas.blog())
        #expect(throws: WebRecordError.self) {
            try store.populate(try JSONReader().read(body), entity: "Post", options: PopulationOptions())
        }
        #expect(Self.files(at: path) == [])
        // The store is still usable afterwards.
        _ = try store.populate(try JSONReader().read(#"[{"id": 1, "title": "kept"}]"#), entity: "Post")
        #expect(try store.count("Post") == 1)
    }

    @Test func aCancelledFirstPopulationLeavesNoFileBehind() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try RecordStore(path: path, schema: StoreSchemas.blog())
        let response = try JSONReader().read(#"[{"id": 1, "title": "never stored"}]"#)
        #expect(await Self.populateInACancelledTask(response, into: store) == .cancelled)
        #expect(Self.files(at: path) == [])

        let result = try await store.populate(response, entity: "Post")
        #expect(result.records.count == 1)
        #expect(
            try RecordStore(path: path, schema: StoreSchemas.blog()).fetchOne("Post", primaryKey: 1)?["title"]
                as String? == "never stored")
    }

    @Test func aStoreWhoseNewFileAnotherStoreRemovedMakesItAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let creator = try RecordStore(path: path, schema: StoreSchemas.blog())
        let other = try RecordStore(path: path, schema: StoreSchemas.blog())
        #expect(try other.fetch("Tag").isEmpty)
        expectClosureFailure(causedBy: Injected.self) { try creator.write { _ in throw Injected() } }
        #expect(Self.files(at: path) == [])

        try other.write { try $0.insert("Tag", ["_entity": "Tag", "name": "swift"]) }
        #expect(try other.fetch("Tag").map { $0["name"] as String? } == ["swift"])
        #expect(try creator.fetch("Tag").map { $0["name"] as String? } == ["swift"])
        #expect(try RecordStore(path: path, schema: StoreSchemas.blog()).count("Tag") == 1)
    }

    // MARK: - An existing store

    @Test func openingAndReadingWithANewerSchemaNeverMigrates() throws {
        let fixture = try MigratingStore()
        let (path, v2, before, catalog) = (fixture.path, fixture.v2, fixture.before, fixture.catalog)
        do {
            let store = try RecordStore(path: path, schema: v2)
            let post = try #require(try store.fetchOne("Post", primaryKey: 1))
            #expect(post["title"] as String? == "First")
            #expect(post["summary"] as String? == nil)
            #expect(post.related("author")?["name"] as String? == "Ann")
            #expect(try store.fetch("Tag").isEmpty)
            #expect(try store.exportJSON(entity: "Tag") == .array([]))
            let posts = try #require(try store.exportJSON(entity: "Post").arrayValue)
            #expect(posts.first?["summary"] == .null)
            #expect(try Self.catalog(at: path) == catalog)
        }
        #expect(try FileSnapshot(path: path) == before)
    }

    @Test func aFailedFirstWriteWithANewerSchemaLeavesTheOldLayout() throws {
        let fixture = try MigratingStore()
        let (path, v2, before, catalog) = (fixture.path, fixture.v2, fixture.before, fixture.catalog)
        do {
            let store = try RecordStore(path: path, schema: v2)
            expectClosureFailure(causedBy: Injected.self) {
                try store.write { connection in
                    // The migration ran in this transaction: the new column is there.
                    try connection.execute("UPDATE \"Post\" SET \"summary\" = 'lost'")
                    throw Injected()
                }
            }
            #expect(try Self.catalog(at: path) == catalog)
            #expect(try store.fetchOne("Post", primaryKey: 1)?["summary"] as String? == nil)
        }
        #expect(try FileSnapshot(path: path) == before)

        // The next write that succeeds migrates.
        let store = try RecordStore(path: path, schema: v2)
        try store.write { try $0.execute("UPDATE \"Post\" SET \"summary\" = 'kept'") }
        #expect(try store.fetchOne("Post", primaryKey: 1)?["summary"] as String? == "kept")
        #expect(try store.tableNames().contains("Tag"))
    }

    @Test func aFailedFirstPopulationWithANewerSchemaLeavesTheOldLayout() async throws {
        let fixture = try MigratingStore()
        let (path, v2, before) = (fixture.path, fixture.v2, fixture.before)
        do {
            let store = try RecordStore(path: path, schema: v2)
            let response = try JSONReader().read(#"[{"id": 2, "title": "never stored", "summary": "s"}]"#)
            #expect(await Self.populateInACancelledTask(response, into: store) == .cancelled)
        }
        #expect(try FileSnapshot(path: path) == before)
    }
}
