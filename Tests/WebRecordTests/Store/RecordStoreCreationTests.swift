import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Opening a new store: tables, columns, indexes, pragmas, file mode and metadata.
@Suite struct RecordStoreCreationTests {
    @Test func createsOneTablePerRootEntityWithSystemAndAttributeColumns() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables

        #expect(
            try store.tableNames() == [
                "Comment", "Passport", "Post", "Profile", "Tag", "User", "_Post_tags", "_webrecord_metadata",
            ])
        let post = try store.columns(of: "Post")
        #expect(post.map(\.name) == ["_id", "_entity", "id", "title", "date", "rating", "author"])
        #expect(post.map(\.type) == ["INTEGER", "TEXT", "INTEGER", "TEXT", "TEXT", "REAL", "INTEGER"])
        // `_id` is the rowid primary key, `_entity` is required.
        let info = try store.rows("PRAGMA table_info(\"Post\")")
        #expect(info[0][5] == .integer(1))
        #expect(info[1][3] == .integer(1))
    }

    /// A store in a directory that does not exist: the error names the directory, and nothing
    /// is made.
    @Test func aMissingDirectoryIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("no/such/store.sqlite")
        let error = try await #require(throws: WebRecordError.self) {
            let store = try RecordStore(path: path, schema: StoreSchemas.blog())
            try store.write { _ in }
        }
        #expect(error.code == .storeError)
        #expect(error.message.contains("the directory '\(directory.path("no/such"))' does not exist"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("no")))
    }

    @Test func columnTypesFollowTheAttributeTypes() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.samples())
        try store.write { _ in }  // the first write transaction creates the tables
        let types = Dictionary(uniqueKeysWithValues: try store.columns(of: "Sample").map { ($0.name, $0.type) })
        #expect(
            types == [
                "_id": "INTEGER", "_entity": "TEXT", "id": "INTEGER", "name": "TEXT", "count": "INTEGER",
                "ratio": "REAL", "price": "TEXT", "flag": "INTEGER", "when": "TEXT", "payload": "BLOB",
                "token": "TEXT", "link": "TEXT", "extra": "TEXT",
            ])
    }

    @Test func indexesThePrimaryKeyUniquelyAndIndexedAndForeignKeyColumns() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables

        #expect(try store.indexNames(on: "Post") == ["_index_Post_author", "_index_Post_title", "_pk_Post"])
        #expect(try store.indexedColumns("_pk_Post") == ["id"])
        #expect(try store.indexedColumns("_index_Post_title") == ["title"])
        #expect(try store.indexedColumns("_index_Post_author") == ["author"])
        let unique = try store.rows("SELECT \"unique\" FROM pragma_index_list('Post') WHERE name = '_pk_Post'")
        #expect(unique == [[.integer(1)]])
        // A relationship primary key is indexed once, by `_pk_`.
        #expect(try store.indexNames(on: "Profile") == ["_pk_Profile"])
        #expect(try store.indexedColumns("_pk_Profile") == ["user"])
    }

    @Test func aDuplicatePrimaryKeyIsRefusedByTheUniqueIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables
        try store.write { try $0.insert("Post", ["_entity": "Post", "id": 1]) }
        let error = #expect(throws: WebRecordError.self) {
            try store.write { try $0.insert("Post", ["_entity": "Post", "id": 1]) }
        }
        #expect(error?.code == .storeError)
        #expect(error.flatMap(\.sqliteCode).map { $0 & 0xFF } == 19)  // SQLITE_CONSTRAINT
        #expect(try store.count("Post") == 1)
    }

    @Test func aFileStoreUsesWALAndForeignKeys() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables
        #expect(try store.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try store.scalar("PRAGMA foreign_keys") == .integer(1))
        #expect(try store.write { try $0.scalar("PRAGMA foreign_keys") } == .integer(1))
        #expect(store.path == directory.path())
    }

    @Test func aNewFileIsReadableAndWritableByItsOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let store = try RecordStore(path: path, schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables
        try store.write { try $0.insert("Tag", ["_entity": "Tag", "name": "swift"]) }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.uint16Value == 0o600)
        // SQLite gives the WAL file the database file's permissions.
        let walMode = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.posixPermissions] as? NSNumber
        #expect(walMode?.uint16Value == 0o600)
    }

    @Test func theFileModeIsConfigurable() throws {
        let directory = try TemporaryDirectory()
        var configuration = RecordStore.Configuration()
        configuration.fileMode = 0o640
        try RecordStore(path: directory.path(), schema: StoreSchemas.blog(), configuration: configuration).write { _ in
        }
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path())[.posixPermissions] as? NSNumber
        #expect(mode?.uint16Value == 0o640)
    }

    @Test func theMetadataTableRecordsTheLayout() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { _ in }  // the first write transaction creates the tables
        #expect(try store.columns(of: "_webrecord_metadata").map(\.name) == ["key", "value"])
        let text = try #require(try store.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text)
        let layout = try #require(try JSONReader().read(text).objectValue)
        #expect(layout["version"] == .integer(1))
        let post = try #require(layout["tables"]?.objectValue?["Post"]?.objectValue)
        #expect(post["primaryKey"] == .array(["id"]))
        #expect(post["columns"]?.objectValue?["date"] == .string("attribute date"))
        #expect(post["columns"]?.objectValue?["author"] == .string("foreign key to User"))
        #expect(layout["joinTables"]?.objectValue?["_Post_tags"] != nil)
    }

    @Test func anInMemoryStoreWorks() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        #expect(store.path == nil)
        #expect(try store.tableNames().contains("Post"))
        try store.write { try $0.insert("Post", ["_entity": "Post", "id": 7, "title": "In memory"]) }
        let post = try #require(try store.fetchOne("Post", primaryKey: 7))
        #expect(post["title"] as String? == "In memory")
        #expect(try store.scalar("PRAGMA journal_mode") == .text("memory"))
    }

    @Test func twoInMemoryStoresAreSeparate() throws {
        let first = try RecordStore(inMemory: StoreSchemas.blog())
        let second = try RecordStore(inMemory: StoreSchemas.blog())
        try first.write { try $0.insert("Tag", ["_entity": "Tag", "name": "only-here"]) }
        #expect(try first.count("Tag") == 1)
        #expect(try second.count("Tag") == 0)
    }

    @Test func reopeningAnUnchangedSchemaKeepsTheData() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
            try store.write { _ in }  // the first write transaction creates the tables
            try store.write { try $0.insert("User", ["_entity": "User", "id": "u1", "name": "Ann"]) }
        }
        let reopened = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        #expect(try reopened.fetchOne("User", primaryKey: "u1")?["name"] as String? == "Ann")
    }

    @Test func aPathThatCannotBeOpenedIsAStoreError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("missing/dir/store.sqlite").path
        let error = #expect(throws: WebRecordError.self) {
            try RecordStore(path: path, schema: StoreSchemas.blog())
        }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains(path) == true)
        #expect(error?.sqliteCode != nil)
    }
}

