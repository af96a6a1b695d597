import Foundation

/// What an observation watches: a fetch (entity, predicate, order, limit, section key) and the
/// relationship key paths whose values count as part of each record.
struct ObservedQuery: Sendable {
    var entityName: String
    var predicate: String?
    var arguments: [DatabaseValue]
    var orderBy: [SortOrder]
    var limit: Int?
    var sectionKey: String?
    var keyPaths: [String]
    /// Why the query cannot run, found when it was made (a key that does not fit).
    var failure: WebRecordError?
}

/// An ``ObservedQuery`` checked against a store's schema, with the SQL it runs and the tables
/// whose changes can change its results.
struct ResolvedQuery: Sendable {
    let query: ObservedQuery
    let entity: Entity
    /// The table of the entity's hierarchy.
    let table: String
    /// Every table a change to which can change the results: the entity's, those keeping its
    /// relationships, and those along the key paths.
    let region: Set<String>
    /// The sort order, the section key first.
    let order: [SortOrder]
    /// The relationships kept outside the entity's table, whose members count as part of a
    /// record: (relationship, table, owner column, member column, position column). The member
    /// column is the destination's `_id` for a foreign key kept there, the join table's other
    /// column for a many-to-many.
    let memberships: [(name: String, table: String, column: String, member: String, position: String?)]
    /// The key paths, each split into relationship names and an optional final attribute.
    let paths: [(relationships: [String], attribute: String?)]
    /// The columns the layout gives the entity's table: what a change of a record compares.
    /// A column another schema added to the file (another process's migration) is in a
    /// record's ``Record/storedValues``, and changes none of it.
    let columns: Set<String>
    /// Whether a changed row of the entity's table changes no record but its own: false when
    /// the table also keeps other records' members (a tree's `parent`, whose inverse is the
    /// parent's `children`) or is reached through a key path (`parent.name`).
    let rowsChangeOnlyThemselves: Bool

    init(_ query: ObservedQuery, in database: any RecordDatabase) throws(WebRecordError) {
        if let failure = query.failure { throw failure }
        self.query = query
        let schema = database.schema
        let entity = try schema.requireEntity(query.entityName)
        self.entity = entity
        self.table = entity.rootName
        var order = query.orderBy
        if let key = query.sectionKey {
            guard entity.attribute(named: key) != nil else {
                throw WebRecordError(
                    .invalidArgument, "\(entity.name) has no attribute '\(key)' to make sections of",
                    entity: entity.name, property: key)
            }
            order.insert(.ascending(key), at: 0)
        }
        for sort in order { try database.validateSortName(sort.name, of: entity) }
        self.order = order
        var region: Set<String> = [entity.rootName]
        // Tables whose rows count as part of other records than their own: a change there
        // changes records it does not name.
        var related: Set<String> = []
        var memberships: [(String, String, String, String, String?)] = []
        // The relationships of the entity and of its sub-entities: a sub-entity's records are
        // part of the results, with their members (a photo's tags, in an observation of media).
        var seen: Set<String> = []
        for kind in schema.hierarchy(from: entity.name) {
            for relationship in kind.relationships {
                let storage = database.layout.storage(of: relationship.name, in: kind.name)
                switch storage {
                case .foreignKeyThere(let table, let column, let position)?:
                    guard seen.insert("\(table)\u{0}\(column)").inserted else { continue }
                    region.insert(table)
                    related.insert(table)
                    memberships.append((relationship.name, table, column, "_id", position))
                case .joinTable(let table, let selfColumn, let otherColumn, let position)?:
                    guard seen.insert("\(table)\u{0}\(selfColumn)").inserted else { continue }
                    region.insert(table)
                    related.insert(table)
                    memberships.append((relationship.name, table, selfColumn, otherColumn, position))
                case .foreignKeyHere?, nil:
                    break
                }
            }
        }
        self.memberships = memberships.map { (name: $0.0, table: $0.1, column: $0.2, member: $0.3, position: $0.4) }
        var paths: [(relationships: [String], attribute: String?)] = []
        for path in query.keyPaths {
            var current = entity
            var relationships: [String] = []
            var attribute: String?
            let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (index, part) in parts.enumerated() {
                if let relationship = current.relationship(named: part),
                    let destination = schema.entity(named: relationship.destination)
                {
                    relationships.append(part)
                    region.insert(destination.rootName)
                    related.insert(destination.rootName)
                    switch database.layout.storage(of: part, in: current.name) {
                    case .foreignKeyThere(let table, _, _)?, .joinTable(let table, _, _, _)?:
                        region.insert(table)
                        related.insert(table)
                    case .foreignKeyHere?, nil: break
                    }
                    current = destination
                } else if index == parts.count - 1, index > 0, current.attribute(named: part) != nil {
                    attribute = part
                } else {
                    throw WebRecordError(
                        .invalidArgument,
                        "'\(path)' is not a key path of \(entity.name): \(current.name) has no relationship"
                            + (index == parts.count - 1 && index > 0 ? " or attribute" : "") + " '\(part)'",
                        entity: entity.name, property: path)
                }
            }
            paths.append((relationships, attribute))
        }
        self.paths = paths
        self.region = region
        rowsChangeOnlyThemselves = !related.contains(entity.rootName)
        columns = database.layout.columnNames(ofTable: entity.rootName)
    }

