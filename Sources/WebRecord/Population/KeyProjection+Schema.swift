extension KeyProjection {
    /// The members that populating `schema`'s records reads: every key path of an attribute
    /// (its last component kept whole), of a relationship, and of a sub-entity discriminator,
    /// of every entity.
    convenience init(schema: Schema) {
        var decisions: [String: Decision] = [:]
        func keep(_ path: String, lastIsWhole: Bool) {
            let components = path.split(separator: ".", omittingEmptySubsequences: false)
            for (index, component) in components.enumerated() {
                let decision: Decision = lastIsWhole && index == components.count - 1 ? .whole : .descend
                if decisions[String(component)] != .whole { decisions[String(component)] = decision }
            }
        }
        for entity in schema.entities {
            for attribute in entity.attributes {
                for path in attribute.keyPaths { keep(path, lastIsWhole: true) }
            }
            for relationship in entity.relationships {
                for path in relationship.keyPaths { keep(path, lastIsWhole: false) }
            }
            for key in entity.subentityDiscriminator?.keys ?? [] { keep(key, lastIsWhole: true) }
        }
        self.init(decisions)
    }
}
