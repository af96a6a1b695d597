import WebRecord

/// Reading records inside the transaction, as record deletion and the orphan pass do (the rest
/// of what they need is written once, in `SQLRecordTransaction`).
extension PostgreSQLRecordTransaction {
    package func records(withIDs rowIDs: [Int64], in table: String) throws(WebRecordError) -> [Record] {
        guard !rowIDs.isEmpty else { return [] }
        return try database.records(
            "SELECT * FROM \(pgQuote(table)) WHERE \"_id\" = ANY($1::bigint[])",
            [try PostgreSQLArray.literal(rowIDs.map { .integer($0) })], on: connection)
    }

    /// `predicate`'s `?` placeholders become `$2`, `$3`, ... (`$1` is the entity names).
    package func records(
        of entityNames: [String], in table: String, where predicate: String?, arguments: [DatabaseValue]
    ) throws(WebRecordError) -> [Record] {
        var sql = "SELECT * FROM \(pgQuote(table)) WHERE \"_entity\" = ANY($1::text[])"
        if let predicate {
            sql += " AND (\(try PostgreSQLPlaceholders.numberedForBothStores(predicate, from: 2))\n)"
        }
        sql += " ORDER BY \"_id\""
        return try database.records(
            sql, [try PostgreSQLArray.literal(entityNames.map { .text($0) })] + arguments, on: connection)
    }
}
