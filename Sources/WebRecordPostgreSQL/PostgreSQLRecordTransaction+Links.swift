import WebRecord

/// Links outside the rows a population writes: foreign keys on other rows, and join rows.
extension PostgreSQLRecordTransaction {
    package func clearReferences(
        in table: String, column: String, to value: DatabaseValue, except keep: Int64?
    ) throws(WebRecordError) -> Bool {
        var sql = "UPDATE \(pgQuote(table)) SET \(pgQuote(column)) = NULL WHERE \(pgQuote(column)) = $1"
        var arguments = [value]
        if let keep {
            sql += " AND \"_id\" <> $2"
            arguments.append(.integer(keep))
        }
        return try connection.execute(sql, arguments).changedRowCount > 0
    }

    /// Reads the members in `_id` order (the order SQLite's rowid gives), then clears the
    /// dropped ones with one `UPDATE` over an array of their `_id`s.
    package func dropMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String?, keeping: Set<Int64>,
        clearing: Bool
    ) throws(WebRecordError) -> [Int64] {
        let current = try connection.rows(
            "SELECT \"_id\" FROM \(pgQuote(table)) WHERE \(pgQuote(column)) = $1 ORDER BY \"_id\"", [.integer(owner)])
        var dropped: [Int64] = []
        for row in current {
            guard case .integer(let id)? = row.first, !keeping.contains(id) else { continue }
            dropped.append(id)
        }
        if clearing, !dropped.isEmpty {
            let clearPosition = positionColumn.map { ", \(pgQuote($0)) = NULL" } ?? ""
            try connection.execute(
                "UPDATE \(pgQuote(table)) SET \(pgQuote(column)) = NULL\(clearPosition) WHERE \"_id\" = ANY($1::bigint[])",
                [try PostgreSQLArray.literal(dropped.map { .integer($0) })])
        }
        return dropped
    }

    package func moveMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String, after members: [Int64]
    ) throws(WebRecordError) -> Bool {
        guard !members.isEmpty else { return false }
        let position = pgQuote(positionColumn)
        let result = try connection.execute(
            "UPDATE \(pgQuote(table)) SET \(position) = $1::bigint + coalesce(\(position), 0) WHERE \(pgQuote(column)) = $2 AND \(position) < $1::bigint AND NOT (\"_id\" = ANY($3::bigint[]))",
            [
                .integer(Int64(members.count)), .integer(owner),
                try PostgreSQLArray.literal(members.map { .integer($0) }),
            ])
        return result.changedRowCount > 0
    }

    /// Reads the owner's join rows once; then one statement for the positions that changed,
    /// one for the rows missing, one `DELETE` per member removed (each reported right after),
    /// and one to renumber the members kept.
    package func setJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        ownerIsNew: Bool, members: [Int64], replace: Bool, removed: (Int64) throws(WebRecordError) -> Void
    ) throws(WebRecordError) -> Bool {
        let (table, selfColumn, otherColumn) = (pgQuote(table), pgQuote(ownerColumn), pgQuote(memberColumn))
        var current: [Int64: DatabaseValue] = [:]
        if !ownerIsNew {
            let positionSelect = positionColumn.map { ", \(pgQuote($0))" } ?? ", NULL"
            for row in try connection.rows(
                "SELECT \(otherColumn)\(positionSelect) FROM \(table) WHERE \(selfColumn) = $1", [.integer(owner)])
            {
                if case .integer(let id)? = row.first { current[id] = row.count > 1 ? row[1] : .null }
            }
        }
        var moved: [(member: Int64, position: Int64)] = []
        var added: [(member: Int64, position: Int64)] = []
        for (index, member) in members.enumerated() {
            if let existing = current[member] {
                if positionColumn != nil, existing != .integer(Int64(index)) { moved.append((member, Int64(index))) }
            } else {
                added.append((member, Int64(index)))
            }
        }
        try setPositions(
            moved, in: table, positionColumn: positionColumn, selfColumn: selfColumn, otherColumn: otherColumn,
            owner: owner)
        if !added.isEmpty {
            let memberArray = try PostgreSQLArray.literal(added.map { .integer($0.member) })
            if let positionColumn {
                try connection.execute(
                    "INSERT INTO \(table) (\(selfColumn), \(otherColumn), \(pgQuote(positionColumn))) SELECT $1::bigint, m, p FROM unnest($2::bigint[], $3::bigint[]) AS v(m, p)",
                    [.integer(owner), memberArray, try PostgreSQLArray.literal(added.map { .integer($0.position) })])
            } else {
                try connection.execute(
                    "INSERT INTO \(table) (\(selfColumn), \(otherColumn)) SELECT $1::bigint, m FROM unnest($2::bigint[]) AS v(m)",
                    [.integer(owner), memberArray])
            }
        }
        var changed = !moved.isEmpty || !added.isEmpty
        let listed = Set(members)
        if replace {
            for id in current.keys.sorted() where !listed.contains(id) {
                try connection.execute(
                    "DELETE FROM \(table) WHERE \(selfColumn) = $1 AND \(otherColumn) = $2",
                    [.integer(owner), .integer(id)])
                try removed(id)
                changed = true
            }
        } else if positionColumn != nil, changed {
            let kept = current.keys.filter { !listed.contains($0) }.sorted().enumerated().map {
                (member: $0.element, position: Int64(members.count + $0.offset))
            }
            try setPositions(
                kept, in: table, positionColumn: positionColumn, selfColumn: selfColumn, otherColumn: otherColumn,
                owner: owner)
        }
        return changed
    }

    /// Sets the position of each of `rows` among the owner's join rows, in one statement.
    private func setPositions(
        _ rows: [(member: Int64, position: Int64)], in table: String, positionColumn: String?, selfColumn: String,
        otherColumn: String, owner: Int64
    ) throws(WebRecordError) {
        guard let positionColumn, !rows.isEmpty else { return }
        let position = pgQuote(positionColumn)
        try connection.execute(
            "UPDATE \(table) AS j SET \(position) = v.p FROM unnest($2::bigint[], $3::bigint[]) AS v(m, p) WHERE j.\(selfColumn) = $1 AND j.\(otherColumn) = v.m",
            [
                .integer(owner), try PostgreSQLArray.literal(rows.map { .integer($0.member) }),
                try PostgreSQLArray.literal(rows.map { .integer($0.position) }),
            ])
    }
}
