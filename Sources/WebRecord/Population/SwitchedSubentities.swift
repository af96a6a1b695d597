/// The values of a streamed population's records that their sub-entity of the moment does not
/// store, kept for the batches after them, so that a record whose sub-entity changes between
/// batches ends as in one batch.
///
/// One batch, or a whole response, merges a record's occurrences first and takes the last
/// sub-entity once (DESIGN §3.7, §3.13): a circle with a radius, then a square, then a circle
/// again keeps the radius; a circle that also gives a `side`, then a square, keeps the side.
/// Applied in turn, the square's batch would clear the radius (what the old sub-entity had and
/// the new one lacks), and the circle's batch would have dropped the side. So two kinds of
/// value are kept here, with the attribute each belongs to:
/// - a value a batch gives for an attribute of another entity of the record's hierarchy, which
///   its own sub-entity does not store (the later value wins, as in one batch; a value the
///   attribute refuses is not kept);
/// - a value a switch clears, unless the batch gave one for that attribute.
///
/// A later batch that switches the row to a sub-entity with that attribute, and gives no value
/// for it, stores the kept value. Of the relationships a switch clears, a to-one kept in the
/// row that claims nothing (not one-to-one) is kept too, and given back by a later batch that
/// switches back without setting it. The others (a one-to-one kept in the row that named a
/// record, and a relationship kept in other rows whose clearing changed a row: a to-many, or a
/// to-one whose key the destination holds) cannot be given back as one batch would keep them,
/// as other records may claim their members in between: a later batch that switches the
/// record back to a sub-entity with such a relationship, and does not set it as one later
/// occurrence would replace it, throws ``StreamedDivergence``, and the response is read again
/// whole. Nothing is looked at for entities without sub-entities, and nothing is kept until a
/// record gives such a value or switches.
struct SwitchedSubentities {
    /// Whether values are kept: across batches only (a whole response is one batch).
    let isEnabled: Bool
    /// The values kept, by row (its table's position in the layout, and its `_id`).
    private var kept: [RowKey: [Kept]] = [:]
    /// The attributes of every entity of each hierarchy with more than one entity, one per
    /// column, by the position of the hierarchy's root; nil until the first batch.
    private var hierarchies: [Int: [Representation.MappedAttribute]]?
    /// The relationships a switch cleared that cannot be given back, by row: their ids
    /// (``Representation/MappedRelationship/id``).
    private var lost: [RowKey: Set<Int>] = [:]
    /// The relationships kept in other rows that this batch's switches clear, by row: lost once
    /// the batch's links are written, if their clearing changed a row (``confirm(listChanges:clearedRows:)``).
    private var clearing: [(row: RowState, relationships: [(id: Int, kept: Clearing)])] = []

    /// Where a relationship a switch clears was kept, for what tells whether clearing it
    /// changed anything.
    private enum Clearing {
        /// In the row, which named a record: it did.
        case inRow
        /// In a list's members or join rows (of the relationship named): if they changed.
        case inList(String)
        /// In the destination's row (in the table and column named): if a reference there was
        /// cleared.
        case inDestination(table: String, column: String)
    }

    /// A value kept, and what it is the value of: an attribute, or a to-one (its foreign key,
    /// or its position in the inverse's order) kept in the row.
    private struct Kept {
        enum Source {
            case attribute(Representation.MappedAttribute)
            case relationship(id: Int)
        }
        let source: Source
        let column: Int
        var value: DatabaseValue
    }

    /// The options of the population: the merge rule a relationship is applied with is theirs
    /// (``PopulationOptions/mergePolicies``), not only the schema's.
    let options: PopulationOptions

    init(isEnabled: Bool, options: PopulationOptions) {
        self.isEnabled = isEnabled
        self.options = options
    }

    /// For the stored rows of `protos` that values are kept for, once their attributes are
    /// populated: a row whose sub-entity now stores a kept attribute gets the kept value, unless
    /// the batch gives one that the attribute accepts.
    ///
    /// - Throws: ``StreamedDivergence`` when a record switches back to a sub-entity whose
    ///   relationship a switch cleared, and that cannot be given back (``lost``), unless the
    ///   batch sets it as a later occurrence replaces it.
    mutating func restore(_ protos: [ProtoRecord], coercion: ValueCoercion, store: any RecordStorage) throws {
        guard !kept.isEmpty || !lost.isEmpty else { return }
        for proto in protos {
            guard let row = proto.row, !row.isNew else { continue }
            if !lost.isEmpty { try requireNothingLost(proto, row: row) }
            guard var values = kept[RowKey(row)] else { continue }
            let current = proto.representation
            try values.removeAll { entry in
                switch entry.source {
                case .attribute:
                    guard let mapped = current.attribute(atColumn: entry.column) else { return false }
                    // A value the batch gives and the attribute refuses leaves the row's, which is the kept one.
                    if proto.value(of: mapped).map({ !mapped.accepts($0, coercion: coercion, store: store) }) ?? true {
                        row.set(entry.value, at: mapped.column)
                    }
                case .relationship(let id):
                    guard let mapped = current.relationships.first(where: { $0.id == id }) else { return false }
                    try Self.requireKeyedObject(mapped, of: proto)
                    // A link the batch sets (or sets to null) wins, as a later occurrence's does,
                    // unless it names a record that is not stored: the link then keeps what is
                    // there, which one batch would not have cleared.
                    if !Self.setsToOne(mapped, of: proto) {
                        row.set(entry.value, at: entry.column)
                    }
                }
                return true
            }
            kept[RowKey(row)] = values.isEmpty ? nil : values
        }
    }

