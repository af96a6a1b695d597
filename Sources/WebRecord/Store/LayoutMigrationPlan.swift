/// What a store must run to hold a schema's layout, and the layout record it keeps after: the
/// comparison of the schema's layout with the one a store recorded, shared by every store
/// (each writes its own statements through a ``LayoutDDL``).
///
/// - A new table, column, join table or index is added.
/// - A change that would move or hide stored data is an `incompatibleStore` error naming every
///   change (see `Docs/StorageLayout.md`, "Migration").
/// - A column the schema no longer has is kept, unused, and stays recorded.
package struct LayoutMigrationPlan {
    /// The statements to run, in order; none when the store has the layout already.
    package var statements: [String]
    /// The layout record to keep (the `layout` row of `_webrecord_metadata`).
    package var metadata: JSONValue
    /// The statements among ``statements`` that add a sub-entity key's unique index to a table
    /// that holds rows already, with what the key is (`Parent.parentID`): rows stored before
    /// the key was kept unique may repeat it, and the index then cannot be made.
    package var addedKeyIndexes: [String: String] = [:]

    /// The layout record a store keeps, read from the `value` of its `layout` row.
    ///
    /// - Throws: `incompatibleStore` when it is missing, unreadable or of another format version.
    package static func layoutRecord(_ value: DatabaseValue?) throws(WebRecordError) -> JSONObject {
        guard case .text(let text)? = value, let object = (try? JSONReader().read(text))?.objectValue else {
            throw WebRecordError(.incompatibleStore, "the store's layout record is missing or unreadable")
        }
        let version = object["version"]?.int64Value ?? 0
        guard version == Int64(StoreMigrator.layoutFormatVersion) else {
            throw WebRecordError(
                .incompatibleStore,
                "the store's layout version \(version) is not supported (expected \(StoreMigrator.layoutFormatVersion))"
            )
        }
        return object
    }

    /// Compares `layout` with the `stored` layout record (nil for a store with no tables yet),
    /// given the names of the indexes the store has.
    ///
    /// - Throws: `incompatibleStore` naming every change that cannot be made in place.
    package init(
        layout: StorageLayout, stored: JSONObject?, existingIndexes: Set<String>, ddl: some LayoutDDL
    ) throws(WebRecordError) {
        var storedTables = stored?["tables"]?.objectValue ?? [:]
        var storedJoins = stored?["joinTables"]?.objectValue ?? [:]
        var storedEntities = stored?["entities"]?.objectValue ?? [:]
        var storedRelationships = stored?["relationships"]?.objectValue ?? [:]
        var statements: [String] = []
        var changes: [String] = []
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
                statements += ddl.createStatements(for: table)
                storedTables[table.name] = Self.describe(
                    table, holdsSubentities: Self.holdsSubentities(table, in: layout))
                continue
            }
            var columns = old["columns"]?.objectValue ?? [:]
            let oldKey = old["primaryKey"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if oldKey != table.primaryKeyColumns {
                changes.append(
                    "\(table.name): primary key changed from \(Self.list(oldKey)) to \(Self.list(table.primaryKeyColumns))"
                )
            }
            // A store recorded before sub-entity keys were has none recorded: each key is added.
            // One that records them (an empty record included) records every key its entities
            // had, so an entity it knew that has none recorded had no key of its own.
            let oldSubentityKeys = old["subentityKeys"]?.objectValue
            for key in table.subentityKeys {
                let oldColumns = oldSubentityKeys?[key.entity]?.arrayValue?.compactMap(\.stringValue)
                if let oldColumns, oldColumns != key.columns {
                    changes.append(
                        "\(key.entity): primary key changed from \(Self.list(oldColumns)) to \(Self.list(key.columns))")
                } else if oldColumns == nil, oldSubentityKeys != nil, storedEntities[key.entity] != nil {
                    changes.append("\(key.entity): primary key changed from (none) to \(Self.list(key.columns))")
                } else if !existingIndexes.contains(key.indexName(table: table.name)) {
                    let statement = ddl.uniqueIndexStatement(for: key, table: table.name)
                    statements.append(statement)
                    addedKeyIndexes[statement] = "\(key.entity).\(key.columns.joined(separator: "+"))"
                }
            }
            // The key of an entity the schema no longer has stays recorded, as the entity does
            // ("Removed: kept"); one the schema still has, without its key, changed its key.
            var keptKeys: [String: JSONValue] = [:]
            for (entity, columns) in (oldSubentityKeys ?? [:]).sorted(by: { $0.key < $1.key })
            where !table.subentityKeys.contains(where: { $0.entity == entity }) {
                guard layout.entityTables[entity] != nil else {
                    keptKeys[entity] = columns
                    continue
                }
                let oldColumns = columns.arrayValue?.compactMap(\.stringValue) ?? []
                changes.append("\(entity): primary key changed from \(Self.list(oldColumns)) to (none)")
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
                    statements.append(ddl.addColumnStatement(column, table: table.name))
                    columns[column.name] = .string(column.signature)
                }
            }
            // Indexes on new columns, and on existing attributes newly marked `indexed`.
            let missingIndexes = table.indexedColumns.filter { !existingIndexes.contains("_index_\(table.name)_\($0)") }
            statements += ddl.indexStatements(for: table, onlyColumns: Set(missingIndexes))
            var updated = old
            updated["columns"] = .object(columns)
            if Self.holdsSubentities(table, in: layout) || !table.subentityKeys.isEmpty || !keptKeys.isEmpty {
                var keys = Self.describeSubentityKeys(table).objectValue ?? [:]
                for (entity, columns) in keptKeys { keys[entity] = columns }
                updated["subentityKeys"] = .object(keys)
            }
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
                statements += ddl.createStatements(for: join)
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
        // Dates stored before they kept nanoseconds (`.SSSZ`) are rewritten in the nine-digit
        // form, so that every stored date sorts with the others in time order.
        if stored != nil, stored?["dates"]?.stringValue != Self.dateForm {
            for (table, description) in (stored?["tables"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                let columns = description.objectValue?["columns"]?.objectValue ?? [:]
                for (column, signature) in columns.sorted(by: { $0.key < $1.key })
                where signature.stringValue == "attribute date" {
                    statements += ddl.dateRewriteStatements(column: column, table: table)
                }
            }
        }
        let metadata: JSONValue = .object([
            "version": .integer(Int64(StoreMigrator.layoutFormatVersion)),
            "dates": .string(Self.dateForm),
            "tables": .object(storedTables),
            "joinTables": .object(storedJoins),
            "entities": .object(storedEntities),
            "relationships": .object(storedRelationships),
        ])
        self.statements = statements
        self.metadata = metadata
    }

    /// The stored form of dates, as the layout record names it: nine fraction digits. A store
    /// whose record names no form keeps milliseconds (`2012-11-21T02:33:42.000Z`).
    static let dateForm = "nanoseconds"

    /// Whether `table` holds the records of more than one entity (a hierarchy): its record
    /// then names every sub-entity key, an empty one included, so that a key a sub-entity gains
    /// later is told from a store recorded before sub-entity keys were.
    private static func holdsSubentities(_ table: StorageLayout.Table, in layout: StorageLayout) -> Bool {
        layout.entityTables.values.lazy.filter { $0 == table.name }.dropFirst().first != nil
    }

    private static func describe(_ table: StorageLayout.Table, holdsSubentities: Bool) -> JSONValue {
        var columns = JSONObject()
        for column in table.columns { columns[column.name] = .string(column.signature) }
        var description: JSONObject = [
            "columns": .object(columns),
            "primaryKey": .array(table.primaryKeyColumns.map { .string($0) }),
        ]
        if holdsSubentities || !table.subentityKeys.isEmpty {
            description["subentityKeys"] = describeSubentityKeys(table)
        }
        return .object(description)
    }

    private static func describeSubentityKeys(_ table: StorageLayout.Table) -> JSONValue {
        var keys = JSONObject()
        for key in table.subentityKeys { keys[key.entity] = .array(key.columns.map { .string($0) }) }
        return .object(keys)
    }

    /// The error for a sub-entity key whose unique index could not be added to a store whose
    /// rows, written before the key was kept unique, repeat it.
    package static func repeatedKeyError(_ key: String, cause: WebRecordError) -> WebRecordError {
        WebRecordError(
            .incompatibleStore,
            "the stored records of \(key) repeat a key, so it cannot be kept unique (records stored before WebRecord kept a sub-entity's key unique may be duplicated); delete the repeated rows, keeping one for each key, and open the store again; the store was not modified",
            cause: cause)
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

/// The statements that make a layout's tables, columns and indexes in one store's SQL.
package protocol LayoutDDL {
    /// `CREATE TABLE` for `table`, then its indexes.
    func createStatements(for table: StorageLayout.Table) -> [String]
    /// The indexes of `table`: its primary key's unique index, and its other indexed columns;
    /// only those of `onlyColumns` (and no primary key's) when it is given.
    func indexStatements(for table: StorageLayout.Table, onlyColumns: Set<String>?) -> [String]
    /// The unique index that keeps the key a sub-entity declares unique (`_pk_<Table>_<Entity>`).
    func uniqueIndexStatement(for key: StorageLayout.SubentityKey, table: String) -> String
    /// `CREATE TABLE` for the join table `join`, then its index.
    func createStatements(for join: StorageLayout.JoinTable) -> [String]
    /// The statement that adds `column` to the existing table `table`.
    func addColumnStatement(_ column: StorageLayout.Column, table: String) -> String
    /// The statements that rewrite the dates of the column `column` of `table`, stored to the
    /// millisecond (`2012-11-21T02:33:42.000Z`), in the nine-digit form
    /// (`2012-11-21T02:33:42.000000000Z`).
    func dateRewriteStatements(column: String, table: String) -> [String]
}
