/// Sets attributes and wires relationships on resolved proto-records (pipeline steps 5 and 6).
///
/// The marshaler works on each row's ``RowState``: it coerces each attribute present in the
/// dictionary (strictly, DESIGN §3.9–3.10) and writes foreign keys and positions for
/// relationships. What lives outside the rows it touches (join tables, members dropped by a
/// `replace` merge, the other side of a one-to-one) becomes a ``LinkOperation`` that the
/// ``PopulationWriter`` runs. Inverses stay consistent because each relationship pair is
/// stored once (see `StorageLayout`).
struct Marshaler {
    let store: any RecordStorage
    let options: PopulationOptions
    let coercion: ValueCoercion
    let debugger: Debugger
    private(set) var operations: [LinkOperation] = []
    /// The members stored owners were given through a to-many kept on the members, for
    /// ``noteGainedMembers()``.
    private var joined: [Membership] = []
    /// The stored owners whose list of a to-many kept on its members the batch wired, by the
    /// member table's position and column and the owner's `_id`, and those tables: a member of
    /// the batch whose own link then joins or leaves such an owner changes that list
    /// (``noteGainedMembers()``).
    private var listedOwners: [Claimed: RowState] = [:]
    private var listedTables: [TablePlan] = []
    /// The members a list of the batch took from another record: stored, and naming another
    /// owner before the batch (``takenMembers``).
    private(set) var takenMembers: [(owner: RowState, member: RowState, column: Int)] = []
    /// The one-to-ones kept in the holder's row that a row of the batch took from another row
    /// of the batch, whose earlier claim loses it in memory: a later batch that lets go of one
    /// diverges from one batch as a take from a stored row does
    /// (``PopulationWriter/takenOneToOnes``).
    private(set) var takenOneToOnes: [(table: String, column: String, holder: Int64, value: DatabaseValue)] = []
    /// The stored members a list of the batch took from another owner (the table of both, and
    /// that owner's `_id`), whose lists lose them: ``lostMembers``, once wired.
    private var takenFrom: [(ownerTable: Int, owner: Int64, member: RowState, column: Int)] = []
    /// The stored rows whose own link through a to-one kept with a position in the owner's
    /// ordered list moved them to another owner (or none), losing that position: the column,
    /// the value it held and the one it took. A streamed population compares them across batches
    /// (``StreamTotals/notePositionedMoves(_:)``).
    private(set) var positionedMoves: [(row: RowState, column: Int, from: DatabaseValue, to: DatabaseValue)] = []
    /// The stored members the batch's lists gave an owner and that named no other owner when the
    /// batch began (none, or that owner): a streamed population asks whether an earlier batch
    /// moved them from another owner, which then lost them to the list, as one batch finds
    /// (``StreamTotals/noteListed(_:by:column:)``).
    private(set) var listedStoredMembers: [(owner: RowState, member: RowState, column: Int)] = []
    /// The links not wired because the record ended as a sub-entity without their relationship,
    /// that named a record (``wire(_:of:)``).
    private(set) var unwiredLinks: [(row: RowState, relationship: Int)] = []
    /// The one-to-ones the batch wired, by the column that holds them and the row held: the row
    /// that holds it last (``claim(_:in:column:positionColumn:by:clearsStore:)``).
    private var claims: [Claimed: Claim] = [:]
    /// The keys of ``claims``, in the order first claimed.
    private var claimOrder: [Claimed] = []
    /// The owner each member column of a to-many kept on its members was last wired to in the
    /// batch (nil: none), through the member's own to-one or an owner's list, and when: the
    /// occurrence that gave the link (``ProtoRecord/Link/givenAt``; for a new record completed
    /// by a later occurrence, not before that one, ``ProtoRecord/completedAt``).
    private var memberLinks: [Claimed: (owner: Int64?, at: Int)] = [:]
    /// The member columns that a list of the batch sets (a to-many kept on its members), by
    /// table position and column (``noteLists(of:)``): only their members' own links are noted
    /// in ``memberLinks``, as only a list can be ordered against them.
    private var listedColumns = Set<MemberColumn>()
    /// The members wired to each owner, by ``Claimed`` (the member column, and the owner's `_id`).
    private var membersWired: [Claimed: [Int64]] = [:]
    /// The replaced lists kept on their members the batch wired: the position of each one's
    /// ``LinkOperation/foreignKeyMembers(owner:table:column:positionColumn:members:replace:deleteRule:identifies:relationship:destination:heldMembers:)``.
    private var replacedLists: [(operation: Int, givenAt: Int, table: Int, column: Int)] = []
    /// The lists kept in a join table the batch wired (``orderJoinLists()``).
    private var joinLists: [JoinList] = []
    /// The first occurrence of the included records of a compound response (`Int.max` without
    /// them): a list one of them gives comes before every record's own link
    /// (``orderReplacedLists()``).
    var includedFrom = Int.max

    /// One list kept in a join table, as the batch wired it: the position of its
    /// ``LinkOperation/joinMembers(owner:table:selfColumn:otherColumn:positionColumn:members:replace:deleteRule:relationship:destination:)``
    /// (which holds its members), its owner's side, and, for a united list, the occurrence that
    /// named each member last.
    private struct JoinList {
        let operation: Int
        let side: JoinSide
        let otherColumn: String
        /// For a list merged by union whose members earlier occurrences named: each member's
        /// occurrence, in the operation's order of members. Nil for a replaced list.
        let memberTimes: [Int]?
        let givenAt: Int
        let replace: Bool
    }

    /// One owner's side of a join table: the table, the column that names the owner, and its `_id`.
    private struct JoinSide: Hashable {
        let table: String
        let column: String
        let owner: Int64
    }

    /// A row held through a one-to-one's column: the table and column, and the row's `_id`.
    private struct Claimed: Hashable {
        let table: Int
        let column: Int
        let value: Int64
    }

    /// A column of a record table that names a list's owner: the table's position, and the
    /// column's.
    private struct MemberColumn: Hashable {
        let table: Int
        let column: Int
    }

    /// Who holds a ``Claimed`` row last, and whether rows the batch does not hold may hold it too.
    private struct Claim {
        var holder: RowState?
        let tableName: String
        let columnName: String
        var clearsStore: Bool
    }

    /// A member set on a stored owner's to-many, in the member's `column`, and its position in
    /// `positionColumn` for an ordered one.
    private struct Membership {
        let owner: RowState
        let member: RowState
        let column: Int
        let positionColumn: Int?
    }

    init(store: any RecordStorage, options: PopulationOptions, coercion: ValueCoercion, debugger: Debugger) {
        self.store = store
        self.options = options
        self.coercion = coercion
        self.debugger = debugger
    }

    // MARK: - Attributes

