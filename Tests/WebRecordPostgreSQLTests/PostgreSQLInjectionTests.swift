import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The SQL-injection payloads of the SQLite store's security tests (`InjectionPayloads`), on a
/// PostgreSQL store: as keys and attribute values they are stored verbatim, as a SQLite store
/// stores them; as the namespace they name a schema and nothing else; names the schema allows
/// that SQL reserves (`user`, `select`, `order`) are quoted. No table is dropped, no statement
/// but the store's runs.
@Suite struct PostgreSQLInjectionTests {
    /// App.net's posts, each carrying `payload` in its key and in every string field.
    static func response(_ payloads: [String]) -> JSONValue {
        var posts: [JSONValue] = []
        for (index, payload) in payloads.enumerated() {
            posts.append([
                "id": .string("\(index)\(payload)"), "text": .string(payload), "thread_id": .string(payload),
                "source": ["client_id": .string(payload), "link": .string(payload), "name": .string(payload)],
                "user": [
                    "id": .string("u\(index)\(payload)"), "name": .string(payload),
                    "avatar_image": ["url": .string(payload)],
                    "cover_image": ["url": .string(payload), "width": 1, "height": 2],
                    "counts": ["followers": 1],
                ],
            ])
        }
        return ["data": .array(posts)]
    }

    /// The tables of the schema (namespace) `namespace`, by name, read from the catalog.
    static func tables(in namespace: String, of database: PostgreSQLDatabase) throws -> [String] {
        try database.withConnection { connection in
            try connection.rows(
                "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 ORDER BY tablename",
                [.text(namespace)])
        }.compactMap { row in
            if case .text(let name)? = row.first { return name }
            return nil
        }
    }

    /// The table names a store of `layout` holds: its tables, join tables and metadata.
    static func tableNames(of layout: StorageLayout) -> [String] {
        (layout.tables.map(\.name) + layout.joinTables.map(\.name) + ["_webrecord_metadata"]).sorted()
    }

    @Test func payloadsInKeysAndValuesAreStoredVerbatim() throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let payloads = InjectionPayloads.valuesWithoutNUL
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let backend = try PostgreSQLSessions.backend(of: postgreSQL)

        let response = Self.response(payloads)
        let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Post")
        #expect(result.records.count == payloads.count)
        #expect(result.debugger.warnings.isEmpty, "\(result.debugger)")
        _ = try ResponsePopulation(store: sqlite).populate(response, entity: "Post")
        // Row for row what a SQLite store holds.
        let content = try PostgreSQLStores.content(of: postgreSQL)
        #expect(content == (try PostgreSQLStores.content(of: sqlite)))

