/// An entity: a kind of record, with attributes, relationships and a primary key.
///
/// Entities come from schema files. After loading, an entity's ``attributes`` and
/// ``relationships`` include the inherited ones (ancestors' first), and a sub-entity's
/// ``primaryKey`` is its parent's.
public struct Entity: Sendable, Hashable {
    /// The entity's name.
    public var name: String
    /// The parent entity's name, for a sub-entity.
    public var parentName: String?
    /// Whether records of this entity are never created directly, only of its sub-entities.
    public var isAbstract: Bool
    /// How records of this entity are identified, if they are.
    public var primaryKey: PrimaryKey?
    /// Where the records of this entity are found in a dictionary response.
    var keyPathForResponseObject: String?
    /// Where the record is found in a detail response (``Record/startDetailRequest(in:options:isolation:)``
    /// and ``Record/refresh(in:options:isolation:)``): the schema's `keyPathForDetailResponse`,
    /// its own or its nearest ancestor's; `""` for the response itself; nil to use
    /// ``keyPathForResponseObject``.
    var keyPathForDetailResponse: String?
    /// How a response dictionary picks a sub-entity of this one, if it can.
    var subentityDiscriminator: SubentityDiscriminator?
    /// The records of other entities a response for this one brings (its own declaration, else
    /// its nearest ancestor's).
    var included: [IncludedRecords]
    /// Every attribute, inherited ones first.
    public var attributes: [Attribute]
    /// Every relationship, inherited ones first.
    public var relationships: [Relationship]
    /// The names of the direct sub-entities, in declaration order.
    var subentityNames: [String]
    /// The name of the root of this entity's hierarchy; its table holds the whole hierarchy.
    package var rootName: String
    /// The name of the entity whose primary key identifies this entity's records, among itself
    /// and its descendants (``Schema/keyEntity(of:)``): the nearest ancestor, or this entity,
    /// that declares the key. Nil when the entity has no key.
    package var keyEntityName: String?
    /// The schema file that declared the entity.
    package var fileName: String

    /// Creates an entity. Schemas build these from files; tests may build them by hand.
    init(
        name: String, parentName: String? = nil, isAbstract: Bool = false, primaryKey: PrimaryKey? = nil,
        keyPathForResponseObject: String? = nil, keyPathForDetailResponse: String? = nil,
        subentityDiscriminator: SubentityDiscriminator? = nil,
        included: [IncludedRecords] = [], attributes: [Attribute] = [], relationships: [Relationship] = [],
        subentityNames: [String] = [], rootName: String? = nil, keyEntityName: String? = nil, fileName: String = ""
    ) {
        self.name = name
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.primaryKey = primaryKey
        self.keyPathForResponseObject = keyPathForResponseObject
        self.keyPathForDetailResponse = keyPathForDetailResponse
        self.subentityDiscriminator = subentityDiscriminator
        self.included = included
        self.attributes = attributes
        self.relationships = relationships
        self.subentityNames = subentityNames
        self.rootName = rootName ?? name
        self.keyEntityName = primaryKey == nil ? nil : keyEntityName ?? name
        self.fileName = fileName
    }

    /// The attribute with this name, inherited ones included.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }

    /// The relationship with this name, inherited ones included.
    public func relationship(named name: String) -> Relationship? {
        relationships.first { $0.name == name }
    }

    /// Whether this entity is the root of its hierarchy.
    var isRoot: Bool { rootName == name }
}

/// How the records of an entity are identified.
public enum PrimaryKey: Sendable, Hashable, CustomStringConvertible {
    /// One attribute holds the key.
    case attribute(String)
    /// A to-one relationship holds the key: the record is identified by its owner
    /// (MMRecord's Counts → user).
    case relationship(String)
    /// Several attributes together hold the key; records match on every part.
    case composite([String])

    /// The names of the properties that form the key.
    public var propertyNames: [String] {
        switch self {
        case .attribute(let name), .relationship(let name): [name]
        case .composite(let names): names
        }
    }

    public var description: String { propertyNames.joined(separator: "+") }
}

/// A declarative choice of sub-entity, made from a response dictionary.
enum SubentityDiscriminator: Sendable, Hashable {
    /// The value at `key` picks the entity: `{"key": "type", "map": {"inward": "InwardLink"}}`.
    /// Numbers and booleans match by their JSON text.
    case value(key: String, map: [String: String])
    /// The first key present (non-null) picks the entity, in declaration order:
    /// `{"present": {"inwardIssue": "InwardLink", "outwardIssue": "OutwardLink"}}`.
    case presence([(key: String, entity: String)])

    static func == (lhs: SubentityDiscriminator, rhs: SubentityDiscriminator) -> Bool {
        switch (lhs, rhs) {
        case (.value(let k1, let m1), .value(let k2, let m2)): k1 == k2 && m1 == m2
        case (.presence(let p1), .presence(let p2)):
            p1.count == p2.count && zip(p1, p2).allSatisfy { $0.key == $1.key && $0.entity == $1.entity }
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .value(let key, let map):
            hasher.combine(0)
            hasher.combine(key)
            hasher.combine(map)
        case .presence(let pairs):
            hasher.combine(1)
            for pair in pairs {
                hasher.combine(pair.key)
                hasher.combine(pair.entity)
            }
        }
    }

    /// The key paths this discriminator reads.
    var keys: [String] {
        switch self {
        case .value(let key, _): [key]
        case .presence(let pairs): pairs.map(\.key)
        }
    }

    /// The entity names this discriminator can pick.
    var entityNames: [String] {
        switch self {
        case .value(_, let map): map.keys.sorted().compactMap { map[$0] }
        case .presence(let pairs): pairs.map(\.entity)
        }
    }
}
