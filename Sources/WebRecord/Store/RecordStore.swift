import Foundation

/// A SQLite store of records, laid out from a schema.
///
/// For example:
///
/// ```swift
/// let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
/// let store = try RecordStore(path: "appnet.sqlite", schema: schema)
/// let posts = try store.fetch("Post", orderBy: [.descending("date")], limit: 20)
/// ```
///
/// A store has one writer and, for a file, a separate reader connection, in WAL mode so
/// reads never wait for a write. Writes are serialized: `write` runs its closure in one
/// `BEGIN IMMEDIATE` transaction, committed when the closure returns and rolled back when it
/// throws.
///
/// Opening only reads: it refuses a store made for a schema that cannot migrate in place
/// (an ``WebRecordError/Code/incompatibleStore`` error, the file left untouched). The first
/// write transaction creates the tables, or migrates them when the schema only adds entities,
/// attributes or relationships, together with its own changes: when it fails, the store is as
/// it was, and a file the store created for it is removed. The layout is documented in
/// `Docs/StorageLayout.md`.
public final class RecordStore: Sendable {
    /// Options for opening a store.
    public struct Configuration: Sendable {
        /// How long a write waits for another process's lock before failing. Default 5 seconds.
        public var busyTimeout: TimeInterval = 5
        /// The permissions of a new store file. Default `0o600`: readable and writable by its owner only.
        public var fileMode: UInt16 = 0o600
        /// Called with the text of every SQL statement the store runs (for tests and diagnostics).
        public var sqlObserver: (@Sendable (String) -> Void)?

        /// The default configuration.
        public init() {}
    }

    /// The schema the store was opened for.
    public let schema: Schema
    /// The store file's path, or nil for an in-memory store.
    public let path: String?
    let layout: StorageLayout
    private let writer: SerializedConnection
    private let reader: SerializedConnection
    /// The file, for a store that has one.
    private let file: StoreFile?
    private let classes = Locked<[String: RecordClass]>([:])
    /// The servers registered on this store (see `RecordStore+Servers.swift`).
    let servers = Locked<ServerRegistry>(ServerRegistry())

    /// Opens the store file at `path` for `schema`, creating an empty file (no tables yet)
    /// when there is none.
    ///
    /// - Throws: ``WebRecordError`` with code `storeError` when SQLite cannot open the file, or
    ///   `incompatibleStore` when the file was made for a schema that cannot migrate in place.
    public convenience init(path: String, schema: Schema, configuration: Configuration = Configuration()) throws(WebRecordError) {
        try self.init(location: path, schema: schema, configuration: configuration)
    }

    /// Opens a private in-memory store for `schema`, with its tables made at once.
    ///
    /// - Throws: ``WebRecordError`` with code `storeError` when SQLite cannot make the tables.
    public convenience init(inMemory schema: Schema, configuration: Configuration = Configuration()) throws(WebRecordError) {
        try self.init(location: nil, schema: schema, configuration: configuration)
    }

