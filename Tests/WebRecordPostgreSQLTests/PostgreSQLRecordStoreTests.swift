import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A ``RecordStore`` opened on PostgreSQL, through the library and through `webrecord`'s
/// `--db URL`: the same fetches, exports and populations as on SQLite.
@Suite("RecordStore on PostgreSQL")
struct PostgreSQLRecordStoreTests {
    /// The App.net response the README populates.
    static var appNetFile: URL { PostgreSQLStores.packageRoot.appendingPathComponent("Examples/AppNet/posts.json") }
    static var appNetSchemaFile: URL { PostgreSQLStores.packageRoot.appendingPathComponent("Schemas/AppNet.json") }

    /// A store on a new database of the test server, opened by URL, and one in SQLite memory.
    static func stores() throws -> (postgreSQL: RecordStore, sqlite: RecordStore) {
        let schema = try Schema(contentsOf: appNetSchemaFile)
        let server = try PostgreSQLTestServer.shared()
        let url = server.url(database: try server.makeDatabase())
        return (try RecordStore(postgreSQL: url, schema: schema), try RecordStore(inMemory: schema))
    }

    @Test("fetch, count, fetchOne, relationships and export agree with SQLite")
    func readsAgree() async throws {
        let (postgreSQL, sqlite) = try Self.stores()
        let response = try JSONReader().read(Data(contentsOf: Self.appNetFile))
        let expected = try await sqlite.populate(response, entity: "Post")
        let result = try await postgreSQL.populate(response, entity: "Post")
        #expect(result.changes == expected.changes)
        #expect(Self.keys(result.records) == Self.keys(expected.records))

        for entity in postgreSQL.schema.entities.map(\.name) {
            #expect(try postgreSQL.exportJSON(entity: entity) == sqlite.exportJSON(entity: entity), "\(entity)")
            #expect(try postgreSQL.count(entity) == sqlite.count(entity), "\(entity)")
        }
        let order: [WebRecord.SortOrder] = [.descending("date")]
        let posts = try postgreSQL.fetch("Post", where: "text LIKE ?", arguments: ["%a%"], orderBy: order, limit: 5)
        let sqlitePosts = try sqlite.fetch("Post", where: "text LIKE ?", arguments: ["%a%"], orderBy: order, limit: 5)
        #expect(posts.count == 5)
        #expect(Self.keys(posts) == Self.keys(sqlitePosts))
        let skipped = try postgreSQL.fetch("Post", orderBy: [.ascending("id")], offset: 18)
        #expect(Self.keys(skipped) == Self.keys(try sqlite.fetch("Post", orderBy: [.ascending("id")], offset: 18)))
        #expect(skipped.count == 2)

        let post = try #require(try postgreSQL.fetchOne("Post", primaryKey: "1644504"))
        let user = try #require(post.related("user") as Record?)
        let sqliteUser = try #require(try sqlite.fetchOne("Post", primaryKey: "1644504")?.related("user") as Record?)
        #expect(user.primaryKeyValue == sqliteUser.primaryKeyValue)
        #expect(Self.keys(user.relatedRecords("posts")).contains("1644504"))
        #expect(try postgreSQL.fetchOne("Post", primaryKey: "no such post") == nil)
    }

    /// The records' primary-key values, in order.
    static func keys(_ records: [Record]) -> [JSONValue?] {
        records.map { $0.primaryKeyValue }
    }

    @Test("a read before any write makes the tables and finds nothing")
    func readBeforeWrite() throws {
        let (postgreSQL, _) = try Self.stores()
        #expect(try postgreSQL.count("Post") == 0)
        #expect(try postgreSQL.exportJSON(entity: "User") == .array([]))
    }

    @Test("read(_:) and write(_:), which give a SQLite connection, refuse a PostgreSQL store by name")
    func connectionAccessRefused() throws {
        let (postgreSQL, _) = try Self.stores()
        #expect(postgreSQL.path == nil)
        let error = #expect(throws: WebRecordError.self) { try postgreSQL.read { _ in 1 } }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("read(_:) needs a SQLite store") == true)
        let writeError = #expect(throws: WebRecordError.self) { try postgreSQL.write { _ in 1 } }
        #expect(writeError?.message.contains("write(_:) needs a SQLite store") == true)
    }

    @Test("the namespace of the configuration holds the tables")
    func namespace() throws {
        let schema = try Schema(contentsOf: Self.appNetSchemaFile)
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        var settings = PostgreSQLConfiguration()
        settings.namespace = "mirror"
        let store = try RecordStore(postgreSQL: server.url(database: database), schema: schema, postgreSQL: settings)
        _ = try store.populate(try JSONReader().read(Data(contentsOf: Self.appNetFile)), entity: "Post")
        let connection = try PostgreSQLConnection(server.conninfo(database: database))
        let tables = try connection.rows(
            "SELECT table_schema FROM information_schema.tables WHERE table_name = 'Post'")
        #expect(tables == [[.text("mirror")]])
    }

