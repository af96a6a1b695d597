/// A relationship from one entity to another.
///
/// Declared in a schema file under an entity's `relationships`:
///
/// ```json
/// "posts": { "destination": "Post", "toMany": true, "inverse": "user", "merge": "union" }
/// ```
public struct Relationship: Sendable, Hashable {
    /// What happens to related records when a record is deleted.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// The relationship is cleared. The default.
        case nullify
        /// The related records are deleted too.
        case cascade
        /// The delete is refused while related records exist.
        case deny
    }

    /// How a to-many relationship takes the members given by a response.
    public enum MergePolicy: String, Sendable, Hashable, CaseIterable {
        /// New members are added; members the response does not list stay, and neither `[]`
        /// nor `null` removes one. MMRecord's behaviour (`import-model` writes it explicitly).
        case union
        /// The members become exactly those in the response, as in Sync, RestKit and Realm: a
        /// nested list is the server's snapshot. Members dropped are removed, and deleted when
        /// ``DeleteRule/cascade`` is set; `[]` and `null` both empty the list. The default.
        case replace
    }

    /// The relationship's name.
    public var name: String
    /// The entity that declares the relationship (an ancestor, for an inherited one).
    package var entityName: String
    /// The destination entity's name.
    public var destination: String
    /// Whether the relationship relates many records.
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its members in response order.
    public var isOrdered: Bool
    /// The name of the inverse relationship on the destination, if any.
    public var inverse: String?
    /// The key paths tried in order to find the related data in a response: the `key` entries, then the name.
    var keyPaths: [String]
    /// What a delete does to related records.
    public var deleteRule: DeleteRule
    /// How a to-many relationship merges, `replace` by default (DESIGN §3.11).
    public var mergePolicy: MergePolicy
    /// Whether the relationship may be empty. Informational. Default true.
    public var isOptional: Bool

    /// Creates a relationship.
    init(
        name: String, entityName: String, destination: String, isToMany: Bool = false,
        isOrdered: Bool = false, inverse: String? = nil, keyPaths: [String]? = nil,
        deleteRule: DeleteRule = .nullify, mergePolicy: MergePolicy = .replace, isOptional: Bool = true
    ) {
        self.name = name
        self.entityName = entityName
        self.destination = destination
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.inverse = inverse
        self.keyPaths = keyPaths ?? [name]
        self.deleteRule = deleteRule
        self.mergePolicy = mergePolicy
        self.isOptional = isOptional
    }
}
