import Foundation
import WebRecord

/// A WebRecord store in a PostgreSQL database: the schema's layout in a schema (namespace) of
/// the database, and the store interface populations write through (``RecordStorage``).
///
/// It holds one connection, used by one thread at a time; synchronous calls wait for it, and
/// async ones run on a serial queue of their own so that they never block the cooperative
/// pool. Before its first write (or read), the database creates or migrates its tables in a
/// transaction of their own (see ``PostgreSQLMigrator``).
///
/// When the server closes the connection (a restart, a terminated backend), a transaction
/// running on it fails with a `storeError` saying the connection was lost, and the server rolls
/// it back. The next write or read connects again first, with the same `search_path` and
/// options; so does a write that finds the connection closed before its transaction begins.
package final class PostgreSQLDatabase: Sendable {
    /// What opening a database needs besides its schema and connection URL.
    package struct Options: Sendable {
        /// The schema (namespace) that holds the store's tables, created when missing. Any
        /// name of at most 63 bytes without a NUL character, as it is always quoted (the server
        /// keeps names that start with `pg_` for itself).
        package var namespace = "public"
        /// How long one statement may run before the server cancels it (PostgreSQL's
        /// `statement_timeout`, to the millisecond, rounded up), or nil to keep the server's
        /// setting (none unless the server or the location sets one). A statement that runs
        /// longer fails with a `storeError` naming the timeout (SQLSTATE `57014`), and its
        /// transaction rolls back. It applies to every statement, the wait for another
        /// worker's migration included.
        package var statementTimeout: Duration?
        /// The name the server shows for the database's connection (`application_name`, in
        /// `pg_stat_activity` and the server's log). A name the location gives
        /// (`?application_name=...`) or libpq's `PGAPPNAME` wins over it: it is sent as libpq's
        /// `fallback_application_name`.
        package var applicationName = "webrecord"
        /// Where populations of this database log.
        package var logger = Logger.global
        /// Value transformers of this database, before the process-wide ones.
        package var transformers: [String: AttributeTransformers.Transform] = [:]
        /// Called with the text of every statement run.
        package var sqlObserver: (@Sendable (String) -> Void)?
        /// How many times a population is tried again after a conflict with another worker
        /// (``PostgreSQLDatabase/isTransientConflict(_:)``) before its error is reported.
        package var conflictRetryLimit = 8

        /// The default options: the `public` schema, the server's statement timeout, the
        /// application name `webrecord`, the global logger, no transformers of its own.
        package init() {}
    }

    /// The schema the database was opened for.
    package let schema: Schema
    /// How the schema is laid out in tables: the SQLite store's layout.
    package let layout: StorageLayout
    /// The schema (namespace) holding the tables.
    package let namespace: String
    /// The Record classes rows are made into.
    package let recordClasses: RecordClassRegistry
    /// Where populations of this database log.
    package let logger: Logger
    /// How many times a population is tried again after a conflict with another worker.
    package let conflictRetryLimit: Int
    /// 8 MB of element text a batch, four times SQLite's: each batch costs a dozen round trips,
    /// and looks up and locks again the records it shares with the batches before it (the
    /// users of a stream of posts), so fewer, larger batches write a response faster, for
    /// about 53 MB more memory at the peak on the benchmark's 27 MB response (125 MB, against
    /// 72 MB in batches of 2 MB).
    package var streamingBatchByteLimit: Int { 8 << 20 }
    /// True: every lookup of rows to write locks the rows it finds until the transaction ends
    /// (`FOR NO KEY UPDATE`, ``PostgreSQLRecordTransaction``), and the rows it inserts are
    /// no other transaction's to change before it commits.
    package var holdsTheRowsItFinds: Bool { true }
    private let transformers: [String: AttributeTransformers.Transform]
    private let connection: ConnectionLock
    private let queue: DispatchQueue

    /// Connects to the database `location` names (a connection URL or conninfo string) for
    /// `schema`.
    ///
    /// - Throws: `invalidSchema` when the layout breaks one of PostgreSQL's limits (a name
    ///   longer than 63 bytes, a table wider than 1,600 columns, a key of more than 32 columns;
    ///   `webrecord lint --backend postgresql` lists them all); `storeError` when the server cannot be reached; `invalidArgument` for a
    ///   location libpq cannot read, an empty namespace, one with a NUL character or `$user`, or a
    ///   statement timeout that is not positive or longer than 2,147,483,647 ms.
    package init(_ location: String, schema: Schema, options: Options = Options()) throws(WebRecordError) {
        guard !options.namespace.isEmpty, !options.namespace.contains("\u{0}") else {
            throw WebRecordError(
                .invalidArgument, "a PostgreSQL schema (namespace) name must be non-empty, without a NUL character")
        }
        // `search_path` reads `$user`, quoted or not, as the role's own schema: the tables would
        // go elsewhere, and the qualified names the store uses would not find them.
        guard options.namespace != "$user" else {
            throw WebRecordError(
                .invalidArgument,
                "a PostgreSQL schema (namespace) cannot be named '$user': PostgreSQL's search_path reads it as the role's own schema"
            )
        }
        if let timeout = options.statementTimeout {
            _ = try PostgreSQLConnection.milliseconds(ofStatementTimeout: timeout)
        }
        let layout = StorageLayout(schema: schema)
        try PostgreSQLLimits.check(layout, namespace: options.namespace)
        self.schema = schema
        self.layout = layout
        self.namespace = options.namespace
        self.recordClasses = RecordClassRegistry(schema: schema)
        self.logger = options.logger
        self.transformers = options.transformers
        self.conflictRetryLimit = max(0, options.conflictRetryLimit)
        let connection = try PostgreSQLConnection(location, applicationName: options.applicationName)
        connection.sqlObserver = options.sqlObserver
        // Made again on every new session when the connection reconnects.
        try connection.setSessionSetting("SET search_path TO \(pgQuote(options.namespace))")
        if let timeout = options.statementTimeout {
            try connection.setStatementTimeout(timeout)
        }
        self.connection = ConnectionLock(connection)
        self.queue = DispatchQueue(label: "WebRecord.PostgreSQLDatabase")
    }

    /// The value transformer this database was given under `name`, if any.
    func transformers(named name: String) -> AttributeTransformers.Transform? {
        transformers[name]
    }

    /// Where the database's connection goes, without its password.
    package var connectionInfo: PostgreSQLConnectionInfo {
        connection.info
    }

    /// A description of the database that never holds a password.
    package var description: String {
        connection.info.description
    }

    /// Closes the connection; later reads and writes throw a `storeError`.
    package func close() {
        connection.close()
    }

    /// Runs `body` with the connection, waiting for any other thread using it. A thread already
    /// using it (inside a transaction) gets it again. Outside a transaction, a connection the
    /// server closed is connected again first.
    ///
    /// - Throws: what `body` throws; `storeError` when the server cannot be reached again.
    package func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try connection.withConnection { connection, _ in try body(connection) }
    }

    // MARK: - Writing

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// The first transaction creates or migrates the tables before `body`, under an advisory
    /// lock, so that they are committed or rolled back with `body`'s changes.
    package func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try write(cancellation: nil, body)
    }

    /// ``write(_:)`` on the database's own queue, without blocking the calling task's thread.
    /// Cancelling the task interrupts the statement the server runs for it, rolls back, and
    /// throws `cancelled`; so does a cancellation that `body` notices itself.
    package func write<T: Sendable>(_ body: @escaping @Sendable (PostgreSQLConnection) throws -> T) async throws -> T {
        try await cancellable { [self] cancellation in try write(cancellation: cancellation, body) }
    }

    /// Runs `work` on the database's queue with the cancellation of the calling task, which the
    /// task's cancellation raises.
    func cancellable<T: Sendable>(_ work: @escaping @Sendable (WriteCancellation) throws -> T) async throws -> T {
        let cancellation = WriteCancellation(canceller: connection.canceller)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try work(cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Creates or migrates the tables in a transaction of their own (``PostgreSQLMigrator``),
    /// unless a committed transaction of this database already made or checked them: what the
    /// first write and the first read do. A schema the tables cannot be migrated to is refused
    /// here, with `incompatibleStore`, before anything is read or written.
    func prepareLayout(on connection: PostgreSQLConnection, _ state: ConnectionLock.State) throws {
        guard !state.layoutIsReady else { return }
        try connection.inTransaction {
            try PostgreSQLMigrator(layout: layout, namespace: namespace, connection: connection).migrate()
        }
        state.layoutIsReady = true
    }

    /// Runs `body` with the connection, after ``prepareLayout(on:_:)``: how every read begins.
    /// When `body` finds a table or column of the layout missing all the same (another
    /// process dropped it since), the layout is checked again and `body` runs once more.
    func withPreparedConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try connection.withConnection { connection, state in
            try prepareLayout(on: connection, state)
            do {
                return try body(connection)
            } catch let error as WebRecordError
                where (error.sqlState == "42P01" || error.sqlState == "42703") && connection.isIdle
            {
                state.layoutIsReady = false
                try prepareLayout(on: connection, state)
                return try body(connection)
            }
        }
    }

    /// Runs `body` in one transaction, which `cancellation` (when given) can interrupt.
    func write<T>(cancellation: WriteCancellation?, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        func isCancelled() -> Bool { Task.isCancelled || cancellation?.isCancelled == true }
        return try connection.withConnection { connection, state in
            if isCancelled() { throw WebRecordError(.cancelled, "the write was cancelled before it began") }
            cancellation?.begin()
            defer { cancellation?.end() }
            do {
                // The tables first, in a transaction of their own, as a read makes them: the
                // advisory lock that makes workers take turns at it is held only that long,
                // not for a whole population.
                try prepareLayout(on: connection, state)
                let result = try connection.inTransaction {
                    let result = try body(connection)
                    // A task cancelled while its closure ran commits nothing.
                    if isCancelled() {
                        throw WebRecordError(.cancelled, "the write was cancelled before it committed")
                    }
                    return result
                }
                return result
            } catch {
                guard isCancelled() else { throw error }
                if let error = error as? WebRecordError, error.code == .cancelled { throw error }
                throw WebRecordError(.cancelled, "the write was cancelled", cause: error)
            }
        }
    }
}

