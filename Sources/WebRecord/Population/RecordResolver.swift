/// Matches proto-records to stored rows (pipeline step 3), with one batched query per table.
///
/// Proto-records identified by key are looked up with one lookup of the whole key set per
/// table, however many keys. Proto-records identified by their owner are looked up, once their
/// owners are resolved, through the owner's relationship: again one lookup per table and round.
/// What is not found is new: it gets a fresh `_id` now, reserved from the store a batch at a
/// time (``RecordStorageTransaction/reserveRowIDs(in:count:)``), and is inserted by the
/// ``PopulationWriter``.
struct RecordResolver<Storage: RecordStorage> {
    let store: Storage
    let transaction: Storage.Transaction
    let plans: TablePlans
    let representations: RepresentationSet
    let debugger: Debugger

    /// Resolves every proto-record to a ``RowState``, existing or new.
    func resolve(_ protoRecords: [ProtoRecord]) throws(WebRecordError) {
        var keyed: [String: [ProtoRecord]] = [:]
        var owned: [ProtoRecord] = []
        var unidentified: [ProtoRecord] = []
        for proto in protoRecords {
            if proto.normalizedKey != nil {
                keyed[proto.representation.rootName, default: []].append(proto)
            } else if proto.owner != nil {
                owned.append(proto)
            } else {
                unidentified.append(proto)
            }
        }
        try makeNew(unidentified)
        for table in keyed.keys.sorted() {
            try resolveByKey(keyed[table] ?? [], table: table)
        }
        // Owned records resolve in rounds: each round, those whose owners are resolved.
        var pending = owned
        while !pending.isEmpty {
            let ready = pending.filter { $0.owner?.proto.row != nil }
            if ready.isEmpty {
                try makeNew(pending)
                break
            }
            pending.removeAll { $0.owner?.proto.row != nil }
            try resolveByOwner(ready)
        }
    }

    // MARK: - By key

    private func resolveByKey(_ protos: [ProtoRecord], table: String) throws(WebRecordError) {
        guard let plan = plans[table], !plan.primaryKeyColumns.isEmpty else {
            try makeNew(protos)
            return
        }
        let keyColumns = plan.primaryKeyColumns
        var wanted: [KeyValue: ProtoRecord] = [:]
        wanted.reserveCapacity(protos.count)
        for proto in protos {
            if let key = proto.normalizedKey { wanted[key] = proto }
        }
        func match(_ found: TableRow) {
            let row = RowState(storedIn: plan, rowID: found.rowID, entityName: found.entityName, values: found.values)
            if let proto = wanted[KeyValue(row: row.values, columns: keyColumns)] { attach(row, to: proto) }
        }
        if keyColumns.count == 1 {
            try transaction.forEachRow(
                in: table, where: plan.columns[keyColumns[0]], isIn: wanted.keys.map(\.firstPart), match)
        } else {
            try transaction.forEachRow(
                in: table, where: keyColumns.map { plan.columns[$0] }, areIn: wanted.keys.map(\.parts), match)
        }
        try makeNew(protos.filter { $0.row == nil && !$0.isRejected })
    }

    // MARK: - By owner

    /// Proto-records identified by their owner, grouped by child table and owner relationship.
    private struct Group: Hashable {
        let table: String
        let ownerEntity: String
        let relationship: String
    }

