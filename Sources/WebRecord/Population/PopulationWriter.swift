/// Writes a population's rows and links to the store (the write half of steps 4–6).
///
/// New rows are inserted table by table, up to 64 rows per `INSERT`; existing rows are
/// updated only when a value differs from what is stored, so a re-import of the same
/// response writes nothing. Statements are prepared once per table and reused, and each
/// row's values are bound straight from its ``RowState`` array. Foreign-key checks are
/// deferred to the commit, so rows may refer to each other in any order.
struct PopulationWriter {
    let store: SQLiteDatabase
    let connection: Connection
    /// Rows whose links changed outside their own columns (join tables, dropped members).
    private(set) var relinkedOwners = Set<ObjectIdentifier>()
    /// Whether a statement changed rows the population does not hold (so snapshots may be stale).
    private(set) var touchedOtherRows = false

    init(store: SQLiteDatabase, connection: Connection) {
        self.store = store
        self.connection = connection
    }

    /// Inserts new rows and updates changed ones; marks both as changed.
    ///
    /// New rows are written table by table, in the order each table is first met, so each
    /// table's pages stay in cache while its rows go in; and several rows per `INSERT`, which
    /// spares SQLite most of its per-statement work.
    mutating func writeRows(_ rows: [RowState]) throws(WebRecordError) {
        try connection.execute("PRAGMA defer_foreign_keys = ON")
        var arguments: [DatabaseValue] = []
        for group in Self.groupedByTable(rows.filter(\.isNew)) {
            guard let table = group.first?.table else { continue }
            let width = table.columns.count + 2
            let batchSize = max(1, min(Self.insertBatchSize, connection.maximumVariableCount / width))
            let batch = batchSize > 1 && group.count >= batchSize ? try connection.cachedStatement(table.insertSQL(rows: batchSize)) : nil
            let single = try connection.cachedStatement(table.insertSQL)
            arguments.reserveCapacity(batchSize * width)
            var start = 0
            while start < group.count {
                let count = batch != nil && group.count - start >= batchSize ? batchSize : 1
                arguments.removeAll(keepingCapacity: true)
                for row in group[start..<(start + count)] {
                    arguments.append(.integer(row.rowID))
                    arguments.append(.text(row.entityName))
                    arguments.append(contentsOf: row.values)
                    row.isChanged = true
                }
                try (count == 1 ? single : batch ?? single).execute(arguments)
                start += count
            }
        }
        var statements: [ObjectIdentifier: Statement] = [:]
        for row in rows where !row.isNew && (row.isChanged || row.hasChangedValues) {
            let statement = try statement(row.table.updateSQL, for: row.table, in: &statements)
            arguments.removeAll(keepingCapacity: true)
            arguments.append(.text(row.entityName))
            arguments.append(contentsOf: row.values)
            arguments.append(.integer(row.rowID))
            try statement.execute(arguments)
            row.isChanged = true
        }
    }

    /// Rows per multi-row `INSERT`: enough to spread SQLite's per-statement cost thin, few
    /// enough that the statement stays small.
    static let insertBatchSize = 64

    /// `rows` grouped by table, tables in the order first met, rows in their order within each.
    private static func groupedByTable(_ rows: [RowState]) -> [[RowState]] {
        var groups: [[RowState]] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        for row in rows {
            let table = ObjectIdentifier(row.table)
            if let index = groupIndex[table] {
                groups[index].append(row)
            } else {
                groupIndex[table] = groups.count
                groups.append([row])
            }
        }
        return groups
    }

    /// The prepared statement for `sql`, looked up once per table rather than once per row.
    private func statement(
        _ sql: String, for table: TablePlan, in statements: inout [ObjectIdentifier: Statement]
    ) throws(WebRecordError) -> Statement {
        if let statement = statements[ObjectIdentifier(table)] { return statement }
        let statement = try connection.cachedStatement(sql)
        statements[ObjectIdentifier(table)] = statement
        return statement
    }

    /// Runs the link operations the marshaler collected.
    mutating func writeLinks(_ operations: [LinkOperation], deleter: inout RecordDeleter) throws(WebRecordError) {
        for operation in operations {
            switch operation {
            case let .clearOthers(table, column, value, keep):
                var sql = "UPDATE \(quote(table)) SET \(quote(column)) = NULL WHERE \(quote(column)) = ?"
                var arguments = [value]
                if let keep {
                    sql += " AND \"_id\" <> ?"
                    arguments.append(.integer(keep))
                }
                try connection.execute(sql, arguments)
                if connection.changes > 0 { touchedOtherRows = true }
            case let .foreignKeyMembers(owner, table, column, positionColumn, members, replace, deleteRule, _):
                try writeForeignKeyMembers(
                    owner: owner, table: table, column: column, positionColumn: positionColumn, members: members,
                    replace: replace, deleteRule: deleteRule, deleter: &deleter)
            case let .joinMembers(owner, table, selfColumn, otherColumn, positionColumn, members, replace, deleteRule, destination):
                try writeJoinMembers(
                    owner: owner, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                    positionColumn: positionColumn, members: members, replace: replace, deleteRule: deleteRule,
                    destinationTable: store.schema.entity(named: destination)?.rootName ?? destination, deleter: &deleter)
            }
        }
    }

