/// One record-to-be found in a response, before it is matched to the store.
///
/// The population builds one proto-record per distinct record in the response: duplicates
/// (the same primary key, or the same owner for records identified by their owner) merge
/// into one. Each holds its entity, its merged dictionary, its primary-key value, the
/// proto-records it relates to, and, once resolved, the row it became.
///
/// A handle, not an object: a position in the batch's proto-records (``ProtoRecordArena``),
/// which hold every proto-record's fields one after another. A batch builds tens of thousands
/// of them; as handles they are made and freed with no allocation of their own, and lists of
/// them are copied with no reference counted. Two handles are equal when they name the same
/// proto-record. A handle is used only while its batch's graph is: the arena is freed with it.
///
/// Internal to the population, which creates and mutates it on the one thread that runs it;
/// hooks see a ``ParentRecord`` value instead.
struct ProtoRecord: Hashable, CustomStringConvertible {
    /// The record's owner, for records identified by their owner: the owning proto-record and
    /// the owner's to-one relationship to this one.
    struct Owner {
        let proto: ProtoRecord
        let relationship: Representation.MappedRelationship

        /// Whether the owner, as the entity it ends the batch as (its last sub-entity), has the
        /// relationship: one that does not relates nothing there (DESIGN §3.13).
        var hasRelationship: Bool { proto.representation.relationships.contains { $0.id == relationship.id } }
    }

    /// One relationship the response set, with its members in response order.
    struct Link {
        let relationship: Representation.MappedRelationship
        var members: [ProtoRecord]
        /// Whether the response also named members that were rejected: the to-many then adds
        /// its members and removes none, whatever its merge rule.
        var isPartial = false
        /// Whether the link only gives back members that an earlier batch of a streamed
        /// response listed and dropped as incomplete (``ProtoRecord/addEarlierMember(_:_:)``):
        /// applied as additions, as a partial one is, with nothing refused to report.
        var addsOnly = false
        /// The occurrence of the record (``lastGiven``) that set the link last.
        var givenAt = 0
        /// For a list merged by union, the occurrence that named each member last, in
        /// ``members``' order (empty: every member at ``givenAt``). A member only an earlier
        /// occurrence named was claimed then: another record that claims it after that keeps it.
        var memberTimes: [Int] = []
        /// The members a reference by key named through a relationship to a sub-entity while no
        /// occurrence before it had stated the record's entity (DESIGN §3.13), with whether the
        /// entity the response had made of it then may be linked there: each is judged once its
        /// record is resolved, against the stored entity, or that verdict for a new record
        /// (``Marshaler/judged(_:of:)``). Empty outside hierarchies with sub-entities.
        var judged: [(member: ProtoRecord, fitsResponse: Bool)] = []

        /// The occurrence that named the member at `position` last.
        func givenAt(member position: Int) -> Int {
            memberTimes.isEmpty ? givenAt : memberTimes[position]
        }
        /// For a to-one, what earlier occurrences set it to, oldest first (`[]` for a `null`):
        /// where the latest names a record that is not stored, the link is what the one before
        /// left it, as when the occurrences are applied in turn (``Marshaler/wire(_:of:)``).
        var earlier: [[ProtoRecord]] = []
        /// The occurrence that gave each of ``earlier`` last (its ``givenAt`` then), in its order.
        var earlierGivenAt: [Int] = []

        /// The members to wire: ``members``, or, for a to-one whose members none is stored,
        /// what the latest earlier occurrence left it that is (`[]` for a `null`); nil when
        /// no occurrence gave a stored record or a `null` (the link keeps what is stored).
        var membersInTurn: [ProtoRecord]? { inTurn?.members }

        /// When the link is wired (``membersInTurn``): ``givenAt``, or, when it falls back on an
        /// earlier occurrence, the occurrence that gave that one. Applied in turn, the later
        /// occurrence that names a record not stored changes nothing, so the link is what that
        /// earlier occurrence set, and what came after it decides against it: a list given after
        /// it that leaves the record out drops it, and another record's list or one-to-one given
        /// after it takes the record or its target (decision 7, the claim named last).
        var givenAtInTurn: Int {
            // The common path (one occurrence, or none naming a record that is not stored).
            guard !earlier.isEmpty else { return givenAt }
            return inTurn?.givenAt ?? givenAt
        }

