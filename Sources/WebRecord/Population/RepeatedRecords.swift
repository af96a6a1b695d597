/// The nested records that earlier batches of a streamed population wrote, kept so that a later
/// batch that repeats one as is takes it as written, its row and its children's, instead of
/// looking them up, populating and wiring them again.
///
/// This is the builder's rule for a record repeated as is (``ProtoRecordBuilder``: the repeat
/// adds nothing, and its nested records are not read again), carried from one batch to the
/// next. In a real stream the same few users, with their counts and images, are nested in post
/// after post across every batch, and without it each batch looked them up and compared them
/// again (Docs/Performance.md, "Repeated records across batches").
///
/// A record is taken as written only where that cannot differ from applying it again:
/// - it is nested (not a top-level record), identified by key, of an entity with no parent and
///   no sub-entities and no two attributes whose key paths meet, and given with data, its occurrences in the batch merged into exactly the
///   dictionary written last for its key, as the same entity;
/// - its only relationships are to its own children: records identified by it (their owner),
///   or reached without a key through its to-one, each of an entity with no hierarchy, with no
///   relationships of its own, and named nowhere else; their rows hold no key another record
///   could name them by; it sets no relationship to null;
/// - no other record of the batch names it or its children, but through a to-one kept in the
///   other record's own row that is not one-to-one (a post's `user`), which changes neither;
/// - since it was written, no batch changed rows it did not hold (a member moved or cleared,
///   a one-to-one partner unlinked, join rows changed), shared a row between two of its
///   records, or switched a record's sub-entity: any of these forgets every record kept; and no
///   other record resolved to one of its rows: that forgets it.
///
/// A keyless object through another record's to-one can still resolve, through that to-one, to
/// a row taken as written in its own batch: the two then share the row, and the record is
/// stored as usual after all (``noteResolved(_:)``).
///
/// Only a store whose write transaction holds the rows it finds keeps them
/// (``RecordStorage/holdsTheRowsItFinds``: SQLite's, which keeps other writers out, and
/// PostgreSQL's, which locks each row it finds): no other transaction can change a kept row
/// between two batches. At most ``capacity``
/// records are kept; past that, new ones are not, so that memory stays bounded on a response
/// of any size.
struct RepeatedRecords {
    /// A row as the batch that wrote it left it.
    struct Row {
        let table: Int
        let rowID: Int64
        let entityName: String
        var values: [DatabaseValue]
    }

    /// What a child of a record kept is: the relationship that reaches it and its entity. Two
    /// plain numbers, so that matching a batch's children against them counts no reference.
    struct Child: Equatable {
        let relationship: Int
        let representation: Int
    }

    /// A record kept: what its occurrences gave, its row, and its children's. A class, so that
    /// looking one up copies nothing.
    final class Entry {
        let representation: Int
        let dictionary: JSONObject
        var row: Row
        /// Its children, one per relationship, and their rows (``childRows``) in the same order.
        let children: [Child]
        var childRows: [Row]
        /// Whether the batch being stored takes it as written.
        var isCarried = false

        init(representation: Int, dictionary: JSONObject, row: Row, children: [Child], childRows: [Row]) {
            self.representation = representation
            self.dictionary = dictionary
            self.row = row
            self.children = children
            self.childRows = childRows
        }
    }

    private var entries: [ScopedKey: Entry] = [:]
    /// The entry each kept row belongs to, by table position and `_id`.
    private var owners: [[Int64: ScopedKey]] = []
    /// The records the batch being stored takes as written, in the order of their
    /// ``ProtoRecord/repeatMark``.
    private var carried: [(entry: Entry, proto: ProtoRecord, children: [ProtoRecord])] = []
    /// The entries whose rows a record of the batch resolved to without being carried.
    private var stale: [ScopedKey] = []
    /// Whether records are kept at all.
    let isEnabled: Bool
    /// The most records kept.
    let capacity: Int

    /// The default ``capacity``: the distinct nested records a stream of a few hundred thousand
    /// records repeats, at about a kilobyte each.
    static let defaultCapacity = 8192

    init(isEnabled: Bool, capacity: Int = Self.defaultCapacity) {
        self.isEnabled = isEnabled
        self.capacity = capacity
    }