    /// Sets the attributes the dictionary holds; for a new row, the defaults of the rest. With
    /// `onlyColumns`, only the attributes kept in those columns.
    func populateAttributes(of proto: ProtoRecord, onlyColumns: Set<Int>? = nil) {
        guard let row = proto.row else { return }
        let representation = proto.representation
        row.entityName = representation.name
        let isNew = row.isNew
        let prepared = proto.preparedValues
        let dictionary = prepared == nil ? proto.dictionary : nil
        // Values chosen apart from the dictionary, for attributes whose key paths meet: rare.
        let shared = prepared == nil ? proto.sharedValues : nil
        // The representation holds its attributes until it is released, after the population:
        // none is retained for its turn.
        representation.attributes.withUnsafeBufferPointer { attributes in
            for index in attributes.indices {
                if let onlyColumns, !onlyColumns.contains(attributes[index].column) { continue }
                Unmanaged.passUnretained(attributes[index])._withUnsafeGuaranteedRef { mapped in
                    let value =
                        prepared?[index]
                        ?? (shared == nil
                            ? Self.prepare(mapped, in: dictionary ?? proto.dictionary, coercion: coercion)
                            : Self.prepare(mapped, value: proto.value(of: mapped), coercion: coercion))
                    switch value {
                    case .value(let stored):
                        row.set(stored, at: mapped.column)
                    case .absent:
                        if isNew, let stored = mapped.storedDefault { row.set(stored, at: mapped.column) }
                    case .reported:
                        populate(mapped, of: representation.name, in: row, found: proto.found(mapped), isNew: isNew)
                    }
                }
            }
        }
    }

    /// What one attribute of a record takes from its dictionary, worked out before it is set
    /// (``prepare(_:in:coercion:)``).
    enum PreparedValue {
        /// The value to store: found, and accepted as it is.
        case value(DatabaseValue)
        /// No value: the dictionary lacks the attribute (a new row takes its default).
        case absent
        /// A value that needs a value transformer, or that the attribute refuses (reported
        /// when the attribute is set, in turn with the batch's other messages).
        case reported
    }

    /// What `mapped` takes from `dictionary`. Reads nothing but the two, so the reading thread
    /// of a streamed population prepares each record's values (``ProtoRecordArena``) while the
    /// writer writes the batch before, and the writer only sets them.
    static func prepare(
        _ mapped: Representation.MappedAttribute, in dictionary: JSONObject, coercion: ValueCoercion
    ) -> PreparedValue {
        prepare(mapped, value: mapped.firstValue(in: dictionary), coercion: coercion)
    }

    /// What `mapped` takes from `value`, the value a record gives it (nil: none).
    static func prepare(
        _ mapped: Representation.MappedAttribute, value: JSONValue?, coercion: ValueCoercion
    ) -> PreparedValue {
        guard let value else { return .absent }
        guard mapped.transformer == nil, !value.isNull || mapped.isOptional,
            let stored = coercion.storedValue(value, type: mapped.type, dateFormat: mapped.dateFormat)
        else { return .reported }
        return .value(stored)
    }

    /// Sets one attribute of `row` from `found`, the value the record (of the entity `entity`)
    /// gives it (``ProtoRecord/found(_:)``), that needs a value transformer or that the attribute
    /// refuses (reported): the value transformed and coerced, or for a new row given a value the
    /// attribute refuses, its default: a refused value leaves the attribute as if absent, as it
    /// leaves a stored row's value as it was.
    private func populate(
        _ mapped: Representation.MappedAttribute, of entity: String, in row: RowState,
        found: Representation.Found?, isNew: Bool
    ) {
        guard let found else { return }
        var value = found.value
        // A value refused below leaves the attribute as if absent.
        var accepted = false
        defer {
            if !accepted, isNew, let stored = mapped.storedDefault, row.values[mapped.column].isNull {
                row.set(stored, at: mapped.column)
            }
        }
        if let name = mapped.transformer {
            guard let transform = store.transformer(named: name) else {
                debugger.record(
                    WebRecordError(
                        .invalidEntityDescription, "no value transformer is registered as '\(name)'",
                        isFatal: false,
                        entity: entity, property: mapped.name, keyPath: found.keyPath))
                return
            }
            guard let transformed = transform(value) else {
                debugger.record(
                    .typeMismatch(
                        entity: entity, property: mapped.name, keyPath: found.keyPath,
                        value: value, expected: "a value transformer '\(name)' accepts"))
                return
            }
            value = transformed
        }
        if value.isNull, !mapped.isOptional {
            debugger.record(
                WebRecordError(
                    .typeMismatch, "null for a non-optional attribute; the stored value is kept", isFatal: false,
                    entity: entity, property: mapped.name, keyPath: found.keyPath,
                    value: value))
            return
        }
        guard let stored = coercion.storedValue(value, type: mapped.type, dateFormat: mapped.dateFormat) else {
            debugger.record(
                .typeMismatch(
                    entity: entity, property: mapped.name, keyPath: found.keyPath, value: value,
                    expected: coercion.refusal(value, type: mapped.type, dateFormat: mapped.dateFormat)))
            return
        }
        accepted = true
        row.set(stored, at: mapped.column)
    }