        /// ``membersInTurn`` and the occurrence that gave them (``givenAtInTurn``).
        private var inTurn: (members: [ProtoRecord], givenAt: Int)? {
            guard !relationship.isToMany, !members.isEmpty, !members.contains(where: { $0.row != nil }) else {
                return (members, givenAt)
            }
            for position in earlier.indices.reversed()
            where earlier[position].isEmpty || earlier[position].contains(where: { $0.row != nil }) {
                return (
                    earlier[position], earlierGivenAt.indices.contains(position) ? earlierGivenAt[position] : givenAt
                )
            }
            return nil
        }
    }

    /// The fields of one proto-record, as its arena keeps them (documented on the handle's
    /// properties of the same names).
    struct Fields {
        var representation: Representation
        var dictionary: JSONObject
        var primaryKeyValue: JSONValue?
        var parent: ProtoRecord?
        var clearedRelationships: Set<String> = []
        var rowID: Int64?
        var isReference: Bool
        var links: [Link] = []
        var normalizedKey: KeyValue?
        var owner: Owner?
        var row: RowState?
        var linkedAfterChanges = -1
        var lastGiven = 0
        var firstGiven = 0
        var entityIsStated = false
        var givenAs: Representation?
        var isRejected = false
        var isDroppedIncomplete = false
        var unstoredTable: String?
        var reservedRowID: Int64?
        var dropReason: String?
        var wasUnlinked = false
        var isNamedApartFromOwner = false
        var isNewThere = false
        var repeatMark = 0
        /// Where the record's prepared attribute values start in ``ProtoRecordArena/prepared``;
        /// -1 when none are (not yet, or the dictionary or the entity changed since).
        var preparedAt = -1
        var completedAt = 0
        var attributeTimes: [Int] = []
    }

    /// The batch's proto-records, which hold this one's fields.
    ///
    /// Unowned in release builds: the batch's builder holds its arena for as long as the graph
    /// is used, and a handle costs no reference count. Held in debug builds, so that a handle
    /// used after its arena was freed stops at the arena's position check instead (unless the
    /// arena went on to a later batch, whose records may have taken the position).
    #if DEBUG
        let arena: ProtoRecordArena
    #else
        unowned(unsafe) let arena: ProtoRecordArena
    #endif
    /// The proto-record's position in its arena.
    let index: Int

    init(arena: ProtoRecordArena, index: Int) {
        self.arena = arena
        self.index = index
    }

    static func == (lhs: ProtoRecord, rhs: ProtoRecord) -> Bool { lhs.index == rhs.index && lhs.arena === rhs.arena }

    func hash(into hasher: inout Hasher) { hasher.combine(index) }

    /// This proto-record's fields, in place until the arena next grows.
    private var fields: UnsafeMutablePointer<Fields> { arena.fields.pointer(at: index) }