    /// Whether two reads of a record hold the same values in the layout's columns.
    func hasSameValues(_ old: Record, _ new: Record) -> Bool {
        columns.allSatisfy { old.storedValues[$0] == new.storedValues[$0] }
    }

    /// Whether a change can be applied by refetching only the rows it names: it touches no
    /// table of the region but the entity's, whose changed rows it knows and change no other
    /// record (``rowsChangeOnlyThemselves``), and the results have no limit (rows leaving a
    /// limited window would bring others in). A database that knows only which tables changed
    /// (PostgreSQL's) never names the rows.
    func rowsToRefetch(_ change: StoreChange) -> Set<Int64>? {
        guard query.limit == nil, rowsChangeOnlyThemselves, case .tables(let tables) = change else { return nil }
        for (name, _) in tables where name != table && region.contains(name) { return nil }
        guard let rows = tables[table] else { return [] }
        return rows
    }

    // MARK: - Fetching

    /// The records of the results, in order, read with `queries` of `database`.
    func fetch(with queries: any RecordQuerying, database: any RecordDatabase) throws(WebRecordError) -> [Record] {
        let (sql, values) = try database.fetchSQL(
            entity, where: query.predicate, arguments: query.arguments, orderBy: order, limit: query.limit)
        return try queries.records(sql, values)
    }

    /// The records among `rowIDs` that belong in the results, in order.
    func fetch(rowIDs: Set<Int64>, with queries: any RecordQuerying, database: any RecordDatabase)
        throws(WebRecordError) -> [Record]
    {
        guard !rowIDs.isEmpty else { return [] }
        let (sql, values) = try database.fetchSQL(
            entity, where: query.predicate, arguments: query.arguments, orderBy: order, limit: nil, rowIDs: rowIDs)
        return try queries.records(sql, values)
    }

