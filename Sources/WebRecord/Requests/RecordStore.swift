import Foundation

/// A store of records: the database laid out from a schema, the servers registered for its
/// entities, and the Record classes its records are made of.
///
/// For example:
///
/// ```swift
/// let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
/// let store = try RecordStore(path: "appnet.sqlite", schema: schema)
/// let posts = try store.fetch("Post", orderBy: [.descending("date")], limit: 20)
/// store.close()
/// ```
///
/// A store on a file has one writer connection and a separate reader connection, in WAL mode
/// so reads never wait for a write; a store in memory has one connection for both. Each
/// connection runs on its own serial executor, as in GRDB: the `async` forms of `read(_:)`
/// and `write(_:)` hop onto it and never block a thread of Swift's cooperative pool; the
/// synchronous forms wait for it, for scripts and command-line tools. `write` runs its closure
/// in one `BEGIN IMMEDIATE` transaction, committed when the closure returns and rolled back
/// when it throws. Access is not reentrant: a write inside a write stops the process with a
/// message that says so. A read inside a write sees the write's own uncommitted changes.
///
/// Opening only reads: it refuses a store made for a schema that cannot migrate in place
/// (an ``WebRecordError/Code/incompatibleStore`` error, the file left untouched). The first
/// write transaction creates the tables, or migrates them when the schema only adds entities,
/// attributes or relationships, together with its own changes: when it fails, the store is as
/// it was, and a file the store created for it is removed. The layout is documented in
/// `Docs/StorageLayout.md`.
///
/// Call ``close()`` when done: it checkpoints the write-ahead log into the file and releases
/// it, so the file alone is a complete copy of the store. Deinitializing the store does the
/// same.
public final class RecordStore: Sendable {
    /// Options for opening a store.
    public struct Configuration: Sendable {
        /// How long a write waits for another process's lock before failing. Default 5 seconds.
        public var busyTimeout: TimeInterval = 5
        /// The permissions of a new store file. Default `0o600`: readable and writable by its owner only.
        public var fileMode: UInt16 = 0o600
        /// Called with the text of every SQL statement the store runs (for tests and diagnostics).
        public var sqlObserver: (@Sendable (String) -> Void)?
        /// Where this store's populations and requests log, and how much: nil, the default,
        /// follows the process-wide ``Record/logHandler`` and ``Record/loggingLevel``.
        /// Servers log HTTP traffic through the process-wide settings, as they serve any store.
        public var logging: LogSettings?
        /// Value transformers for this store only, by the name schema files give them. They
        /// take precedence over the process-wide ``AttributeTransformers`` of the same name.
        public var transformers: [String: AttributeTransformers.Transform] = [:]
        /// Where ``RecordStore/cancelRequests(inDomain:)`` cancels: by default
        /// ``RequestCancellation/shared``, so that cancelling a domain reaches every store that
        /// keeps the default. Give a ``RequestCancellation`` of its own to keep the store apart.
        public var cancellation: RequestCancellation = .shared
        /// How often an observation of this store checks for commits that other processes made
        /// to its file (SQLite's `PRAGMA data_version`). Commits through any store of this
        /// process reach observations at once. Default 250 ms. A store on PostgreSQL has nothing
        /// to check: every worker's commits are announced to its observations (`NOTIFY`).
        public var externalChangeInterval: Duration = .milliseconds(250)

        /// The default configuration.
        public init() {}

        /// Where the store logs: ``logging``'s handler and level, else the process-wide logger.
        package var logger: Logger {
            logging.map { Logger(handler: $0.handler, level: .some($0.level)) } ?? .global
        }

        var databaseOptions: SQLiteDatabase.Options {
            var options = SQLiteDatabase.Options()
            options.busyTimeout = busyTimeout
            options.fileMode = fileMode
            options.sqlObserver = sqlObserver
            options.logger = logger
            options.transformers = transformers
            return options
        }
    }

