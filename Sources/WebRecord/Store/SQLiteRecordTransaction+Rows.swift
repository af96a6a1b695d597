/// Finding and writing rows: the population's batched lookups by key and by owner, and its
/// inserts and updates.
extension SQLiteRecordTransaction {
    // MARK: - Finding rows

    /// Rows whose `column` holds one of `keys`: one `json_each` join, however many keys (see
    /// ``KeySetQuery``).
    package func forEachRow(
        in table: String, where column: String, isIn keys: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let sql = try sql(for: table)
        let query = KeySetQuery(
            columns: sql.selectList(alias: "t"), table: table, alias: "t", keyColumn: column, guardTable: table)
        try query.forEachRow(keys, on: connection) { statement throws(WebRecordError) in
            try body(sql.row(statement, leadingColumns: 0))
        }
    }

    /// Rows whose `columns` hold one of `keys`: `(a, b) IN (VALUES (?, ?), ...)`, in chunks
    /// under SQLite's variable limit.
    package func forEachRow(
        in table: String, where columns: [String], areIn keys: [[DatabaseValue]],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !columns.isEmpty else { return }
        let sql = try sql(for: table)
        let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) / columns.count - 1)
        let columnList = columns.map(quote).joined(separator: ", ")
        let tuple = "(" + sqlPlaceholders(columns.count) + ")"
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            start += chunkSize
            let text =
                "SELECT \(sql.selectList) FROM \(quote(table)) WHERE (\(columnList)) IN (VALUES "
                + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + ")"
            var arguments: [DatabaseValue] = []
            arguments.reserveCapacity(chunk.count * columns.count)
            for key in chunk { arguments.append(contentsOf: key) }
            // Prepared for this one use: caching would keep one statement per chunk size met.
            try Statement(connection: connection, sql: text).forEachRow(arguments) { statement throws(WebRecordError) in
                try body(sql.row(statement, leadingColumns: 0))
            }
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

    /// Inserts new rows table by table, up to 64 rows per `INSERT` (which spares SQLite most of
    /// its per-statement work), then updates changed ones, with one prepared statement per
    /// table. Foreign-key checks are deferred to the commit.
    package func writeRows(inserted: [TableRows], updated: [TableRows]) throws(WebRecordError) {
        try connection.execute("PRAGMA defer_foreign_keys = ON")
        var arguments: [DatabaseValue] = []
        for group in inserted where !group.rows.isEmpty {
            let sql = try sql(for: group.table)
            let rows = group.rows
            let width = sql.valueColumns.count + 2
            let batchSize = max(1, min(Self.insertBatchSize, connection.maximumVariableCount / width))
            let batch =
                batchSize > 1 && rows.count >= batchSize
                ? try connection.cachedStatement(sql.insertSQL(rows: batchSize)) : nil
            let single = try connection.cachedStatement(sql.insertSQL)
            arguments.reserveCapacity(batchSize * width)
            var start = 0
            while start < rows.count {
                let count = batch != nil && rows.count - start >= batchSize ? batchSize : 1
                arguments.removeAll(keepingCapacity: true)
                for row in rows[start..<(start + count)] {
                    arguments.append(.integer(row.rowID))
                    arguments.append(.text(row.entityName))
                    arguments.append(contentsOf: row.values)
                }
                try (count == 1 ? single : batch ?? single).execute(arguments)
                start += count
            }
        }
        for group in updated where !group.rows.isEmpty {
            let statement = try connection.cachedStatement(sql(for: group.table).updateSQL)
            for row in group.rows {
                arguments.removeAll(keepingCapacity: true)
                arguments.append(.text(row.entityName))
                arguments.append(contentsOf: row.values)
                arguments.append(.integer(row.rowID))
                try statement.execute(arguments)
            }
        }
    }

    /// Rows per multi-row `INSERT`: enough to spread SQLite's per-statement cost thin, few
    /// enough that the statement stays small.
    static let insertBatchSize = 64
}
