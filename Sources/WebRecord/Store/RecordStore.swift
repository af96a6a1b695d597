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
/// throws. Opening migrates the file in place when the schema only adds entities, attributes
/// or relationships; any other change is an ``WebRecordError/Code/incompatibleStore`` error and
/// the file is left untouched. The layout is documented in `Docs/StorageLayout.md`.
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
    private let classes = Locked<[String: RecordClass]>([:])
    /// The servers registered on this store (see `RecordStore+Servers.swift`).
    let servers = Locked<ServerRegistry>(ServerRegistry())

    /// Opens (creating if needed) the store file at `path` for `schema`.
    ///
    /// - Throws: ``WebRecordError`` with code `storeError` when SQLite cannot open the file, or
    ///   `incompatibleStore` when the file was made for a schema that cannot migrate in place.
    public convenience init(path: String, schema: Schema, configuration: Configuration = Configuration()) throws(WebRecordError) {
        try self.init(location: path, schema: schema, configuration: configuration)
    }

    /// Opens a private in-memory store for `schema`.
    public convenience init(inMemory schema: Schema, configuration: Configuration = Configuration()) throws(WebRecordError) {
        try self.init(location: nil, schema: schema, configuration: configuration)
    }

    private init(location: String?, schema: Schema, configuration: Configuration) throws(WebRecordError) {
        self.schema = schema
        self.path = location
        self.layout = StorageLayout(schema: schema)
        let writer = try Connection(
            path: location ?? ":memory:", busyTimeout: configuration.busyTimeout, createMode: mode_t(configuration.fileMode))
        writer.sqlObserver = configuration.sqlObserver
        try StoreMigrator(layout: layout, connection: writer, isFile: location != nil).migrate()
        self.writer = SerializedConnection(writer)
        if let location {
            let reader = try Connection(path: location, busyTimeout: configuration.busyTimeout)
            reader.sqlObserver = configuration.sqlObserver
            try reader.execute("PRAGMA foreign_keys = ON; PRAGMA query_only = ON")
            self.reader = SerializedConnection(reader)
        } else {
            self.reader = self.writer
        }
    }

    // MARK: - Access

    /// Runs `body` with the reader connection. Reads see the last committed state.
    ///
    /// - Throws: whatever `body` throws.
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try reader.withConnection(body)
    }

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
    ///
    /// Writes are serialized within the process; across processes, a write waits up to the busy
    /// timeout for another's lock, then fails with a `storeError` (SQLITE_BUSY).
    ///
    /// - Throws: whatever `body` throws, after the rollback; or a `storeError`.
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try writer.withConnection { connection in
            try connection.inTransaction { try body(connection) }
        }
    }

    /// Runs `body` with the writer connection, outside any transaction WebRecord opens.
    func withWriter<T>(_ body: (Connection) throws -> T) rethrows -> T {
        try writer.withConnection(body)
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
