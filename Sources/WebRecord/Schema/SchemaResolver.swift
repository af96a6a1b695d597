/// Turns entity declarations from schema files into resolved, validated entities.
///
/// It resolves inheritance (inherited properties and primary keys), then checks every
/// cross-reference: parents, destinations, inverses, primary keys and discriminators.
/// Every problem is noted; resolution goes as far as it can so that one run reports all.
struct SchemaResolver {
    private let declarations: [EntityDeclaration]
    private var byName: [String: EntityDeclaration] = [:]
    private(set) var problems: [SchemaProblem] = []

    init(declarations: [EntityDeclaration]) {
        self.declarations = declarations
    }

    mutating func resolve() -> [Entity] {
        indexDeclarations()
        let cyclic = findInheritanceCycles()
        var resolved: [String: Entity] = [:]
        for declaration in declarations where byName[declaration.name]?.file == declaration.file {
            guard !cyclic.contains(declaration.name) else { continue }
            resolved[declaration.name] = inherit(declaration)
        }
        let order = declarations.map(\.name).filter { resolved[$0] != nil }
        var seen = Set<String>()
        let entities = order.filter { seen.insert($0).inserted }.compactMap { resolved[$0] }
        for entity in entities {
            checkPrimaryKey(entity, in: resolved)
            checkRelationships(entity, in: resolved)
            checkDiscriminator(entity, in: resolved)
        }
        checkHierarchyColumns(entities)
        return entities
    }

    // MARK: - Inheritance

    private mutating func indexDeclarations() {
        var lowered: [String: EntityDeclaration] = [:]
        for declaration in declarations {
            if let earlier = lowered[declaration.name.lowercased()] {
                let same = earlier.name == declaration.name ? "" : " '\(earlier.name)' (names are case-insensitive in SQLite)"
                problem(declaration, nil, "duplicate entity name; also declared\(same) in \(earlier.file)")
                continue
            }
            lowered[declaration.name.lowercased()] = declaration
            byName[declaration.name] = declaration
        }
        for declaration in declarations {
            if let parent = declaration.parent, byName[parent] == nil {
                problem(declaration, nil, "unknown parent '\(parent)'\(NameSuggestion.hint(for: parent, in: byName.keys))")
            }
        }
    }

    private mutating func findInheritanceCycles() -> Set<String> {
        var cyclic = Set<String>()
        for declaration in byName.values.sorted(by: { $0.name < $1.name }) {
            var chain: [String] = [declaration.name]
            var current = declaration.parent
            while let name = current, let parent = byName[name] {
                if name == declaration.name {
                    problem(declaration, nil, "inheritance cycle: \((chain + [name]).joined(separator: " -> "))")
                    cyclic.formUnion(chain)
                    break
                }
                if chain.contains(name) {
                    cyclic.insert(declaration.name)
                    break
                }
                chain.append(name)
                current = parent.parent
            }
        }
        return cyclic
    }

    /// The chain from the root down to `declaration`.
    private func lineage(of declaration: EntityDeclaration) -> [EntityDeclaration] {
        var chain = [declaration]
        var current = declaration.parent
        while let name = current, let parent = byName[name], !chain.contains(where: { $0.name == name }) {
            chain.insert(parent, at: 0)
            current = parent.parent
        }
        return chain
    }

    private mutating func inherit(_ declaration: EntityDeclaration) -> Entity {
        let chain = lineage(of: declaration)
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var names: [String: String] = [:]  // lowercased property name -> declaring entity
        for ancestor in chain {
            for attribute in ancestor.attributes {
                if noteProperty(attribute.name, in: ancestor, names: &names, isOwn: ancestor.name == declaration.name) {
                    attributes.append(attribute)
                }
            }
            for relationship in ancestor.relationships {
                if noteProperty(relationship.name, in: ancestor, names: &names, isOwn: ancestor.name == declaration.name) {
                    relationships.append(relationship)
                }
            }
        }
        var primaryKey: PrimaryKey?
        var keyOwner: EntityDeclaration?
        for ancestor in chain {
            guard let names = ancestor.primaryKey else { continue }
            if let owner = keyOwner, names != owner.primaryKey, ancestor.name == declaration.name {
                problem(declaration, nil, "a sub-entity inherits its primary key; '\(names.joined(separator: "+"))' differs from \(owner.name)'s '\(owner.primaryKey?.joined(separator: "+") ?? "")'")
                continue
            }
            if keyOwner == nil {
                keyOwner = ancestor
                primaryKey = Self.primaryKey(names, composite: ancestor.primaryKeyIsComposite, attributes: attributes)
            }
        }
        let subentities = declarations.filter { $0.parent == declaration.name && byName[$0.name]?.file == $0.file }
        return Entity(
            name: declaration.name, parentName: declaration.parent, isAbstract: declaration.isAbstract,
            primaryKey: primaryKey,
            keyPathForResponseObject: declaration.keyPathForResponseObject
                ?? chain.reversed().lazy.compactMap(\.keyPathForResponseObject).first,
            subentityDiscriminator: declaration.discriminator, attributes: attributes, relationships: relationships,
            subentityNames: subentities.map(\.name), rootName: chain.first?.name ?? declaration.name,
            fileName: declaration.file)
    }