    private func resolveByOwner(_ protos: [ProtoRecord]) throws(WebRecordError) {
        // Group by (child table, owner relationship); only owners already stored can have a child stored.
        var groups: [Group: [ProtoRecord]] = [:]
        var ownersAreNew: [ProtoRecord] = []
        for proto in protos {
            guard let owner = proto.owner, owner.proto.row?.isNew == false else {
                ownersAreNew.append(proto)
                continue
            }
            let relationship = owner.relationship.property
            let group = Group(
                table: proto.representation.rootName, ownerEntity: relationship.entityName,
                relationship: relationship.name)
            groups[group, default: []].append(proto)
        }
        try makeNew(ownersAreNew)
        let ordered = groups.keys.sorted {
            "\($0.table)|\($0.ownerEntity).\($0.relationship)" < "\($1.table)|\($1.ownerEntity).\($1.relationship)"
        }
        for groupKey in ordered {
            guard let group = groups[groupKey], let first = group.first, let owner = first.owner,
                let plan = plans[first.representation.rootName]
            else { continue }
            guard
                let lookup = ownerLookup(
                    plan: plan, ownerEntity: owner.proto.entity, relationship: owner.relationship.property)
            else {
                try makeNew(group)
                continue
            }
            var byOwner: [Int64: ProtoRecord] = [:]
            byOwner.reserveCapacity(group.count)
            for proto in group {
                if let id = proto.owner?.proto.row?.rowID { byOwner[id] = proto }
            }
            func match(_ found: TableRow, ownerID: Int64) {
                guard let proto = byOwner[ownerID] else { return }
                attach(
                    RowState(storedIn: plan, rowID: found.rowID, entityName: found.entityName, values: found.values),
                    to: proto)
            }
            switch lookup {
            case .childHoldsOwner(let column, let index):
                try transaction.forEachRow(in: plan.name, where: column, isIn: byOwner.keys.map { .integer($0) }) {
                    found in
                    guard case .integer(let ownerID) = found.values[index] else { return }
                    match(found, ownerID: ownerID)
                }
            case .ownerHoldsChild(let column):
                try transaction.forEachRow(
                    in: plan.name, referencedBy: column, of: owner.proto.entity.rootName, ownerIDs: Array(byOwner.keys)
                ) { ownerID, found in
                    match(found, ownerID: ownerID)
                }
            }
            try makeNew(group.filter { $0.row == nil })
        }
    }

    /// Where the link between an owner and its child is kept, which decides how the children of
    /// a set of owners are found.
    private enum OwnerLookup {
        /// The child's table holds the owner's `_id` in `column`, at `index` in the plan's columns.
        case childHoldsOwner(column: String, index: Int)
        /// The owner's table holds the child's `_id` in `column`.
        case ownerHoldsChild(column: String)
    }

    /// How the child rows of a set of owners are found, or nil when the layout keeps no link.
    private func ownerLookup(plan: TablePlan, ownerEntity: Entity, relationship: Relationship) -> OwnerLookup? {
        let ownerSide = store.schema.entity(ownerEntity.name, isKindOf: relationship.entityName)
        guard let storage = store.layout.storage(of: relationship.name, in: relationship.entityName) else { return nil }
        switch (ownerSide, storage) {
        case (true, .foreignKeyThere(_, let column, _)), (false, .foreignKeyHere(let column, _)):
            guard let index = plan.columnIndex[column] else { return nil }
            return .childHoldsOwner(column: column, index: index)
        case (true, .foreignKeyHere(let column, _)), (false, .foreignKeyThere(_, let column, _)):
            return .ownerHoldsChild(column: column)
        default:
            return nil
        }
    }

    // MARK: - Rows

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
                debugger.record(
                    WebRecordError(
                        .typeMismatch,
                        "\(proto) names a stored \(stored.name), not a kind of \(entityName); nothing is linked to it",
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

    /// Gives each of `protos` (in order, skipping any that has a row already) a new row with a
    /// fresh `_id`: one reservation from the store per table, however many records.
    private func makeNew(_ protos: [ProtoRecord]) throws(WebRecordError) {
        var tables: [TablePlan] = []
        var byTable: [String: [ProtoRecord]] = [:]
        var seen = Set<ObjectIdentifier>()
        for proto in protos where proto.row == nil && seen.insert(ObjectIdentifier(proto)).inserted {
            guard let plan = proto.representation.table else {
                throw WebRecordError(
                    .storeError, "the store has no table '\(proto.entity.rootName)'", entity: proto.entity.name)
            }
            if byTable[plan.name] == nil { tables.append(plan) }
            byTable[plan.name, default: []].append(proto)
        }
        for plan in tables {
            guard let members = byTable[plan.name] else { continue }
            let rowIDs = try transaction.reserveRowIDs(in: plan.name, count: members.count)
            guard rowIDs.count == members.count else {
                throw WebRecordError(
                    .storeError,
                    "the store reserved \(rowIDs.count) new ids in '\(plan.name)' for \(members.count) rows")
            }
            for (proto, rowID) in zip(members, rowIDs) {
                proto.row = RowState(newIn: plan, rowID: rowID, entityName: proto.representation.name)
                proto.rowID = rowID
            }
        }
    }
}