    private mutating func writeForeignKeyMembers(
        owner: RowState, table: String, column: String, positionColumn: String?, members: [Int64], replace: Bool,
        deleteRule: Relationship.DeleteRule, deleter: inout RecordDeleter
    ) throws(WebRecordError) {
        guard !owner.isNew else { return }
        let listed = Set(members)
        if replace {
            let current = try connection.rows(
                "SELECT \"_id\" FROM \(quote(table)) WHERE \(quote(column)) = ?", [.integer(owner.rowID)])
            for row in current {
                guard case .integer(let id)? = row.first, !listed.contains(id) else { continue }
                relinkedOwners.insert(ObjectIdentifier(owner))
                touchedOtherRows = true
                if deleteRule == .cascade {
                    try deleter.delete(rowID: id, table: table)
                } else {
                    let clearPosition = positionColumn.map { ", \(quote($0)) = NULL" } ?? ""
                    try connection.execute(
                        "UPDATE \(quote(table)) SET \(quote(column)) = NULL\(clearPosition) WHERE \"_id\" = ?", [.integer(id)])
                }
            }
        } else if let positionColumn, !members.isEmpty {
            // Ordered union: members the response did not list keep their order, after the listed ones.
            let placeholders = RecordResolver.placeholders(members.count)
            try connection.execute(
                "UPDATE \(quote(table)) SET \(quote(positionColumn)) = ? + coalesce(\(quote(positionColumn)), 0) WHERE \(quote(column)) = ? AND \(quote(positionColumn)) < ? AND \"_id\" NOT IN (\(placeholders))",
                [.integer(Int64(members.count)), .integer(owner.rowID), .integer(Int64(members.count))] + members.map { .integer($0) })
            if connection.changes > 0 {
                touchedOtherRows = true
                relinkedOwners.insert(ObjectIdentifier(owner))
            }
        }
    }

    private mutating func writeJoinMembers(
        owner: RowState, table: String, selfColumn: String, otherColumn: String, positionColumn: String?,
        members: [Int64], replace: Bool, deleteRule: Relationship.DeleteRule, destinationTable: String,
        deleter: inout RecordDeleter
    ) throws(WebRecordError) {
        var current: [Int64: DatabaseValue] = [:]
        if !owner.isNew {
            let positionSelect = positionColumn.map { ", \(quote($0))" } ?? ", NULL"
            for row in try connection.rows(
                "SELECT \(quote(otherColumn))\(positionSelect) FROM \(quote(table)) WHERE \(quote(selfColumn)) = ?",
                [.integer(owner.rowID)])
            {
                if case .integer(let id)? = row.first { current[id] = row.count > 1 ? row[1] : .null }
            }
        }
        var changed = false
        for (index, member) in members.enumerated() {
            let position: DatabaseValue = positionColumn == nil ? .null : .integer(Int64(index))
            if let existing = current[member] {
                if positionColumn != nil, existing != position, let positionColumn {
                    try connection.execute(
                        "UPDATE \(quote(table)) SET \(quote(positionColumn)) = ? WHERE \(quote(selfColumn)) = ? AND \(quote(otherColumn)) = ?",
                        [position, .integer(owner.rowID), .integer(member)])
                    changed = true
                }
            } else {
                if let positionColumn {
                    try connection.execute(
                        "INSERT INTO \(quote(table)) (\(quote(selfColumn)), \(quote(otherColumn)), \(quote(positionColumn))) VALUES (?, ?, ?)",
                        [.integer(owner.rowID), .integer(member), position])
                } else {
                    try connection.execute(
                        "INSERT INTO \(quote(table)) (\(quote(selfColumn)), \(quote(otherColumn))) VALUES (?, ?)",
                        [.integer(owner.rowID), .integer(member)])
                }
                changed = true
            }
        }
        let listed = Set(members)
        if replace {
            for id in current.keys.sorted() where !listed.contains(id) {
                try connection.execute(
                    "DELETE FROM \(quote(table)) WHERE \(quote(selfColumn)) = ? AND \(quote(otherColumn)) = ?",
                    [.integer(owner.rowID), .integer(id)])
                if deleteRule == .cascade { try deleter.delete(rowID: id, table: destinationTable) }
                changed = true
            }
        } else if let positionColumn, changed {
            for (offset, id) in current.keys.filter({ !listed.contains($0) }).sorted().enumerated() {
                try connection.execute(
                    "UPDATE \(quote(table)) SET \(quote(positionColumn)) = ? WHERE \(quote(selfColumn)) = ? AND \(quote(otherColumn)) = ?",
                    [.integer(Int64(members.count + offset)), .integer(owner.rowID), .integer(id)])
            }
        }
        if changed { relinkedOwners.insert(ObjectIdentifier(owner)) }
    }
}
