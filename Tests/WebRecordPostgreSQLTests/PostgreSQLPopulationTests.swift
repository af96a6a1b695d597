import Foundation
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Populations into a PostgreSQL store end with the same rows, table by table, as the same
/// populations into a SQLite store, and report the same changes: the real fixtures, then a
/// sequence of responses that exercises every kind of relationship, merge and deletion.
@Suite struct PostgreSQLPopulationTests {
    /// A shipped schema, a fixture, and the entity its records are.
    struct Fixture: Sendable, CustomStringConvertible {
        var schema: String
        var response: String
        var entity: String
        /// Where the record is, for a response that holds one record elsewhere than the
        /// entity's key path (it is populated as an array of that one record).
        var recordPath: String? = nil
        var description: String { "\(schema) \(response)" }
    }

    static let fixtures = [
        Fixture(schema: "AppNet", response: "appnet-posts.json", entity: "Post"),
        Fixture(schema: "Foursquare", response: "foursquare-venues.json", entity: "Venue"),
        Fixture(schema: "Foursquare", response: "foursquare-venue.json", entity: "Venue", recordPath: "response.venue"),
        Fixture(schema: "Atlassian", response: "atlassian-issue.json", entity: "Issue"),
        Fixture(schema: "Atlassian", response: "atlassian-plans.json", entity: "Plan"),
    ]

