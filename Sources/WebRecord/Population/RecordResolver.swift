/// Matches proto-records to stored rows (pipeline step 3), with one batched query per table.
///
/// Proto-records identified by key are looked up with `IN` queries chunked under SQLite's
/// variable limit. Proto-records identified by their owner are looked up, once their owners
/// are resolved, through the owner's relationship: again one query per table and round.
/// What is not found is new: it gets a fresh `_id` now, and is inserted by the ``Marshaler``.
struct RecordResolver {
    let store: RecordStore
    let connection: Connection
    let debugger: Debugger
    private var nextRowID: [String: Int64] = [:]

    init(store: RecordStore, connection: Connection, debugger: Debugger) {
        self.store = store
        self.connection = connection
        self.debugger = debugger
    }

    /// Resolves every proto-record to a ``RowState``, existing or new.
    mutating func resolve(_ protoRecords: [ProtoRecord]) throws(WebRecordError) {
        var keyed: [String: [ProtoRecord]] = [:]
        var owned: [ProtoRecord] = []
        for proto in protoRecords {
            switch proto.identity {
            case .key(let root, _)?: keyed[root, default: []].append(proto)
            case .owned?: owned.append(proto)
            case nil: try makeNew(proto)
            }
        }
        for table in keyed.keys.sorted() {
            try resolveByKey(keyed[table] ?? [], table: table)
        }
        // Owned records resolve in rounds: each round, those whose owners are resolved.
        var pending = owned
        while !pending.isEmpty {
            let ready = pending.filter { $0.owner?.proto.row != nil }
            if ready.isEmpty {
                for proto in pending { try makeNew(proto) }
                break
            }
            pending.removeAll { $0.owner?.proto.row != nil }
            try resolveByOwner(ready)
        }
    }

    // MARK: - By key