    /// The schema the store was opened for.
    public var schema: Schema { database.schema }
    /// The store file's path, or nil for an in-memory store or one on a database server.
    public var path: String? { sqlite?.path }
    /// The database the store reads and writes.
    package let database: any RecordDatabase
    /// The database when it is SQLite's: what ``read(_:)`` and ``write(_:)`` use.
    package let sqlite: SQLiteDatabase?
    /// The servers registered on this store (see `RecordStore+Servers.swift`).
    let servers = Locked<ServerRegistry>(ServerRegistry())
    /// The registry the store's requests are cancelled through (see `RecordStore+Servers.swift`).
    let cancellation: RequestCancellation
    /// How often observations check for other processes' commits.
    let externalChangeInterval: Duration

    /// Opens the store file at `path` for `schema`, creating an empty file (no tables yet)
    /// when there is none.
    ///
    /// - Throws: ``WebRecordError`` with code `storeError` when SQLite cannot open the file, or
    ///   `incompatibleStore` when the file was made for a schema that cannot migrate in place.
    public convenience init(path: String, schema: Schema, configuration: Configuration = Configuration())
        throws(WebRecordError)
    {
        self.init(
            database: try SQLiteDatabase(path: path, schema: schema, options: configuration.databaseOptions),
            configuration: configuration)
    }

    /// Opens a private in-memory store for `schema`, with its tables made at once.
    ///
    /// - Throws: ``WebRecordError`` with code `storeError` when SQLite cannot make the tables.
    public convenience init(inMemory schema: Schema, configuration: Configuration = Configuration())
        throws(WebRecordError)
    {
        self.init(
            database: try SQLiteDatabase(path: nil, schema: schema, options: configuration.databaseOptions),
            configuration: configuration)
    }

    /// A store over `database`, of any engine: how a module of its own (such as
    /// `WebRecordPostgreSQL`) opens a store on another database.
    package init(database: any RecordDatabase, configuration: Configuration) {
        self.database = database
        self.sqlite = database as? SQLiteDatabase
        cancellation = configuration.cancellation
        externalChangeInterval = configuration.externalChangeInterval
    }

    /// The SQLite database, or an `invalidArgument` error naming `operation` for a store on
    /// another engine, which has no SQLite connection to give.
    package func requireSQLite(for operation: String) throws(WebRecordError) -> SQLiteDatabase {
        guard let sqlite else {
            throw WebRecordError(
                .invalidArgument,
                "\(operation) needs a SQLite store; this store is on another database. Use the store's fetch, count, export and populate methods"
            )
        }
        return sqlite
    }

    // MARK: - Access

    /// Runs `body` with a connection that sees the last committed state (inside a `write(_:)`
    /// closure, the write's own uncommitted state), waiting for the reader's executor.
    ///
    /// Reading never creates or migrates the store: until the first write transaction has made
    /// the schema's tables and columns, the missing ones read as empty tables and NULL columns
    /// (see `Docs/StorageLayout.md`). The store's fetch methods called inside `body` use its
    /// connection.
    ///
    /// - Throws: a ``WebRecordError``: what `body` threw, as it was when it is one, else with
    ///   code `closureFailed` and what `body` threw as its cause; or a `storeError`.
    public func read<T>(_ body: (Connection) throws -> T) throws(WebRecordError) -> T {
        let sqlite = try requireSQLite(for: "read(_:)")
        return try Self.wrapping { () throws in try sqlite.read(body) }
    }

