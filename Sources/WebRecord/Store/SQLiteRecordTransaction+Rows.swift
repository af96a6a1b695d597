/// The primitives of ``RecordStorageTransaction`` in SQL on the writer's connection: lookups
/// by key set, inserts, updates and deletes, and `_id`s.
extension SQLiteRecordTransaction {
    // MARK: - Reading rows

    /// Rows whose `columns` hold one of `keys`: for one column, one `json_each` join however
    /// many keys (see ``KeySetQuery``); for several, `(a, b) IN (VALUES (?, ?), ...)` in chunks
    /// under SQLite's variable limit.
    package func forEachRow(
        in table: String, where columns: [String], areIn keys: KeyTuples,
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !columns.isEmpty, !keys.isEmpty else { return }
        try keys.requireMatching(columns, in: table)
        let sql = try sql(for: table)
        if columns.count == 1 {
            let query = KeySetQuery(
                columns: sql.selectList(alias: "t"), table: table, alias: "t", keyColumn: columns[0], guardTable: table)
            try query.forEachRow(keys.values, on: connection) { statement throws(WebRecordError) in
                try body(sql.row(statement, leadingColumns: 0))
            }
        } else {
            try forEachTuple(selecting: sql.selectList, from: table, where: columns, in: keys) {
                statement throws(WebRecordError) in
                try body(sql.row(statement, leadingColumns: 0))
            }
        }
    }

    /// One key: `WHERE "k" = ?` (prepared once and cached); several keys of one column: a
    /// `json_each` join (``KeySetQuery``); several columns: `IN (VALUES ...)` in chunks.
    package func values(
        of columns: [String], in table: String, where keyColumns: [String], areIn keys: KeyTuples
    ) throws(WebRecordError) -> [[DatabaseValue]] {
        guard !columns.isEmpty, !keyColumns.isEmpty, !keys.isEmpty else { return [] }
        try keys.requireMatching(keyColumns, in: table)
        var rows: [[DatabaseValue]] = []
        func read(_ statement: Statement) {
            var row: [DatabaseValue] = []
            row.reserveCapacity(columns.count)
            for index in columns.indices { row.append(statement.value(at: index)) }
            rows.append(row)
        }
        if keys.count == 1 {
            let condition = keyColumns.map { "\(quote($0)) = ?" }.joined(separator: " AND ")
            try connection.cachedStatement(
                "SELECT \(columns.map(quote).joined(separator: ", ")) FROM \(quote(table)) WHERE \(condition)"
            ).forEachRow(keys.values, read)
        } else if keyColumns.count == 1 {
            let query = KeySetQuery(
                columns: columns.map { "t.\(quote($0))" }.joined(separator: ", "), table: table, alias: "t",
                keyColumn: keyColumns[0], guardTable: table)
            try query.forEachRow(keys.values, on: connection, read)
        } else {
            try forEachTuple(
                selecting: columns.map(quote).joined(separator: ", "), from: table, where: keyColumns, in: keys, read)
        }
        return rows
    }