        try postgreSQL.withConnection { connection in
            for (index, payload) in payloads.enumerated() {
                let post = try connection.rows(
                    "SELECT \"text\", \"thread_id\" FROM \"Post\" WHERE \"id\" = $1", [.text("\(index)\(payload)")])
                #expect(post == [[.text(payload), .text(payload)]], "\(payload)")
                let user = try connection.rows(
                    "SELECT \"name\", \"avatarImagePath\", \"coverImagePath\" FROM \"User\" WHERE \"id\" = $1",
                    [.text("u\(index)\(payload)")])
                #expect(user == [[.text(payload), .text(payload), .text(payload)]], "\(payload)")
                #expect(
                    try connection.scalar("SELECT count(*) FROM \"Post\" WHERE \"text\" = $1", [.text(payload)])
                        == .integer(1), "\(payload)")
            }
            let clientIDs = try connection.rows("SELECT \"clientID\" FROM \"Source\"").map { $0[0] }
            #expect(Set(clientIDs) == Set(payloads.map(DatabaseValue.text)))
            let urls = try connection.rows("SELECT \"url\" FROM \"CoverImage\"").map { $0[0] }
            #expect(Set(urls) == Set(payloads.map(DatabaseValue.text)))
        }
        // Every table is there, the session is the same (no payload ended it), no file was made.
        #expect(try Self.tables(in: "public", of: postgreSQL) == Self.tableNames(of: postgreSQL.layout))
        #expect(try PostgreSQLSessions.backend(of: postgreSQL) == backend)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil"))

        // A re-import finds every record by its key and changes nothing.
        let again = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Post")
        #expect(again.changes.inserted == 0)
        #expect(again.changes.updated == 0)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == content)
    }

    @Test func aPayloadWithANULCharacterIsRefusedAndWritesNothing() throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try ResponsePopulation(store: postgreSQL).populate(Self.response(["plain"]), entity: "Post")
        let before = try PostgreSQLStores.content(of: postgreSQL)
        let withNUL = InjectionPayloads.values.filter { $0.contains("\u{0}") }
        #expect(!withNUL.isEmpty)
        for payload in withNUL {
            let error = try #require(throws: WebRecordError.self) {
                _ = try ResponsePopulation(store: postgreSQL).populate(Self.response([payload]), entity: "Post")
            }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("NUL"))
            // The key is looked up first: the error names its column.
            #expect(error.message.hasPrefix("a value of column 'id' of table 'Post': "), "\(error)")
            #expect(try PostgreSQLStores.content(of: postgreSQL) == before)
        }
    }

    /// Every payload and refused name that PostgreSQL can take as a schema name: at most 63
    /// bytes, no NUL, not empty, not `pg_`.
    static let namespaces = (InjectionPayloads.names + InjectionPayloads.values).filter { name in
        !name.isEmpty && !name.contains("\u{0}") && name.utf8.count <= 63 && !name.hasPrefix("pg_")
    }

    @Test func payloadsAsTheNamespaceNameOnlyThatSchema() throws {
        let schema = try Schema(
            json: #"""
                {"version": 1, "entities": {
                  "Post": {"primaryKey": "id",
                    "attributes": {"id": {"type": "string"}, "title": {"type": "string"}},
                    "relationships": {"user": {"destination": "User", "inverse": "posts"}}},
                  "User": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
                    "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "user"}}}
                }}
                """#, fileName: "Small.json")
        let location = try PostgreSQLStores.newDatabase()
        let control = try PostgreSQLStores.postgreSQL(schema, at: location)
        _ = try ResponsePopulation(store: control).populate(
            .array([["id": "1", "title": "control", "user": "u1"]]), entity: "Post")
        let controlContent = try PostgreSQLStores.content(of: control)
        #expect(Self.namespaces.count > 20)

        for namespace in Self.namespaces {
            let store = try PostgreSQLStores.postgreSQL(schema, at: location, namespace: namespace)
            let result = try ResponsePopulation(store: store).populate(
                .array([["id": .string(namespace), "title": .string(namespace), "user": .string(namespace)]]),
                entity: "Post")
            #expect(result.changes.inserted == 2, "\(namespace)")
            #expect(try Self.tables(in: namespace, of: store) == Self.tableNames(of: store.layout), "\(namespace)")
            let stored = try store.withConnection { connection in
                try connection.rows(
                    "SELECT \"id\", \"title\" FROM \(pgQuote(namespace)).\"Post\" WHERE \"id\" = $1",
                    [.text(namespace)])
            }
            #expect(stored == [[.text(namespace), .text(namespace)]], "\(namespace)")
        }
        // Each namespace holds its own tables, and the control store's are untouched.
        #expect(try Self.tables(in: "public", of: control) == Self.tableNames(of: control.layout))
        #expect(try PostgreSQLStores.content(of: control) == controlContent)
        let schemas = try control.withConnection { connection in
            try connection.scalar(
                "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = ANY($1::text[])",
                [try PostgreSQLArray.literal(Self.namespaces.map(DatabaseValue.text))])
        }
        #expect(schemas == .integer(Int64(Self.namespaces.count)))
    }

    @Test func namesTheSchemaAllowsThatSQLReservesAreQuoted() throws {
        // Identifiers to a schema, keywords to SQL: each table, column and join table is quoted.
        let schema = try Schema(
            json: #"""
                {"version": 1, "entities": {
                  "Order": {"primaryKey": "select",
                    "attributes": {"select": {"type": "string"}, "from": {"type": "string"}, "where": {"type": "integer"},
                      "limit": {"type": "integer"}, "desc": {"type": "boolean"}, "default": {"type": "string"}},
                    "relationships": {
                      "user": {"destination": "table", "inverse": "order"},
                      "group": {"destination": "table", "toMany": true, "ordered": true, "inverse": "having"}}},
                  "table": {"primaryKey": "column", "attributes": {"column": {"type": "string"}},
                    "relationships": {
                      "order": {"destination": "Order", "toMany": true, "inverse": "user"},
                      "having": {"destination": "Order", "toMany": true, "inverse": "group"}}}
                }}
                """#, fileName: "Reserved.json")
        let response = try JSONReader().read(
            #"""
            [{"select": "'; DROP TABLE \"Order\"; --", "from": "a", "where": 1, "limit": 2, "desc": true,
              "default": "$1", "user": {"column": "x"}, "group": ["y", "x"]},
             {"select": "b", "from": null, "where": -1, "user": "y", "group": []}]
            """#)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Order")
        let expected = try ResponsePopulation(store: sqlite).populate(response, entity: "Order")
        #expect(result.changes == expected.changes)
        #expect(result.changes.inserted == 4)
        let content = try PostgreSQLStores.content(of: postgreSQL)
        #expect(content == (try PostgreSQLStores.content(of: sqlite)))
        #expect(content["Order"]?.count == 2)
        #expect(try Self.tables(in: "public", of: postgreSQL) == Self.tableNames(of: postgreSQL.layout))
        #expect(Self.tableNames(of: postgreSQL.layout).contains("table"))
    }
}
