import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Schema evolution and concurrent writers on PostgreSQL, held to the rules the SQLite store
/// keeps (Docs/StorageLayout.md, "Migration"; Docs/PostgreSQL.md, "Migration" and "Many
/// workers"): a store populated with one schema and used with another keeps every value,
/// link and join row; a refused change leaves the database exactly as it was; and workers
/// populating overlapping responses at once end as one of the serial orders.
@Suite(.serialized, .timeLimit(MachineLoad.hangTimeLimit))
struct AdversarialPostgreSQLMigrationTests {
    // MARK: - Helpers

    static func response(_ text: String) throws -> JSONValue { try JSONReader().read(text) }

    static func text(_ value: DatabaseValue) -> String {
        if case .text(let text) = value { return text }
        return "\(value)"
    }

    /// A population on the calling thread (the synchronous form, also from an async test).
    static func populate(
        _ store: RecordStore, _ body: String, entity: String, options: PopulationOptions = PopulationOptions()
    ) throws -> PopulationResult {
        try store.populate(Self.response(body), entity: entity, options: options)
    }

    static func store(_ schema: Schema, at location: String) throws -> RecordStore {
        try RecordStore(postgreSQL: location, schema: schema)
    }

    /// Everything of the database's `public` schema: each table's rows (as JSON, sorted), each
    /// column with its type, each index and each constraint. Two snapshots are equal only when
    /// nothing was written, added or dropped.
    static func snapshot(_ location: String) throws -> [String] {
        let connection = try PostgreSQLConnection(location)
        defer { connection.close() }
        var lines: [String] = []
        let tables = try connection.rows(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = 'public' ORDER BY 1")
        for table in tables {
            let name = Self.text(table[0])
            lines.append("table \(name)")
            for row in try connection.rows("SELECT to_jsonb(t)::text FROM \"\(name)\" AS t ORDER BY 1") {
                lines.append("  \(Self.text(row[0]))")
            }
        }
        for row in try connection.rows(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
            FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
            """)
        {
            lines.append("column \(Self.text(row[0]))")
        }
        for row in try connection.rows(
            "SELECT indexdef FROM pg_catalog.pg_indexes WHERE schemaname = 'public' ORDER BY indexname")
        {
            lines.append("index \(Self.text(row[0]))")
        }
        for row in try connection.rows(
            """
            SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
            FROM pg_catalog.pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1
            """)
        {
            lines.append("constraint \(Self.text(row[0]))")
        }
        return lines
    }

    static func layoutRecord(_ location: String) throws -> String? {
        let connection = try PostgreSQLConnection(location)
        defer { connection.close() }
        return try connection.scalar(#"SELECT "value" FROM "_webrecord_metadata" WHERE "key" = 'layout'"#).map(
            Self.text)
    }

    static func rows(_ location: String, _ sql: String) throws -> [[DatabaseValue]] {
        let connection = try PostgreSQLConnection(location)
        defer { connection.close() }
        return try connection.rows(sql)
    }

    /// The error `body` throws, or nil.
    static func failure(_ body: () throws -> Void) -> WebRecordError? {
        do {
            try body()
            return nil
        } catch let error as WebRecordError {
            return error
        } catch {
            return WebRecordError(.storeError, "\(error)")
        }
    }

    // MARK: - A blog, and its additive changes

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

    static let blogV2Attributes =
        #""id": { "type": "integer" }, "title": { "type": "string" }, "rating": { "type": "double" }, "summary": { "type": "string" }, "views": { "type": "integer", "optional": false, "default": 0 }"#
    static let blogV2Relationship = #", "category": { "destination": "Category", "inverse": "posts" }"#
    static let blogV2Entity =
        #", "Category": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } }, "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "category" } } }"#

    static func blogV2() throws -> Schema {
        try blog(
            postAttributes: blogV2Attributes, extraPostRelationships: blogV2Relationship, extraEntities: blogV2Entity)
    }

    /// The rows of the blog's v1 tables, each cut to v1's columns.
    static func blogV1Rows(_ location: String) throws -> [[DatabaseValue]] {
        var all: [[DatabaseValue]] = []
        all += try rows(
            location, #"SELECT 'Post', "_id", "_entity", "id", "title", "rating", "author" FROM "Post" ORDER BY "_id""#)
        all += try rows(location, #"SELECT 'User', "_id", "_entity", "id", "name" FROM "User" ORDER BY "_id""#)
        all += try rows(
            location,
            #"SELECT 'Comment', "_id", "_entity", "id", "body", "post", "_position_post" FROM "Comment" ORDER BY "_id""#
        )
        all += try rows(location, #"SELECT 'Tag', "_id", "_entity", "name" FROM "Tag" ORDER BY "_id""#)
        all += try rows(location, #"SELECT '_Post_tags', "owner", "target" FROM "_Post_tags" ORDER BY 2, 3"#)
        return all
    }

    @Test(
        "Added attributes, an entity and a relationship keep every value, link and join row, and a re-sync is unchanged"
    )
    func additiveChangesKeepEverythingAndAResyncIsUnchanged() throws {
        let location = try PostgreSQLStores.newDatabase()
        do {
            let v1 = try Self.store(Self.blog(), at: location)
            defer { v1.close() }
            let first = try v1.populate(Self.response(Self.blogResponse), entity: "Post")
            #expect(first.changes.inserted == 8)  // 2 posts, 1 user, 3 comments, 2 tags
        }
        let before = try Self.blogV1Rows(location)
        #expect(before.count == 2 + 1 + 3 + 2 + 3)

        let store = try Self.store(Self.blogV2(), at: location)
        defer { store.close() }
        let resync = try store.populate(Self.response(Self.blogResponse), entity: "Post")
        #expect(resync.changes.inserted == 0)
        #expect(resync.changes.updated == 0)
        #expect(resync.changes.unchanged == 8)
        #expect(resync.debugger.errors.isEmpty, "\(resync.debugger.errors)")
        #expect(try Self.blogV1Rows(location) == before)
        // The new columns of the stored rows are NULL: a default applies to a record created.
        #expect(
            try Self.rows(location, #"SELECT "summary", "views", "category" FROM "Post" ORDER BY "_id""#)
                == [[.null, .null, .null], [.null, .null, .null]])
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(post["title"] as String? == "First")
        #expect(post["rating"] as Double? == 2.5)
        #expect(post.related("author")?["name"] as String? == "Ann")
        #expect(post.relatedRecords("comments", as: Record.self).map { $0["id"] as Int64? } == [10, 11])
        #expect(Set(post.relatedRecords("tags", as: Record.self).map { $0["name"] as String? ?? "" }) == ["x", "y"])
        #expect(try store.count("Post") == 2)
        #expect(try store.count("Category") == 0)

        // A new record gets the default; the new relationship links.
        let added = try store.populate(
            Self.response(#"[{ "id": 3, "title": "Third", "rating": 0.5, "category": { "id": 9 } }]"#), entity: "Post")
        #expect(added.changes.inserted == 2)
        #expect(
            try Self.rows(location, #"SELECT "views", "summary" FROM "Post" WHERE "id" = 3"#) == [[.integer(0), .null]])
        #expect(try store.fetchOne("Post", primaryKey: 3)?.related("category")?["id"] as Int64? == 9)
        // And the first response again is still unchanged.
        let again = try store.populate(Self.response(Self.blogResponse), entity: "Post")
        #expect(
            again.changes.unchanged == 8 && again.changes.updated == 0 && again.changes.inserted == 0,
            "\(again.changes)")
    }

    /// "Several processes creating or migrating one store ... the first one makes the tables,
    /// and the others find them made" (PostgreSQL: "take turns at it ... None fails").
    @Test("Several workers migrating one populated store at once all succeed and keep every row")
    func workersMigratingAtOnceAllSucceed() async throws {
        let location = try PostgreSQLStores.newDatabase()
        do {
            let v1 = try Self.store(Self.blog(), at: location)
            defer { v1.close() }
            _ = try Self.populate(v1, Self.blogResponse, entity: "Post")
        }
        let before = try Self.blogV1Rows(location)
        let stores = try (0..<3).map { _ in try Self.store(Self.blogV2(), at: location) }
        defer { for store in stores { store.close() } }
        let body = try Self.response(Self.blogResponse)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for store in stores {
                group.addTask {
                    do throws(WebRecordError) {
                        let result = try await store.populate(body, entity: "Post")
                        return
                            "unchanged \(result.changes.unchanged) updated \(result.changes.updated) inserted \(result.changes.inserted)"
                    } catch {
                        return "failed: \(error)"
                    }
                }
            }
            var outcomes: [String] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes == Array(repeating: "unchanged 8 updated 0 inserted 0", count: 3), "\(outcomes)")
        #expect(try Self.blogV1Rows(location) == before)
        #expect(
            try Self.rows(
                location,
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'Post' AND column_name IN ('summary', 'views', 'category')"
            ) == [[.integer(3)]])
    }

    // MARK: - A removed sub-entity

    static func posts(withDrafts: Bool, wordsType: String = "integer") throws -> Schema {
        let drafts = withDrafts ? #", "subentities": { "key": "kind", "map": { "draft": "Draft" } }"# : ""
        let draft =
            withDrafts
            ? #", "Draft": { "parent": "Post", "attributes": { "words": { "type": "\#(wordsType)" } } }"# : ""
        return try Schema(
            json: """
                { "entities": {
                    "Post": { "primaryKey": "id"\(drafts),
                      "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" }, "title": { "type": "string" } } }\(draft)
                } }
                """)
    }

    static func makeStoreWithADraft(at location: String) throws {
        let store = try Self.store(Self.posts(withDrafts: true), at: location)
        defer { store.close() }
        let result = try store.populate(
            Self.response(
                #"[{ "id": 1, "title": "Published" }, { "id": 2, "kind": "draft", "title": "Unfinished", "words": 5 }]"#
            ),
            entity: "Post")
        #expect(result.changes.inserted == 2)
    }

    /// "a removed sub-entity's rows stay in its root's table, and fetches, counts, related
    /// records and exports read only the rows of the entities the schema has".
    @Test("A removed sub-entity's rows are kept and not read: fetch, count, fetchOne and export of the root")
    func aRemovedSubEntityIsKeptAndNotRead() throws {
        let location = try PostgreSQLStores.newDatabase()
        try Self.makeStoreWithADraft(at: location)
        let store = try Self.store(Self.posts(withDrafts: false), at: location)
        defer { store.close() }
        let fetched = Self.failure { _ = try store.fetch("Post") }
        #expect(fetched == nil, "\(String(describing: fetched))")
        #expect((try? store.fetch("Post"))?.map { $0["id"] as Int64? } == [1])
        #expect(try store.count("Post") == 1)
        #expect(try store.fetchOne("Post", primaryKey: 2) == nil)
        #expect(try store.fetchOne("Post", primaryKey: 1)?["title"] as String? == "Published")
        let exported = try store.exportJSON(entity: "Post").arrayValue ?? []
        #expect(exported.map { $0["id"]?.int64Value } == [1])
        // The row stays, with its data.
        #expect(
            try Self.rows(location, #"SELECT "_entity", "id", "title", "words" FROM "Post" ORDER BY "_id""#) == [
                [.text("Post"), .integer(1), .text("Published"), .null],
                [.text("Draft"), .integer(2), .text("Unfinished"), .integer(5)],
            ])
        // A re-sync of the published post is unchanged, and the draft's row is untouched.
        let resync = try store.populate(Self.response(#"[{ "id": 1, "title": "Published" }]"#), entity: "Post")
        #expect(resync.changes.unchanged == 1 && resync.changes.updated == 0 && resync.changes.inserted == 0)
        #expect(try Self.rows(location, #"SELECT count(*) FROM "Post""#) == [[.integer(2)]])
    }

    /// The SQLite store takes a response's record whose key a removed sub-entity's row holds
    /// as that row (the key stays unique), and reads it back as the response's entity.
    @Test("Populating a key a removed sub-entity's row holds stores the response, as on SQLite")
    func populatingAKeyHeldByARemovedSubEntity() throws {
        let location = try PostgreSQLStores.newDatabase()
        try Self.makeStoreWithADraft(at: location)
        let store = try Self.store(Self.posts(withDrafts: false), at: location)
        defer { store.close() }
        let failure = Self.failure {
            _ = try store.populate(Self.response(#"[{ "id": 2, "title": "Finished" }]"#), entity: "Post")
        }
        #expect(failure == nil, "\(String(describing: failure))")
        let post = try store.fetchOne("Post", primaryKey: 2)
        #expect(post?.entity.name == "Post")
        #expect(post?["title"] as String? == "Finished")
        #expect(try store.count("Post", where: "\"id\" = 2") == 1)
        #expect(try Self.rows(location, #"SELECT count(*) FROM "Post" WHERE "id" = 2"#) == [[.integer(1)]])
    }

    /// "It stays in the layout row ... so it can come back later stored the same way (and
    /// with its data), but not another way."
    @Test("A removed sub-entity comes back with its rows; coming back with another attribute type is refused")
    func aRemovedSubEntityComesBackOnlyTheSameWay() throws {
        let location = try PostgreSQLStores.newDatabase()
        try Self.makeStoreWithADraft(at: location)
        do {
            let without = try Self.store(Self.posts(withDrafts: false), at: location)
            defer { without.close() }
            _ = try without.populate(Self.response(#"[{ "id": 3, "title": "New" }]"#), entity: "Post")
        }
        let before = try Self.snapshot(location)
        do {
            let changed = try Self.store(Self.posts(withDrafts: true, wordsType: "string"), at: location)
            defer { changed.close() }
            let error = Self.failure { _ = try changed.count("Post") }
            #expect(error?.code == .incompatibleStore, "\(String(describing: error))")
            #expect(
                error?.message.contains(
                    "Draft.words (column Post.words): changed from attribute integer to attribute string")
                    == true, "\(String(describing: error))")
        }
        #expect(try Self.snapshot(location) == before)
        let back = try Self.store(Self.posts(withDrafts: true), at: location)
        defer { back.close() }
        #expect(try back.fetchOne("Draft", primaryKey: 2)?["words"] as Int64? == 5)
        #expect(try back.count("Post") == 3)
    }

    // MARK: - Sub-entity keys

    static let familyWithoutChildrenJSON = """
        {"entities": {
          "Human": {"abstract": true,
            "subentities": {"key": "kind", "map": {"parent": "Parent", "grandparent": "Grandparent"}},
            "attributes": {"name": {"type": "string", "optional": true}}},
          "Parent": {"parent": "Human", "primaryKey": "parentID", "attributes": {"parentID": {"type": "integer"}}},
          "Grandparent": {"parent": "Parent", "attributes": {"title": {"type": "string", "optional": true}}}
        }}
        """

    /// "the primary key changes ... or one that is still in the schema loses its own
    /// (removing the sub-entity itself is not a change of key)".
    @Test("Removing a sub-entity that has its own key is accepted: its rows stay and the others read as before")
    func removingAKeyedSubEntityIsAccepted() throws {
        let location = try PostgreSQLStores.newDatabase()
        do {
            let store = try Self.store(Schema(json: subentityKeySchemaJSON), at: location)
            defer { store.close() }
            _ = try store.populate(Self.response(subentityKeyFamilyJSON), entity: "Human")
        }
        let humans = #"SELECT "_entity", "parentID", "childID", "name" FROM "Human" ORDER BY "_id""#
        let before = try Self.rows(location, humans)
        let store = try Self.store(Schema(json: Self.familyWithoutChildrenJSON), at: location)
        defer { store.close() }
        let read = Self.failure { _ = try store.fetch("Parent") }
        #expect(read == nil, "\(String(describing: read))")
        #expect(
            (try? store.fetch("Parent", orderBy: [.ascending("parentID")]))?.map { $0["name"] as String? } == [
                "Dad", "Grandpa",
            ])
        #expect((try? store.count("Parent")) == 2)
        let resync = Self.failure {
            let result = try store.populate(
                Self.response(#"[{"kind": "parent", "parentID": 7, "name": "Dad"}]"#), entity: "Human")
            #expect(result.changes.unchanged == 1 && result.changes.updated == 0 && result.changes.inserted == 0)
        }
        #expect(resync == nil, "\(String(describing: resync))")
        #expect(try Self.rows(location, humans) == before)
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

    @Test("A keyless sub-entity gaining a key is refused at the first write and the first read, changing nothing")
    func aKeylessSubEntityGainingAKeyIsRefused() throws {
        let location = try PostgreSQLStores.newDatabase()
        let child = #"[{ "kind": "child", "childID": "c1", "name": "Ann" }]"#
        do {
            let store = try Self.store(Self.humans(childKey: false), at: location)
            defer { store.close() }
            _ = try store.populate(Self.response(child), entity: "Human")
            _ = try store.populate(Self.response(child), entity: "Human")
            #expect(try store.count("Child") == 2)
        }
        let before = try Self.snapshot(location)
        let layout = try Self.layoutRecord(location)
        let store = try Self.store(Self.humans(childKey: true), at: location)
        defer { store.close() }
        let written = Self.failure { _ = try store.populate(Self.response(child), entity: "Human") }
        #expect(written?.code == .incompatibleStore, "\(String(describing: written))")
        #expect(
            written?.message.contains("Child: primary key changed from (none) to childID") == true,
            "\(String(describing: written))")
        let read = Self.failure { _ = try store.count("Child") }
        #expect(read?.code == .incompatibleStore, "\(String(describing: read))")
        #expect(try Self.snapshot(location) == before)
        #expect(try Self.layoutRecord(location) == layout)
    }

    // MARK: - Attributes whose rules or types change

    @Test("An attribute made non-optional keeps stored NULLs, a re-sync is unchanged, an explicit null keeps the value")
    func anAttributeMadeNonOptional() throws {
        let location = try PostgreSQLStores.newDatabase()
        func notes(optional: Bool) throws -> Schema {
            try Schema(
                json: """
                    {"entities": {"Note": {"primaryKey": "id", "attributes": {"id": {"type": "integer"},
                      "title": {"type": "string", "optional": \(optional)}}}}}
                    """)
        }
        let body = #"[{ "id": 1 }, { "id": 2, "title": "T" }]"#
        do {
            let store = try Self.store(notes(optional: true), at: location)
            defer { store.close() }
            #expect(try store.populate(Self.response(body), entity: "Note").changes.inserted == 2)
        }
        let layout = try Self.layoutRecord(location)
        let store = try Self.store(notes(optional: false), at: location)
        defer { store.close() }
        let resync = try store.populate(Self.response(body), entity: "Note")
        #expect(resync.changes.unchanged == 2 && resync.changes.updated == 0 && resync.changes.inserted == 0)
        #expect(resync.debugger.errors.isEmpty, "\(resync.debugger.errors)")
        #expect(try store.fetchOne("Note", primaryKey: 1)?["title"] as String? == nil)
        let cleared = try store.populate(Self.response(#"[{ "id": 2, "title": null }]"#), entity: "Note")
        #expect(cleared.debugger.errors.map(\.code) == [.typeMismatch])
        #expect(cleared.debugger.errors.allSatisfy { !$0.isFatal })
        #expect(try store.fetchOne("Note", primaryKey: 2)?["title"] as String? == "T")
        #expect(
            try Self.rows(location, #"SELECT "id", "title" FROM "Note" ORDER BY "_id""#) == [
                [.integer(1), .null], [.integer(2), .text("T")],
            ])
        #expect(try Self.layoutRecord(location) == layout)
    }

    @Test("Every attribute type change is refused at the first write and read, naming it, with the database untouched")
    func everyTypeChangeIsRefusedAndNothingChanges() throws {
        let location = try PostgreSQLStores.newDatabase()
        let attributes: [(name: String, type: String, value: String)] = [
            ("count", "integer", "7"), ("label", "string", #""abc""#), ("ratio", "double", "2.5"),
            ("when", "date", #""2012-11-21T02:33:42Z""#), ("flag", "boolean", "true"), ("price", "decimal", #""1.50""#),
        ]
        func samples(_ types: [String: String]) throws -> Schema {
            let members = attributes.map { #""\#($0.name)": {"type": "\#(types[$0.name] ?? $0.type)"}"# }
            return try Schema(
                json: """
                    {"entities": {"Sample": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, \(members.joined(separator: ", "))}}}}
                    """)
        }
        do {
            let store = try Self.store(samples([:]), at: location)
            defer { store.close() }
            let values = attributes.map { #""\#($0.name)": \#($0.value)"# }.joined(separator: ", ")
            _ = try store.populate(Self.response("[{\"id\": 1, \(values)}]"), entity: "Sample")
        }
        let before = try Self.snapshot(location)
        let changes: [(String, String, String)] = [
            ("count", "integer", "string"), ("label", "string", "integer"), ("ratio", "double", "decimal"),
            ("when", "date", "string"), ("flag", "boolean", "integer"), ("price", "decimal", "double"),
        ]
        for (name, from, to) in changes {
            let store = try Self.store(samples([name: to]), at: location)
            defer { store.close() }
            let written = Self.failure {
                _ = try store.populate(Self.response(#"[{"id": 2}]"#), entity: "Sample")
            }
            #expect(written?.code == .incompatibleStore, "\(name): \(String(describing: written))")
            #expect(
                written?.message.contains("Sample.\(name): changed from attribute \(from) to attribute \(to)") == true,
                "\(String(describing: written))")
            let read = Self.failure { _ = try store.fetch("Sample") }
            #expect(read?.code == .incompatibleStore, "\(name): \(String(describing: read))")
            #expect(try Self.snapshot(location) == before, "\(name)")
        }
        let original = try Self.store(samples([:]), at: location)
        defer { original.close() }
        let sample = try #require(try original.fetchOne("Sample", primaryKey: 1))
        #expect(sample["count"] as Int64? == 7)
        #expect(sample["label"] as String? == "abc")
        #expect(sample["ratio"] as Double? == 2.5)
    }

    /// "An entity, attribute or relationship that the schema no longer has keeps its table or
    /// column ... It stays in the `layout` row ... so it can come back later stored the same
    /// way (and with its data), but not another way."
    @Test("A removed attribute coming back with another type is refused; coming back the same way brings its values")
    func aRemovedAttributeComesBackOnlyTheSameWay() throws {
        let location = try PostgreSQLStores.newDatabase()
        func notes(_ title: String?) throws -> Schema {
            let member = title.map { #", "title": {"type": "\#($0)"}"# } ?? ""
            return try Schema(
                json:
                    #"{"entities": {"Note": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}\#(member)}}}}"#
            )
        }
        do {
            let store = try Self.store(notes("string"), at: location)
            defer { store.close() }
            _ = try store.populate(Self.response(#"[{"id": 1, "title": "kept"}]"#), entity: "Note")
        }
        do {
            let store = try Self.store(notes(nil), at: location)
            defer { store.close() }
            let result = try store.populate(Self.response(#"[{"id": 2, "title": "ignored"}]"#), entity: "Note")
            #expect(result.changes.inserted == 1)
        }
        let before = try Self.snapshot(location)
        do {
            let store = try Self.store(notes("integer"), at: location)
            defer { store.close() }
            let error = Self.failure {
                _ = try store.populate(Self.response(#"[{"id": 3, "title": 5}]"#), entity: "Note")
            }
            #expect(error?.code == .incompatibleStore, "\(String(describing: error))")
        }
        #expect(try Self.snapshot(location) == before)
        let back = try Self.store(notes("string"), at: location)
        defer { back.close() }
        #expect(try back.fetchOne("Note", primaryKey: 1)?["title"] as String? == "kept")
        #expect(try back.fetchOne("Note", primaryKey: 2)?["title"] as String? == nil)
    }

    // MARK: - Concurrent writers

    static let feedSchemaJSON = """
        { "entities": {
            "Post": { "primaryKey": "id", "attributes": { "id": { "type": "string" }, "title": { "type": "string" } },
              "relationships": {
                "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" },
                "comments": { "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post" },
                "author": { "destination": "User", "inverse": "posts" } } },
            "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } } },
            "Comment": { "primaryKey": "id", "attributes": { "id": { "type": "string" } },
              "relationships": { "post": { "destination": "Post", "inverse": "comments" } } },
            "User": { "primaryKey": "id", "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "author" } } }
        } }
        """

    static func feedSchema() throws -> Schema { try Schema(json: feedSchemaJSON, fileName: "Feed.json") }

    /// The store as the documented guarantee compares it: each post with its title, author,
    /// sorted tags and ordered comments; each comment with its post; each user with its name.
    static func state(_ store: RecordStore) throws -> [String] {
        var lines: [String] = []
        for post in try store.fetch("Post", orderBy: [.ascending("id")]) {
            let tags = post.relatedRecords("tags", as: Record.self).compactMap { $0["name"] as String? }.sorted()
            let comments = post.relatedRecords("comments", as: Record.self).compactMap { $0["id"] as String? }
            let author = post.related("author")?["id"] as String? ?? "-"
            lines.append(
                "post \(post["id"] as String? ?? "?") \(post["title"] as String? ?? "-") by \(author) tags \(tags) comments \(comments)"
            )
        }
        for comment in try store.fetch("Comment", orderBy: [.ascending("id")]) {
            lines.append(
                "comment \(comment["id"] as String? ?? "?") on \(comment.related("post")?["id"] as String? ?? "-")")
        }
        for user in try store.fetch("User", orderBy: [.ascending("id")]) {
            lines.append("user \(user["id"] as String? ?? "?") \(user["name"] as String? ?? "-")")
        }
        let duplicates = try store.count("Post") + store.count("Comment") + store.count("User") + store.count("Tag")
        lines.append("rows \(duplicates)")
        return lines
    }

    /// The state a SQLite store ends in after `responses` in this order, from `initial`.
    static func serialState(initial: [(String, String)], _ responses: [(String, String, PopulationOptions)]) throws
        -> [String]
    {
        let store = try RecordStore(inMemory: Self.feedSchema())
        for (entity, body) in initial { _ = try store.populate(Self.response(body), entity: entity) }
        for (entity, body, options) in responses {
            _ = try store.populate(Self.response(body), entity: entity, options: options)
        }
        return try Self.state(store)
    }

    /// Counts the backends of `connection`'s database that wait for a lock.
    static func lockWaits(_ connection: PostgreSQLConnection) throws -> Int {
        let waiting = try connection.scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        guard case .integer(let count)? = waiting else { return 0 }
        return Int(count)
    }

    static func waitForLockWaits(_ count: Int, _ connection: PostgreSQLConnection) async throws -> Bool {
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        while Date() < deadline {
            if try lockWaits(connection) >= count { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Orphan deletion (`.all`) racing a worker that inserts one post and updates two: "The
    /// database ends as if the populations had run one after another, in some order". The
    /// interleaving is made to happen: the inserting worker holds its first post's lock while
    /// it waits for a third connection, and the deleting worker reads its candidates meanwhile.
    /// Both with `.all` and with a rule scoping the candidates, as "Orphan deletion over
    /// shared data needs a scope" recommends ("Two workers with overlapping rules end as some
    /// order of the two leaves them").
    @Test(
        "Orphan deletion racing an insert and updates ends as one of the two serial orders",
        arguments: [false, true])
    func orphanDeletionRacingAnInsertEndsAsASerialOrder(scoped: Bool) async throws {
        let location = try PostgreSQLStores.newDatabase()
        let initial = [
            ("Post", #"[{"id": "p1", "title": "one"}, {"id": "p4", "title": "four"}, {"id": "p5", "title": "five"}]"#)
        ]
        let deleting = #"[{"id": "p1", "title": "one"}, {"id": "p2", "title": "two"}]"#
        let inserting =
            #"[{"id": "p3", "title": "three"}, {"id": "p4", "title": "four, B"}, {"id": "p5", "title": "five, B"}]"#
        var orphans = PopulationOptions()
        orphans.deleteOrphans = scoped ? .matching(#""id" LIKE ?"#, ["p%"]) : .all
        let plain = PopulationOptions()
        let deletingFirst = try Self.serialState(
            initial: initial, [("Post", deleting, orphans), ("Post", inserting, plain)])
        let insertingFirst = try Self.serialState(
            initial: initial, [("Post", inserting, plain), ("Post", deleting, orphans)])

        let setup = try Self.store(Self.feedSchema(), at: location)
        for (entity, body) in initial { _ = try Self.populate(setup, body, entity: entity) }
        setup.close()

        let deleter = try Self.store(Self.feedSchema(), at: location)
        let inserter = try Self.store(Self.feedSchema(), at: location)
        defer {
            deleter.close()
            inserter.close()
        }
        _ = try deleter.count("Post")
        _ = try inserter.count("Post")
        let blocker = try PostgreSQLConnection(location)
        let watcher = try PostgreSQLConnection(location)
        defer {
            blocker.close()
            watcher.close()
        }
        // The third connection holds p5: the inserting worker locks p4 (smaller `_id`), then waits.
        try blocker.execute("BEGIN")
        try blocker.execute(#"SELECT 1 FROM "Post" WHERE "id" = 'p5' FOR UPDATE"#)
        let insertBody = try Self.response(inserting)
        let insert = Task { () -> String in
            do throws(WebRecordError) {
                let result = try await inserter.populate(insertBody, entity: "Post")
                return "ok \(result.changes.inserted)"
            } catch { return "failed: \(error)" }
        }
        let insertWaits = try await Self.waitForLockWaits(1, watcher)
        #expect(insertWaits)
        let deleteBody = try Self.response(deleting)
        let delete = Task { () -> String in
            do throws(WebRecordError) {
                let result = try await deleter.populate(deleteBody, entity: "Post", options: orphans)
                return "ok \(result.changes.deleted)"
            } catch { return "failed: \(error)" }
        }
        // The deleting worker waits for the inserting one (on p4), or finishes first.
        _ = try await Self.waitForLockWaits(2, watcher)
        try blocker.execute("ROLLBACK")
        let insertOutcome = await insert.value
        let deleteOutcome = await delete.value
        #expect(insertOutcome.hasPrefix("ok"), "\(insertOutcome)")
        #expect(deleteOutcome.hasPrefix("ok"), "\(deleteOutcome)")

        let check = try Self.store(Self.feedSchema(), at: location)
        defer { check.close() }
        let end = try Self.state(check)
        #expect(
            end == deletingFirst || end == insertingFirst,
            "ended as \(end); the serial orders give \(deletingFirst) or \(insertingFirst)")
    }

    /// Two workers replacing the same post's tags and comments, and moving a comment between
    /// posts, at once, over many rounds: each round ends as one of the two serial orders.
    @Test("The same to-many lists replaced by two workers at once end as one of the serial orders")
    func toManyListsChangedByTwoWorkersEndAsASerialOrder() async throws {
        let initial = [
            (
                "Post",
                #"[{"id": "p1", "title": "t", "author": {"id": "u1", "name": "Ann"}, "tags": [{"name": "a"}, {"name": "c"}], "comments": [{"id": "c1"}, {"id": "c2"}]}, {"id": "p2", "title": "t", "author": "u1", "comments": [{"id": "c3"}]}]"#
            )
        ]
        let first =
            #"[{"id": "p1", "title": "A", "author": {"id": "u2", "name": "Ben"}, "tags": [{"name": "a"}, {"name": "b"}], "comments": [{"id": "c2"}, {"id": "c4"}]}, {"id": "p2", "title": "A", "comments": [{"id": "c1"}]}]"#
        let second =
            #"[{"id": "p2", "title": "B", "author": {"id": "u2", "name": "Bob"}, "comments": [{"id": "c2"}, {"id": "c3"}], "tags": [{"name": "d"}]}, {"id": "p1", "title": "B", "tags": [{"name": "c"}, {"name": "d"}], "comments": [{"id": "c5"}]}]"#
        let plain = PopulationOptions()
        let firstThenSecond = try Self.serialState(initial: initial, [("Post", first, plain), ("Post", second, plain)])
        let secondThenFirst = try Self.serialState(initial: initial, [("Post", second, plain), ("Post", first, plain)])
        #expect(firstThenSecond != secondThenFirst)

        var seen: Set<Int> = []
        for round in 0..<12 {
            let location = try PostgreSQLStores.newDatabase()
            let setup = try Self.store(Self.feedSchema(), at: location)
            for (entity, body) in initial { _ = try Self.populate(setup, body, entity: entity) }
            setup.close()
            let stores = try (0..<2).map { _ in try Self.store(Self.feedSchema(), at: location) }
            for store in stores { _ = try store.count("Post") }
            let bodies = [try Self.response(first), try Self.response(second)]
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<2 {
                    let store = stores[index]
                    let body = bodies[(index + round) % 2 == 0 ? 0 : 1]
                    group.addTask {
                        do throws(WebRecordError) {
                            _ = try await store.populate(body, entity: "Post")
                            return "ok"
                        } catch { return "failed: \(error)" }
                    }
                }
                var outcomes: [String] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes == ["ok", "ok"], "round \(round): \(outcomes)")
            let end = try Self.state(stores[0])
            for store in stores { store.close() }
            if end == firstThenSecond {
                seen.insert(0)
            } else if end == secondThenFirst {
                seen.insert(1)
            } else {
                Issue.record(
                    "round \(round) ended as \(end); the serial orders give \(firstThenSecond) or \(secondThenFirst)")
            }
        }
    }
}
