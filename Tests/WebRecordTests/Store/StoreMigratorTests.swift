import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Reopening a store with a changed schema: additive changes migrate in place, anything else
/// is an `incompatibleStore` error that leaves the file as it was.
@Suite struct StoreMigratorTests {
    /// Version 1 of a schema; the tests change it in one place at a time.
    static func schema(
        postAttributes: String =
            #""id": { "type": "integer" }, "title": { "type": "string" }, "date": { "type": "date" }"#,
        postKey: String = "id",
        authorDestination: String = "User",
        extraPostRelationships: String = "",
        extraUserRelationships: String = "",
        extraEntities: String = ""
    ) throws -> Schema {
        try Schema(
            json: """
                {
                  "entities": {
                    "Post": {
                      "primaryKey": "\(postKey)",
                      "attributes": { \(postAttributes) },
                      "relationships": {
                        "author": { "destination": "\(authorDestination)", "inverse": "posts" }\(extraPostRelationships)
                      }
                    },
                    "\(authorDestination)": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
                      "relationships": {
                        "posts": { "destination": "Post", "toMany": true, "inverse": "author" }\(extraUserRelationships)
                      }
                    }\(extraEntities)
                  }
                }
                """)
    }

    /// Creates a store with `schema` holding one user and one post, and closes it.
    static func makeStore(at path: String, schema: Schema) throws {
        let store = try RecordStore(path: path, schema: schema)
        try store.write { connection in
            let user = try connection.insertRow("User", ["_entity": "User", "id": "u1", "name": "Ann"])
            try connection.insert(
                "Post",
                [
                    "_entity": "Post", "id": 1, "title": "First", "date": "2012-11-21T02:33:42.000000000Z",
                    "author": user,
                ])
        }
    }

    // MARK: - Additive changes