    @Test("the configuration's statement timeout, application name and conflict retries reach the store")
    func settings() async throws {
        let schema = try Schema(contentsOf: Self.appNetSchemaFile)
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        var settings = PostgreSQLConfiguration()
        settings.statementTimeout = .milliseconds(100)
        settings.applicationName = "ingest-\(UUID().uuidString.prefix(8))"
        settings.conflictRetries = 2
        let store = try RecordStore(postgreSQL: server.url(database: database), schema: schema, postgreSQL: settings)
        #expect(try store.count("User") == 0)
        let observer = try PostgreSQLConnection(server.conninfo(database: database))
        try observer.execute(#"INSERT INTO "User" ("_id", "_entity", "id") VALUES (1000, 'User', 'u0')"#)

        // The sleep would last ten minutes: only the 100 ms timeout can end it with an error.
        let slow = #expect(throws: WebRecordError.self) {
            try store.count("User", where: "pg_sleep(600) IS NOT NULL")
        }
        #expect(slow?.sqlState == "57014", "\(String(describing: slow))")
        let names = try observer.rows(
            "SELECT application_name FROM pg_stat_activity WHERE datname = $1", [.text(database)])
        #expect(names.contains([.text(settings.applicationName)]), "\(names)")

        // Every insert of a user conflicts with a unique index no population can satisfy.
        try observer.execute(#"CREATE UNIQUE INDEX one_user ON "User" ((1))"#)
        let conflict = await #expect(throws: WebRecordError.self) {
            try await store.populate(["data": [["id": "p", "user": ["id": "new user"]]]], entity: "Post")
        }
        #expect(conflict?.message.contains("3 times (retried 2)") == true, "\(String(describing: conflict))")
        #expect(conflict?.debugger?.retries.count == 2)
    }

    @Test("close() releases the connection, and later reads fail with storeError")
    func close() throws {
        let (postgreSQL, _) = try Self.stores()
        #expect(try postgreSQL.count("Post") == 0)
        postgreSQL.close()
        let error = #expect(throws: WebRecordError.self) { try postgreSQL.count("Post") }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("is closed") == true, "\(String(describing: error))")
    }

    // MARK: - The command-line tool

    /// Runs the built `webrecord`.
    static func webrecord(_ arguments: [String], environment: [String: String] = [:]) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord", besides: Bundle.main), arguments, environment: environment)
    }

    @Test("webrecord populate and export take a postgresql:// URL, and export prints what SQLite's store prints")
    func commandLine() async throws {
        let server = try PostgreSQLTestServer.shared()
        let url = server.url(database: try server.makeDatabase())
        let directory = try TemporaryDirectory()
        let file = directory.path("appnet.sqlite")
        let schema = Self.appNetSchemaFile.path
        for db in [url, file] {
            let populated = try await Self.webrecord(
                ["populate", "--schema", schema, "--db", db, "--entity", "Post", Self.appNetFile.path])
            #expect(populated.status == 0, "\(populated)")
            #expect(populated.stdout.contains("Populated 20 Post records: 94 inserted"), "\(populated)")
        }
        let again = try await Self.webrecord(
            ["populate", "--schema", schema, "--db", url, "--entity", "Post", "--json", Self.appNetFile.path])
        let summary = try JSONReader().read(again.stdoutData)
        #expect(summary["inserted"] == 0 && summary["updated"] == 0, "a re-import writes nothing: \(again)")
        for entity in ["Post", "User", "Source", "Counts", "CoverImage"] {
            let fromPostgreSQL = try await Self.webrecord(
                ["export", "--schema", schema, "--db", url, "--entity", entity])
            let fromSQLite = try await Self.webrecord(["export", "--schema", schema, "--db", file, "--entity", entity])
            #expect(fromPostgreSQL.status == 0, "\(fromPostgreSQL)")
            #expect(fromPostgreSQL.stdout == fromSQLite.stdout, "\(entity)")
            #expect(fromPostgreSQL.stdout.count > 100)
        }
    }

    @Test("libpq's environment variables complete the URL, and a password never shows in an error")
    func environmentAndPassword() async throws {
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        let schema = Self.appNetSchemaFile.path
        let environment = ["PGHOST": server.directory, "PGPORT": "\(server.port)", "PGUSER": server.user]
        let populated = try await Self.webrecord(
            [
                "populate", "--schema", schema, "--db", "postgresql:///\(database)", "--entity", "Post",
                Self.appNetFile.path,
            ],
            environment: environment)
        #expect(populated.status == 0, "\(populated)")
        let counted = try PostgreSQLConnection(server.conninfo(database: database)).scalar(
            "SELECT count(*) FROM \"Post\"")
        #expect(counted == .integer(20))

        let secret = "hunter2-\(UUID().uuidString)"
        let refused = try await Self.webrecord(
            [
                "export", "--schema", schema, "--db", server.url(database: "no_such_database", password: secret),
                "--entity", "Post",
            ])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("no_such_database"), "\(refused)")
        #expect(!refused.stderr.contains(secret) && !refused.stdout.contains(secret), "\(refused)")
    }
}