    private mutating func resolveByKey(_ protos: [ProtoRecord], table: String) throws(WebRecordError) {
        guard let layout = store.layout.table(named: table) else { return }
        let keyColumns = layout.primaryKeyColumns
        var wanted: [[DatabaseValue]: ProtoRecord] = [:]
        for proto in protos {
            if let key = proto.normalizedKey { wanted[key] = proto }
        }
        let keys = Array(wanted.keys)
        let perRow = max(1, keyColumns.count)
        let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) / perRow - 1)
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            start += chunkSize
            let sql: String
            if keyColumns.count == 1 {
                sql = "SELECT * FROM \(quote(table)) WHERE \(quote(keyColumns[0])) IN (\(Self.placeholders(chunk.count)))"
            } else {
                let tuple = "(" + Self.placeholders(keyColumns.count) + ")"
                sql = "SELECT * FROM \(quote(table)) WHERE (\(keyColumns.map(quote).joined(separator: ", "))) IN (VALUES "
                    + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + ")"
            }
            try forEachRow(sql, chunk.flatMap { $0 }, table: table) { row in
                let key = keyColumns.map { row.values[$0] ?? .null }
                if let proto = wanted[key] { attach(row, to: proto) }
            }
        }
        for proto in protos where proto.row == nil {
            try makeNew(proto)
        }
    }

    // MARK: - By owner

    private mutating func resolveByOwner(_ protos: [ProtoRecord]) throws(WebRecordError) {
        // Group by (child table, owner relationship); only owners already stored can have a child stored.
        var groups: [String: [ProtoRecord]] = [:]
        for proto in protos {
            guard let owner = proto.owner, owner.proto.row?.isNew == false else {
                try makeNew(proto)
                continue
            }
            groups["\(proto.entity.rootName)|\(owner.relationship.entityName).\(owner.relationship.name)", default: []].append(proto)
        }
        for groupKey in groups.keys.sorted() {
            guard let group = groups[groupKey], let first = group.first, let owner = first.owner else { continue }
            let childTable = first.entity.rootName
            guard let lookup = ownerLookup(child: first.entity, ownerEntity: owner.proto.entity, relationship: owner.relationship) else {
                for proto in group { try makeNew(proto) }
                continue
            }
            var byOwner: [Int64: ProtoRecord] = [:]
            for proto in group {
                if let id = proto.owner?.proto.row?.rowID { byOwner[id] = proto }
            }
            let ids = Array(byOwner.keys)
            let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) - 1)
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(start + chunkSize, ids.count)]
                start += chunkSize
                let sql = lookup.sql.replacingOccurrences(of: "%IDS%", with: Self.placeholders(chunk.count))
                try forEachRow(sql, chunk.map { .integer($0) }, table: childTable) { row in
                    guard case .integer(let ownerID)? = row.values[lookup.ownerColumn], let proto = byOwner[ownerID] else { return }
                    if lookup.ownerColumn == "_owner" { row.values["_owner"] = nil }
                    attach(row, to: proto)
                }
            }
            for proto in group where proto.row == nil {
                try makeNew(proto)
            }
        }
    }

    /// SQL finding the child rows of a set of owners (`%IDS%` stands for the placeholders),
    /// and the result column holding each row's owner `_id`.
    private func ownerLookup(child: Entity, ownerEntity: Entity, relationship: Relationship) -> (sql: String, ownerColumn: String)? {
        let childTable = quote(child.rootName)
        let ownerSide = store.schema.entity(ownerEntity.name, isKindOf: relationship.entityName)
        guard let storage = store.layout.storage(of: relationship.name, in: relationship.entityName) else { return nil }
        switch (ownerSide, storage) {
        case (true, .foreignKeyThere(_, let column, _)), (false, .foreignKeyHere(let column, _)):
            // The child's table holds the owner's _id.
            return ("SELECT * FROM \(childTable) WHERE \(quote(column)) IN (%IDS%)", column)
        case (true, .foreignKeyHere(let column, _)), (false, .foreignKeyThere(_, let column, _)):
            // The owner's table holds the child's _id.
            let ownerTable = quote(ownerEntity.rootName)
            return ("SELECT o.\"_id\" AS \"_owner\", c.* FROM \(ownerTable) o JOIN \(childTable) c ON c.\"_id\" = o.\(quote(column)) WHERE o.\"_id\" IN (%IDS%)", "_owner")
        default:
            return nil
        }
    }

    // MARK: - Rows

    private func forEachRow(
        _ sql: String, _ arguments: [DatabaseValue], table: String, _ body: (RowState) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let statement = try connection.cachedStatement(sql)
        let names = (0..<statement.columnCount).map { statement.columnName($0) }
        try statement.forEachRow(arguments) { row throws(WebRecordError) in
            var values: [String: DatabaseValue] = [:]
            values.reserveCapacity(names.count)
            var rowID: Int64 = 0
            var entityName = ""
            for index in names.indices {
                let name = names[index]
                if name == "_id" {
                    rowID = row.int64(at: index)
                } else if name == "_entity" {
                    if case .text(let text) = row.value(at: index) { entityName = text }
                } else {
                    values[name] = row.value(at: index)
                }
            }
            try body(RowState(table: table, rowID: rowID, entityName: entityName, values: values, isNew: false))
        }
    }

    private func attach(_ row: RowState, to proto: ProtoRecord) {
        guard proto.row == nil else { return }
        // A stored record keeps its sub-entity unless the response picked a more specific or another one.
        if let stored = store.schema.entity(named: row.entityName), stored.name != proto.entity.name {
            if proto.isReference || store.schema.entity(stored.name, isKindOf: proto.entity.name) {
                proto.entity = stored
            } else {
                row.isChanged = true
            }
        }
        row.entityName = proto.entity.name
        row.original = row.values
        proto.row = row
        proto.rowID = row.rowID
    }

    private mutating func makeNew(_ proto: ProtoRecord) throws(WebRecordError) {
        let table = proto.entity.rootName
        let next: Int64
        if let cached = nextRowID[table] {
            next = cached
        } else {
            let maximum = try connection.scalar("SELECT max(\"_id\") FROM \(quote(table))")
            if case .integer(let value)? = maximum { next = value + 1 } else { next = 1 }
        }
        nextRowID[table] = next + 1
        let row = RowState(table: table, rowID: next, entityName: proto.entity.name, values: [:], isNew: true)
        proto.row = row
        proto.rowID = next
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
