/// Matches proto-records to stored rows (pipeline step 3), with one batched query per table.
///
/// Proto-records identified by key are looked up with one lookup of the whole key set per
/// key scope (a table, or a sub-entity that declares its own key: DESIGN §3.3), however many
/// keys. Proto-records identified by their owner are looked up, once their
/// owners are resolved, through the owner's relationship: again one lookup per table and round.
/// What is not found is new: it gets a new row with a provisional `_id` (negative, unique in the
/// batch), which ``ResponsePopulation`` replaces with one the store reserves
/// (``RecordStorageTransaction/reserveRowIDs(in:count:)``) once the records that are not stored
/// are dropped, and the ``PopulationWriter`` inserts it.
struct RecordResolver<Storage: RecordStorage> {
    let store: Storage
    let transaction: Storage.Transaction
    let plans: TablePlans
    let representations: RepresentationSet
    let debugger: Debugger
    /// The provisional `_id`s of the new rows: -1, -2, ...
    let provisionalRowIDs = ProvisionalRowIDs()
    /// The stored rows of the records kept as stored, not updated, where the place they are
    /// given cannot hold them (a stored `Tile` given without a discriminator in a
    /// `Circle`-typed list): the response contained them all the same.
    let keptRows = KeptRows()

    /// Resolves every proto-record to a ``RowState``, existing or new.
    ///
    /// - Returns: whether two proto-records share a row (one record named with and without
    ///   its key, and what is found through it).
    @discardableResult
    func resolve(_ protoRecords: [ProtoRecord]) throws(WebRecordError) -> Bool {
        var keyed: [String: [ProtoRecord]] = [:]
        var owned: [ProtoRecord] = []
        for proto in protoRecords {
            if proto.normalizedKey != nil {
                keyed[proto.representation.keyScopeName, default: []].append(proto)
            } else if proto.owner != nil {
                owned.append(proto)
            } else {
                try makeNew(proto)
            }
        }
        for scope in keyed.keys.sorted() {
            try resolveByKey(keyed[scope] ?? [])
        }
        // A record found through its owner may be one the response also names by key (a user
        // nested without a key on one post, and with its key on another): both proto-records
        // then share one row, so that what each brings is merged into it, and it is written
        // and counted once.
        // StoredRows indexes by table: the scopes of sub-entity keys join their table's.
        var stored = StoredRows(
            keyed: keyed.keys.allSatisfy { representations[$0]?.rootName == $0 }
                ? keyed : Dictionary(grouping: keyed.values.joined(), by: \.representation.rootName))
        // The one-to-one links the response gives, either way, by the row of the record they
        // give a partner, for the records related there without a key (below).
        let claims = Self.oneToOneClaims(
            in: protoRecords, through: Self.relatedThereOneToOnes(owned, representations: representations))
        // Owned records resolve in rounds: each round, those whose owners are resolved.
        var pending = owned
        while !pending.isEmpty {
            let ready = pending.filter { $0.owner?.proto.row != nil }
            if ready.isEmpty {
                for proto in pending { try makeNew(proto) }
                break
            }
            pending.removeAll { $0.owner?.proto.row != nil }
            try resolveByOwner(ready, stored: &stored, claims: claims)
        }
        return stored.sharesRows
    }

    // MARK: - By key

    /// Looks up the proto-records of one key scope. The key's columns are the scope's own (the
    /// root's, or those of the sub-entity that declares the key), which the rows of every other
    /// branch of the table leave NULL: a row found holds a record of the scope.
    private func resolveByKey(_ protos: [ProtoRecord]) throws(WebRecordError) {
        guard let first = protos.first, let plan = first.representation.table,
            !first.representation.keyAttributes.isEmpty
        else {
            for proto in protos { try makeNew(proto) }
            return
        }
        let table = plan.name
        let keyColumns = first.representation.keyAttributes.map(\.column)
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
        for proto in protos where proto.row == nil && !proto.isRejected {
            try makeNew(proto)
        }
    }

    // MARK: - By owner

