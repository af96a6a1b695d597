import Foundation

extension RecordDatabase {
    /// Every record of an entity as JSON, sorted by primary key: what `webrecord export` prints.
    ///
    /// For example:
    ///
    /// ```swift
    /// let posts = try store.exportJSON(entity: "Post")
    /// print(posts.serialized(prettyPrinted: true))
    /// // [
    /// //   {
    /// //     "id": "1644504",
    /// //     "date": "2012-11-21T02:33:42.000000000Z",
    /// //     "user": "2046",
    /// //     ...
    /// ```
    ///
    /// The result is an array with one object per record of the entity, its sub-entities
    /// included. Each object holds:
    ///
    /// - `_entity`, first, with the record's concrete entity name, but only when the entity has
    ///   sub-entities (`_` starts no schema name, so it cannot clash with an attribute);
    /// - every attribute of the record's concrete entity, by name, in the form of
    ///   ``Record/jsonValue(_:)``: dates as ISO-8601 UTC text, data as base64, booleans as
    ///   true/false, `json` attributes as the JSON they hold, null for null;
    /// - every to-one relationship as the destination's primary-key value
    ///   (``Record/primaryKeyValue``), or null when nothing is related or the destination has
    ///   no key;
    /// - every to-many relationship as an array of those values: in stored order when the
    ///   relationship is ordered, ascending by the destination's key otherwise.
    ///
    /// Records are sorted by their primary key's stored value: numbers numerically (decimals
    /// too), text by its UTF-8 bytes, a composite key part by part, a relationship key by the
    /// owner's key. Records without a key, or with a null one, come first; ties keep storage
    /// (`_id`) order, which is also the order for an entity without a primary key.
    ///
    /// The export reads the store in one read transaction, with one query for the records and
    /// a few set-based queries per relationship, so its cost grows with the number of rows, not
    /// with rows times relationships.
    ///
    /// - Parameter entity: The entity's name.
    /// - Returns: A JSON array.
    /// - Throws: ``WebRecordError``: `invalidEntityDescription` for an unknown entity,
    ///   `storeError` when the database fails.
    package func exportJSON(entity entityName: String) throws(WebRecordError) -> JSONValue {
        let entity = try schema.requireEntity(entityName)
        return try withSnapshot { queries throws(WebRecordError) in
            var exporter = RecordExporter(schema: schema, layout: layout, queries: queries, dialect: dialect)
            return try exporter.export(entity)
        }
    }
}

// MARK: - Sort keys

/// One part of a primary key, ordered the way the export sorts: null, then numbers, then text,
/// then bytes.
enum ExportKeyPart: Comparable {
    case null
    case integer(Int64)
    case real(Double)
    case decimal(Decimal)
    case text(String)
    case blob(Data)

    init(_ value: DatabaseValue, type: AttributeType) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .text(let text):
            if type == .decimal, let number = DecimalCoding.decimal(from: text) {
                self = .decimal(number)
            } else {
                self = .text(text)
            }
        case .blob(let data): self = .blob(data)
        }
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .integer, .real, .decimal: 1
        case .text: 2
        case .blob: 3
        }
    }

    private var decimalValue: Decimal? {
        switch self {
        case .integer(let number): Decimal(number)
        case .real(let number): number.isFinite ? Decimal(number) : nil
        case .decimal(let number): number
        default: nil
        }
    }

    static func < (lhs: ExportKeyPart, rhs: ExportKeyPart) -> Bool {
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.real(let a), .real(let b)): return a < b
        case (.integer(let a), .real(let b)): return Double(a) < b
        case (.real(let a), .integer(let b)): return a < Double(b)
        case (.text(let a), .text(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.blob(let a), .blob(let b)): return a.lexicographicallyPrecedes(b)
        default:
            guard let a = lhs.decimalValue, let b = rhs.decimalValue else { return false }
            return a < b
        }
    }

    static func == (lhs: ExportKeyPart, rhs: ExportKeyPart) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}

/// A record's identity as the export shows and sorts it.
struct ExportKey {
    /// The key as JSON (``Record/primaryKeyValue``'s form), or nil when the record has none.
    var value: JSONValue?
    /// The parts compared when sorting; empty when the record has no key.
    var parts: [ExportKeyPart]

    static let none = ExportKey(value: nil, parts: [])