    @Test func aNewAttributeRelationshipAndEntityAreAddedInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())

        let v2 = try Self.schema(
            postAttributes:
                #""id": { "type": "integer" }, "title": { "type": "string" }, "date": { "type": "date" }, "summary": { "type": "string", "indexed": true }"#,
            extraPostRelationships:
                #", "editor": { "destination": "User", "inverse": "edited" }, "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" }"#,
            extraUserRelationships: #", "edited": { "destination": "Post", "toMany": true, "inverse": "editor" }"#,
            extraEntities:
                #", "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } }, "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } } }"#
        )
        let store = try RecordStore(path: path, schema: v2)
        try store.write { _ in }  // the first write transaction migrates

        #expect(
            try store.columns(of: "Post").map(\.name) == [
                "_id", "_entity", "id", "title", "date", "author", "summary", "editor",
            ])
        #expect(try store.tableNames().contains("Tag"))
        #expect(try store.columns(of: "_Post_tags").map(\.name) == ["owner", "target"])
        #expect(
            try store.indexNames(on: "Post") == [
                "_index_Post_author", "_index_Post_editor", "_index_Post_summary", "_pk_Post",
            ])
        #expect(try store.indexNames(on: "Tag") == ["_pk_Tag"])

        // The old data is still there and the new columns are usable.
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(post["title"] as String? == "First")
        #expect(post["summary"] as String? == nil)
        #expect(post.related("author")?["name"] as String? == "Ann")
        try store.write { connection in
            try connection.execute("UPDATE \"Post\" SET \"summary\" = ?, \"editor\" = \"author\"", [.text("short")])
        }
        let updated = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(updated["summary"] as String? == "short")
        #expect(updated.related("editor")?.primaryKeyValue == "u1")

        // The stored layout now records the additions.
        let text = try #require(try store.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text)
        let layout = try JSONReader().read(text)
        #expect(layout.value(atKeyPath: "tables.Post.columns.summary") == .string("attribute string"))
        #expect(layout.value(atKeyPath: "tables.Tag") != nil)
    }

    @Test func aNewSubEntityAddsItsColumnsToTheRootTable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let v1 = try Schema(
            json: """
                { "entities": {
                    "Link": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } } },
                    "InwardLink": { "parent": "Link", "attributes": { "inwardIssue": { "type": "string" } } }
                } }
                """)
        do {
            let store = try RecordStore(path: path, schema: v1)
            try store.write { try $0.insert("Link", ["_entity": "InwardLink", "id": 1, "inwardIssue": "A-1"]) }
        }
        let store = try RecordStore(path: path, schema: StoreSchemas.links())
        try store.write { _ in }
        #expect(
            try store.columns(of: "Link").map(\.name) == [
                "_id", "_entity", "id", "inwardIssue", "kind", "outwardIssue",
            ])
        #expect(try store.fetch("InwardLink").first?["inwardIssue"] as String? == "A-1")
    }

    @Test func anAttributeNewlyMarkedIndexedGetsItsIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        let indexed = try Self.schema(
            postAttributes:
                #""id": { "type": "integer" }, "title": { "type": "string", "indexed": true }, "date": { "type": "date" }"#
        )
        let store = try RecordStore(path: path, schema: indexed)
        try store.write { _ in }
        #expect(try store.indexNames(on: "Post") == ["_index_Post_author", "_index_Post_title", "_pk_Post"])
        #expect(try store.indexedColumns("_index_Post_title") == ["title"])
        #expect(try store.fetch("Post", where: "title = ?", arguments: ["First"]).count == 1)
    }

    @Test func reopeningWithTheSameSchemaWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        let before = try FileSnapshot(path: path)
        var configuration = RecordStore.Configuration()
        let log = SQLLog()
        configuration.sqlObserver = log.observer
        do {
            _ = try RecordStore(path: path, schema: Self.schema(), configuration: configuration)
        }
        #expect(try FileSnapshot(path: path).bytes == before.bytes)
        #expect(!log.statements.contains { $0.hasPrefix("CREATE") || $0.hasPrefix("ALTER") || $0.hasPrefix("INSERT") })
    }

    @Test func aRemovedAttributeKeepsItsColumnAndCannotComeBackWithAnotherType() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())

        let withoutTitle = try Self.schema(postAttributes: #""id": { "type": "integer" }, "date": { "type": "date" }"#)
        do {
            let store = try RecordStore(path: path, schema: withoutTitle)
            #expect(try store.columns(of: "Post").map(\.name).contains("title"))
            let post = try #require(try store.fetchOne("Post", primaryKey: 1))
            #expect(post["title"] as String? == nil)  // not an attribute any more
            #expect(post.storedValues["title"] == .text("First"))
        }
        // Back with the same type: the data is still there.
        do {
            let store = try RecordStore(path: path, schema: Self.schema())
            #expect(try store.fetchOne("Post", primaryKey: 1)?["title"] as String? == "First")
        }
        // Back with another type: refused.
        let before = try FileSnapshot(path: path)
        let titleAsInteger = try Self.schema(
            postAttributes: #""id": { "type": "integer" }, "title": { "type": "integer" }, "date": { "type": "date" }"#)
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: titleAsInteger) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("Post.title: changed from attribute string to attribute integer") == true)
        #expect(try FileSnapshot(path: path) == before)
    }

    // MARK: - Incompatible changes

    struct IncompatibleChange: Sendable, CustomTestStringConvertible {
        let name: String
        let schema: @Sendable () throws -> Schema
        let fragments: [String]
        var testDescription: String { name }
    }

    static let incompatibleChanges: [IncompatibleChange] = [
        IncompatibleChange(
            name: "attribute type change",
            schema: {
                try schema(
                    postAttributes:
                        #""id": { "type": "integer" }, "title": { "type": "string" }, "date": { "type": "string" }"#)
            },
            fragments: ["Post.date", "attribute date", "attribute string"]),
        IncompatibleChange(
            name: "primary-key change",
            schema: { try schema(postKey: "title") },
            fragments: ["Post", "primary key", "from id to title"]),
        IncompatibleChange(
            name: "primary-key type change",
            schema: {
                try schema(
                    postAttributes:
                        #""id": { "type": "string" }, "title": { "type": "string" }, "date": { "type": "date" }"#)
            },
            fragments: ["Post.id", "attribute integer", "attribute string"]),
        IncompatibleChange(
            name: "relationship destination change",
            schema: { try schema(authorDestination: "Person") },
            fragments: ["Post.author", "foreign key to User", "foreign key to Person"]),
    ]

    @Test(arguments: incompatibleChanges)
    func anIncompatibleChangeIsAnErrorNamingItAndLeavesTheFileUntouched(change: IncompatibleChange) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        // The first store is closed: its WAL was checkpointed into the file and removed.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let before = try FileSnapshot(path: path)

        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: change.schema()) }
        #expect(error?.code == .incompatibleStore)
        let message = error?.message ?? ""
        #expect(message.contains("was not modified"))
        for fragment in change.fragments {
            #expect(message.contains(fragment), "\(message) should mention \(fragment)")
        }

        #expect(try FileSnapshot(path: path) == before)
        // And it still opens with the schema it was made for, its data intact.
        let store = try RecordStore(path: path, schema: Self.schema())
        #expect(try store.fetchOne("Post", primaryKey: 1)?["title"] as String? == "First")
    }

    @Test func aChangedJoinTableIsIncompatible() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        func schema(ordered: Bool) throws -> Schema {
            try Schema(
                json: """
                    { "entities": {
                        "Post": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } },
                                  "relationships": { "tags": { "destination": "Tag", "toMany": true, "ordered": \(ordered), "inverse": "posts" } } },
                        "Tag": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } },
                                 "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } } }
                    } }
                    """)
        }
        do { try RecordStore(path: path, schema: schema(ordered: false)).write { _ in } }
        let before = try FileSnapshot(path: path)
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: schema(ordered: true)) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("_Post_tags") == true)
        #expect(try FileSnapshot(path: path) == before)
    }

    @Test func everyIncompatibleChangeIsNamedAtOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        let changed = try Self.schema(
            postAttributes: #""id": { "type": "integer" }, "title": { "type": "double" }, "date": { "type": "string" }"#
        )
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: changed) }
        #expect(error?.message.contains("Post.title: changed from attribute string to attribute double") == true)
        #expect(error?.message.contains("Post.date: changed from attribute date to attribute string") == true)
    }

    @Test func aDatabaseWithForeignTablesIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {
            let connection = try Connection(path: path)
            try connection.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
        }
        let before = try FileSnapshot(path: path)
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: Self.schema()) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("did not create") == true)
        #expect(try FileSnapshot(path: path) == before)
    }

    @Test func aFileThatIsNotADatabaseIsAStoreErrorAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Data(String(repeating: "not a database, just some text\n", count: 100).utf8).write(
            to: URL(fileURLWithPath: path))
        let before = try FileSnapshot(path: path)
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: Self.schema()) }
        #expect(error?.code == .storeError)
        #expect(error.flatMap(\.sqliteCode).map { $0 & 0xFF } == 26)  // SQLITE_NOTADB
        #expect(try FileSnapshot(path: path) == before)
    }

    @Test func anUnsupportedLayoutVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        do {
            let connection = try Connection(path: path)
            let text = try #require(
                try connection.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text)
            try connection.execute(
                "UPDATE _webrecord_metadata SET value = ? WHERE key = 'layout'",
                [.text(text.replacingOccurrences(of: #""version":1"#, with: #""version":99"#))])
        }
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: Self.schema()) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("99") == true)
    }
}