    /// How many records are kept.
    var count: Int { entries.count }

    /// Whether the batch being stored takes any record as written.
    var carriesAny: Bool { !carried.isEmpty }

    /// Whether `proto` is taken as written in the batch being stored.
    static func isCarried(_ proto: ProtoRecord) -> Bool {
        proto.repeatMark > 0 || proto.repeatMark < -1
    }

    // MARK: - Before the batch is resolved

    /// Takes as written each proto-record of a batch that repeats a record kept, with its
    /// children: each gets a row with the values written last (``isCarried(_:)``); the rest
    /// are resolved as usual.
    mutating func carry(_ protos: [ProtoRecord], topLevel: [ProtoRecord]) {
        guard isEnabled else { return }
        for proto in topLevel { proto.repeatMark = -1 }
        guard !entries.isEmpty else { return }
        // The candidates: marked by their position, and their children by it too.
        var candidates: [(proto: ProtoRecord, entry: Entry, children: [ProtoRecord])] = []
        for proto in protos where proto.repeatMark == 0 && proto.normalizedKey != nil {
            guard let key = Self.key(of: proto), let entry = entries[key],
                entry.representation == proto.representation.index,
                let children = Self.children(of: proto), Self.matches(children, entry.children),
                proto.dictionary == entry.dictionary
            else { continue }
            candidates.append((proto, entry, children))
            proto.repeatMark = candidates.count
            for child in children { child.repeatMark = -candidates.count - 1 }
        }
        guard !candidates.isEmpty else { return }
        // Another record that names a candidate or a child, otherwise than through a to-one in
        // its own row, or that its owner identifies apart from it, could change their rows.
        var refused = [Bool](repeating: false, count: candidates.count + 1)
        for proto in protos where !Self.isCarried(proto) {
            if let owner = proto.owner?.proto, let index = Self.candidate(owner) { refused[index] = true }
            // Read in place, link by link: most links name no candidate, and whether a link
            // leaves its members alone is worked out only for one that does.
            let links = proto.links
            for link in links.indices {
                for member in links[link].members {
                    guard let index = Self.candidate(member) else { continue }
                    if member.repeatMark < 0 || !Self.leavesMemberAlone(links[link].relationship) {
                        refused[index] = true
                    }
                }
                for given in links[link].earlier {
                    for member in given {
                        guard let index = Self.candidate(member) else { continue }
                        if member.repeatMark < 0 || !Self.leavesMemberAlone(links[link].relationship) {
                            refused[index] = true
                        }
                    }
                }
            }
        }
        carried.reserveCapacity(candidates.count)
        for (offset, candidate) in candidates.enumerated() {
            guard !refused[offset + 1], let plan = candidate.proto.representation.table,
                attach(candidate.children, of: candidate.entry)
            else {
                candidate.proto.repeatMark = 0
                for child in candidate.children {
                    child.repeatMark = 0
                    child.row = nil
                    child.rowID = nil
                }
                continue
            }
            attach(candidate.entry.row, plan: plan, to: candidate.proto)
            candidate.entry.isCarried = true
            carried.append((candidate.entry, candidate.proto, candidate.children))
            candidate.proto.repeatMark = carried.count
            for child in candidate.children { child.repeatMark = -carried.count - 1 }
        }
    }

    /// The position (from 1) of the candidate `proto` is, or is a child of.
    private static func candidate(_ proto: ProtoRecord) -> Int? {
        let mark = proto.repeatMark
        if mark > 0 { return mark }
        if mark < -1 { return -mark - 1 }
        return nil
    }

    /// Gives each of `children` the row of the kept child it is; false when one has no table or
    /// no kept child (the caller then takes back what was given).
    private func attach(_ children: [ProtoRecord], of entry: Entry) -> Bool {
        guard children.allSatisfy({ $0.representation.table != nil }) else { return false }
        for child in children {
            guard let plan = child.representation.table,
                let kept = entry.children.firstIndex(where: { $0.relationship == child.ownerRelationshipID })
            else { return false }
            attach(entry.childRows[kept], plan: plan, to: child)
        }
        return true
    }