/// One table for a whole entity hierarchy.
@Suite struct StorageLayoutHierarchyTests {
    @Test func oneTableHoldsTheHierarchyWithAnEntityColumn() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.links())
        try store.write { _ in }  // the first write transaction creates the tables
        #expect(try store.tableNames() == ["Link", "_webrecord_metadata"])
        #expect(
            try store.columns(of: "Link").map(\.name) == [
                "_id", "_entity", "id", "kind", "inwardIssue", "outwardIssue",
            ])
        #expect(try store.indexedColumns("_pk_Link") == ["id"])

        try store.write { connection in
            try connection.insert("Link", ["_entity": "InwardLink", "id": 1, "kind": "inward", "inwardIssue": "JRA-1"])
            try connection.insert(
                "Link", ["_entity": "OutwardLink", "id": 2, "kind": "outward", "outwardIssue": "JRA-2"])
        }
        let entities = try store.rows("SELECT \"_entity\" FROM \"Link\" ORDER BY \"id\"").map { $0[0] }
        #expect(entities == [.text("InwardLink"), .text("OutwardLink")])
        let links = try store.fetch("Link", orderBy: [.ascending("id")])
        #expect(links.map(\.entity.name) == ["InwardLink", "OutwardLink"])
        #expect(links[0]["inwardIssue"] as String? == "JRA-1")
        #expect(links[1]["outwardIssue"] as String? == "JRA-2")
        // A sub-entity does not see its sibling's attributes.
        let sibling: String? = links[0]["outwardIssue"]
        #expect(sibling == nil)
    }

    @Test func subEntitiesShareTheParentsPrimaryKeyIndex() throws {
        let store = try RecordStore(inMemory: StoreSchemas.links())
        try store.write { try $0.insert("Link", ["_entity": "InwardLink", "id": 1]) }
        let error = #expect(throws: WebRecordError.self) {
            try store.write { try $0.insert("Link", ["_entity": "OutwardLink", "id": 1]) }
        }
        #expect(error?.code == .storeError)
    }
}

