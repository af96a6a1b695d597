/// Writes a population's rows and links to the store (the write half of steps 4–6).
///
/// New rows are inserted and existing rows are updated only when a value differs from what
/// is stored, so a re-import of the same response writes nothing. Rows go to the store in one
/// batch, table by table, each table's rows in the order first met, so a store can write a
/// table's rows together. References between rows are checked at the commit (or when a
/// streamed population's batch ends), so rows may refer to each other in any order.
struct PopulationWriter<Storage: RecordStorage> {
    let store: Storage
    let transaction: Storage.Transaction
    /// Rows whose links changed outside their own columns (join tables, dropped members).
    private(set) var relinkedOwners = Set<RowState>()
    /// The stored owners whose lists changed in rows the batch does not hold, and how
    /// (``ListChange``): what a streamed population's counts compare at the end, so that an
    /// owner whose list one batch changes and a later one sets back is unchanged, as in one
    /// batch.
    private(set) var listChanges: [ListChange] = []
    /// The rows whose lists gained the owner of a relationship that is its own inverse.
    private(set) var mirroredMembers = Set<RowState>()
    /// The join rows the batch added or removed for a stored owner (or a new one whose table the
    /// other side also wrote), each seen from one of its two rows (``ListChange/JoinPair``): what
    /// the counts weigh, so that a row one list adds and another removes changes nothing.
    private(set) var joinPairs: [ListChange.JoinPair] = []
    /// In the order written, the join rows of ordered lists that a stored owner's list from the
    /// side without positions deleted, with their positions, or added
    /// (``ListChange/UnpositionedChange``), and the lists written from the ordered side (the
    /// join table and the owner, with no change): a streamed population gives a row that a
    /// later occurrence of the same list adds back the position it had, unless its ordered list
    /// was written since (``StreamTotals/positionsToRestore(_:)``).
    private(set) var orderedListEvents: [ListChange.OrderedListEvent] = []
    /// The rows whose reference to another row (`value`, in `column`) a one-to-one's link
    /// cleared, as it moved to another row: rows the batch may not hold, which a later batch that
    /// meets one again must not take for unlinked before the population.
    private(set) var clearedRows: [(table: String, column: String, value: DatabaseValue, rowIDs: [Int64])] = []
    /// The rows of the batch (``writeRows(_:)``), and, once a link needs them, their `_id`s by
    /// table: their values in memory are what they end with.
    private var batchRows: [RowState] = []
    /// What the batch's pairings of one-to-ones that are their own inverse did
    /// (``notePairings()``).
    private var pairings = Pairings()

    /// The rows pairings unlinked, in turn, and the link each row ends with after them.
    private struct Pairings {
        var unlinked:
            [(table: String, column: String, rowID: Int64, held: DatabaseValue, taker: Int64?, pairing: Int)] = []
        var final: [String: [Int64: DatabaseValue]] = [:]
        /// The last pairing (by its place among the batch's pairings) that named each row, as
        /// the row paired or its partner.
        var lastNamed: [String: [Int64: Int]] = [:]
        /// How many pairings were noted.
        var count = 0

        mutating func note(
            _ rows: [(rowID: Int64, held: DatabaseValue)], row: Int64, partner: Int64?, table: String, column: String
        ) {
            for unlinked in rows {
                let taker = partner.flatMap { unlinked.held == .integer($0) ? row : nil }
                self.unlinked.append((table, column, unlinked.rowID, unlinked.held, taker, count))
                final[table, default: [:]][unlinked.rowID] = .null
            }
            final[table, default: [:]][row] = partner.map { .integer($0) } ?? .null
            if let partner { final[table, default: [:]][partner] = .integer(row) }
            lastNamed[table, default: [:]][row] = count
            if let partner { lastNamed[table, default: [:]][partner] = count }
            count += 1
        }