    /// Gives `proto` a row with the values `kept` was written with.
    private func attach(_ kept: Row, plan: TablePlan, to proto: ProtoRecord) {
        let row = RowState(storedIn: plan, rowID: kept.rowID, entityName: kept.entityName, values: kept.values)
        proto.row = row
        proto.rowID = row.rowID
    }

    /// Notes the proto-records resolved as usual that resolved to a kept row: that record is
    /// forgotten once the batch is written, as something else may change it.
    ///
    /// One that resolved to the row of a record the batch takes as written (a keyless object
    /// through another record's to-one, which names the same row) shares that row, as the
    /// resolver shares a row two proto-records found, and the record taken as written is
    /// populated and wired as usual after all, with its children: its row, as the earlier batch
    /// left it, is the row a lookup would have found.
    ///
    /// - Returns: whether a proto-record now shares a row with one that was taken as written.
    mutating func noteResolved(_ protos: [ProtoRecord]) -> Bool {
        guard isEnabled, !owners.isEmpty else { return false }
        var sharesRows = false
        for proto in protos {
            guard let row = proto.row, !row.isNew, row.table.index < owners.count,
                let key = owners[row.table.index][row.rowID]
            else { continue }
            stale.append(key)
            guard let entry = entries[key], entry.isCarried,
                let index = carried.firstIndex(where: { $0.entry === entry })
            else { continue }
            let (_, parent, children) = carried[index]
            for taken in [parent] + children {
                guard let shared = taken.row, shared.rowID == row.rowID, shared.table.index == row.table.index
                else { continue }
                proto.row = shared
                proto.rowID = shared.rowID
                sharesRows = true
            }
            // Populated and wired as usual after all.
            entry.isCarried = false
            parent.repeatMark = 0
            for child in children { child.repeatMark = 0 }
        }
        return sharesRows
    }

    // MARK: - After the batch is written

    /// Keeps the records the batch wrote that a later batch may take as written, refreshes
    /// those it took as written, and forgets what the batch may have changed.
    ///
    /// - Parameter disturbed: whether the batch changed rows it did not hold, shared a row
    ///   between two records or switched a sub-entity: then nothing kept is kept any longer.
    mutating func keep(_ protos: [ProtoRecord], disturbed: Bool) {
        guard isEnabled else { return }
        defer {
            for carried in carried { carried.entry.isCarried = false }
            carried.removeAll(keepingCapacity: true)
            stale.removeAll(keepingCapacity: true)
        }
        if disturbed {
            entries.removeAll()
            owners.removeAll()
            return
        }
        for key in stale { forget(key) }
        for proto in protos where proto.repeatMark >= 0 && proto.normalizedKey != nil {
            guard let row = proto.row, let key = Self.key(of: proto) else { continue }
            if proto.repeatMark > 0 {
                // Taken as written: what other records of the batch set in its rows is what
                // they hold now.
                refresh(carried[proto.repeatMark - 1].entry, from: proto)
                continue
            }
            let isKept = entries[key] != nil
            // Full: a record not kept is not looked at, so that a response of many more
            // distinct records than the capacity costs next to nothing.
            if !isKept, entries.count >= capacity { continue }
            guard let children = Self.children(of: proto) else {
                if isKept { forget(key) }
                continue
            }
            if isKept { forget(key) }
            var kept: [Child] = []
            var keptRows: [Row] = []
            kept.reserveCapacity(children.count)
            keptRows.reserveCapacity(children.count)
            for child in children {
                guard let childRow = child.row, let relationship = child.ownerRelationshipID,
                    !Self.holdsKey(childRow, of: child.representation)
                else { break }
                kept.append(Child(relationship: relationship, representation: child.representation.index))
                keptRows.append(Self.row(childRow))
            }
            guard kept.count == children.count else { continue }
            entries[key] = Entry(
                representation: proto.representation.index, dictionary: proto.dictionary,
                row: Self.row(row), children: kept, childRows: keptRows)
            note(row.table.index, row.rowID, key)
            for childRow in keptRows { note(childRow.table, childRow.rowID, key) }
        }
    }

