/// The store a population writes through: what it reads of the store's configuration, and
/// write transactions that find, write, link and delete rows.
///
/// A population (`ResponsePopulation`) works only through this protocol and
/// ``RecordStorageTransaction``: it speaks of tables, columns, `_id`s and ``DatabaseValue``s of
/// the layout ``layout`` describes, never of a database engine or its query language.
/// ``SQLiteDatabase`` implements it; another store (PostgreSQL, in a module of its own) can
/// implement it too, laying the schema out the same way.
///
/// The operations are batch-shaped: a whole key set, a whole table's rows, every member of a
/// relationship at once, so that a store across a network can serve each in a round trip or
/// two.
///
/// A store populations write through makes records too, and those records read through it:
/// it is a ``RecordReading``, which gives its schema and logger.
package protocol RecordStorage: RecordReading {
    /// What one write transaction of the store offers.
    associatedtype Transaction: RecordStorageTransaction

    /// How the schema is laid out in tables: the tables, their columns, and where each
    /// relationship's links live. A store other than SQLite lays the schema out the same way.
    var layout: StorageLayout { get }

    /// The value transformer named `name`: the store's own, else the process-wide one.
    func transformer(named name: String) -> AttributeTransformers.Transform?

    /// The class records of the entity `entityName` are made of: the registered one, else the
    /// nearest registered ancestor entity's, else ``Record``.
    func recordClass(for entityName: String) -> Record.Type

    /// A record of `recordClass` for a row of this store, whose values are `values` by column
    /// name (without `_id` and `_entity`), reading its relationships through this store.
    func record(
        of recordClass: Record.Type, entity: Entity, rowID: Int64, values: [String: DatabaseValue]
    ) -> Record

    /// Runs `body` in one write transaction, waiting for the store's writer: committed when it
    /// returns, rolled back when it throws. Not reentrant.
    func inTransaction<T>(_ body: (Transaction) throws -> T) throws -> T

    /// Runs `body` in one write transaction without blocking the calling task's thread.
    /// Cancelling the task interrupts the store's work, rolls back, and throws `cancelled`.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T

    /// Removes what a failure before the first write transaction leaves behind (a store file
    /// created and never committed to), so that a failed first population leaves nothing.
    func discardIfNeverWritten()

    /// ``discardIfNeverWritten()`` without blocking the calling task's thread.
    func discardIfNeverWritten() async

    /// How many times a population whose transaction failed with a transient conflict
    /// (``isTransientConflict(_:)``) is tried again before its error is reported. 0 for a store
    /// one writer at a time writes (SQLite, whose writers wait for each other's lock).
    var conflictRetryLimit: Int { get }

    /// Whether `error`, which a transaction of this store threw, is a conflict with another
    /// writer's transaction that the same work, tried again from the start, can succeed after:
    /// a serialization failure, a deadlock, or a key another writer inserted first.
    func isTransientConflict(_ error: WebRecordError) -> Bool

    /// The bytes of element text a streamed population reads, builds and writes as one batch,
    /// unless its reader was made with a limit of its own (``JSONStreamReader``).
    var streamingBatchByteLimit: Int { get }

    /// Whether no other writer can change a row that a write transaction found or wrote until
    /// that transaction ends: SQLite's, which keeps every other writer out, and PostgreSQL's,
    /// which locks each row it finds. No row a population met then changes between two of its
    /// batches but by that population, and a streamed population takes a nested record that a
    /// later batch repeats as is as it wrote it (``RepeatedRecords``). False unless a store says
    /// so.
    var holdsTheRowsItFinds: Bool { get }
}

extension RecordStorage {
    /// ``JSONStreamReader/defaultBatchByteLimit``.
    package var streamingBatchByteLimit: Int { JSONStreamReader.defaultBatchByteLimit }

    /// None: one writer at a time.
    package var conflictRetryLimit: Int { 0 }

    /// False: a store must say that its transactions hold the rows they find.
    package var holdsTheRowsItFinds: Bool { false }

    /// Never.
    package func isTransientConflict(_ error: WebRecordError) -> Bool { false }
}

