import Foundation
import PostgreSQLTestSupport
import Testing
import WebRecord

@testable import WebRecordPostgreSQL

/// `COPY ... FROM STDIN`, the way a population inserts a table's new rows: every stored form
/// reads back as a bound parameter stores it, and a copy that fails, on either side, leaves
/// nothing and a connection ready for the next statement.
extension PostgreSQLConnectionTests {
    /// Copies `rows` into `table` through ``PostgreSQLCopyText``.
    private func copy(_ rows: [[DatabaseValue]], into table: String, on connection: PostgreSQLConnection)
        throws(WebRecordError) -> Int
    {
        try connection.copyIn("COPY \(table) FROM STDIN", rowCount: rows.count) { index, data throws(WebRecordError) in
            try PostgreSQLCopyText.appendRow(rows[index], to: &data)
        }
    }

    @Test func aCopiedRowReadsBackAsTheSameRowBoundAsParameters() throws {
        let connection = try connect()
        try connection.execute(Self.valuesTable)
        // Texts that look like the copy format's own escapes and markers, and control characters.
        let escapes: [[DatabaseValue]] = [
            "\\N", "\\.", "a\tb", "a\nb", "a\rb", "\\", "\\\\x41", "\u{1}\u{1F}\u{7F}", "end\\",
        ].map { [.integer(7), .null, .text($0), .null, .null, .null, .null] }
        let rows = Self.everyStoredForm + escapes
        #expect(try copy(rows, into: "\"values\"", on: connection) == rows.count)
        #expect(try connection.rows("SELECT * FROM \"values\" ORDER BY ctid") == rows)

        // The same rows bound as parameters give the same stored values, compared by the server.
        try connection.execute("CREATE TABLE bound (LIKE \"values\")")
        for row in rows {
            try connection.execute("INSERT INTO bound VALUES ($1, $2, $3, $4, $5, $6, $7)", row)
        }
        #expect(
            try connection.scalar("SELECT count(*) FROM (SELECT * FROM \"values\" EXCEPT ALL SELECT * FROM bound) d")
                == .integer(0))
        #expect(try connection.scalar("SELECT count(*) FROM \"values\" WHERE \"t\" = '\\N'") == .integer(1))
    }

    @Test func aCopyLargerThanOneChunkIsSentWhole() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"k\" bigint PRIMARY KEY, \"v\" text)")
        let text = String(repeating: "é\t", count: 100)
        let count = PostgreSQLConnection.copyChunkSize / text.utf8.count * 3
        let rows: [[DatabaseValue]] = (0..<count).map { [.integer(Int64($0)), .text(text)] }
        #expect(try copy(rows, into: "t", on: connection) == count)
        #expect(
            try connection.rows("SELECT count(*), count(DISTINCT \"k\"), min(\"v\") = max(\"v\"), max(\"v\") FROM t")
                == [[.integer(Int64(count)), .integer(Int64(count)), .integer(1), .text(text)]])
    }

    @Test func aTextWithANULCharacterAbandonsTheCopyAndTheConnectionStaysReady() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"k\" bigint, \"v\" text)")
        // The first chunk reached the server before the bad row was made.
        let count = PostgreSQLConnection.copyChunkSize / 4
        let rows: [[DatabaseValue]] =
            (0..<count).map { [.integer(Int64($0)), .text("x")] } + [[.integer(-1), .text("before\u{0}after")]]
        let error = try #require(throws: WebRecordError.self) { try copy(rows, into: "t", on: connection) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("NUL character"), "\(error)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(try copy([[.integer(1), .text("after")]], into: "t", on: connection) == 1)
    }

    @Test func aValueTheServerRefusesFailsTheCopyWithItsSQLState() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"k\" bigint PRIMARY KEY)")
        let error = try #require(throws: WebRecordError.self) {
            try copy([[.integer(1)], [.text("not a number")]], into: "t", on: connection)
        }
        #expect(error.code == .storeError)
        #expect(error.sqlState == "22P02", "\(error)")
        #expect(error.sql == "COPY t FROM STDIN")
        #expect(error.message.contains("invalid input syntax for type bigint"), "\(error)")
        // The server's context names the row and the column.
        #expect(error.message.contains("COPY t, line 2, column k"), "\(error)")
        let duplicate = try #require(throws: WebRecordError.self) {
            try copy([[.integer(1)], [.integer(1)]], into: "t", on: connection)
        }
        #expect(duplicate.sqlState == "23505", "\(duplicate)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(try copy([[.integer(2)]], into: "t", on: connection) == 1)
    }

    @Test func aCopyRunThroughExecuteIsRefusedAndTheConnectionStaysReady() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"k\" bigint)")
        let error = try #require(throws: WebRecordError.self) { try connection.execute("COPY t FROM STDIN") }
        #expect(error.message.contains("runs only through copyIn"), "\(error)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
        // A copy out is read to its end and refused, and the connection goes on.
        try connection.execute("INSERT INTO t VALUES (1), (2)")
        let out = try #require(throws: WebRecordError.self) { try connection.execute("COPY t TO STDOUT") }
        #expect(out.message.contains("is not run by a store"), "\(out)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(2))
    }
}
