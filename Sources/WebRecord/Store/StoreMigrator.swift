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
        let planned = try connection.unobserved { () throws(WebRecordError) -> Plan? in
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
        guard
            case .text(let text)? = try connection.scalar(
                "SELECT value FROM main.\"_webrecord_metadata\" WHERE key = 'layout'"),
            let object = (try? JSONReader().read(text))?.objectValue
        else {
            throw WebRecordError(.incompatibleStore, "the store's layout record is missing or unreadable")
        }
        let version = object["version"]?.int64Value ?? 0
        guard version == Int64(Self.layoutFormatVersion) else {
            throw WebRecordError(
                .incompatibleStore,
                "the store's layout version \(version) is not supported (expected \(Self.layoutFormatVersion))")
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
        var storedEntities = stored?["entities"]?.objectValue ?? [:]
        var storedRelationships = stored?["relationships"]?.objectValue ?? [:]
        var statements: [String] = []
        var changes: [String] = []
        let existingIndexes = Set(
            try connection.rows("SELECT name FROM main.sqlite_master WHERE type = 'index'").compactMap {
                row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })
        // SQLite compares names without regard to case: a new name that matches a stored one
        // only that way would meet "already exists" (or worse, the old table's data).
        let storedTableNames = Array(storedTables.keys) + Array(storedJoins.keys)

        for table in layout.tables {
            guard let old = storedTables[table.name]?.objectValue else {
                if let clash = SQLiteNames.caseVariant(of: table.name, in: storedTableNames) {
                    changes.append(
                        "\(table.name): table name differs only in case from the stored table \(clash) (SQLite names ignore case)"
                    )
                    continue
                }
                statements += layout.createStatements(for: table)
                storedTables[table.name] = Self.describe(table)
                continue
            }
            var columns = old["columns"]?.objectValue ?? [:]
            let oldKey = old["primaryKey"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if oldKey != table.primaryKeyColumns {
                changes.append(
                    "\(table.name): primary key changed from \(Self.list(oldKey)) to \(Self.list(table.primaryKeyColumns))"
                )
            }
            for column in table.columns {
                if let signature = columns[column.name]?.stringValue {
                    if signature != column.signature {
                        changes.append(
                            "\(column.displayName(table: table.name)): changed from \(signature) to \(column.signature)"
                        )
                    }
                } else if let clash = SQLiteNames.caseVariant(of: column.name, in: Array(columns.keys)) {
                    changes.append(
                        "\(column.displayName(table: table.name)): column name differs only in case from the stored column \(table.name).\(clash) (SQLite names ignore case)"
                    )
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
                    changes.append(
                        "\(join.name): join table changed from \(old.serialized(sortedKeys: true)) to \(description.serialized(sortedKeys: true))"
                    )
                }
            } else if let clash = SQLiteNames.caseVariant(of: join.name, in: storedTableNames) {
                changes.append(
                    "\(join.name): join table name differs only in case from the stored table \(clash) (SQLite names ignore case)"
                )
            } else {
                statements += layout.createStatements(for: join)
                storedJoins[join.name] = description
            }
        }
        for (entity, table) in layout.entityTables.sorted(by: { $0.key < $1.key }) {
            if let old = storedEntities[entity]?.stringValue, old != table {
                changes.append(
                    "\(entity): records moved from table \(old) to table \(table); the stored records would no longer be read"
                )
            }
            storedEntities[entity] = .string(table)
        }
        // A store made before relationships were recorded is described as it is now.
        for (name, signature) in layout.relationshipSignatures.sorted(by: { $0.key < $1.key }) {
            if let old = storedRelationships[name]?.stringValue, old != signature {
                changes.append(
                    "\(name): relationship stored as \(old), would be stored as \(signature); its stored links would no longer be read"
                )
            }
            storedRelationships[name] = .string(signature)
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
            "entities": .object(storedEntities),
            "relationships": .object(storedRelationships),
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
