/// The database behind a ``RecordStore``: what populations write through (``RecordStorage``),
/// plus what the store's fetches and exports read.
///
/// ``SQLiteDatabase`` is one; a database on another engine (PostgreSQL, in a module of its own)
/// is another, and a ``RecordStore`` opened on it fetches, exports and populates the same way.
/// The queries fetches and exports run are written once, here and in `RecordExporter`, in the
/// SQL both engines run: double-quoted identifiers and `?` placeholders, which a database of
/// another engine rewrites for its own (``RecordQuerying``). Where the engines' SQL differs,
/// ``SQLDialect`` says which to write. Observations are written once too, over
/// ``ObservableDatabase``.
package protocol RecordDatabase: RecordStorage, ObservableDatabase {
    /// The Record classes rows are made into.
    var recordClasses: RecordClassRegistry { get }

    /// The SQL this database runs, where the engines differ.
    var dialect: SQLDialect { get }

    /// Runs `body` with the database's read queries: each sees the last committed state, or,
    /// inside a write transaction of this store on this thread, the write's own state.
    func withQueries<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError) -> T

    /// Runs `body` with read queries that all see one committed state (a read transaction).
    func withSnapshot<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError) -> T

    /// Releases the database's connections. Later reads and writes throw a `storeError`.
    func close()
}

/// The read queries of a ``RecordDatabase``, in SQL with double-quoted identifiers and `?`
/// placeholders.
package protocol RecordQuerying {
    /// The rows `sql` selects, with `arguments` bound to its placeholders in order, as the
    /// values a SQLite store holds (see `PostgreSQLResult` for another engine's).
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [[DatabaseValue]]

    /// The records of the rows `sql` selects: every column of one table (`_id`, `_entity`, then
    /// the others), each record of the class registered for its entity.
    func records(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [Record]
}

/// Where the SQL of SQLite and of another engine differs, in the queries fetches write.
package enum SQLDialect: Sendable {
    /// SQLite's.
    case sqlite
    /// PostgreSQL's.
    case postgreSQL

    /// A condition that `column` is one of `rowIDs`, and its one argument.
    func rowIDCondition(_ column: String, in rowIDs: Set<Int64>) -> (String, DatabaseValue) {
        switch self {
        case .sqlite:
            ("\(column) IN (SELECT value FROM json_each(?))", .text(KeySetQuery.jsonArray(rowIDs)))
        case .postgreSQL:
            ("\(column) = ANY(CAST(? AS bigint[]))", .text("{" + rowIDs.map(String.init).joined(separator: ",") + "}"))
        }
    }

    /// `expression` as an `ORDER BY` term, NULL first in ascending order and last in descending
    /// order, as SQLite sorts it (PostgreSQL sorts NULL the other way unless told).
    func orderTerm(_ expression: String, ascending: Bool = true) -> String {
        switch self {
        case .sqlite: "\(expression) \(ascending ? "ASC" : "DESC")"
        case .postgreSQL: "\(expression) \(ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
        }
    }

    /// The `ORDER BY` terms that sort by the decimal column `column` by value: PostgreSQL's
    /// `numeric` column sorts so; SQLite keeps a decimal as its canonical text, which sorts
    /// `10` before `9`, so it sorts with the `webrecord_decimal` collation, which compares the
    /// texts by their exact value (``DecimalOrder``), then by the text for equal values
    /// written differently.
    func decimalOrderTerms(_ column: String, ascending: Bool) -> [String] {
        switch self {
        case .sqlite:
            [
                orderTerm("\(column) COLLATE \(DecimalOrder.collation)", ascending: ascending),
                orderTerm(column, ascending: ascending),
            ]
        case .postgreSQL: [orderTerm(column, ascending: ascending)]
        }
    }

    /// The clause that skips rows with no limit: SQLite needs a limit before an offset.
    var offsetWithoutLimit: String {
        switch self {
        case .sqlite: " LIMIT -1 OFFSET ?"
        case .postgreSQL: " OFFSET ?"
        }
    }
}

extension RecordDatabase {
    /// Runs `body`, turning any error but a ``WebRecordError`` into a `storeError`.
    func reading<T>(_ body: () throws -> T) throws(WebRecordError) -> T {
        do {
            return try body()
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        }
    }
}