    private init(location: String?, schema: Schema, configuration: Configuration) throws(WebRecordError) {
        self.schema = schema
        self.path = location
        let layout = StorageLayout(schema: schema)
        self.layout = layout
        guard let location else {
            // Nothing is left behind by a store in memory: its tables are made at once.
            let connection = try Connection(path: ":memory:", busyTimeout: configuration.busyTimeout)
            connection.sqlObserver = configuration.sqlObserver
            try connection.execute("PRAGMA foreign_keys = ON")
            do {
                _ = try connection.inTransaction { try StoreMigrator(layout: layout, connection: connection).migrate() }
            } catch {
                throw (error as? WebRecordError) ?? WebRecordError(.storeError, "cannot create the tables: \(error)", cause: error)
            }
            let state = SerializedConnection.State()
            state.layoutIsReady = true
            // An in-memory store never closes its connection (it has no file to lose), so it never reopens.
            self.writer = SerializedConnection(connection, state: state) { _ throws(WebRecordError) in
                throw WebRecordError(.storeError, "an in-memory store cannot be reopened")
            }
            self.reader = self.writer
            self.file = nil
            return
        }
        let file = StoreFile(path: location, configuration: configuration)
        let writerState = SerializedConnection.State()
        let readerState = SerializedConnection.State()
        var opened: (writer: Connection, reader: Connection)?
        // Processes opening one new file at once can meet each other's locks where SQLite does
        // not wait (switching the file to WAL): opening is retried for up to the busy timeout.
        let deadline = Date().addingTimeInterval(configuration.busyTimeout)
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
                guard code == 5 || code == 6, Date() < deadline else { throw error.naming(store: location) }
                usleep(5_000)
            }
        }
        guard let (writer, reader) = opened else { throw WebRecordError(.storeError, "the store could not be opened") }
        self.writer = SerializedConnection(writer, state: writerState, open: file.openWriter)
        self.reader = SerializedConnection(reader, state: readerState, open: file.openReader)
        self.file = file
    }

    // MARK: - Access

    /// Runs `body` with the reader connection. Reads see the last committed state.
    ///
    /// Reading never creates or migrates the store: until the first write transaction has made
    /// the schema's tables and columns, the missing ones read as empty tables and NULL columns
    /// (see `Docs/StorageLayout.md`).
    ///
    /// - Throws: whatever `body` throws, or a `storeError`.
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try reader.withConnection { connection, state in
            guard let file else { return try body(connection) }
            try state.pendingViews.refresh(on: connection, layout: layout)
            // A new file that was removed (its first write failed) and made again is another file.
            guard state.pendingViews.isActive, connection.fileHasMoved, FileManager.default.fileExists(atPath: file.path) else {
                return try body(connection)
            }
            let reopened = try reader.reopen()
            try state.pendingViews.refresh(on: reopened, layout: layout)
            return try body(reopened)
        }
    }

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
    ///
    /// The first write transaction of a store also creates or migrates its tables, after
    /// `BEGIN IMMEDIATE` and before `body`, so that they are committed with `body`'s changes or
    /// rolled back with them. When the first write of a store whose file this store created
    /// fails, the file is removed again, as if the store had never been opened.
    ///
    /// Writes are serialized within the process; across processes, a write waits up to the busy
    /// timeout for another's lock, then fails with a `storeError` (SQLITE_BUSY).
    ///
    /// - Throws: whatever `body` throws, after the rollback; `incompatibleStore` when another
    ///   process changed the store incompatibly since it was opened; or a `storeError`.
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        // A new file another store removed while this one waited is reopened; a few tries
        // are plenty, as each removal needs a failed first write.
        for _ in 0..<4 {
            let attempt: Attempt<T>
            do {
                attempt = try writer.withConnection { connection, state in
                    try transaction(on: connection, state: state, body)
                }
            } catch let error as WebRecordError {
                throw path.map { error.naming(store: $0) } ?? error
            }
            if case .done(let result) = attempt { return result }
        }
        throw WebRecordError(.storeError, "the store file \(path ?? ":memory:") was removed each time it was opened for writing")
    }

    /// Removes the file this store created when nothing was ever committed to it: what a
    /// failure before the first write transaction (a response refused before anything was
    /// written) calls, so that a failed first population leaves no file, as a failed first
    /// write does.
    package func discardIfNeverWritten() {
        try? writer.withConnection { connection, state in
            if let file, state.createdFile, !state.hasCommitted, file.removeIfEmpty(using: connection) {
                writer.close()
            }
        }
    }

    /// Runs `body` with the writer connection, outside any transaction WebRecord opens.
    func withWriter<T>(_ body: (Connection) throws -> T) throws -> T {
        try writer.withConnection { connection, _ in try body(connection) }
    }

    private enum Attempt<T> {
        case done(T)
        case reopen
    }

    private func transaction<T>(
        on connection: Connection, state: SerializedConnection.State, _ body: (Connection) throws -> T
    ) throws -> Attempt<T> {
        if let file, !state.layoutIsReady { try file.enableWAL(on: connection) }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            if !state.layoutIsReady, try StoreMigrator(layout: layout, connection: connection).migrate() == .fileMoved {
                try connection.execute("ROLLBACK")
                writer.close()
                return .reopen
            }
            let result = try body(connection)
            try connection.execute("COMMIT")
            state.layoutIsReady = true
            state.hasCommitted = true
            return .done(result)
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            if let file, state.createdFile, !state.hasCommitted, file.removeIfEmpty(using: connection) {
                // Nothing was ever committed to the file this store created: it goes.
                writer.close()
            }
            throw error
        }
    }

    // MARK: - Record classes

    /// Registers a ``Record`` subclass for an entity, MMRecord-style, so fetches and requests
    /// return instances of it.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class Post: Record { var text: String? { self["text"] } }
    /// store.register(Post.self)                     // for the entity named "Post"
    /// store.register(FSCategory.self, for: "Category")
    /// ```
    ///
    /// - Parameters:
    ///   - recordClass: the subclass.
    ///   - entityName: the entity; by default the class's ``Record/entityName``.
    public func register(_ recordClass: Record.Type, for entityName: String? = nil) {
        let name = entityName ?? recordClass.entityName
        classes.withLock { $0[name] = RecordClass(type: recordClass) }
    }

    /// The class that records of `entityName` are made of: the registered one, else the nearest
    /// registered ancestor entity's, else ``Record``.
    func recordClass(for entityName: String) -> Record.Type {
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
    func entityName(registeredFor recordClass: Record.Type) -> String? {
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
        let fileCodes: Set<Int32> = [3, 8, 10, 11, 13, 14, 26]  // PERM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB
        let aboutTheFile = code == .incompatibleStore || sqliteCode.map { fileCodes.contains($0 & 0xFF) } == true
        guard aboutTheFile, !message.contains(path) else { return self }
        var named = self
        named.message = "the store '\(path)': " + message
        return named
    }
}