    /// Throws ``StreamedDivergence`` when `proto`'s sub-entity has a relationship that a switch
    /// of an earlier batch cleared and that cannot be given back, and the batch does not set it
    /// as one later occurrence would replace it: a to-one, or a list that replaces, whose
    /// dropped members are not deleted (a switch unlinks them only), given whole, or `null`.
    private mutating func requireNothingLost(_ proto: ProtoRecord, row: RowState) throws {
        let key = RowKey(row)
        guard var ids = lost[key] else { return }
        for mapped in proto.representation.relationships where ids.contains(mapped.id) {
            let replaces =
                !mapped.isToMany
                || (options.mergePolicy(of: mapped.property, on: proto.representation.entity) == .replace
                    && mapped.property.deleteRule != .cascade
                    && !mapped.identifiesDestination)
            let setsWhole: Bool
            if mapped.isToMany {
                setsWhole =
                    proto.clearedRelationships.contains(mapped.name)
                    || proto.links.contains { $0.relationship.id == mapped.id && !$0.isPartial }
            } else {
                setsWhole = Self.setsToOne(mapped, of: proto)
            }
            if !mapped.isToMany { try Self.requireKeyedObject(mapped, of: proto) }
            guard replaces, setsWhole else {
                throw StreamedDivergence(
                    record: proto.description,
                    reason:
                        "is made a \(proto.representation.name) again after a batch made it another entity, which cleared its '\(mapped.name)': populated in parts, that relationship would stay cleared, where the whole response keeps it"
                )
            }
            ids.remove(mapped.id)
        }
        lost[key] = ids.isEmpty ? nil : ids
    }

    /// Throws ``StreamedDivergence`` when the batch sets the to-one `mapped` of `proto`, which a
    /// switch of an earlier batch cleared, to an object without a key: one batch takes that
    /// object for the record related there before the switch (DESIGN §3.6), which the batches,
    /// applied in turn, no longer relate.
    private static func requireKeyedObject(_ mapped: Representation.MappedRelationship, of proto: ProtoRecord) throws {
        guard
            let link = proto.links.first(where: { $0.relationship.id == mapped.id }),
            link.members.contains(where: { $0.owner?.proto == proto && $0.owner?.relationship.id == mapped.id })
        else { return }
        throw StreamedDivergence(
            record: proto.description,
            reason:
                "is made a \(proto.representation.name) again after a batch made it another entity, which cleared its '\(mapped.name)', and gives it an object without a key there: populated in parts, that object would be a new record, where the whole response takes it for the one related there"
        )
    }

    /// Whether the batch sets the to-one `mapped` of `proto`: to `null`, or to a record that is
    /// stored (``ProtoRecord/Link/membersInTurn``); a link to a record that is not leaves what is
    /// there.
    private static func setsToOne(_ mapped: Representation.MappedRelationship, of proto: ProtoRecord) -> Bool {
        if proto.clearedRelationships.contains(mapped.name) { return true }
        return proto.links.contains { $0.relationship.id == mapped.id && $0.membersInTurn != nil }
    }

    /// Notes, once a batch is written, the records identified by their owner (or related there
    /// without a key) that it did not store because their owner ends it as a sub-entity without
    /// that relationship: lost, as a switch's clearing is, so that a later batch that makes the
    /// owner a sub-entity with the relationship again, and does not set it, reads the response
    /// again (``requireNothingLost(_:row:)``); one batch would have kept the record.
    mutating func noteUnlinkedBySwitch(_ protos: [ProtoRecord]) {
        guard isEnabled else { return }
        for proto in protos where proto.wasUnlinked {
            guard let owner = proto.owner, let ownerRow = owner.proto.row,
                !owner.hasRelationship
            else { continue }
            lost[RowKey(ownerRow), default: []].insert(owner.relationship.id)
        }
    }

    /// Once a batch's links are written: the relationships its switches cleared in other rows
    /// are lost where the clearing changed a row (`listChanges`, the lists whose members or
    /// join rows changed; `clearedRows`, the references cleared in other rows, as
    /// clearing a to-one kept in its destination's row does).
    mutating func confirm(
        listChanges: [ListChange], clearedRows: [(table: String, column: String, value: DatabaseValue, rowIDs: [Int64])]
    ) {
        guard !clearing.isEmpty else { return }
        for (row, relationships) in clearing {
            for relationship in relationships {
                switch relationship.kept {
                case .inList(let name)
                where !listChanges.contains(where: { $0.owner == row && $0.relationship == name }):
                    continue
                case .inDestination(let table, let column)
                where !clearedRows.contains(where: {
                    $0.table == table && $0.column == column && $0.value == .integer(row.rowID)
                }):
                    continue
                default: lost[RowKey(row), default: []].insert(relationship.id)
                }
            }
        }
        clearing.removeAll()
    }