        /// Whether no pairing after the `pairing`th named `row`.
        func isNotNamed(_ row: Int64, in table: String, after pairing: Int) -> Bool {
            (lastNamed[table]?[row] ?? -1) <= pairing
        }
    }
    /// The one-to-ones a row of the batch took from rows it does not hold (or holds only as
    /// stored): the row that holds it now (`holder`, in `column` of `table`) and the row held
    /// (`value`); or, where another record of the batch then took the holder, the row the holder
    /// ends the batch with.
    private(set) var takenOneToOnes: [(table: String, column: String, holder: Int64, value: DatabaseValue)] = []
    /// The takers among ``takenOneToOnes`` that then lost the partner they took to a later
    /// pairing of their own (another record of the batch took the taker): a later occurrence of
    /// such a taker that sets the one-to-one at all, even to the partner it ends the batch with,
    /// supersedes the occurrence that took, which one batch then never wires.
    private(set) var takersTaken: [(table: String, column: String, holder: Int64)] = []
    /// Whether a link operation changed rows the population does not hold (so snapshots may be stale).
    private(set) var touchedOtherRows = false
    /// The ordered lists kept on their members that the batch wrote for a stored owner, in turn:
    /// merged by union, with the members listed (`listed`), whose members not listed it moved
    /// after them; or replaced (`listed` nil). A streamed population moves the members not
    /// listed again once every batch is written (``StreamTotals/noteOrderedLists(_:)``).
    private(set) var orderedLists: [OrderedList] = []
    /// The join tables of relationships that are their own inverse given mirrored rows so far:
    /// there, a row inserted by this population may already have join rows.
    private var mirroredJoinTables = Set<String>()
    /// The join tables given rows so far, each with the column that named the owner (its
    /// `selfColumn`): a row inserted by this population may already have join rows in a table
    /// the other side of the relationship wrote (an item's `tags`, then a nested tag's `items`).
    private var joinSidesWritten: [String: Set<String>] = [:]

    init(store: Storage, transaction: Storage.Transaction) {
        self.store = store
        self.transaction = transaction
    }

    /// Inserts new rows and updates changed ones; marks both as changed.
    ///
    /// New rows are grouped by table, in the order each table is first met, so each table's
    /// rows go in together; so are the stored rows whose values changed.
    mutating func writeRows(_ rows: [RowState]) throws(WebRecordError) {
        batchRows = rows
        var inserted = TableGroups()
        var updated = TableGroups()
        for row in rows {
            if row.isNew {
                inserted.append(row)
                row.isChanged = true
            } else if row.isChanged || row.hasChangedValues {
                updated.append(row)
                row.isChanged = true
            }
        }
        // Each row's values are read in place from its table's rows, one run per row.
        for (table, indices) in inserted.groups {
            let rows = table.rows
            try transaction.insertRows(into: table.name, count: indices.count) { index, width, values in
                let row = indices[index]
                values.append(.integer(rows.rowIDs[row]))
                values.append(.text(rows.entityNames[row]))
                Self.append(row, of: rows, width: width, to: &values)
            }
        }
        for (table, indices) in updated.groups {
            let rows = table.rows
            try transaction.updateRows(in: table.name, count: indices.count) { index, width, values in
                let row = indices[index]
                values.append(.text(rows.entityNames[row]))
                Self.append(row, of: rows, width: width, to: &values)
                values.append(.integer(rows.rowIDs[row]))
            }
        }
    }

    /// Appends the values of row `row` of `rows` to `values`, exactly `width` of them.
    private static func append(_ row: Int, of rows: BatchRows, width: Int, to values: inout [DatabaseValue]) {
        let start = row * rows.width
        if rows.width == width {
            values.append(contentsOf: rows.values.elements(from: start, count: width))
        } else {
            for column in 0..<width { values.append(column < rows.width ? rows.values[start + column] : .null) }
        }
    }

