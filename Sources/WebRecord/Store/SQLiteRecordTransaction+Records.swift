/// Reading records inside the transaction, as record deletion and the orphan pass do (the rest
/// of what they need is written once, in `SQLRecordTransaction`).
extension SQLiteRecordTransaction {
    /// Reads the rows in chunks of 500 `_id`s.
    package func records(withIDs rowIDs: [Int64], in table: String) throws(WebRecordError) -> [Record] {
        var records: [Record] = []
        var start = 0
        while start < rowIDs.count {
            let chunk = Array(rowIDs[start..<min(start + 500, rowIDs.count)])
            start += 500
            let sql = "SELECT * FROM \(quote(table)) WHERE \"_id\" IN (\(sqlPlaceholders(chunk.count)))"
            records += try database.records(sql, chunk.map { .integer($0) }, on: connection)
        }
        return records
    }

    package func records(
        of entityNames: [String], in table: String, where predicate: String?, arguments: [DatabaseValue]
    ) throws(WebRecordError) -> [Record] {
        var sql = "SELECT * FROM \(quote(table)) WHERE \"_entity\" IN (\(sqlPlaceholders(entityNames.count)))"
        var values: [DatabaseValue] = entityNames.map { .text($0) }
        if let predicate {
            sql += " AND (\(predicate)\n)"
            values += arguments
        }
        sql += " ORDER BY \"_id\""
        return try database.records(sql, values, on: connection)
    }
}