    /// Drops the new records that lack a non-optional attribute (DESIGN §3.5): they are not
    /// stored, each with a non-fatal `typeMismatch` naming the entity, the key and the
    /// attribute, and whatever lists them keeps its previous members. Records only referenced
    /// by key (stubs) are exempt until their data arrives; records identified by a dropped
    /// owner are dropped with it.
    ///
    /// - Parameter stubs: the rows an earlier batch of a streamed population inserted for
    ///   records it named only by key, that may be dropped as a new row is: a record this batch
    ///   gives the data of, resolved to one of them (and sharing it with no other), is dropped
    ///   when that data lacks a non-optional value, as one batch drops the record whose merged
    ///   occurrences lack it, and keeps that row's `_id` (``ProtoRecord/reservedRowID``). The
    ///   stream then deletes the row (``StreamTotals/noteStubs(_:layout:in:)``).
    func dropIncompleteRecords(
        _ protos: [ProtoRecord], superseded: Set<LinkKey> = [], sharing: [RowState: [ProtoRecord]] = [:],
        stubs: Set<RowKey> = []
    ) {
        var droppedAny = false
        // The new rows dropped as incomplete, each of which keeps its `_id` once.
        var unstoredRows = Set<RowState>()
        for proto in protos where isUnlinkedFromItsOwner(proto, superseded: superseded, sharing: sharing) {
            // A later occurrence of its owner set the relationship to null or to another
            // record: stored, it would have no key (decision: unlinked, such a record goes). One
            // without a key of its own keeps its `_id`, unused, as a stream does whose earlier
            // batch stored it: the later batch that unlinks it deletes that row
            // (`StreamTotals.unmade`). A new one its owner keys keeps its `_id` too: a stream
            // whose earlier batch stored it deletes that row at the end, and a later batch that
            // gives the owner the record again stores it with that `_id` (``UnlinkedChildIDs``).
            if let row = proto.row, proto.representation.keyRelationship == nil || row.isNew,
                unstoredRows.insert(row).inserted
            {
                proto.unstoredTable = row.table.name
            }
            proto.row = nil
            proto.rowID = nil
            proto.wasUnlinked = true
            proto.dropReason =
                "\(proto.named) is identified by its owner \(proto.owner.map(\.proto.named) ?? "")"
                + ", which the response later unlinks from it"
            droppedAny = true
        }
        for proto in protos {
            guard let row = proto.row, !proto.isReference else { continue }
            let isStub =
                !row.isNew && !stubs.isEmpty && stubs.contains(RowKey(row)) && (sharing[row]?.count ?? 1) <= 1
            guard row.isNew || isStub else { continue }
            guard
                let missing = proto.representation.attributes.first(where: {
                    !$0.isOptional && row.values[$0.column].isNull
                })
            else { continue }
            debugger.record(
                WebRecordError(
                    .typeMismatch,
                    Self.incompleteWarningStart(proto.description)
                        + " '\(missing.name)' and no default; it is not stored",
                    isFatal: false, entity: proto.representation.name, property: missing.name,
                    keyPath: missing.keyPaths.first?.text, value: .object(proto.dictionary)))
            if isStub {
                proto.reservedRowID = row.rowID
            } else if unstoredRows.insert(row).inserted {
                proto.unstoredTable = row.table.name
            }
            proto.row = nil
            proto.rowID = nil
            proto.isDroppedIncomplete = true
            proto.dropReason = Self.missingValueReason(proto, missing)
            droppedAny = true
        }
        guard droppedAny else { return }
        // Owner-identified records whose owner is gone: until none is left.
        var changed = true
        while changed {
            changed = false
            for proto in protos {
                guard let row = proto.row, row.isNew, let owner = proto.owner, owner.proto.row == nil else { continue }
                if owner.proto.wasUnlinked {
                    // Goes with the record unlinked, as the response meant: nothing to report.
                    proto.row = nil
                    proto.rowID = nil
                    proto.wasUnlinked = true
                    changed = true
                    continue
                }
                if unstoredRows.insert(row).inserted { proto.unstoredTable = row.table.name }
                debugger.record(
                    WebRecordError(
                        .typeMismatch, Self.unstoredOwnerWarning(proto), isFatal: false,
                        entity: proto.representation.name, value: .object(proto.dictionary)))
                proto.row = nil
                proto.rowID = nil
                proto.isDroppedIncomplete = true
                proto.dropReason =
                    Self.ownerDropReasonStart(proto) + "\(owner.proto.named), which was not stored"
                    + (owner.proto.dropReason.map { " (\($0))" } ?? "")
                changed = true
            }
        }
    }

    /// The warning that `proto`, a new record identified by its owner, is not stored because its
    /// owner was not: `CoverImage(owned by User.coverImage) belongs to User '5', which was not
    /// stored; it is not stored either`. A later batch that completes the owner withdraws it.
    static func unstoredOwnerWarning(_ proto: ProtoRecord) -> String {
        let owner = proto.owner.map { "\($0.proto.named), which" } ?? "a record that"
        return "\(proto) belongs to \(owner) was not stored; it is not stored either"
    }

    /// How the reason begins that `proto` was not stored because its owner was not
    /// (``ProtoRecord/dropReason``).
    static func ownerDropReasonStart(_ proto: ProtoRecord) -> String { "\(proto.named) belongs to " }

    /// Whether `proto` was not stored because its owner was not (``unstoredOwnerWarning(_:)``).
    static func wasDroppedWithOwner(_ proto: ProtoRecord) -> Bool {
        proto.isDroppedIncomplete && proto.dropReason?.hasPrefix(ownerDropReasonStart(proto)) == true
    }

    /// How the warning that a new record is not stored, lacking a non-optional value, begins,
    /// for the record `Post(5)`: a later batch that completes it withdraws that warning.
    static func incompleteWarningStart(_ record: String) -> String {
        "new record \(record) has no value for non-optional attribute"
    }

    /// `Customer 'cus_1': email is null, and it is not optional`: the record, the attribute and
    /// what its key paths held (null, a value that was refused, or nothing).
    private static func missingValueReason(_ proto: ProtoRecord, _ attribute: Representation.MappedAttribute) -> String
    {
        let found = proto.found(attribute).map { ($0.keyPath, $0.value) }
        let name = attribute.name
        switch found {
        case nil:
            let keys = attribute.keyPaths.map { "'\($0.text)'" }.joined(separator: " or ")
            return "\(proto.named): \(name) has no value (no \(keys) in the record), and it is not optional"
        case (let path, .null)?:
            return "\(proto.named): \(name) is null" + (path == name ? "" : " at '\(path)'")
                + ", and it is not optional"
        case (let path, let value)?:
            return "\(proto.named): \(name) has no valid value"
                + (path == name ? "" : " at '\(path)'")
                + " (\(WebRecordError.excerpt(of: value)) was refused), and it is not optional"
        }
    }

    /// Whether `proto` is a new record identified by its owner, named only through the owner's
    /// link, which the owner's relationship,
    /// as the response left it, no longer names: the link that applies is the owner's own, or,
    /// when several proto-records share the owner's row, the one not `superseded`.
    private func isUnlinkedFromItsOwner(
        _ proto: ProtoRecord, superseded: Set<LinkKey>, sharing: [RowState: [ProtoRecord]]
    ) -> Bool {
        // One the response also named apart from the owner's link is the response's: it stays.
        guard let row = proto.row, row.isNew, !proto.isReference, !proto.isNamedApartFromOwner,
            let owner = proto.owner
        else { return false }
        let relationship = owner.relationship.id
        // Its owner ends as a sub-entity without the relationship: nothing relates it there.
        if !owner.hasRelationship { return true }
        var holders = [owner.proto]
        if let ownerRow = owner.proto.row, let group = sharing[ownerRow] { holders = group }
        let applying = holders.first { holder in
            holder.links.contains { $0.relationship.id == relationship }
                && !superseded.contains(LinkKey(proto: holder, relationship: relationship))
        }
        guard let link = applying?.links.first(where: { $0.relationship.id == relationship }) else { return false }
        return !link.members.contains { $0 == proto || $0.row == row }
    }

