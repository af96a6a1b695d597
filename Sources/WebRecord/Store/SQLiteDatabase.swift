import Foundation

/// The SQLite database behind a store: its connections, its layout and migration, reading and
/// writing, and the Record classes its rows are made into.
///
/// ``RecordStore`` is the public façade over it. A file has one writer connection and a
/// separate reader connection, in WAL mode so reads never wait for a write; in memory one
/// connection does both. Each connection runs on its own serial executor
/// (``ConnectionQueue``): synchronous calls wait for it, async ones hop onto it and never block
/// the cooperative pool.
///
/// Opening only reads: it refuses a store made for a schema that cannot migrate in place. The
/// first write transaction creates or migrates the tables together with its own changes, and a
/// file the store created is removed again when that first write fails.
package final class SQLiteDatabase: Sendable {
    /// What opening a database needs besides its schema.
    package struct Options: Sendable {
        /// How long a write waits for another process's lock before failing.
        package var busyTimeout: TimeInterval = 5
        /// The permissions of a new store file.
        package var fileMode: UInt16 = 0o600
        /// Called with the text of every SQL statement run.
        package var sqlObserver: (@Sendable (String) -> Void)?
        /// Where populations of this database log.
        package var logger = Logger.global
        /// Value transformers of this database, before the process-wide ones.
        package var transformers: [String: AttributeTransformers.Transform] = [:]

        package init() {}
    }

    /// The schema the database was opened for.
    package let schema: Schema
    /// The file's path, or nil in memory.
    package let path: String?
    package let layout: StorageLayout
    /// The Record classes rows are made into.
    package let recordClasses: RecordClassRegistry
    /// Where populations of this database log.
    package let logger: Logger
    /// Where this database's commits are announced, shared by every database on the same file
    /// in this process.
    package let changes: ChangeFeed
    private let transformers: [String: AttributeTransformers.Transform]
    private let writer: ConnectionQueue
    private let reader: ConnectionQueue
    private let file: StoreFile?

    /// Opens the file at `path` (creating an empty one, with no tables yet, when there is none),
    /// or a private database in memory when `path` is nil, with its tables made at once.
    ///
    /// - Throws: `storeError` when SQLite cannot open the file or make the tables;
    ///   `incompatibleStore` when the file was made for a schema that cannot migrate in place.
    package init(path location: String?, schema: Schema, options: Options) throws(WebRecordError) {
        self.schema = schema
        self.path = location
        let layout = StorageLayout(schema: schema)
        self.layout = layout
        self.recordClasses = RecordClassRegistry(schema: schema)
        self.logger = options.logger
        self.transformers = options.transformers
        self.changes = ChangeFeed.feed(forFile: location)
        guard let location else {
            // Nothing is left behind by a store in memory: its tables are made at once.
            let connection = try Connection(path: ":memory:", busyTimeout: options.busyTimeout)
            connection.sqlObserver = options.sqlObserver
            try connection.execute("PRAGMA foreign_keys = ON")
            do {
                _ = try connection.inTransaction { try StoreMigrator(layout: layout, connection: connection).migrate() }
            } catch {
                throw (error as? WebRecordError)
                    ?? WebRecordError(.storeError, "cannot create the tables: \(error)", cause: error)
            }
            let state = ConnectionQueue.State()
            state.layoutIsReady = true
            // An in-memory store never drops its connection (it has no file to lose), so it never reopens.
            self.writer = ConnectionQueue(role: "write", connection, state: state) { _ throws(WebRecordError) in
                throw WebRecordError(.storeError, "an in-memory store cannot be reopened")
            }
            self.reader = self.writer
            self.file = nil
            return
        }
        let file = StoreFile(path: location, options: options)
        let writerState = ConnectionQueue.State()
        let readerState = ConnectionQueue.State()
        var opened: (writer: Connection, reader: Connection)?
        // Processes opening one new file at once can meet each other's locks where SQLite does
        // not wait (switching the file to WAL): opening is retried for up to the busy timeout.
        let deadline = Date().addingTimeInterval(options.busyTimeout)
        while opened == nil {
            do {
                let writer = try file.openWriter(writerState)
                let reader = try file.openReader(readerState)
                // Refuse an incompatible store now, reading only; the tables are made or migrated
                // by the first write transaction.
                try StoreMigrator(layout: layout, connection: reader).check()
                opened = (writer, reader)
            } catch {
                let code = (error.sqliteCode ?? 0) & 0xFF
                guard code == 5 || code == 6, Date() < deadline else {
                    // A file this store made and could not write (a full disk refused its
                    // switch to WAL) holds nothing: it goes, as after a failed first write.
                    if writerState.createdFile { file.removeIfBlank() }
                    throw error.naming(store: location)
                }
                usleep(5_000)
            }
        }
        guard let (writer, reader) = opened else { throw WebRecordError(.storeError, "the store could not be opened") }
        self.writer = ConnectionQueue(role: "write", writer, state: writerState, open: file.openWriter)
        self.reader = ConnectionQueue(role: "read", reader, state: readerState, open: file.openReader)
        self.file = file
    }

    deinit {
        close()
    }

    /// The value transformer named `name`: this database's own, else the process-wide one.
    package func transformer(named name: String) -> AttributeTransformers.Transform? {
        transformers[name] ?? AttributeTransformers.transformer(named: name)
    }

    // MARK: - Reading

    /// Runs `body` with a connection that sees the last committed state, or, inside a write,
    /// the write's own uncommitted state.
    ///
    /// Reading never creates or migrates the store: until the first write transaction has made
    /// the schema's tables and columns, the missing ones read as empty tables and NULL columns.
    package func read<T>(_ body: (Connection) throws -> T) throws -> T {
        // Inside a write (or a read), the closure's own connection answers.
        if writer.isCurrent { return try writer.onQueue { connection, _ in try body(connection) } }
        if reader.isCurrent {
            return try reader.onQueue { connection, state in try readerBody(connection, state, body) }
        }
        return try reader.sync { connection, state in try readerBody(connection, state, body) }
    }

    /// Runs `body` on the reader's executor, without blocking the calling task's thread.
    /// Cancelling the task interrupts the read, which throws `cancelled`.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await cancellable {
            try await reader.run { [self] connection, state in try readerBody(connection, state, body) }
        }
    }

    private func readerBody<T>(
        _ connection: Connection, _ state: ConnectionQueue.State, _ body: (Connection) throws -> T
    ) throws -> T {
        guard let file, reader !== writer else { return try body(connection) }
        try state.pendingViews.refresh(on: connection, layout: layout)
        // A new file that was removed (its first write failed) and made again is another file.
        guard state.pendingViews.isActive, connection.fileHasMoved, FileManager.default.fileExists(atPath: file.path)
        else {
            return try body(connection)
        }
        let reopened = try reader.reopen()
        try state.pendingViews.refresh(on: reopened, layout: layout)
        return try body(reopened)
    }

    // MARK: - Writing

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it
    /// throws. The first write transaction also creates or migrates the tables, after `BEGIN
    /// IMMEDIATE` and before `body`, so that they are committed or rolled back with `body`'s
    /// changes. A write inside a write stops the process: access is not reentrant.
    package func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try retryingReopen { () throws in
            try writer.sync { connection, state in try transaction(on: connection, state: state, body) }
        }
    }

    /// Runs `body` in one write transaction on the writer's executor, without blocking the
    /// calling task's thread. Cancelling the task interrupts the SQL running, rolls back, and
    /// throws `cancelled`; so does a cancellation `body` notices itself.
    package func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await cancellable {
            for _ in 0..<4 {
                do {
                    let attempt = try await writer.run { [self] connection, state in
                        try transaction(on: connection, state: state, body)
                    }
                    if case .done(let result) = attempt { return result }
                } catch let error as WebRecordError {
                    throw path.map { error.naming(store: $0) } ?? error
                }
            }
            throw reopenFailure
        }
    }

    /// Runs `body` with the writer connection outside any transaction WebRecord opens (for
    /// statements SQLite refuses inside one, such as `ATTACH`, and for tests).
    package func withWriter<T>(_ body: (Connection) throws -> T) throws -> T {
        try writer.sync { connection, _ in try body(connection) }
    }

    /// Removes the file this database created when nothing was ever committed to it: what a
    /// failure before the first write transaction calls, so that a failed first population
    /// leaves no file, as a failed first write does.
    package func discardIfNeverWritten() {
        guard file != nil else { return }
        if writer.isCurrent {
            try? writer.onQueue(discard)
        } else {
            try? writer.sync(discard)
        }
    }

    /// ``discardIfNeverWritten()`` on the writer's executor.
    package func discardIfNeverWritten() async {
        guard file != nil else { return }
        _ = try? await writer.run { [self] connection, state in try discard(connection, state) }
    }

    private func discard(_ connection: Connection, _ state: ConnectionQueue.State) throws {
        if let file, state.createdFile, !state.hasCommitted, file.removeIfEmpty(using: connection) {
            writer.drop()
        }
    }

    /// Checkpoints the WAL into the file and closes the connections. Later reads and writes
    /// throw a `storeError`. Closing twice does nothing more.
    package func close() {
        // The writer checkpoints; the last connection to close then deletes the WAL.
        writer.close { connection in _ = try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        if reader !== writer { reader.close() }
    }

    /// What one try at a write transaction gives: its result, or a request to reopen the file.
    fileprivate enum Attempt<T> {
        case done(T)
        case reopen
    }

    /// Runs `attempt` until it does not ask to reopen: a new file another store removed while
    /// this one waited is reopened. A few tries are plenty, as each removal needs a failed
    /// first write.
    private func retryingReopen<T>(_ attempt: () throws -> Attempt<T>) throws -> T {
        for _ in 0..<4 {
            do {
                if case .done(let result) = try attempt() { return result }
            } catch let error as WebRecordError {
                throw path.map { error.naming(store: $0) } ?? error
            }
        }
        throw reopenFailure
    }

    private var reopenFailure: WebRecordError {
        WebRecordError(
            .storeError, "the store file \(path ?? ":memory:") was removed each time it was opened for writing")
    }

    /// Runs `operation`, turning an interruption that cancelling the task caused into
    /// `cancelled`.
    private func cancellable<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch {
            guard Task.isCancelled else { throw error }
            if let error = error as? WebRecordError, error.code == .cancelled { throw error }
            throw WebRecordError(.cancelled, "the operation was cancelled", cause: error)
        }
    }

    private func transaction<T>(
        on connection: Connection, state: ConnectionQueue.State, _ body: (Connection) throws -> T
    ) throws -> Attempt<T> {
        if let file, let reason = state.unwritable { throw file.unwritableError(reason) }
        if let file, !state.layoutIsReady {
            do {
                try file.enableWAL(on: connection)
            } catch {
                if state.createdFile, !state.hasCommitted, file.removeIfEmpty(using: connection) { writer.drop() }
                throw error
            }
        }
        let tracked = updateChangeTracking(on: connection, state: state)
        try connection.execute("BEGIN IMMEDIATE")
        do {
            if !state.layoutIsReady, try StoreMigrator(layout: layout, connection: connection).migrate() == .fileMoved {
                try connection.execute("ROLLBACK")
                writer.drop()
                return .reopen
            }
            let result = try body(connection)
            // A task cancelled while its closure ran commits nothing.
            if Task.isCancelled { throw WebRecordError(.cancelled, "the write was cancelled before it committed") }
            try connection.execute("COMMIT")
            state.layoutIsReady = true
            state.hasCommitted = true
            announceCommit(tracked: tracked, state: state)
            return .done(result)
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            state.changeLog.discard()
            if let file, state.createdFile, !state.hasCommitted, file.removeIfEmpty(using: connection) {
                // Nothing was ever committed to the file this store created: it goes.
                writer.drop()
            }
            throw error
        }
    }
}

