import Foundation
import Synchronization
internal import WebRecordSQLite

/// One SQLite connection: the thin layer every store operation goes through.
///
/// Not `Sendable`: a ``RecordStore`` owns its connections and hands one out only inside
/// its `read` and `write` closures, one thread at a time. Statements are prepared once and
/// cached for the life of the connection.
public final class Connection {
    let handle: OpaquePointer
    /// The file path, or ":memory:".
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Called with each SQL statement run (used by test stores to count queries).
    var sqlObserver: (@Sendable (String) -> Void)?
    /// Where the update hook reports changed rows, while changes are tracked.
    var trackedChanges: ChangeLog?
    /// Whether every `DELETE` deletes its rows one by one (``reportEveryDeletedRow()``).
    var reportsEveryDeletedRow = false
    /// The tables written by the statements prepared since ``takeWriteTargets()``.
    var preparedWriteTargets: [String] = []

    /// Opens a connection.
    ///
    /// - Parameters:
    ///   - mustExist: when true, a missing file is an error instead of a new database.
    ///   - createMode: the permissions of the file when this call creates it.
    init(
        path: String, readOnly: Bool = false, mustExist: Bool = false, busyTimeout: TimeInterval = 5,
        createMode: mode_t? = nil
    ) throws(WebRecordError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if !readOnly, !mustExist { flags |= SQLITE_OPEN_CREATE }
        if let createMode, !readOnly, !mustExist, path != ":memory:", !path.hasPrefix("file:") {
            _ = Self.createFile(atPath: path, mode: createMode)
        }
        _ = Self.configured
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            var message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            if let missing = Self.missingDirectory(of: path) { message = "the directory '\(missing)' does not exist" }
            throw WebRecordError.store(code: code, message: "cannot open '\(path)': \(message)", sql: nil)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
        _ = webrecord_sqlite3_db_config_defensive(db, 1)
        installAuthorizer()
        sqlite3_create_collation_v2(
            db, DecimalOrder.collation, SQLITE_UTF8, nil,
            { _, leftCount, left, rightCount, right in
                Int32(
                    DecimalOrder.compare(
                        UnsafeRawBufferPointer(start: left, count: Int(leftCount)),
                        UnsafeRawBufferPointer(start: right, count: Int(rightCount))))
            }, nil)
    }

    /// SQLite's process-wide configuration, made once before the first connection opens it.
    ///
    /// Memory statistics are turned off: WebRecord reads none, and with them on every allocation
    /// SQLite makes takes a process-wide mutex (4.7% of the writer's samples in a profile of a
    /// first import). When something else in the process initialized SQLite first, the call is
    /// refused and changes nothing. (SQLite's configuration is not made for threads: something
    /// else initializing SQLite on another thread at the very moment of this call races it.)
    private static let configured: Bool = webrecord_sqlite3_config_no_memstatus() == SQLITE_OK

