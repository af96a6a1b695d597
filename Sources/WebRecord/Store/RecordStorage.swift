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
}

extension RecordStorage {
    /// ``JSONStreamReader/defaultBatchByteLimit``.
    package var streamingBatchByteLimit: Int { JSONStreamReader.defaultBatchByteLimit }

    /// None: one writer at a time.
    package var conflictRetryLimit: Int { 0 }

    /// Never.
    package func isTransientConflict(_ error: WebRecordError) -> Bool { false }
}

/// The operations of one write transaction of a ``RecordStorage``, as a population uses them.
///
/// Tables and columns are those of the store's ``RecordStorage/layout``. A row is a
/// ``TableRow``: its `_id`, its concrete entity, and its other columns' values in the order of
/// ``StorageLayout/Table/valueColumns``. References between rows are checked when the
/// transaction commits, or at the end of a streamed population's batch
/// (``endBatch()``), so rows may be written in any order within a batch.
///
/// Every change is part of the transaction: nothing is visible to readers until
/// ``RecordStorage/inTransaction(_:)`` commits, and a throw rolls everything back.
package protocol RecordStorageTransaction {
    // MARK: - Finding rows

    /// Calls `body` with each row of `table` whose `column` holds one of `keys` (which are
    /// distinct), in no particular order.
    func forEachRow(
        in table: String, where column: String, isIn keys: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError)

    /// Calls `body` with each row of `table` whose `columns` hold one of `keys` (distinct
    /// tuples, each with one value per column), in no particular order.
    func forEachRow(
        in table: String, where columns: [String], areIn keys: [[DatabaseValue]],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError)

    /// Calls `body` with each row of `table` that a row of `ownerTable` whose `_id` is one of
    /// `ownerIDs` refers to in its column `column`, together with that owner's `_id`.
    func forEachRow(
        in table: String, referencedBy column: String, of ownerTable: String, ownerIDs: [Int64],
        _ body: (_ ownerID: Int64, _ row: TableRow) throws(WebRecordError) -> Void
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

    /// Inserts the rows of `inserted` (whose `_id`s are new), table by table in the order
    /// given, then writes the values of the rows of `updated` over the stored rows with the
    /// same `_id`.
    func writeRows(inserted: [TableRows], updated: [TableRows]) throws(WebRecordError)

    // MARK: - Links

    /// Sets `column` to null in every row of `table` that holds `value` there, except the row
    /// `keep` (a one-to-one link moving to another row).
    ///
    /// - Returns: whether any row changed.
    func clearReferences(
        in table: String, column: String, to value: DatabaseValue, except keep: Int64?
    ) throws(WebRecordError) -> Bool

    /// The rows of `table` that refer to `owner` in `column` and are not among `keeping`, in
    /// the store's order; when `clearing`, that reference and `positionColumn` are set to null
    /// in each (a to-many kept on its members, replaced).
    ///
    /// - Returns: those rows' `_id`s.
    func dropMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String?, keeping: Set<Int64>,
        clearing: Bool
    ) throws(WebRecordError) -> [Int64]

    /// Moves the rows of `table` that refer to `owner` in `column`, are not among `members` and
    /// sit in the first `members.count` positions, after them: their `positionColumn` grows by
    /// `members.count` (an ordered to-many merged by union).
    ///
    /// - Returns: whether any row moved.
    func moveMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String, after members: [Int64]
    ) throws(WebRecordError) -> Bool

    /// Makes the join rows of `owner` in `table` list `members`, at positions 0, 1, ... in
    /// `positionColumn` when there is one.
    ///
    /// - Parameters:
    ///   - ownerColumn: the column holding `owner`'s `_id`.
    ///   - memberColumn: the column holding each member's `_id`.
    ///   - ownerIsNew: whether `owner` was inserted by this transaction (it has no join rows yet).
    ///   - replace: true to delete the join rows of members not listed; false to keep them,
    ///     numbered after the listed ones when the rows are ordered.
    ///   - removed: called with each member whose join row was deleted, right after, before
    ///     the next is deleted.
    /// - Returns: whether any join row changed.
    func setJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        ownerIsNew: Bool, members: [Int64], replace: Bool, removed: (Int64) throws(WebRecordError) -> Void
    ) throws(WebRecordError) -> Bool

    /// Makes the join rows of a relationship that is its own inverse symmetric for `owner`,
    /// once ``setJoinRows(in:ownerColumn:memberColumn:positionColumn:owner:ownerIsNew:members:replace:removed:)``
    /// has given `owner` its `members`: each member lists `owner` too (last in its list, when
    /// ordered, if it did not already), and with `replace` no other record lists `owner`.
    ///
    /// - Returns: the `_id`s of the records whose lists changed.
    func mirrorJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        members: [Int64], replace: Bool
    ) throws(WebRecordError) -> [Int64]

    /// Pairs the rows `row` and `partner` of `table` through `column`, a one-to-one that is its
    /// own inverse: each holds the other's `_id`, and no other row holds either's (a previous
    /// partner of either is unlinked). A nil `partner` unlinks `row` and its partner.
    ///
    /// - Returns: whether any row changed.
    func pairReferences(in table: String, column: String, row: Int64, partner: Int64?) throws(WebRecordError)
        -> Bool

    // MARK: - Deleting

    /// The concrete entity of the row `rowID` of `table`, or nil when there is no such row.
    func entityName(ofRow rowID: Int64, in table: String) throws(WebRecordError) -> String?

    /// The `_id`s of the rows the row `rowID` of `entity` is linked to through `relationship`.
    func relatedRowIDs(of rowID: Int64, entity: Entity, relationship: Relationship) throws(WebRecordError) -> [Int64]

    /// Deletes the rows `rows`, in order. Links to them are cleared and their join rows go.
    ///
    /// - Returns: for each row, whether it was there to delete.
    func deleteRows(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) -> [Bool]

    // MARK: - Records

    /// The records of the rows of `table` whose `_id` is among `rowIDs`, in no particular order.
    func records(withIDs rowIDs: [Int64], in table: String) throws(WebRecordError) -> [Record]

    /// The records of the entities `entityNames`, all kept in `table`, that match `predicate`
    /// (a condition in the store's query language over the entity's columns, with `?`
    /// placeholders for `arguments`; nil for all), in `_id` order.
    func records(
        of entityNames: [String], in table: String, where predicate: String?, arguments: [DatabaseValue]
    ) throws(WebRecordError) -> [Record]

    // MARK: - Cancellation

    /// Throws when the work this transaction does has been cancelled.
    func checkCancellation() throws

    // MARK: - Batches

    /// Called when a streamed population has written one batch, rows and links, and before it
    /// takes the next: every reference the batch wrote points at a row that exists, so a store
    /// may check them now rather than at the commit. A store that checks them at the commit
    /// does nothing.
    func endBatch() throws(WebRecordError)
}

extension RecordStorageTransaction {
    /// Nothing: references are checked at the commit.
    package func endBatch() throws(WebRecordError) {}
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
