import Foundation

/// One sort criterion of a fetch: an attribute name and a direction.
public struct SortOrder: Sendable, Hashable {
    /// The attribute (or to-one relationship) to sort by.
    public var name: String
    /// Whether the order is ascending.
    public var ascending: Bool

    /// Ascending by `name`.
    public static func ascending(_ name: String) -> SortOrder { SortOrder(name: name, ascending: true) }
    /// Descending by `name`.
    public static func descending(_ name: String) -> SortOrder { SortOrder(name: name, ascending: false) }
}

extension RecordDatabase {
    /// Fetches records of an entity, its sub-entities included.
    ///
    /// For example:
    ///
    /// ```swift
    /// let recent = try store.fetch("Post", where: "date > ?", arguments: [cutoff],
    ///                              orderBy: [.descending("date")], limit: 10)
    /// ```
    ///
    /// - Parameters:
    ///   - entityName: the entity.
    ///   - predicate: an SQL condition over the entity's columns (attribute names), with `?`
    ///     placeholders for `arguments`. Arguments are always bound, never spliced.
    ///   - arguments: the values bound to the placeholders, in order.
    ///   - orderBy: sort criteria, validated against the entity's properties. Ties and the
    ///     default order are by `_id` (insertion order).
    ///   - limit: the most records to return.
    ///   - offset: how many to skip first.
    ///   - includingSubentities: false to fetch only records of exactly this entity.
    /// - Returns: records, instances of the registered ``Record`` subclass where there is one.
    /// - Throws: ``WebRecordError``: `invalidEntityDescription` for an unknown entity,
    ///   `invalidArgument` for an unknown sort name, `storeError` for SQL errors.
    package func fetch(
        _ entityName: String, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, offset: Int? = nil, includingSubentities: Bool = true
    ) throws(WebRecordError) -> [Record] {
        let entity = try schema.requireEntity(entityName)
        let (sql, values) = try fetchSQL(
            entity, where: predicate, arguments: arguments.map(\.databaseValue), orderBy: orderBy, limit: limit,
            offset: offset, includingSubentities: includingSubentities)
        return try withQueries { queries throws(WebRecordError) in try queries.records(sql, values) }
    }

    /// The `SELECT *` of a fetch, and its arguments: the rows of `entity` (and its sub-entities)
    /// that match `predicate`, in `orderBy` order and then by `_id`, within `limit` and
    /// `offset`; with `rowIDs`, only rows among those.
    ///
    /// - Throws: `invalidArgument` for a sort name that is not an attribute or a to-one whose
    ///   key is in this entity's table.
    package func fetchSQL(
        _ entity: Entity, where predicate: String?, arguments: [DatabaseValue], orderBy: [SortOrder], limit: Int?,
        offset: Int? = nil, includingSubentities: Bool = true, rowIDs: Set<Int64>? = nil
    ) throws(WebRecordError) -> (String, [DatabaseValue]) {
        var (sql, values) = try selectSQL(
            entity, predicate: predicate, arguments: arguments, includingSubentities: includingSubentities)
        if let rowIDs {
            let (condition, value) = dialect.rowIDCondition("\"_id\"", in: rowIDs)
            sql += (sql.contains(" WHERE ") ? " AND " : " WHERE ") + condition
            values.append(value)
        }
        var order: [String] = []
        for sort in orderBy {
            try validateSortName(sort.name, of: entity)
            if entity.attribute(named: sort.name)?.type == .decimal {
                order += dialect.decimalOrderTerms(quote(sort.name), ascending: sort.ascending)
            } else {
                order.append(dialect.orderTerm(quote(sort.name), ascending: sort.ascending))
            }
        }
        order.append("\"_id\" ASC")
        sql += " ORDER BY " + order.joined(separator: ", ")
        // A negative limit is none returned (SQLite would take it for no limit at all), and a
        // negative offset skips nothing, on both stores.
        if let limit {
            sql += " LIMIT ?"
            values.append(.integer(Int64(max(0, limit))))
            if let offset {
                sql += " OFFSET ?"
                values.append(.integer(Int64(max(0, offset))))
            }
        } else if let offset {
            sql += dialect.offsetWithoutLimit
            values.append(.integer(Int64(max(0, offset))))
        }
        return (sql, values)
    }