    /// The directory a file path names that does not exist, if any: what a store's file cannot
    /// be made in. Nil for an in-memory database, a URI, or a path whose directory exists.
    static func missingDirectory(of path: String) -> String? {
        guard path != ":memory:", !path.hasPrefix("file:") else { return nil }
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return nil }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) ? nil : directory
    }

    /// Creates an empty file at `path` with `mode`, whatever the umask, unless something is
    /// there already.
    ///
    /// - Returns: true when this call created the file.
    static func createFile(atPath path: String, mode: mode_t) -> Bool {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        fchmod(fd, mode)
        close(fd)
        return true
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: - Running SQL

    /// Runs one or more SQL statements that bind nothing and return nothing.
    public func execute(_ sql: String) throws(WebRecordError) {
        sqlObserver?(sql)
        var message: UnsafeMutablePointer<CChar>?
        let hooked = hookedRows
        let changesBefore = sqlite3_total_changes64(handle)
        _ = takeWriteTargets()
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        noteUnreportedWrites(
            of: takeWriteTargets(), hookedBefore: hooked, changedRows: sqlite3_total_changes64(handle) - changesBefore)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw WebRecordError.store(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Runs a statement with bound arguments, returning nothing.
    public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) {
        let statement = try cachedStatement(sql)
        try statement.execute(arguments)
    }

    /// A prepared statement for `sql`, reused across calls.
    func cachedStatement(_ sql: String) throws(WebRecordError) -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` without reporting its statements to ``sqlObserver``: for the store's own
    /// bookkeeping (reading the catalog), which a test counting queries should not see.
    func unobserved<T>(_ body: () throws(WebRecordError) -> T) throws(WebRecordError) -> T {
        let observer = sqlObserver
        sqlObserver = nil
        defer { sqlObserver = observer }
        return try body()
    }

    /// Finalizes every cached statement. Call it after the schema changed: a statement prepared
    /// before reports the old result columns until it is stepped.
    func forgetStatements() {
        statementCache.removeAll()
    }

    /// Rows of `sql`, each as an array of column values.
    public func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> [[DatabaseValue]] {
        let statement = try cachedStatement(sql)
        var rows: [[DatabaseValue]] = []
        try statement.forEachRow(arguments) { statement in rows.append(statement.rowValues()) }
        return rows
    }

    /// The first column of the first row of `sql`, if any.
    public func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws(WebRecordError) -> DatabaseValue? {
        try rows(sql, arguments).first?.first
    }

    /// The rowid of the last row inserted.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The largest number of `?` a statement may hold.
    var maximumVariableCount: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock at once, so a busy store is met (and waited
    /// for, up to the busy timeout) before any work is done.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Whether the main database holds no schema objects at all (a new or emptied file).
    var isEmptyDatabase: Bool {
        get throws(WebRecordError) { try scalar("SELECT count(*) FROM main.sqlite_master") == .integer(0) }
    }

    /// Whether the main database file was deleted or replaced since this connection opened it
    /// (SQLite's `SQLITE_FCNTL_HAS_MOVED`). Always false in memory.
    var fileHasMoved: Bool {
        var moved: Int32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK else { return false }
        return moved != 0
    }

    func errorMessage() -> String { String(cString: sqlite3_errmsg(handle)) }

    /// What another thread may use to interrupt this connection's running statement.
    var interruptHandle: InterruptHandle { InterruptHandle(handle: handle) }

    /// Makes every statement of this connection fail with `SQLITE_INTERRUPT` while `flag` is
    /// raised, checked every thousand SQLite instructions: `sqlite3_interrupt` alone stops only
    /// the statements running when it is called, and a cancellation that lands between two
    /// statements must stop the next one too.
    ///
    /// `flag` must outlive the connection.
    func interrupt(while flag: InterruptFlag) {
        let context = Unmanaged.passUnretained(flag).toOpaque()
        sqlite3_progress_handler(
            handle, 1000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<InterruptFlag>.fromOpaque(context).takeUnretainedValue().isRaised ? 1 : 0
            }, context)
    }

    /// A connection's handle for `sqlite3_interrupt`, the one SQLite call that is safe from
    /// another thread while the connection works.
    ///
    /// `@unchecked Sendable` is safe as long as the connection is open: ``ConnectionQueue``
    /// forgets the handle, under the lock it interrupts with, before it drops the connection.
    struct InterruptHandle: @unchecked Sendable {
        let handle: OpaquePointer

        /// Makes the statement running on the connection, and any it starts before it is
        /// done, fail with `SQLITE_INTERRUPT`.
        func interrupt() {
            sqlite3_interrupt(handle)
        }
    }
}

@available(*, unavailable)
extension Connection: Sendable {}

/// A flag another thread raises to interrupt a connection's statements (see
/// ``Connection/interrupt(while:)``).
final class InterruptFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Whether statements are to be interrupted.
    var isRaised: Bool { raised.load(ordering: .relaxed) }

    /// Raises or lowers the flag.
    func set(_ value: Bool) { raised.store(value, ordering: .relaxed) }
}

extension WebRecordError {
    static func store(code: Int32, message: String, sql: String?) -> WebRecordError {
        var error = WebRecordError(.storeError, message)
        error.sqliteCode = code
        error.sql = sql
        return error
    }
}