/// The primitives one write transaction of a ``RecordStorage`` offers: reading rows by key,
/// inserting, updating and deleting rows, and reserving `_id`s, each over a whole batch.
///
/// That is all a store implements. Everything a population does with them (matching records,
/// writing a batch of rows, the join-row diff, clearing and moving references, deleting and
/// reading records) is written once, store-neutral, over these primitives
/// (`Population/StoreOperations.swift`), so the SQLite and PostgreSQL stores share one copy of
/// that logic, and a third store needs only these.
///
/// Tables and columns are those of the store's ``RecordStorage/layout``: record tables and
/// join tables alike. Every operation takes a whole batch (a key set, a table's rows) so that a
/// store across a network can serve each read, insert and update in a round trip or two (a
/// delete goes one key at a time, in order, as what it cascades to depends on the order); a
/// batch is flat
/// (``KeyTuples``, or the values of many rows one after another), never an array per row.
/// References between rows are checked when the transaction commits, or at the end of a
/// streamed population's batch (``endBatch()``), so rows may be written in any order within a
/// batch.
///
/// Every change is part of the transaction: nothing is visible to readers until
/// ``RecordStorage/inTransaction(_:)`` commits, and a throw rolls everything back.
package protocol RecordStorageTransaction {
    /// The schema of the store the transaction writes.
    var schema: Schema { get }

    /// How that schema is laid out in tables.
    var layout: StorageLayout { get }

    // MARK: - Reading rows

    /// Calls `body` with each row of the record table `table` whose `columns` hold one of
    /// `keys` (distinct tuples, one value per column), in no particular order. The rows found
    /// are the ones the population goes on to write: a store that many writers share locks
    /// them for the rest of the transaction.
    func forEachRow(
        in table: String, where columns: [String], areIn keys: KeyTuples,
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError)

    /// Calls `body` with each row of the record table `table` that a row of `ownerTable` whose
    /// `_id` is one of `ownerIDs` refers to in its column `column`, together with that owner's
    /// `_id`, in no particular order, locking them as the lookup by key does.
    func forEachRow(
        in table: String, referencedBy column: String, of ownerTable: String, ownerIDs: [Int64],
        _ body: (_ ownerID: Int64, _ row: TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError)

    /// The values of `columns` in each row of `table` (a record table or a join table) whose
    /// `keyColumns` hold one of `keys`, in no particular order, without locking them.
    func values(
        of columns: [String], in table: String, where keyColumns: [String], areIn keys: KeyTuples
    ) throws(WebRecordError) -> [[DatabaseValue]]

    /// Calls `body` with each row of the record table `table` that is a record of one of
    /// `entityNames` and matches `predicate` (a condition in the store's query language over
    /// the table's columns, with `?` placeholders for `arguments`; nil for all), in `_id` order.
    func forEachRow(
        in table: String, of entityNames: [String], where predicate: String?, arguments: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError)

    // MARK: - New rows

    /// `count` new `_id`s for rows of `table`, distinct from every `_id` the table holds and
    /// from those reserved before by this transaction, in ascending order.
    ///
    /// A population asks once per table for each batch of new records, never once per record.
    /// The store decides how `_id`s are made: SQLite takes the largest `_id` plus one inside
    /// its exclusive write transaction; a store many writers share at once takes them from a
    /// sequence, so that two transactions never get the same one. An `_id` reserved and not
    /// used is a gap, never reused by this transaction.
    func reserveRowIDs(in table: String, count: Int) throws(WebRecordError) -> [Int64]

    /// Fixes, for each of `tables`, where the new `_id`s this transaction reserves start, before
    /// anything in it deletes rows: a population made of several batches calls it first, so
    /// that a row one batch deletes does not give its `_id` to a row a later batch inserts, as
    /// it would not in one response. A store that hands out the largest `_id` plus one reads
    /// each table's largest now; a store with sequences has nothing to do.
    func beginRowIDs(in tables: [String]) throws(WebRecordError)

    // MARK: - Writing rows

    /// Inserts rows into `table`: `values` holds each row's values of `columns`, one row after
    /// another (`values.count` is a multiple of `columns.count`).
    func insert(into table: String, columns: [String], values: [DatabaseValue]) throws(WebRecordError)

    /// Sets `columns` of the rows of `table` whose `keyColumns` hold a key: `values` holds,
    /// row after row, the new values of `columns` and then the key (`values.count` is a
    /// multiple of `columns.count + keyColumns.count`).
    ///
    /// - Returns: how many rows changed.
    @discardableResult
    func update(_ table: String, set columns: [String], where keyColumns: [String], values: [DatabaseValue])
        throws(WebRecordError) -> Int

    /// Deletes the rows of `table` whose `keyColumns` hold each of `keys`, one key after
    /// another, in order (a deletion's order matters to what it cascades to). Links to a
    /// deleted record are cleared and its join rows go, as the layout's foreign keys say.
    ///
    /// - Returns: for each key, whether a row was there to delete.
    func delete(from table: String, where keyColumns: [String], areIn keys: KeyTuples) throws(WebRecordError)
        -> [Bool]

    // MARK: - Records

    /// The record of `entity` made of the row `rowID`, whose other values are `values` by
    /// column name, reading its relationships through the store.
    func record(of entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record

    // MARK: - Cancellation and batches

    /// Throws when the work this transaction does has been cancelled.
    func checkCancellation() throws

    /// Called when a streamed population has written one batch, rows and links, and before it
    /// takes the next: every reference the batch wrote points at a row that exists, so a store
    /// may check them now rather than at the commit. A store that checks them at the commit
    /// does nothing.
    func endBatch() throws(WebRecordError)

    /// Called before the orphan pass reads the records of `table` it may delete: from then on
    /// until the transaction ends, no other writer may change the table, so that the pass sees
    /// every record another writer committed and deletes none that one changes after it read.
    /// A store whose writers take turns (SQLite's) does nothing; one whose writers run at once
    /// waits for the others' open transactions on the table, and makes later ones wait.
    func excludeOtherWriters(of table: String) throws(WebRecordError)
}

extension RecordStorageTransaction {
    /// Throws `CancellationError` when the calling task is cancelled.
    package func checkCancellation() throws {
        try Task.checkCancellation()
    }

    /// Nothing: references are checked at the commit.
    package func endBatch() throws(WebRecordError) {}

    /// Nothing: one writer at a time.
    package func excludeOtherWriters(of table: String) throws(WebRecordError) {}
}

/// Throws unless `values` holds whole rows of `width` values each, for `table`: what
/// ``RecordStorageTransaction/insert(into:columns:values:)`` and
/// ``RecordStorageTransaction/update(_:set:where:values:)`` check first.
package func requireWholeRows(_ values: [DatabaseValue], width: Int, in table: String) throws(WebRecordError) {
    guard width > 0, values.count % width == 0 else {
        throw WebRecordError(
            .storeError, "\(values.count) values are not whole rows of \(width) for '\(table)'")
    }
}

/// Key tuples, flat: `values` holds one tuple of `width` values after another, so that a key
/// set of any size is one array, never an array per key.
package struct KeyTuples: Sendable, Equatable {
    /// The values in each tuple (the number of key columns).
    package var width: Int
    /// The tuples' values, one tuple after another.
    package var values: [DatabaseValue]

    /// Tuples of `width` values each, from `values`.
    package init(width: Int, values: [DatabaseValue]) {
        self.width = max(1, width)
        self.values = values
    }

    /// One-value tuples: each of `values` is a key.
    package init(_ values: [DatabaseValue]) {
        self.init(width: 1, values: values)
    }

    /// One-value tuples of `_id`s.
    package init(rowIDs: [Int64]) {
        self.init(width: 1, values: rowIDs.map { .integer($0) })
    }

    /// The number of tuples.
    package var count: Int { values.count / width }

    /// Whether there are no tuples.
    package var isEmpty: Bool { values.count < width }

    /// The values of tuple `index`.
    package subscript(index: Int) -> ArraySlice<DatabaseValue> {
        values[(index * width)..<((index + 1) * width)]
    }

    /// Throws unless the tuples have one value for each of `columns` (of `table`), and no
    /// tuple is cut short: what every primitive that takes key tuples checks first.
    package func requireMatching(_ columns: [String], in table: String) throws(WebRecordError) {
        guard width == columns.count, values.count % width == 0 else {
            throw WebRecordError(
                .storeError,
                "\(values.count) key values in tuples of \(width) cannot match the \(columns.count) columns \(columns) of '\(table)'"
            )
        }
    }
}

/// A row as a population reads and writes it: its `_id`, its concrete entity, and the values
/// of its table's other columns, in the order of ``StorageLayout/Table/valueColumns``.
package struct TableRow: Sendable, Equatable {
    /// The row's `_id`.
    package var rowID: Int64
    /// The concrete entity the row is a record of (its `_entity`).
    package var entityName: String
    /// The values of ``StorageLayout/Table/valueColumns``, in that order.
    package var values: [DatabaseValue]

    /// A row with these fields.
    package init(rowID: Int64, entityName: String, values: [DatabaseValue]) {
        self.rowID = rowID
        self.entityName = entityName
        self.values = values
    }
}

/// Rows of one table, written together (see ``RecordStorageTransaction/writeRows(inserted:updated:)``).
package struct TableRows: Sendable, Equatable {
    /// The table's name.
    package var table: String
    /// The rows, in the order they are written.
    package var rows: [TableRow]

    /// Rows of `table`.
    package init(table: String, rows: [TableRow]) {
        self.table = table
        self.rows = rows
    }
}