    /// Runs `body` on the reader's serial executor, without blocking the calling task's thread.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try await store.read { _ in try store.count("Post") }
    /// ```
    ///
    /// Cancelling the task interrupts the SQL statement running (`sqlite3_interrupt`) and throws
    /// a ``WebRecordError`` with code `cancelled`.
    ///
    /// What `body` returns need not be `Sendable`: records fetched there are handed to the
    /// caller, so a caller on the main actor fetches without blocking it and keeps the records:
    ///
    /// ```swift
    /// let posts = try await store.read { _ in try store.fetch(Post.self, limit: 20) }
    /// ```
    ///
    /// - Throws: a ``WebRecordError``: what `body` threw (wrapped as for the synchronous `read`),
    ///   `cancelled`, or a `storeError`.
    public func read<T>(_ body: @escaping @Sendable (Connection) throws -> sending T) async throws(WebRecordError)
        -> sending T
    {
        do {
            // Made on the reader's executor and handed to this task, which alone uses it.
            return try await requireSQLite(for: "read(_:)").read { connection in HandOver(try body(connection)) }.value
        } catch {
            throw Self.wrapped(error)
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
    /// timeout for another's lock, then fails with a `storeError` (SQLITE_BUSY). A write inside
    /// a write is a programming error: the process stops with a message that says so.
    ///
    /// - Throws: a ``WebRecordError``, after the rollback: what `body` threw, as it was when it
    ///   is one, else with code `closureFailed` and what `body` threw as its cause;
    ///   `incompatibleStore` when another process changed the store incompatibly since it was
    ///   opened; or a `storeError`.
    public func write<T>(_ body: (Connection) throws -> T) throws(WebRecordError) -> T {
        let sqlite = try requireSQLite(for: "write(_:)")
        return try Self.wrapping { () throws in try sqlite.write(body) }
    }

    /// Runs `body` in one write transaction on the writer's serial executor, without blocking
    /// the calling task's thread.
    ///
    /// Cancelling the task interrupts the SQL statement running (`sqlite3_interrupt`), rolls the
    /// transaction back and throws a ``WebRecordError`` with code `cancelled`; a task cancelled
    /// while `body` runs never commits. What `body` returns is handed to the caller, as for
    /// the async `read(_:)`: it need not be `Sendable`.
    ///
    /// - Throws: a ``WebRecordError``, after the rollback: what `body` threw (wrapped as for
    ///   the synchronous `write`); `cancelled`; or a `storeError`.
    public func write<T>(_ body: @escaping @Sendable (Connection) throws -> sending T) async throws(WebRecordError)
        -> sending T
    {
        do {
            // Made on the writer's executor and handed to this task, which alone uses it.
            return try await requireSQLite(for: "write(_:)").write { connection in HandOver(try body(connection)) }
                .value
        } catch {
            throw Self.wrapped(error)
        }
    }

    /// Runs `work`, turning what a user's closure threw into a ``WebRecordError``.
    private static func wrapping<T>(_ work: () throws -> T) throws(WebRecordError) -> T {
        do {
            return try work()
        } catch {
            throw wrapped(error)
        }
    }

    /// `error` itself when it is a ``WebRecordError``; a cancellation as `cancelled`; anything
    /// else, which only a user's closure throws, as `closureFailed` with it as the cause.
    private static func wrapped(_ error: any Error) -> WebRecordError {
        switch error {
        case let error as WebRecordError: error
        case is CancellationError: .cancelled()
        default: WebRecordError(.closureFailed, "the closure failed: \(error)", cause: error)
        }
    }

    /// Checkpoints the write-ahead log into the store file and closes the store's connections,
    /// so that the file alone holds everything committed (while no other process has it open,
    /// copying it gives a complete store). Later reads and writes throw a `storeError`.
    ///
    /// Deinitializing the store closes it too; calling `close()` says when.
    public func close() {
        database.close()
    }

    // MARK: - Record classes

    /// Registers a ``Record`` subclass for an entity, MMRecord-style, so fetches and requests
    /// return instances of it.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class Post: Record { var text: String? { self["text"] } }
    /// store.register(recordClass: Post.self)      // for the entity named "Post"
    /// store.register(recordClass: FSCategory.self, forEntity: "Category")
    /// ```
    ///
    /// The label says what is registered: servers are registered with
    /// ``register(_:for:)`` and ``register(_:forEntity:)``.
    ///
    /// - Parameters:
    ///   - recordClass: the subclass.
    ///   - entityName: the entity; by default the class's ``Record/entityName``.
    public func register(recordClass: Record.Type, forEntity entityName: String? = nil) {
        database.recordClasses.register(recordClass, for: entityName ?? recordClass.entityName)
    }

    /// The class that records of `entityName` are made of.
    func recordClass(for entityName: String) -> Record.Type {
        database.recordClasses.recordClass(for: entityName)
    }

    /// The entity name registered for a class, if any.
    func entityName(registeredFor recordClass: Record.Type) -> String? {
        database.recordClasses.entityName(registeredFor: recordClass)
    }

    // MARK: - Fetching

    /// Fetches records of an entity, its sub-entities included.
    ///
    /// For example:
    ///
    /// ```swift
    /// let recent = try store.fetch("Post", where: "date > ?", arguments: [cutoff],
    ///                              orderBy: [.descending("date")], limit: 10)
    /// ```
    ///
    /// - Parameters:
    ///   - entityName: the entity.
    ///   - predicate: an SQL condition over the entity's columns (attribute names), with `?`
    ///     placeholders for `arguments`. Arguments are always bound, never spliced.
    ///   - arguments: the values bound to the placeholders, in order.
    ///   - orderBy: sort criteria, validated against the entity's properties. Ties and the
    ///     default order are by `_id` (insertion order).
    ///   - limit: the most records to return.
    ///   - offset: how many to skip first.
    ///   - includingSubentities: false to fetch only records of exactly this entity.
    /// - Returns: records, instances of the registered ``Record`` subclass where there is one.
    /// - Throws: ``WebRecordError``: `invalidEntityDescription` for an unknown entity,
    ///   `invalidArgument` for an unknown sort name, `storeError` for SQL errors.
    public func fetch(
        _ entityName: String, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, offset: Int? = nil, includingSubentities: Bool = true
    ) throws(WebRecordError) -> [Record] {
        try database.fetch(
            entityName, where: predicate, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset,
            includingSubentities: includingSubentities)
    }

    /// Fetches records as instances of a registered ``Record`` subclass.
    ///
    /// The entity is the one the class was registered for, else its ``Record/entityName``.
    public func fetch<T: Record>(
        _ type: T.Type, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, offset: Int? = nil
    ) throws(WebRecordError) -> [T] {
        try database.fetch(type, where: predicate, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset)
    }

    /// Counts records of an entity (sub-entities included) matching a predicate.
    ///
    /// - Throws: ``WebRecordError`` as for ``fetch(_:where:arguments:orderBy:limit:offset:includingSubentities:)``.
    public func count(
        _ entityName: String, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        includingSubentities: Bool = true
    ) throws(WebRecordError) -> Int {
        try database.count(
            entityName, where: predicate, arguments: arguments, includingSubentities: includingSubentities)
    }

    /// Fetches the record of an entity with a primary-key value, normalized to the key's type
    /// (so `"5"` finds the record whose integer key is 5). For a composite key, pass an array
    /// with one value per part.
    ///
    /// - Returns: the record, or nil when there is none.
    /// - Throws: ``WebRecordError``: `invalidArgument` when the entity's key is not made of
    ///   attributes or the value does not fit it.
    public func fetchOne(_ entityName: String, primaryKey value: JSONValue) throws(WebRecordError) -> Record? {
        try database.fetchOne(entityName, primaryKey: value)
    }

    /// Every record of an entity as JSON, sorted by primary key: what `webrecord export` prints.
    ///
    /// For example:
    ///
    /// ```swift
    /// let posts = try store.exportJSON(entity: "Post")
    /// print(posts.serialized(prettyPrinted: true))
    /// // [
    /// //   {
    /// //     "id": "1644504",
    /// //     "date": "2012-11-21T02:33:42.000000000Z",
    /// //     "user": "2046",
    /// //     ...
    /// ```
    ///
    /// The result is an array with one object per record of the entity, its sub-entities
    /// included. Each object holds:
    ///
    /// - `_entity`, first, with the record's concrete entity name, but only when the entity has
    ///   sub-entities (`_` starts no schema name, so it cannot clash with an attribute);
    /// - every attribute of the record's concrete entity, by name, in the form of
    ///   ``Record/jsonValue(_:)``: dates as ISO-8601 UTC text, data as base64, booleans as
    ///   true/false, `json` attributes as the JSON they hold, null for null;
    /// - every to-one relationship as the destination's primary-key value
    ///   (``Record/primaryKeyValue``), or null when nothing is related or the destination has
    ///   no key;
    /// - every to-many relationship as an array of those values: in stored order when the
    ///   relationship is ordered, ascending by the destination's key otherwise.
    ///
    /// Records are sorted by their primary key's stored value: numbers numerically (decimals
    /// too), text by its UTF-8 bytes, a composite key part by part, a relationship key by the
    /// owner's key. Records without a key, or with a null one, come first; ties keep storage
    /// (`_id`) order, which is also the order for an entity without a primary key.
    ///
    /// The export reads the store in one read transaction, with one query for the records and
    /// a few set-based queries per relationship, so its cost grows with the number of rows, not
    /// with rows times relationships.
    ///
    /// - Parameter entityName: The entity's name.
    /// - Returns: A JSON array.
    /// - Throws: ``WebRecordError``: `invalidEntityDescription` for an unknown entity,
    ///   `storeError` when SQLite fails.
    public func exportJSON(entity entityName: String) throws(WebRecordError) -> JSONValue {
        try database.exportJSON(entity: entityName)
    }

    // MARK: - Populating

    /// Populates the store from one response, in one transaction: the way to populate without
    /// a server.
    ///
    /// For example:
    ///
    /// ```swift
    /// let result = try store.populate(try JSONReader().read(data), entity: "Post")
    /// print(result.records.count, result.changes.inserted)
    /// ```
    ///
    /// - Parameters:
    ///   - response: the parsed response.
    ///   - entity: the entity the response's records are (or the root of their hierarchy).
    ///   - options: key path, injection, orphan rules and hooks.
    /// - Returns: the top-level records in response order, the debugger, and change counts.
    /// - Throws: ``WebRecordError`` on a fatal error; the store is left as it was.
    public func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions = PopulationOptions()
    ) throws(WebRecordError) -> PopulationResult {
        try database.populate(response, entity: entity, options: options)
    }

    /// Populates the store from one response on the writer's serial executor, without blocking
    /// the calling task's thread.
    ///
    /// Cancelling the task interrupts the write, rolls it back and throws `cancelled`: the
    /// store is left as it was.
    ///
    /// The result is `sending`: the caller may hand its records to another isolation domain,
    /// such as the main actor.
    ///
    /// - Throws: ``WebRecordError`` on a fatal error; the store is left as it was.
    public func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions = PopulationOptions()
    ) async throws(WebRecordError) -> sending PopulationResult {
        try await database.populate(response, entity: entity, options: options)
    }