extension SQLiteDatabase {
    /// Starts or stops reporting the writer's changed rows, as the file has observers or not.
    ///
    /// - Returns: whether the transaction about to start is tracked.
    private func updateChangeTracking(on connection: Connection, state: ConnectionQueue.State) -> Bool {
        let wanted = changes.hasSubscribers
        if wanted != state.tracksChanges {
            if wanted {
                connection.reportEveryDeletedRow()
                var cascading: [String: [String]] = [:]
                for join in layout.joinTables {
                    cascading[join.ownerTable, default: []].append(join.name)
                    if join.targetTable != join.ownerTable {
                        cascading[join.targetTable, default: []].append(join.name)
                    }
                }
                state.changeLog.cascadingJoinTables = cascading
                connection.trackChanges(into: state.changeLog)
            } else {
                connection.stopTrackingChanges()
            }
            state.tracksChanges = wanted
        }
        return wanted
    }

    /// Announces a commit: the rows it changed when the transaction was tracked; else, when an
    /// observer arrived while it ran, that something changed.
    private func announceCommit(tracked: Bool, state: ConnectionQueue.State) {
        if tracked {
            let changed = state.changeLog.take()
            if !changed.isEmpty { changes.publish(.tables(changed)) }
        } else if changes.hasSubscribers {
            changes.publish(.unknown)
        }
    }