    /// How the entity is represented (the sub-entity chosen for the record included).
    var representation: Representation { fields.pointee.representation }
    /// The record's dictionary: every occurrence in the response merged, after pre-population.
    var dictionary: JSONObject {
        get { fields.pointee.dictionary }
        nonmutating _modify {
            fields.pointee.preparedAt = -1
            yield &fields.pointee.dictionary
        }
    }
    /// The primary-key value as found in (or injected into) the response, if any.
    var primaryKeyValue: JSONValue? {
        get { fields.pointee.primaryKeyValue }
        nonmutating set { fields.pointee.primaryKeyValue = newValue }
    }
    /// The proto-record this one was first found nested in, if any.
    var parent: ProtoRecord? {
        get { fields.pointee.parent }
        nonmutating set { fields.pointee.parent = newValue }
    }
    /// The relationships the response set to null.
    var clearedRelationships: Set<String> {
        get { fields.pointee.clearedRelationships }
        nonmutating _modify { yield &fields.pointee.clearedRelationships }
    }
    /// The `_id` of the row the proto-record resolved to, once resolved.
    var rowID: Int64? {
        get { fields.pointee.rowID }
        nonmutating set { fields.pointee.rowID = newValue }
    }
    /// Whether the response only referenced this record by key (a stub), never giving its data.
    var isReference: Bool {
        get { fields.pointee.isReference }
        nonmutating set { fields.pointee.isReference = newValue }
    }
    /// For a record a reference by key named as its relationship's destination (a `Disc`), whose
    /// data the response then gave, stating no entity, as a more general one (a `Shape`): the
    /// most specific entity the data was given as, a later occurrence given as the `Disc` or a
    /// more specific one included. A stored record keeps its sub-entity when it
    /// is a kind of that one (DESIGN §3.13), else becomes that one, whatever the reference named
    /// (``RecordResolver``): what the data alone makes it.
    var givenAs: Representation? {
        get { fields.pointee.givenAs }
        nonmutating set { fields.pointee.givenAs = newValue }
    }
    /// The relationships the response set, in the order first met (a few, so an array).
    var links: [Link] { fields.pointee.links }
    /// The normalized primary key, for records identified by their key.
    var normalizedKey: KeyValue? {
        get { fields.pointee.normalizedKey }
        nonmutating set { fields.pointee.normalizedKey = newValue }
    }
    /// The owner, for records identified by their owner (those without a key).
    var owner: Owner? {
        get { fields.pointee.owner }
        nonmutating set { fields.pointee.owner = newValue }
    }
    /// The ``MappedRelationship/id`` of the owner's relationship to the record, for records
    /// identified by their owner: read in place, copying no owner.
    var ownerRelationshipID: Int? { fields.pointee.owner?.relationship.id }
    /// The row the proto-record resolved to, once resolved.
    var row: RowState? {
        get { fields.pointee.row }
        nonmutating set { fields.pointee.row = newValue }
    }
    /// How many merges had changed a record of the response when this record's relationships
    /// were last linked (``ProtoRecordBuilder``): a repeat of it as is may skip its nested
    /// records only if none changed since.
    var linkedAfterChanges: Int {
        get { fields.pointee.linkedAfterChanges }
        nonmutating set { fields.pointee.linkedAfterChanges = newValue }
    }
    /// When the response last gave this record's values, in the order of the occurrences the
    /// builder met: of two proto-records that share one row, the later given wins.
    var lastGiven: Int {
        get { fields.pointee.lastGiven }
        nonmutating set { fields.pointee.lastGiven = newValue }
    }
    /// The occurrence that made the proto-record (``lastGiven`` then; 0 for a stub): the links
    /// it gave are in the graph's order (``ResponsePopulation/wireInOrderGiven(_:superseded:with:)``).
    var firstGiven: Int {
        get { fields.pointee.firstGiven }
        nonmutating set { fields.pointee.firstGiven = newValue }
    }
    /// For a new record whose first occurrence lacked a value that a non-optional attribute
    /// without a default needs: the occurrence that gave the last of them (`Int.max` while one
    /// is missing); 0 for a record complete from its first occurrence. A streamed population
    /// stores such a record, and applies its links, only in the batch that completes it
    /// (Docs/Population.md, "Carried"), so its links to a list's owner count as given then.
    var completedAt: Int {
        get { fields.pointee.completedAt }
        nonmutating set { fields.pointee.completedAt = newValue }
    }
    /// Whether the response's discriminator named the record's entity (DESIGN §3.13): a value
    /// that maps to it, or one that maps to no sub-entity, which makes the record the entity
    /// whose discriminator was read. A stored record then takes that entity, even a more
    /// general one, where without it the stored sub-entity is kept.
    var entityIsStated: Bool {
        get { fields.pointee.entityIsStated }
        nonmutating set { fields.pointee.entityIsStated = newValue }
    }
    /// Whether the store refused the record it names (a reference to a record of another
    /// branch of its hierarchy): it gets no row, and nothing links to it.
    var isRejected: Bool {
        get { fields.pointee.isRejected }
        nonmutating set { fields.pointee.isRejected = newValue }
    }
    /// Whether the population dropped the record, new and without a value for a non-optional
    /// attribute (or identified by an owner that was dropped): it gets no row.
    var isDroppedIncomplete: Bool {
        get { fields.pointee.isDroppedIncomplete }
        nonmutating set { fields.pointee.isDroppedIncomplete = newValue }
    }
    /// The table whose `_id` a new record that was not stored keeps all the same, once per row
    /// (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``): so that a streamed record
    /// that a later batch completes takes the `_id` it would have had in one batch
    /// (``ResponsePopulation/numberNewRows(_:in:)``).
    var unstoredTable: String? {
        get { fields.pointee.unstoredTable }
        nonmutating set { fields.pointee.unstoredTable = newValue }
    }
    /// The `_id` an earlier batch kept for this record, which it dropped as incomplete: the new
    /// row takes it rather than a new one.
    var reservedRowID: Int64? {
        get { fields.pointee.reservedRowID }
        nonmutating set { fields.pointee.reservedRowID = newValue }
    }
    /// Why the population did not store the record, for the message of a response none of
    /// whose top-level records were stored: `Customer 'cus_1': email is null, and it is not
    /// optional`.
    var dropReason: String? {
        get { fields.pointee.dropReason }
        nonmutating set { fields.pointee.dropReason = newValue }
    }
    /// Whether the record was not stored because its owner, as the response left it, does not
    /// name it (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``).
    var wasUnlinked: Bool {
        get { fields.pointee.wasUnlinked }
        nonmutating set { fields.pointee.wasUnlinked = newValue }
    }
    /// Whether the response named this record, identified by its owner, apart from its owner's
    /// link to it: by the value of the relationship that is its key (`{"user": "u1", ...}`), at
    /// the top level or nested elsewhere. Such a record is the response's whatever the owner's
    /// link says, so no delete that link starts removes it.
    var isNamedApartFromOwner: Bool {
        get { fields.pointee.isNamedApartFromOwner }
        nonmutating set { fields.pointee.isNamedApartFromOwner = newValue }
    }
    /// Whether the record, without a key, is nested in a to-one that an earlier occurrence of its
    /// owner in the response set to null: nothing is related there any more, so it is a new
    /// record, not the one the store relates there (DESIGN §3.6, the occurrences in turn).
    var isNewThere: Bool {
        get { fields.pointee.isNewThere }
        nonmutating set { fields.pointee.isNewThere = newValue }
    }
    /// For each column of the record's table, the occurrence whose value of the attribute
    /// kept there the merged dictionary holds (``ProtoRecordBuilder``); empty while every
    /// attribute the dictionary holds was given by the latest occurrence (``lastGiven``), as
    /// when a record occurs once or is repeated as is. Two proto-records that turn out to be
    /// one record (one named by key, one without a key where it is related) are populated
    /// attribute by attribute from the one whose occurrence gave each last
    /// (``ResponsePopulation/populateSharedRow(_:with:)``).
    var attributeTimes: [Int] {
        get { fields.pointee.attributeTimes }
        nonmutating set { fields.pointee.attributeTimes = newValue }
    }

