import WebRecord

/// Deleting rows, and reading records inside the transaction: what record deletion and the
/// orphan pass need.
extension PostgreSQLRecordTransaction {
    // MARK: - Deleting

    package func entityName(ofRow rowID: Int64, in table: String) throws(WebRecordError) -> String? {
        guard
            case .text(let entityName)? = try connection.scalar(
                "SELECT \"_entity\" FROM \(pgQuote(table)) WHERE \"_id\" = $1", [.integer(rowID)])
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
                "SELECT \(pgQuote(column)) FROM \(pgQuote(entity.rootName)) WHERE \"_id\" = $1 AND \(pgQuote(column)) IS NOT NULL"
        case .foreignKeyThere(_, let column, _):
            sql = "SELECT \"_id\" FROM \(pgQuote(destination.rootName)) WHERE \(pgQuote(column)) = $1 ORDER BY \"_id\""
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            sql =
                "SELECT \(pgQuote(otherColumn)) FROM \(pgQuote(table)) WHERE \(pgQuote(selfColumn)) = $1 ORDER BY \(pgQuote(otherColumn))"
        }
        return try connection.rows(sql, [.integer(rowID)]).compactMap { row in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
    }

    /// Deletes each row with its own statement (a deletion's order matters to what it
    /// cascades to); `ON DELETE SET NULL` clears the links to it and `ON DELETE CASCADE` removes
    /// its join rows.
    package func deleteRows(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) -> [Bool] {
        var deleted: [Bool] = []
        deleted.reserveCapacity(rows.count)
        for row in rows {
            let result = try connection.execute(
                "DELETE FROM \(pgQuote(row.table)) WHERE \"_id\" = $1", [.integer(row.rowID)])
            deleted.append(result.changedRowCount > 0)
        }
        return deleted
    }

    // MARK: - Records

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
            sql += " AND (\(PostgreSQLPlaceholders.numbered(predicate, from: 2)))"
        }
        sql += " ORDER BY \"_id\""
        return try database.records(
            sql, [try PostgreSQLArray.literal(entityNames.map { .text($0) })] + arguments, on: connection)
    }
}

/// SQLite's `?` placeholders in PostgreSQL's numbered form.
enum PostgreSQLPlaceholders {
    /// `text` with each `?` outside quotes (`'...'` strings and `"..."` identifiers) replaced by
    /// `$first`, `$first+1`, ... in order.
    static func numbered(_ text: String, from first: Int) -> String {
        var result = ""
        var number = first
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                result += "$\(number)"
                number += 1
            } else {
                result.append(character)
            }
        }
        return result
    }
}
