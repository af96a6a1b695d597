import Foundation

/// Creates a store's tables, or migrates an existing store in place.
///
/// The layout the store was made with is kept in `_webrecord_metadata` (key `layout`). On open,
/// the schema's layout is compared with it:
/// - a new table, column, join table or index is added (an attribute newly marked `indexed`
///   gets its index);
/// - a column whose type or role changed, a changed primary key, or a join table whose shape
///   changed is an `incompatibleStore` error naming every change, and nothing is written;
/// - a column the schema no longer has is kept, unused, and stays recorded, so it cannot come
///   back later with another type.
struct StoreMigrator {
    let layout: StorageLayout
    let connection: Connection
    let isFile: Bool

    static let layoutFormatVersion = 1

    func migrate() throws(WebRecordError) {
        let stored = try storedLayout()
        let plan = try plan(from: stored)
        if isFile {
            if (try connection.scalar("PRAGMA journal_mode")) != .text("wal") {
                try connection.execute("PRAGMA journal_mode = WAL")
            }
            try connection.execute("PRAGMA synchronous = NORMAL")
        }
        try connection.execute("PRAGMA foreign_keys = ON")
        guard !plan.statements.isEmpty || stored == nil else { return }
        do {
            try connection.inTransaction {
                if stored == nil {
                    try connection.execute("CREATE TABLE IF NOT EXISTS \"_webrecord_metadata\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
                }
                for statement in plan.statements { try connection.execute(statement) }
                try connection.execute(
                    "INSERT OR REPLACE INTO \"_webrecord_metadata\" (\"key\", \"value\") VALUES ('layout', ?)",
                    [.text(plan.metadata.serialized(sortedKeys: true))])
            }
        } catch let error as WebRecordError {
            throw error
        } catch {
            throw WebRecordError(.storeError, "migration failed: \(error)")
        }
    }

    // MARK: - Reading the stored layout

    private func storedLayout() throws(WebRecordError) -> JSONObject? {
        let exists = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_webrecord_metadata'")
        guard exists == .integer(1) else {
            let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if !tables.isEmpty {
                throw WebRecordError(
                    .incompatibleStore, "the database already holds tables that WebRecord did not create; open an empty or WebRecord store")
            }
            return nil
        }
        guard case .text(let text)? = try connection.scalar("SELECT value FROM \"_webrecord_metadata\" WHERE key = 'layout'"),
            let object = (try? JSONReader().read(text))?.objectValue
        else {
            throw WebRecordError(.incompatibleStore, "the store's layout record is missing or unreadable")
        }
        let version = object["version"]?.int64Value ?? 0
        guard version == Int64(Self.layoutFormatVersion) else {
            throw WebRecordError(.incompatibleStore, "the store's layout version \(version) is not supported (expected \(Self.layoutFormatVersion))")
        }
        return object
    }

    // MARK: - Planning

    private struct Plan {
        var statements: [String] = []
        var metadata: JSONValue
    }

    private func plan(from stored: JSONObject?) throws(WebRecordError) -> Plan {
        var storedTables = stored?["tables"]?.objectValue ?? [:]
        var storedJoins = stored?["joinTables"]?.objectValue ?? [:]
        var statements: [String] = []
        var changes: [String] = []
        let existingIndexes = Set(
            try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index'").compactMap { row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })

        for table in layout.tables {
            guard let old = storedTables[table.name]?.objectValue else {
                statements += layout.createStatements(for: table)
                storedTables[table.name] = Self.describe(table)
                continue
            }
            var columns = old["columns"]?.objectValue ?? [:]
            let oldKey = old["primaryKey"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if oldKey != table.primaryKeyColumns {
                changes.append("\(table.name): primary key changed from \(Self.list(oldKey)) to \(Self.list(table.primaryKeyColumns))")
            }
            for column in table.columns {
                if let signature = columns[column.name]?.stringValue {
                    if signature != column.signature {
                        changes.append("\(table.name).\(column.name): changed from \(signature) to \(column.signature)")
                    }
                } else {
                    statements.append(addColumnStatement(column, table: table.name))
                    columns[column.name] = .string(column.signature)
                }
            }
            // Indexes on new columns, and on existing attributes newly marked `indexed`.
            let missingIndexes = table.indexedColumns.filter { !existingIndexes.contains("_index_\(table.name)_\($0)") }
            statements += layout.indexStatements(for: table, onlyColumns: Set(missingIndexes))
            var updated = old
            updated["columns"] = .object(columns)
            storedTables[table.name] = .object(updated)
        }
        for join in layout.joinTables {
            let description = Self.describe(join)
            if let old = storedJoins[join.name] {
                if old != description {
                    changes.append("\(join.name): join table changed from \(old.serialized(sortedKeys: true)) to \(description.serialized(sortedKeys: true))")
                }
            } else {
                statements += layout.createStatements(for: join)
                storedJoins[join.name] = description
            }
        }
        if !changes.isEmpty {
            throw WebRecordError(
                .incompatibleStore,
                "the schema changed incompatibly since the store was created; the store was not modified: "
                    + changes.joined(separator: "; "))
        }
        let metadata: JSONValue = .object([
            "version": .integer(Int64(Self.layoutFormatVersion)),
            "tables": .object(storedTables),
            "joinTables": .object(storedJoins),
        ])
        return Plan(statements: statements, metadata: metadata)
    }

    private func addColumnStatement(_ column: StorageLayout.Column, table: String) -> String {
        var definition = "\(quote(column.name)) \(column.sqlType)"
        if case .foreignKey(let target) = column.role {
            definition += " REFERENCES \(quote(target))(\"_id\") ON DELETE SET NULL"
        }
        return "ALTER TABLE \(quote(table)) ADD COLUMN \(definition)"
    }

    private static func describe(_ table: StorageLayout.Table) -> JSONValue {
        var columns = JSONObject()
        for column in table.columns { columns[column.name] = .string(column.signature) }
        return .object([
            "columns": .object(columns),
            "primaryKey": .array(table.primaryKeyColumns.map { .string($0) }),
        ])
    }

    private static func describe(_ join: StorageLayout.JoinTable) -> JSONValue {
        .object([
            "owner": .string(join.ownerTable), "target": .string(join.targetTable),
            "position": .bool(join.hasPosition), "inversePosition": .bool(join.hasInversePosition),
        ])
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "(none)" : names.joined(separator: "+")
    }
}