    private func resolveByOwner(
        _ protos: [ProtoRecord], stored: inout StoredRows, claims: [RowState: [OneToOneClaim]]
    ) throws(WebRecordError) {
        // Group by (child table, owner relationship); only owners already stored can have a child
        // stored. Each mapped relationship's group is found once, by the relationship's number,
        // so that no proto-record hashes names.
        var groups = OwnerGroups()
        // Two proto-records of one owner row through one relationship are one record (the
        // owner's row is shared when the response names it twice): they share one row too.
        var newChildren: [NewChild: RowState] = [:]
        for proto in protos {
            // An owner that ends as a sub-entity without the relationship (DESIGN §3.13) relates
            // nothing there once the response is applied. A new owner's record is new, and goes
            // unstored with the link (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``);
            // a stored owner's is the record the store relates there, as when the occurrences
            // are applied in turn: updated, then unlinked (deleted, if the owner identifies it)
            // by the switch, with no `_id` taken for a record never stored. One taken as new would
            // take an `_id` that a stream whose earlier batch found the stored record does not.
            guard let owner = proto.owner, !proto.isNewThere,
                owner.hasRelationship || owner.proto.row?.isNew == false
            else {
                try makeNew(proto)
                continue
            }
            let group = groups.index(of: owner.relationship, childTable: proto.representation.rootName)
            guard let ownerRow = owner.proto.row, !ownerRow.isNew else {
                let child = owner.proto.row.map { NewChild(owner: $0, group: group) }
                if let child, let row = newChildren[child] {
                    attach(row, to: proto)
                    stored.sharesRows = true
                } else {
                    try makeNew(proto)
                    if let child { newChildren[child] = proto.row }
                }
                continue
            }
            groups.members[group].append(proto)
        }
        let ordered = groups.keys.indices.filter { !groups.members[$0].isEmpty }.sorted {
            let (left, right) = (groups.keys[$0], groups.keys[$1])
            return "\(left.table)|\(left.ownerEntity).\(left.relationship)"
                < "\(right.table)|\(right.ownerEntity).\(right.relationship)"
        }
        for index in ordered {
            let groupKey = groups.keys[index]
            let group = groups.members[index]
            guard let first = group.first, let owner = first.owner,
                let plan = plans[first.representation.rootName]
            else { continue }
            // An owner that switched to a sub-entity without the relationship is looked up as the
            // entity that declares it, which its stored row was.
            let ownerEntity =
                owner.hasRelationship
                ? owner.proto.entity
                : store.schema.entity(named: owner.relationship.property.entityName) ?? owner.proto.entity
            guard
                let lookup = ownerLookup(
                    plan: plan, ownerEntity: ownerEntity, relationship: owner.relationship.property)
            else {
                for proto in group { try makeNew(proto) }
                continue
            }
            var byOwner: [Int64: ProtoRecord] = [:]
            byOwner.reserveCapacity(group.count)
            // Rarely, an owner's row is shared by two proto-records, each with this child.
            var moreByOwner: [Int64: [ProtoRecord]] = [:]
            for proto in group {
                guard let id = proto.owner?.proto.row?.rowID else { continue }
                if byOwner[id] == nil { byOwner[id] = proto } else { moreByOwner[id, default: []].append(proto) }
            }
            func match(_ found: TableRow, ownerID: Int64) {
                guard let proto = byOwner[ownerID] else { return }
                let known = stored.row(in: plan, rowID: found.rowID)
                // Related there in the store, but taken by another record of the response before
                // this occurrence (or given another partner, or none, by its own): as the
                // occurrences applied in turn have it, nothing is related there any more, and the
                // object is a new record (decision 6). Each object of the owner is judged apart:
                // a later one may come after the taking (``ProtoRecordBuilder``).
                let takes = known.map { !Self.isTaken($0, before: proto, claims: claims) } ?? true
                var more = moreByOwner.isEmpty ? [] : moreByOwner[ownerID] ?? []
                if let known, !more.isEmpty { more.removeAll { Self.isTaken(known, before: $0, claims: claims) } }
                guard takes || !more.isEmpty else { return }
                if known != nil || !more.isEmpty { stored.sharesRows = true }
                let row =
                    known
                    ?? RowState(storedIn: plan, rowID: found.rowID, entityName: found.entityName, values: found.values)
                if takes { attach(row, to: proto) }
                for other in more { attach(row, to: other) }
                if known == nil, proto.row == row || more.contains(where: { $0.row == row }) { stored.add(row) }
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
            for proto in group where proto.row == nil {
                let ownerID = proto.owner?.proto.row?.rowID
                if let ownerID, let row = stored.child(of: ownerID, in: groupKey) {
                    attach(row, to: proto)
                    stored.sharesRows = true
                } else {
                    try makeNew(proto)
                    if let ownerID, let row = proto.row { stored.add(row, child: ownerID, in: groupKey) }
                }
            }
        }
    }

    /// Whether `row`, the record the store relates to the owner of `proto` (an object without a
    /// key, related there), was taken from the owner by a naming of the response before `proto`'s
    /// occurrence, as the occurrences applied in turn have it: the latest such naming, through
    /// the same one-to-one or its inverse, each record's as its latest occurrence gives it,
    /// names it with another record than the owner, or with none (the record's own `null`).
    private static func isTaken(_ row: RowState, before proto: ProtoRecord, claims: [RowState: [OneToOneClaim]]) -> Bool
    {
        guard proto.normalizedKey == nil, proto.representation.keyRelationship == nil, let owner = proto.owner,
            owner.relationship.isOneToOne, let found = claims[row]
        else { return false }
        var latest: OneToOneClaim?
        for claim in found where claim.relationship == owner.relationship.id && claim.at < proto.firstGiven {
            if claim.at >= latest?.at ?? .min { latest = claim }
        }
        guard let latest else { return false }
        return latest.owner != owner.proto
    }

    /// A one-to-one naming of the response, of the record whose row it is filed under: the
    /// record it names as its partner (nil for a `null`), the one-to-one as seen from that
    /// partner's side (its ``Representation/MappedRelationship/id``), and the occurrence that gave
    /// it.
    typealias OneToOneClaim = (owner: ProtoRecord?, relationship: Int, at: Int)

    /// The one-to-ones through which `owned` holds objects without a key, related there, with
    /// the `id` of each one's inverse, where it has one.
    private static func relatedThereOneToOnes(
        _ owned: [ProtoRecord], representations: RepresentationSet
    ) -> [Int: Int?] {
        var relationships: [Int: Int?] = [:]
        for proto in owned where proto.normalizedKey == nil && proto.representation.keyRelationship == nil {
            guard let owner = proto.owner, owner.relationship.isOneToOne,
                relationships[owner.relationship.id] == nil
            else { continue }
            relationships[owner.relationship.id] = .some(owner.relationship.inverseID(in: representations))
        }
        return relationships
    }

    /// The namings of `protos` through `relationships` (by `id`, each with its inverse's) or
    /// their inverses, as each record's latest occurrence gives them (one batch wires only that
    /// one), by the row of the record they name through the one-to-one or, through the inverse,
    /// of the record that names.
    private static func oneToOneClaims(
        in protos: [ProtoRecord], through relationships: [Int: Int?]
    ) -> [RowState: [OneToOneClaim]] {
        var claims: [RowState: [OneToOneClaim]] = [:]
        guard !relationships.isEmpty else { return claims }
        var inverses: [Int: Int] = [:]
        for (relationship, inverse) in relationships {
            if let inverse { inverses[inverse] = relationship }
        }
        for proto in protos {
            for link in proto.links {
                let id = link.relationship.id
                guard relationships[id] != nil || inverses[id] != nil else { continue }
                if relationships[id] != nil {
                    for member in link.members {
                        guard let row = member.row else { continue }
                        claims[row, default: []].append((proto, id, link.givenAt))
                    }
                }
                if let relationship = inverses[id], let row = proto.row {
                    claims[row, default: []].append((link.members.first, relationship, link.givenAt))
                }
            }
        }
        return claims
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
        // A stored record keeps its sub-entity unless the response picked a more specific or
        // another one, or its discriminator named the entity (DESIGN §3.13: a value that names
        // no sub-entity makes it the entity whose discriminator was read).
        if row.entityName != proto.representation.name, let stored = representations[row.entityName],
            !proto.isReference, !proto.entityIsStated, let given = proto.givenAs
        {
            // Data that states no entity, after a reference that named the record as its
            // relationship's destination (a `Disc`): a reference never changes a stored record's
            // entity (DESIGN §3.13), so the record is what the data alone makes it, as when the
            // reference and the data fall in batches of their own. The stored sub-entity stays
            // when it is a kind of the entity the data was given as (a stored plain `Shape` or
            // `Circle` given as a `Shape`), and the reference is judged against it; else the data
            // decides as that entity, more specific or another branch (below).
            proto.become(store.schema.entity(stored.name, isKindOf: given.name) ? stored : given)
        }
        let entityName = proto.representation.name
        if row.entityName != entityName, let stored = representations[row.entityName] {
            // A record only references by key name is the stored one: each reference that names
            // it as another branch (a Book-typed link naming a stored Film) links nothing, judged
            // per link when the links are wired (``Marshaler``, DESIGN §3.13).
            if !proto.isReference, !proto.entityIsStated,
                !store.schema.entity(stored.name, isKindOf: entityName),
                !store.schema.entity(entityName, isKindOf: stored.name)
            {
                // A record that gives no discriminator: a missing discriminator keeps the stored
                // sub-entity (DESIGN §3.13), which the place it is given cannot hold.
                let what =
                    "gives no discriminator and is a stored \(stored.name), not a kind of \(entityName); it stays a \(stored.name), not updated, and nothing is linked to it"
                debugger.record(
                    WebRecordError(
                        .typeMismatch, "\(proto) \(what)", isFatal: false, entity: entityName,
                        value: proto.primaryKeyValue))
                proto.isRejected = true
                keptRows.rows.append(row)
                return
            }
            if proto.representation === stored {
                // Kept as stored, above.
            } else if proto.isReference
                || (!proto.entityIsStated && store.schema.entity(stored.name, isKindOf: entityName))
            {
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
            throw WebRecordError(
                .storeError, "the store has no table '\(proto.entity.rootName)'", entity: proto.entity.name)
        }
        let rowID = provisionalRowIDs.next()
        proto.row = RowState(newIn: plan, rowID: rowID, entityName: proto.representation.name)
        proto.rowID = rowID
    }
}

/// The provisional `_id`s a ``RecordResolver`` gives new rows, until the store reserves theirs:
/// negative, so that none is the `_id` of a stored row.
final class ProvisionalRowIDs {
    private var last: Int64 = 0

    func next() -> Int64 {
        last -= 1
        return last
    }
}

/// The stored rows a ``RecordResolver`` kept as stored, not updated (``RecordResolver/keptRows``).
final class KeptRows {
    var rows: [RowState] = []
}

// The resolver's own types, declared outside ``RecordResolver``, which is generic: nested in
// it, each would be generic too, and every hash and comparison of their values would look up
// the runtime's metadata of the type.

/// Proto-records identified by their owner, grouped by child table and owner relationship.
private struct Group: Hashable {
    let table: String
    let ownerEntity: String
    let relationship: String
}

/// A record found through a new owner: the owner's row and the group of the relationship
/// (``OwnerGroups``).
private struct NewChild: Hashable {
    let owner: RowState
    let group: Int
}

/// The groups of proto-records identified by their owner: each distinct (child table,
/// owner entity, relationship) numbered in the order met, with its proto-records whose
/// owner is stored.
private struct OwnerGroups {
    /// Each group's key, by number.
    private(set) var keys: [Group] = []
    /// Each group's proto-records, by number.
    var members: [[ProtoRecord]] = []
    /// The group of each mapped relationship met, by its number.
    private var byRelationship: [Int: Int] = [:]

    /// The number of the group of children reached through `relationship`, in `childTable`.
    mutating func index(of relationship: Representation.MappedRelationship, childTable: String) -> Int {
        // (A relationship without a number, -1, is looked up by its names each time.)
        if relationship.id >= 0, let known = byRelationship[relationship.id] { return known }
        let property = relationship.property
        let key = Group(table: childTable, ownerEntity: property.entityName, relationship: property.name)
        let index: Int
        if let existing = keys.firstIndex(of: key) {
            index = existing
        } else {
            index = keys.count
            keys.append(key)
            members.append([])
        }
        if relationship.id >= 0 { byRelationship[relationship.id] = index }
        return index
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

/// The stored rows already matched to a proto-record, by table and `_id`, and the new rows
/// made for records found through their owner, by owner and relationship.
///
/// The rows of the records found by key are indexed for a table only when a record is
/// found through its owner in that table.
private struct StoredRows {
    private let keyed: [String: [ProtoRecord]]
    /// By table, its position in the layout (``TablePlan/index``): nil until indexed.
    private var rows: [[Int64: RowState]?] = []
    /// Whether a row was given to a second proto-record.
    var sharesRows = false
    private var children: [Group: [Int64: RowState]] = [:]

    mutating func add(_ row: RowState, child ownerID: Int64, in group: Group) {
        children[group, default: [:]][ownerID] = row
    }

    func child(of ownerID: Int64, in group: Group) -> RowState? {
        children[group]?[ownerID]
    }

    init(keyed: [String: [ProtoRecord]]) {
        self.keyed = keyed
    }

    /// Indexes the stored rows of the records of `table` found by key, once.
    private mutating func index(_ table: TablePlan) {
        if table.index < rows.count, rows[table.index] != nil { return }
        var index: [Int64: RowState] = [:]
        for proto in keyed[table.name] ?? [] {
            if let row = proto.row, !row.isNew { index[row.rowID] = row }
        }
        if table.index >= rows.count { rows += repeatElement(nil, count: table.index + 1 - rows.count) }
        rows[table.index] = index
    }

    mutating func add(_ row: RowState) {
        index(row.table)
        rows[row.table.index]?[row.rowID] = row
    }

    mutating func row(in table: TablePlan, rowID: Int64) -> RowState? {
        index(table)
        return rows[table.index]?[rowID]
    }
}
