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
    /// How a proto-record is identified.
    enum Identity: Hashable {
        /// By its primary-key value(s), normalized, within the hierarchy's root table.
        case key(root: String, values: [DatabaseValue])
        /// By its owner: the record related to `owner` through the owner's to-one `relationship`.
        case owned(root: String, owner: ObjectIdentifier, relationship: String)
    }

    /// The entity of the record, the sub-entity chosen for it included.
    public internal(set) var entity: Entity
    /// The record's dictionary: every occurrence in the response merged, after pre-population.
    public internal(set) var dictionary: JSONObject
    /// The primary-key value as found in (or injected into) the response, if any.
    public internal(set) var primaryKeyValue: JSONValue?
    /// The proto-record this one was first found nested in, if any.
    public internal(set) weak var parent: ProtoRecord?
    /// The relationships the response set, by name, with their proto-records in response order.
    /// An explicit null is an empty array in ``clearedRelationships``.
    public internal(set) var relationships: [String: [ProtoRecord]] = [:]
    /// The relationships the response set to null.
    public internal(set) var clearedRelationships: Set<String> = []
    /// The `_id` of the row the proto-record resolved to, once resolved.
    public internal(set) var rowID: Int64?
    /// Whether the response only referenced this record by key (a stub), never giving its data.
    public internal(set) var isReference: Bool

    var identity: Identity?
    var normalizedKey: [DatabaseValue]?
    /// The owner and the owner's relationship, for records identified by their owner.
    var owner: (proto: ProtoRecord, relationship: Relationship)?
    var depth: Int
    var row: RowState?

    init(entity: Entity, dictionary: JSONObject, parent: ProtoRecord?, isReference: Bool, depth: Int) {
        self.entity = entity
        self.dictionary = dictionary
        self.parent = parent
        self.isReference = isReference
        self.depth = depth
    }

    /// `Entity(key)` or `Entity(owned by Owner)` or `Entity(new)`.
    public var description: String {
        if let primaryKeyValue { return "\(entity.name)(\(primaryKeyValue.serialized()))" }
        if let owner { return "\(entity.name)(owned by \(owner.proto.entity.name).\(owner.relationship.name))" }
        return "\(entity.name)(new)"
    }
}

/// The state of one row touched by a population: what it holds now, and what changed.
final class RowState {
    let table: String
    var rowID: Int64
    var entityName: String
    var values: [String: DatabaseValue]
    /// The values as stored before the population (empty for a new row).
    var original: [String: DatabaseValue] = [:]
    let isNew: Bool
    var isChanged = false

    init(table: String, rowID: Int64, entityName: String, values: [String: DatabaseValue], isNew: Bool) {
        self.table = table
        self.rowID = rowID
        self.entityName = entityName
        self.values = values
        self.isNew = isNew
    }
}
