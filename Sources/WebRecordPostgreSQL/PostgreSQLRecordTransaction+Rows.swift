import WebRecord

/// The primitives of ``RecordStorageTransaction`` in PostgreSQL's SQL: lookups by key set,
/// inserts, updates and deletes, each a statement for a whole batch, and `_id`s from each
/// table's sequence.
extension PostgreSQLRecordTransaction {
    // MARK: - Reading rows

    // Every lookup of rows to write locks the rows it finds (`FOR NO KEY UPDATE`, in `_id`
    // order) until the transaction ends: another worker's population that finds the same
    // record waits for this one to commit and then reads what it wrote, so that neither writes
    // over the other's changes with what it read before (a lost update). A record no row holds
    // yet is not locked; two workers inserting it meet at its unique index, and the second is
    // tried again.

    /// The clause every lookup ends with: `_id` order, each row found locked for this transaction.
    static let locking = " ORDER BY \"_id\" FOR NO KEY UPDATE"

    /// Rows whose `columns` hold one of `keys`: `= ANY($1)` over one array of every key for one
    /// column, `(a, b) IN (SELECT * FROM unnest($1, $2))` with one array per column for more.
    package func forEachRow(
        in table: String, where columns: [String], areIn keys: KeyTuples,
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !columns.isEmpty, !keys.isEmpty else { return }
        try keys.requireMatching(columns, in: table)
        let sql = try sql(for: table)
        for row in try select(sql.selectList(), from: table, where: columns, in: keys, suffix: Self.locking) {
            try body(sql.row(row))
        }
    }

    /// The same statement as the lookup of rows, selecting `columns`, without locking.
    package func values(
        of columns: [String], in table: String, where keyColumns: [String], areIn keys: KeyTuples
    ) throws(WebRecordError) -> [[DatabaseValue]] {
        guard !columns.isEmpty, !keyColumns.isEmpty, !keys.isEmpty else { return [] }
        try keys.requireMatching(keyColumns, in: table)
        return try select(columns.map(pgQuote).joined(separator: ", "), from: table, where: keyColumns, in: keys)
    }