    /// What counts as part of each record besides its own row: its members of the
    /// relationships kept elsewhere, and the values at the key paths; by rowid, for `records`.
    /// Empty when there is nothing of the kind.
    func extras(of records: [Record], with queries: any RecordQuerying, database: any RecordDatabase)
        throws(WebRecordError) -> [Int64: [[DatabaseValue]]]
    {
        guard !memberships.isEmpty || !paths.isEmpty, !records.isEmpty else { return [:] }
        var extras: [Int64: [[DatabaseValue]]] = [:]
        extras.reserveCapacity(records.count)
        let ids = Set(records.map(\.rowID))
        let all = records.count > 256
        for membership in memberships {
            let member = quote(membership.member)
            var sql = "SELECT \(quote(membership.column)), \(member) FROM \(quote(membership.table))"
            var values: [DatabaseValue] = []
            if all {
                sql += " WHERE \(quote(membership.column)) IS NOT NULL"
            } else {
                let (condition, value) = database.dialect.rowIDCondition(quote(membership.column), in: ids)
                sql += " WHERE " + condition
                values.append(value)
            }
            sql +=
                " ORDER BY 1, "
                + (membership.position.map { "\(database.dialect.orderTerm(quote($0))), " } ?? "") + member
            var members: [Int64: [DatabaseValue]] = [:]
            for row in try queries.rows(sql, values) {
                guard row.count > 1, case .integer(let owner) = row[0], ids.contains(owner),
                    case .integer(let member) = row[1]
                else { continue }
                members[owner, default: []].append(.integer(member))
            }
            for id in ids { extras[id, default: []].append(members[id] ?? []) }
        }
        for path in paths {
            for record in records {
                extras[record.rowID, default: []].append(Self.values(at: path, from: [record]))
            }
        }
        return extras
    }

    /// The values at a key path from `records`: each related record's rowid and stored values
    /// (by column name), or the final attribute's values.
    private static func values(at path: (relationships: [String], attribute: String?), from records: [Record])
        -> [DatabaseValue]
    {
        var current = records
        for name in path.relationships {
            current = current.flatMap { record -> [Record] in
                guard let relationship = record.entity.relationship(named: name) else { return [] }
                return relationship.isToMany
                    ? record.relatedRecords(name, as: Record.self)
                    : record.related(name, as: Record.self).map { [$0] } ?? []
            }
        }
        if let attribute = path.attribute {
            return current.map { $0.storedValues[attribute] ?? .null }
        }
        return current.flatMap { record in
            [.integer(record.rowID)] + record.storedValues.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    // MARK: - Ordering

    /// Whether `lhs` comes before `rhs` in the results, as SQLite orders them: by each sort
    /// name's column (NULL first, numbers by value, text and blobs by their bytes), then by
    /// `_id`.
    ///
    /// A `decimal`, stored as text, sorts as the fetch sorts it (`SQLDialect.decimalOrderTerms`):
    /// by its exact value first (``DecimalOrder``), then by its text.
    func precedes(_ lhs: Record, _ rhs: Record) -> Bool {
        for sort in order {
            let (left, right) = (lhs.storedValues[sort.name] ?? .null, rhs.storedValues[sort.name] ?? .null)
            var comparison = 0
            if entity.attribute(named: sort.name)?.type == .decimal, case .text(let a) = left, case .text(let b) = right
            {
                comparison = DecimalOrder.compare(a, b)
            }
            if comparison == 0 { comparison = SQLiteOrdering.compare(left, right) }
            if comparison != 0 { return sort.ascending ? comparison < 0 : comparison > 0 }
        }
        return lhs.rowID < rhs.rowID
    }
}

/// SQLite's order of values with the BINARY collation: NULL, then numbers (integers and reals
/// together, by value), then text by its UTF-8 bytes, then blobs by their bytes.
enum SQLiteOrdering {
    /// Negative when `lhs` sorts first, zero when equal, positive otherwise.
    static func compare(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Int {
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right { return left < right ? -1 : 1 }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .real(let b)): return -compare(real: b, integer: a)
        case (.real(let a), .integer(let b)): return compare(real: a, integer: b)
        case (.real(let a), .real(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.text(let a), .text(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.blob(let a), .blob(let b)): return bytes(Array(a), Array(b))
        default: return 0
        }
    }

    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    /// A real against an integer, exactly (a double cannot hold every 64-bit integer).
    private static func compare(real: Double, integer: Int64) -> Int {
        if real.isNaN { return -1 }
        if real < -9.3e18 { return -1 }
        if real >= 9.3e18 { return 1 }
        let whole = Int64(real.rounded(.down))
        if whole != integer { return whole < integer ? -1 : 1 }
        return real > Double(whole) ? 1 : 0
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