    /// Checks that `name` can sort records of `entity`: an attribute, or a to-one whose key
    /// column is in the entity's table.
    package func validateSortName(_ name: String, of entity: Entity) throws(WebRecordError) {
        guard entity.attribute(named: name) == nil else { return }
        guard let relationship = entity.relationship(named: name), !relationship.isToMany else {
            throw WebRecordError.unknownProperty(name, entity: entity.name)
        }
        // Only a to-one whose key column is in this entity's table can be sorted by; a
        // one-to-one kept on the other side has no column here.
        guard case .foreignKeyHere? = layout.storage(of: relationship.name, in: entity.name) else {
            throw WebRecordError(
                .invalidArgument,
                "cannot sort \(entity.name) by '\(name)': its key is kept in \(relationship.destination)'s table",
                entity: entity.name, property: name)
        }
    }

    /// Fetches records as instances of a registered ``Record`` subclass.
    ///
    /// The entity is the one the class was registered for, else its ``Record/entityName``.
    package func fetch<T: Record>(
        _ type: T.Type, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, offset: Int? = nil
    ) throws(WebRecordError) -> [T] {
        let name = recordClasses.entityName(registeredFor: type) ?? type.entityName
        // Every record fetched is of the entity `T` stands for: an instance of another class
        // (the plain `Record` of a class that is not registered) is made a `T` from its row, as
        // navigation makes one.
        return try fetch(name, where: predicate, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset)
            .map { $0 as? T ?? T(row: $0.storedRow) }
    }

    /// Counts records of an entity (sub-entities included) matching a predicate.
    ///
    /// - Throws: ``WebRecordError`` as for ``fetch(_:where:arguments:orderBy:limit:offset:includingSubentities:)``.
    package func count(
        _ entityName: String, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        includingSubentities: Bool = true
    ) throws(WebRecordError) -> Int {
        let entity = try schema.requireEntity(entityName)
        let (sql, values) = try selectSQL(
            entity, predicate: predicate, arguments: arguments.map(\.databaseValue),
            includingSubentities: includingSubentities, columns: "count(*)")
        let rows = try withQueries { queries throws(WebRecordError) in try queries.rows(sql, values) }
        guard case .integer(let count)? = rows.first?.first else { return 0 }
        return Int(count)
    }

    /// Fetches the record of an entity with a primary-key value, normalized to the key's type
    /// (so `"5"` finds the record whose integer key is 5). For a composite key, pass an array
    /// with one value per part.
    ///
    /// - Returns: the record, or nil when there is none.
    /// - Throws: ``WebRecordError``: `invalidArgument` when the entity's key is not made of
    ///   attributes or the value does not fit it.
    package func fetchOne(_ entityName: String, primaryKey value: JSONValue) throws(WebRecordError) -> Record? {
        let (predicate, arguments) = try primaryKeyCondition(entityName, value: value)
        return try fetch(entityName, where: predicate, arguments: arguments, limit: 1).first
    }

    /// The condition that picks the record of `entityName` whose key is `value`, normalized to
    /// the key's type, and its arguments.
    ///
    /// - Throws: ``WebRecordError``: `invalidArgument` when the entity's key is not made of
    ///   attributes or the value does not fit it.
    package func primaryKeyCondition(_ entityName: String, value: JSONValue) throws(WebRecordError)
        -> (String, [DatabaseValue])
    {
        let entity = try schema.requireEntity(entityName)
        guard let key = entity.primaryKey, case let names = key.propertyNames,
            names.allSatisfy({ entity.attribute(named: $0) != nil })
        else {
            throw WebRecordError(
                .invalidArgument, "\(entity.name) has no attribute primary key to fetch by", entity: entity.name)
        }
        let parts = names.count == 1 ? [value] : (value.arrayValue ?? [])
        guard parts.count == names.count else {
            throw WebRecordError(.invalidArgument, "\(entity.name)'s key has \(names.count) parts", entity: entity.name)
        }
        let coercion = ValueCoercion(dateFormats: schema.dateFormats)
        var values: [DatabaseValue] = []
        for (name, part) in zip(names, parts) {
            guard let attribute = entity.attribute(named: name), let stored = coercion.keyValue(part, for: attribute)
            else {
                throw WebRecordError(
                    .invalidArgument, "\(part.serialized()) is not a valid key for \(entity.name).\(name)",
                    entity: entity.name, property: name)
            }
            values.append(stored.databaseValue)
        }
        return (names.map { "\(quote($0)) = ?" }.joined(separator: " AND "), values)
    }