/// Where each kind of relationship keeps its links.
@Suite struct StorageLayoutRelationshipTests {
    @Test func oneToManyKeepsTheForeignKeyOnTheToOneSide() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        #expect(try store.columns(of: "Post").map(\.name).contains("author"))
        #expect(try !store.columns(of: "User").map(\.name).contains("posts"))
        let keys = try store.rows("SELECT \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list('Post')")
        #expect(keys == [[.text("User"), .text("author"), .text("_id"), .text("SET NULL")]])
    }

    @Test func orderedOneToManyAddsAPositionColumnBesideTheForeignKey() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        let comment = try store.columns(of: "Comment")
        #expect(comment.map(\.name) == ["_id", "_entity", "id", "body", "post", "_position_post"])
        #expect(comment.last?.type == "INTEGER")
        #expect(try !store.columns(of: "Post").map(\.name).contains("comments"))
    }

    @Test func oneToOneKeyLivesOnTheSideWhosePrimaryKeyIsTheRelationship() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        #expect(try store.columns(of: "Profile").map(\.name) == ["_id", "_entity", "bio", "user"])
        #expect(try !store.columns(of: "User").map(\.name).contains("profile"))
    }

    @Test func oneToOneKeyOtherwiseLivesOnTheSideThatSortsFirst() throws {
        // "Passport.holder" sorts before "User.passport".
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        #expect(try store.columns(of: "Passport").map(\.name).contains("holder"))
        #expect(try !store.columns(of: "User").map(\.name).contains("passport"))
        #expect(try store.columns(of: "User").map(\.name) == ["_id", "_entity", "id", "name"])
    }

    @Test func manyToManyIsAJoinTableOwnedByTheSideThatSortsFirst() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        #expect(try store.columns(of: "_Post_tags").map(\.name) == ["owner", "target"])
        let keys = try store.rows(
            "SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list('_Post_tags') ORDER BY \"from\"")
        #expect(
            keys == [
                [.text("owner"), .text("Post"), .text("CASCADE")],
                [.text("target"), .text("Tag"), .text("CASCADE")],
            ])
        #expect(try store.indexNames(on: "_Post_tags") == ["_index__Post_tags_target"])
        #expect(try !store.tableNames().contains("_Tag_posts"))
    }

    @Test func orderedManyToManyHasPositionColumns() throws {
        let schema = try Schema(
            json: """
                {
                  "entities": {
                    "Playlist": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "integer" } },
                      "relationships": { "songs": { "destination": "Song", "toMany": true, "ordered": true, "inverse": "playlists" } }
                    },
                    "Song": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "integer" } },
                      "relationships": { "playlists": { "destination": "Playlist", "toMany": true, "ordered": true, "inverse": "songs" } }
                    }
                  }
                }
                """)
        let store = try RecordStore(inMemory: schema)
        #expect(
            try store.columns(of: "_Playlist_songs").map(\.name) == ["owner", "target", "position", "inverse_position"])
    }

    @Test func toManyWithoutInverseIsAJoinTableAndToOneWithoutInverseAForeignKey() throws {
        let schema = try Schema(
            json: """
                {
                  "entities": {
                    "Venue": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "string" } },
                      "relationships": {
                        "categories": { "destination": "Category", "toMany": true },
                        "primaryCategory": { "destination": "Category" }
                      }
                    },
                    "Category": { "primaryKey": "id", "attributes": { "id": { "type": "string" } } }
                  }
                }
                """)
        let store = try RecordStore(inMemory: schema)
        #expect(try store.columns(of: "_Venue_categories").map(\.name) == ["owner", "target"])
        #expect(try store.columns(of: "Venue").map(\.name) == ["_id", "_entity", "id", "primaryCategory"])
        #expect(try store.columns(of: "Category").map(\.name) == ["_id", "_entity", "id"])
    }
}