    /// Runs the link operations the marshaler collected.
    mutating func writeLinks(_ operations: [LinkOperation], deleter: inout RecordDeleter<Storage>)
        throws(WebRecordError)
    {
        defer { notePairings() }
        for operation in operations {
            switch operation {
            case .clearOthers(let table, let column, let value, let keep):
                let cleared = try transaction.clearReferences(in: table, column: column, to: value, except: keep)
                if !cleared.isEmpty {
                    touchedOtherRows = true
                    clearedRows.append((table, column, value, cleared))
                    if let keep { takenOneToOnes.append((table, column, keep, value)) }
                }
            case .foreignKeyMembers(
                let owner, let table, let column, let positionColumn, let members, let replace, let deleteRule,
                let identifies, let relationship, _, let heldMembers):
                try writeForeignKeyMembers(
                    owner: owner, table: table, column: column, positionColumn: positionColumn, members: members,
                    replace: replace, deleteRule: deleteRule, identifies: identifies, relationship: relationship,
                    heldMembers: heldMembers, deleter: &deleter)
            case .joinMembers(
                let owner, let table, let selfColumn, let otherColumn, let positionColumn, let members, let replace,
                let deleteRule, let relationship, let destination):
                let destinationTable = store.schema.entity(named: destination)?.rootName ?? destination
                let otherSideWrote = joinSidesWritten[table]?.contains(otherColumn) ?? false
                joinSidesWritten[table, default: []].insert(selfColumn)
                let otherPosition =
                    positionColumn == nil && replace
                    ? store.layout.joinTables.first(where: { $0.name == table })?.otherSidePositionColumn(
                        from: selfColumn) : nil
                let changed = try transaction.setJoinRows(
                    in: table, ownerColumn: selfColumn, memberColumn: otherColumn, positionColumn: positionColumn,
                    owner: owner.rowID,
                    ownerIsNew: owner.isNew && !mirroredJoinTables.contains(table) && !otherSideWrote,
                    members: members, replace: replace, otherPositionColumn: otherPosition
                ) { member throws(WebRecordError) in
                    // Unlinked now, deleted at the end of the response unless it contained the member.
                    guard deleteRule == .cascade else { return }
                    deleter.propose(
                        .init(
                            table: destinationTable, rowID: member, ownerEntity: owner.entityName, ownerID: owner.rowID,
                            relationship: relationship, identifies: false))
                }
                if let changed, !changed.before.isEmpty || !changed.after.isEmpty {
                    for (member, _) in changed.after where changed.before[member] == nil {
                        joinPairs.append(
                            .init(
                                table: table, owner: owner, memberTable: destinationTable, member: member, added: true))
                    }
                    for (member, _) in changed.before where changed.after[member] == nil {
                        joinPairs.append(
                            .init(
                                table: table, owner: owner, memberTable: destinationTable, member: member, added: false)
                        )
                    }
                }
                if positionColumn != nil { orderedListEvents.append(.positioned(table: table, owner: owner.rowID)) }
                if let otherPosition, let changed {
                    func change(_ member: Int64, removedAt: DatabaseValue?) -> ListChange.OrderedListEvent {
                        .unpositioned(
                            ListChange.UnpositionedChange(
                                table: table, ownerColumn: selfColumn, memberColumn: otherColumn,
                                positionColumn: otherPosition, owner: owner.rowID, member: member,
                                removedAt: removedAt))
                    }
                    for (member, position) in changed.removedOtherPositions.sorted(by: { $0.key < $1.key }) {
                        orderedListEvents.append(change(member, removedAt: position))
                    }
                    for member in changed.after.keys.sorted() where changed.before[member] == nil {
                        orderedListEvents.append(change(member, removedAt: nil))
                    }
                }
                if let changed {
                    relinkedOwners.insert(owner)
                    if !owner.isNew {
                        listChanges.append(
                            ListChange(owner: owner, relationship: relationship, change: .joinRows(table, changed)))
                    }
                }
            case .mirrorJoinMembers(
                let owner, let table, let selfColumn, let otherColumn, let positionColumn, let members,
                let memberRows, let replace):
                mirroredJoinTables.insert(table)
                let (gained, lost) = try transaction.mirrorJoinRows(
                    in: table, ownerColumn: selfColumn, memberColumn: otherColumn, positionColumn: positionColumn,
                    owner: owner.rowID, members: members, replace: replace)
                let changed = gained + lost
                guard !changed.isEmpty else { continue }
                // The members' own join rows, which name the owner: seen from the owner's side.
                for (member, added) in gained.map({ ($0, true) }) + lost.map({ ($0, false) }) {
                    joinPairs.append(
                        .init(table: table, owner: owner, memberTable: owner.table.name, member: member, added: added))
                }
                touchedOtherRows = true
                // The members whose lists gained the owner count as updated.
                let touched = Set(changed)
                for member in memberRows where touched.contains(member.rowID) {
                    relinkedOwners.insert(member)
                    mirroredMembers.insert(member)
                }
            case .pairReferences(let table, let column, let row, let partner):
                let outcome = try transaction.pairReferences(in: table, column: column, row: row, partner: partner)
                if outcome.changed { touchedOtherRows = true }
                pairings.note(outcome.unlinked, row: row, partner: partner, table: table, column: column)
            }
        }
    }