    /// The proto-records by the row they share, for rows more than one shares.
    static func protosByRow(_ protos: [ProtoRecord]) -> [RowState: [ProtoRecord]] {
        var sharing: [RowState: [ProtoRecord]] = [:]
        for proto in protos {
            if let row = proto.row { sharing[row, default: []].append(proto) }
        }
        return sharing.filter { $0.value.count > 1 }
    }

    /// Clears what a record's previous sub-entity had and its new one lacks (DESIGN §3.13): the
    /// attributes, and the relationships, nullified whatever their delete rule, so that nothing
    /// of the old sub-entity reappears if the record switches back.
    mutating func clearSwitchedSubentity(of proto: ProtoRecord, representations: RepresentationSet) {
        guard let row = proto.row, let previous = row.switchedFrom else { return }
        let current = proto.representation
        let kept = Set(current.attributes.map(\.column))
        for mapped in previous.attributes where !kept.contains(mapped.column) {
            row.values[mapped.column] = .null
        }
        let keptRelationships = Set(current.relationships.map(\.id))
        for mapped in previous.relationships where !keptRelationships.contains(mapped.id) {
            switch mapped.link {
            case .foreignKeyHere(let column, let positionColumn, let columnName, _)?:
                row.values[column] = .null
                if let positionColumn { row.values[positionColumn] = .null }
                if mapped.isSymmetric {
                    operations.append(
                        .pairReferences(table: row.table.name, column: columnName, row: row.rowID, partner: nil))
                }
            case .foreignKeyThere(let table, _, _, let columnName, let positionColumnName)?:
                if mapped.isToMany || mapped.identifiesDestination {
                    // Records the relationship identifies are deleted rather than left keyless.
                    operations.append(
                        .foreignKeyMembers(
                            owner: row, table: table.name, column: columnName, positionColumn: positionColumnName,
                            members: [], replace: true, deleteRule: mapped.identifiesDestination ? .cascade : .nullify,
                            identifies: mapped.identifiesDestination, relationship: mapped.name,
                            destination: mapped.property.destination))
                } else {
                    operations.append(
                        .clearOthers(table: table.name, column: columnName, value: .integer(row.rowID), keep: nil))
                }
            case .joinTable(let table, let selfColumn, let otherColumn, let positionColumn)?:
                operations.append(
                    .joinMembers(
                        owner: row, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                        positionColumn: positionColumn,
                        members: [], replace: true, deleteRule: .nullify, relationship: mapped.name,
                        destination: mapped.property.destination))
                if mapped.isSymmetric {
                    operations.append(
                        .mirrorJoinMembers(
                            owner: row, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                            positionColumn: positionColumn, members: [], memberRows: [], replace: true))
                }
            case nil:
                break
            }
        }
    }

    // MARK: - Relationships

    /// Wires every relationship the response set on `proto`, but those in `superseded`: links a
    /// later occurrence of the same row set again (``ResponsePopulation/supersededLinks(_:)``).
    mutating func wireRelationships(of proto: ProtoRecord, superseded: Set<LinkKey> = []) {
        guard proto.row != nil else { return }
        for set in proto.links
        where superseded.isEmpty || !superseded.contains(LinkKey(proto: proto, relationship: set.relationship.id)) {
            wire(set, of: proto)
        }
    }

    /// Notes that `holder` (none, for a link cleared) holds the row `value` through a one-to-one
    /// kept in `column` of `table`, wired after what the batch wired before: a row of the batch
    /// that held it through an earlier link, or held it as stored, no longer does (decision 7:
    /// of two records that claim one member, the one named last ends with it). Rows the batch
    /// does not hold are cleared once the batch's links are wired (``finishWiring()``), when a
    /// claim changed a row and the row held is stored (`clearsStore`).
    private mutating func claim(
        _ value: Int64, in table: TablePlan, column: Int, positionColumn: Int?, columnName: String,
        by holder: RowState?,
        clearsStore: Bool, notesTake: Bool = false
    ) {
        let key = Claimed(table: table.index, column: column, value: value)
        if let previous = claims[key] {
            if let earlier = previous.holder, earlier != holder, earlier.values[column] == .integer(value) {
                earlier.values[column] = .null
                if let positionColumn { earlier.values[positionColumn] = .null }
                if notesTake, let holder {
                    takenOneToOnes.append((table.name, columnName, holder.rowID, .integer(value)))
                }
            }
            claims[key]?.holder = holder
            if clearsStore { claims[key]?.clearsStore = true }
        } else {
            claims[key] = Claim(holder: holder, tableName: table.name, columnName: columnName, clearsStore: clearsStore)
            claimOrder.append(key)
        }
    }

    /// The stored members that the batch's lists took from other owners and that name another
    /// owner once the batch is wired: by the owner they named before (its table and `_id`), which
    /// lost them, so that its lists count as changed.
    func lostMembers() -> [(ownerTable: Int, owner: Int64, member: RowState, column: Int)] {
        takenFrom.filter { $0.member.values[$0.column] != .integer($0.owner) }
    }

    /// Notes the member columns that the lists of `protos` set (``listedColumns``), before any
    /// link of the batch is wired.
    mutating func noteLists(of protos: [ProtoRecord]) {
        for proto in protos where proto.row != nil {
            for link in proto.links where link.relationship.isToMany {
                guard case .foreignKeyThere(let table, let column, _, _, _)? = link.relationship.link else { continue }
                listedColumns.insert(MemberColumn(table: table.index, column: column))
            }
        }
    }

    /// Notes that `member`'s column `column` (of the table at `table`) now names `owner`.
    private mutating func noteMemberLink(_ member: RowState, table: Int, column: Int, owner: Int64?, at: Int) {
        let key = Claimed(table: table, column: column, value: member.rowID)
        memberLinks[key] = (owner, at)
        if let owner {
            membersWired[Claimed(table: table, column: column, value: owner), default: []].append(member.rowID)
        }
    }

    /// Puts the replaced lists kept on their members in response order with the members' own
    /// links (decision 7: the link named last wins): a member that names the owner after the
    /// owner's list keeps it, and one that named it before, unlisted, is dropped, a new owner's
    /// too (its list is then written, although a new owner has no members stored).
    private mutating func orderReplacedLists() {
        for (index, listedAt, table, column) in replacedLists {
            guard
                case .foreignKeyMembers(
                    let owner, let tableName, let columnName, let positionColumn, let members, let replace,
                    let deleteRule, let identifies, let relationship, let destination, _) = operations[index],
                let wired = membersWired[Claimed(table: table, column: column, value: owner.rowID)]
            else { continue }
            let listed = Set(members)
            var kept = members
            var dropsHeld = false
            for member in wired where !listed.contains(member) && !kept.contains(member) {
                guard let link = memberLinks[Claimed(table: table, column: column, value: member)],
                    link.owner == owner.rowID
                else { continue }
                if link.at > listedAt { kept.append(member) } else { dropsHeld = true }
            }
            guard kept.count > members.count || (owner.isNew && dropsHeld) else { continue }
            operations[index] = .foreignKeyMembers(
                owner: owner, table: tableName, column: columnName, positionColumn: positionColumn, members: kept,
                replace: replace, deleteRule: deleteRule, identifies: identifies, relationship: relationship,
                destination: destination, heldMembers: true)
        }
        replacedLists.removeAll()
        memberLinks.removeAll()
        membersWired.removeAll()
        listedColumns.removeAll()
    }

