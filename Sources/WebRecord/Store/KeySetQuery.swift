/// A lookup of rows by a set of keys, however many keys there are.
///
/// The keys go in as one JSON array, read back by SQLite's `json_each` and joined to the
/// table, `FROM json_each(?) AS keys CROSS JOIN "T" AS t ON t."key" = keys.value`: one
/// statement per lookup shape, prepared once and cached, one bound value, no limit on the
/// number of keys, and one index search per key. (Thousands of `?` placeholders would make
/// SQLite parse and compile a new statement for every response size and bind each key
/// separately; `IN (SELECT value FROM json_each(?))` would first copy the keys into a
/// temporary index, which costs about as much again as the searches.) `CROSS JOIN` keeps the
/// keys as the outer loop whatever the planner guesses about the table.
///
/// The keys are read only if the table holds any row at all, so a first import into empty
/// tables costs SQLite next to nothing.
///
/// Keys that JSON cannot carry exactly (reals, blobs, and text holding a NUL character, which
/// SQLite's `json_each` cuts at the NUL), and SQLite builds without `json_each`, fall back to
/// `IN` lists of placeholders, in chunks under SQLite's variable limit.
struct KeySetQuery {
    /// The result columns, e.g. `t."_id", t."_entity", ...`.
    let columns: String
    /// The table searched, with its alias: the rows joined to each key.
    let table: String
    /// The alias of ``table`` in ``columns`` and ``joins``.
    let alias: String
    /// The column of ``table`` compared with each key.
    let keyColumn: String
    /// Further joins after the one on the key (may be empty).
    var joins: String = ""
    /// The table whose emptiness means nothing can be found.
    let guardTable: String

    /// Runs the lookup for `keys` (which must be distinct), calling `body` on each row.
    func forEachRow(
        _ keys: [DatabaseValue], on connection: Connection, _ body: (Statement) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !keys.isEmpty else { return }
        if let array = Self.jsonArray(keys) {
            let sql =
                "SELECT \(columns) FROM (SELECT value FROM json_each(?) WHERE EXISTS (SELECT 1 FROM \(quote(guardTable)))) AS keys "
                + "CROSS JOIN \(quote(table)) AS \(alias) ON \(alias).\(quote(keyColumn)) = keys.value\(joins)"
            if let statement = try? connection.cachedStatement(sql) {
                try statement.forEachRow([.text(array)], body)
                return
            }
        }
        let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) - 1)
        var start = 0
        while start < keys.count {
            let chunk = Array(keys[start..<min(start + chunkSize, keys.count)])
            start += chunkSize
            let sql =
                "SELECT \(columns) FROM \(quote(table)) AS \(alias)\(joins) WHERE \(alias).\(quote(keyColumn)) IN ("
                + sqlPlaceholders(chunk.count) + ")"
            // Prepared for this one use: caching would keep one statement per chunk size met.
            try Statement(connection: connection, sql: sql).forEachRow(chunk, body)
        }
    }

    /// Row ids as a JSON array, for `IN (SELECT value FROM json_each(?))`.
    static func jsonArray(_ rowIDs: some Collection<Int64>) -> String {
        jsonArray(rowIDs.map(DatabaseValue.integer)) ?? "[]"
    }

    /// The keys as a JSON array, or nil when one is not text or an integer, or is text holding a
    /// NUL character: SQLite's `json_each` reads `"a\u0000b"` as `a`, so such a key would never
    /// be found again and its record would be inserted twice.
    static func jsonArray(_ keys: [DatabaseValue]) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.count * 12 + 2)
        bytes.append(UInt8(ascii: "["))
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            switch key {
            case .integer(let value): bytes.append(contentsOf: String(value).utf8)
            case .text(let value):
                if value.utf8.contains(0) { return nil }
                JSONTextWriter.appendString(value, to: &bytes)
            case .null, .real, .blob: return nil
            }
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
