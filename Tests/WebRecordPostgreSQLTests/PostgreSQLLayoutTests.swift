import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The layout in PostgreSQL: the SQLite layout's tables with PostgreSQL's types, made and
/// migrated by the first write transaction, in the store's schema (namespace).
@Suite struct PostgreSQLLayoutTests {
    static let samplesJSON = """
        {
          "entities": {
            "Sample": {
              "primaryKey": "s",
              "attributes": {
                "s": { "type": "string" }, "i": { "type": "integer", "indexed": true }, "d": { "type": "double" },
                "m": { "type": "decimal" }, "b": { "type": "boolean" }, "t": { "type": "date" },
                "x": { "type": "data" }, "u": { "type": "uuid" }, "l": { "type": "url" }, "j": { "type": "json" }
              },
              "relationships": {
                "owner": { "destination": "Owner", "inverse": "samples" },
                "labels": { "destination": "Label", "toMany": true, "ordered": true }
              }
            },
            "Owner": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "samples": { "destination": "Sample", "toMany": true, "inverse": "owner" } }
            },
            "Label": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }
          }
        }
        """

    static func samples(_ json: String = samplesJSON) throws -> Schema {
        try Schema(json: json, fileName: "Samples.json")
    }

    /// Each column of `table` in `namespace`: its type as `format_type` writes it, and its
    /// collation when it has one.
    func columns(of table: String, in database: PostgreSQLDatabase, namespace: String = "public") throws -> [String:
        String]
    {
        let rows = try database.withConnection { connection in
            try connection.rows(
                """
                SELECT a.attname, format_type(a.atttypid, a.atttypmod) || coalesce(' COLLATE ' || c.collname, '')
                  || CASE WHEN a.attidentity <> '' THEN ' IDENTITY' ELSE '' END
                  || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                FROM pg_catalog.pg_attribute a
                LEFT JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation AND c.collname <> 'default'
                WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
                """, [.text("\"\(namespace)\".\"\(table)\"")])
        }
        var columns: [String: String] = [:]
        for row in rows {
            if case .text(let name) = row[0], case .text(let type) = row[1] { columns[name] = type }
        }
        return columns
    }