/// The cancellation of one async write: raised by the task's cancellation handler, which also
/// interrupts the statement the server runs, once the write has begun.
final class WriteCancellation: Sendable {
    private struct State {
        var cancelled = false
        var running = false
    }

    private let state = Locked(State())
    private let canceller: PostgreSQLCanceller?

    init(canceller: PostgreSQLCanceller?) {
        self.canceller = canceller
    }

    /// Whether the task was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Raises the flag, and interrupts the running statement when the write has begun.
    func cancel() {
        let running = state.withLock { state in
            state.cancelled = true
            return state.running
        }
        if running { canceller?.cancel() }
    }

    /// The write holds the connection: a cancellation from now on interrupts its statements.
    func begin() { state.withLock { $0.running = true } }

    /// The write is done with the connection.
    func end() { state.withLock { $0.running = false } }
}

/// The connection of a ``PostgreSQLDatabase`` and what it knows of the store, used by one
/// thread at a time (a recursive lock: a thread inside a transaction reads through it again).
/// Outside a transaction, a connection the server closed is connected again before it is used.
///
/// `@unchecked Sendable` is safe: the connection and the state are only reached inside
/// ``withConnection(_:)``, under the lock.
final class ConnectionLock: @unchecked Sendable {
    /// What a connection knows of the store.
    final class State {
        /// Whether the tables were made or checked by a committed transaction.
        var layoutIsReady = false
    }

    private let lock = NSRecursiveLock()
    private let connection: PostgreSQLConnection
    private let state = State()
    /// Where the connection goes, without its password.
    let info: PostgreSQLConnectionInfo
    /// What interrupts the connection's running statement from another thread.
    let canceller: PostgreSQLCanceller?

    init(_ connection: PostgreSQLConnection) {
        self.connection = connection
        self.info = connection.info
        self.canceller = connection.canceller
    }

    /// Runs `body` with the connection and state under the lock, after connecting again when the
    /// server closed the connection (outside a transaction).
    ///
    /// - Throws: `storeError` once the connection was closed (``close()``).
    func withConnection<T>(_ body: (PostgreSQLConnection, State) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !connection.isClosed else {
            throw WebRecordError(.storeError, "the store on \(info) is closed")
        }
        try connection.reconnectIfLost()
        return try body(connection, state)
    }

    /// Closes the connection, once no thread uses it.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }
}
