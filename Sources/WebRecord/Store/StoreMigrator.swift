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
        for statement in plan.statements {
            do throws(WebRecordError) {
                try connection.execute(statement)
            } catch {
                guard let key = plan.addedKeyIndexes[statement] else { throw error }
                throw LayoutMigrationPlan.repeatedKeyError(key, cause: error)
            }
        }
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
            // Another application's views count as its tables do: a file holding only views
            // is theirs too.
            let objects = try connection.rows(
                "SELECT type, name FROM main.sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
            )
            if !objects.isEmpty {
                let named = objects.compactMap { row -> (kind: String, name: String)? in
                    guard row.count == 2, case .text(let kind) = row[0], case .text(let name) = row[1] else {
                        return nil
                    }
                    return (kind, name)
                }
                throw WebRecordError(.incompatibleStore, ForeignObjects.message(named))
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

    func uniqueIndexStatement(for key: StorageLayout.SubentityKey, table: String) -> String {
        layout.uniqueIndexStatement(for: key, table: table)
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

/// What a store refuses to open: tables and views that another application made.
package enum ForeignObjects {
    /// The refusal of a database holding `objects` (`table` or `view`, and its name) that
    /// WebRecord did not make: the tables and views by name, ten at most.
    package static func message(_ objects: [(kind: String, name: String)]) -> String {
        let kinds = Set(objects.map(\.kind))
        let noun = kinds == ["view"] ? "views" : kinds.contains("view") ? "tables and views" : "tables"
        let names = objects.map { $0.kind == "view" && kinds.count > 1 ? "view '\($0.name)'" : "'\($0.name)'" }
        return
            "the database already holds \(noun) that WebRecord did not create (\(names.prefix(10).joined(separator: ", "))\(names.count > 10 ? ", …" : "")); open an empty or WebRecord store"
    }
}
