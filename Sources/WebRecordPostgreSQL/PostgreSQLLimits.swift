import WebRecord

/// The limits of PostgreSQL that a valid schema's layout may still exceed, checked before any
/// `CREATE` meets them:
///
/// - An identifier is at most 63 bytes (`NAMEDATALEN` − 1); a longer one is cut short by the
///   server, and two names that share their first 63 bytes would be one.
/// - A table has at most 1,600 columns (`MaxHeapAttributeNumber`).
/// - An index covers at most 32 columns (`INDEX_MAX_KEYS`).
/// - A column cannot take the name of a system column (`xmin`, `ctid`, ...).
/// - Two relations (tables, indexes, sequences) of one schema cannot share a name, those the
///   server names itself included (``nameCollisions(in:)``).
///
/// The names checked are those ``PostgreSQLLayoutDDL`` creates: each table, column and join
/// table of the layout, the unique indexes `_pk_<Table>` and `_pk_<Table>_<Entity>`, the indexes `_index_<Table>_<column>`
/// and `_index_<JoinTable>_target`, and the schema (namespace) that holds them.
package enum PostgreSQLLimits {
    /// The longest identifier PostgreSQL keeps whole, in bytes.
    package static let maximumNameLength = 63
    /// The most columns a PostgreSQL table may have, `_id` and `_entity` included.
    package static let maximumColumns = 1600
    /// The most columns a PostgreSQL index may cover.
    package static let maximumIndexColumns = 32
    /// The names of PostgreSQL's system columns, which every table has and no column may take
    /// (the store quotes its names, so only these exact spellings clash: `"XMIN"` is another name).
    package static let systemColumns: Set<String> = ["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"]

    /// Every way `layout`, in the schema (namespace) `namespace` when one is given, exceeds
    /// PostgreSQL's limits: one `invalidSchema` error each, with the entity and property it
    /// is about when there is one. Empty when the layout fits.
    package static func problems(in layout: StorageLayout, namespace: String? = nil) -> [WebRecordError] {
        var problems: [WebRecordError] = []
        func check(_ name: String, _ what: String, entity: String? = nil, property: String? = nil) {
            let length = name.utf8.count
            guard length > maximumNameLength else { return }
            problems.append(
                WebRecordError(
                    .invalidSchema,
                    "the \(what) name '\(name)' is \(length) bytes; PostgreSQL names are at most \(maximumNameLength) bytes",
                    entity: entity, property: property))
        }
        if let namespace { check(namespace, "schema (namespace)") }
        for table in layout.tables {
            check(table.name, "table", entity: table.name)
            if table.columns.count > maximumColumns {
                problems.append(
                    WebRecordError(
                        .invalidSchema,
                        "its table would have \(table.columns.count) columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); PostgreSQL allows at most \(maximumColumns)",
                        entity: table.name))
            }
            for column in table.columns {
                check(column.name, "column", entity: column.entity ?? table.name, property: column.name)
                if systemColumns.contains(column.name) {
                    problems.append(
                        WebRecordError(
                            .invalidSchema,
                            "the column name '\(column.name)' is one of PostgreSQL's system columns (\(systemColumns.sorted().joined(separator: ", "))), which a table cannot have; rename the property",
                            entity: column.entity ?? table.name, property: column.name))
                }
            }
            if !table.primaryKeyColumns.isEmpty {
                let index = "_pk_\(table.name)"
                check(index, "index", entity: table.name)
                if table.primaryKeyColumns.count > maximumIndexColumns {
                    problems.append(
                        WebRecordError(
                            .invalidSchema,
                            "its primary key's unique index '\(index)' would cover \(table.primaryKeyColumns.count) columns; PostgreSQL allows at most \(maximumIndexColumns)",
                            entity: table.name))
                }
            }
            for key in table.subentityKeys {
                let index = key.indexName(table: table.name)
                check(index, "index", entity: key.entity)
                if key.columns.count > maximumIndexColumns {
                    problems.append(
                        WebRecordError(
                            .invalidSchema,
                            "its primary key's unique index '\(index)' would cover \(key.columns.count) columns; PostgreSQL allows at most \(maximumIndexColumns)",
                            entity: key.entity))
                }
            }
            for column in table.indexedColumns {
                check("_index_\(table.name)_\(column)", "index", entity: table.name, property: column)
            }
        }
        for join in layout.joinTables {
            let owner = owner(of: join, in: layout)
            check(join.name, "join table", entity: owner?.entity, property: owner?.relationship)
            check("_index_\(join.name)_target", "index", entity: owner?.entity, property: owner?.relationship)
        }
        problems += nameCollisions(in: layout)
        return problems
    }

    /// The names of the layout that PostgreSQL would take for two relations: a table, index or
    /// sequence is a relation, and two relations of one schema cannot share a name. Besides the
    /// names ``PostgreSQLLayoutDDL`` gives, the server names each table's primary key index
    /// `<table>_pkey` and a record table's `_id` sequence `<table>__id_seq`: an entity named
    /// `Post_pkey` beside `Post` would make every population fail with "relation already exists".
    static func nameCollisions(in layout: StorageLayout) -> [WebRecordError] {
        // Each relation name, with what it is and the entity (and relationship) it is for.
        var relations: [(name: String, what: String, entity: String?, property: String?)] = []
        for table in layout.tables {
            relations.append((table.name, "table", table.name, nil))
            relations.append(("\(table.name)_pkey", "primary key index of table '\(table.name)'", table.name, nil))
            relations.append(("\(table.name)__id_seq", "`_id` sequence of table '\(table.name)'", table.name, nil))
            if !table.primaryKeyColumns.isEmpty {
                relations.append(("_pk_\(table.name)", "unique index of table '\(table.name)'", table.name, nil))
            }
            for key in table.subentityKeys {
                relations.append(
                    (key.indexName(table: table.name), "unique index of entity '\(key.entity)'", key.entity, nil))
            }
            for column in table.indexedColumns {
                relations.append(("_index_\(table.name)_\(column)", "index of column '\(column)'", table.name, column))
            }
        }
        for join in layout.joinTables {
            let owner = owner(of: join, in: layout)
            relations.append((join.name, "join table", owner?.entity, owner?.relationship))
            relations.append(
                (
                    "\(join.name)_pkey", "primary key index of join table '\(join.name)'", owner?.entity,
                    owner?.relationship
                ))
            relations.append(
                ("_index_\(join.name)_target", "index of join table '\(join.name)'", owner?.entity, owner?.relationship)
            )
        }
        var first: [String: Int] = [:]
        var problems: [WebRecordError] = []
        for (index, relation) in relations.enumerated() {
            guard let earlier = first[relation.name] else {
                first[relation.name] = index
                continue
            }
            let other = relations[earlier]
            problems.append(
                WebRecordError(
                    .invalidSchema,
                    "the name '\(relation.name)' would be PostgreSQL's for both the \(other.what) and the \(relation.what); rename the entity or relationship so that they differ",
                    entity: relation.entity ?? other.entity, property: relation.property ?? other.property))
        }
        return problems
    }

    /// Throws `invalidSchema` when ``problems(in:namespace:)`` finds any: the first one's
    /// message and place, with every problem in ``WebRecordError/problems``.
    static func check(_ layout: StorageLayout, namespace: String) throws(WebRecordError) {
        let problems = problems(in: layout, namespace: namespace)
        guard let first = problems.first else { return }
        var error = WebRecordError(
            .invalidSchema,
            problems.count == 1
                ? first.message : "\(problems.count) problems for PostgreSQL's limits; the first: \(first.message)",
            entity: first.entity, property: first.property)
        error.problems = problems
        throw error
    }

    /// The entity and relationship a join table belongs to: the side that holds it as `owner`,
    /// after which it is named (`_<Entity>_<relationship>`).
    private static func owner(
        of join: StorageLayout.JoinTable, in layout: StorageLayout
    ) -> (entity: String, relationship: String)? {
        for entity in layout.relationships.keys.sorted() {
            for (relationship, storage) in layout.relationships[entity] ?? [:] {
                guard "_\(entity)_\(relationship)" == join.name,
                    case .joinTable(let table, "owner", _, _) = storage, table == join.name
                else { continue }
                return (entity, relationship)
            }
        }
        return nil
    }
}
