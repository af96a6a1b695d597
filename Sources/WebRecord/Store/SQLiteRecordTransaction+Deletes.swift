/// Deleting rows, and reading records inside the transaction: what record deletion and the
/// orphan pass need.
extension SQLiteRecordTransaction {
    // MARK: - Deleting

    package func entityName(ofRow rowID: Int64, in table: String) throws(WebRecordError) -> String? {
        guard
            case .text(let entityName)? = try connection.scalar(
                "SELECT \"_entity\" FROM \(quote(table)) WHERE \"_id\" = ?", [.integer(rowID)])
        else { return nil }
        return entityName
    }

    package func relatedRowIDs(of rowID: Int64, entity: Entity, relationship: Relationship) throws(WebRecordError)
        -> [Int64]
    {
        guard let storage = database.layout.storage(of: relationship.name, in: entity.name),
            let destination = database.schema.entity(named: relationship.destination)
        else { return [] }
        let sql: String
        switch storage {
        case .foreignKeyHere(let column, _):
            sql =
                "SELECT \(quote(column)) FROM \(quote(entity.rootName)) WHERE \"_id\" = ? AND \(quote(column)) IS NOT NULL"
        case .foreignKeyThere(_, let column, _):
            sql = "SELECT \"_id\" FROM \(quote(destination.rootName)) WHERE \(quote(column)) = ?"
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            sql = "SELECT \(quote(otherColumn)) FROM \(quote(table)) WHERE \(quote(selfColumn)) = ?"
        }
        return try connection.rows(sql, [.integer(rowID)]).compactMap { row in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
    }

    /// Deletes each row with its own statement; SQLite's `ON DELETE SET NULL` clears the links
    /// to it and `ON DELETE CASCADE` removes its join rows.
    package func deleteRows(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) -> [Bool] {
        var deleted: [Bool] = []
        deleted.reserveCapacity(rows.count)
        for row in rows {
            try connection.execute("DELETE FROM \(quote(row.table)) WHERE \"_id\" = ?", [.integer(row.rowID)])
            deleted.append(connection.changes > 0)
        }
        return deleted
    }

    // MARK: - Records

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
            sql += " AND (\(predicate))"
            values += arguments
        }
        sql += " ORDER BY \"_id\""
        return try database.records(sql, values, on: connection)
    }
}
