extension KeyProjection {
    /// The members that populating `schema`'s records reads: every key path of an attribute
    /// (what it names kept whole), of a relationship, and of a sub-entity discriminator, of
    /// every entity.
    ///
    /// What an attribute's path names is its last component, or, when its last components are
    /// digits (`tags.0`, `m.0.1`), the last one before them: digits also index arrays
    /// (``JSONKeyPath``), so the value may be an element of that member's array, which is then
    /// kept whole, as are the digits as keys.
    convenience init(schema: Schema) {
        var decisions: [String: Decision] = [:]
        func keep(_ path: String, lastIsWhole: Bool) {
            let components = path.split(separator: ".", omittingEmptySubsequences: false)
            let named = components.lastIndex { !Self.isIndex($0) } ?? 0
            for (index, component) in components.enumerated() {
                let decision: Decision = lastIsWhole && index >= named ? .whole : .descend
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

    /// Whether a key path component may index an array: ASCII digits only.
    private static func isIndex(_ component: Substring) -> Bool {
        !component.isEmpty && component.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
