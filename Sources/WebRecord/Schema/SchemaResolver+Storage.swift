/// The checks that make a schema that validates one the store can make: the names it generates
/// for tables and indexes do not meet, and no table has more columns than SQLite allows.
/// The names and columns are those of `Docs/StorageLayout.md`.
extension SchemaResolver {
    /// One name the store would create in the database, and who it is for.
    private struct GeneratedName {
        var name: String
        /// "join table" or "index": how the problem names it.
        var kind: String
        /// What it belongs to, as another problem names it ("the join table of A.b").
        var owner: String
        var entity: Entity
        var property: String?
    }

    /// Tables, join tables and indexes share one namespace in SQLite, which ignores the case of
    /// ASCII letters. Join tables are `_<Entity>_<relationship>`, indexes `_pk_<Table>`,
    /// `_index_<Table>_<column>` and `_index_<join table>_target`: none of them may meet another
    /// or the store's own `_webrecord_metadata`.
    mutating func checkGeneratedNames(_ entities: [Entity], in resolved: [String: Entity]) {
        var taken: [String: String] = [SQLiteNames.folded("_webrecord_metadata"): "WebRecord's metadata table"]
        for generated in Self.generatedNames(entities, in: resolved) {
            let key = SQLiteNames.folded(generated.name)
            // A property already reported (its column, or its join table beside its index) is
            // not reported again.
            let reported = problems.contains {
                $0.file == generated.entity.fileName && $0.entity == generated.entity.name
                    && $0.property == generated.property
            }
            if reported { continue }
            if let other = taken[key] {
                problem(
                    generated.entity, generated.property,
                    "its \(generated.kind) '\(generated.name)' has the same name as \(other); rename one of them")
            } else {
                taken[key] = generated.owner
            }
        }
    }

    /// SQLite refuses a table of more than 2000 columns (`SQLITE_MAX_COLUMN`). A root entity's
    /// table holds `_id`, `_entity`, every attribute of its hierarchy, and the foreign-key and
    /// position columns of the relationships stored there.
    mutating func checkColumnCounts(_ entities: [Entity], in resolved: [String: Entity]) {
        var counts: [String: Int] = [:]
        for entity in entities {
            counts[entity.rootName, default: 2] +=
                entity.attributes.filter { $0.entityName == entity.name }.count
                + Self.foreignKeyColumns(of: entity, in: resolved).count
        }
        for entity in entities where entity.parentName == nil {
            let count = counts[entity.name] ?? 2
            if count > SQLiteNames.maximumColumnCount {
                problem(
                    entity, nil,
                    "its table would have \(count) columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); SQLite allows at most \(SQLiteNames.maximumColumnCount)"
                )
            }
        }
    }

    /// The foreign-key and position columns the relationships `entity` declares add to its table.
    private static func foreignKeyColumns(of entity: Entity, in resolved: [String: Entity]) -> [(
        relationship: String, column: String
    )] {
        entity.relationships.filter { $0.entityName == entity.name }.flatMap { relationship in
            let inverse = relationship.inverse.flatMap { resolved[relationship.destination]?.relationship(named: $0) }
            return ForeignKeyPlacement.columns(of: relationship, inverse: inverse) { resolved[$0]?.primaryKey }
                .map { (relationship.name, $0) }
        }
    }

    /// Every table and index name the store would generate for `entities`, in declaration order.
    private static func generatedNames(_ entities: [Entity], in resolved: [String: Entity]) -> [GeneratedName] {
        var names: [GeneratedName] = []
        for entity in entities {
            let table = entity.rootName
            if entity.parentName == nil, entity.primaryKey != nil {
                names.append(
                    GeneratedName(
                        name: "_pk_\(table)", kind: "index", owner: "the primary-key index of \(table)", entity: entity,
                        property: nil))
            } else if entity.primaryKey != nil,
                entity.parentName.flatMap({ resolved[$0] }).map({ $0.primaryKey == nil }) == true
            {
                names.append(
                    GeneratedName(
                        name: "_pk_\(table)_\(entity.name)", kind: "index",
                        owner: "the primary-key index of \(entity.name)", entity: entity, property: nil))
            }
            let keyColumns = resolved[table]?.primaryKey?.propertyNames ?? []
            var indexed = entity.attributes.filter { $0.entityName == entity.name && $0.isIndexed }.map {
                (property: $0.name, column: $0.name)
            }
            indexed += foreignKeyColumns(of: entity, in: resolved).filter { !$0.column.hasPrefix("_position_") }
                .map { (property: $0.relationship, column: $0.column) }
            for (property, column) in indexed where keyColumns != [column] {
                names.append(
                    GeneratedName(
                        name: "_index_\(table)_\(column)", kind: "index",
                        owner: "the index of \(entity.name).\(property)",
                        entity: entity, property: property))
            }
            for relationship in entity.relationships
            where relationship.entityName == entity.name && relationship.isToMany {
                let inverse = relationship.inverse.flatMap {
                    resolved[relationship.destination]?.relationship(named: $0)
                }
                if let inverse {
                    // A one-to-many keeps a column on the to-one side; a many-to-many has one join
                    // table, named by the side that sorts first.
                    if !inverse.isToMany { continue }
                    if ForeignKeyPlacement.sortKey(inverse) < ForeignKeyPlacement.sortKey(relationship) { continue }
                }
                let join = "_\(entity.name)_\(relationship.name)"
                let owner = "the join table of \(entity.name).\(relationship.name)"
                names.append(
                    GeneratedName(
                        name: join, kind: "join table", owner: owner, entity: entity, property: relationship.name))
                names.append(
                    GeneratedName(
                        name: "_index_\(join)_target", kind: "index", owner: "the target index of \(owner)",
                        entity: entity,
                        property: relationship.name))
            }
        }
        return names
    }
}