    /// Whether `lhs` sorts before `rhs`; ties are for the caller to break.
    static func precedes(_ lhs: ExportKey, _ rhs: ExportKey) -> Bool? {
        for (a, b) in zip(lhs.parts, rhs.parts) where a != b {
            return a < b
        }
        if lhs.parts.count != rhs.parts.count { return lhs.parts.count < rhs.parts.count }
        return nil
    }
}

// MARK: - Exporter

/// Builds one export inside a read transaction. Loads each table's keys once and each
/// relationship's links once, so the work is a fixed number of queries per relationship.
private struct RecordExporter {
    let schema: Schema
    let layout: StorageLayout
    let queries: any RecordQuerying
    /// The SQL of the database read.
    let dialect: SQLDialect
    /// root table name -> row id -> key
    private var keysByTable: [String: [Int64: ExportKey]] = [:]
    /// Tables whose keys are being loaded, to stop a cycle of relationship keys.
    private var loading: Set<String> = []

    init(schema: Schema, layout: StorageLayout, queries: any RecordQuerying, dialect: SQLDialect) {
        self.schema = schema
        self.layout = layout
        self.queries = queries
        self.dialect = dialect
    }

    mutating func export(_ entity: Entity) throws(WebRecordError) -> JSONValue {
        let hierarchy = schema.hierarchy(from: entity.name)
        let names = hierarchy.map(\.name)
        // By entity, a root's too: rows of an entity the schema no longer has are not read.
        var sql = "SELECT * FROM \(quote(entity.rootName))"
        sql += " WHERE \"_entity\" IN (\(sqlPlaceholders(names.count)))"
        let arguments: [DatabaseValue] = names.map { .text($0) }
        sql += " ORDER BY \"_id\""
        let records = try queries.records(sql, arguments)
        let tableKeys = try keys(ofTable: entity.rootName)

        // Relationship links and destination keys, loaded once per relationship (keyed by the
        // declaring entity, so sibling sub-entities may reuse a name).
        var links: [String: [Int64: [Int64]]] = [:]
        var destinationKeys: [String: [Int64: ExportKey]] = [:]
        for member in hierarchy {
            for relationship in member.relationships where links[Self.id(relationship)] == nil {
                links[Self.id(relationship)] = try self.links(of: relationship, in: member)
                if let destination = schema.entity(named: relationship.destination) {
                    destinationKeys[Self.id(relationship)] = try keys(ofTable: destination.rootName)
                }
            }
        }

        let sorted = records.enumerated().sorted { lhs, rhs in
            let a = tableKeys[lhs.element.rowID] ?? .none
            let b = tableKeys[rhs.element.rowID] ?? .none
            return ExportKey.precedes(a, b) ?? (lhs.offset < rhs.offset)
        }.map(\.element)

        let withEntity = hierarchy.count > 1
        var objects: [JSONValue] = []
        objects.reserveCapacity(sorted.count)
        for record in sorted {
            var object = JSONObject()
            if withEntity { object["_entity"] = .string(record.entity.name) }
            for attribute in record.entity.attributes {
                object[attribute.name] =
                    record.jsonValue(attribute.name) ?? Self.rawJSON(record.storedValues[attribute.name])
            }
            for relationship in record.entity.relationships {
                let related = links[Self.id(relationship)]?[record.rowID] ?? []
                let keys = destinationKeys[Self.id(relationship)] ?? [:]
                if relationship.isToMany {
                    var members = related.enumerated().map {
                        (offset: $0.offset, id: $0.element, key: keys[$0.element] ?? .none)
                    }
                    if !relationship.isOrdered {
                        members.sort { lhs, rhs in ExportKey.precedes(lhs.key, rhs.key) ?? (lhs.id < rhs.id) }
                    }
                    object[relationship.name] = .array(members.map { $0.key.value ?? .null })
                } else {
                    object[relationship.name] = related.first.flatMap { keys[$0]?.value } ?? .null
                }
            }
            objects.append(.object(object))
        }
        return .array(objects)
    }

    private static func id(_ relationship: Relationship) -> String {
        "\(relationship.entityName).\(relationship.name)"
    }

    /// A stored value as JSON when its attribute's conversion failed (a `json` column holding
    /// text that is not JSON): the text itself.
    private static func rawJSON(_ value: DatabaseValue?) -> JSONValue {
        switch value {
        case .text(let text)?: .string(text)
        case .integer(let number)?: .integer(number)
        case .real(let number)?: .double(number)
        case .blob(let data)?: .string(data.base64EncodedString())
        case .null?, nil: .null
        }
    }

    // MARK: Keys

