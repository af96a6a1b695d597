import Foundation

/// Checks a store's tables against a schema's layout, and creates or migrates them.
///
/// The layout the store was made with is kept in `_webrecord_metadata` (key `layout`). It is
/// compared with the schema's layout:
/// - a new table, column, join table or index is added (an attribute newly marked `indexed`
///   gets its index);
/// - a change that would move or hide stored data is an `incompatibleStore` error naming every
///   change, and nothing is written: a column whose type or role changed, a changed primary
///   key, a join table whose shape changed, an entity that moved to another table, a
///   relationship stored another way (foreign key, join table, position), or a new name that
///   differs only in case from a stored one (SQLite names ignore case);
/// - a column the schema no longer has is kept, unused, and stays recorded, so it cannot come
///   back later with another type.
///
/// ``check()`` only reads, and runs when a store is opened. ``migrate()`` runs inside the
/// store's first write transaction, after `BEGIN IMMEDIATE`, so it re-reads the stored layout
/// under the write lock and is undone with the rest of the transaction.
struct StoreMigrator {
    let layout: StorageLayout
    let connection: Connection

    static let layoutFormatVersion = 1

    /// What ``migrate()`` found.
    enum Outcome {
        /// The store already had the layout, or now has it.
        case ready
        /// The database holds no tables at all and its file is no longer at the store's path
        /// (an abandoned new store was removed): nothing was written, reopen the path.
        case fileMoved
    }

    /// Throws `incompatibleStore` if the store cannot hold the schema's layout. Writes nothing.
    func check() throws(WebRecordError) {
        try connection.unobserved { () throws(WebRecordError) in
            // One read transaction: another process may create the tables meanwhile.
            try connection.execute("BEGIN")
            defer { if connection.isInTransaction { try? connection.execute("ROLLBACK") } }
            _ = try plan(from: try storedLayout())
        }
    }

    /// Creates or migrates the tables. Call it inside a write transaction.
    func migrate() throws(WebRecordError) -> Outcome {
        let stored = try connection.unobserved { () throws(WebRecordError) -> JSONObject? in try storedLayout() }
        let planned = try connection.unobserved { () throws(WebRecordError) -> LayoutMigrationPlan? in
            if stored == nil, try connection.isEmptyDatabase, connection.fileHasMoved { return nil }
            return try plan(from: stored)
        }
        guard let plan = planned else { return .fileMoved }
        if stored == nil {
            try connection.execute(
                "CREATE TABLE \"_webrecord_metadata\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
        }
        for statement in plan.statements { try connection.execute(statement) }
        if !plan.statements.isEmpty { connection.forgetStatements() }
        if plan.metadata != stored.map(JSONValue.object) {
            try connection.execute(
                "INSERT OR REPLACE INTO \"_webrecord_metadata\" (\"key\", \"value\") VALUES ('layout', ?)",
                [.text(plan.metadata.serialized(sortedKeys: true))])
        }
        return .ready
    }

    // MARK: - Reading the stored layout

    private func storedLayout() throws(WebRecordError) -> JSONObject? {
        let exists = try connection.scalar(
            "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = '_webrecord_metadata'")
        guard exists == .integer(1) else {
            let tables = try connection.rows(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if !tables.isEmpty {
                let names = tables.compactMap { row -> String? in
                    if case .text(let name)? = row.first { return "'\(name)'" }
                    return nil
                }
                throw WebRecordError(
                    .incompatibleStore,
                    "the database already holds tables that WebRecord did not create (\(names.prefix(10).joined(separator: ", "))\(names.count > 10 ? ", …" : "")); open an empty or WebRecord store"
                )
            }
            return nil
        }
        return try LayoutMigrationPlan.layoutRecord(
            try connection.scalar("SELECT value FROM main.\"_webrecord_metadata\" WHERE key = 'layout'"))
    }

    // MARK: - Planning

    private func plan(from stored: JSONObject?) throws(WebRecordError) -> LayoutMigrationPlan {
        let existingIndexes = Set(
            try connection.rows("SELECT name FROM main.sqlite_master WHERE type = 'index'").compactMap {
                row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })
        return try LayoutMigrationPlan(
            layout: layout, stored: stored, existingIndexes: existingIndexes, ddl: SQLiteLayoutDDL(layout: layout))
    }
}

/// The SQLite statements that make a layout's tables, columns and indexes.
struct SQLiteLayoutDDL: LayoutDDL {
    let layout: StorageLayout

    func createStatements(for table: StorageLayout.Table) -> [String] { layout.createStatements(for: table) }

    func indexStatements(for table: StorageLayout.Table, onlyColumns: Set<String>?) -> [String] {
        layout.indexStatements(for: table, onlyColumns: onlyColumns)
    }

    func createStatements(for join: StorageLayout.JoinTable) -> [String] { layout.createStatements(for: join) }

    func addColumnStatement(_ column: StorageLayout.Column, table: String) -> String {
        var definition = "\(quote(column.name)) \(column.sqlType)"
        if case .foreignKey(let target) = column.role {
            definition += " REFERENCES \(quote(target))(\"_id\") ON DELETE SET NULL"
        }
        return "ALTER TABLE \(quote(table)) ADD COLUMN \(definition)"
    }

    func dateRewriteStatements(column: String, table: String) -> [String] {
        let name = quote(column)
        return [
            "UPDATE \(quote(table)) SET \(name) = substr(\(name), 1, 23) || '000000Z' "
                + "WHERE typeof(\(name)) = 'text' AND length(\(name)) = 24 AND substr(\(name), 24, 1) = 'Z'"
        ]
    }

}