    /// Reports, once the batch's links are written, the rows the pairings of one-to-ones that are
    /// their own inverse unlinked and that end unlinked in the store but not in memory, as a
    /// one-to-one's clearing reports the rows it clears (``clearedRows``): rows outside the
    /// batch, and rows of the batch that no pairing the batch wired named (a pairing that a
    /// later one of the batch undoes unlinks a row only until that one is written). And the
    /// partners the batch took from those rows (``takenOneToOnes``): from rows outside it, and
    /// from rows of the batch that held them as stored, which no claim of the batch noted.
    private mutating func notePairings() {
        guard !pairings.unlinked.isEmpty else { return }
        var held: [String: [Int64: RowState]] = [:]
        for row in batchRows { held[row.table.name, default: [:]][row.rowID] = row }
        for unlinked in pairings.unlinked {
            guard pairings.final[unlinked.table]?[unlinked.rowID] == .null else { continue }
            if let row = held[unlinked.table]?[unlinked.rowID] {
                guard let column = row.table.columnIndex[unlinked.column], !row.values[column].isNull else { continue }
            }
            // A row of the batch that held its partner as stored (a member of a list, a record
            // of the batch that sets no partner) loses it as a row outside the batch does.
            if let taker = unlinked.taker, let takerEnds = pairings.final[unlinked.table]?[taker] {
                if takerEnds == unlinked.held {
                    takenOneToOnes.append((unlinked.table, unlinked.column, taker, unlinked.held))
                } else if case .integer(let taken) = unlinked.held,
                    pairings.final[unlinked.table]?[taken] == .null,
                    pairings.isNotNamed(taken, in: unlinked.table, after: unlinked.pairing),
                    pairings.isNotNamed(unlinked.rowID, in: unlinked.table, after: unlinked.pairing)
                {
                    // The taker lost the partner it took to a later pairing of its own (another
                    // record took the taker), which named neither the partner nor the row it was
                    // taken from: both end unlinked by the taker's link alone, which a later
                    // occurrence of the taker that lets go of its link supersedes in one batch.
                    takenOneToOnes.append((unlinked.table, unlinked.column, taker, takerEnds))
                    takersTaken.append((unlinked.table, unlinked.column, taker))
                }
            }
            clearedRows.append((unlinked.table, unlinked.column, unlinked.held, [unlinked.rowID]))
        }
    }

    /// A to-many kept on its members: with `replace`, the members not listed are dropped
    /// (unlinked, and under the cascade rule proposed for deletion at the end of the response;
    /// a member whose key is the link stays linked until then); ordered and merged by union,
    /// they move after the listed ones.
    private mutating func writeForeignKeyMembers(
        owner: RowState, table: String, column: String, positionColumn: String?, members: [Int64], replace: Bool,
        deleteRule: Relationship.DeleteRule, identifies: Bool, relationship: String, heldMembers: Bool,
        deleter: inout RecordDeleter<Storage>
    ) throws(WebRecordError) {
        // A new owner has no members stored, unless rows of the batch named it before its list
        // (``Marshaler``'s replaced lists in response order).
        guard !owner.isNew || heldMembers else { return }
        if let positionColumn {
            orderedLists.append(
                OrderedList(
                    owner: owner.rowID, table: table, column: column, positionColumn: positionColumn,
                    listed: replace ? nil : members))
        }
        if replace {
            let cascades = deleteRule == .cascade
            let clears = !(cascades && identifies)
            let dropped = try transaction.dropMembers(
                of: owner.rowID, in: table, column: column, positionColumn: positionColumn, keeping: Set(members),
                clearing: clears)
            guard !dropped.isEmpty else { return }
            noteMembers(
                dropped.map {
                    ListChange.Member(
                        rowID: $0.id, cleared: clears, positionBefore: $0.position,
                        positionAfter: clears ? .null : $0.position)
                }, of: owner, relationship: relationship, table: table, column: column, positionColumn: positionColumn)
            if cascades {
                for (id, _) in dropped {
                    deleter.propose(
                        .init(
                            table: table, rowID: id, ownerEntity: owner.entityName, ownerID: owner.rowID,
                            relationship: relationship, identifies: identifies))
                }
            }
        } else if let positionColumn, !members.isEmpty {
            // Ordered union: members the response did not list keep their order, after the listed ones.
            let moved = try transaction.moveMembers(
                of: owner.rowID, in: table, column: column, positionColumn: positionColumn, after: members)
            if !moved.isEmpty {
                noteMembers(
                    moved.map {
                        ListChange.Member(
                            rowID: $0.id, cleared: false, positionBefore: .integer($0.from),
                            positionAfter: .integer($0.to))
                    }, of: owner, relationship: relationship, table: table, column: column,
                    positionColumn: positionColumn)
            }
        }
    }