    /// For a record whose hierarchy has attributes whose key paths meet
    /// (``Representation/sharedAttributes``), once occurrences of it were merged: the value
    /// chosen for each of those attributes, in their order (nil where none gave one). One
    /// dictionary holds one value at a key path; these hold each attribute's own (DESIGN §3.7).
    /// Nil otherwise: each attribute reads its value in ``dictionary``. Kept beside the arena's
    /// fields, so that no other record pays for them.
    var sharedValues: [Representation.SharedValue?]? {
        get { arena.sharedValues.isEmpty ? nil : arena.sharedValues[index] }
        nonmutating set {
            fields.pointee.preparedAt = -1
            arena.sharedValues[index] = newValue
        }
    }

    /// The value the record gives `mapped`, an attribute of its hierarchy, with the key path it
    /// was found at: the one chosen for it (``sharedValues``), or the first of its candidates
    /// present in ``dictionary``.
    func found(_ mapped: Representation.MappedAttribute) -> Representation.Found? {
        if let shared = sharedValues, let position = representation.sharedPositions[mapped.column],
            shared.indices.contains(position)
        {
            return shared[position]?.found(as: mapped)
        }
        return mapped.value(in: dictionary)
    }

    /// The value the record gives `mapped` (``found(_:)`` without the path).
    func value(of mapped: Representation.MappedAttribute) -> JSONValue? {
        if !arena.sharedValues.isEmpty, let shared = arena.sharedValues[index],
            let position = representation.sharedPositions[mapped.column], shared.indices.contains(position)
        {
            return shared[position]?.value
        }
        return mapped.firstValue(in: dictionary)
    }

