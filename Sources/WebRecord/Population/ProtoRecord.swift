/// One record-to-be found in a response, before it is matched to the store.
///
/// The population builds one proto-record per distinct record in the response: duplicates
/// (the same primary key, or the same owner for records identified by their owner) merge
/// into one. Each holds its entity, its merged dictionary, its primary-key value, the
/// proto-records it relates to, and, once resolved, the row it became.
///
/// Internal to the population, which creates and mutates it on the one thread that runs it;
/// hooks see a ``ParentRecord`` value instead.
final class ProtoRecord: CustomStringConvertible {
    /// The record's owner, for records identified by their owner: the owning proto-record and
    /// the owner's to-one relationship to this one.
    struct Owner {
        let proto: ProtoRecord
        let relationship: Representation.MappedRelationship
    }

    /// One relationship the response set, with its members in response order.
    struct Link {
        let relationship: Representation.MappedRelationship
        var members: [ProtoRecord]
        /// Whether the response also named members that were rejected: the to-many then adds
        /// its members and removes none, whatever its merge rule.
        var isPartial = false
        /// The occurrence of the record (``lastGiven``) that set the link last.
        var givenAt = 0
        /// For a to-one, what earlier occurrences set it to, oldest first (`[]` for a `null`):
        /// where the latest names a record that is not stored, the link is what the one before
        /// left it, as when the occurrences are applied in turn (``Marshaler/wire(_:of:)``).
        var earlier: [[ProtoRecord]] = []

        /// The members to wire: ``members``, or, for a to-one whose members none is stored,
        /// what the latest earlier occurrence left it that is (`[]` for a `null`); nil when
        /// no occurrence gave a stored record or a `null` (the link keeps what is stored).
        var membersInTurn: [ProtoRecord]? {
            guard !relationship.isToMany, !members.isEmpty, !members.contains(where: { $0.row != nil }) else {
                return members
            }
            for given in earlier.reversed() where given.isEmpty || given.contains(where: { $0.row != nil }) {
                return given
            }
            return nil
        }
    }

    /// How the entity is represented (the sub-entity chosen for the record included).
    private(set) var representation: Representation
    /// The entity of the record, the sub-entity chosen for it included.
    var entity: Entity { representation.entity }
    /// The record's dictionary: every occurrence in the response merged, after pre-population.
    var dictionary: JSONObject
    /// The primary-key value as found in (or injected into) the response, if any.
    var primaryKeyValue: JSONValue?
    /// The proto-record this one was first found nested in, if any; nil once the population
    /// has ended.
    ///
    /// A strong reference, dropped with the rest of the graph when the population ends
    /// (``releaseLinks()``): a `weak` one gives every parent a side table, which makes each
    /// retain and release of tens of thousands of proto-records take the slow path.
    var parent: ProtoRecord?
    /// The relationships the response set, by name, with their proto-records in response order.
    /// An explicit null is an empty array in ``clearedRelationships``.
    var relationships: [String: [ProtoRecord]] {
        Dictionary(links.map { ($0.relationship.property.name, $0.members) }, uniquingKeysWith: { _, later in later })
    }
    /// The relationships the response set to null.
    var clearedRelationships: Set<String> = []
    /// The `_id` of the row the proto-record resolved to, once resolved.
    var rowID: Int64?
    /// Whether the response only referenced this record by key (a stub), never giving its data.
    var isReference: Bool

