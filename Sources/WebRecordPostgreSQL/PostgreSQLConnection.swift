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
/// A connection the server closed (a restart, a terminated backend) fails its statements with
/// a `storeError` saying so; ``reconnectIfLost()`` connects again between transactions, and
/// makes the session again with every setting made through ``setSessionSetting(_:)``.
///
/// Not `Sendable`: a store owns its connections and uses each on one thread at a time.
package final class PostgreSQLConnection: CustomStringConvertible {
    private let handle: OpaquePointer
    /// Whether ``close()`` finished the connection.
    package private(set) var isClosed = false
    /// Where the connection goes, without its password.
    package let info: PostgreSQLConnectionInfo
    /// Called with the text of every statement run (used by tests to count statements).
    package var sqlObserver: (@Sendable (String) -> Void)?
    /// Whether a transaction ``inTransaction(_:)`` began is open.
    package private(set) var isInTransaction = false

    /// Whether no transaction is open on the session, however it began (``inTransaction(_:)``,
    /// or a `BEGIN` of its own).
    package var isIdle: Bool {
        PQtransactionStatus(handle) == PQTRANS_IDLE
    }
    /// What another thread uses to interrupt the statement this connection runs; it follows the
    /// connection when it reconnects.
    package let canceller: PostgreSQLCanceller
    /// The statement timeout ``setStatementTimeout(_:)`` set, nil when the session keeps the
    /// server's.
    package private(set) var statementTimeout: Duration?
    /// The session's `statement_timeout` as the server showed it when the session began
    /// (`5ms`, `30s`; `0` for none): the one the server, the database, the role or the
    /// location set, named by a statement it cancels when no timeout was set here.
    private var sessionStatementTimeout: String?
    /// The `SET` statements that make a session, run again on every new one.
    private var sessionSettings = [
        // Constant settings, so nothing is interpolated: values read back in one form whatever
        // the server's configuration.
        "SET TIME ZONE 'UTC'", "SET DateStyle = 'ISO, YMD'", "SET extra_float_digits = 3",
    ]

    /// Connects to the server `location` names: a connection URL
    /// (`postgresql://user@host:port/db?sslmode=require`) or a conninfo string, completed by
    /// libpq's environment variables and password file.
    ///
    /// `applicationName` is the name the server shows for the connection (its
    /// `application_name`, in `pg_stat_activity` and the server's log) unless `location` names
    /// one or libpq's `PGAPPNAME` is set: it is libpq's `fallback_application_name`.
    ///
    /// - Throws: `invalidArgument` when `location` is neither, or `applicationName` holds a NUL
    ///   character; `storeError` when the server cannot be reached or refuses the connection,
    ///   with libpq's reason (never the password).
    package init(_ location: String, applicationName: String? = nil) throws(WebRecordError) {
        let info = try PostgreSQLConnectionInfo(location)
        var parameters = [("dbname", info.text)]
        if let applicationName {
            guard !applicationName.contains("\u{0}") else {
                throw WebRecordError(.invalidArgument, "an application name cannot hold a NUL character")
            }
            // Before the location, whose own application_name, when it has one, overrides it.
            parameters.insert(("fallback_application_name", applicationName), at: 0)
        }
        guard let connection = Self.connect(parameters) else {
            throw WebRecordError(.storeError, "cannot connect to \(info): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw WebRecordError(.storeError, info.scrubbed("cannot connect to \(info): \(reason)"))
        }
        self.handle = connection
        self.info = info
        self.canceller = PostgreSQLCanceller(PQgetCancel(connection))
        // The server's notices (a `CREATE ... IF NOT EXISTS` that found the object, say) are
        // not errors: libpq would print them on standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // From here on, a failure finishes the connection in deinit.
        try startSession()
    }

    deinit {
        if !isClosed { PQfinish(handle) }
    }

    /// Closes the connection. It must not be used after.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        PQfinish(handle)
    }

    /// `PostgreSQLConnection(postgresql host=... dbname=...)`, never with a password.
    package var description: String {
        "PostgreSQLConnection(\(info))"
    }

    /// The server's version number (`150004` for 15.4).
    package var serverVersion: Int {
        Int(PQserverVersion(handle))
    }

    /// libpq's `PQconnectdbParams` with `parameters`, the location's text expanded (its
    /// settings override those before it).
    private static func connect(_ parameters: [(String, String)]) -> OpaquePointer? {
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer { for pointer in keywords + values { free(pointer) } }
        let keywordArray: [UnsafePointer<CChar>?] = keywords.map { $0.map { UnsafePointer($0) } } + [nil]
        let valueArray: [UnsafePointer<CChar>?] = values.map { $0.map { UnsafePointer($0) } } + [nil]
        return PQconnectdbParams(keywordArray, valueArray, 1)
    }

    // MARK: - The session

    /// Makes the session: UTF-8, then every setting of ``sessionSettings`` in order.
    private func startSession() throws(WebRecordError) {
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(handle)))
            throw WebRecordError(.storeError, info.scrubbed("cannot use UTF-8 on \(info): \(reason)"))
        }
        for setting in sessionSettings {
            try execute(setting)
        }
        if case .text(let timeout)? = try scalar("SHOW statement_timeout") { sessionStatementTimeout = timeout }
    }

    /// Runs `sql`, a `SET` of the session (such as the `search_path`), now and again on every
    /// new session after a reconnection.
    package func setSessionSetting(_ sql: String) throws(WebRecordError) {
        try execute(sql)
        sessionSettings.append(sql)
    }

    /// Sets the session's `statement_timeout` to `timeout`, to the millisecond (rounded up), now
    /// and after every reconnection. A statement that runs longer is cancelled by the server
    /// and fails with a `storeError` (SQLSTATE `57014`) that names the timeout.
    ///
    /// - Throws: `invalidArgument` for a timeout that is not positive or is longer than
    ///   PostgreSQL's longest (2,147,483,647 ms, about 24.8 days).
    package func setStatementTimeout(_ timeout: Duration) throws(WebRecordError) {
        let milliseconds = try Self.milliseconds(ofStatementTimeout: timeout)
        // An integer, so nothing from outside is spliced in.
        try setSessionSetting("SET statement_timeout = \(milliseconds)")
        statementTimeout = timeout
    }

    /// `timeout` in whole milliseconds, rounded up, as `statement_timeout` takes it.
    ///
    /// - Throws: `invalidArgument` for a timeout that is not positive or is longer than
    ///   2,147,483,647 ms.
    package static func milliseconds(ofStatementTimeout timeout: Duration) throws(WebRecordError) -> Int64 {
        let (seconds, attoseconds) = timeout.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let maximum = Int64(Int32.max)
        // The seconds first, so that a long timeout's milliseconds cannot overflow.
        let milliseconds =
            timeout > .zero && seconds <= maximum / 1000
            ? seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond : nil
        guard let milliseconds, milliseconds <= maximum else {
            throw WebRecordError(
                .invalidArgument,
                "a statement timeout must be positive and at most \(maximum) ms (about 24.8 days); it is \(timeout)")
        }
        return milliseconds
    }

    // MARK: - Reconnecting

    /// Whether the connection is known to be lost: the server closed it, or a statement found it
    /// gone.
    package var isLost: Bool {
        PQstatus(handle) == CONNECTION_BAD
    }

    /// Connects again when the server closed the connection, between transactions: inside a
    /// transaction it does nothing, as the transaction is lost with its session and must fail.
    ///
    /// A connection that is idle reads, without waiting, what the server sent it: a server
    /// that ended the session (a restart, `pg_terminate_backend`) sent its reason and closed
    /// the socket, which the read sees, so the next statement runs on a new session rather
    /// than fail. A connection that vanished without a word (a network cut) is found lost by
    /// the statement that fails, and reconnected by the next call.
    ///
    /// - Throws: `storeError` when the server cannot be reached again; the next call tries again.
    package func reconnectIfLost() throws(WebRecordError) {
        guard !isInTransaction else { return }
        if PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_IDLE {
            // The first read takes what the server sent before it closed (its reason), the
            // second sees the end of the connection. Neither waits for data.
            if PQconsumeInput(handle) != 0 { _ = PQconsumeInput(handle) }
        }
        if isLost { try reconnect() }
    }

    /// Connects again with the same parameters (libpq's `PQreset`) and makes the session again:
    /// UTF-8, UTC, ISO dates, exact floats, and every ``setSessionSetting(_:)``.
    ///
    /// - Throws: `storeError` when the server cannot be reached; `invalidArgument` inside a
    ///   transaction, which would be lost.
    package func reconnect() throws(WebRecordError) {
        guard !isInTransaction else {
            throw WebRecordError(.invalidArgument, "a PostgreSQL connection cannot reconnect inside a transaction")
        }
        // A statement sent to the old session has no results to read on the new one.
        sent = nil
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(handle)))
            throw WebRecordError(.storeError, info.scrubbed("cannot connect again to \(info): \(reason)"))
        }
        canceller.replace(PQgetCancel(handle))
        try startSession()
    }

    // MARK: - Running statements

    /// Runs one statement with `arguments` bound to `$1`, `$2`, ..., and returns what it gave.
    ///
    /// - Throws: `storeError` with the server's message, its ``WebRecordError/sqlState`` and
    ///   the statement (never the values); `invalidArgument` for a text holding a NUL
    ///   character, which PostgreSQL cannot store. A statement the statement timeout cancelled
    ///   says so; one on a connection the server closed says the connection was lost.
    @discardableResult
    package func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> PostgreSQLResult {
        try finishSent()
        sqlObserver?(sql)
        let parameters = try PostgreSQLParameters(arguments, sql: sql)
        let cancellations = canceller.requestCount
        let result = parameters.withCParameters { types, values, lengths, formats in
            PQexecParams(handle, sql, Int32(arguments.count), types, values, lengths, formats, 0)
        }
        guard let result else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
        defer { PQclear(result) }
        try check(result, sql: sql, cancellations: cancellations)
        return PostgreSQLResult(result)
    }

    /// Throws the error `result` reports, if it reports one: the server's message with its
    /// detail, SQLSTATE and `sql`. A statement cancelled while the canceller's request count
    /// stayed `cancellations` was cancelled by the statement timeout, and the message says so.
    ///
    /// A `COPY ... FROM STDIN` starts with a result that asks for its data, which only
    /// ``copyIn(_:rowCount:row:)`` accepts (`copying`); anywhere else it is an error. A copy's
    /// failure also gives the server's context (`naming`), which names the row and column.
    private func check(
        _ result: OpaquePointer, sql: String, cancellations: Int, copying: Bool = false, naming: Bool = false
    ) throws(WebRecordError) {
        let status = PQresultStatus(result)
        if copying, status == PGRES_COPY_IN { return }
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        case PGRES_COPY_IN:
            endCopy(abandoning: "not run through copyIn")
            throw failure(sql: sql, state: nil, message: "a COPY statement runs only through copyIn")
        case PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // Read and drop what the server sends, then its results, so the connection is ready.
            var buffer: UnsafeMutablePointer<CChar>?
            while PQgetCopyData(handle, &buffer, 0) >= 0 {
                if let data = buffer { PQfreemem(data) }
                buffer = nil
            }
            while let rest = PQgetResult(handle) { PQclear(rest) }
            throw failure(sql: sql, state: nil, message: "a COPY ... TO statement is not run by a store")
        default:
            let state = PQresultErrorField(result, Self.diagnosticSQLState).map { String(cString: $0) }
            var message =
                PQresultErrorField(result, Self.diagnosticPrimaryMessage).map { String(cString: $0) }
                ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
            if let detail = PQresultErrorField(result, Self.diagnosticDetail) {
                message += " (\(String(cString: detail)))"
            }
            // A copy's context names the row and column the server refused
            // (`COPY Post, line 3, column date: "..."`).
            if naming, let context = PQresultErrorField(result, Self.diagnosticContext) {
                message += " (\(String(cString: context)))"
            }
            if message.isEmpty { message = Self.trimmed(String(cString: PQerrorMessage(handle))) }
            // A cancel another session sent says "user request"; a timeout says so (in English;
            // a server speaking another language keeps its own words).
            if state == Self.queryCanceled, canceller.requestCount == cancellations,
                message.contains("statement timeout")
            {
                // Cancelled, and not through the canceller: by the statement timeout, when one is
                // set (another session's pg_cancel_backend cancels too).
                if let statementTimeout {
                    let milliseconds = (try? Self.milliseconds(ofStatementTimeout: statementTimeout)) ?? 0
                    message =
                        "the statement ran longer than the statement timeout of \(milliseconds) ms and was cancelled: \(message)"
                } else if let session = sessionStatementTimeout, session != "0" {
                    message =
                        "the statement ran longer than the session's statement timeout of \(session) (set by the server or the connection) and was cancelled: \(message)"
                }
            }
            throw failure(sql: sql, state: state, message: message)
        }
    }

    // MARK: - Statements not waited for

    /// The statement ``send(_:)`` sent, whose results are not read yet.
    private var sent: (sql: String, cancellations: Int)?

    /// Sends `sql`, a constant statement (or several, separated by semicolons) with no
    /// parameter, through `PQsendQuery`, and returns without waiting for it; its results are
    /// read, and its error thrown, by the next statement run on the connection
    /// (``finishSent()``), at the latest before ``inTransaction(_:)`` commits or rolls back.
    ///
    /// - Throws: `invalidArgument` outside ``inTransaction(_:)``, where nothing would be sure to
    ///   read its error; `storeError` when it cannot be sent.
    package func send(_ sql: String) throws(WebRecordError) {
        guard isInTransaction else {
            throw WebRecordError(.invalidArgument, "a statement is sent without waiting only inside a transaction")
        }
        try finishSent()
        sqlObserver?(sql)
        let cancellations = canceller.requestCount
        guard PQsendQuery(handle, sql) == 1 else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
        sent = (sql, cancellations)
    }

    /// Reads the results of the statement ``send(_:)`` sent, if any, and throws its first error.
    package func finishSent() throws(WebRecordError) {
        guard let (sql, cancellations) = sent else { return }
        sent = nil
        var firstError: WebRecordError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if firstError == nil {
                do throws(WebRecordError) {
                    try check(result, sql: sql, cancellations: cancellations)
                } catch {
                    firstError = error
                }
            }
        }
        if let firstError { throw firstError }
        if PQstatus(handle) != CONNECTION_OK {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
    }

    // MARK: - Copying rows in

    /// Runs `sql`, a `COPY table (columns) FROM STDIN` in text format, with the data `row`
    /// appends for each of `rowCount` rows (``PostgreSQLCopyText`` writes its values), and
    /// returns the number of rows the server copied.
    ///
    /// The data goes to the server in chunks of ``copyChunkSize`` bytes as `row` makes it, so
    /// that the server stores one chunk while the next is made. An error `row` throws abandons
    /// the copy, which the server then rolls back, and is rethrown; an error the server reports
    /// (a value its column's type refuses, a unique key already held) is thrown as
    /// ``execute(_:_:)`` throws it. Either way the connection is ready for the next statement.
    @discardableResult
    package func copyIn(
        _ sql: String, rowCount: Int, row: (_ index: Int, _ data: inout [UInt8]) throws(WebRecordError) -> Void
    ) throws(WebRecordError) -> Int {
        try finishSent()
        sqlObserver?(sql)
        let cancellations = canceller.requestCount
        // Through PQexecParams, with no parameter, as every statement but one sent without
        // waiting (send(_:)): one statement a call.
        guard let start = PQexecParams(handle, sql, 0, nil, nil, nil, nil, 0) else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
        do {
            defer { PQclear(start) }
            try check(start, sql: sql, cancellations: cancellations, copying: true)
        }
        var data: [UInt8] = []
        data.reserveCapacity(Self.copyChunkSize + Self.copyChunkSize / 4)
        var abandoned: WebRecordError?
        do throws(WebRecordError) {
            for index in 0..<rowCount {
                try row(index, &data)
                if data.count >= Self.copyChunkSize {
                    try send(data, sql: sql)
                    data.removeAll(keepingCapacity: true)
                }
            }
            if !data.isEmpty { try send(data, sql: sql) }
        } catch {
            abandoned = error
        }
        let result = endCopy(abandoning: abandoned.map { _ in "abandoned by WebRecord" })
        if let abandoned { throw abandoned }
        guard let result else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
        defer { PQclear(result) }
        try check(result, sql: sql, cancellations: cancellations, naming: true)
        return PostgreSQLResult(result).changedRowCount
    }

    /// Sends one chunk of a copy's data.
    private func send(_ data: [UInt8], sql: String) throws(WebRecordError) {
        let sent = data.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32(buffer.count)) }
        }
        guard sent == 1 else {
            throw failure(sql: sql, state: nil, message: Self.trimmed(String(cString: PQerrorMessage(handle))))
        }
    }

    /// Ends the copy under way, abandoning it with `reason` when one is given, and returns the
    /// first result the server gives for it (the caller clears it); every other is read and
    /// cleared, so that the connection is ready for the next statement.
    @discardableResult
    private func endCopy(abandoning reason: String?) -> OpaquePointer? {
        _ = PQputCopyEnd(handle, reason)
        var first: OpaquePointer?
        while let result = PQgetResult(handle) {
            if first == nil { first = result } else { PQclear(result) }
        }
        guard reason == nil else {
            if let first { PQclear(first) }
            return nil
        }
        return first
    }

    /// How many bytes of a copy's data are sent at once.
    static let copyChunkSize = 256 * 1024

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
    ///
    /// A connection the server closed since the last statement is connected again before the
    /// transaction begins (``reconnectIfLost()``), and so is one that `BEGIN` finds lost, as
    /// nothing of the transaction has run. A connection lost after `BEGIN` fails the
    /// transaction, which the server rolls back; lost during `COMMIT`, the error says that
    /// whether the transaction committed is unknown.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        guard !isInTransaction else {
            throw WebRecordError(.invalidArgument, "a PostgreSQL transaction cannot begin inside another")
        }
        try reconnectIfLost()
        do {
            try execute("BEGIN")
        } catch {
            guard isLost else { throw error }
            try reconnect()
            try execute("BEGIN")
        }
        isInTransaction = true
        defer { isInTransaction = false }
        let result: T
        do {
            result = try body()
            // What the body sent fails the body, not the COMMIT, which is not sent after it.
            try finishSent()
        } catch {
            rollback()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            // A failed COMMIT ends the transaction already; a ROLLBACK makes sure of it.
            rollback()
            guard isLost else { throw error }
            var lost = error
            lost.message += "; whether the transaction committed is unknown"
            throw lost
        }
        return result
    }

    /// Rolls back the transaction open on the connection, if any; a connection that is gone has
    /// none left to roll back.
    private func rollback() {
        try? finishSent()
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
    private static let diagnosticContext = Int32(UInt8(ascii: "W"))
    /// The SQLSTATE of a statement cancelled by a cancel request or the statement timeout.
    private static let queryCanceled = "57014"
}

