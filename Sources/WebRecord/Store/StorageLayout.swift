/// How a schema maps onto SQLite tables. Documented in `Docs/StorageLayout.md`.
///
/// - One table per root entity, named after it, holding its whole hierarchy.
/// - `_id INTEGER PRIMARY KEY` (the rowid) and `_entity TEXT` (the concrete entity) in each.
/// - One column per attribute, named after it.
/// - A to-one relationship is a foreign-key column named after it, holding the destination's `_id`.
///   A one-to-many keeps that column on the to-one side only; an ordered one also keeps
///   `_position_<name>` there. A one-to-one keeps it on one side: the side whose primary key
///   is the relationship, else the side whose `Entity.relationship` sorts first.
/// - A many-to-many, or a to-many with no inverse, is a join table `_<Entity>_<relationship>`
///   with `owner`, `target` and, when ordered, `position` (and `inverse_position`).
/// - A unique index `_pk_<Table>` on the primary-key column(s), and `_pk_<Table>_<Entity>` on
///   those of each sub-entity that declares a key under a keyless parent.
///
/// The layout depends on the schema alone: every ``RecordStorage`` lays a schema out this way.
package struct StorageLayout: Sendable, Equatable {
    /// A column of a table: its name and what it stores.
    package struct Column: Sendable, Hashable {
        /// What a column stores: `_id` or `_entity`, an attribute, a foreign key, a position.
        package enum Role: Sendable, Hashable {
            case system
            case attribute(AttributeType)
            case foreignKey(table: String)
            case position
        }

        /// The column's name.
        package var name: String
        /// What the column stores.
        package var role: Role
        /// The entity that declares the attribute or relationship the column stores; nil for
        /// `_id` and `_entity`.
        package var entity: String? = nil

        /// How an error names the column: `Entity.property`, with the table when the
        /// property belongs to a sub-entity (`InwardLink.issue (column Link.issue)`).
        package func displayName(table: String) -> String {
            guard let entity, entity != table else { return "\(table).\(name)" }
            return "\(entity).\(name) (column \(table).\(name))"
        }

        var sqlType: String {
            switch role {
            case .system: name == "_entity" ? "TEXT" : "INTEGER"
            case .attribute(let type): type.sqlType
            case .foreignKey, .position: "INTEGER"
            }
        }

        /// How the column is described in the store's metadata (compared on open).
        package var signature: String {
            switch role {
            case .system: "system"
            case .attribute(let type): "attribute \(type.rawValue)"
            case .foreignKey(let table): "foreign key to \(table)"
            case .position: "position"
            }
        }
    }

    /// The table of a root entity's hierarchy.
    package struct Table: Sendable, Equatable {
        /// The table's name, the root entity's.
        package var name: String
        /// Its columns, `_id` and `_entity` first.
        package var columns: [Column]
        /// The primary key's columns, in key order (the unique index `_pk_<Table>`).
        package var primaryKeyColumns: [String]
        /// The columns with an index of their own (`_index_<Table>_<column>`).
        package var indexedColumns: [String]
        /// The keys that sub-entities of a keyless parent declare, each kept unique by its own
        /// index (DESIGN §3.3).
        package var subentityKeys: [SubentityKey] = []

        /// Every column after `_id` and `_entity`, in layout order: the order of a
        /// ``TableRow``'s values.
        package var valueColumns: [String] {
            columns.map(\.name).filter { $0 != "_id" && $0 != "_entity" }
        }
    }

    /// The primary key a sub-entity of a keyless parent declares: it identifies the records of
    /// that sub-entity and its descendants.
    ///
    /// Its columns are the sub-entity's own (a schema may not key a sub-entity by a property
    /// it inherits from a keyless ancestor), so every other row of the table leaves them NULL.
    /// NULLs never collide in a unique index, so the unique index `_pk_<Table>_<Entity>` on
    /// them keeps the key unique among exactly the records it identifies, and serves lookups
    /// by key.
    package struct SubentityKey: Sendable, Equatable {
        /// The sub-entity that declares the key.
        package var entity: String
        /// The key's columns, in key order.
        package var columns: [String]

        /// The name of its unique index in `table`.
        package func indexName(table: String) -> String { "_pk_\(table)_\(entity)" }
    }

    /// The join table of a many-to-many relationship, or of a to-many without an inverse.
    package struct JoinTable: Sendable, Equatable {
        /// `_<Entity>_<relationship>`, after the owning side.
        package var name: String
        /// The table `owner` refers to.
        package var ownerTable: String
        /// The table `target` refers to.
        package var targetTable: String
        /// Whether it has `position` (the owner's list is ordered).
        package var hasPosition: Bool
        /// Whether it has `inverse_position` (the target's list is ordered).
        package var hasInversePosition: Bool

        /// The join table's columns, in the order `CREATE TABLE` declares them.
        package var columnNames: [String] {
            ["owner", "target"] + (hasPosition ? ["position"] : []) + (hasInversePosition ? ["inverse_position"] : [])
        }

        /// The position column of the other side's lists, seen from the lists written from
        /// `column` (`owner` or `target`): nil when the other side's lists are not ordered.
        package func otherSidePositionColumn(from column: String) -> String? {
            switch column {
            case "target": hasPosition ? "position" : nil
            case "owner": hasInversePosition ? "inverse_position" : nil
            default: nil
            }
        }
    }

    /// Where one relationship's links live.
    package enum RelationshipStorage: Sendable, Equatable {
        /// This entity's table holds `column`, the destination's `_id`.
        case foreignKeyHere(column: String, positionColumn: String?)
        /// The destination's table holds `column`, this record's `_id` (the inverse side of a to-one).
        case foreignKeyThere(table: String, column: String, positionColumn: String?)
        /// A join table; `selfColumn` holds this record's `_id`, `otherColumn` the destination's.
        case joinTable(table: String, selfColumn: String, otherColumn: String, positionColumn: String?)
    }

    /// The tables, one per root entity.
    package var tables: [Table]
    /// The join tables.
    package var joinTables: [JoinTable]
    /// entity name -> relationship name -> storage
    package var relationships: [String: [String: RelationshipStorage]]
    /// entity name -> the table that holds its records (its root's)
    package var entityTables: [String: String]
    /// `Entity.relationship` -> how its links are stored, in words (recorded in the metadata
    /// and compared on open), for the relationships each entity declares itself.
    package var relationshipSignatures: [String: String]

    /// The table named `name`, if the layout has one.
    package func table(named name: String) -> Table? { tables.first { $0.name == name } }

    /// The names of the columns the layout gives the table `name`. A column another schema added
    /// to the same file (a newer version of the app, a migration by another process) is not
    /// among them.
    package func columnNames(ofTable name: String) -> Set<String> {
        Set(table(named: name)?.columns.map(\.name) ?? [])
    }

    /// Where the relationship `relationship` of `entity` keeps its links.
    package func storage(of relationship: String, in entity: String) -> RelationshipStorage? {
        relationships[entity]?[relationship]
    }

    /// The layout of `schema`.
    package init(schema: Schema) {
        var tables: [Table] = []
        var joinTables: [JoinTable] = []
        var storage: [String: [String: RelationshipStorage]] = [:]
        var signatures: [String: String] = [:]

        func rootName(_ name: String) -> String { schema.entity(named: name)?.rootName ?? name }

        // Decide each relationship's storage first.
        var foreignKeysByTable: [String: [Column]] = [:]
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.entityName == entity.name {
                let inverse = relationship.inverse.flatMap {
                    schema.entity(named: relationship.destination)?.relationship(named: $0)
                }
                let here = rootName(entity.name)
                let there = rootName(relationship.destination)
                let result: RelationshipStorage
                switch (relationship.isToMany, inverse?.isToMany) {
                case (false, nil), (false, true?):
                    let position = inverse?.isOrdered == true ? "_position_\(relationship.name)" : nil
                    result = .foreignKeyHere(column: relationship.name, positionColumn: position)
                    foreignKeysByTable[here, default: []].append(
                        Column(name: relationship.name, role: .foreignKey(table: there), entity: entity.name))
                    if let position {
                        foreignKeysByTable[here, default: []].append(
                            Column(name: position, role: .position, entity: entity.name))
                    }
                case (false, false?):
                    guard let inverse else { continue }
                    if Self.holdsOneToOneKey(relationship, inverse: inverse, schema: schema) {
                        result = .foreignKeyHere(column: relationship.name, positionColumn: nil)
                        foreignKeysByTable[here, default: []].append(
                            Column(name: relationship.name, role: .foreignKey(table: there), entity: entity.name))
                    } else {
                        result = .foreignKeyThere(table: there, column: inverse.name, positionColumn: nil)
                    }
                case (true, false?):
                    guard let inverse else { continue }
                    let position = relationship.isOrdered ? "_position_\(inverse.name)" : nil
                    result = .foreignKeyThere(table: there, column: inverse.name, positionColumn: position)
                case (true, nil), (true, true?):
                    let owns = inverse.map { Self.sortKey(relationship) <= Self.sortKey($0) } ?? true
                    if owns {
                        let name = "_\(relationship.entityName)_\(relationship.name)"
                        joinTables.append(
                            JoinTable(
                                name: name, ownerTable: here, targetTable: there, hasPosition: relationship.isOrdered,
                                hasInversePosition: inverse?.isOrdered ?? false))
                        result = .joinTable(
                            table: name, selfColumn: "owner", otherColumn: "target",
                            positionColumn: relationship.isOrdered ? "position" : nil)
                    } else if let inverse {
                        let name = "_\(inverse.entityName)_\(inverse.name)"
                        result = .joinTable(
                            table: name, selfColumn: "target", otherColumn: "owner",
                            positionColumn: relationship.isOrdered ? "inverse_position" : nil)
                    } else {
                        continue
                    }
                }
                storage[entity.name, default: [:]][relationship.name] = result
                signatures["\(entity.name).\(relationship.name)"] =
                    (relationship.isToMany ? "to-many in " : "to-one in ") + Self.describe(result, table: here)
            }
        }
        // Sub-entities inherit their ancestors' storage.
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.entityName != entity.name {
                if let inherited = storage[relationship.entityName]?[relationship.name] {
                    storage[entity.name, default: [:]][relationship.name] = inherited
                }
            }
        }

        for root in schema.rootEntities {
            var columns = [Column(name: "_id", role: .system), Column(name: "_entity", role: .system)]
            var indexed: [String] = []
            for entity in schema.hierarchy(from: root.name) {
                for attribute in entity.attributes where attribute.entityName == entity.name {
                    columns.append(Column(name: attribute.name, role: .attribute(attribute.type), entity: entity.name))
                    if attribute.isIndexed { indexed.append(attribute.name) }
                }
            }
            for column in foreignKeysByTable[root.name] ?? [] {
                columns.append(column)
                if case .foreignKey = column.role { indexed.append(column.name) }
            }
            let primaryKeyColumns = root.primaryKey?.propertyNames ?? []
            let subentityKeys = schema.hierarchy(from: root.name).compactMap { entity -> SubentityKey? in
                guard !entity.isRoot, let key = entity.primaryKey,
                    entity.parentName.flatMap({ schema.entity(named: $0) })?.primaryKey == nil
                else { return nil }
                return SubentityKey(entity: entity.name, columns: key.propertyNames)
            }
            tables.append(
                Table(
                    name: root.name, columns: columns, primaryKeyColumns: primaryKeyColumns,
                    indexedColumns: indexed.filter { !(primaryKeyColumns.count == 1 && primaryKeyColumns[0] == $0) },
                    subentityKeys: subentityKeys))
        }
        self.tables = tables
        self.joinTables = joinTables
        self.relationships = storage
        self.relationshipSignatures = signatures
        self.entityTables = Dictionary(uniqueKeysWithValues: schema.entities.map { ($0.name, $0.rootName) })
    }

    /// A relationship's storage in words (after `to-one in ` or `to-many in `):
    /// `foreign key column Post.user`, with
    /// `ordered by Post._position_user` when a position is kept, or `join table _Post_tags`
    /// with the side and position column.
    private static func describe(_ storage: RelationshipStorage, table: String) -> String {
        switch storage {
        case .foreignKeyHere(let column, let position):
            return "foreign key column \(table).\(column)" + (position.map { " ordered by \(table).\($0)" } ?? "")
        case .foreignKeyThere(let there, let column, let position):
            return "foreign key column \(there).\(column)" + (position.map { " ordered by \(there).\($0)" } ?? "")
        case .joinTable(let join, let selfColumn, _, let position):
            return "join table \(join) as \(selfColumn)" + (position.map { " ordered by \(join).\($0)" } ?? "")
        }
    }

    private static func sortKey(_ relationship: Relationship) -> String {
        ForeignKeyPlacement.sortKey(relationship)
    }

    private static func holdsOneToOneKey(_ relationship: Relationship, inverse: Relationship, schema: Schema) -> Bool {
        ForeignKeyPlacement.holdsOneToOneKey(relationship, inverse: inverse) { schema.entity(named: $0)?.primaryKey }
    }

    // MARK: - DDL

    func createStatements(for table: Table) -> [String] {
        let columns = table.columns.map { column -> String in
            switch column.role {
            case .system: column.name == "_id" ? "\"_id\" INTEGER PRIMARY KEY" : "\"_entity\" TEXT NOT NULL"
            case .foreignKey(let target):
                "\(quote(column.name)) INTEGER REFERENCES \(quote(target))(\"_id\") ON DELETE SET NULL"
            default: "\(quote(column.name)) \(column.sqlType)"
            }
        }
        var statements = ["CREATE TABLE \(quote(table.name)) (\(columns.joined(separator: ", ")))"]
        statements += indexStatements(for: table, onlyColumns: nil)
        return statements
    }

    func indexStatements(for table: Table, onlyColumns: Set<String>?) -> [String] {
        var statements: [String] = []
        if !table.primaryKeyColumns.isEmpty, onlyColumns == nil {
            let columns = table.primaryKeyColumns.map(quote).joined(separator: ", ")
            statements.append(
                "CREATE UNIQUE INDEX IF NOT EXISTS \(quote("_pk_\(table.name)")) ON \(quote(table.name))(\(columns))")
        }
        if onlyColumns == nil {
            statements += table.subentityKeys.map { uniqueIndexStatement(for: $0, table: table.name) }
        }
        for column in table.indexedColumns where onlyColumns?.contains(column) ?? true {
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(quote("_index_\(table.name)_\(column)")) ON \(quote(table.name))(\(quote(column)))"
            )
        }
        return statements
    }

    /// The unique index that keeps a sub-entity's key unique.
    func uniqueIndexStatement(for key: SubentityKey, table: String) -> String {
        "CREATE UNIQUE INDEX IF NOT EXISTS \(quote(key.indexName(table: table))) ON \(quote(table))(\(key.columns.map(quote).joined(separator: ", ")))"
    }

    func createStatements(for join: JoinTable) -> [String] {
        var columns = [
            "\"owner\" INTEGER NOT NULL REFERENCES \(quote(join.ownerTable))(\"_id\") ON DELETE CASCADE",
            "\"target\" INTEGER NOT NULL REFERENCES \(quote(join.targetTable))(\"_id\") ON DELETE CASCADE",
        ]
        if join.hasPosition { columns.append("\"position\" INTEGER") }
        if join.hasInversePosition { columns.append("\"inverse_position\" INTEGER") }
        columns.append("PRIMARY KEY (\"owner\", \"target\")")
        return [
            "CREATE TABLE \(quote(join.name)) (\(columns.joined(separator: ", "))) WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS \(quote("_index_\(join.name)_target")) ON \(quote(join.name))(\"target\")",
        ]
    }
}

/// Quotes an SQL identifier. Identifiers come only from validated schemas; quoting is a second guard.
func quote(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