    @Test(arguments: fixtures)
    func aFixtureGivesTheSameRowsInBothStores(fixture: Fixture) throws {
        let schema = try PostgreSQLStores.shippedSchema(fixture.schema)
        var response = try PostgreSQLStores.fixture(fixture.response)
        if let path = fixture.recordPath { response = .array([try #require(response.value(atKeyPath: path))]) }
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)

        let expected = try ResponsePopulation(store: sqlite).populate(response, entity: fixture.entity)
        let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: fixture.entity)
        #expect(result.changes == expected.changes)
        #expect(result.changes.inserted > 0)
        #expect(result.records.map(\.primaryKeyValue) == expected.records.map(\.primaryKeyValue))
        #expect(result.records.map(\.rowID) == expected.records.map(\.rowID))
        let content = try PostgreSQLStores.content(of: postgreSQL)
        #expect(content == (try PostgreSQLStores.content(of: sqlite)))
        #expect(content.values.contains { !$0.isEmpty })

        // A re-import writes nothing, in both.
        let again = try ResponsePopulation(store: postgreSQL).populate(response, entity: fixture.entity)
        #expect(again.changes.inserted == 0)
        #expect(again.changes.updated == 0)
        #expect(
            again.changes == (try ResponsePopulation(store: sqlite).populate(response, entity: fixture.entity)).changes)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == content)
    }

    @Test func aStreamedResponseInSmallBatchesGivesTheSameRowsInBothStores() async throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let data = try Data(
            contentsOf: PostgreSQLStores.packageRoot.appendingPathComponent(
                "Tests/WebRecordTests/Fixtures/mmrecord/appnet-posts.json"))
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        // Batches of a few records: new rows get their _ids batch after batch.
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 4_000)
        }
        let expected = try await ResponsePopulation(store: sqlite).populate(streaming: open, entity: "Post")
        let result = try await ResponsePopulation(store: postgreSQL).populate(streaming: open, entity: "Post")
        #expect(result.changes == expected.changes)
        #expect(result.changes.inserted == 94)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == (try PostgreSQLStores.content(of: sqlite)))
    }

    /// Posts with an ordered many-to-many (tags), a replaced and cascading to-many (comments),
    /// a one-to-one identified by its owner (counts), a composite key (events) and a hierarchy
    /// (shapes).
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "integer" }, "text": { "type": "string" }, "date": { "type": "date" },
                "score": { "type": "double" }, "flag": { "type": "boolean" }, "price": { "type": "decimal" },
                "extra": { "type": "json" }, "blob": { "type": "data" }, "uuid": { "type": "uuid" }
              },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "tags": { "destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts" },
                "comments": { "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post",
                              "merge": "replace", "deleteRule": "cascade" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
                "counts": { "destination": "Counts", "inverse": "user" }
              }
            },
            "Counts": {
              "primaryKey": "user",
              "attributes": { "followers": { "type": "integer" } },
              "relationships": { "user": { "destination": "User", "inverse": "counts" } }
            },
            "Tag": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags", "merge": "union" } }
            },
            "Comment": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "body": { "type": "string" } },
              "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
            },
            "Event": {
              "primaryKey": ["source", "number"],
              "attributes": { "source": { "type": "string" }, "number": { "type": "integer" }, "label": { "type": "string" } }
            },
            "Shape": {
              "primaryKey": "id",
              "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
              "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" } }
            },
            "Circle": { "parent": "Shape", "attributes": { "radius": { "type": "double" } } },
            "Square": { "parent": "Shape", "attributes": { "side": { "type": "double" } } }
          }
        }
        """

    /// Responses populated one after another, each with its entity.
    static let steps: [(entity: String, json: String)] = [
        (
            "Post",
            #"""
            {"data": [
              {"id": 1, "text": "it's \"quoted\" — café 東京", "date": "2012-11-21T02:33:42.123000000Z", "score": 0.1,
               "flag": true, "price": "12.345", "extra": {"z": 1, "a": [true, null, "x"]}, "blob": "AAEC/w==",
               "uuid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
               "user": {"id": "u1", "name": "Ann", "counts": {"followers": 10}},
               "tags": [{"name": "swift"}, {"name": "sql"}, "postgres"],
               "comments": [{"id": 10, "body": "first"}, {"id": 11, "body": "second"}, {"id": 12, "body": "third"}]},
              {"id": 2, "text": "second", "flag": false, "user": "u1", "tags": ["sql"],
               "comments": [{"id": 20, "body": "only"}]},
              {"id": 3, "text": "third", "user": {"id": "u2", "name": "Bob"}}
            ]}
            """#
        ),
        (
            "Post",
            #"""
            {"data": [
              {"id": 1, "text": "edited", "price": "-0.5", "tags": ["postgres", "swift"],
               "comments": [{"id": 12, "body": "third, now first"}, {"id": 13, "body": "new"}],
               "user": {"id": "u2", "counts": {"followers": 3}}},
              {"id": 2, "comments": null, "tags": ["swift", "sql", "go"]},
              {"id": 4, "text": null, "date": 1353465222, "user": "u3"}
            ]}
            """#
        ),
        (
            "Event",
            #"[{"source": "a", "number": 1, "label": "x"}, {"source": "a", "number": 2}, {"source": "b", "number": 1}]"#
        ),
        ("Event", #"[{"source": "a", "number": 1, "label": "y"}, {"source": "b", "number": 1, "label": null}]"#),
        ("Shape", #"[{"id": 1, "kind": "circle", "radius": 2.5}, {"id": 2, "kind": "square", "side": 4}]"#),
        ("Shape", #"[{"id": 1, "kind": "square", "side": 1}, {"id": 3, "kind": "circle", "radius": 1e-7}]"#),
    ]

    @Test func aSequenceOfResponsesGivesTheSameRowsAndChangesInBothStores() throws {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Graph.json")
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        for (index, step) in Self.steps.enumerated() {
            let response = try JSONReader().read(step.json)
            let expected = try ResponsePopulation(store: sqlite).populate(response, entity: step.entity)
            let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: step.entity)
            #expect(result.changes == expected.changes, "step \(index)")
            #expect(
                result.debugger.errors.map(\.code) == expected.debugger.errors.map(\.code), "step \(index)")
            let content = try PostgreSQLStores.content(of: postgreSQL)
            let sqliteContent = try PostgreSQLStores.content(of: sqlite)
            for table in sqliteContent.keys.sorted() {
                #expect(content[table] == sqliteContent[table], "step \(index), table \(table)")
            }
        }
        // The steps did what they say: links moved, a comment went with its list, a shape changed kind.
        let content = try PostgreSQLStores.content(of: postgreSQL)
        // Post 1's list was replaced by 12 and 13 (10 and 11 went with it: cascade), post 2's emptied.
        #expect(content["Comment"]?.map { $0[2] } == [.integer(12), .integer(13)])
        #expect(content["_Post_tags"]?.isEmpty == false)
        #expect(content["Shape"]?.map { $0[1] } == [.text("Square"), .text("Square"), .text("Circle")])
    }

    @Test func orphansAreDeletedAsInSQLite() throws {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Graph.json")
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        var options = PopulationOptions()
        options.deleteOrphans = .matching("\"body\" IS NOT NULL OR \"id\" > ?", [25])
        let first = try JSONReader().read(Self.steps[0].json)
        let comments = try JSONReader().read(#"[{"id": 11, "body": "kept"}, {"id": 30}]"#)
        _ = try ResponsePopulation(store: sqlite).populate(first, entity: "Post")
        _ = try ResponsePopulation(store: postgreSQL).populate(first, entity: "Post")
        let expected = try ResponsePopulation(store: sqlite, options: options).populate(comments, entity: "Comment")
        let result = try ResponsePopulation(store: postgreSQL, options: options).populate(comments, entity: "Comment")
        #expect(result.changes == expected.changes)
        #expect(result.changes.deleted == 3)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == (try PostgreSQLStores.content(of: sqlite)))
    }

    @Test func aTextWithANULCharacterFailsThePopulationAndWritesNothing() throws {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Graph.json")
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(Self.steps[0].json), entity: "Post")
        let before = try PostgreSQLStores.content(of: postgreSQL)
        let error = try #require(throws: WebRecordError.self) {
            _ = try ResponsePopulation(store: postgreSQL).populate(
                .array([["id": 1, "text": .string("before\u{0}after")], ["id": 9, "text": "new"]]), entity: "Post")
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("NUL"))
        #expect(error.message.contains("column 'text' of table 'Post'"), "\(error)")
        #expect(try PostgreSQLStores.content(of: postgreSQL) == before)
        // A new record's text goes in with COPY; a key with a NUL, in a lookup's array: each
        // names its column and table.
        let new = try #require(throws: WebRecordError.self) {
            _ = try ResponsePopulation(store: postgreSQL).populate(
                .array([["id": 10, "text": .string("new\u{0}")]]), entity: "Post")
        }
        #expect(new.message.contains("a value of column 'text' of table 'Post' (the row with _id "), "\(new)")
        #expect(new.message.contains("NUL character"), "\(new)")
        #expect(try PostgreSQLStores.content(of: postgreSQL) == before)
    }
}