    /// Populates the store from a JSON file, reading it as a stream: the records at the key
    /// path are read, mapped and written a batch at a time, in one transaction, so that a
    /// response of any size populates in bounded memory.
    ///
    /// For example:
    ///
    /// ```swift
    /// var options = PopulationOptions()
    /// options.returnsRecords = false  // a bulk import: the counts are enough
    /// let result = try await store.populate(contentsOf: URL(fileURLWithPath: "posts.json"), entity: "Post", options: options)
    /// print(result.changes.inserted)
    /// ```
    ///
    /// The store ends as `populate(_:entity:options:)` leaves it for the same
    /// response, with the same counts and failures, except where a record repeated in different
    /// batches changes its relationships (Docs/Population.md, "Large responses: streamed
    /// population"). A new record that one batch cannot store, lacking a non-optional value,
    /// and that occurs again later makes the population start over with the file read whole,
    /// so that nothing its first occurrence gave is lost. Memory grows with a batch (a few megabytes
    /// of the file) and with the records returned; set
    /// ``PopulationOptions/returnsRecords`` to false to keep none. The debugger's
    /// ``Debugger/responseObject``, and the response an orphan closure gets, are the response
    /// with an empty list (`[]`) at the key path. A response with no list there, or whose
    /// entity has included records, is read whole (Docs/Population.md, "Large responses").
    /// A file that gives its bytes once (a named pipe, `/dev/stdin`) is kept as it is read in
    /// an unnamed temporary file, which the population reads again if it must.
    ///
    /// - Parameters:
    ///   - file: a JSON file.
    ///   - entity: the entity the response's records are (or the root of their hierarchy).
    ///   - options: key path, injection, orphan rules and hooks.
    /// - Throws: ``WebRecordError``: `invalidJSON` with the line and column of malformed JSON,
    ///   `invalidResponseFormat` when the file cannot be read, or any population failure. The
    ///   store is left as it was.
    public func populate(
        contentsOf file: URL, entity: String, options: PopulationOptions = PopulationOptions()
    ) async throws(WebRecordError) -> sending PopulationResult {
        let path = file.path
        // The file's size is what its progress reads toward (`ResponseProgress.expectedBytes`).
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        return try await database.populate(
            streaming: JSONStreamReader.opener(forFileAtPath: path), expectedBytes: size, entity: entity,
            options: options)
    }
}
