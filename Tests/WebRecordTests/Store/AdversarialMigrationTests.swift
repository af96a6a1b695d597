import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Schema evolution against stored data: a store populated with one schema, reopened with
/// another. Every accepted change keeps every value the new schema can still hold (and a
/// re-sync of the same response changes nothing), every refused change is refused when the
/// store is opened with the file untouched (Docs/StorageLayout.md, "Migration").
@Suite struct AdversarialMigrationTests {
    // MARK: - Schemas and helpers

    /// A blog: one-to-many `Post.author`, ordered one-to-many `Post.comments`, many-to-many
    /// `Post.tags`. `extraPost` and `extraEntities` are appended JSON members.
    static func blog(
        postAttributes: String =
            #""id": { "type": "integer" }, "title": { "type": "string" }, "rating": { "type": "double" }"#,
        extraPostRelationships: String = "",
        extraEntities: String = ""
    ) throws -> Schema {
        try Schema(
            json: """
                { "entities": {
                    "Post": { "primaryKey": "id", "attributes": { \(postAttributes) },
                      "relationships": {
                        "author": { "destination": "User", "inverse": "posts" },
                        "comments": { "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post" },
                        "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" }\(extraPostRelationships)
                      } },
                    "User": { "primaryKey": "id", "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
                      "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "author" } } },
                    "Comment": { "primaryKey": "id", "attributes": { "id": { "type": "integer" }, "body": { "type": "string" } },
                      "relationships": { "post": { "destination": "Post", "inverse": "comments" } } },
                    "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } },
                      "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } } }\(extraEntities)
                } }
                """)
    }

    static let blogResponse = """
        [
          { "id": 1, "title": "First", "rating": 2.5, "author": { "id": "u1", "name": "Ann" },
            "comments": [ { "id": 10, "body": "a" }, { "id": 11, "body": "b" } ],
            "tags": [ { "name": "x" }, { "name": "y" } ] },
          { "id": 2, "title": "Second", "rating": 1.25, "author": "u1",
            "comments": [ { "id": 12, "body": "c" } ], "tags": [ { "name": "y" } ] }
        ]
        """

    static func response(_ text: String) throws -> JSONValue { try JSONReader().read(text) }

    static func layoutRow(_ store: RecordStore) throws -> String? {
        try store.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text
    }

    /// Every row of `table`, cut to its first `width` columns (the columns a later migration
    /// appends are left out).
    static func rows(_ store: RecordStore, _ table: String, width: Int, orderBy: String = "\"_id\"") throws
        -> [[DatabaseValue]]
    {
        try store.dump(table, orderBy: orderBy).map { Array($0.prefix(width)) }
    }

    // MARK: - Additive changes keep everything, and a re-sync is unchanged

    @Test func additiveChangesKeepEveryValueIdAndLinkAndAResyncIsUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var before: [String: [[DatabaseValue]]] = [:]
        var widths: [String: Int] = [:]
        let tables = ["Post", "User", "Comment", "Tag", "_Post_tags"]
        do {
            let store = try RecordStore(path: path, schema: Self.blog())
            let first = try store.populate(Self.response(Self.blogResponse), entity: "Post")
            #expect(first.changes.inserted == 8)  // 2 posts, 1 user, 3 comments, 2 tags
            for table in tables {
                let order = table == "_Post_tags" ? "\"owner\", \"target\"" : "\"_id\""
                before[table] = try store.dump(table, orderBy: order)
                widths[table] = try store.columns(of: table).count
            }
        }

        // v2: an optional attribute, a non-optional one with a default, a new entity and a
        // new relationship to it.
        let v2 = try Self.blog(
            postAttributes:
                #""id": { "type": "integer" }, "title": { "type": "string" }, "rating": { "type": "double" }, "summary": { "type": "string" }, "views": { "type": "integer", "optional": false, "default": 0 }"#,
            extraPostRelationships: #", "category": { "destination": "Category", "inverse": "posts" }"#,
            extraEntities:
                #", "Category": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } }, "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "category" } } }"#
        )
        let store = try RecordStore(path: path, schema: v2)
        let resync = try store.populate(Self.response(Self.blogResponse), entity: "Post")
        #expect(resync.changes.inserted == 0)
        #expect(resync.changes.updated == 0)
        #expect(resync.changes.unchanged == 8)
        #expect(resync.debugger.errors.isEmpty, "\(resync.debugger)")

