/// Turns entity declarations from schema files into resolved, validated entities.
///
/// It resolves inheritance (inherited properties and primary keys), then checks every
/// cross-reference: parents, destinations, inverses, primary keys and discriminators.
/// Every problem is noted; resolution goes as far as it can so that one run reports all.
struct SchemaResolver {
    private let declarations: [EntityDeclaration]
    private var byName: [String: EntityDeclaration] = [:]
    /// The offsets in `declarations` of the declarations kept: the first of each name.
    private var accepted = Set<Int>()
    /// The declarations kept, by the name of the parent they declare, in declaration order:
    /// each entity's sub-entities are found in it once, not by a pass over every declaration.
    private var children: [String: [EntityDeclaration]] = [:]
    private(set) var problems: [WebRecordError] = []

    init(declarations: [EntityDeclaration]) {
        self.declarations = declarations
    }

    mutating func resolve() -> [Entity] {
        indexDeclarations()
        let cyclic = findInheritanceCycles()
        var entities: [Entity] = []
        for (offset, declaration) in declarations.enumerated() where accepted.contains(offset) {
            guard !cyclic.contains(declaration.name) else { continue }
            entities.append(inherit(declaration))
        }
        let resolved = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            checkPrimaryKey(entity, in: resolved)
            checkRelationships(entity, in: resolved)
            checkDiscriminator(entity, in: resolved)
            checkIncluded(entity)
        }
        checkHierarchyColumns(entities, in: resolved)
        checkGeneratedNames(entities, in: resolved)
        checkColumnCounts(entities, in: resolved)
        return entities
    }

    // MARK: - Inheritance

    private mutating func indexDeclarations() {
        var lowered: [String: EntityDeclaration] = [:]
        for (offset, declaration) in declarations.enumerated() {
            if let earlier = lowered[declaration.name.lowercased()] {
                if earlier.name == declaration.name {
                    problem(declaration, nil, "duplicate entity name; also declared in \(earlier.file)")
                } else {
                    problem(
                        declaration, nil,
                        "duplicate entity name; also declared as '\(earlier.name)' in \(earlier.file) (names are case-insensitive in SQLite)"
                    )
                }
                continue
            }
            lowered[declaration.name.lowercased()] = declaration
            byName[declaration.name] = declaration
            accepted.insert(offset)
            if let parent = declaration.parent { children[parent, default: []].append(declaration) }
        }
        for declaration in declarations {
            if let parent = declaration.parent, byName[parent] == nil {
                problem(
                    declaration, nil, "unknown parent '\(parent)'\(NameSuggestion.hint(for: parent, in: byName.keys))")
            }
        }
    }

    private mutating func findInheritanceCycles() -> Set<String> {
        var cyclic = Set<String>()
        for declaration in byName.values.sorted(by: { $0.name < $1.name }) {
            var chain: [String] = [declaration.name]
            var inChain: Set = [declaration.name]
            var current = declaration.parent
            while let name = current, let parent = byName[name] {
                if name == declaration.name {
                    problem(declaration, nil, "inheritance cycle: \((chain + [name]).joined(separator: " -> "))")
                    cyclic.formUnion(chain)
                    break
                }
                if inChain.contains(name) {
                    cyclic.insert(declaration.name)
                    break
                }
                chain.append(name)
                inChain.insert(name)
                current = parent.parent
            }
        }
        return cyclic
    }

    /// The chain from the root down to `declaration`.
    private func lineage(of declaration: EntityDeclaration) -> [EntityDeclaration] {
        var chain = [declaration]
        var seen: Set = [declaration.name]
        var current = declaration.parent
        while let name = current, let parent = byName[name], seen.insert(name).inserted {
            chain.append(parent)
            current = parent.parent
        }
        return chain.reversed()
    }

    private mutating func inherit(_ declaration: EntityDeclaration) -> Entity {
        let chain = lineage(of: declaration)
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var names: [String: PropertyName] = [:]  // lowercased property name -> first declaration
        for ancestor in chain {
            let isOwn = ancestor.name == declaration.name
            for attribute in ancestor.attributes {
                let property = PropertyName(name: attribute.name, kind: "attribute", entity: ancestor.name)
                if noteProperty(property, in: ancestor, names: &names, isOwn: isOwn) {
                    attributes.append(attribute)
                }
            }
            for relationship in ancestor.relationships {
                let property = PropertyName(name: relationship.name, kind: "relationship", entity: ancestor.name)
                if noteProperty(property, in: ancestor, names: &names, isOwn: isOwn) {
                    relationships.append(relationship)
                }
            }
        }
        var primaryKey: PrimaryKey?
        var keyOwner: EntityDeclaration?
        for ancestor in chain {
            guard let names = ancestor.primaryKey else { continue }
            if let owner = keyOwner, names != owner.primaryKey, ancestor.name == declaration.name {
                problem(
                    declaration, nil,
                    "a sub-entity inherits its primary key; '\(names.joined(separator: "+"))' differs from \(owner.name)'s '\(owner.primaryKey?.joined(separator: "+") ?? "")'"
                )
                continue
            }
            if keyOwner == nil {
                keyOwner = ancestor
                primaryKey = Self.primaryKey(names, composite: ancestor.primaryKeyIsComposite, attributes: attributes)
            }
        }
        let subentities = children[declaration.name] ?? []
        return Entity(
            name: declaration.name, parentName: declaration.parent, isAbstract: declaration.isAbstract,
            primaryKey: primaryKey,
            keyPathForResponseObject: declaration.keyPathForResponseObject
                ?? chain.reversed().lazy.compactMap(\.keyPathForResponseObject).first,
            keyPathForDetailResponse: chain.reversed().lazy.compactMap(\.keyPathForDetailResponse).first,
            subentityDiscriminator: declaration.discriminator,
            included: declaration.included ?? chain.reversed().lazy.compactMap(\.included).first ?? [],
            attributes: attributes, relationships: relationships,
            subentityNames: subentities.map(\.name), rootName: chain.first?.name ?? declaration.name,
            keyEntityName: keyOwner?.name, fileName: declaration.file)
    }

    /// A property's name, kind and declaring entity, for duplicate messages.
    private struct PropertyName {
        var name: String
        var kind: String
        var entity: String
    }

    /// Notes a property name; reports a duplicate once (on the declaring entity). Returns whether to keep it.
    private mutating func noteProperty(
        _ property: PropertyName, in owner: EntityDeclaration, names: inout [String: PropertyName], isOwn: Bool
    ) -> Bool {
        let key = property.name.lowercased()
        guard let first = names[key] else {
            names[key] = property
            return true
        }
        guard isOwn else { return false }
        let caseNote = first.name == property.name ? "" : " (names are case-insensitive in SQLite)"
        if first.entity == owner.name {
            problem(
                owner, property.name,
                "duplicate property name; also declared as \(first.kind) '\(first.name)'\(caseNote)")
        } else {
            problem(
                owner, property.name,
                "duplicate property name; \(first.entity) already declares \(first.kind) '\(first.name)'\(caseNote)")
        }
        return false
    }

    private static func primaryKey(_ names: [String], composite: Bool, attributes: [Attribute]) -> PrimaryKey {
        if composite { return .composite(names) }
        let name = names.first ?? ""
        return attributes.contains { $0.name == name } ? .attribute(name) : .relationship(name)
    }

    // MARK: - Checks

    private mutating func checkPrimaryKey(_ entity: Entity, in entities: [String: Entity]) {
        guard let key = entity.primaryKey,
            entity.isRoot || entity.parentName.flatMap({ entities[$0] })?.primaryKey == nil
        else {
            return
        }
        for name in key.propertyNames {
            if let attribute = entity.attribute(named: name) {
                if !attribute.type.canBePrimaryKey {
                    problem(entity, name, "a \(attribute.type.rawValue) attribute cannot be a primary key")
                }
                if attribute.defaultValue != nil {
                    problem(
                        entity, name,
                        "a primary key attribute cannot have a default; every record created without a key would share it"
                    )
                }
                if !entity.isRoot, attribute.entityName != entity.name {
                    // The store keeps a sub-entity's key unique with an index on its own columns,
                    // which the records of every other branch leave null: a column inherited
                    // from a keyless ancestor is shared with records the key does not identify.
                    problem(
                        entity, name,
                        "a sub-entity cannot be identified by an attribute it inherits from \(attribute.entityName), which is not keyed by it; declare the attribute on the sub-entity, or the key on \(attribute.entityName)"
                    )
                }
            } else if let relationship = entity.relationship(named: name) {
                if case .composite = key {
                    problem(entity, name, "a composite primary key is made of attributes; '\(name)' is a relationship")
                } else if relationship.isToMany {
                    problem(entity, name, "a primary key relationship must be to-one")
                } else if !entity.isRoot, relationship.entityName != entity.name {
                    // Unlinking or deleting an owner deletes the records its relationship
                    // identifies: through a relationship its siblings inherit too, it could not
                    // tell this sub-entity's records from theirs.
                    problem(
                        entity, name,
                        "a sub-entity cannot be identified by a relationship it inherits from \(relationship.entityName), which is not keyed by it; declare the relationship on the sub-entity, or the key on \(relationship.entityName)"
                    )
                } else if relationship.inverse == nil, entities[relationship.destination] != nil {
                    // The record is found again through its owner's side of the link: without
                    // one, each import would make it anew, and its key's unique index refuse it.
                    problem(
                        entity, name,
                        "a primary key relationship needs an inverse on \(relationship.destination), by which the record it identifies is found again; declare one (\"inverse\": a to-one or to-many of \(relationship.destination))"
                    )
                } else if let destination = entities[relationship.destination],
                    !Self.hasKey(destination, in: entities)
                {
                    // An owner with no key is a new record on every import: so would be what it
                    // identifies, though that has a key.
                    problem(
                        entity, name,
                        "a primary key relationship must lead to an entity with a primary key; \(destination.name) has none, so the records it identifies would be new on every import"
                    )
                } else if let inverseName = relationship.inverse,
                    let destination = entities[relationship.destination],
                    destination.primaryKey == .relationship(inverseName)
                {
                    problem(
                        entity, name,
                        "\(destination.name) is identified by '\(inverseName)', the inverse of this primary key; only one side of a one-to-one can identify the other"
                    )
                }
            } else if !unreadableProperties(of: entity.name).contains(name) {
                let names =
                    entity.attributes.map(\.name) + entity.relationships.map(\.name)
                    + unreadableProperties(of: entity.name)
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
                if unreadableProperties(of: destination.name).contains(inverseName) { continue }
                let hint = NameSuggestion.hint(for: inverseName, in: destination.relationships.map(\.name))
                problem(
                    entity, relationship.name, "inverse '\(inverseName)' does not exist on \(destination.name)\(hint)")
                continue
            }
            // An inverse too broken to read (an unknown destination) is reported where it is
            // declared, once, and not again here (SchemaFormat.md, "Validation").
            if entities[inverse.destination] == nil, byName[inverse.destination] == nil { continue }
            guard let inverseOfInverse = inverse.inverse else {
                problem(
                    entity, relationship.name,
                    "inverse \(destination.name).\(inverseName) does not point back (it has no 'inverse'; add \"inverse\": \"\(relationship.name)\")"
                )
                continue
            }
            if inverseOfInverse != relationship.name || !Self.isKind(entity.name, of: inverse.destination, in: entities)
            {
                problem(
                    entity, relationship.name,
                    "inverse \(destination.name).\(inverseName) does not point back (it points to \(inverse.destination).\(inverseOfInverse))"
                )
            }
        }
    }

    /// The entities an entity's `included` names exist.
    private mutating func checkIncluded(_ entity: Entity) {
        for included in entity.included {
            for name in included.entityNames where byName[name] == nil {
                problem(
                    entity, nil,
                    "included '\(included.keyPath)' names '\(name)', which is not an entity"
                        + NameSuggestion.hint(for: name, in: byName.keys))
            }
        }
    }

    private mutating func checkDiscriminator(_ entity: Entity, in entities: [String: Entity]) {
        guard let discriminator = entity.subentityDiscriminator else { return }
        for name in discriminator.entityNames {
            if byName[name] == nil {
                let descendants = entities.keys.filter {
                    $0 != entity.name && Self.isKind($0, of: entity.name, in: entities)
                }
                problem(
                    entity, nil,
                    "subentities names '\(name)', which is not an entity\(NameSuggestion.hint(for: name, in: descendants))"
                )
            } else if name == entity.name || !Self.isKind(name, of: entity.name, in: entities) {
                problem(entity, nil, "subentities names '\(name)', which is not a sub-entity of \(entity.name)")
            }
        }
    }

    /// One table holds a hierarchy, so two entities in it may not declare the same column name.
    ///
    /// An entity and its ancestor declaring one name is a duplicate already reported by
    /// inheritance; this check reports the rest: siblings and cousins.
    private mutating func checkHierarchyColumns(_ entities: [Entity], in resolved: [String: Entity]) {
        // root -> lowercased name -> the entities declaring it, with the name as they spell it
        var columns: [String: [String: [(entity: String, name: String)]]] = [:]
        for entity in entities {
            let own =
                entity.attributes.filter { $0.entityName == entity.name }.map(\.name)
                + entity.relationships.filter { $0.entityName == entity.name }.map(\.name)
            for name in own {
                let key = name.lowercased()
                let others = columns[entity.rootName]?[key] ?? []
                let clash = others.first { other in
                    other.entity != entity.name && !Self.isKind(entity.name, of: other.entity, in: resolved)
                        && !Self.isKind(other.entity, of: entity.name, in: resolved)
                }
                if let clash {
                    let caseNote = clash.name == name ? "" : " (names are case-insensitive in SQLite)"
                    problem(
                        entity, name,
                        "\(clash.entity) declares '\(clash.name)' too; one table holds the \(entity.rootName) hierarchy, so names must differ\(caseNote)"
                    )
                } else {
                    columns[entity.rootName, default: [:]][key, default: []].append((entity.name, name))
                }
            }
        }
    }

    /// Whether records of `entity` can have a primary key: it, an ancestor or a sub-entity
    /// declares one.
    private static func hasKey(_ entity: Entity, in entities: [String: Entity]) -> Bool {
        var current: Entity? = entity
        var steps = 0
        while let candidate = current, steps < 1000 {
            if candidate.primaryKey != nil { return true }
            current = candidate.parentName.flatMap { entities[$0] }
            steps += 1
        }
        return entities.values.contains { $0.primaryKey != nil && Self.isKind($0.name, of: entity.name, in: entities) }
    }

    /// The properties of the entity and its ancestors that were declared but could not be read.
    private func unreadableProperties(of name: String) -> [String] {
        guard let declaration = byName[name] else { return [] }
        return lineage(of: declaration).flatMap(\.unreadableProperties)
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
        problems.append(
            WebRecordError.schemaProblem(
                file: declaration.file, entity: declaration.name, property: property, message: message))
    }

    mutating func problem(_ entity: Entity, _ property: String?, _ message: String) {
        problems.append(
            WebRecordError.schemaProblem(
                file: entity.fileName, entity: entity.name, property: property, message: message))
    }
}
