import WebRecord

/// One write transaction of a ``PostgreSQLDatabase``, as a population uses it: statements on
/// the database's connection, inside the transaction its `write(_:)` began.
///
/// Every operation is batch-shaped: a whole key set, a whole table's rows, every member of a
/// relationship goes in one statement, as an array parameter (``PostgreSQLArray``) that the
/// statement unnests, so that a population makes a round trip per table and step, not per
/// record. Every value is bound; identifiers are quoted.
package final class PostgreSQLRecordTransaction: RecordStorageTransaction {
    let database: PostgreSQLDatabase
    let connection: PostgreSQLConnection
    package var schema: Schema { database.schema }
    package var layout: StorageLayout { database.layout }
    private let cancellation: WriteCancellation?
    private var tables: [String: PostgreSQLTableSQL] = [:]
    private var joinTableTypes: [String: [String: String]] = [:]
    /// The statement that checks a batch's foreign keys (``endBatch()``), once read.
    private var checkStatement: String?

    init(database: PostgreSQLDatabase, connection: PostgreSQLConnection, cancellation: WriteCancellation? = nil) {
        self.database = database
        self.connection = connection
        self.cancellation = cancellation
    }

    /// The SQL of the layout's table `name`.
    ///
    /// - Throws: `storeError` when the layout has no such table.
    func sql(for name: String) throws(WebRecordError) -> PostgreSQLTableSQL {
        if let sql = tables[name] { return sql }
        guard let table = database.layout.table(named: name) else {
            throw WebRecordError(.storeError, "the store has no table '\(name)'")
        }
        let sql = PostgreSQLTableSQL(table)
        tables[name] = sql
        return sql
    }

    /// The PostgreSQL type of each column of the layout's table `name`, a record table or a
    /// join table (whose columns are all `bigint`).
    ///
    /// - Throws: `storeError` when the layout has no such table.
    func columnTypes(of name: String) throws(WebRecordError) -> [String: String] {
        if let types = tables[name]?.types ?? joinTableTypes[name] { return types }
        if database.layout.table(named: name) != nil { return try sql(for: name).types }
        guard let join = database.layout.joinTables.first(where: { $0.name == name }) else {
            throw WebRecordError(.storeError, "the store has no table '\(name)'")
        }
        var types: [String: String] = [:]
        for column in join.columnNames { types[column] = "bigint" }
        joinTableTypes[name] = types
        return types
    }

    /// A record of the class registered for `entity`.
    package func record(of entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record {
        database.record(of: database.recordClass(for: entity.name), entity: entity, rowID: rowID, values: values)
    }

    /// Checks the foreign keys the batch wrote, without waiting: the statement
    /// (``checkingStatement(_:)``: `SET CONSTRAINTS ... IMMEDIATE`, which runs the checks
    /// deferred so far, then `DEFERRED` again for the next batch) is sent, and the server runs
    /// the checks while the population takes the next batch; its result, or its error, is read
    /// before the next statement (``PostgreSQLConnection/send(_:)``). Without it, the checks of
    /// every batch would wait for the commit, after everything else.
    ///
    /// The statement names the layout's own foreign keys (``foreignKeyNames()``), read from the
    /// catalog at the first batch's end, not `ALL`: a constraint someone else put on these
    /// tables keeps its own timing, and one checked at once (`INITIALLY IMMEDIATE`) stays so.
    /// `LOCK TABLE ... IN EXCLUSIVE MODE`: waits for every other transaction that wrote the
    /// table or locked rows of it (a worker's lookups, `FOR NO KEY UPDATE`) to end, and keeps
    /// others from doing either until this one ends; plain reads go on. Under `READ COMMITTED`
    /// the orphan pass's next statement then sees what they committed: without it, a record
    /// another worker inserted after the pass's read was kept while the records that worker
    /// updated were deleted, an end no order of the two populations gives. Two workers that
    /// wait on each other this way are a deadlock, which the server breaks and the population
    /// retries.
    package func excludeOtherWriters(of table: String) throws(WebRecordError) {
        _ = try connection.execute("LOCK TABLE \(pgQuote(database.namespace)).\(pgQuote(table)) IN EXCLUSIVE MODE")
    }

    package func endBatch() throws(WebRecordError) {
        if checkStatement == nil {
            checkStatement = Self.checkingStatement(try foreignKeyNames())
        }
        guard let checkStatement, !checkStatement.isEmpty else { return }
        try connection.send(checkStatement)
    }

    /// `SET CONSTRAINTS a, b IMMEDIATE; SET CONSTRAINTS a, b DEFERRED` for the constraints
    /// `names` (quoted and qualified); empty for none.
    static func checkingStatement(_ names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let list = names.joined(separator: ", ")
        return "SET CONSTRAINTS \(list) IMMEDIATE; SET CONSTRAINTS \(list) DEFERRED"
    }

    /// The layout's own foreign keys that are deferrable and deferred at first, each as
    /// `namespace."name"`, quoted by the server where needed: a key on a column the layout
    /// makes a foreign key (a to-one's column, a join table's `owner` or `target`) to the table
    /// the layout points it at, by `_id`. A key whose name another constraint of the namespace
    /// also has is left to the commit, as `SET CONSTRAINTS` would take both.
    private func foreignKeyNames() throws(WebRecordError) -> [String] {
        let layout = database.layout
        var own = Set<[String]>()
        for table in layout.tables {
            for column in table.columns {
                if case .foreignKey(let target) = column.role { own.insert([table.name, column.name, target]) }
            }
        }
        for join in layout.joinTables {
            own.insert([join.name, "owner", join.ownerTable])
            own.insert([join.name, "target", join.targetTable])
        }
        let rows = try connection.rows(
            """
            SELECT quote_ident(n.nspname) || '.' || quote_ident(c.conname), r.relname::text, a.attname::text,
              t.relname::text, fa.attname::text
            FROM pg_catalog.pg_constraint c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.connamespace
            JOIN pg_catalog.pg_class r ON r.oid = c.conrelid
            JOIN pg_catalog.pg_class t ON t.oid = c.confrelid
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            JOIN pg_catalog.pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
            WHERE c.contype = 'f' AND c.condeferrable AND c.condeferred AND n.nspname = $1
              AND cardinality(c.conkey) = 1 AND r.relnamespace = n.oid AND t.relnamespace = n.oid
              AND NOT EXISTS (
                SELECT 1 FROM pg_catalog.pg_constraint o
                WHERE o.connamespace = c.connamespace AND o.conname = c.conname AND o.oid <> c.oid)
            ORDER BY 1
            """,
            [.text(database.namespace)])
        return rows.compactMap { row in
            let texts = row.compactMap { value -> String? in
                if case .text(let text) = value { return text }
                return nil
            }
            guard texts.count == 5, texts[4] == "_id", own.contains([texts[1], texts[2], texts[3]]) else { return nil }
            return texts[0]
        }
    }

    /// Throws `CancellationError` when the task running the transaction is cancelled: the
    /// calling task, or the task an async transaction runs for.
    package func checkCancellation() throws {
        try Task.checkCancellation()
        if cancellation?.isCancelled == true { throw CancellationError() }
    }
}

@available(*, unavailable)
extension PostgreSQLRecordTransaction: Sendable {}

/// The SQL that reads and writes the rows of one table as ``TableRow``s, and the type of each
/// column (for the casts of array parameters).
struct PostgreSQLTableSQL {
    /// The table's name.
    let tableName: String
    /// The table's name, quoted.
    let quotedName: String
    /// `"_id", "_entity", ...valueColumns`, quoted.
    let columnNames: [String]
    /// Every column after `_id` and `_entity`, in layout order.
    let valueColumns: [String]
    /// The PostgreSQL type of each column, by name.
    let types: [String: String]

    init(_ table: StorageLayout.Table) {
        tableName = table.name
        quotedName = pgQuote(table.name)
        valueColumns = table.valueColumns
        columnNames = (["_id", "_entity"] + valueColumns).map(pgQuote)
        var types = ["_id": "bigint", "_entity": "text"]
        for column in table.columns { types[column.name] = PostgreSQLLayoutDDL.typeName(column) }
        self.types = types
    }

    /// `"_id", "_entity", ...`, each qualified by `alias` when one is given.
    func selectList(alias: String? = nil) -> String {
        columnNames.map { name in (alias.map { "\($0)." } ?? "") + name }.joined(separator: ", ")
    }

    /// The type of the column `name` (`text` for a column the layout does not know).
    func type(of name: String) -> String {
        types[name] ?? "text"
    }

    /// A row read from `values`, whose first `leading` values are other columns, then `_id`,
    /// `_entity` and ``valueColumns``.
    func row(_ values: [DatabaseValue], leading: Int = 0) -> TableRow {
        var rowID: Int64 = 0
        var entityName = ""
        if case .integer(let id) = values[leading] { rowID = id }
        if case .text(let text) = values[leading + 1] { entityName = text }
        return TableRow(rowID: rowID, entityName: entityName, values: Array(values[(leading + 2)...]))
    }
}