    /// The occurrence that gave the value the merged dictionary holds for the attribute kept in
    /// `column` (``attributeTimes``).
    func attributeTime(column: Int) -> Int {
        let times = fields.pointee.attributeTimes
        return times.indices.contains(column) ? times[column] : fields.pointee.lastGiven
    }

    /// What ``RepeatedRecords`` made of the record in the batch being stored: 0 nothing, -1 a
    /// top-level record, `n` > 0 the `n`th record taken as written, `-n - 1` a child of it.
    var repeatMark: Int {
        get { fields.pointee.repeatMark }
        nonmutating set { fields.pointee.repeatMark = newValue }
    }

    /// The entity of the record, the sub-entity chosen for it included.
    var entity: Entity { representation.entity }
    /// The relationships the response set, by name, with their proto-records in response order.
    /// An explicit null is an empty array in ``clearedRelationships``.
    var relationships: [String: [ProtoRecord]] {
        Dictionary(links.map { ($0.relationship.property.name, $0.members) }, uniquingKeysWith: { _, later in later })
    }

    /// Makes the record one of another entity of its hierarchy (a sub-entity chosen later).
    func become(_ representation: Representation) {
        fields.pointee.preparedAt = -1
        fields.pointee.representation = representation
    }

    /// The record's attribute values as its reading thread prepared them
    /// (``ProtoRecordArena/prepareAttributes(coercion:)``), one per attribute of its
    /// representation, in order; nil when they are not prepared, or no longer hold (an
    /// occurrence merged into the dictionary since, or another entity chosen).
    var preparedValues: UnsafeBufferPointer<Marshaler.PreparedValue>? {
        let start = fields.pointee.preparedAt
        guard start >= 0 else { return nil }
        return arena.prepared.elements(from: start, count: representation.attributes.count)
    }

    /// Whether an occurrence of the record set `relationship`.
    func hasLink(_ relationship: Representation.MappedRelationship) -> Bool {
        links.contains { $0.relationship.id == relationship.id }
    }

