import Foundation
import WebRecord
internal import WebRecordLibPQ

/// One connection to a PostgreSQL server through libpq: the thin layer every statement of a
/// PostgreSQL store goes through.
///
/// Every value is a bound parameter (`$1`, `$2`, ... in the SQL, through `PQexecParams`),
/// never spliced into the statement's text; see ``PostgreSQLParameters`` for how each
/// ``DatabaseValue`` is sent and ``PostgreSQLResult`` for how each column is read back.
///
/// The session is set up so that values read the same whatever the server's defaults: UTF-8,
/// `TimeZone` UTC, `DateStyle` ISO, and floats printed exactly (`extra_float_digits` 3).
///
/// Not `Sendable`: a store owns its connections and uses each on one thread at a time.
package final class PostgreSQLConnection: CustomStringConvertible {
    private let handle: OpaquePointer
    /// Where the connection goes, without its password.
    package let info: PostgreSQLConnectionInfo
    /// Called with the text of every statement run (used by tests to count statements).
    package var sqlObserver: (@Sendable (String) -> Void)?
    /// Whether a transaction ``inTransaction(_:)`` began is open.
    package private(set) var isInTransaction = false

    /// Connects to the server `location` names: a connection URL
    /// (`postgresql://user@host:port/db?sslmode=require`) or a conninfo string, completed by
    /// libpq's environment variables and password file.
    ///
    /// - Throws: `invalidArgument` when `location` is neither; `storeError` when the server
    ///   cannot be reached or refuses the connection, with libpq's reason (never the password).
    package init(_ location: String) throws(WebRecordError) {
        let info = try PostgreSQLConnectionInfo(location)
        guard let connection = PQconnectdb(info.text) else {
            throw WebRecordError(.storeError, "cannot connect to \(info): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw WebRecordError(.storeError, info.scrubbed("cannot connect to \(info): \(reason)"))
        }
        self.handle = connection
        self.info = info
        guard PQsetClientEncoding(connection, "UTF8") == 0 else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw WebRecordError(.storeError, info.scrubbed("cannot use UTF-8 on \(info): \(reason)"))
        }
        // Constant settings, so nothing is interpolated: values read back in one form whatever
        // the server's configuration.
        try execute("SET TIME ZONE 'UTC'")
        try execute("SET DateStyle = 'ISO, YMD'")
        try execute("SET extra_float_digits = 3")
    }

    deinit {
        PQfinish(handle)
    }

    /// `PostgreSQLConnection(postgresql host=... dbname=...)`, never with a password.
    package var description: String {
        "PostgreSQLConnection(\(info))"
    }

    /// What another thread may use to interrupt the statement this connection runs, or nil
    /// when libpq cannot make one.
    package func makeCanceller() -> PostgreSQLCanceller? {
        PQgetCancel(handle).map(PostgreSQLCanceller.init)
    }

    /// The server's version number (`150004` for 15.4).
    package var serverVersion: Int {
        Int(PQserverVersion(handle))
    }

    // MARK: - Running statements

    /// Runs one statement with `arguments` bound to `$1`, `$2`, ..., and returns what it gave.
    ///
    /// - Throws: `storeError` with the server's message, its ``WebRecordError/sqlState`` and
    ///   the statement (never the values); `invalidArgument` for a text holding a NUL
    ///   character, which PostgreSQL cannot store.
    @discardableResult
    package func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> PostgreSQLResult {
        sqlObserver?(sql)
        let parameters = try PostgreSQLParameters(arguments, sql: sql)
        let result = parameters.withCParameters { types, values, lengths, formats in
            PQexecParams(handle, sql, Int32(arguments.count), types, values, lengths, formats, 0)
        }
        guard let result else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(result)
        default:
            let state = PQresultErrorField(result, Self.diagnosticSQLState).map { String(cString: $0) }
            var message =
                PQresultErrorField(result, Self.diagnosticPrimaryMessage).map { String(cString: $0) }
                ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
            if let detail = PQresultErrorField(result, Self.diagnosticDetail) {
                message += " (\(String(cString: detail)))"
            }
            if message.isEmpty { message = Self.trimmed(String(cString: PQerrorMessage(handle))) }
            throw failure(sql: sql, state: state, message: message)
        }
    }

    /// The rows `sql` gives with `arguments` bound.
    package func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> [[DatabaseValue]] {
        try execute(sql, arguments).rows
    }

    /// The first column of the first row `sql` gives, or nil when it gives no row.
    package func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> DatabaseValue? {
        try execute(sql, arguments).rows.first?.first
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// A commit the server refuses (a deferred constraint, a serialization failure) throws its
    /// error, and nothing is committed. Not reentrant: a transaction inside a transaction is an
    /// `invalidArgument` error.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        guard !isInTransaction else {
            throw WebRecordError(.invalidArgument, "a PostgreSQL transaction cannot begin inside another")
        }
        try execute("BEGIN")
        isInTransaction = true
        defer { isInTransaction = false }
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            // A failed COMMIT ends the transaction already; a ROLLBACK makes sure of it.
            rollback()
            throw error
        }
        return result
    }

    /// Rolls back the transaction open on the connection, if any; a connection that is gone has
    /// none left to roll back.
    private func rollback() {
        guard PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        _ = try? execute("ROLLBACK")
    }

    // MARK: - Errors

    private func failure(sql: String, state: String?, message: String) -> WebRecordError {
        var text = message
        if PQstatus(handle) != CONNECTION_OK {
            text = "the connection to \(info) was lost: \(message)"
        }
        var error = WebRecordError(.storeError, info.scrubbed(text))
        error.sqlState = state
        error.sql = sql
        return error
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // The PG_DIAG_* field codes are character macros, which Swift does not import.
    private static let diagnosticSQLState = Int32(UInt8(ascii: "C"))
    private static let diagnosticPrimaryMessage = Int32(UInt8(ascii: "M"))
    private static let diagnosticDetail = Int32(UInt8(ascii: "D"))
}

@available(*, unavailable)
extension PostgreSQLConnection: Sendable {}

/// Interrupts the statement a connection is running, from any thread (libpq's `PQcancel`):
/// the statement fails with SQLSTATE `57014`, and the connection stays usable.
///
/// `@unchecked Sendable` is safe: libpq documents `PQcancel` as safe to call from any thread
/// (even a signal handler), and the object is freed only when the last reference goes.
package final class PostgreSQLCanceller: @unchecked Sendable {
    private let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQfreeCancel(handle)
    }

    /// Asks the server to interrupt the statement running now, if any.
    package func cancel() {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(handle, &buffer, Int32(buffer.count))
    }
}