    /// For the records of `protos` in hierarchies with sub-entities, once their rows have their
    /// `_id`s and before a switch clears anything
    /// (``Marshaler/clearSwitchedSubentity(of:representations:)``): keeps the values the batch
    /// gives for attributes a record's sub-entity lacks, and, for a row whose sub-entity
    /// switches, the values of the attributes its previous sub-entity has and its new one
    /// lacks, unless the batch gave one, and the foreign key (and position) of each such to-one
    /// kept in the row that claims nothing (none when null, which the row is left with anyway).
    /// Notes the links a batch did not wire because the record ended the batch as a sub-entity
    /// without their relationship (``Marshaler/unwiredLinks``): lost, as a switch between
    /// batches would have cleared them, so that a later batch that switches the record back
    /// is read again whole.
    mutating func noteUnwired(_ links: [(row: RowState, relationship: Int)]) {
        guard isEnabled else { return }
        for link in links { lost[RowKey(link.row), default: []].insert(link.relationship) }
    }

    mutating func note(
        _ protos: [ProtoRecord], representations: RepresentationSet, coercion: ValueCoercion,
        store: any RecordStorage
    ) {
        guard isEnabled else { return }
        let hierarchies = self.hierarchies ?? Self.hierarchies(of: representations)
        self.hierarchies = hierarchies
        guard !hierarchies.isEmpty else { return }
        for proto in protos {
            let current = proto.representation
            guard let row = proto.row, let attributes = hierarchies[current.rootIndex] else { continue }
            let key = RowKey(row)
            var values = kept[key] ?? []
            for attribute in attributes where current.attribute(atColumn: attribute.column) == nil {
                // The later value wins; one the attribute refuses leaves an earlier valid one
                // kept, as a refused later value never replaces a valid earlier one (decision 7).
                guard let found = proto.value(of: attribute),
                    let value = attribute.storedValue(found, coercion: coercion, store: store)
                else { continue }
                values.removeAll { $0.column == attribute.column }
                values.append(Kept(source: .attribute(attribute), column: attribute.column, value: value))
            }
            if let previous = row.switchedFrom {
                for mapped in previous.attributes
                where current.attribute(atColumn: mapped.column) == nil && !row.values[mapped.column].isNull
                    && !values.contains(where: { $0.column == mapped.column })
                {
                    values.append(
                        Kept(source: .attribute(mapped), column: mapped.column, value: row.values[mapped.column]))
                }
                // A to-one kept in the row that claims nothing (not one-to-one, nor its own
                // inverse): one batch would keep it through the other sub-entity's occurrences.
                var cleared: [(id: Int, kept: Clearing)] = []
                for mapped in previous.relationships
                where !current.relationships.contains(where: { $0.id == mapped.id }) {
                    switch mapped.link {
                    case .foreignKeyHere(let column, _, _, let isOneToOne)? where isOneToOne || mapped.isSymmetric:
                        if !row.values[column].isNull { cleared.append((mapped.id, .inRow)) }
                        continue
                    case .foreignKeyThere(let table, _, _, let column, _)?:
                        cleared.append(
                            (
                                mapped.id,
                                mapped.isToMany || mapped.identifiesDestination
                                    ? .inList(mapped.name) : .inDestination(table: table.name, column: column)
                            ))
                        continue
                    case .joinTable?:
                        cleared.append((mapped.id, .inList(mapped.name)))
                        continue
                    default:
                        break
                    }
                    guard case .foreignKeyHere(let column, let positionColumn, _, false)? = mapped.link,
                        !row.values[column].isNull
                    else { continue }
                    for column in [column] + (positionColumn.map { [$0] } ?? []) {
                        values.removeAll { $0.column == column }
                        values.append(
                            Kept(source: .relationship(id: mapped.id), column: column, value: row.values[column]))
                    }
                }
                if !cleared.isEmpty { clearing.append((row, cleared)) }
            }
            kept[key] = values.isEmpty ? nil : values
        }
    }

    /// The attributes of each hierarchy with more than one entity, by its root's position.
    private static func hierarchies(of representations: RepresentationSet) -> [Int: [Representation.MappedAttribute]] {
        var members: [Int: [Representation]] = [:]
        for representation in representations.all {
            members[representation.rootIndex, default: []].append(representation)
        }
        var hierarchies: [Int: [Representation.MappedAttribute]] = [:]
        for (root, entities) in members where entities.count > 1 {
            var columns = Set<Int>()
            hierarchies[root] = entities.flatMap(\.attributes).filter { columns.insert($0.column).inserted }
        }
        return hierarchies
    }
}