    /// Refreshes a carried entry's rows from what the batch left them.
    private func refresh(_ entry: Entry, from proto: ProtoRecord) {
        if let row = proto.row, row.hasChangedValues { entry.row.values = Array(row.values) }
        let links = proto.links
        for link in links.indices {
            for child in links[link].members {
                guard let row = child.row, row.hasChangedValues,
                    let index = entry.childRows.firstIndex(where: {
                        $0.rowID == row.rowID && $0.table == row.table.index
                    })
                else { continue }
                entry.childRows[index].values = Array(row.values)
            }
        }
    }

    private mutating func note(_ table: Int, _ rowID: Int64, _ key: ScopedKey) {
        if table >= owners.count { owners += repeatElement([:], count: table + 1 - owners.count) }
        owners[table][rowID] = key
    }

    private mutating func forget(_ key: ScopedKey) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        if entry.row.table < owners.count { owners[entry.row.table][entry.row.rowID] = nil }
        for childRow in entry.childRows where childRow.table < owners.count {
            owners[childRow.table][childRow.rowID] = nil
        }
    }

    // MARK: - The rules

    private static func key(of proto: ProtoRecord) -> ScopedKey? {
        proto.normalizedKey.map { ScopedKey(proto, $0) }
    }

    private static func row(_ row: RowState) -> Row {
        Row(table: row.table.index, rowID: row.rowID, entityName: row.entityName, values: Array(row.values))
    }

    /// An entity with no parent and no sub-entities (its records cannot change entity), and no
    /// two attributes whose key paths meet.
    private static func isPlain(_ representation: Representation) -> Bool {
        // Attributes whose key paths meet are chosen apart from the dictionary
        // (``Representation/sharedAttributes``): an equal dictionary may hold other values.
        !representation.isDiscriminated && representation.entity.parentName == nil
            && representation.sharedAttributes.isEmpty
    }

    /// Whether a child's row holds a value in a key attribute, by which another record could name
    /// it (a keyless child's row holds none). One identified by its owner is named through its
    /// owner, which ``carry(_:topLevel:)`` checks.
    private static func holdsKey(_ row: RowState, of representation: Representation) -> Bool {
        representation.keyAttributes.contains { !row.values[$0.column].isNull }
    }

    /// The children `proto` links to, when every link of its goes to one: a record of an entity
    /// with no hierarchy, without a key, identified by `proto` through that link, named nowhere
    /// else and linking nowhere; nil otherwise.
    private static func children(of proto: ProtoRecord) -> [ProtoRecord]? {
        guard !proto.isReference, isPlain(proto.representation) else { return nil }
        var children: [ProtoRecord] = []
        let links = proto.links
        for link in links.indices {
            // A relationship set to null is not taken as written: a child another writer adds
            // meanwhile (one that refers to the locked record: PostgreSQL locks only the rows
            // its lookups find) would be unlinked by the record applied again.
            guard links[link].earlier.isEmpty, !links[link].isPartial, !links[link].members.isEmpty else {
                return nil
            }
            let relationship = links[link].relationship.id
            for member in links[link].members {
                guard let owner = member.owner, owner.proto == proto, owner.relationship.id == relationship,
                    member.normalizedKey == nil, !member.isReference, !member.isNamedApartFromOwner,
                    !member.isNewThere, member.links.isEmpty, isPlain(member.representation)
                else { return nil }
                if children.isEmpty { children.reserveCapacity(links.count) }
                children.append(member)
            }
        }
        return children
    }

    /// Whether this batch's `children` are the kept ones: one each, by relationship and entity.
    private static func matches(_ children: [ProtoRecord], _ kept: [Child]) -> Bool {
        guard children.count == kept.count else { return false }
        return children.allSatisfy { child in
            guard let relationship = child.ownerRelationshipID else { return false }
            return kept.contains(Child(relationship: relationship, representation: child.representation.index))
        }
    }

    /// Whether a link through `relationship` to a record changes neither that record's row nor
    /// its links: a to-one kept in the linking record's own row, not one-to-one, not its own
    /// inverse.
    private static func leavesMemberAlone(_ relationship: Representation.MappedRelationship) -> Bool {
        guard !relationship.isSymmetric, case .foreignKeyHere(_, _, _, let isOneToOne)? = relationship.link else {
            return false
        }
        return !isOneToOne
    }
}