    /// Puts the united lists kept in a join table in response order with the other side's
    /// replaced lists (decision 7, the list named last decides): a member that only an occurrence
    /// before the member's own replaced list named, and that this list leaves the owner out of,
    /// is not added back. A united list is wired at its latest occurrence; applied in turn, the
    /// member's list, given after the occurrence that named it, drops the join row that
    /// occurrence added. Lists kept on their members do the same through their members' links
    /// (``orderReplacedLists()``).
    private mutating func orderJoinLists() {
        defer { joinLists.removeAll() }
        guard joinLists.contains(where: { $0.memberTimes != nil }) else { return }
        var replaced: [JoinSide: (givenAt: Int, members: Set<Int64>)] = [:]
        for list in joinLists where list.replace {
            guard case .joinMembers(_, _, _, _, _, let members, _, _, _, _) = operations[list.operation] else {
                continue
            }
            if let found = replaced[list.side], found.givenAt > list.givenAt { continue }
            replaced[list.side] = (list.givenAt, Set(members))
        }
        for list in joinLists {
            guard let times = list.memberTimes,
                case .joinMembers(
                    let owner, let table, let selfColumn, let otherColumn, let positionColumn, let members, let replace,
                    let deleteRule, let relationship, let destination) = operations[list.operation]
            else { continue }
            let kept = members.indices.filter { position in
                let side = JoinSide(table: list.side.table, column: list.otherColumn, owner: members[position])
                guard let theirs = replaced[side], theirs.givenAt > times[position] else { return true }
                return theirs.members.contains(list.side.owner)
            }
            guard kept.count < members.count else { continue }
            operations[list.operation] = .joinMembers(
                owner: owner, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                positionColumn: positionColumn, members: kept.map { members[$0] }, replace: replace,
                deleteRule: deleteRule, relationship: relationship, destination: destination)
        }
    }

    /// Called once every link of the batch is wired: puts the replaced lists in response order
    /// with their members' own links (``orderReplacedLists()``), and clears, in the rows the batch
    /// does not hold, the one-to-ones the batch's links claimed
    /// (``claim(_:in:column:positionColumn:by:clearsStore:)``), one statement per row held,
    /// keeping the row that holds it last.
    mutating func finishWiring() {
        orderReplacedLists()
        orderJoinLists()
        for key in claimOrder {
            guard let claim = claims[key], claim.clearsStore else { continue }
            operations.append(
                .clearOthers(
                    table: claim.tableName, column: claim.columnName, value: .integer(key.value),
                    keep: claim.holder?.rowID))
        }
        claims.removeAll()
        claimOrder.removeAll()
    }