    /// The relationships the response set, in the order first met (a few, so an array).
    ///
    /// Unchecked exclusivity: only the population's one thread touches a proto-record, and no
    /// access to `links` overlaps another; the dynamic checks would cost more than the work.
    @exclusivity(unchecked) private(set) var links: [Link] = []
    /// The normalized primary key, for records identified by their key.
    var normalizedKey: KeyValue?
    /// The owner, for records identified by their owner (those without a key).
    var owner: Owner?
    var row: RowState?
    /// How many merges had changed a record of the response when this record's relationships
    /// were last linked (``ProtoRecordBuilder``): a repeat of it as is may skip its nested
    /// records only if none changed since.
    var linkedAfterChanges = -1
    /// When the response last gave this record's values, in the order of the occurrences the
    /// builder met: of two proto-records that share one row, the later given wins.
    var lastGiven = 0
    /// The occurrence that made the proto-record (``lastGiven`` then; 0 for a stub): the links
    /// it gave are in the graph's order (``ResponsePopulation/wireInOrderGiven(_:superseded:with:)``).
    var firstGiven = 0
    /// Whether the response's discriminator named the record's entity (DESIGN §3.13): a value
    /// that maps to it, or one that maps to no sub-entity, which makes the record the entity
    /// whose discriminator was read. A stored record then takes that entity, even a more
    /// general one, where without it the stored sub-entity is kept.
    var entityIsStated = false
    /// Whether the store refused the record it names (a reference to a record of another
    /// branch of its hierarchy): it gets no row, and nothing links to it.
    var isRejected = false
    /// Whether the population dropped the record, new and without a value for a non-optional
    /// attribute (or identified by an owner that was dropped): it gets no row.
    var isDroppedIncomplete = false
    /// The table whose `_id` a new record that was not stored keeps all the same, once per row
    /// (``Marshaler/dropIncompleteRecords(_:superseded:sharing:)``): so that a streamed record
    /// that a later batch completes takes the `_id` it would have had in one batch
    /// (``ResponsePopulation/numberNewRows(_:in:)``).
    var unstoredTable: String?
    /// The `_id` an earlier batch kept for this record, which it dropped as incomplete: the new
    /// row takes it rather than a new one.
    var reservedRowID: Int64?
    /// Why the population did not store the record, for the message of a response none of
    /// whose top-level records were stored: `Customer 'cus_1': email is null, and it is not
    /// optional`.
    var dropReason: String?
    /// Whether the record was not stored because its owner, as the response left it, does not
    /// name it (``Marshaler/dropIncompleteRecords(_:superseded:sharing:)``).
    var wasUnlinked = false
    /// Whether the response named this record, identified by its owner, apart from its owner's
    /// link to it: by the value of the relationship that is its key (`{"user": "u1", ...}`), at
    /// the top level or nested elsewhere. Such a record is the response's whatever the owner's
    /// link says, so no delete that link starts removes it.
    var isNamedApartFromOwner = false
    /// Whether the record, without a key, is nested in a to-one that an earlier occurrence of its
    /// owner in the response set to null: nothing is related there any more, so it is a new
    /// record, not the one the store relates there (DESIGN §3.6, the occurrences in turn).
    var isNewThere = false
    /// What ``RepeatedRecords`` made of the record in the batch being stored: 0 nothing, -1 a
    /// top-level record, `n` > 0 the `n`th record taken as written, `-n - 1` a child of it.
    var repeatMark = 0

    init(representation: Representation, dictionary: JSONObject, parent: ProtoRecord?, isReference: Bool) {
        self.representation = representation
        self.dictionary = dictionary
        self.parent = parent
        self.isReference = isReference
    }

    /// Makes the record one of another entity of its hierarchy (a sub-entity chosen later).
    func become(_ representation: Representation) {
        self.representation = representation
    }

    /// Whether an occurrence of the record set `relationship`.
    func hasLink(_ relationship: Representation.MappedRelationship) -> Bool {
        links.contains { $0.relationship.id == relationship.id }
    }

    /// Sets the members of `relationship`, replacing what an earlier occurrence set.
    func setLink(_ relationship: Representation.MappedRelationship, members: [ProtoRecord], partial: Bool = false) {
        for index in links.indices where links[index].relationship.id == relationship.id {
            if !relationship.isToMany { links[index].earlier.append(links[index].members) }
            links[index].members = members
            links[index].isPartial = partial
            links[index].givenAt = lastGiven
            return
        }
        if links.isEmpty { links.reserveCapacity(representation.relationships.count) }
        links.append(Link(relationship: relationship, members: members, isPartial: partial, givenAt: lastGiven))
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
        for index in links.indices where links[index].relationship.id == relationship.id {
            let earlier = links[index].members
            links[index].givenAt = lastGiven
            guard !earlier.isEmpty else {
                links[index].members = members
                return
            }
            if members.count == earlier.count, zip(members, earlier).allSatisfy({ $0 === $1 }) { return }
            var listed = Set<ObjectIdentifier>(minimumCapacity: members.count)
            for member in members { listed.insert(ObjectIdentifier(member)) }
            links[index].members = members + earlier.filter { !listed.contains(ObjectIdentifier($0)) }
            return
        }
        setLink(relationship, members: members, partial: partial)
    }

    /// Marks every link as given by the latest occurrence (``lastGiven``): a repeat of the
    /// record as is, which sets each of them again.
    func regiveLinks() {
        for index in links.indices { links[index].givenAt = lastGiven }
    }

    /// Sets `relationship` to the one record `member`, unless it already is exactly that.
    func setLink(_ relationship: Representation.MappedRelationship, member: ProtoRecord) {
        for index in links.indices where links[index].relationship.id == relationship.id {
            links[index].givenAt = lastGiven
            let members = links[index].members
            if members.count == 1, members[0] === member, !links[index].isPartial { return }
            if !relationship.isToMany { links[index].earlier.append(members) }
            links[index].members = [member]
            links[index].isPartial = false
            return
        }
        if links.isEmpty { links.reserveCapacity(representation.relationships.count) }
        links.append(Link(relationship: relationship, members: [member], givenAt: lastGiven))
    }

    /// Drops the references to other proto-records, ending the population's use of this one.
    func releaseLinks() {
        links = []
        owner = nil
        parent = nil
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
