import WebRecord

/// Finding and writing rows: the population's batched lookups by key and by owner, new `_id`s
/// from each table's sequence, and its inserts and updates.
extension PostgreSQLRecordTransaction {
    // MARK: - Finding rows

    // Every lookup locks the rows it finds (`FOR NO KEY UPDATE`, in `_id` order) until the
    // transaction ends: another worker's population that finds the same record waits for this
    // one to commit and then reads what it wrote, so that neither writes over the other's
    // changes with what it read before (a lost update). A record no row holds yet is not locked;
    // two workers inserting it meet at its unique index, and the second is tried again.

    /// The clause every lookup ends with: `_id` order, each row found locked for this transaction.
    static let locking = " ORDER BY \"_id\" FOR NO KEY UPDATE"

    /// Rows whose `column` holds one of `keys`: `= ANY($1)` over one array of every key.
    package func forEachRow(
        in table: String, where column: String, isIn keys: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !keys.isEmpty else { return }
        let sql = try sql(for: table)
        let rows = try connection.rows(
            "SELECT \(sql.selectList()) FROM \(sql.quotedName) WHERE \(pgQuote(column)) = ANY($1::\(sql.type(of: column))[])"
                + Self.locking,
            [
                try Self.naming(column, of: table) { () throws(WebRecordError) in
                    try PostgreSQLArray.literal(PostgreSQLDates.storable(keys, type: sql.type(of: column)))
                }
            ])
        for row in rows { try body(sql.row(row)) }
    }

    /// Rows whose `columns` hold one of `keys`: `(a, b) IN (SELECT * FROM unnest($1, $2))`,
    /// one array per column.
    package func forEachRow(
        in table: String, where columns: [String], areIn keys: [[DatabaseValue]],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !columns.isEmpty, !keys.isEmpty else { return }
        let sql = try sql(for: table)
        var arrays: [DatabaseValue] = []
        var casts: [String] = []
        for (index, column) in columns.enumerated() {
            arrays.append(
                try Self.naming(column, of: table) { () throws(WebRecordError) in
                    try PostgreSQLArray.literal(
                        PostgreSQLDates.storable(
                            keys.map { index < $0.count ? $0[index] : .null }, type: sql.type(of: column)))
                })
            casts.append("$\(index + 1)::\(sql.type(of: column))[]")
        }
        let rows = try connection.rows(
            "SELECT \(sql.selectList()) FROM \(sql.quotedName) WHERE (\(columns.map(pgQuote).joined(separator: ", "))) IN (SELECT * FROM unnest(\(casts.joined(separator: ", "))))"
                + Self.locking,
            arrays)
        for row in rows { try body(sql.row(row)) }
    }