    /// Wires one relationship the response set on `proto`.
    ///
    /// `fellBackOnNull`: the link is a to-one whose latest record was judged not to fit, which
    /// falls back on an earlier occurrence's `null` (``judged(_:of:)``): it clears as that `null`
    /// does, as when the occurrences are applied in turn.
    mutating func wire(_ set: ProtoRecord.Link, of proto: ProtoRecord, fellBackOnNull: Bool = false) {
        guard let row = proto.row else { return }
        if !set.judged.isEmpty {
            // Only where a reference by key named a record of a hierarchy with sub-entities: the
            // link is wired without the members judged not to fit (copied only then).
            guard var kept = judged(set, of: proto) else { return }
            kept.judged = []
            wire(
                kept, of: proto,
                fellBackOnNull: !set.relationship.isToMany && kept.members.isEmpty && !set.members.isEmpty)
            return
        }
        // A sub-entity chosen after the link was set inherits the relationship and its storage;
        // one that lacks it relates nothing there (DESIGN §3.13), as when the occurrences are
        // applied in turn and the switch clears what the earlier sub-entity had.
        let mapped = set.relationship
        let representation = proto.representation
        if representation.hasSubentities || representation.name != representation.rootName,
            !representation.relationships.contains(where: { $0.id == mapped.id })
        {
            if !set.members.isEmpty { unwiredLinks.append((row, mapped.id)) }
            // Applied in turn, a one-to-one kept in the other row took its record from whoever
            // held it (its claim, decision 7), and the switch then cleared it: the record ends
            // held by no one (an employee's desk, once the employee is a contractor).
            if !mapped.isToMany, case .foreignKeyThere(let table, let column, _, let columnName, _)? = mapped.link,
                !mapped.identifiesDestination, let target = set.membersInTurn?.first?.row,
                case .integer(let holder) = target.values[column], holder != row.rowID
            {
                target.values[column] = .null
                claim(
                    holder, in: table, column: column, positionColumn: nil, columnName: columnName, by: nil,
                    clearsStore: false)
            }
            return
        }
        // A to-one whose latest record is not stored is what an earlier occurrence left it.
        guard let members = set.membersInTurn else { return }
        guard let link = mapped.link else { return }
        let cleared =
            (!proto.clearedRelationships.isEmpty && proto.clearedRelationships.contains(mapped.name))
            || (members.isEmpty && (!set.members.isEmpty || fellBackOnNull))
        // Members that end the batch as an entity without the inverse (a `Tile` in a list of
        // `Square`s whose `holder` is the inverse): looked at only where a sub-entity declares
        // the inverse.
        let lacking =
            mapped.subentityInverseID == nil || mapped.identifiesDestination
            ? [] : lackingInverse(members, of: mapped)
        switch link {
        case .foreignKeyHere(let column, let positionColumn, let columnName, let isOneToOne):
            var target = members.first { $0.row != nil }?.row
            // Named, but not stored (dropped as incomplete): the link keeps what it was.
            if target == nil, !members.isEmpty { return }
            if let held = target, lacking.contains(held) {
                // Linked, then cleared by the member's switch, as when applied in turn: a row
                // that named it already is left to that switch, which clears it and counts it.
                if row.values[column] == .integer(held.rowID) { return }
                target = nil
            }
            let value: DatabaseValue = target.map { .integer($0.rowID) } ?? .null
            if mapped.isSymmetric {
                // Its own inverse: the partner links back, and neither keeps another partner.
                let back = DatabaseValue.integer(row.rowID)
                if let target {
                    // Neither keeps another partner among the rows of the batch either.
                    claim(
                        target.rowID, in: row.table, column: column, positionColumn: nil, columnName: columnName,
                        by: row, clearsStore: false, notesTake: true)
                    claim(
                        row.rowID, in: row.table, column: column, positionColumn: nil, columnName: columnName,
                        by: target, clearsStore: false)
                }
                guard row.values[column] != value || target.map({ $0.values[column] != back }) == true else {
                    return
                }
                if let target, target != row, target.values[column] == .integer(target.rowID) {
                    // A record that was its own partner lost it (itself) to `row`, as another
                    // record would lose its partner: a later batch that lets go of it diverges.
                    takenOneToOnes.append((row.table.name, columnName, row.rowID, .integer(target.rowID)))
                }
                row.values[column] = value
                target?.values[column] = back
                operations.append(
                    .pairReferences(
                        table: row.table.name, column: columnName, row: row.rowID, partner: target?.rowID))
                return
            }
            let changes = row.values[column] != value
            if !isOneToOne, !listedColumns.isEmpty,
                listedColumns.contains(MemberColumn(table: row.table.index, column: column))
            {
                noteMemberLink(
                    row, table: row.table.index, column: column, owner: target?.rowID,
                    at: max(set.givenAtInTurn, proto.completedAt))
            }
            if changes {
                if positionColumn != nil, !row.isNew {
                    positionedMoves.append((row, column, row.values[column], value))
                }
                row.values[column] = value
                if let positionColumn { row.values[positionColumn] = .null }
            }
            if let target, isOneToOne {
                claim(
                    target.rowID, in: row.table, column: column, positionColumn: positionColumn, columnName: columnName,
                    by: row, clearsStore: changes && !target.isNew, notesTake: true)
            }
        case .foreignKeyThere(let table, let column, let positionColumn, let columnName, let positionColumnName):
            if mapped.isToMany, !row.isNew {
                if !listedTables.contains(where: { $0 === table }) { listedTables.append(table) }
                listedOwners[Claimed(table: table.index, column: column, value: row.rowID)] = row
            }
            var rows = members.compactMap(\.row)
            // For a united list, the occurrence that named each member last: the member's claim
            // is that occurrence's, not the list's latest one (an owner's later `[]` under union
            // names nothing, so it claims nothing either).
            var namedAt: [Int64: Int] = [:]
            if mapped.isToMany, !set.memberTimes.isEmpty {
                for position in members.indices {
                    guard let member = members[position].row, namedAt[member.rowID] == nil else { continue }
                    namedAt[member.rowID] = set.givenAt(member: position)
                }
            }
            if mapped.isToMany, !set.memberTimes.isEmpty {
                // A united list: a member only an earlier occurrence named, that another record
                // claimed after that, stays with that record (decision 7, the claim named last).
                rows = members.indices.compactMap { position in
                    guard let member = members[position].row else { return nil }
                    let time = set.givenAt(member: position)
                    if let link = memberLinks[Claimed(table: table.index, column: column, value: member.rowID)],
                        link.owner != row.rowID, link.at > time
                    {
                        return nil
                    }
                    return member
                }
            }
            if !mapped.isToMany {
                var target = rows.first
                var unlinksOthers = false
                // Linked, then cleared by the member's switch: the record holds none, and no
                // other row holds it either (a one-to-one's claim).
                let dropped = target.map { lacking.contains($0) } ?? false
                if dropped {
                    target = nil
                    unlinksOthers = !row.isNew
                } else if let target {
                    let before = target.values[column]
                    if before != .integer(row.rowID) {
                        target.values[column] = .integer(row.rowID)
                        unlinksOthers = !row.isNew
                        // Taken from the record it named before the batch, or from one of the
                        // batch that claimed it before.
                        if !before.isNull { takenMembers.append((row, target, column)) }
                    }
                } else {
                    unlinksOthers = cleared && !row.isNew
                }
                if !mapped.identifiesDestination {
                    // A one-to-one kept in the other row: that row holds this one, and no other.
                    guard target != nil || cleared || dropped else { return }
                    claim(
                        row.rowID, in: table, column: column, positionColumn: nil, columnName: columnName, by: target,
                        clearsStore: unlinksOthers)
                    return
                }
                guard unlinksOthers else { return }
                // The records this relationship identifies (a post's `Source`) have no key
                // without it: the one unlinked is deleted, not left keyless.
                operations.append(
                    .foreignKeyMembers(
                        owner: row, table: table.name, column: columnName, positionColumn: nil,
                        members: target.map { [$0.rowID] } ?? [], replace: true, deleteRule: .cascade,
                        identifies: true, relationship: mapped.name, destination: mapped.property.destination))
                return
            }
            if !lacking.isEmpty {
                // Each keeps its position, as when applied in turn: the member's switch clears
                // its link, not the others' positions.
                var kept: [RowState] = []
                for (position, member) in rows.enumerated() where !lacking.contains(member) {
                    if let positionColumn { member.values[positionColumn] = .integer(Int64(position)) }
                    kept.append(member)
                }
                rows = kept
            }
            for (position, member) in rows.enumerated() {
                if !row.isNew {
                    joined.append(
                        Membership(owner: row, member: member, column: column, positionColumn: positionColumn))
                }
                if !member.isNew, case .integer(let from)? = member.originalValue(at: column), from != row.rowID {
                    takenMembers.append((row, member, column))
                    takenFrom.append((row.table.index, from, member, column))
                } else if let claimed = memberLinks[Claimed(table: table.index, column: column, value: member.rowID)],
                    let owner = claimed.owner, owner != row.rowID
                {
                    // Taken from another list of the batch that gave it before.
                    takenMembers.append((row, member, column))
                }
                // A stored member that named no other owner when the batch began (none, or this one).
                if !member.isNew, let before = member.originalValue(at: column),
                    before.isNull || before == .integer(row.rowID)
                {
                    listedStoredMembers.append((row, member, column))
                }
                member.values[column] = .integer(row.rowID)
                if let positionColumn, lacking.isEmpty { member.values[positionColumn] = .integer(Int64(position)) }
                noteMemberLink(
                    member, table: table.index, column: column, owner: row.rowID,
                    at: namedAt[member.rowID] ?? set.givenAt)
            }
            let relationship = mapped.property
            let policy = appliedPolicy(set, of: proto)
            if policy == .replace {
                // A compound document's listing is often partial: a list given in `included`
                // leaves the requested records' own links to it (Docs/Population.md).
                replacedLists.append(
                    (operations.count, set.givenAt >= includedFrom ? 0 : set.givenAt, table.index, column))
            }
            operations.append(
                .foreignKeyMembers(
                    owner: row, table: table.name, column: columnName, positionColumn: positionColumnName,
                    members: rows.map(\.rowID), replace: policy == .replace,
                    deleteRule: mapped.identifiesDestination ? .cascade : relationship.deleteRule,
                    identifies: mapped.identifiesDestination, relationship: mapped.name,
                    destination: relationship.destination))
        case .joinTable(let table, let selfColumn, let otherColumn, let positionColumn):
            var rows = members.compactMap(\.row)
            var times =
                set.memberTimes.isEmpty
                ? nil
                : members.indices.compactMap { position in
                    members[position].row.map { _ in set.givenAt(member: position) }
                }
            if !lacking.isEmpty {
                times = times.map { times in rows.indices.filter { !lacking.contains(rows[$0]) }.map { times[$0] } }
                rows.removeAll { lacking.contains($0) }
            }
            let relationship = mapped.property
            let policy = appliedPolicy(set, of: proto)
            if !mapped.isSymmetric {
                joinLists.append(
                    JoinList(
                        operation: operations.count,
                        side: JoinSide(table: table, column: selfColumn, owner: row.rowID), otherColumn: otherColumn,
                        memberTimes: policy == .replace ? nil : times,
                        givenAt: set.givenAt >= includedFrom ? 0 : set.givenAt, replace: policy == .replace))
            }
            operations.append(
                .joinMembers(
                    owner: row, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                    positionColumn: positionColumn, members: rows.map(\.rowID), replace: policy == .replace,
                    deleteRule: relationship.deleteRule, relationship: mapped.name,
                    destination: relationship.destination))
            if mapped.isSymmetric {
                operations.append(
                    .mirrorJoinMembers(
                        owner: row, table: table, selfColumn: selfColumn, otherColumn: otherColumn,
                        positionColumn: positionColumn, members: rows.map(\.rowID), memberRows: rows,
                        replace: policy == .replace))
            }
        }
    }

