/// Records of other entities that come in the same response as the requested ones, at a key
/// path of their own: JSON:API's `included` array, Twitter's `includes`, a sideloaded
/// `{"posts": [...], "users": [...]}` (Docs/Population.md, "Compound responses").
///
/// They are populated in the same transaction as the requested records, with references by
/// key resolved across them in either order, as if they had come nested. Declare them in a
/// schema file (the entity's `included`), or pass them per population in
/// ``PopulationOptions/included``.
///
/// For example:
///
/// ```swift
/// var options = PopulationOptions()
/// options.included = [.routed(at: "included", by: "type", ["people": "Person", "comments": "Comment"])]
/// ```
public struct IncludedRecords: Sendable, Hashable {
    /// Where the records are in the response: a key path from its top.
    public var keyPath: String
    /// How each record finds its entity.
    public var routing: Routing

    /// How the records at a key path find their entity.
    public enum Routing: Sendable, Hashable {
        /// Every record there is of this entity.
        case entity(String)
        /// The value at `key` in each record (its text, for a number or a boolean) names the
        /// entity through `entities`; a record whose value is not there is skipped, with one
        /// debug-level note per value and response.
        case discriminator(key: String, entities: [String: String])
    }

    /// The records at `keyPath`, all of `entity`.
    public static func entity(_ entity: String, at keyPath: String) -> IncludedRecords {
        IncludedRecords(keyPath: keyPath, routing: .entity(entity))
    }

    /// The records at `keyPath`, each of the entity that the value at `key` names in `entities`.
    public static func routed(at keyPath: String, by key: String, _ entities: [String: String]) -> IncludedRecords {
        IncludedRecords(keyPath: keyPath, routing: .discriminator(key: key, entities: entities))
    }

    /// The entities the records may be of.
    var entityNames: [String] {
        switch routing {
        case .entity(let name): [name]
        case .discriminator(_, let entities): Array(Set(entities.values)).sorted()
        }
    }
}