        for table in tables {
            let order = table == "_Post_tags" ? "\"owner\", \"target\"" : "\"_id\""
            #expect(
                try Self.rows(store, table, width: widths[table] ?? 0, orderBy: order) == before[table],
                "\(table) changed")
        }
        // A default is applied when a record is created (Population.md, "Defaults"): the
        // stored posts were not created by the re-sync.
        #expect(
            try store.rows("SELECT \"views\", \"summary\", \"category\" FROM \"Post\"").allSatisfy {
                $0 == [.null, .null, .null]
            })
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(post.related("author")?["name"] as String? == "Ann")
        #expect(post.relatedRecords("comments", as: Record.self).map { $0["id"] as Int64? } == [10, 11])
        #expect(Set(post.relatedRecords("tags", as: Record.self).map { $0["name"] as String? ?? "" }) == ["x", "y"])
    }

    // MARK: - A removed sub-entity

    static func posts(withDrafts: Bool) throws -> Schema {
        let drafts =
            withDrafts
            ? #", "subentities": { "key": "kind", "map": { "draft": "Draft" } }"# : ""
        let draft =
            withDrafts ? #", "Draft": { "parent": "Post", "attributes": { "words": { "type": "integer" } } }"# : ""
        return try Schema(
            json: """
                { "entities": {
                    "Post": { "primaryKey": "id"\(drafts),
                      "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" }, "title": { "type": "string" } } }\(draft)
                } }
                """)
    }

    static func makeStoreWithADraft(at path: String) throws {
        let store = try RecordStore(path: path, schema: Self.posts(withDrafts: true))
        let result = try store.populate(
            Self.response(
                #"[{ "id": 1, "title": "Published" }, { "id": 2, "kind": "draft", "title": "Unfinished", "words": 5 }]"#
            ),
            entity: "Post")
        #expect(result.changes.inserted == 2)
        #expect(
            try store.rows("SELECT \"_entity\" FROM \"Post\" ORDER BY \"_id\"") == [[.text("Post")], [.text("Draft")]])
    }

    /// "Removed: kept. An entity ... that the schema no longer has keeps its table or column,
    /// with its data. WebRecord stops reading it." Removing a sub-entity is an accepted
    /// change, so its root's records must still read: the removed sub-entity's rows are not.
    @Test func aRemovedSubEntityDoesNotBreakFetchingItsRoot() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStoreWithADraft(at: path)

        let store = try RecordStore(path: path, schema: Self.posts(withDrafts: false))
        let fetched = webRecordError { try store.fetch("Post") }
        #expect(fetched == nil, "fetch(Post) failed: \(fetched.map { "\($0)" } ?? "")")
        #expect((try? store.fetch("Post"))?.map { $0["id"] as Int64? } == [1])
    }

    @Test func aRemovedSubEntityIsNotCountedOrFoundByKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStoreWithADraft(at: path)

        let store = try RecordStore(path: path, schema: Self.posts(withDrafts: false))
        // count agrees with fetch: the Draft row is not read.
        #expect(try store.count("Post") == 1)
        let found = webRecordError { try store.fetchOne("Post", primaryKey: 2) }
        #expect(found == nil, "fetchOne(Post, 2) failed: \(found.map { "\($0)" } ?? "")")
        #expect((try? store.fetchOne("Post", primaryKey: 1))?["title"] as String? == "Published")
    }

    /// The stored row of a removed sub-entity holds the key a response's Post now gives: the
    /// unique key index makes them one row, and the response's values must be stored and read
    /// back, as a record met again as another entity of its hierarchy follows the response
    /// (Population.md, "A sub-entity change").
    @Test func populatingAKeyHeldByARemovedSubEntityStoresTheResponse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeStoreWithADraft(at: path)

        let store = try RecordStore(path: path, schema: Self.posts(withDrafts: false))
        let failure = webRecordError {
            try store.populate(Self.response(#"[{ "id": 2, "title": "Finished" }]"#), entity: "Post")
        }
        #expect(failure == nil, "population failed: \(failure.map { "\($0)" } ?? "")")
        let post = try? store.fetchOne("Post", primaryKey: 2)
        #expect(post?.entity.name == "Post")
        #expect(post?["title"] as String? == "Finished")
        #expect(try store.count("Post", where: "\"id\" = 2") == 1)
    }

    // MARK: - Sub-entity keys

    /// The family schema without its `Child` branch (and `Toy`, which only `Child` uses).
    static let familyWithoutChildrenJSON = """
        {"entities": {
          "Human": {"abstract": true,
            "subentities": {"key": "kind", "map": {"parent": "Parent", "grandparent": "Grandparent"}},
            "attributes": {"name": {"type": "string", "optional": true}}},
          "Parent": {"parent": "Human", "primaryKey": "parentID", "attributes": {"parentID": {"type": "integer"}}},
          "Grandparent": {"parent": "Parent", "attributes": {"title": {"type": "string", "optional": true}}}
        }}
        """

    /// Removing a sub-entity is "Removed: kept": it is not a change of any remaining entity's
    /// primary key, so the store opens and the remaining records read as before.
    @Test func removingASubEntityThatDeclaresItsOwnKeyIsAccepted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {
            let store = try RecordStore(path: path, schema: Schema(json: subentityKeySchemaJSON))
            _ = try store.populate(Self.response(subentityKeyFamilyJSON), entity: "Human")
        }
        let opened = webRecordError {
            try RecordStore(path: path, schema: Schema(json: Self.familyWithoutChildrenJSON))
        }
        #expect(opened == nil, "refused: \(opened?.message ?? "")")
        let store = try? RecordStore(path: path, schema: Schema(json: Self.familyWithoutChildrenJSON))
        #expect(
            (try? store?.fetch("Parent", orderBy: [.ascending("parentID")]))?.map { $0["name"] as String? } == [
                "Dad", "Grandpa",
            ])
    }

    static func humans(childKey: Bool) throws -> Schema {
        try Schema(
            json: """
                {"entities": {
                  "Human": {"subentities": {"key": "kind", "map": {"child": "Child"}},
                    "attributes": {"name": {"type": "string"}}},
                  "Child": {"parent": "Human", \(childKey ? #""primaryKey": "childID","# : "")
                    "attributes": {"childID": {"type": "string"}}}
                }}
                """)
    }

    /// "the primary key changes, the root's or a sub-entity's own" is refused when the store
    /// is opened, the file untouched. A keyless sub-entity that gains a key changes its key
    /// from none to `childID`, as a keyless root gaining one does (which is refused).
    @Test func aKeylessSubEntityGainingAKeyIsRefusedWhenOpened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {
            let store = try RecordStore(path: path, schema: Self.humans(childKey: false))
            // Keyless: each import makes the child anew.
            let child = #"[{ "kind": "child", "childID": "c1", "name": "Ann" }]"#
            _ = try store.populate(Self.response(child), entity: "Human")
            _ = try store.populate(Self.response(child), entity: "Human")
            #expect(try store.count("Child") == 2)
        }
        let before = try FileSnapshot(path: path)
        let error = webRecordError { try RecordStore(path: path, schema: Self.humans(childKey: true)) }
        #expect(error?.code == .incompatibleStore)
        #expect(
            error?.message.contains("Child: primary key changed from (none) to childID") == true,
            "\(String(describing: error))")
        #expect(try FileSnapshot(path: path) == before)
    }

    /// The same for a root: a keyless root gaining a key is refused at open (passes).
    @Test func aKeylessRootGainingAKeyIsRefusedWhenOpened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        func notes(keyed: Bool) throws -> Schema {
            try Schema(
                json: """
                    {"entities": {"Note": {\(keyed ? #""primaryKey": "code","# : "") "attributes": {"code": {"type": "string"}}}}}
                    """)
        }
        do {
            let store = try RecordStore(path: path, schema: notes(keyed: false))
            _ = try store.populate(Self.response(#"[{ "code": "a" }]"#), entity: "Note")
        }
        let before = try FileSnapshot(path: path)
        let error = webRecordError { try RecordStore(path: path, schema: notes(keyed: true)) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("Note: primary key changed from (none) to code") == true)
        #expect(try FileSnapshot(path: path) == before)
    }

    // MARK: - Attributes whose rules change

    /// Making an attribute non-optional is no layout change. Stored NULLs stay ("a stored
    /// record may omit any attribute"), a re-sync that omits it is unchanged, and an explicit
    /// null is a non-fatal typeMismatch that keeps the stored value.
    @Test func anAttributeMadeNonOptionalKeepsStoredNullsAndAResyncIsUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        func notes(optional: Bool) throws -> Schema {
            try Schema(
                json: """
                    {"entities": {"Note": {"primaryKey": "id", "attributes": {"id": {"type": "integer"},
                      "title": {"type": "string", "optional": \(optional)}}}}}
                    """)
        }
        let body = #"[{ "id": 1 }, { "id": 2, "title": "T" }]"#
        do {
            let store = try RecordStore(path: path, schema: notes(optional: true))
            #expect(try store.populate(Self.response(body), entity: "Note").changes.inserted == 2)
        }
        let store = try RecordStore(path: path, schema: notes(optional: false))
        let resync = try store.populate(Self.response(body), entity: "Note")
        #expect(resync.changes.unchanged == 2)
        #expect(resync.changes.updated == 0)
        #expect(resync.changes.inserted == 0)
        #expect(try store.fetchOne("Note", primaryKey: 1)?["title"] as String? == nil)

        let cleared = try store.populate(Self.response(#"[{ "id": 2, "title": null }]"#), entity: "Note")
        #expect(cleared.debugger.errors.map(\.code) == [.typeMismatch])
        #expect(cleared.debugger.errors.allSatisfy { !$0.isFatal })
        #expect(try store.fetchOne("Note", primaryKey: 2)?["title"] as String? == "T")
    }

    /// Every type change is refused at open, naming the change, the file byte-identical, and
    /// the store still opens with its old schema with every value.
    @Test func everyAttributeTypeChangeIsRefusedAndTheFileKeepsEveryByte() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let attributes: [(name: String, type: String, value: String)] = [
            ("count", "integer", "7"), ("label", "string", #""abc""#), ("ratio", "double", "2.5"),
            ("when", "date", #""2012-11-21T02:33:42Z""#), ("flag", "boolean", "true"),
        ]
        func samples(_ types: [String: String]) throws -> Schema {
            let members = attributes.map { #""\#($0.name)": {"type": "\#(types[$0.name] ?? $0.type)"}"# }
            return try Schema(
                json: """
                    {"entities": {"Sample": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, \(members.joined(separator: ", "))}}}}
                    """)
        }
        do {
            let store = try RecordStore(path: path, schema: samples([:]))
            let values = attributes.map { #""\#($0.name)": \#($0.value)"# }.joined(separator: ", ")
            _ = try store.populate(Self.response("[{\"id\": 1, \(values)}]"), entity: "Sample")
        }
        let original = try RecordStore(path: path, schema: samples([:])).dump("Sample")
        let before = try FileSnapshot(path: path)
        let changes: [(String, String, String)] = [
            ("count", "integer", "string"), ("label", "string", "integer"), ("ratio", "double", "decimal"),
            ("when", "date", "string"), ("flag", "boolean", "integer"),
        ]
        for (name, from, to) in changes {
            let error = webRecordError { try RecordStore(path: path, schema: samples([name: to])) }
            #expect(error?.code == .incompatibleStore)
            #expect(
                error?.message.contains("Sample.\(name): changed from attribute \(from) to attribute \(to)") == true,
                "\(String(describing: error))")
            #expect(try FileSnapshot(path: path) == before)
        }
        #expect(try RecordStore(path: path, schema: samples([:])).dump("Sample") == original)
    }

    // MARK: - Moving an attribute within a hierarchy

    /// An attribute moved from the root to a sub-entity keeps its column (its signature is
    /// the same): the sub-entity's records keep their values, a re-sync is unchanged, and the
    /// root's own rows keep theirs in the column ("Removed: kept").
    @Test func anAttributeMovedFromTheRootToASubEntityKeepsItsValues() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        func links(issueOnSubentity: Bool) throws -> Schema {
            let issue = #""issue": {"type": "string"}"#
            return try Schema(
                json: """
                    {"entities": {
                      "Link": {"primaryKey": "id", "subentities": {"key": "kind", "map": {"inward": "InwardLink"}},
                        "attributes": {"id": {"type": "integer"}, "kind": {"type": "string"}\(issueOnSubentity ? "" : ", " + issue)}},
                      "InwardLink": {"parent": "Link", "attributes": {\(issueOnSubentity ? issue : #""note": {"type": "string"}"#)}}
                    }}
                    """)
        }
        let body = #"[{ "id": 1, "kind": "inward", "issue": "A-1" }, { "id": 2, "issue": "B-2" }]"#
        do {
            let store = try RecordStore(path: path, schema: links(issueOnSubentity: false))
            #expect(try store.populate(Self.response(body), entity: "Link").changes.inserted == 2)
        }
        let store = try RecordStore(path: path, schema: links(issueOnSubentity: true))
        let resync = try store.populate(
            Self.response(#"[{ "id": 1, "kind": "inward", "issue": "A-1" }]"#), entity: "Link")
        #expect(resync.changes.unchanged == 1)
        #expect(resync.changes.updated == 0)
        #expect(try store.fetchOne("Link", primaryKey: 1)?["issue"] as String? == "A-1")
        #expect(try store.rows("SELECT \"issue\" FROM \"Link\" ORDER BY \"_id\"") == [[.text("A-1")], [.text("B-2")]])
    }

    // MARK: - A removed entity that others referred to

    /// Removing `User` and `Post.author` keeps the `author` column with its links; a
    /// population under the smaller schema does not touch it; the old schema reads the links
    /// again ("it can come back later stored the same way (and with its data)").
    @Test func aRemovedReferencedEntityComesBackWithItsLinks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {
            let store = try RecordStore(path: path, schema: Self.blog())
            _ = try store.populate(Self.response(Self.blogResponse), entity: "Post")
        }
        let postsOnly = try Schema(
            json: """
                { "entities": { "Post": { "primaryKey": "id", "attributes": {
                    "id": { "type": "integer" }, "title": { "type": "string" }, "rating": { "type": "double" } } } } }
                """)
        do {
            let store = try RecordStore(path: path, schema: postsOnly)
            let result = try store.populate(Self.response(#"[{ "id": 1, "title": "Renamed" }]"#), entity: "Post")
            #expect(result.changes.updated == 1)
            #expect(try store.tableNames() == ["Comment", "Post", "Tag", "User", "_Post_tags", "_webrecord_metadata"])
        }
        let store = try RecordStore(path: path, schema: Self.blog())
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(post["title"] as String? == "Renamed")
        #expect(post["rating"] as Double? == 2.5)
        #expect(post.related("author")?.primaryKeyValue == "u1")
        #expect(post.relatedRecords("comments", as: Record.self).map { $0["id"] as Int64? } == [10, 11])
        #expect(try store.rows("SELECT count(*) FROM \"_Post_tags\"") == [[.integer(3)]])
    }

    // MARK: - A failed migration

    /// "a population that fails on a store that needed migrating leaves it with its old
    /// layout, and the next write migrates again."
    @Test func aFailedFirstWriteLeavesTheOldLayoutAndTheNextWriteMigrates() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var columns: [String] = []
        var layout: String?
        var posts: [[DatabaseValue]] = []
        do {
            let store = try RecordStore(path: path, schema: Self.blog())
            _ = try store.populate(Self.response(Self.blogResponse), entity: "Post")
            columns = try store.columns(of: "Post").map(\.name)
            layout = try Self.layoutRow(store)
            posts = try store.dump("Post")
        }
        let v2 = try Self.blog(
            postAttributes:
                #""id": { "type": "integer" }, "title": { "type": "string" }, "rating": { "type": "double" }, "summary": { "type": "string", "indexed": true }"#,
            extraEntities: #", "Category": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } } }"#)
        struct Stop: Error {}
        do {
            let store = try RecordStore(path: path, schema: v2)
            let error = webRecordError {
                try store.write { connection in
                    try connection.execute("UPDATE \"Post\" SET \"title\" = 'changed'")
                    throw Stop()
                }
            }
            #expect(error != nil)
        }
        do {
            let connection = try Connection(path: path)
            let names = try connection.rows("PRAGMA table_info(\"Post\")").compactMap { $0[1].text }
            #expect(names == columns)
            #expect(try connection.scalar("SELECT value FROM _webrecord_metadata WHERE key = 'layout'")?.text == layout)
            #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Category'") == .integer(0))
            #expect(try connection.rows("SELECT * FROM \"Post\" ORDER BY \"_id\"") == posts)
        }
        let store = try RecordStore(path: path, schema: v2)
        try store.write { _ in }
        #expect(try store.columns(of: "Post").map(\.name) == columns + ["summary"])
        #expect(try store.tableNames().contains("Category"))
    }
}