    /// Calls `body` with the members of the link of the relationship `id` and the occurrence that
    /// set it last, read in place (no copy of the link), if the record has that link.
    func withLink(_ id: Int, _ body: ([ProtoRecord], Int) -> Void) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == id {
            body(fields.pointee.links[index].members, fields.pointee.links[index].givenAt)
            return
        }
    }

    /// Calls `body` with each of the record's links through a one-to-one: its relationship's
    /// ``Representation/MappedRelationship/id``, its members and the occurrence that set it last,
    /// read in place.
    func forEachOneToOneLink(_ body: (Int, [ProtoRecord], Int) -> Void) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.isOneToOne {
            body(
                fields.pointee.links[index].relationship.id, fields.pointee.links[index].members,
                fields.pointee.links[index].givenAt)
        }
    }

    /// Notes that an occurrence before every one this batch gives (an earlier batch's, carried)
    /// set the to-one `relationship`, which this batch sets too, to `members`: the oldest of
    /// the link's ``Link/earlier``, which the link falls back on where later ones name records
    /// that are not stored.
    func noteEarlierLink(_ relationship: Representation.MappedRelationship, members: [ProtoRecord]) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            // The two lists are kept in step (``setLink(_:member:)``): before any occurrence.
            fields.pointee.links[index].earlier.insert(members, at: 0)
            fields.pointee.links[index].earlierGivenAt.insert(0, at: 0)
            return
        }
    }

    /// Adds `member` to the to-many `relationship`, as listed by an occurrence before every one
    /// this batch gives (an earlier batch's, which dropped `member` as incomplete and carried
    /// it): to the list this batch's occurrences set, which then merges by `union` (one that
    /// replaces leaves the earlier list, and `member` with it, out: the caller gives none), or,
    /// where they set none, as a list that only adds (``Link/addsOnly``), removing nothing.
    func addEarlierMember(_ relationship: Representation.MappedRelationship, _ member: ProtoRecord) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            if fields.pointee.links[index].members.contains(member) { return }
            let count = fields.pointee.links[index].members.count
            if fields.pointee.links[index].memberTimes.isEmpty {
                fields.pointee.links[index].memberTimes = Array(
                    repeating: fields.pointee.links[index].givenAt, count: count)
            }
            fields.pointee.links[index].members.append(member)
            fields.pointee.links[index].memberTimes.append(0)
            return
        }
        if fields.pointee.links.isEmpty {
            fields.pointee.links.reserveCapacity(fields.pointee.representation.relationships.count)
        }
        fields.pointee.links.append(
            Link(relationship: relationship, members: [member], isPartial: true, addsOnly: true, givenAt: 0))
    }

    /// Gives the ordered to-many `relationship` the list `members`, as listed by an occurrence
    /// before every one this batch gives (an earlier batch's, whose list named a record it
    /// dropped as incomplete and carried): applied by the relationship's own rule, as that
    /// occurrence's list was. Where this batch's occurrences set the relationship, their list
    /// (or the same list given already for another record carried) stands: the caller gives
    /// none under a later list that replaces it.
    func giveEarlierList(_ relationship: Representation.MappedRelationship, members: [ProtoRecord]) {
        let fields = self.fields
        guard !fields.pointee.links.contains(where: { $0.relationship.id == relationship.id }) else { return }
        if fields.pointee.links.isEmpty {
            fields.pointee.links.reserveCapacity(fields.pointee.representation.relationships.count)
        }
        fields.pointee.links.append(Link(relationship: relationship, members: members, givenAt: 0))
    }

    /// Sets the members of `relationship`, replacing what an earlier occurrence set.
    func setLink(_ relationship: Representation.MappedRelationship, members: [ProtoRecord], partial: Bool = false) {
        let fields = self.fields
        let lastGiven = fields.pointee.lastGiven
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            if !relationship.isToMany {
                fields.pointee.links[index].earlier.append(fields.pointee.links[index].members)
                fields.pointee.links[index].earlierGivenAt.append(fields.pointee.links[index].givenAt)
            }
            fields.pointee.links[index].members = members
            fields.pointee.links[index].isPartial = partial
            fields.pointee.links[index].givenAt = lastGiven
            fields.pointee.links[index].memberTimes = []
            return
        }
        if fields.pointee.links.isEmpty {
            fields.pointee.links.reserveCapacity(fields.pointee.representation.relationships.count)
        }
        fields.pointee.links.append(
            Link(relationship: relationship, members: members, isPartial: partial, givenAt: lastGiven))
    }

    /// Adds `members` to what earlier occurrences set for `relationship`, a to-many merged by
    /// union (DESIGN §3.7, §3.11): a later list adds to an earlier one and removes nothing from
    /// it, as the occurrences applied one after another would. The later list comes first, then
    /// the earlier members it leaves out, in their order: where an ordered union puts them.
    ///
    /// A list with an element refused is united so too, under either rule: applied after an
    /// earlier list, it would add to it and remove nothing. Whether the link is partial stays the
    /// earlier list's: a whole list replaced before it still removes what neither names.
    func uniteLink(_ relationship: Representation.MappedRelationship, members: [ProtoRecord], partial: Bool = false) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            let earlier = fields.pointee.links[index].members
            let earlierTimes = earlier.indices.map { fields.pointee.links[index].givenAt(member: $0) }
            let now = fields.pointee.lastGiven
            fields.pointee.links[index].givenAt = now
            guard !earlier.isEmpty else {
                fields.pointee.links[index].members = members
                fields.pointee.links[index].memberTimes = []
                return
            }
            if members == earlier {
                fields.pointee.links[index].memberTimes = []
                return
            }
            let listed = Set(members)
            let kept = earlier.indices.filter { !listed.contains(earlier[$0]) }
            fields.pointee.links[index].members = members + kept.map { earlier[$0] }
            fields.pointee.links[index].memberTimes =
                Array(repeating: now, count: members.count) + kept.map { earlierTimes[$0] }
            return
        }
        setLink(relationship, members: members, partial: partial)
    }

    /// Notes that references by key named `members` through `relationship` before any
    /// occurrence stated their entity (``Link/judged``), once the link is set.
    func noteJudged(_ relationship: Representation.MappedRelationship, _ members: [(ProtoRecord, Bool)]) {
        let fields = self.fields
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            fields.pointee.links[index].judged.append(contentsOf: members.map { (member: $0.0, fitsResponse: $0.1) })
            return
        }
    }

    /// Marks every link as given by the latest occurrence (``lastGiven``): a repeat of the
    /// record as is, which sets each of them again.
    func regiveLinks() {
        let fields = self.fields
        for index in fields.pointee.links.indices { fields.pointee.links[index].givenAt = fields.pointee.lastGiven }
    }

    /// Sets `relationship` to the one record `member`, unless it already is exactly that.
    func setLink(_ relationship: Representation.MappedRelationship, member: ProtoRecord) {
        let fields = self.fields
        let lastGiven = fields.pointee.lastGiven
        for index in fields.pointee.links.indices where fields.pointee.links[index].relationship.id == relationship.id {
            let givenBefore = fields.pointee.links[index].givenAt
            fields.pointee.links[index].givenAt = lastGiven
            fields.pointee.links[index].memberTimes = []
            let members = fields.pointee.links[index].members
            if members.count == 1, members[0] == member, !fields.pointee.links[index].isPartial { return }
            if !relationship.isToMany {
                fields.pointee.links[index].earlier.append(members)
                fields.pointee.links[index].earlierGivenAt.append(givenBefore)
            }
            fields.pointee.links[index].members = [member]
            fields.pointee.links[index].isPartial = false
            return
        }
        if fields.pointee.links.isEmpty {
            fields.pointee.links.reserveCapacity(fields.pointee.representation.relationships.count)
        }
        fields.pointee.links.append(Link(relationship: relationship, members: [member], givenAt: lastGiven))
    }

    /// `Customer 'cus_1'`, `Customer 5`, or the ``description`` of a record with no key.
    var named: String {
        switch primaryKeyValue {
        case .string(let text)?: return "\(entity.name) '\(text)'"
        case let value?: return "\(entity.name) \(value.serialized())"
        case nil: return description
        }
    }

    /// `Entity(key)` or `Entity(owned by Owner)` or `Entity(new)`.
    var description: String {
        if let primaryKeyValue { return "\(entity.name)(\(primaryKeyValue.serialized()))" }
        if let owner {
            return "\(entity.name)(owned by \(owner.proto.entity.name).\(owner.relationship.property.name))"
        }
        return "\(entity.name)(new)"
    }
}