    /// The keys of every row of a root table, loaded with one query (plus one per relationship key).
    mutating func keys(ofTable table: String) throws(WebRecordError) -> [Int64: ExportKey] {
        if let cached = keysByTable[table] { return cached }
        guard !loading.contains(table), let root = schema.entity(named: table) else { return [:] }
        loading.insert(table)
        defer { loading.remove(table) }

        // The key of each entity in the hierarchy (a sub-entity may declare one its root lacks).
        let hierarchy = schema.hierarchy(from: root.name)
        var columns: [String] = []
        var ownerLinks: [String: [Int64: [Int64]]] = [:]
        var ownerKeys: [String: [Int64: ExportKey]] = [:]
        for entity in hierarchy {
            switch entity.primaryKey {
            case .attribute(let name)?:
                if !columns.contains(name) { columns.append(name) }
            case .composite(let names)?:
                for name in names where !columns.contains(name) { columns.append(name) }
            case .relationship(let name)?:
                guard ownerLinks[name] == nil, let relationship = entity.relationship(named: name),
                    let destination = schema.entity(named: relationship.destination)
                else { continue }
                ownerLinks[name] = try links(of: relationship, in: entity)
                ownerKeys[name] = try keys(ofTable: destination.rootName)
            case nil:
                continue
            }
        }
        var keys: [Int64: ExportKey] = [:]
        if columns.isEmpty && ownerLinks.isEmpty {
            keysByTable[table] = keys
            return keys
        }
        let select = (["\"_id\"", "\"_entity\""] + columns.map(quote)).joined(separator: ", ")
        let rows = try queries.rows("SELECT \(select) FROM \(quote(table))", [])
        keys.reserveCapacity(rows.count)
        for row in rows {
            guard case .integer(let id) = row[0], case .text(let entityName) = row[1],
                let entity = schema.entity(named: entityName), let primaryKey = entity.primaryKey
            else { continue }
            func part(_ name: String) -> (JSONValue, ExportKeyPart) {
                guard let index = columns.firstIndex(of: name), let attribute = entity.attribute(named: name) else {
                    return (.null, .null)
                }
                let stored = row[index + 2]
                let json = JSONValue(storedValue: stored, type: attribute.type) ?? Self.rawJSON(stored)
                return (json, ExportKeyPart(stored, type: attribute.type))
            }
            switch primaryKey {
            case .attribute(let name):
                let (json, sortPart) = part(name)
                keys[id] = ExportKey(value: json.isNull ? nil : json, parts: [sortPart])
            case .composite(let names):
                let parts = names.map(part)
                keys[id] = ExportKey(value: .array(parts.map(\.0)), parts: parts.map(\.1))
            case .relationship(let name):
                guard let owner = ownerLinks[name]?[id]?.first, let key = ownerKeys[name]?[owner] else { continue }
                keys[id] = key
            }
        }
        keysByTable[table] = keys
        return keys
    }

    // MARK: Links

    /// Every link of a relationship: owner row id -> related row ids, in stored order for an
    /// ordered relationship, by row id otherwise. One query.
    func links(of relationship: Relationship, in entity: Entity) throws(WebRecordError) -> [Int64: [Int64]] {
        guard let storage = layout.storage(of: relationship.name, in: entity.name) else {
            throw WebRecordError.unknownProperty(relationship.name, entity: entity.name)
        }
        let sql: String
        switch storage {
        case .foreignKeyHere(let column, _):
            sql = "SELECT \"_id\", \(quote(column)) FROM \(quote(entity.rootName)) WHERE \(quote(column)) IS NOT NULL"
        case .foreignKeyThere(let table, let column, let position):
            sql =
                "SELECT \(quote(column)), \"_id\" FROM \(quote(table)) WHERE \(quote(column)) IS NOT NULL ORDER BY "
                + (position.map { "\(dialect.orderTerm(quote($0))), " } ?? "") + "\"_id\""
        case .joinTable(let table, let selfColumn, let otherColumn, let position):
            sql =
                "SELECT \(quote(selfColumn)), \(quote(otherColumn)) FROM \(quote(table)) ORDER BY "
                + (position.map { "\(dialect.orderTerm(quote($0))), " } ?? "") + quote(otherColumn)
        }
        var links: [Int64: [Int64]] = [:]
        for row in try queries.rows(sql, []) {
            guard row.count == 2, case .integer(let owner) = row[0], case .integer(let target) = row[1] else {
                continue
            }
            links[owner, default: []].append(target)
        }
        return links
    }
}
