import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// The throwaway store that records its SQL.
@Suite struct RecordingStoreTests {
    @Test func recordsEveryStatementInOrder() throws {
        let test = try RecordingStore(schema: StoreSchemas.blog())
        // Opening created the tables.
        #expect(test.statements.contains { $0.hasPrefix("CREATE TABLE \"Post\"") })
        test.resetStatements()
        #expect(test.statements.isEmpty)

        try test.store.write { try $0.insert("Tag", ["_entity": "Tag", "name": "swift"]) }
        _ = try test.store.fetch("Tag")
        _ = try test.store.fetch("Tag")
        _ = try test.store.count("Tag")

        #expect(
            test.statements == [
                "BEGIN IMMEDIATE",
                "INSERT INTO \"Tag\" (\"_entity\", \"name\") VALUES (?, ?)",
                "COMMIT",
                // Every read names the schema's entities, a root's too: the table may keep the
                // rows of an entity the schema no longer has (StorageLayout.md, "Removed: kept").
                "SELECT * FROM \"Tag\" WHERE \"_entity\" IN (?) ORDER BY \"_id\" ASC",
                "SELECT * FROM \"Tag\" WHERE \"_entity\" IN (?) ORDER BY \"_id\" ASC",
                "SELECT count(*) FROM \"Tag\" WHERE \"_entity\" IN (?)",
            ])
        #expect(test.statements(matching: "select").count == 3)
        #expect(test.statements(matching: "INSERT").count == 1)
    }

    @Test func countsTheQueriesOfRelationshipNavigation() throws {
        let test = try RecordingStore(schema: StoreSchemas.blog())
        try test.store.write { connection in
            let user = try connection.insertRow("User", ["_entity": "User", "id": "u1"])
            try connection.insert("Post", ["_entity": "Post", "id": 1, "author": user])
            try connection.insert("Post", ["_entity": "Post", "id": 2, "author": user])
        }
        let user = try #require(try test.store.fetchOne("User", primaryKey: "u1"))
        test.resetStatements()
        #expect(user.relatedRecords("posts").count == 2)
        #expect(test.statements(matching: "SELECT").count == 1)
        #expect(test.statements(matching: "SELECT").first?.contains("WHERE \"author\" = ?") == true)
    }

    @Test func aFileStoreIsRemovedWhenReleased() throws {
        var test: RecordingStore? = try RecordingStore(schema: StoreSchemas.blog())
        let path = try #require(test?.path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try test?.store.scalar("PRAGMA journal_mode") == .text("wal"))
        test = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anInMemoryStoreHasNoPath() throws {
        let test = try RecordingStore(schema: StoreSchemas.blog(), inMemory: true)
        #expect(test.path == nil)
        #expect(test.store.path == nil)
        test.resetStatements()
        #expect(try test.store.count("Post") == 0)
        #expect(test.statements == ["SELECT count(*) FROM \"Post\" WHERE \"_entity\" IN (?)"])
    }
}