/// The proto-records of one batch (``ProtoRecord``): every one's fields, one after another,
/// made by the batch's builder and freed with its graph (``removeAll()``).
///
/// Used by one thread at a time: the reading thread that builds the batch, then the writer, then
/// the reading thread again, which frees it; the batches' hand-over orders the three.
final class ProtoRecordArena {
    // Unchecked exclusivity: no two accesses overlap, and the dynamic checks of a class's
    // property would cost more than the reads of a proto-record's fields.
    @exclusivity(unchecked) fileprivate(set) var fields = BatchColumn<ProtoRecord.Fields>()
    /// The attribute values the reading thread prepared, every record's one after another
    /// (``ProtoRecord/preparedValues``).
    @exclusivity(unchecked) fileprivate(set) var prepared = BatchColumn<Marshaler.PreparedValue>()
    /// The values chosen for the attributes whose key paths meet, of the records that have them
    /// (``ProtoRecord/sharedValues``), by position: empty for most batches.
    @exclusivity(unchecked) fileprivate(set) var sharedValues: [Int: [Representation.SharedValue?]] = [:]

    deinit {
        fields.removeAll()
        prepared.removeAll()
    }

    /// The number of proto-records made.
    var count: Int { fields.count }

    /// A new proto-record.
    func make(
        representation: Representation, dictionary: JSONObject, parent: ProtoRecord?, isReference: Bool
    ) -> ProtoRecord {
        fields.append(
            ProtoRecord.Fields(
                representation: representation, dictionary: dictionary, parent: parent, isReference: isReference))
        return ProtoRecord(arena: self, index: fields.count - 1)
    }