    @Test func theFirstWriteMakesTheTablesWithPostgreSQLTypes() throws {
        let database = try PostgreSQLStores.postgreSQL(try Self.samples())
        #expect(try columns(of: "Sample", in: database).isEmpty)
        try database.write { _ in }
        #expect(
            try columns(of: "Sample", in: database) == [
                "_id": "bigint IDENTITY NOT NULL", "_entity": "text COLLATE C NOT NULL", "s": "text COLLATE C",
                "i": "bigint", "d": "double precision", "m": "numeric", "b": "boolean",
                "t": "text COLLATE C", "x": "bytea", "u": "text COLLATE C", "l": "text COLLATE C",
                "j": "text COLLATE C", "owner": "bigint",
            ])
        #expect(
            try columns(of: "_Sample_labels", in: database) == [
                "owner": "bigint NOT NULL", "target": "bigint NOT NULL", "position": "bigint",
            ])
        let indexes = try database.withConnection { connection in
            try connection.rows(
                "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%pkey' ORDER BY indexname"
            ).map { $0[0] }
        }
        #expect(
            indexes
                == [
                    "_index_Sample_i", "_index_Sample_owner", "_index__Sample_labels_target", "_pk_Label", "_pk_Owner",
                    "_pk_Sample",
                ].sorted().map { .text($0) })
        // Every foreign key is checked at the commit, as the SQLite store checks references.
        let foreignKeys = try database.withConnection { connection in
            try connection.rows(
                "SELECT conrelid::regclass::text, condeferrable, condeferred, confdeltype FROM pg_constraint WHERE contype = 'f' ORDER BY 1"
            )
        }
        #expect(
            foreignKeys == [
                [.text("\"Sample\""), .integer(1), .integer(1), .text("n")],
                [.text("\"_Sample_labels\""), .integer(1), .integer(1), .text("c")],
                [.text("\"_Sample_labels\""), .integer(1), .integer(1), .text("c")],
            ])
    }

    @Test func theMetadataTableHoldsTheSameLayoutRecordAsSQLite() throws {
        let schema = try Self.samples()
        let database = try PostgreSQLStores.postgreSQL(schema)
        try database.write { _ in }
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let sql = "SELECT \"key\", \"value\" FROM \"_webrecord_metadata\""
        let stored = try database.withConnection { try $0.rows(sql) }
        #expect(stored.count == 1)
        #expect(stored == (try sqlite.read { try $0.rows(sql) }))
    }

    @Test func anAdditiveChangeMigratesInPlaceKeepingTheRows() throws {
        let location = try PostgreSQLStores.newDatabase()
        let old = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location)
        _ = try ResponsePopulation(store: old).populate(.array([["s": "a", "i": 1]]), entity: "Sample")
        let added = Self.samplesJSON.replacingOccurrences(
            of: #""s": { "type": "string" },"#, with: #""s": { "type": "string" }, "n": { "type": "string" },"#
        ).replacingOccurrences(
            of: #""Label": { "primaryKey": "name","#,
            with: #""Note": { "attributes": { "v": { "type": "integer" } } }, "Label": { "primaryKey": "name","#)
        let new = try PostgreSQLStores.postgreSQL(try Self.samples(added), at: location)
        _ = try ResponsePopulation(store: new).populate(.array([["s": "b", "n": "new"]]), entity: "Sample")
        #expect(try columns(of: "Sample", in: new)["n"] == "text COLLATE C")
        #expect(try columns(of: "Note", in: new)["v"] == "bigint")
        let rows = try new.withConnection { try $0.rows("SELECT \"s\", \"i\", \"n\" FROM \"Sample\" ORDER BY \"_id\"") }
        #expect(rows == [[.text("a"), .integer(1), .null], [.text("b"), .null, .text("new")]])
    }

    @Test func anIncompatibleChangeIsRefusedWithSQLitesErrorAndChangesNothing() throws {
        let changed = Self.samplesJSON.replacingOccurrences(
            of: #""i": { "type": "integer", "indexed": true }"#, with: #""i": { "type": "string", "indexed": true }"#)
        // SQLite's error for the same change.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteDatabase(path: directory.path, schema: try Self.samples(), options: .init())
        try sqlite.write { _ in }
        sqlite.close()
        let sqliteError = try #require(throws: WebRecordError.self) {
            _ = try SQLiteDatabase(path: directory.path, schema: try Self.samples(changed), options: .init())
        }

        let location = try PostgreSQLStores.newDatabase()
        let old = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location)
        _ = try ResponsePopulation(store: old).populate(.array([["s": "a", "i": 1]]), entity: "Sample")
        let metadata = try old.withConnection { try $0.rows("SELECT \"value\" FROM \"_webrecord_metadata\"") }
        let new = try PostgreSQLStores.postgreSQL(try Self.samples(changed), at: location)
        let error = try #require(throws: WebRecordError.self) {
            _ = try ResponsePopulation(store: new).populate(.array([["s": "b", "i": "2"]]), entity: "Sample")
        }
        #expect(error.code == .incompatibleStore)
        // The same message; SQLite's names the store's file first.
        #expect(sqliteError.message == "the store '\(directory.path)': " + error.message)
        #expect(error.message.contains("Sample.i: changed from attribute integer to attribute string"))
        #expect(try columns(of: "Sample", in: old)["i"] == "bigint")
        #expect(try old.withConnection { try $0.rows("SELECT \"value\" FROM \"_webrecord_metadata\"") } == metadata)
        #expect(try old.withConnection { try $0.scalar("SELECT count(*) FROM \"Sample\"") } == .integer(1))
    }

    @Test func aReadWithASchemaTheTablesCannotBeMigratedToIsRefusedAndChangesNothing() throws {
        let location = try PostgreSQLStores.newDatabase()
        let old = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location)
        _ = try ResponsePopulation(store: old).populate(.array([["s": "a", "i": 1]]), entity: "Sample")
        let metadata = try old.withConnection { try $0.rows("SELECT \"value\" FROM \"_webrecord_metadata\"") }
        let changes = [
            (#""i": { "type": "integer", "indexed": true }"#, #""i": { "type": "string", "indexed": true }"#),
            (#""primaryKey": "s","#, #""primaryKey": "d","#),
        ]
        for (from, to) in changes {
            let changed = Self.samplesJSON.replacingOccurrences(of: from, with: to)
            #expect(changed != Self.samplesJSON)
            let store = RecordStore(
                database: try PostgreSQLStores.postgreSQL(try Self.samples(changed), at: location),
                configuration: RecordStore.Configuration())
            // Every kind of read: none reads the rows as the changed schema would, with no error.
            let reads: [(String, () throws -> Void)] = [
                ("fetch", { _ = try store.fetch("Sample") }), ("count", { _ = try store.count("Sample") }),
                ("export", { _ = try store.exportJSON(entity: "Sample") }),
            ]
            for (name, read) in reads {
                let error = try #require(throws: WebRecordError.self, "\(name) after \(to)") { try read() }
                #expect(error.code == .incompatibleStore, "\(name): \(error)")
            }
        }
        #expect(try old.withConnection { try $0.rows("SELECT \"value\" FROM \"_webrecord_metadata\"") } == metadata)
        #expect(try columns(of: "Sample", in: old)["i"] == "bigint")
        #expect(try old.withConnection { try $0.scalar("SELECT count(*) FROM \"Sample\"") } == .integer(1))
    }

    @Test func aNegativeZeroIsStoredAsZeroAsSQLiteStoresIt() throws {
        let schema = try Self.samples()
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let first: JSONValue = .array([["s": "a", "d": -0.0], ["s": "b", "d": 1.5]])
        let second: JSONValue = .array([["s": "b", "d": -0.0]])  // an update, written from arrays
        for response in [first, second] {
            _ = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Sample")
            _ = try ResponsePopulation(store: sqlite).populate(response, entity: "Sample")
        }
        #expect(try PostgreSQLStores.content(of: postgreSQL) == PostgreSQLStores.content(of: sqlite))
        let stored = try postgreSQL.withConnection {
            try $0.rows("SELECT \"s\", \"d\"::text FROM \"Sample\" ORDER BY \"s\"")
        }
        #expect(stored == [[.text("a"), .text("0")], [.text("b"), .text("0")]])
    }

    @Test func aDateOfTheYearZeroIsStoredAsSQLiteKeepsIt() throws {
        let schema = try Self.samples()
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let response: JSONValue = .array([
            ["s": "a", "t": "0000-02-29T12:00:00.500000000Z"], ["s": "b", "t": "0001-01-01T00:00:00Z"],
            ["s": "c", "t": "9999-12-31T23:59:59.999000000Z"],
        ])
        let changed: JSONValue = .array([["s": "b", "t": "0000-12-31T23:59:59.999000000Z"]])  // an update
        for step in [response, changed] {
            _ = try ResponsePopulation(store: postgreSQL).populate(step, entity: "Sample")
            _ = try ResponsePopulation(store: sqlite).populate(step, entity: "Sample")
        }
        #expect(try PostgreSQLStores.content(of: postgreSQL) == PostgreSQLStores.content(of: sqlite))
        // The stored text, year 0000 included (a date column is text: timestamptz has no year 0).
        let stored = try postgreSQL.withConnection {
            try $0.rows("SELECT \"s\", \"t\" FROM \"Sample\" ORDER BY \"t\"")
        }
        #expect(
            stored == [
                [.text("a"), .text("0000-02-29T12:00:00.500000000Z")],
                [.text("b"), .text("0000-12-31T23:59:59.999000000Z")],
                [.text("c"), .text("9999-12-31T23:59:59.999000000Z")],
            ])
        // Read back as the response gave them, a re-import changes nothing.
        let again = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Sample")
        #expect(again.changes.updated == 1, "only b, whose date the response sets back")
        #expect(again.changes.unchanged == 2, "a and c read back as the response gives them")
    }

    @Test func aRoleThatMayNotUseTheNamespaceIsToldSo() throws {
        let server = try PostgreSQLTestServer.shared()
        let name = try server.makeDatabase()
        let owner = try PostgreSQLConnection(server.conninfo(database: name))
        let role = "reader_\(UUID().uuidString.prefix(8).lowercased())"
        try owner.execute("CREATE ROLE \(role) LOGIN")
        try owner.execute("CREATE SCHEMA mirror")
        var options = PostgreSQLDatabase.Options()
        options.namespace = "mirror"
        let database = try PostgreSQLDatabase(
            server.conninfo(database: name) + " user=\(role)", schema: try Self.samples(), options: options)
        let store = RecordStore(database: database, configuration: RecordStore.Configuration())
        for read in [{ _ = try store.count("Sample") }, { _ = try store.fetch("Sample") }] {
            let error = try #require(throws: WebRecordError.self) { try read() }
            #expect(error.code == .storeError)
            #expect(
                error.message.hasPrefix("the role '\(role)' may not use the schema 'mirror'"), "\(error)")
        }
        try owner.execute("GRANT USAGE, CREATE ON SCHEMA mirror TO \(role)")
        #expect(try store.count("Sample") == 0)
    }

    @Test func tablesOfAnotherProgramAreRefused() throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location)
        _ = try database.withConnection { try $0.execute("CREATE TABLE \"theirs\" (\"a\" integer)") }
        let error = try #require(throws: WebRecordError.self) { try database.write { _ in } }
        #expect(error.code == .incompatibleStore)
        #expect(error.message.contains("tables that WebRecord did not create ('theirs')"))
    }

    @Test func twoWorkersCreatingTheTablesAtOnceBothSucceed() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let schema = try Self.samples()
        let workers = try (0..<4).map { _ in try PostgreSQLStores.postgreSQL(schema, at: location) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, worker) in workers.enumerated() {
                group.addTask {
                    let result = try await ResponsePopulation(store: worker).populate(
                        .array([["s": .string("w\(index)"), "owner": ["id": .integer(Int64(index))]]]),
                        entity: "Sample")
                    return result.changes.inserted
                }
            }
            var inserted = 0
            for try await count in group { inserted += count }
            #expect(inserted == 8)
        }
        let counts = try workers[0].withConnection { connection in
            try connection.rows("SELECT (SELECT count(*) FROM \"Sample\"), (SELECT count(*) FROM \"Owner\")")
        }
        #expect(counts == [[.integer(4), .integer(4)]])
        let ids = try workers[0].withConnection { try $0.rows("SELECT \"_id\" FROM \"Sample\" ORDER BY \"_id\"") }
        #expect(Set(ids).count == 4)
    }

    @Test func aStoreLivesInTheSchemaItIsTold() throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location, namespace: "ingest")
        _ = try ResponsePopulation(store: database).populate(.array([["s": "a"]]), entity: "Sample")
        #expect(try columns(of: "Sample", in: database, namespace: "ingest")["s"] == "text COLLATE C")
        #expect(try columns(of: "Sample", in: database, namespace: "public").isEmpty)
        // Another schema of the same database is another store.
        let other = try PostgreSQLStores.postgreSQL(try Self.samples(), at: location, namespace: "other")
        _ = try ResponsePopulation(store: other).populate(.array([["s": "b"], ["s": "c"]]), entity: "Sample")
        #expect(try database.withConnection { try $0.scalar("SELECT count(*) FROM \"Sample\"") } == .integer(1))
        #expect(try other.withConnection { try $0.scalar("SELECT count(*) FROM \"Sample\"") } == .integer(2))
    }

    @Test func namesLongerThanPostgreSQLKeepsAreRefusedClearly() throws {
        let long = String(repeating: "a", count: 60)
        let json = """
            {"entities": {"\(long)": {"primaryKey": "id", "attributes": {"id": {"type": "integer", "indexed": true}}}}}
            """
        let error = try #require(throws: WebRecordError.self) {
            _ = try PostgreSQLDatabase(try PostgreSQLStores.newDatabase(), schema: try Self.samples(json))
        }
        #expect(error.code == .invalidSchema)
        #expect(
            error.message.contains("the index name '_pk_\(long)' is 64 bytes; PostgreSQL names are at most 63 bytes"))
        #expect(error.entity == long)
        let namespace = try #require(throws: WebRecordError.self) {
            var options = PostgreSQLDatabase.Options()
            options.namespace = String(repeating: "é", count: 32)
            _ = try PostgreSQLDatabase(try PostgreSQLStores.newDatabase(), schema: try Self.samples(), options: options)
        }
        #expect(namespace.message.contains("is 64 bytes"))
    }
}
