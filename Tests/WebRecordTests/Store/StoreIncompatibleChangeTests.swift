import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Every schema change that would move stored data out of WebRecord's sight, or that SQLite
/// would refuse, is an `incompatibleStore` error naming what changed, and the file keeps every
/// byte.
@Suite struct StoreIncompatibleChangeTests {
    /// A schema with `Post` and `User` (and more entities in `extra`), whose relationships are
    /// given as JSON object members.
    static func schema(
        postAttributes: String = #""id": { "type": "integer" }, "title": { "type": "string" }"#,
        post: String = #""author": { "destination": "User", "inverse": "posts" }"#,
        user: String = #""posts": { "destination": "Post", "toMany": true, "inverse": "author" }"#,
        extra: String = ""
    ) throws -> Schema {
        try Schema(
            json: """
                { "entities": {
                    "Post": { "primaryKey": "id", "attributes": { \(postAttributes) }, "relationships": { \(post) } },
                    "User": { "primaryKey": "id", "attributes": { "id": { "type": "string" } }, "relationships": { \(user) } }\(extra)
                } }
                """)
    }

    struct Change: Sendable, CustomTestStringConvertible {
        let name: String
        let before: @Sendable () throws -> Schema
        let after: @Sendable () throws -> Schema
        let fragments: [String]
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        Change(
            name: "a one-to-many loses its inverse (foreign key to join table)",
            before: { try schema() },
            after: { try schema(post: "", user: #""posts": { "destination": "Post", "toMany": true }"#) },
            fragments: [
                "User.posts: relationship stored as to-many in foreign key column Post.author",
                "join table _User_posts",
            ]),
        Change(
            name: "a to-one becomes to-many",
            before: { try schema() },
            after: { try schema(post: #""author": { "destination": "User", "toMany": true, "inverse": "posts" }"#) },
            fragments: [
                "Post.author: relationship stored as to-one in foreign key column Post.author",
                "to-many in join table _Post_author",
            ]),
        Change(
            name: "a to-many becomes to-one",
            before: { try schema() },
            after: { try schema(user: #""posts": { "destination": "Post", "inverse": "author" }"#) },
            fragments: [
                "User.posts: relationship stored as to-many in foreign key column Post.author",
                "to-one in foreign key column Post.author",
            ]),
        Change(
            name: "a one-to-many becomes ordered",
            before: { try schema() },
            after: {
                try schema(
                    user: #""posts": { "destination": "Post", "toMany": true, "ordered": true, "inverse": "author" }"#)
            },
            fragments: ["User.posts", "ordered by Post._position_author"]),
        Change(
            name: "an ordered one-to-many becomes unordered",
            before: {
                try schema(
                    user: #""posts": { "destination": "Post", "toMany": true, "ordered": true, "inverse": "author" }"#)
            },
            after: { try schema() },
            fragments: [
                "User.posts: relationship stored as to-many in foreign key column Post.author ordered by Post._position_author"
            ]),
        Change(
            name: "a many-to-many changes its owning side (a rename sorts the other side first)",
            before: {
                try schema(
                    user:
                        #""posts": { "destination": "Post", "toMany": true, "inverse": "author" }, "followers": { "destination": "User", "toMany": true, "inverse": "following" }, "following": { "destination": "User", "toMany": true, "inverse": "followers" }"#
                )
            },
            after: {
                try schema(
                    user:
                        #""posts": { "destination": "Post", "toMany": true, "inverse": "author" }, "zfollowers": { "destination": "User", "toMany": true, "inverse": "following" }, "following": { "destination": "User", "toMany": true, "inverse": "zfollowers" }"#
                )
            },
            fragments: [
                "User.following: relationship stored as to-many in join table _User_followers as target",
                "join table _User_following as owner",
            ]),
        Change(
            name: "an entity moves into another hierarchy",
            before: { try schema(extra: #", "Note": { "attributes": { "body": { "type": "string" } } }"#) },
            after: {
                try schema(extra: #", "Note": { "parent": "User", "attributes": { "body": { "type": "string" } } }"#)
            },
            fragments: ["Note: records moved from table Note to table User"]),
        Change(
            name: "an entity renamed only in case",
            before: {
                try schema(extra: #", "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }"#)
            },
            after: {
                try schema(extra: #", "tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }"#)
            },
            fragments: ["tag: table name differs only in case from the stored table Tag"]),
        Change(
            name: "an attribute renamed only in case",
            before: { try schema() },
            after: { try schema(postAttributes: #""id": { "type": "integer" }, "Title": { "type": "string" }"#) },
            fragments: ["Post.Title: column name differs only in case from the stored column Post.title"]),
        Change(
            name: "a sub-entity's attribute changes type",
            before: {
                try schema(extra: #", "Draft": { "parent": "Post", "attributes": { "words": { "type": "integer" } } }"#)
            },
            after: {
                try schema(extra: #", "Draft": { "parent": "Post", "attributes": { "words": { "type": "string" } } }"#)
            },
            fragments: ["Draft.words (column Post.words): changed from attribute integer to attribute string"]),
    ]

    @Test(arguments: changes)
    func anIncompatibleChangeIsNamedAndTheFileKeepsEveryByte(change: Change) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: change.before())
        try Self.expectRefused(path: path, schema: change.after, fragments: change.fragments)
        try Self.expectPostLinkedToItsAuthor(path: path, schema: change.before())
    }

    /// Makes a store holding user u1 and post 1, whose author is u1.
    static func makeStore(at path: String, schema: Schema) throws {
        try RecordStore(path: path, schema: schema).write { connection in
            let user = try connection.insertRow("User", ["_entity": "User", "id": "u1"])
            try connection.insert("Post", ["_entity": "Post", "id": 1, "title": "First", "author": user])
        }
    }

    /// Opening the store at `path` with `schema` is `incompatibleStore`, its message holds
    /// each fragment, and the file keeps every byte.
    static func expectRefused(path: String, schema: () throws -> Schema, fragments: [String]) throws {
        let before = try FileSnapshot(path: path)
        let error = #expect(throws: WebRecordError.self) { try RecordStore(path: path, schema: schema()) }
        #expect(error?.code == .incompatibleStore)
        let message = error?.message ?? ""
        #expect(message.contains("the store was not modified"))
        for fragment in fragments {
            #expect(message.contains(fragment), "\(message) should contain \(fragment)")
        }
        #expect(try FileSnapshot(path: path) == before)
    }

    /// The store still opens with `schema`, post 1 still linked to u1.
    static func expectPostLinkedToItsAuthor(path: String, schema: Schema) throws {
        let store = try RecordStore(path: path, schema: schema)
        #expect(try store.fetchOne("Post", primaryKey: 1)?.related("author")?.primaryKeyValue == "u1")
    }

    @Test func aRemovedRelationshipCannotComeBackStoredAnotherWay() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStore(at: path, schema: Self.schema())
        // Without the relationship: compatible, its column and its record stay.
        try RecordStore(path: path, schema: Self.schema(post: "", user: "")).write { _ in }
        try Self.expectRefused(
            path: path,
            schema: {
                try Self.schema(
                    post: #""author": { "destination": "User", "toMany": true, "inverse": "posts" }"#,
                    user: #""posts": { "destination": "Post", "toMany": true, "inverse": "author" }"#)
            },
            fragments: ["Post.author: relationship stored as to-one in foreign key column Post.author"])
        // Back as it was: the links are still there.
        try Self.expectPostLinkedToItsAuthor(path: path, schema: Self.schema())
    }

    @Test func aStoreMadeBeforeRelationshipsWereRecordedLearnsThemOnItsNextWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try RecordStore(path: path, schema: Self.schema()).write { _ in }
        // Remove what this version records beyond the tables, as an older WebRecord wrote it.
        do {
            let connection = try Connection(path: path)
            let text = try #require(
                try connection.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text)
            var layout = try #require(try JSONReader().read(text).objectValue)
            layout["entities"] = nil
            layout["relationships"] = nil
            try connection.execute(
                "UPDATE _webrecord_metadata SET value = ? WHERE key = 'layout'",
                [.text(JSONValue.object(layout).serialized(sortedKeys: true))])
        }
        try RecordStore(path: path, schema: Self.schema()).write { _ in }
        let error = #expect(throws: WebRecordError.self) {
            try RecordStore(
                path: path, schema: Self.schema(post: "", user: #""posts": { "destination": "Post", "toMany": true }"#))
        }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("User.posts") == true)
    }
}
