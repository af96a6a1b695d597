/// One record-to-be found in a response, before it is matched to the store.
///
/// The population builds one proto-record per distinct record in the response: duplicates
/// (the same primary key, or the same owner for records identified by their owner) merge
/// into one. Each holds its entity, its merged dictionary, its primary-key value, the
/// proto-records it relates to, and, once resolved, the row it became.
///
/// `@unchecked Sendable` is safe: a proto-record is created and mutated only by the
/// population that owns it, on the one thread that runs it. The closures in
/// ``PopulationOptions`` receive it synchronously on that thread and must not keep it.
public final class ProtoRecord: @unchecked Sendable, CustomStringConvertible {
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
    }

    /// How the entity is represented (the sub-entity chosen for the record included).
    private(set) var representation: Representation
    /// The entity of the record, the sub-entity chosen for it included.
    public var entity: Entity { representation.entity }
    /// The record's dictionary: every occurrence in the response merged, after pre-population.
    public internal(set) var dictionary: JSONObject
    /// The primary-key value as found in (or injected into) the response, if any.
    public internal(set) var primaryKeyValue: JSONValue?
    /// The proto-record this one was first found nested in, if any.
    public internal(set) weak var parent: ProtoRecord?
    /// The relationships the response set, by name, with their proto-records in response order.
    /// An explicit null is an empty array in ``clearedRelationships``.
    public var relationships: [String: [ProtoRecord]] {
        Dictionary(links.map { ($0.relationship.property.name, $0.members) }, uniquingKeysWith: { _, later in later })
    }
    /// The relationships the response set to null.
    public internal(set) var clearedRelationships: Set<String> = []
    /// The `_id` of the row the proto-record resolved to, once resolved.
    public internal(set) var rowID: Int64?
    /// Whether the response only referenced this record by key (a stub), never giving its data.
    public internal(set) var isReference: Bool

    /// The relationships the response set, in the order first met (a few, so an array).
    // Unchecked exclusivity: only the population's one thread touches a proto-record, and no
    // access to `links` overlaps another; the dynamic checks would cost more than the work.
    @exclusivity(unchecked) private(set) var links: [Link] = []
    /// The normalized primary key, for records identified by their key.
    var normalizedKey: KeyValue?
    /// The owner, for records identified by their owner (those without a key).
    var owner: Owner?
    var row: RowState?

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

    /// Sets the members of `relationship`, replacing what an earlier occurrence set.
    func setLink(_ relationship: Representation.MappedRelationship, members: [ProtoRecord]) {
        for index in links.indices where links[index].relationship.id == relationship.id {
            links[index].members = members
            return
        }
        if links.isEmpty { links.reserveCapacity(representation.relationships.count) }
        links.append(Link(relationship: relationship, members: members))
    }

    /// Sets `relationship` to the one record `member`, unless it already is exactly that.
    func setLink(_ relationship: Representation.MappedRelationship, member: ProtoRecord) {
        for index in links.indices where links[index].relationship.id == relationship.id {
            let members = links[index].members
            if members.count == 1, members[0] === member { return }
            links[index].members = [member]
            return
        }
        if links.isEmpty { links.reserveCapacity(representation.relationships.count) }
        links.append(Link(relationship: relationship, members: [member]))
    }

    /// Drops the references to other proto-records, ending the population's use of this one.
    func releaseLinks() {
        links = []
        owner = nil
    }

    /// `Entity(key)` or `Entity(owned by Owner)` or `Entity(new)`.
    public var description: String {
        if let primaryKeyValue { return "\(entity.name)(\(primaryKeyValue.serialized()))" }
        if let owner { return "\(entity.name)(owned by \(owner.proto.entity.name).\(owner.relationship.property.name))" }
        return "\(entity.name)(new)"
    }
}

/// A primary-key value normalized for matching (DESIGN §3.3): one value, or every part of a
/// composite key. A single key needs no array, so matching thousands of records allocates nothing.
enum KeyValue: Hashable {
    case single(DatabaseValue)
    case composite([DatabaseValue])

    /// The key's parts, in key order.
    var parts: [DatabaseValue] {
        switch self {
        case .single(let value): [value]
        case .composite(let values): values
        }
    }

    /// The first part: the whole key when it is single.
    var firstPart: DatabaseValue {
        switch self {
        case .single(let value): value
        case .composite(let values): values.first ?? .null
        }
    }

    /// The key of a row whose values are `values`, with the key in columns `columns`.
    init(row values: [DatabaseValue], columns: [Int]) {
        if columns.count == 1 {
            self = .single(values[columns[0]])
        } else {
            self = .composite(columns.map { values[$0] })
        }
    }
}

/// The state of one row touched by a population: what it holds now, and what changed.
///
/// Values are kept by column position (``TablePlan/columns``), not by name: a population
/// touches tens of thousands of rows, and an array per row is far cheaper than a dictionary.
final class RowState {
    let table: TablePlan
    var rowID: Int64
    var entityName: String
    /// The row's values: for a stored row, as stored and then as the population sets them;
    /// for a new row, `.null` until set. (Unchecked exclusivity: one thread, no overlapping
    /// access; the marshaler writes these tens of thousands of times.)
    @exclusivity(unchecked) var values: [DatabaseValue]
    /// The values as stored before the population; nil for a new row.
    let original: [DatabaseValue]?
    var isChanged = false

    /// A new row: every value null.
    init(newIn table: TablePlan, rowID: Int64, entityName: String) {
        self.table = table
        self.rowID = rowID
        self.entityName = entityName
        self.values = Array(repeating: .null, count: table.columns.count)
        self.original = nil
    }

    /// A stored row, with its values in ``TablePlan/columns`` order.
    init(storedIn table: TablePlan, rowID: Int64, entityName: String, values: [DatabaseValue]) {
        self.table = table
        self.rowID = rowID
        self.entityName = entityName
        self.values = values
        self.original = values
    }

    /// Whether the row is created by this population.
    var isNew: Bool { original == nil }

    /// Whether a stored row's values differ from what is stored.
    var hasChangedValues: Bool {
        guard let original else { return true }
        return values != original
    }

    /// The row's values as a dictionary by column name, for a ``Record``.
    var snapshot: [String: DatabaseValue] { table.dictionary(values) }
}