@available(*, unavailable)
extension PostgreSQLConnection: Sendable {}

/// Interrupts the statement a connection is running, from any thread (libpq's `PQcancel`):
/// the statement fails with SQLSTATE `57014`, and the connection stays usable. It follows its
/// connection when it reconnects (the server knows a session by its process and key).
///
/// libpq documents `PQcancel` as safe to call from any thread; the cancel object it uses is
/// replaced and freed under the lock that guards each call.
package final class PostgreSQLCanceller: Sendable {
    private struct State {
        var handle: OpaquePointer?
        var requestCount = 0
    }

    private let state: Locked<State>

    fileprivate init(_ handle: OpaquePointer?) {
        state = Locked(State(handle: handle))
    }

    deinit {
        state.withLock { state in
            if let handle = state.handle { PQfreeCancel(handle) }
        }
    }

    /// How many times ``cancel()`` was called: a statement that fails cancelled while it did
    /// not change was cancelled by the statement timeout.
    var requestCount: Int {
        state.withLock { $0.requestCount }
    }

    /// Asks the server to interrupt the statement running now, if any.
    package func cancel() {
        state.withLock { state in
            state.requestCount += 1
            guard let handle = state.handle else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(handle, &buffer, Int32(buffer.count))
        }
    }

    /// Uses `handle`, the cancel object of the connection's new session, from now on.
    fileprivate func replace(_ handle: OpaquePointer?) {
        state.withLock { state in
            if let old = state.handle { PQfreeCancel(old) }
            state.handle = handle
        }
    }
}