    /// SQLite's data version on the reader connection: another connection's commit (this
    /// store's writer, another store's, another process's) changes it.
    package func dataVersion() async throws -> Int64 {
        try await read { connection in try connection.dataVersion() }
    }
}

extension SQLiteDatabase.Attempt: Sendable where T: Sendable {}

/// The Record subclasses registered for entities, MMRecord-style.
package final class RecordClassRegistry: Sendable {
    private let schema: Schema
    private let classes = Locked<[String: RecordClass]>([:])

    package init(schema: Schema) {
        self.schema = schema
    }

    /// Registers `recordClass` for the entity `entityName`.
    package func register(_ recordClass: Record.Type, for entityName: String) {
        classes.withLock { $0[entityName] = RecordClass(type: recordClass) }
    }

    /// The class that records of `entityName` are made of: the registered one, else the nearest
    /// registered ancestor entity's, else ``Record``.
    package func recordClass(for entityName: String) -> Record.Type {
        classes.withLock { classes in
            var current: String? = entityName
            while let name = current {
                if let registered = classes[name] { return registered.type }
                current = schema.entity(named: name)?.parentName
            }
            return Record.self
        }
    }

    /// The entity name registered for a class, if any.
    package func entityName(registeredFor recordClass: Record.Type) -> String? {
        classes.withLock { classes in
            classes.first { $0.value.type == recordClass }?.key
        }
    }
}

/// A Record subclass's metatype, boxed to be stored in a Sendable registry.
struct RecordClass: @unchecked Sendable {
    // Metatypes of classes are immutable values; sharing them across threads is safe.
    let type: Record.Type
}

extension WebRecordError {
    /// The error with the store file's path in its message, when it is about the file itself
    /// (not a database, corrupt, read-only, cannot be opened, disk I/O, full) or about what the
    /// file holds (an incompatible store) and does not name the path already.
    func naming(store path: String) -> WebRecordError {
        // PERM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB
        let fileCodes: Set<Int32> = [3, 8, 10, 11, 13, 14, 26]
        let aboutTheFile = code == .incompatibleStore || sqliteCode.map { fileCodes.contains($0 & 0xFF) } == true
        guard aboutTheFile, !message.contains(path) else { return self }
        var named = self
        named.message = "the store '\(path)': " + message
        return named
    }
}
