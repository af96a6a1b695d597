/// Matches proto-records to stored rows (pipeline step 3), with one batched query per table.
///
/// Proto-records identified by key are looked up with one `json_each` join per table, however
/// many keys (see ``KeySetQuery``). Proto-records identified by their owner are looked up, once their owners
/// are resolved, through the owner's relationship: again one query per table and round.
/// What is not found is new: it gets a fresh `_id` now, and is inserted by the ``PopulationWriter``.
struct RecordResolver {
    let store: SQLiteDatabase
    let connection: Connection
    let plans: TablePlans
    let representations: RepresentationSet
    let debugger: Debugger

    init(store: SQLiteDatabase, connection: Connection, plans: TablePlans, representations: RepresentationSet, debugger: Debugger) {
        self.store = store
        self.connection = connection
        self.plans = plans
        self.representations = representations
        self.debugger = debugger
    }

    /// Resolves every proto-record to a ``RowState``, existing or new.
    func resolve(_ protoRecords: [ProtoRecord]) throws(WebRecordError) {
        var keyed: [String: [ProtoRecord]] = [:]
        var owned: [ProtoRecord] = []
        for proto in protoRecords {
            if proto.normalizedKey != nil {
                keyed[proto.representation.rootName, default: []].append(proto)
            } else if proto.owner != nil {
                owned.append(proto)
            } else {
                try makeNew(proto)
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

    private func resolveByKey(_ protos: [ProtoRecord], table: String) throws(WebRecordError) {
        guard let plan = plans[table], !plan.primaryKeyColumns.isEmpty else {
            for proto in protos { try makeNew(proto) }
            return
        }
        let keyColumns = plan.primaryKeyColumns
        var wanted: [KeyValue: ProtoRecord] = [:]
        wanted.reserveCapacity(protos.count)
        for proto in protos {
            if let key = proto.normalizedKey { wanted[key] = proto }
        }
        func match(_ statement: Statement) {
            let row = Self.readRow(statement, plan: plan, leadingColumns: 0)
            if let proto = wanted[KeyValue(row: row.values, columns: keyColumns)] { attach(row, to: proto) }
        }
        if keyColumns.count == 1 {
            let query = KeySetQuery(
                columns: plan.selectList(alias: "t"), table: table, alias: "t", keyColumn: plan.columns[keyColumns[0]],
                guardTable: table)
            try query.forEachRow(wanted.keys.map(\.firstPart), on: connection, match)
        } else {
            try forEachRow(matchingCompositeKeys: Array(wanted.keys), plan: plan, match)
        }
        for proto in protos where proto.row == nil && !proto.isRejected {
            try makeNew(proto)
        }
    }

    /// Runs the lookup of composite keys, `(a, b) IN (VALUES (?, ?), ...)`, in chunks under
    /// SQLite's variable limit.
    private func forEachRow(
        matchingCompositeKeys keys: [KeyValue], plan: TablePlan, _ body: (Statement) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let keyColumns = plan.primaryKeyColumns
        let chunkSize = max(1, min(connection.maximumVariableCount, 32_766) / keyColumns.count - 1)
        let columns = keyColumns.map { quote(plan.columns[$0]) }.joined(separator: ", ")
        let tuple = "(" + Self.placeholders(keyColumns.count) + ")"
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            start += chunkSize
            let sql = "SELECT \(plan.selectList) FROM \(quote(plan.name)) WHERE (\(columns)) IN (VALUES "
                + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + ")"
            var arguments: [DatabaseValue] = []
            arguments.reserveCapacity(chunk.count * keyColumns.count)
            for key in chunk { arguments.append(contentsOf: key.parts) }
            // Prepared for this one use: caching would keep one statement per chunk size met.
            try Statement(connection: connection, sql: sql).forEachRow(arguments, body)
        }
    }

    // MARK: - By owner

    private func resolveByOwner(_ protos: [ProtoRecord]) throws(WebRecordError) {
        // Group by (child table, owner relationship); only owners already stored can have a child stored.
        struct Group: Hashable {
            let table: String
            let ownerEntity: String
            let relationship: String
        }
        var groups: [Group: [ProtoRecord]] = [:]
        for proto in protos {
            guard let owner = proto.owner, owner.proto.row?.isNew == false else {
                try makeNew(proto)
                continue
            }
            let relationship = owner.relationship.property
            let group = Group(
                table: proto.representation.rootName, ownerEntity: relationship.entityName, relationship: relationship.name)
            groups[group, default: []].append(proto)
        }
        let ordered = groups.keys.sorted { "\($0.table)|\($0.ownerEntity).\($0.relationship)" < "\($1.table)|\($1.ownerEntity).\($1.relationship)" }
        for groupKey in ordered {
            guard let group = groups[groupKey], let first = group.first, let owner = first.owner,
                let plan = plans[first.representation.rootName]
            else { continue }
            guard let lookup = ownerLookup(
                child: first.entity, plan: plan, ownerEntity: owner.proto.entity, relationship: owner.relationship.property)
            else {
                for proto in group { try makeNew(proto) }
                continue
            }
            var byOwner: [Int64: ProtoRecord] = [:]
            byOwner.reserveCapacity(group.count)
            for proto in group {
                if let id = proto.owner?.proto.row?.rowID { byOwner[id] = proto }
            }
            let leadingColumns = lookup.ownerInFirstColumn ? 1 : 0
            try lookup.query.forEachRow(byOwner.keys.map { .integer($0) }, on: connection) { statement throws(WebRecordError) in
                let row = Self.readRow(statement, plan: plan, leadingColumns: leadingColumns)
                let ownerID = lookup.ownerInFirstColumn ? statement.int64(at: 0) : lookup.ownerColumn.flatMap { column in
                    if case .integer(let id) = row.values[column] { return id }
                    return nil
                }
                guard let ownerID, let proto = byOwner[ownerID] else { return }
                attach(row, to: proto)
            }
            for proto in group where proto.row == nil {
                try makeNew(proto)
            }
        }
    }

    /// The query finding the child rows of a set of owners, and where each row's owner `_id`
    /// is: in a column of the child, or in the first result column.
    private func ownerLookup(
        child: Entity, plan: TablePlan, ownerEntity: Entity, relationship: Relationship
    ) -> (query: KeySetQuery, ownerColumn: Int?, ownerInFirstColumn: Bool)? {
        let ownerSide = store.schema.entity(ownerEntity.name, isKindOf: relationship.entityName)
        guard let storage = store.layout.storage(of: relationship.name, in: relationship.entityName) else { return nil }
        switch (ownerSide, storage) {
        case (true, .foreignKeyThere(_, let column, _)), (false, .foreignKeyHere(let column, _)):
            // The child's table holds the owner's _id.
            guard let index = plan.columnIndex[column] else { return nil }
            let query = KeySetQuery(
                columns: plan.selectList(alias: "c"), table: child.rootName, alias: "c", keyColumn: column,
                guardTable: child.rootName)
            return (query, index, false)
        case (true, .foreignKeyHere(let column, _)), (false, .foreignKeyThere(_, let column, _)):
            // The owner's table holds the child's _id.
            let query = KeySetQuery(
                columns: "o.\"_id\", " + plan.selectList(alias: "c"), table: ownerEntity.rootName, alias: "o", keyColumn: "_id",
                joins: " JOIN \(quote(child.rootName)) AS c ON c.\"_id\" = o.\(quote(column))", guardTable: child.rootName)
            return (query, nil, true)
        default:
            return nil
        }
    }

    // MARK: - Rows

    /// The current row of `statement` as a stored ``RowState``: the result columns are
    /// `leadingColumns` extra ones, then `_id`, `_entity` and the plan's columns in order.
    private static func readRow(_ statement: Statement, plan: TablePlan, leadingColumns: Int) -> RowState {
        let rowID = statement.int64(at: leadingColumns)
        var entityName = ""
        if case .text(let text) = statement.value(at: leadingColumns + 1) { entityName = text }
        let columnCount = plan.columns.count
        var values: [DatabaseValue] = []
        values.reserveCapacity(columnCount)
        for index in 0..<columnCount {
            values.append(statement.value(at: leadingColumns + 2 + index))
        }
        return RowState(storedIn: plan, rowID: rowID, entityName: entityName, values: values)
    }

    private func attach(_ row: RowState, to proto: ProtoRecord) {
        guard proto.row == nil else { return }
        // A stored record keeps its sub-entity unless the response picked a more specific or another one.
        let entityName = proto.representation.name
        if row.entityName != entityName, let stored = representations[row.entityName] {
            if proto.isReference, !store.schema.entity(stored.name, isKindOf: entityName),
                !store.schema.entity(entityName, isKindOf: stored.name)
            {
                // A reference by key to a record of another branch (a Book-typed link naming a
                // stored Film): that record is not what the link may hold, so nothing links to it.
                debugger.record(WebRecordError(
                    .typeMismatch, "\(proto) names a stored \(stored.name), not a kind of \(entityName); nothing is linked to it",
                    isFatal: false, entity: entityName, value: proto.primaryKeyValue))
                proto.isRejected = true
                return
            }
            if proto.isReference || store.schema.entity(stored.name, isKindOf: entityName) {
                proto.become(stored)
            } else {
                row.isChanged = true
                row.switchedFrom = stored
            }
        }
        row.entityName = proto.representation.name
        proto.row = row
        proto.rowID = row.rowID
    }

    private func makeNew(_ proto: ProtoRecord) throws(WebRecordError) {
        guard let plan = proto.representation.table else {
            throw WebRecordError(.storeError, "the store has no table '\(proto.entity.rootName)'", entity: proto.entity.name)
        }
        let next: Int64
        if let known = plan.nextRowID {
            next = known
        } else if case .integer(let maximum)? = try connection.scalar("SELECT max(\"_id\") FROM \(quote(plan.name))") {
            next = maximum + 1
        } else {
            next = 1
        }
        plan.nextRowID = next + 1
        proto.row = RowState(newIn: plan, rowID: next, entityName: proto.representation.name)
        proto.rowID = next
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