    /// Frees every proto-record: the batch's graph is done with. The storage is kept for the
    /// arena's next batch, if it has one (a streamed population's reading thread hands a freed
    /// arena to the next batch it builds), and freed with the arena.
    func removeAll() {
        fields.removeAll(keepingCapacity: true)
        prepared.removeAll(keepingCapacity: true)
        sharedValues.removeAll()
    }

    /// Prepares every record's attribute values (``Marshaler/prepare(_:in:coercion:)``), once the
    /// batch is built: on the reading thread of a streamed population, while the writer writes
    /// the batch before, so that the writer only sets them.
    func prepareAttributes(coercion: ValueCoercion) {
        for index in 0..<fields.count {
            let record = fields.pointer(at: index)
            // The record's representation holds its attributes while they are read: none is
            // retained for its turn.
            Unmanaged.passUnretained(record.pointee.representation)._withUnsafeGuaranteedRef { representation in
                representation.attributes.withUnsafeBufferPointer { attributes in
                    guard !attributes.isEmpty else { return }
                    record.pointee.preparedAt = prepared.count
                    let dictionary = record.pointee.dictionary
                    let shared = sharedValues.isEmpty ? nil : sharedValues[index]
                    for position in attributes.indices {
                        Unmanaged.passUnretained(attributes[position])._withUnsafeGuaranteedRef { mapped in
                            if let shared, let chosen = representation.sharedPositions[mapped.column],
                                shared.indices.contains(chosen)
                            {
                                prepared.append(
                                    Marshaler.prepare(mapped, value: shared[chosen]?.value, coercion: coercion))
                            } else {
                                prepared.append(Marshaler.prepare(mapped, in: dictionary, coercion: coercion))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The record a dictionary was found nested in, as ``PopulationOptions/primaryKeyInjection``
/// sees it: a value, taken when the hook is called.
public struct ParentRecord: Sendable {
    /// The parent's entity (the sub-entity chosen for it included).
    public let entity: Entity
    /// The parent's dictionary: every occurrence in the response merged, after pre-population.
    public let dictionary: JSONObject
    /// The parent's primary-key value as found in (or injected into) the response, if any.
    public let primaryKeyValue: JSONValue?

    init(_ proto: ProtoRecord) {
        self.init(entity: proto.entity, dictionary: proto.dictionary, primaryKeyValue: proto.primaryKeyValue)
    }

    init(entity: Entity, dictionary: JSONObject, primaryKeyValue: JSONValue?) {
        self.entity = entity
        self.dictionary = dictionary
        self.primaryKeyValue = primaryKeyValue
    }
}
