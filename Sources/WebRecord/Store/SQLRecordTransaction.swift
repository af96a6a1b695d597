/// A ``RecordStorageTransaction`` of a SQL engine: what record deletion and the orphan pass
/// read and delete inside a population's transaction, written once here for SQLite and
/// PostgreSQL alike, over the transaction's ``RecordStatements``.
package protocol SQLRecordTransaction: RecordStorageTransaction {
    /// The schema of the store the transaction writes.
    var schema: Schema { get }
    /// How that schema is laid out in tables.
    var layout: StorageLayout { get }
    /// The statements of the transaction, in SQL with double-quoted identifiers and `?`
    /// placeholders.
    var statements: any RecordStatements { get }
}

/// The statements of a write transaction: ``RecordQuerying``'s reads, and writes.
package protocol RecordStatements: RecordQuerying {
    /// Runs `sql`, a statement that writes, with `arguments` bound to its placeholders in
    /// order, and returns the number of rows it changed.
    func run(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> Int
}

extension SQLRecordTransaction {
    package func entityName(ofRow rowID: Int64, in table: String) throws(WebRecordError) -> String? {
        let rows = try statements.rows(
            "SELECT \"_entity\" FROM \(quote(table)) WHERE \"_id\" = ?", [.integer(rowID)])
        guard case .text(let entityName)? = rows.first?.first else { return nil }
        return entityName
    }

    /// The `_id`s of the rows `relationship` of the row `rowID` links to, in `_id` order.
    package func relatedRowIDs(of rowID: Int64, entity: Entity, relationship: Relationship) throws(WebRecordError)
        -> [Int64]
    {
        guard let storage = layout.storage(of: relationship.name, in: entity.name),
            let destination = schema.entity(named: relationship.destination)
        else { return [] }
        let sql: String
        switch storage {
        case .foreignKeyHere(let column, _):
            sql =
                "SELECT \(quote(column)) FROM \(quote(entity.rootName)) WHERE \"_id\" = ? AND \(quote(column)) IS NOT NULL"
        case .foreignKeyThere(_, let column, _):
            sql = "SELECT \"_id\" FROM \(quote(destination.rootName)) WHERE \(quote(column)) = ? ORDER BY \"_id\""
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            sql =
                "SELECT \(quote(otherColumn)) FROM \(quote(table)) WHERE \(quote(selfColumn)) = ? ORDER BY \(quote(otherColumn))"
        }
        return try statements.rows(sql, [.integer(rowID)]).compactMap { row in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
    }

    /// Deletes each row with its own statement, in order (a deletion's order matters to what
    /// it cascades to); the layout's `ON DELETE SET NULL` clears the links to it and
    /// `ON DELETE CASCADE` removes its join rows.
    package func deleteRows(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) -> [Bool] {
        var deleted: [Bool] = []
        deleted.reserveCapacity(rows.count)
        for row in rows {
            let changed = try statements.run(
                "DELETE FROM \(quote(row.table)) WHERE \"_id\" = ?", [.integer(row.rowID)])
            deleted.append(changed > 0)
        }
        return deleted
    }

    package func mirrorJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        members: [Int64], replace: Bool
    ) throws(WebRecordError) -> [Int64] {
        let (join, selfColumn, otherColumn) = (quote(table), quote(ownerColumn), quote(memberColumn))
        // The records that list `owner` now.
        var listing = Set<Int64>()
        for row in try statements.rows(
            "SELECT \(selfColumn) FROM \(join) WHERE \(otherColumn) = ?", [.integer(owner)])
        {
            if case .integer(let id)? = row.first { listing.insert(id) }
        }
        var changed: [Int64] = []
        for member in members where member != owner && listing.insert(member).inserted {
            if let positionColumn {
                // Last in the member's list.
                let position = quote(positionColumn)
                _ = try statements.run(
                    "INSERT INTO \(join) (\(selfColumn), \(otherColumn), \(position)) VALUES (?, ?, "
                        + "(SELECT coalesce(max(\(position)) + 1, 0) FROM \(join) WHERE \(selfColumn) = ?))",
                    [.integer(member), .integer(owner), .integer(member)])
            } else {
                _ = try statements.run(
                    "INSERT INTO \(join) (\(selfColumn), \(otherColumn)) VALUES (?, ?)",
                    [.integer(member), .integer(owner)])
            }
            changed.append(member)
        }
        guard replace else { return changed }
        let listed = Set(members)
        for other in listing.sorted() where other != owner && !listed.contains(other) {
            if try statements.run(
                "DELETE FROM \(join) WHERE \(selfColumn) = ? AND \(otherColumn) = ?",
                [.integer(other), .integer(owner)])
                > 0
            {
                changed.append(other)
            }
        }
        return changed
    }

    package func pairReferences(in table: String, column: String, row: Int64, partner: Int64?)
        throws(WebRecordError) -> Bool
    {
        let (table, column) = (quote(table), quote(column))
        let pair = [row] + (partner.map { [$0] } ?? [])
        let ids = pair.map { DatabaseValue.integer($0) }
        // A previous partner of either is unlinked.
        var changed =
            try statements.run(
                "UPDATE \(table) SET \(column) = NULL WHERE \(column) IN (\(sqlPlaceholders(pair.count))) "
                    + "AND \"_id\" NOT IN (\(sqlPlaceholders(pair.count)))", ids + ids) > 0
        let links: [(Int64, DatabaseValue)] =
            partner.map { [(row, .integer($0)), ($0, .integer(row))] } ?? [(row, .null)]
        for (id, value) in links {
            // Only a row whose link differs is written (in the SQL both stores read alike).
            let differs = value.isNull ? "\(column) IS NOT NULL" : "(\(column) IS NULL OR \(column) <> ?)"
            changed =
                try statements.run(
                    "UPDATE \(table) SET \(column) = ? WHERE \"_id\" = ? AND \(differs)",
                    [value, .integer(id)] + (value.isNull ? [] : [value])) > 0 || changed
        }
        return changed
    }
}
