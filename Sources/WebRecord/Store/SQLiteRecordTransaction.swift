/// ``SQLiteDatabase`` as the store populations write through (``RecordStorage``): each write
/// transaction is a ``SQLiteRecordTransaction`` around the writer's connection.
extension SQLiteDatabase: RecordStorage {
    /// Runs `body` in one write transaction, on the writer's connection (see `write(_:)`).
    package func inTransaction<T>(_ body: (SQLiteRecordTransaction) throws -> T) throws -> T {
        try write { connection in try body(SQLiteRecordTransaction(database: self, connection: connection)) }
    }

    /// Runs `body` in one write transaction on the writer's executor (see the async `write(_:)`).
    package func inTransaction<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteRecordTransaction) throws -> T
    ) async throws -> T {
        try await write { [self] connection in try body(SQLiteRecordTransaction(database: self, connection: connection))
        }
    }

    /// True: a write transaction holds SQLite's write lock until it ends (`BEGIN IMMEDIATE`).
    package var holdsTheRowsItFinds: Bool { true }

    /// The class records of `entityName` are made of (see ``RecordClassRegistry/recordClass(for:)``).
    package func recordClass(for entityName: String) -> Record.Type {
        recordClasses.recordClass(for: entityName)
    }

    /// A record of `recordClass` for a row of this database.
    package func record(
        of recordClass: Record.Type, entity: Entity, rowID: Int64, values: [String: DatabaseValue]
    ) -> Record {
        recordClass.init(row: Record.StoredRow(entity: entity, rowID: rowID, values: values, store: self))
    }
}

/// One write transaction of a ``SQLiteDatabase``, as a population uses it: SQL statements on
/// the writer's connection, inside the transaction the database's `write(_:)` opened.
///
/// Statements are prepared once and cached by the connection; the SQL that reads each table's
/// rows (``TableSQL``) is built once per transaction.
package final class SQLiteRecordTransaction: RecordStorageTransaction {
    let database: SQLiteDatabase
    let connection: Connection
    package var schema: Schema { database.schema }
    package var layout: StorageLayout { database.layout }
    private var tables: [String: TableSQL] = [:]
    /// The `_id` the next row reserved in each table gets (see `reserveRowIDs(in:count:)`).
    var nextRowIDs: [String: Int64] = [:]
    /// Whether this transaction has deferred its foreign-key checks to the commit yet.
    var foreignKeysDeferred = false

    init(database: SQLiteDatabase, connection: Connection) {
        self.database = database
        self.connection = connection
    }

    /// The SQL of the layout's table `name`.
    ///
    /// - Throws: `storeError` when the layout has no such table.
    func sql(for name: String) throws(WebRecordError) -> TableSQL {
        if let sql = tables[name] { return sql }
        guard let table = database.layout.table(named: name) else {
            throw WebRecordError(.storeError, "the store has no table '\(name)'")
        }
        let sql = TableSQL(table)
        tables[name] = sql
        return sql
    }

    /// A record of this database's class for `entity`.
    package func record(of entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record {
        database.makeRecord(entity: entity, rowID: rowID, values: values)
    }
}

@available(*, unavailable)
extension SQLiteRecordTransaction: Sendable {}

/// `?, ?, ...`: `count` SQL placeholders.
func sqlPlaceholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}
