/// Which table keeps a relationship's foreign-key column: decided here, in the schema layer,
/// so that validation counts and names the columns and indexes the store will make
/// (`Docs/StorageLayout.md`, Relationships).
enum ForeignKeyPlacement {
    /// The columns `relationship` adds to the table of the entity that declares it: its
    /// foreign key, and `_position_<name>` when the inverse to-many is ordered. Empty when the
    /// links live elsewhere (the other side's table, or a join table).
    ///
    /// - Parameters:
    ///   - inverse: the inverse relationship, when there is one.
    ///   - primaryKey: the primary key of an entity, by name.
    static func columns(of relationship: Relationship, inverse: Relationship?, primaryKey: (String) -> PrimaryKey?)
        -> [String]
    {
        guard !relationship.isToMany else { return [] }
        guard let inverse else { return [relationship.name] }
        if inverse.isToMany {
            return [relationship.name] + (inverse.isOrdered ? ["_position_\(relationship.name)"] : [])
        }
        return holdsOneToOneKey(relationship, inverse: inverse, primaryKey: primaryKey) ? [relationship.name] : []
    }

    /// Whether the side `relationship` of a one-to-one keeps the foreign key: the side whose
    /// entity's primary key is the relationship, else the side whose `Entity.relationship`
    /// sorts first. A relationship that is its own inverse keeps it.
    static func holdsOneToOneKey(
        _ relationship: Relationship, inverse: Relationship, primaryKey: (String) -> PrimaryKey?
    ) -> Bool {
        if sortKey(relationship) == sortKey(inverse) { return true }
        let selfIsKey = primaryKey(relationship.entityName) == .relationship(relationship.name)
        let otherIsKey = primaryKey(inverse.entityName) == .relationship(inverse.name)
        if selfIsKey != otherIsKey { return selfIsKey }
        return sortKey(relationship) < sortKey(inverse)
    }

    /// `Entity.relationship`, compared byte by byte to choose an owning side.
    static func sortKey(_ relationship: Relationship) -> String {
        "\(relationship.entityName).\(relationship.name)"
    }
}