    // MARK: - Building records

    func selectSQL(
        _ entity: Entity, predicate: String?, arguments: [DatabaseValue], includingSubentities: Bool,
        columns: String = "*"
    ) throws(WebRecordError) -> (String, [DatabaseValue]) {
        var conditions: [String] = []
        var values: [DatabaseValue] = []
        // Always by entity, a root's whole hierarchy included: the table may hold the rows of
        // an entity the schema no longer has, which are kept and no longer read (StorageLayout.md,
        // "Removed: kept").
        let names = includingSubentities ? schema.hierarchy(from: entity.name).map(\.name) : [entity.name]
        conditions.append("\"_entity\" IN (\(sqlPlaceholders(names.count)))")
        values += names.map { .text($0) }
        if let predicate {
            // On a line of its own: a `--` comment ending the predicate ends with it.
            conditions.append("(\(predicate)\n)")
            values += arguments
        }
        var sql = "SELECT \(columns) FROM \(quote(entity.rootName))"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return (sql, values)
    }

    /// The records related to `record` through `relationship` (see ``RecordReading``).
    package func relatedRecords(of record: Record, relationship name: String, limit: Int?) throws(WebRecordError)
        -> [Record]
    {
        guard let relationship = record.entity.relationship(named: name),
            let storage = layout.storage(of: name, in: record.entity.name),
            let destination = schema.entity(named: relationship.destination)
        else {
            throw WebRecordError.unknownProperty(name, entity: record.entity.name)
        }
        let table = quote(destination.rootName)
        // Only records of the destination's hierarchy: a related row of an entity the schema no
        // longer has is kept and no longer read (StorageLayout.md, "Removed: kept").
        let kinds = schema.hierarchy(from: destination.name).map { DatabaseValue.text($0.name) }
        let isKind = "\"_entity\" IN (\(sqlPlaceholders(kinds.count)))"
        var sql: String
        switch storage {
        case .foreignKeyHere(let column, _):
            // The key as the store holds it now, not as the record was read: a record read
            // before a later write sees the latest committed state, as the other side does.
            sql =
                "SELECT d.* FROM \(table) d WHERE d.\"_id\" = (SELECT o.\(quote(column)) FROM \(quote(record.entity.rootName)) o WHERE o.\"_id\" = ?) AND d.\(isKind)"
        case .foreignKeyThere(_, let column, let position):
            sql = "SELECT * FROM \(table) WHERE \(quote(column)) = ? AND \(isKind)"
            sql += " ORDER BY " + (position.map { "\(dialect.orderTerm(quote($0))), " } ?? "") + "\"_id\""
        case .joinTable(let join, let selfColumn, let otherColumn, let position):
            sql =
                "SELECT d.* FROM \(table) d JOIN \(quote(join)) j ON j.\(quote(otherColumn)) = d.\"_id\" WHERE j.\(quote(selfColumn)) = ? AND d.\(isKind)"
            sql += " ORDER BY " + (position.map { "\(dialect.orderTerm("j." + quote($0))), " } ?? "") + "d.\"_id\""
        }
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let query = sql
        return try withQueries { queries throws(WebRecordError) in
            try queries.records(query, [.integer(record.rowID)] + kinds)
        }
    }
}
