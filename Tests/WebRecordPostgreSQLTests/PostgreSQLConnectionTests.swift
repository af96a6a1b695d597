import Foundation
import PostgreSQLTestSupport
import Testing
import WebRecord

@testable import WebRecordPostgreSQL

/// The libpq connection against a real server (the test process's private one): values of
/// every stored form round-trip, errors carry the server's message and SQLSTATE, and a
/// password never shows.
@Suite struct PostgreSQLConnectionTests {
    /// A connection to a new database of the shared server.
    func connect() throws -> PostgreSQLConnection {
        let server = try PostgreSQLTestServer.shared()
        return try PostgreSQLConnection(server.conninfo(database: server.makeDatabase()))
    }

    @Test func theTestServerRuns() throws {
        let connection = try connect()
        #expect(connection.serverVersion >= 100_000)
        #expect(try connection.scalar("SELECT 1 + 1") == .integer(2))
    }

    @Test func everyStoredFormRoundTripsThroughItsColumnType() throws {
        let connection = try connect()
        try connection.execute(Self.valuesTable)
        let rows = Self.everyStoredForm
        for (index, row) in rows.enumerated() {
            try connection.execute(
                "INSERT INTO \"values\" VALUES ($1, $2, $3, $4, $5, $6, $7)", row)
            #expect(
                try connection.rows("SELECT * FROM \"values\" ORDER BY ctid DESC LIMIT 1") == [row],
                "row \(index)")
        }
        // The values are stored in their columns' types, not as text.
        #expect(try connection.scalar("SELECT count(*) FROM \"values\" WHERE \"ts\" < '2000-01-01'") == .integer(1))
        #expect(try connection.scalar("SELECT \"n\" * 2 FROM \"values\" WHERE \"i\" = 0") == .text("0"))
        #expect(
            try connection.scalar("SELECT octet_length(\"b\") FROM \"values\" WHERE \"i\" = $1", [.integer(Int64.max)])
                == .integer(7))
        #expect(try connection.scalar("SELECT \"flag\" FROM \"values\" WHERE \"flag\"") == .integer(1))
    }

    /// A table with a column of each type a store's layout uses.
    static let valuesTable = """
        CREATE TABLE "values" ("i" bigint, "d" double precision, "t" text COLLATE "C", "b" bytea,
          "n" numeric, "ts" timestamptz, "flag" boolean)
        """

    /// Rows of `valuesTable`: every stored form, the extremes, texts that need escaping, NULLs.
    static let everyStoredForm: [[DatabaseValue]] = [
        [
            .integer(Int64.max), .real(2.5), .text("it's \"quoted\" — café, 東京, 🙂"),
            .blob(Data([0, 1, 2, 0x7F, 0x80, 0xFF, 0])), .text("12345678901234567890.000000000001"),
            .text("2012-11-21T02:33:42.123000000Z"), .integer(1),
        ],
        [
            .integer(Int64.min), .real(0.1), .text("back\\slash\n\ttab"), .blob(Data()), .text("-0.5"),
            .text("0001-01-01T00:00:00.000000000Z"), .integer(0),
        ],
        [.integer(0), .real(-1e-300), .text(""), .null, .text("0"), .text("9999-12-31T23:59:59.999000000Z"), .null],
        [.null, .null, .null, .null, .null, .null, .null],
    ]

    @Test func doublesReadBackExactly() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE d (\"v\" double precision)")
        let values: [Double] = [
            .pi, 1 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0, 123_456_789.123_456_78,
        ]
        for value in values {
            try connection.execute("INSERT INTO d VALUES ($1)", [.real(value)])
        }
        let read = try connection.rows("SELECT \"v\" FROM d").map { $0[0] }
        #expect(read == values.map(DatabaseValue.real))
    }

    @Test func textWithANULCharacterIsRefusedNotTruncated() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"v\" text)")
        let error = try #require(throws: WebRecordError.self) {
            try connection.execute("INSERT INTO t VALUES ($1)", [.text("before\u{0}after")])
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("NUL"))
        #expect(error.sql == "INSERT INTO t VALUES ($1)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func aSyntaxErrorCarriesTheServerMessageAndSQLState() throws {
        let connection = try connect()
        let error = try #require(throws: WebRecordError.self) {
            try connection.execute("SELEC 1")
        }
        #expect(error.code == .storeError)
        #expect(error.sqlState == "42601")
        #expect(error.message.contains("syntax error at or near \"SELEC\""))
        #expect(error.sql == "SELEC 1")
        #expect(error.description.contains("[SQLSTATE 42601]"))
    }

    @Test func aConstraintErrorCarriesItsSQLStateAndDetail() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE u (\"k\" text PRIMARY KEY)")
        try connection.execute("INSERT INTO u VALUES ($1)", [.text("secret-value")])
        let error = try #require(throws: WebRecordError.self) {
            try connection.execute("INSERT INTO u VALUES ($1)", [.text("a")])
            try connection.execute("INSERT INTO u VALUES ($1)", [.text("a")])
        }
        #expect(error.sqlState == "23505")
        #expect(error.message.contains("duplicate key value violates unique constraint"))
    }

    @Test func aTransactionCommitsOrRollsBack() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"v\" bigint)")
        try connection.inTransaction {
            try connection.execute("INSERT INTO t VALUES ($1)", [.integer(1)])
            #expect(connection.isInTransaction)
        }
        #expect(!connection.isInTransaction)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.inTransaction {
                try connection.execute("INSERT INTO t VALUES ($1)", [.integer(2)])
                throw Failure()
            }
        }
        // A statement that fails inside a transaction rolls the whole transaction back.
        #expect(throws: WebRecordError.self) {
            try connection.inTransaction {
                try connection.execute("INSERT INTO t VALUES ($1)", [.integer(3)])
                try connection.execute("INSERT INTO t VALUES ($1)", [.text("not a number")])
            }
        }
        #expect(try connection.rows("SELECT \"v\" FROM t") == [[.integer(1)]])
        #expect(try connection.execute("UPDATE t SET \"v\" = 5").changedRowCount == 1)
    }

    @Test func aPasswordInTheURLNeverShows() throws {
        let server = try PostgreSQLTestServer.shared()
        let password = "hunter2-s3cret"
        let connection = try PostgreSQLConnection(server.url(database: server.makeDatabase(), password: password))
        #expect(try connection.scalar("SELECT 1") == .integer(1))
        #expect(!connection.description.contains(password))
        #expect(!String(reflecting: connection).contains(password))
        #expect(connection.description.contains("user=postgres"))
        #expect(connection.info.value(of: "password") == nil)
        // Nor what reflects over a connection or a whole store: `dump`, a debugger, a logger.
        var dumped = ""
        dump(connection, to: &dumped)
        #expect(!dumped.contains(password), "\(dumped)")
        #expect(dumped.contains("user=postgres"), "\(dumped)")
        let store = try RecordStore(
            postgreSQL: server.url(database: server.makeDatabase(), password: password),
            schema: try Schema(json: #"{"entities": {"E": {"attributes": {"a": {"type": "string"}}}}}"#))
        var dumpedStore = ""
        dump(store, to: &dumpedStore)
        #expect(!dumpedStore.contains(password))
        #expect(!String(reflecting: store).contains(password))

        // A database that does not exist: the error names the server, not the password.
        let error = try #require(throws: WebRecordError.self) {
            _ = try PostgreSQLConnection(server.url(database: "no_such_database", password: password))
        }
        #expect(error.code == .storeError)
        #expect(error.message.contains("no_such_database"))
        #expect(!error.message.contains(password))
        #expect(!error.description.contains(password))
        #expect(!String(reflecting: error).contains(password))

        // So does a conninfo string, and one libpq cannot read.
        let conninfo = try PostgreSQLConnectionInfo("host=/nowhere user=a password='\(password)' dbname=x")
        #expect(!conninfo.description.contains(password))
        let unreadable = try #require(throws: WebRecordError.self) {
            _ = try PostgreSQLConnectionInfo("postgresql://a:\(password)@host/db?nosuchoption=1")
        }
        #expect(unreadable.code == .invalidArgument)
        #expect(!unreadable.description.contains(password))
    }

    @Test func theURLsSettingsAreRead() throws {
        let info = try PostgreSQLConnectionInfo("postgresql://worker@db.example.com:6543/app?sslmode=require")
        #expect(info.value(of: "host") == "db.example.com")
        #expect(info.value(of: "port") == "6543")
        #expect(info.value(of: "dbname") == "app")
        #expect(info.value(of: "user") == "worker")
        #expect(info.value(of: "sslmode") == "require")
        #expect(info.description == "postgresql host=db.example.com port=6543 dbname=app user=worker sslmode=require")
    }

    @Test func aServerThatStoppedGivesAClearError() throws {
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let connection = try PostgreSQLConnection(server.conninfo())
        #expect(try connection.scalar("SELECT 1") == .integer(1))
        server.stop()
        let error = try #require(throws: WebRecordError.self) {
            try connection.execute("SELECT 1")
        }
        #expect(error.code == .storeError)
        #expect(error.message.contains("the connection to postgresql host=\(server.directory)"))
        #expect(error.message.contains("was lost"))

        // And connecting to it again says it cannot.
        let refused = try #require(throws: WebRecordError.self) {
            _ = try PostgreSQLConnection(server.conninfo())
        }
        #expect(refused.code == .storeError)
        #expect(refused.message.hasPrefix("cannot connect to postgresql host=\(server.directory)"))
    }
}