    /// Rows that owners refer to: the owners' table joined to this one, for the owners' `_id`s
    /// in one array; the owner's `_id` comes first.
    package func forEachRow(
        in table: String, referencedBy column: String, of ownerTable: String, ownerIDs: [Int64],
        _ body: (_ ownerID: Int64, _ row: TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !ownerIDs.isEmpty else { return }
        let sql = try sql(for: table)
        let rows = try connection.rows(
            "SELECT o.\"_id\", \(sql.selectList(alias: "c")) FROM \(pgQuote(ownerTable)) AS o JOIN \(sql.quotedName) AS c ON c.\"_id\" = o.\(pgQuote(column)) WHERE o.\"_id\" = ANY($1::bigint[]) ORDER BY c.\"_id\" FOR NO KEY UPDATE OF c",
            [try PostgreSQLArray.literal(ownerIDs.map { .integer($0) })])
        for row in rows {
            guard case .integer(let ownerID) = row[0] else { continue }
            try body(ownerID, sql.row(row, leading: 1))
        }
    }

    // MARK: - New rows

    /// `count` values of the table's `_id` sequence, in one statement: `nextval` over
    /// `generate_series`, the sequence looked up once (`OFFSET 0` keeps the server from
    /// evaluating the lookup again for every row). A sequence never hands a value out twice, whichever transaction asks
    /// and whether or not it commits, so workers sharing the database never collide.
    package func reserveRowIDs(in table: String, count: Int) throws(WebRecordError) -> [Int64] {
        guard count > 0 else { return [] }
        let qualified = pgQuote(database.namespace) + "." + pgQuote(table)
        let rows = try connection.rows(
            "SELECT nextval(q.s) FROM (SELECT pg_get_serial_sequence($1, '_id')::regclass AS s OFFSET 0) AS q, generate_series(1, $2::bigint)",
            [.text(qualified), .integer(Int64(count))])
        let rowIDs = rows.compactMap { row -> Int64? in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
        return rowIDs.sorted()
    }

    /// Nothing to do: a sequence never hands out a deleted row's `_id` again.
    package func beginRowIDs(in tables: [String]) throws(WebRecordError) {}

    // MARK: - Writing rows

    /// Inserts each table's new rows with one `COPY ... FROM STDIN` per table
    /// (``PostgreSQLCopyText``), sent as it is made, then updates changed rows with one
    /// `UPDATE ... FROM unnest(...)` per ``rowsPerStatement`` rows, one array per column.
    /// Foreign keys are checked at the end of the batch (``endBatch()``) or at the commit.
    package func writeRows(inserted: [TableRows], updated: [TableRows]) throws(WebRecordError) {
        for group in inserted where !group.rows.isEmpty {
            let sql = try sql(for: group.table)
            let rows = group.rows
            let isDate = sql.valueColumns.map { sql.type(of: $0) == "timestamptz" }
            try connection.copyIn(
                "COPY \(sql.quotedName) (\(sql.selectList())) FROM STDIN", rowCount: rows.count
            ) { index, data throws(WebRecordError) in
                let row = rows[index]
                data += String(row.rowID).utf8
                data.append(UInt8(ascii: "\t"))
                try PostgreSQLCopyText.append(.text(row.entityName), to: &data)
                for column in sql.valueColumns.indices {
                    data.append(UInt8(ascii: "\t"))
                    do throws(WebRecordError) {
                        let value = column < row.values.count ? row.values[column] : .null
                        try PostgreSQLCopyText.append(
                            isDate[column] ? PostgreSQLDates.storable(value) : value, to: &data)
                    } catch {
                        throw Self.naming(error, column: sql.valueColumns[column], of: group.table, rowID: row.rowID)
                    }
                }
                data.append(UInt8(ascii: "\n"))
            }
        }
        for group in updated where !group.rows.isEmpty {
            let sql = try sql(for: group.table)
            let assignments = sql.columnNames.dropFirst().map { "\($0) = v.\($0)" }.joined(separator: ", ")
            var start = 0
            while start < group.rows.count {
                let chunk = group.rows[start..<min(start + Self.rowsPerStatement, group.rows.count)]
                start += Self.rowsPerStatement
                let (arrays, casts) = try columnArrays(chunk, sql: sql)
                try connection.execute(
                    "UPDATE \(sql.quotedName) AS t SET \(assignments) FROM unnest(\(casts)) AS v(\(sql.selectList())) WHERE t.\"_id\" = v.\"_id\"",
                    arrays)
            }
        }
    }

    /// One array parameter per column of `rows` (`_id`, `_entity`, then the value columns), and
    /// the casts that type them: `$1::bigint[], $2::text[], ...`.
    private func columnArrays(_ rows: ArraySlice<TableRow>, sql: PostgreSQLTableSQL) throws(WebRecordError) -> (
        [DatabaseValue], String
    ) {
        var arrays = [
            try PostgreSQLArray.literal(rows.map { .integer($0.rowID) }),
            try PostgreSQLArray.literal(rows.map { .text($0.entityName) }),
        ]
        var casts = ["$1::bigint[]", "$2::text[]"]
        for (index, column) in sql.valueColumns.enumerated() {
            arrays.append(
                try Self.naming(column, of: sql.tableName) { () throws(WebRecordError) in
                    try PostgreSQLArray.literal(
                        PostgreSQLDates.storable(
                            rows.map { index < $0.values.count ? $0.values[index] : .null }, type: sql.type(of: column))
                    )
                })
            casts.append("$\(index + 3)::\(sql.type(of: column))[]")
        }
        return (arrays, casts.joined(separator: ", "))
    }

    /// Rows per `UPDATE`: enough that a population makes few round trips, few
    /// enough that one statement's arrays stay a few megabytes.
    static let rowsPerStatement = 5_000

    // MARK: - Values refused

    /// `error`, raised for a value of `column` in `table` (of the row `rowID`, when known), with
    /// where the value was going in front of its message.
    static func naming(_ error: WebRecordError, column: String, of table: String, rowID: Int64? = nil)
        -> WebRecordError
    {
        var named = error
        let row = rowID.map { " (the row with _id \($0))" } ?? ""
        named.message = "a value of column '\(column)' of table '\(table)'\(row): \(error.message)"
        return named
    }

    /// What `make` returns, or its error named with `column` and `table`.
    static func naming<T>(_ column: String, of table: String, _ make: () throws(WebRecordError) -> T)
        throws(WebRecordError) -> T
    {
        do {
            return try make()
        } catch {
            throw naming(error, column: column, of: table)
        }
    }
}