    /// Runs `SELECT selectList FROM table WHERE (columns) IN (VALUES (?, ...), ...)` over
    /// `keys` in chunks under SQLite's variable limit, calling `body` on each row.
    private func forEachTuple(
        selecting selectList: String, from table: String, where columns: [String], in keys: KeyTuples,
        _ body: (Statement) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) / keys.width - 1)
        let columnList = columns.map(quote).joined(separator: ", ")
        let tuple = "(" + sqlPlaceholders(keys.width) + ")"
        var start = 0
        while start < keys.count {
            let end = min(start + chunkSize, keys.count)
            let text =
                "SELECT \(selectList) FROM \(quote(table)) WHERE (\(columnList)) IN (VALUES "
                + Array(repeating: tuple, count: end - start).joined(separator: ", ") + ")"
            // Prepared for this one use: caching would keep one statement per chunk size met.
            try Statement(connection: connection, sql: text).forEachRow(
                keys.values[(start * keys.width)..<(end * keys.width)], body)
            start = end
        }
    }

    /// Rows that owners refer to: the owners' table joined to this one, keyed by the owners'
    /// `_id`s (see ``KeySetQuery``); the owner's `_id` is the first result column.
    package func forEachRow(
        in table: String, referencedBy column: String, of ownerTable: String, ownerIDs: [Int64],
        _ body: (_ ownerID: Int64, _ row: TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let sql = try sql(for: table)
        let query = KeySetQuery(
            columns: "o.\"_id\", " + sql.selectList(alias: "c"), table: ownerTable, alias: "o", keyColumn: "_id",
            joins: " JOIN \(quote(table)) AS c ON c.\"_id\" = o.\(quote(column))", guardTable: table)
        try query.forEachRow(ownerIDs.map { .integer($0) }, on: connection) { statement throws(WebRecordError) in
            try body(statement.int64(at: 0), sql.row(statement, leadingColumns: 1))
        }
    }

    /// `SELECT ... WHERE "_entity" IN (...) AND (predicate) ORDER BY "_id"`.
    package func forEachRow(
        in table: String, of entityNames: [String], where predicate: String?, arguments: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let sql = try sql(for: table)
        var text =
            "SELECT \(sql.selectList) FROM \(quote(table)) WHERE \"_entity\" IN (\(sqlPlaceholders(entityNames.count)))"
        var values: [DatabaseValue] = entityNames.map { .text($0) }
        if let predicate {
            text += " AND (\(predicate)\n)"
            values += arguments
        }
        text += " ORDER BY \"_id\""
        try connection.cachedStatement(text).forEachRow(values) { statement throws(WebRecordError) in
            try body(sql.row(statement, leadingColumns: 0))
        }
    }

    // MARK: - New rows

    /// The largest `_id` plus one, and on: SQLite's write transaction is exclusive, so no other
    /// writer can take them. The largest `_id` is read once per table and transaction; later
    /// reservations follow the earlier ones without a statement.
    package func reserveRowIDs(in table: String, count: Int) throws(WebRecordError) -> [Int64] {
        guard count > 0 else { return [] }
        let first = try nextRowID(in: table)
        nextRowIDs[table] = first + Int64(count)
        return Array(first..<(first + Int64(count)))
    }

    /// Reads the largest `_id` of each table this transaction has not reserved in yet.
    package func beginRowIDs(in tables: [String]) throws(WebRecordError) {
        for table in tables where nextRowIDs[table] == nil {
            nextRowIDs[table] = try nextRowID(in: table)
        }
    }

    /// The `_id` the next row reserved in `table` gets: read once per table and transaction.
    private func nextRowID(in table: String) throws(WebRecordError) -> Int64 {
        if let next = nextRowIDs[table] { return next }
        if case .integer(let maximum)? = try connection.scalar("SELECT max(\"_id\") FROM \(quote(table))") {
            return maximum + 1
        }
        return 1
    }

    // MARK: - Writing rows

    /// Up to 64 rows per `INSERT` (which spares SQLite most of its per-statement work), each
    /// statement prepared once and cached. Foreign-key checks are deferred to the commit.
    package func insert(into table: String, columns: [String], values: [DatabaseValue]) throws(WebRecordError) {
        let width = columns.count
        try requireWholeRows(values, width: width, in: table)
        guard !values.isEmpty else { return }
        try deferForeignKeys()
        let rowCount = values.count / width
        let batchSize = max(1, min(Self.insertBatchSize, connection.maximumVariableCount / width))
        let head = "INSERT INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) VALUES "
        let row = "(" + sqlPlaceholders(width) + ")"
        let single = try connection.cachedStatement(head + row)
        let batch =
            batchSize > 1 && rowCount >= batchSize
            ? try connection.cachedStatement(head + Array(repeating: row, count: batchSize).joined(separator: ", "))
            : nil
        var start = 0
        while start < rowCount {
            let count = batch != nil && rowCount - start >= batchSize ? batchSize : 1
            try (count == 1 ? single : batch ?? single).execute(values[(start * width)..<((start + count) * width)])
            start += count
        }
    }

    /// One prepared statement, `UPDATE t SET a = ?, ... WHERE k = ? AND ...`, run once per row.
    @discardableResult
    package func update(_ table: String, set columns: [String], where keyColumns: [String], values: [DatabaseValue])
        throws(WebRecordError) -> Int
    {
        let width = columns.count + keyColumns.count
        guard !columns.isEmpty, !keyColumns.isEmpty else { return 0 }
        try requireWholeRows(values, width: width, in: table)
        guard !values.isEmpty else { return 0 }
        try deferForeignKeys()
        let assignments = columns.map { "\(quote($0)) = ?" }.joined(separator: ", ")
        let condition = keyColumns.map { "\(quote($0)) = ?" }.joined(separator: " AND ")
        let statement = try connection.cachedStatement("UPDATE \(quote(table)) SET \(assignments) WHERE \(condition)")
        var changed = 0
        var start = 0
        while start + width <= values.count {
            try statement.execute(values[start..<(start + width)])
            changed += connection.changes
            start += width
        }
        return changed
    }

    /// One prepared statement, `DELETE FROM t WHERE k = ? AND ...`, run once per key, in order;
    /// the layout's `ON DELETE SET NULL` clears the links to each row and `ON DELETE CASCADE`
    /// removes its join rows.
    package func delete(from table: String, where keyColumns: [String], areIn keys: KeyTuples)
        throws(WebRecordError) -> [Bool]
    {
        guard !keyColumns.isEmpty, !keys.isEmpty else { return [] }
        try keys.requireMatching(keyColumns, in: table)
        let condition = keyColumns.map { "\(quote($0)) = ?" }.joined(separator: " AND ")
        let statement = try connection.cachedStatement("DELETE FROM \(quote(table)) WHERE \(condition)")
        var deleted: [Bool] = []
        deleted.reserveCapacity(keys.count)
        for index in 0..<keys.count {
            try statement.execute(keys[index])
            deleted.append(connection.changes > 0)
        }
        return deleted
    }

    /// Defers the foreign-key checks of this transaction to its commit, once.
    private func deferForeignKeys() throws(WebRecordError) {
        guard !foreignKeysDeferred else { return }
        try connection.execute("PRAGMA defer_foreign_keys = ON")
        foreignKeysDeferred = true
    }

    /// Rows per multi-row `INSERT`: enough to spread SQLite's per-statement cost thin, few
    /// enough that the statement stays small.
    static let insertBatchSize = 64
}