    /// Notes a property name; reports a duplicate once (on the declaring entity). Returns whether to keep it.
    private mutating func noteProperty(
        _ name: String, in owner: EntityDeclaration, names: inout [String: String], isOwn: Bool
    ) -> Bool {
        let key = name.lowercased()
        if let first = names[key] {
            if isOwn {
                let where_ = first == owner.name ? "" : " (inherited from \(first))"
                problem(owner, name, "duplicate property name\(where_)")
            }
            return false
        }
        names[key] = owner.name
        return true
    }

    private static func primaryKey(_ names: [String], composite: Bool, attributes: [Attribute]) -> PrimaryKey {
        if composite { return .composite(names) }
        let name = names.first ?? ""
        return attributes.contains { $0.name == name } ? .attribute(name) : .relationship(name)
    }

    // MARK: - Checks

    private mutating func checkPrimaryKey(_ entity: Entity, in entities: [String: Entity]) {
        guard let key = entity.primaryKey, entity.isRoot || entity.parentName.flatMap({ entities[$0] })?.primaryKey == nil else {
            return
        }
        for name in key.propertyNames {
            if let attribute = entity.attribute(named: name) {
                if !attribute.type.canBePrimaryKey {
                    problem(entity, name, "a \(attribute.type.rawValue) attribute cannot be a primary key")
                }
            } else if let relationship = entity.relationship(named: name) {
                if case .composite = key {
                    problem(entity, name, "a composite primary key is made of attributes; '\(name)' is a relationship")
                } else if relationship.isToMany {
                    problem(entity, name, "a primary key relationship must be to-one")
                }
            } else {
                let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                problem(entity, name, "primary key names no property\(NameSuggestion.hint(for: name, in: names))")
            }
        }
    }

    private mutating func checkRelationships(_ entity: Entity, in entities: [String: Entity]) {
        for relationship in entity.relationships where relationship.entityName == entity.name {
            guard let destination = entities[relationship.destination] else {
                if byName[relationship.destination] == nil {
                    let hint = NameSuggestion.hint(for: relationship.destination, in: byName.keys)
                    problem(entity, relationship.name, "unknown destination '\(relationship.destination)'\(hint)")
                }
                continue
            }
            guard let inverseName = relationship.inverse else { continue }
            guard let inverse = destination.relationship(named: inverseName) else {
                let hint = NameSuggestion.hint(for: inverseName, in: destination.relationships.map(\.name))
                problem(entity, relationship.name, "inverse '\(inverseName)' does not exist on \(destination.name)\(hint)")
                continue
            }
            let pointsBack = Self.isKind(entity.name, of: inverse.destination, in: entities)
            if !pointsBack || (inverse.inverse != nil && inverse.inverse != relationship.name) {
                let target = inverse.inverse.map { "\(inverse.destination).\($0)" } ?? inverse.destination
                problem(entity, relationship.name, "inverse \(destination.name).\(inverseName) does not point back (it points to \(target))")
            }
        }
    }

    private mutating func checkDiscriminator(_ entity: Entity, in entities: [String: Entity]) {
        guard let discriminator = entity.subentityDiscriminator else { return }
        for name in discriminator.entityNames {
            if entities[name] == nil || name == entity.name || !Self.isKind(name, of: entity.name, in: entities) {
                problem(entity, nil, "subentities names '\(name)', which is not a sub-entity of \(entity.name)")
            }
        }
    }

    /// One table holds a hierarchy, so two entities in it may not declare the same column name.
    private mutating func checkHierarchyColumns(_ entities: [Entity]) {
        var columns: [String: [String: String]] = [:]  // root -> lowercased name -> declaring entity
        for entity in entities {
            for name in entity.attributes.filter({ $0.entityName == entity.name }).map(\.name)
                + entity.relationships.filter({ $0.entityName == entity.name }).map(\.name)
            {
                let key = name.lowercased()
                if let other = columns[entity.rootName]?[key], other != entity.name,
                    !Self.isKind(entity.name, of: other, in: Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) }))
                {
                    problem(entity, name, "\(other) declares '\(name)' too; one table holds the \(entity.rootName) hierarchy, so names must differ")
                } else {
                    columns[entity.rootName, default: [:]][key] = entity.name
                }
            }
        }
    }

    private static func isKind(_ name: String, of ancestor: String, in entities: [String: Entity]) -> Bool {
        var current: String? = name
        var steps = 0
        while let candidate = current, steps < 1000 {
            if candidate == ancestor { return true }
            current = entities[candidate]?.parentName
            steps += 1
        }
        return false
    }

    private mutating func problem(_ declaration: EntityDeclaration, _ property: String?, _ message: String) {
        problems.append(SchemaProblem(file: declaration.file, entity: declaration.name, property: property, message: message))
    }

    private mutating func problem(_ entity: Entity, _ property: String?, _ message: String) {
        problems.append(SchemaProblem(file: entity.fileName, entity: entity.name, property: property, message: message))
    }
}