    /// `set` without the members that a reference by key named as a record of another branch
    /// of the hierarchy (DESIGN §3.13: a `Disc`-typed link naming a stored `Tile` links nothing):
    /// each judged, once its record is resolved, against the entity it had when the reference
    /// was given (``ProtoRecord/Link/judged``): the stored one, which a missing discriminator
    /// keeps, or, for a new record, the response's. A to-many so refused is applied as additions
    /// only, as a list with a refused element is; a to-one is what an earlier occurrence left it
    /// (nil: nothing to wire, the stored link stands).
    private func judged(_ set: ProtoRecord.Link, of proto: ProtoRecord) -> ProtoRecord.Link? {
        let required = set.relationship.property.destination
        let refusals = refusals(set)
        guard !refusals.isEmpty else { return set }
        for (member, what) in refusals {
            debugger.record(
                WebRecordError(
                    .typeMismatch,
                    "\(set.relationship.property.entityName).\(set.relationship.name) of \(proto) names \(member.named), \(what), not a kind of \(required); nothing is linked to it",
                    isFatal: false, entity: set.relationship.property.entityName, property: set.relationship.name,
                    value: member.primaryKeyValue))
        }
        return kept(set, refused: Set(refusals.map(\.member)))
    }

    /// When `set` is wired (``ProtoRecord/Link/givenAtInTurn``) once its members a reference by
    /// key named are judged (``judged(_:of:)``): a to-one whose latest record is refused is
    /// wired where the earlier occurrence it falls back on gave it, as one whose latest record
    /// is not stored, so that a claim given in between takes the record from it.
    func givenAtInTurn(_ set: ProtoRecord.Link) -> Int {
        guard !set.judged.isEmpty, !set.relationship.isToMany else { return set.givenAtInTurn }
        let refused = Set(refusals(set).map(\.member))
        guard !refused.isEmpty, let kept = kept(set, refused: refused) else { return set.givenAtInTurn }
        return kept.givenAtInTurn
    }

    /// The members of `set` that a reference by key named and that are judged not to fit
    /// (``judged(_:of:)``), each once, with what they are, for the message.
    private func refusals(_ set: ProtoRecord.Link) -> [(member: ProtoRecord, what: String)] {
        let required = set.relationship.property.destination
        var refusals: [(member: ProtoRecord, what: String)] = []
        var refused = Set<ProtoRecord>()
        for (member, fitsResponse) in set.judged where !refused.contains(member) {
            guard let row = member.row else { continue }
            let fits: Bool
            let what: String
            if row.isNew {
                (fits, what) = (fitsResponse, "which the response makes a \(member.entity.name)")
            } else {
                let stored = row.switchedFrom?.name ?? row.entityName
                fits =
                    stored == required || store.schema.entity(stored, isKindOf: required)
                    || store.schema.entity(required, isKindOf: stored)
                what = "a stored \(stored)"
            }
            guard !fits else { continue }
            refused.insert(member)
            refusals.append((member, what))
        }
        return refusals
    }

    /// `set` without the members `refused` (``judged(_:of:)``): nil for a to-one that nothing
    /// earlier falls back on.
    private func kept(_ set: ProtoRecord.Link, refused: Set<ProtoRecord>) -> ProtoRecord.Link? {
        guard !refused.isEmpty else { return set }
        var kept = set
        kept.judged = []
        if set.relationship.isToMany {
            let positions = set.members.indices.filter { !refused.contains(set.members[$0]) }
            kept.members = positions.map { set.members[$0] }
            if !set.memberTimes.isEmpty { kept.memberTimes = positions.map { set.memberTimes[$0] } }
            kept.isPartial = true
            return kept
        }
        guard set.members.contains(where: { refused.contains($0) }) else { return set }
        // Applied in turn, the occurrence that named the refused record changed nothing.
        for position in set.earlier.indices.reversed()
        where set.earlier[position].isEmpty
            || set.earlier[position].contains(where: { $0.row != nil && !refused.contains($0) })
        {
            kept.members = set.earlier[position]
            kept.givenAt = set.earlierGivenAt.indices.contains(position) ? set.earlierGivenAt[position] : set.givenAt
            kept.earlier = []
            kept.earlierGivenAt = []
            return kept
        }
        return nil
    }

    /// The rows of `members` that end the batch as an entity of the destination's hierarchy
    /// without `mapped`'s inverse (``Representation/MappedRelationship/subentityInverseID``):
    /// nothing links them there, as when the occurrences are applied in turn and the member's
    /// switch clears what its earlier sub-entity had (DESIGN §3.13), whatever the merge order.
    /// Each is noted in ``unwiredLinks`` under the inverse, so that a stream whose later batch
    /// makes the member an entity with it again, without setting it, reads the response again.
    private mutating func lackingInverse(
        _ members: [ProtoRecord], of mapped: Representation.MappedRelationship
    ) -> Set<RowState> {
        guard let inverse = mapped.subentityInverseID else { return [] }
        var lacking = Set<RowState>()
        for member in members where !member.representation.hasRelationship(id: inverse) {
            guard let row = member.row, lacking.insert(row).inserted else { continue }
            unwiredLinks.append((row, inverse))
        }
        return lacking
    }

