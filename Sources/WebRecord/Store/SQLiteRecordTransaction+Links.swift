/// Links outside the rows a population writes: foreign keys on other rows, and join rows.
extension SQLiteRecordTransaction {
    package func clearReferences(
        in table: String, column: String, to value: DatabaseValue, except keep: Int64?
    ) throws(WebRecordError) -> Bool {
        var sql = "UPDATE \(quote(table)) SET \(quote(column)) = NULL WHERE \(quote(column)) = ?"
        var arguments = [value]
        if let keep {
            sql += " AND \"_id\" <> ?"
            arguments.append(.integer(keep))
        }
        try connection.execute(sql, arguments)
        return connection.changes > 0
    }

    package func dropMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String?, keeping: Set<Int64>,
        clearing: Bool
    ) throws(WebRecordError) -> [Int64] {
        let current = try connection.rows(
            "SELECT \"_id\" FROM \(quote(table)) WHERE \(quote(column)) = ?", [.integer(owner)])
        var dropped: [Int64] = []
        for row in current {
            guard case .integer(let id)? = row.first, !keeping.contains(id) else { continue }
            dropped.append(id)
        }
        if clearing, !dropped.isEmpty {
            let clearPosition = positionColumn.map { ", \(quote($0)) = NULL" } ?? ""
            let sql = "UPDATE \(quote(table)) SET \(quote(column)) = NULL\(clearPosition) WHERE \"_id\" = ?"
            for id in dropped {
                try connection.execute(sql, [.integer(id)])
            }
        }
        return dropped
    }

    package func moveMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String, after members: [Int64]
    ) throws(WebRecordError) -> Bool {
        guard !members.isEmpty else { return false }
        let count = DatabaseValue.integer(Int64(members.count))
        try connection.execute(
            "UPDATE \(quote(table)) SET \(quote(positionColumn)) = ? + coalesce(\(quote(positionColumn)), 0) WHERE \(quote(column)) = ? AND \(quote(positionColumn)) < ? AND \"_id\" NOT IN (\(sqlPlaceholders(members.count)))",
            [count, .integer(owner), count] + members.map { .integer($0) })
        return connection.changes > 0
    }

    /// Reads the owner's join rows once, then updates the positions that changed, inserts the
    /// rows missing, and deletes or renumbers the rows of members not listed, one statement
    /// per row.
    package func setJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        ownerIsNew: Bool, members: [Int64], replace: Bool, removed: (Int64) throws(WebRecordError) -> Void
    ) throws(WebRecordError) -> Bool {
        let (table, selfColumn, otherColumn) = (quote(table), quote(ownerColumn), quote(memberColumn))
        var current: [Int64: DatabaseValue] = [:]
        if !ownerIsNew {
            let positionSelect = positionColumn.map { ", \(quote($0))" } ?? ", NULL"
            for row in try connection.rows(
                "SELECT \(otherColumn)\(positionSelect) FROM \(table) WHERE \(selfColumn) = ?", [.integer(owner)])
            {
                if case .integer(let id)? = row.first { current[id] = row.count > 1 ? row[1] : .null }
            }
        }
        var changed = false
        for (index, member) in members.enumerated() {
            let position: DatabaseValue = positionColumn == nil ? .null : .integer(Int64(index))
            if let existing = current[member] {
                if let positionColumn, existing != position {
                    try connection.execute(
                        "UPDATE \(table) SET \(quote(positionColumn)) = ? WHERE \(selfColumn) = ? AND \(otherColumn) = ?",
                        [position, .integer(owner), .integer(member)])
                    changed = true
                }
            } else {
                if let positionColumn {
                    try connection.execute(
                        "INSERT INTO \(table) (\(selfColumn), \(otherColumn), \(quote(positionColumn))) VALUES (?, ?, ?)",
                        [.integer(owner), .integer(member), position])
                } else {
                    try connection.execute(
                        "INSERT INTO \(table) (\(selfColumn), \(otherColumn)) VALUES (?, ?)",
                        [.integer(owner), .integer(member)])
                }
                changed = true
            }
        }
        let listed = Set(members)
        if replace {
            for id in current.keys.sorted() where !listed.contains(id) {
                try connection.execute(
                    "DELETE FROM \(table) WHERE \(selfColumn) = ? AND \(otherColumn) = ?",
                    [.integer(owner), .integer(id)])
                try removed(id)
                changed = true
            }
        } else if let positionColumn, changed {
            for (offset, id) in current.keys.filter({ !listed.contains($0) }).sorted().enumerated() {
                try connection.execute(
                    "UPDATE \(table) SET \(quote(positionColumn)) = ? WHERE \(selfColumn) = ? AND \(otherColumn) = ?",
                    [.integer(Int64(members.count + offset)), .integer(owner), .integer(id)])
            }
        }
        return changed
    }
}