    /// Notes that `owner`'s list changed the rows of `members`, which the batch may not hold.
    private mutating func noteMembers(
        _ members: [ListChange.Member], of owner: RowState, relationship: String, table: String, column: String,
        positionColumn: String?
    ) {
        touchedOtherRows = true
        relinkedOwners.insert(owner)
        listChanges.append(
            ListChange(
                owner: owner, relationship: relationship,
                change: .members(table: table, column: column, positionColumn: positionColumn, rows: members)))
    }
}

/// An ordered list kept on its members that a batch wrote (``PopulationWriter/orderedLists``): the
/// owner's `_id`, the members' table, the column that names the owner, the position column, and
/// for a list merged by union the members it listed, in order (nil for a replaced list).
struct OrderedList {
    let owner: Int64
    let table: String
    let column: String
    let positionColumn: String
    let listed: [Int64]?
}

/// Rows grouped by table, tables in the order first met, rows in their order within each.
///
/// Declared outside the generic ``PopulationWriter``: nested in it, it would be generic too, and
/// each row appended would look up the runtime's metadata of the type.
private struct TableGroups {
    /// Each table met, with the positions of its rows among its ``BatchRows``.
    private(set) var groups: [(table: TablePlan, rows: [Int])] = []
    private var groupIndex: [ObjectIdentifier: Int] = [:]

    mutating func append(_ row: RowState) {
        let table = ObjectIdentifier(row.table)
        if let index = groupIndex[table] {
            groups[index].rows.append(row.index)
        } else {
            groupIndex[table] = groups.count
            groups.append((row.table, [row.index]))
        }
    }
}

/// How a population's links changed the list of a stored owner in rows the batch does not
/// hold (``PopulationWriter/listChanges``).
struct ListChange {
    /// One member's row changed: the `_id`, whether its reference to the owner was cleared,
    /// and its position before and after (null without one).
    struct Member {
        let rowID: Int64
        let cleared: Bool
        let positionBefore: DatabaseValue
        let positionAfter: DatabaseValue
    }

    /// A join row of an ordered list that a stored owner's list from the side without positions
    /// deleted (`removedAt`, the position the ordered list had given it) or added (nil): the
    /// owner's column, the member's (the ordered list's owner), and the ordered side's position
    /// column.
    struct UnpositionedChange {
        let table: String
        let ownerColumn: String
        let memberColumn: String
        let positionColumn: String
        let owner: Int64
        let member: Int64
        let removedAt: DatabaseValue?
    }

    /// What a batch wrote of a join table's ordered lists, in order: a list written from the
    /// ordered side (the table and the owner), or a join row written from the side without
    /// positions.
    enum OrderedListEvent {
        case positioned(table: String, owner: Int64)
        case unpositioned(UnpositionedChange)
    }

    /// A join row a batch added or removed, between `owner` and the row `member` of the record
    /// table `memberTable`.
    struct JoinPair {
        let table: String
        let owner: RowState
        let memberTable: String
        let member: Int64
        let added: Bool
    }

    enum Change {
        /// The owner's join rows in the table named.
        case joinRows(String, JoinRowsChange)
        /// Members' rows, in `table`, whose `column` names the owner: dropped from the list
        /// (cleared, or left to be deleted), or moved.
        case members(table: String, column: String, positionColumn: String?, rows: [Member])
    }

    let owner: RowState
    /// The relationship's name.
    let relationship: String
    let change: Change
}