    /// The merge rule a to-many's list is applied with: its own, except that a list with an
    /// element refused (reported where it was) adds its members and removes none, since the
    /// refused element may have named any member. That exception is reported too, when the rule
    /// was `replace`: the stored members the list left out are kept, not removed.
    private func appliedPolicy(_ set: ProtoRecord.Link, of proto: ProtoRecord) -> Relationship.MergePolicy {
        let declared = mergePolicy(set.relationship.property, entity: proto.entity)
        guard set.isPartial else { return declared }
        // A new record has no stored member a list could have removed.
        if declared == .replace, !set.addsOnly, proto.row?.isNew == false {
            debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "\(proto)'s '\(set.relationship.name)' list has an element that was refused, so it is applied as additions only: no member it leaves out is removed (replace needs a whole list)",
                    isFatal: false, entity: proto.entity.name, property: set.relationship.name))
        }
        return .union
    }

    /// Marks each stored owner that ends the batch with a member it did not have, or, in an
    /// ordered list, with a member it had at another position (``RowState/gainedMembers``: its
    /// list changed): a new member, a stored one whose foreign key named another record or none,
    /// or one it held whose position moved. Run after every relationship is wired, so that a
    /// member two owners claim counts only for the one it ends with.
    ///
    /// - Returns: each member gained, moved, or joining or leaving the owner by a link, with its
    ///   owner and the member's column that names it: a streamed population checks them again
    ///   once every batch is written.
    @discardableResult
    func noteGainedMembers() -> [ListMemberChange] {
        var gained: [ListMemberChange] = []
        for membership in joined {
            let owner = DatabaseValue.integer(membership.owner.rowID)
            let member = membership.member
            guard member.values[membership.column] == owner else { continue }
            if member.originalValue(at: membership.column).map({ $0 != owner }) ?? true {
                membership.owner.gainedMembers = true
                gained.append(
                    ListMemberChange(owner: membership.owner, member: member, column: membership.column, kind: .gained))
            } else if let positionColumn = membership.positionColumn,
                let before = member.originalValue(at: positionColumn), before != member.values[positionColumn]
            {
                membership.owner.gainedMembers = true
                gained.append(
                    ListMemberChange(
                        owner: membership.owner, member: member, column: membership.column,
                        kind: .moved(positionColumn: positionColumn)))
            }
        }
        guard !listedOwners.isEmpty else { return gained }
        // A member of the batch that joins or leaves an owner that gave its list, through its own
        // link or another's: the owner's list changed, as the list alone would not tell.
        var columns: [Int: Set<Int>] = [:]
        for key in listedOwners.keys { columns[key.table, default: []].insert(key.column) }
        for table in listedTables {
            guard let tableColumns = columns[table.index] else { continue }
            for index in 0..<table.rows.count {
                let member = RowState(in: table, at: index)
                for column in tableColumns {
                    let now = member.values[column]
                    let before = member.originalValue(at: column) ?? .null
                    guard before != now else { continue }
                    for value in [before, now] {
                        guard case .integer(let id) = value,
                            let owner = listedOwners[Claimed(table: table.index, column: column, value: id)]
                        else { continue }
                        owner.gainedMembers = true
                        gained.append(ListMemberChange(owner: owner, member: member, column: column, kind: .linked))
                    }
                }
            }
        }
        return gained
    }

    /// The stored owners that gave a list kept on its members in the batch, each with the
    /// members' table position and the column that names the owner: a streamed population
    /// counts such an owner by the links its members gave themselves in any batch
    /// (``StreamTotals/noteOwnLinks(of:listed:)``).
    var listedOwnerColumns: [(owner: RowState, table: Int, column: Int)] {
        listedOwners.map { (owner: $0.value, table: $0.key.table, column: $0.key.column) }
    }

    private func mergePolicy(_ relationship: Relationship, entity: Entity) -> Relationship.MergePolicy {
        options.mergePolicy(of: relationship, on: entity)
    }
}

/// A proto-record's link for one relationship (by ``Representation/MappedRelationship/id``).
struct LinkKey: Hashable {
    let proto: ProtoRecord
    let relationship: Int
}

/// A member whose place in a stored owner's list (a to-many kept on its members) the batch
/// changed (``Marshaler/noteGainedMembers()``).
struct ListMemberChange {
    enum Kind {
        /// Given to the owner by the owner's list.
        case gained
        /// Kept by the owner's ordered list, at another position (in `positionColumn`).
        case moved(positionColumn: Int)
        /// Joining or leaving an owner that gave its list, through a link of its own or another's.
        case linked
    }

    let owner: RowState
    let member: RowState
    /// The member's column that names the owner.
    let column: Int
    let kind: Kind
}

/// A change to links outside the rows a population holds, run by the ``PopulationWriter``.
enum LinkOperation {
    /// Clears `column` in every row of `table` that holds `value` there, but the row `keep`
    /// (one-to-one exclusivity).
    case clearOthers(table: String, column: String, value: DatabaseValue, keep: Int64?)
    /// A to-many (or a to-one that identifies its destination) kept as a foreign key on the
    /// members: members not listed are dropped when `replace` (and, under `cascade`, proposed
    /// for deletion at the end of the response; `identifies` when the link is the members'
    /// key), and moved after the listed ones when ordered. `relationship` is the owner's.
    case foreignKeyMembers(
        owner: RowState, table: String, column: String, positionColumn: String?, members: [Int64], replace: Bool,
        deleteRule: Relationship.DeleteRule, identifies: Bool = false, relationship: String, destination: String,
        heldMembers: Bool = false)
    /// A to-many kept in a join table.
    case joinMembers(
        owner: RowState, table: String, selfColumn: String, otherColumn: String, positionColumn: String?,
        members: [Int64], replace: Bool, deleteRule: Relationship.DeleteRule, relationship: String,
        destination: String)
    /// After the `joinMembers` of a relationship that is its own inverse: each member lists
    /// the owner too, and with `replace` no record the owner does not list lists it.
    case mirrorJoinMembers(
        owner: RowState, table: String, selfColumn: String, otherColumn: String, positionColumn: String?,
        members: [Int64], memberRows: [RowState], replace: Bool)
    /// A one-to-one that is its own inverse: `row` and `partner` hold each other, no other row
    /// holds either; a nil `partner` unlinks `row` from its partner.
    case pairReferences(table: String, column: String, row: Int64, partner: Int64?)
}