    /// `SELECT selectList FROM table WHERE` the key columns hold one of `keys`, sent as one
    /// array per column, then `suffix`.
    private func select(
        _ selectList: String, from table: String, where columns: [String], in keys: KeyTuples, suffix: String = ""
    ) throws(WebRecordError) -> [[DatabaseValue]] {
        let (arrays, casts) = try columnArrays(keys.values, width: keys.width, columns: columns, of: table)
        let condition =
            columns.count == 1
            ? "\(pgQuote(columns[0])) = ANY(\(casts[0]))"
            : "(\(columns.map(pgQuote).joined(separator: ", "))) IN (SELECT * FROM unnest(\(casts.joined(separator: ", "))))"
        return try connection.rows("SELECT \(selectList) FROM \(pgQuote(table)) WHERE \(condition)" + suffix, arrays)
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

    /// `predicate`'s `?` placeholders become `$2`, `$3`, ... (`$1` is the entity names).
    package func forEachRow(
        in table: String, of entityNames: [String], where predicate: String?, arguments: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let sql = try sql(for: table)
        var text = "SELECT \(sql.selectList()) FROM \(sql.quotedName) WHERE \"_entity\" = ANY($1::text[])"
        if let predicate {
            text += " AND (\(try PostgreSQLPlaceholders.numberedForBothStores(predicate, from: 2))\n)"
        }
        text += " ORDER BY \"_id\""
        for row in try connection.rows(
            text, [try PostgreSQLArray.literal(entityNames.map { .text($0) })] + arguments)
        {
            try body(sql.row(row))
        }
    }

    // MARK: - New rows

    /// `count` values of the table's `_id` sequence, in one statement: `nextval` over
    /// `generate_series`, the sequence looked up once (`OFFSET 0` keeps the server from
    /// evaluating the lookup again for every row). A sequence never hands a value out twice,
    /// whichever transaction asks and whether or not it commits, so workers sharing the
    /// database never collide.
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

    /// A record table's rows go in with one `COPY ... FROM STDIN` (``PostgreSQLCopyText``),
    /// sent as it is made; a join table's, whose rows come a few per owner, with one
    /// `INSERT ... SELECT * FROM unnest(...)`, one array per column, which takes one round
    /// trip where `COPY` takes two. Foreign keys are checked at the end of the batch
    /// (``endBatch()``) or at the commit.
    package func insert(into table: String, columns: [String], values: [DatabaseValue]) throws(WebRecordError) {
        let width = columns.count
        try requireWholeRows(values, width: width, in: table)
        guard !values.isEmpty else { return }
        let types = try columnTypes(of: table)
        let rowCount = values.count / width
        guard layout.table(named: table) != nil else {
            let (arrays, casts) = try columnArrays(values, width: width, columns: columns, of: table)
            try connection.execute(
                "INSERT INTO \(pgQuote(table)) (\(columns.map(pgQuote).joined(separator: ", "))) SELECT * FROM unnest(\(casts.joined(separator: ", ")))",
                arrays)
            return
        }
        let isDate = columns.map { types[$0] == "timestamptz" }
        let hasRowID = columns.first == "_id"
        try connection.copyIn(
            "COPY \(pgQuote(table)) (\(columns.map(pgQuote).joined(separator: ", "))) FROM STDIN", rowCount: rowCount
        ) { index, data throws(WebRecordError) in
            let start = index * width
            for column in 0..<width {
                if column > 0 { data.append(UInt8(ascii: "\t")) }
                let value = values[start + column]
                do throws(WebRecordError) {
                    try PostgreSQLCopyText.append(isDate[column] ? PostgreSQLDates.storable(value) : value, to: &data)
                } catch {
                    var rowID: Int64?
                    if hasRowID, case .integer(let id) = values[start] { rowID = id }
                    throw Self.naming(error, column: columns[column], of: table, rowID: rowID)
                }
            }
            data.append(UInt8(ascii: "\n"))
        }
    }

    /// `UPDATE t SET a = v.c1, ... FROM unnest(...) AS v(c1, ...) WHERE t.k = v.ck ...`: one
    /// statement per ``rowsPerStatement`` rows, one array per column.
    @discardableResult
    package func update(_ table: String, set columns: [String], where keyColumns: [String], values: [DatabaseValue])
        throws(WebRecordError) -> Int
    {
        let all = columns + keyColumns
        guard !columns.isEmpty, !keyColumns.isEmpty else { return 0 }
        try requireWholeRows(values, width: all.count, in: table)
        guard !values.isEmpty else { return 0 }
        let aliases = all.indices.map { "c\($0 + 1)" }
        let assignments = columns.indices.map { "\(pgQuote(columns[$0])) = v.\(aliases[$0])" }
        let condition = keyColumns.indices.map { "t.\(pgQuote(keyColumns[$0])) = v.\(aliases[columns.count + $0])" }
        let rowCount = values.count / all.count
        var changed = 0
        var start = 0
        while start < rowCount {
            let end = min(start + Self.rowsPerStatement, rowCount)
            let (arrays, casts) = try columnArrays(
                values[(start * all.count)..<(end * all.count)], width: all.count, columns: all, of: table)
            changed +=
                try connection.execute(
                    "UPDATE \(pgQuote(table)) AS t SET \(assignments.joined(separator: ", ")) FROM unnest(\(casts.joined(separator: ", "))) AS v(\(aliases.joined(separator: ", "))) WHERE \(condition.joined(separator: " AND "))",
                    arrays
                ).changedRowCount
            start = end
        }
        return changed
    }

    /// `DELETE FROM t WHERE k = $1 AND ...`, once per key, in order.
    package func delete(from table: String, where keyColumns: [String], areIn keys: KeyTuples)
        throws(WebRecordError) -> [Bool]
    {
        guard !keyColumns.isEmpty, !keys.isEmpty else { return [] }
        try keys.requireMatching(keyColumns, in: table)
        let condition = keyColumns.enumerated().map { "\(pgQuote($0.element)) = $\($0.offset + 1)" }
        let sql = "DELETE FROM \(pgQuote(table)) WHERE \(condition.joined(separator: " AND "))"
        var deleted: [Bool] = []
        deleted.reserveCapacity(keys.count)
        for index in 0..<keys.count {
            deleted.append(try connection.execute(sql, Array(keys[index])).changedRowCount > 0)
        }
        return deleted
    }

    /// One array parameter per column of `values` (rows of `width` values, in the order of
    /// `columns`), each made as the column's type stores it, and the casts that type them:
    /// `$1::bigint[], $2::text[], ...`.
    private func columnArrays(
        _ values: some RandomAccessCollection<DatabaseValue>, width: Int, columns: [String], of table: String
    ) throws(WebRecordError) -> ([DatabaseValue], [String]) {
        let types = try columnTypes(of: table)
        let rowCount = values.count / width
        var arrays: [DatabaseValue] = []
        var casts: [String] = []
        for (index, column) in columns.enumerated() {
            let type = types[column] ?? "text"
            var columnValues: [DatabaseValue] = []
            columnValues.reserveCapacity(rowCount)
            var position = values.index(values.startIndex, offsetBy: index)
            for row in 0..<rowCount {
                columnValues.append(values[position])
                if row + 1 < rowCount { position = values.index(position, offsetBy: width) }
            }
            arrays.append(
                try Self.naming(column, of: table) { () throws(WebRecordError) in
                    try PostgreSQLArray.literal(PostgreSQLDates.storable(columnValues, type: type))
                })
            casts.append("$\(index + 1)::\(type)[]")
        }
        return (arrays, casts)
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
