/// How one entity is represented in responses: where each property's value is found, how
/// the primary key is read and normalized, and which sub-entity a dictionary stands for.
///
/// Built once per entity per population (see ``RepresentationSet``), so that the per-record
/// work is lookups only: key paths are split here, each attribute's column position and
/// stored default are worked out here, and so is where each relationship's links live.
/// Classes rather than structs, so that walking them for every record copies nothing.
final class Representation {
    /// A value found in a dictionary, and the key path it was found at.
    ///
    /// A struct rather than a tuple: an optional tuple holding an enum and a string is
    /// destroyed through the runtime's generic witnesses, which showed in profiles.
    struct Found {
        let value: JSONValue
        let path: JSONKeyPath

        /// The key path's text, for messages.
        var keyPath: String { path.text }

        /// The first of `paths` present in `dictionary`, with its path.
        static func first(of paths: [JSONKeyPath], in dictionary: JSONObject) -> Found? {
            for path in paths {
                if let value = path.value(in: dictionary) { return Found(value: value, path: path) }
            }
            return nil
        }

        /// The value at the first of `paths` present in `dictionary`, without its path: what
        /// ``first(of:in:)`` finds, for the readers that need the path only in a message.
        ///
        /// Each path is called without being retained: the representation that holds `paths`
        /// holds them until it is released, after the population.
        @inline(__always)
        static func firstValue(of paths: [JSONKeyPath], in dictionary: JSONObject) -> JSONValue? {
            paths.withUnsafeBufferPointer { paths in
                for index in paths.indices {
                    let value = Unmanaged.passUnretained(paths[index])._withUnsafeGuaranteedRef {
                        $0.value(in: dictionary)
                    }
                    if let value { return value }
                }
                return nil
            }
        }
    }

    /// An attribute, where its value is found, and where it is stored.
    final class MappedAttribute {
        let property: Attribute
        let keyPaths: [JSONKeyPath]
        // The attribute's fields read for every record, copied out of `property` once: reading
        // a field through the struct would copy the whole `Attribute` each time.
        let name: String
        let type: AttributeType
        let isOptional: Bool
        let transformer: String?
        let dateFormat: String?
        /// The attribute's position in its table's ``TablePlan/columns``.
        let column: Int
        /// The attribute's default, coerced once; set on new rows whose dictionary lacks the attribute.
        let storedDefault: DatabaseValue?

        init(property: Attribute, column: Int, storedDefault: DatabaseValue?) {
            self.property = property
            self.keyPaths = property.keyPaths.map(JSONKeyPath.init)
            self.name = property.name
            self.type = property.type
            self.isOptional = property.isOptional
            self.transformer = property.transformer
            self.dateFormat = property.dateFormat
            self.column = column
            self.storedDefault = storedDefault
        }

        /// The first candidate present in `dictionary`, with its path.
        func value(in dictionary: JSONObject) -> Found? {
            Found.first(of: keyPaths, in: dictionary)
        }

        /// The value of the first candidate present in `dictionary` (``value(in:)`` without the path).
        func firstValue(in dictionary: JSONObject) -> JSONValue? {
            Found.firstValue(of: keyPaths, in: dictionary)
        }

        /// The key path ``value(in:)`` finds a value at in `dictionary`, for messages.
        func foundKeyPath(in dictionary: JSONObject) -> String? {
            value(in: dictionary)?.keyPath
        }

        /// Whether the marshaler would store `value` (after the transformer, if any): a null
        /// only for an optional attribute, anything else when it coerces.
        func accepts(_ value: JSONValue, coercion: ValueCoercion, store: any RecordStorage) -> Bool {
            storedValue(value, coercion: coercion, store: store) != nil
        }

        /// What the marshaler would store for `value` (after the transformer, if any); nil when
        /// it would refuse it.
        func storedValue(_ value: JSONValue, coercion: ValueCoercion, store: any RecordStorage) -> DatabaseValue? {
            var value = value
            if let transformer {
                guard let transform = store.transformer(named: transformer), let transformed = transform(value)
                else { return nil }
                value = transformed
            }
            if value.isNull { return isOptional ? .null : nil }
            return coercion.storedValue(value, type: type, dateFormat: dateFormat)
        }
    }

    /// A relationship, where its value is found, and where its links are stored.
    final class MappedRelationship {
        let property: Relationship
        let keyPaths: [JSONKeyPath]
        // Fields read for every record, copied out of `property` once (see ``MappedAttribute``).
        let name: String
        let isToMany: Bool
        let inverse: String?
        /// The same number for the same declared relationship in every representation (a
        /// sub-entity's representation maps its parent's relationships again).
        let id: Int
        /// The destination's position in the ``RepresentationSet``.
        let destination: Int?
        /// Where the links live, or nil when the layout keeps none (never for a valid schema).
        let link: Link?
        /// Whether the destination's records are identified by this relationship's inverse
        /// (``Schema/identifiesDestination(of:)``): unlinking one deletes it.
        let identifiesDestination: Bool
        /// Whether the relationship is its own inverse (``Schema/isSelfInverse(_:)``), so each
        /// link is written on both records.
        let isSymmetric: Bool
        /// The ``id`` of the inverse when a sub-entity of the destination's hierarchy declares it
        /// (`Person.held`, whose inverse is `Square.holder`), so that a record of that hierarchy
        /// may end as an entity without it (a `Tile`): nil otherwise, the common case.
        let subentityInverseID: Int?

        init(
            property: Relationship, id: Int, destination: Int?, link: Link?, identifiesDestination: Bool,
            isSymmetric: Bool = false, subentityInverseID: Int? = nil
        ) {
            self.property = property
            self.identifiesDestination = identifiesDestination
            self.isSymmetric = isSymmetric
            self.subentityInverseID = subentityInverseID
            self.keyPaths = property.keyPaths.map(JSONKeyPath.init)
            self.name = property.name
            self.isToMany = property.isToMany
            self.inverse = property.inverse
            self.id = id
            self.destination = destination
            self.link = link
        }

        /// The first candidate present in `dictionary`, with its path.
        func value(in dictionary: JSONObject) -> Found? {
            Found.first(of: keyPaths, in: dictionary)
        }

        /// Whether the relationship is a to-one whose destination relates back to one record (a
        /// one-to-one): a record that names the destination takes it from any other.
        var isOneToOne: Bool {
            guard !isToMany else { return false }
            switch link {
            case .foreignKeyHere(_, _, _, let isOneToOne)?: return isOneToOne
            case .foreignKeyThere?: return true
            default: return false
            }
        }

        /// The ``id`` of the relationship's inverse among `representations`, if it has one: the
        /// sub-entity's that declares it (``subentityInverseID``), else the destination's.
        func inverseID(in representations: RepresentationSet) -> Int? {
            subentityInverseID
                ?? inverse.flatMap { name in
                    destination.flatMap { representations.all[$0].relationship(named: name)?.id }
                }
        }
    }

    /// Where a relationship's links live (``StorageLayout/RelationshipStorage``), with column
    /// positions resolved.
    enum Link {
        /// This row holds the destination's `_id` in `column`.
        case foreignKeyHere(column: Int, positionColumn: Int?, columnName: String, isOneToOne: Bool)
        /// The destination's row (in `table`) holds this row's `_id` in `column`.
        case foreignKeyThere(
            table: TablePlan, column: Int, positionColumn: Int?, columnName: String, positionColumnName: String?)
        /// A join table.
        case joinTable(table: String, selfColumn: String, otherColumn: String, positionColumn: String?)
    }

    /// The position of this representation in its ``RepresentationSet``.
    let index: Int
    /// The position of the entity's hierarchy root in the ``RepresentationSet``.
    let rootIndex: Int
    let entity: Entity
    // Fields read for every record, copied out of `entity` once (see ``MappedAttribute``).
    let name: String
    let rootName: String
    let isAbstract: Bool
    let hasSubentities: Bool
    /// Whether a dictionary may name another entity than this one: it has sub-entities, or a
    /// discriminator declared on an ancestor governs it (the selector's work is needed).
    let isDiscriminated: Bool
    let hasPrimaryKey: Bool
    /// The position in the ``RepresentationSet`` of the entity whose key identifies this one's
    /// records (``Schema/keyEntity(of:)``): the root's, unless a sub-entity of a keyless parent
    /// declares the key. Records match by key only within it (DESIGN §3.3).
    let keyScopeIndex: Int
    /// The name of that entity.
    let keyScopeName: String
    /// The plan of the entity's table.
    let table: TablePlan?
    let attributes: [MappedAttribute]
    /// The attributes that other entities of this one's hierarchy declare and this one does
    /// not, one per column (the first entity's, in schema order), but for those reading a key
    /// path another attribute of the hierarchy reads: a record met as this entity may end as
    /// another, which a later occurrence or the store decides, and its occurrences are merged
    /// for those too (``ProtoRecordBuilder``). Set once, by the ``RepresentationSet``.
    fileprivate(set) var hierarchyAttributes: [MappedAttribute] = []
    /// The attributes of this entity's hierarchy (this entity's own included) whose key paths
    /// meet another attribute's, one per column: the same key path (a circle's `size` as its
    /// radius, a square's as its side), or one inside the other (`dims` and `dims.t`). One
    /// dictionary holds one value there, so the value the occurrences of a record choose for
    /// each of them is kept apart (``ProtoRecord/sharedValues``), and read in its place. The
    /// same for every entity of the hierarchy; empty for most. Set once, by the
    /// ``RepresentationSet``.
    fileprivate(set) var sharedAttributes: [MappedAttribute] = []
    /// The position in ``sharedAttributes`` of the attribute kept in each column that has one.
    fileprivate(set) var sharedPositions: [Int: Int] = [:]

    /// A value the occurrences of a record chose for one of ``sharedAttributes``, and the
    /// position, among the attribute's candidate key paths, of the one it was found at: plain
    /// values, so that a streamed population carries them to a later batch, whose
    /// representations are its own.
    struct SharedValue: Equatable {
        let value: JSONValue
        let keyPath: Int

        init(value: JSONValue, keyPath: Int) {
            self.value = value
            self.keyPath = keyPath
        }

        /// `found`, a value of `mapped` found at one of its candidate key paths.
        init(_ found: Found, of mapped: MappedAttribute) {
            value = found.value
            keyPath = mapped.keyPaths.firstIndex { $0 === found.path } ?? 0
        }

        /// The value as `mapped`, the attribute it was chosen for, finds it.
        func found(as mapped: MappedAttribute) -> Found? {
            guard mapped.keyPaths.indices.contains(keyPath) else { return nil }
            return Found(value: value, path: mapped.keyPaths[keyPath])
        }
    }

    /// The attribute stored in `column` of the table, if this entity has it.
    func attribute(atColumn column: Int) -> MappedAttribute? {
        attributes.first { $0.column == column }
    }
    let relationships: [MappedRelationship]
    /// The attributes forming the primary key, when it is made of attributes.
    let keyAttributes: [MappedAttribute]
    /// The non-optional attributes without a default: a new record lacking a value for one is
    /// not stored (DESIGN §3.5).
    let requiredAttributes: [MappedAttribute]
    /// The to-one relationship forming the primary key, when the record is identified by its owner.
    let keyRelationship: MappedRelationship?
    /// The value transformer of each of ``keyAttributes``, where it has one: a key is matched as
    /// it is stored, transformed, so that a record is found again by the key the response gives.
    private let keyTransforms: [AttributeTransformers.Transform?]
    private let relationshipsByName: [String: MappedRelationship]

    init(
        entity: Entity, index: Int, store: any RecordStorage, plans: TablePlans, coercion: ValueCoercion,
        entityIndex: [String: Int], relationshipIDs: [String: Int]
    ) {
        self.index = index
        self.rootIndex = entityIndex[entity.rootName] ?? index
        self.entity = entity
        self.name = entity.name
        self.rootName = entity.rootName
        self.isAbstract = entity.isAbstract
        self.hasSubentities = !entity.subentityNames.isEmpty
        self.isDiscriminated =
            hasSubentities || SubentitySelector.governingDiscriminator(of: entity, in: store.schema) != nil
        self.hasPrimaryKey = entity.primaryKey != nil
        let keyScopeName = store.schema.keyEntity(of: entity)?.name ?? entity.rootName
        self.keyScopeName = keyScopeName
        self.keyScopeIndex = entityIndex[keyScopeName] ?? rootIndex
        let table = plans[entity.rootName]
        self.table = table
        let attributes = entity.attributes.compactMap { attribute -> MappedAttribute? in
            guard let column = table?.columnIndex[attribute.name] else { return nil }
            let storedDefault = attribute.defaultValue.flatMap { coercion.storedValue($0, for: attribute) }
            return MappedAttribute(property: attribute, column: column, storedDefault: storedDefault)
        }
        self.attributes = attributes
        requiredAttributes = attributes.filter { !$0.isOptional && $0.storedDefault == nil }
        let relationships = entity.relationships.map { relationship in
            MappedRelationship(
                property: relationship, id: relationshipIDs[RepresentationSet.qualifiedName(relationship)] ?? -1,
                destination: entityIndex[relationship.destination],
                link: Self.link(for: relationship, of: entity, store: store, plans: plans),
                identifiesDestination: store.schema.identifiesDestination(of: relationship),
                isSymmetric: store.schema.isSelfInverse(relationship),
                subentityInverseID: Self.subentityInverseID(of: relationship, in: store.schema, ids: relationshipIDs))
        }
        self.relationships = relationships
        var byName: [String: MappedRelationship] = [:]
        for mapped in relationships { byName[mapped.name] = mapped }
        relationshipsByName = byName
        switch entity.primaryKey {
        case .attribute(let name)?:
            keyAttributes = attributes.filter { $0.name == name }
            keyRelationship = nil
        case .composite(let names)?:
            keyAttributes = names.compactMap { name in attributes.first { $0.name == name } }
            keyRelationship = nil
        case .relationship(let name)?:
            keyAttributes = []
            keyRelationship = byName[name]
        case nil:
            keyAttributes = []
            keyRelationship = nil
        }
        keyTransforms = keyAttributes.map { $0.transformer.flatMap(store.transformer(named:)) }
    }

    /// The id of `relationship`'s inverse when an entity below the root of the destination's
    /// hierarchy declares it (``MappedRelationship/subentityInverseID``).
    private static func subentityInverseID(
        of relationship: Relationship, in schema: Schema, ids: [String: Int]
    ) -> Int? {
        guard let inverseName = relationship.inverse,
            let inverse = schema.entity(named: relationship.destination)?.relationship(named: inverseName),
            let declaring = schema.entity(named: inverse.entityName), !declaring.isRoot
        else { return nil }
        return ids[RepresentationSet.qualifiedName(inverse)]
    }

    /// Whether a record of this entity has the relationship whose ``MappedRelationship/id`` is
    /// `id`.
    func hasRelationship(id: Int) -> Bool {
        relationships.contains { $0.id == id }
    }

    /// The mapped relationship named `name`.
    func relationship(named name: String) -> MappedRelationship? {
        relationshipsByName[name]
    }

    private static func link(
        for relationship: Relationship, of entity: Entity, store: any RecordStorage, plans: TablePlans
    ) -> Link? {
        switch store.layout.storage(of: relationship.name, in: entity.name) {
        case nil:
            return nil
        case .foreignKeyHere(let column, let positionColumn)?:
            guard let table = plans[entity.rootName], let index = table.columnIndex[column] else { return nil }
            var isOneToOne = false
            if !relationship.isToMany, let inverseName = relationship.inverse,
                let inverse = store.schema.entity(named: relationship.destination)?.relationship(named: inverseName)
            {
                isOneToOne = !inverse.isToMany
            }
            return .foreignKeyHere(
                column: index, positionColumn: positionColumn.flatMap { table.columnIndex[$0] }, columnName: column,
                isOneToOne: isOneToOne)
        case .foreignKeyThere(let tableName, let column, let positionColumn)?:
            guard let table = plans[tableName], let index = table.columnIndex[column] else { return nil }
            return .foreignKeyThere(
                table: table, column: index, positionColumn: positionColumn.flatMap { table.columnIndex[$0] },
                columnName: column, positionColumnName: positionColumn)
        case .joinTable(let table, let selfColumn, let otherColumn, let positionColumn)?:
            return .joinTable(
                table: table, selfColumn: selfColumn, otherColumn: otherColumn, positionColumn: positionColumn)
        }
    }

    /// The raw primary-key value(s) in a dictionary: one value, or an array for a composite key.
    /// Nil when any part is absent or null.
    func rawPrimaryKey(in dictionary: JSONObject) -> JSONValue? {
        if keyAttributes.count == 1 {
            guard let value = keyAttributes[0].firstValue(in: dictionary), !value.isNull else { return nil }
            return value
        }
        guard !keyAttributes.isEmpty else { return nil }
        var parts: [JSONValue] = []
        for mapped in keyAttributes {
            guard let value = mapped.firstValue(in: dictionary), !value.isNull else { return nil }
            parts.append(value)
        }
        return .array(parts)
    }

    /// The key paths the primary key was read from in `dictionary` (the candidates found,
    /// joined with `+` for a composite key), for messages.
    func primaryKeyPath(in dictionary: JSONObject) -> String? {
        let paths = keyAttributes.compactMap { $0.value(in: dictionary)?.keyPath }
        return paths.isEmpty ? nil : paths.joined(separator: "+")
    }

    /// The normalized key for a raw key value (DESIGN §3.3): each part coerced to its attribute's
    /// type, so `"5"` and `5` match. Nil when a part cannot be coerced.
    ///
    /// A key attribute with a value transformer is matched on the transformed value, as its
    /// column stores it; a part the transformer refuses is no key.
    func normalizedKey(_ raw: JSONValue, coercion: ValueCoercion) -> KeyValue? {
        if keyAttributes.count == 1 {
            guard let part = transformedKeyPart(raw, at: 0) else { return nil }
            return coercion.keyValue(part, type: keyAttributes[0].type, dateFormat: keyAttributes[0].dateFormat).map {
                .single($0)
            }
        }
        let parts = raw.arrayValue ?? []
        guard parts.count == keyAttributes.count, !parts.isEmpty else { return nil }
        var values: [DatabaseValue] = []
        for (index, (mapped, part)) in zip(keyAttributes, parts).enumerated() {
            guard let part = transformedKeyPart(part, at: index),
                let value = coercion.keyValue(part, type: mapped.type, dateFormat: mapped.dateFormat)
            else {
                return nil
            }
            values.append(value)
        }
        return .composite(values)
    }

    /// The key part `raw` of the key attribute at `index` as its transformer, if it has one,
    /// makes it; nil when the transformer refuses it.
    @inline(__always)
    private func transformedKeyPart(_ raw: JSONValue, at index: Int) -> JSONValue? {
        guard index < keyTransforms.count, let transform = keyTransforms[index] else { return raw }
        return transform(raw)
    }

    /// The dictionary for a reference by key: the key placed at each key attribute's first key path.
    func referenceDictionary(for raw: JSONValue) -> JSONObject {
        var dictionary = JSONObject()
        let parts = keyAttributes.count == 1 ? [raw] : (raw.arrayValue ?? [])
        for (mapped, part) in zip(keyAttributes, parts) {
            guard let path = mapped.keyPaths.first, !path.text.contains(".") else {
                dictionary[mapped.name] = part
                continue
            }
            dictionary[path.text] = part
        }
        return dictionary
    }
}

/// The representation of every entity of the schema, for one population.
///
/// Built up front so that relationships can name their destination by position: following a
/// relationship from one record to the next is an array read, not a lookup by name.
final class RepresentationSet {
    let all: [Representation]
    private let byName: [String: Int]

    init(store: any RecordStorage, plans: TablePlans, coercion: ValueCoercion) {
        let entities = store.schema.entities
        var byName: [String: Int] = [:]
        var relationshipIDs: [String: Int] = [:]
        for (index, entity) in entities.enumerated() {
            byName[entity.name] = index
            for relationship in entity.relationships where relationshipIDs[Self.qualifiedName(relationship)] == nil {
                relationshipIDs[Self.qualifiedName(relationship)] = relationshipIDs.count
            }
        }
        self.byName = byName
        all = entities.enumerated().map { index, entity in
            Representation(
                entity: entity, index: index, store: store, plans: plans, coercion: coercion, entityIndex: byName,
                relationshipIDs: relationshipIDs)
        }
        // Key paths that two attributes of one hierarchy read (a circle's `size` and a square's),
        // or one of which is inside the other (`dims` and `dims.t`): one dictionary cannot hold a
        // value chosen for each, so those attributes' chosen values are kept apart, and merged
        // into the dictionary as the record's own entity reads them only.
        var sharedByRoot: [Int: [Representation.MappedAttribute]] = [:]
        for root in Set(all.map(\.rootIndex)) {
            var byColumn: [Int: Representation.MappedAttribute] = [:]
            var columnOrder: [Int] = []
            var columnsOfPath: [String: Set<Int>] = [:]
            for representation in all where representation.rootIndex == root {
                for attribute in representation.attributes where byColumn[attribute.column] == nil {
                    byColumn[attribute.column] = attribute
                    columnOrder.append(attribute.column)
                    for path in attribute.keyPaths { columnsOfPath[path.text, default: []].insert(attribute.column) }
                }
            }
            var shared = Set<Int>()
            for (path, columns) in columnsOfPath {
                if columns.count > 1 { shared.formUnion(columns) }
                // Each key path around this one (`dims` for `dims.t`), read by another column.
                var prefix = path[...]
                while let dot = prefix.lastIndex(of: ".") {
                    prefix = prefix[..<dot]
                    guard let outer = columnsOfPath[String(prefix)], outer != columns || columns.count > 1 else {
                        continue
                    }
                    shared.formUnion(outer)
                    shared.formUnion(columns)
                }
            }
            guard !shared.isEmpty else { continue }
            sharedByRoot[root] = columnOrder.filter(shared.contains).compactMap { byColumn[$0] }
        }
        for representation in all {
            guard let shared = sharedByRoot[representation.rootIndex] else { continue }
            representation.sharedAttributes = shared
            for (position, attribute) in shared.enumerated() {
                representation.sharedPositions[attribute.column] = position
            }
        }
        for representation in all
        where representation.hasSubentities || representation.rootIndex != representation.index {
            let shared = representation.sharedPositions
            var columns = Set(representation.attributes.map(\.column))
            for other in all where other.rootIndex == representation.rootIndex && other.index != representation.index {
                for attribute in other.attributes
                where shared[attribute.column] == nil && columns.insert(attribute.column).inserted {
                    representation.hierarchyAttributes.append(attribute)
                }
            }
        }
    }

    /// `DeclaringEntity.relationship`: the same for an inherited relationship in every sub-entity.
    static func qualifiedName(_ relationship: Relationship) -> String {
        relationship.entityName + "." + relationship.name
    }

    /// The representation of the entity named `name`, if the schema has it.
    subscript(name: String) -> Representation? {
        byName[name].map { all[$0] }
    }

    /// The representation of `entity`.
    ///
    /// - Throws: `invalidEntityDescription` when the entity is not in the store's schema.
    func representation(of entity: Entity) throws(WebRecordError) -> Representation {
        guard let representation = self[entity.name] else { throw WebRecordError.unknownEntity(entity.name) }
        return representation
    }
}

/// Picks the sub-entity a dictionary stands for (DESIGN §3.13).
struct SubentitySelector {
    let schema: Schema
    let store: any RecordStorage

    /// The most specific entity for `dictionary`, starting at `entity`: the registered Record
    /// class's hook first, then the discriminator that governs the entity (its own, or its
    /// nearest ancestor's), repeated down the hierarchy.
    ///
    /// Nil when the dictionary names an entity of another branch of the hierarchy (`"kind":
    /// "film"` where a `Book` is expected): the record is not one of `entity`, and is skipped
    /// rather than stored as one. A name of a more general entity keeps the more specific one.
    func entity(for dictionary: JSONObject, startingAt entity: Entity) -> Entity? {
        choice(for: dictionary, startingAt: entity)?.entity
    }

    /// What a dictionary says of its entity: the most specific one, as ``entity(for:startingAt:)``
    /// picks it, and whether the discriminator stated it.
    struct Choice {
        /// The entity chosen.
        var entity: Entity
        /// Whether the last discriminator read had a value in the dictionary that decided the
        /// choice: one mapped to ``entity``, or one mapped to nothing, which leaves ``entity``
        /// the entity whose discriminator it was. Without it (the key missing or null, at the
        /// last level read), a stored record of a descendant keeps its sub-entity.
        var isStated = false
        /// A value of the discriminator's key that maps to no entity, with the key.
        var unmapped: (key: String, value: JSONValue)?
    }

    /// The choice ``entity(for:startingAt:)`` makes, with whether the dictionary stated it.
    /// Nil when the dictionary names an entity of another branch.
    func choice(for dictionary: JSONObject, startingAt entity: Entity) -> Choice? {
        var choice = Choice(entity: entity)
        var steps = 0
        // The entities whose discriminator a record class's choice took the place of: read again
        // below the entity chosen, it would overrule the choice.
        var replaced: [String] = []
        while steps < 64 {
            steps += 1
            let current = choice.entity
            let hook =
                current.subentityNames.isEmpty
                ? nil : store.recordClass(for: current.name).subentityName(for: dictionary, of: current)
            var name = hook
            if hook != nil, let declaring = Self.governingDeclaration(of: current, in: schema) {
                replaced.append(declaring)
            }
            if name == nil, let declaring = Self.governingDeclaration(of: current, in: schema),
                !replaced.contains(declaring),
                let discriminator = schema.entity(named: declaring)?.subentityDiscriminator
            {
                switch discriminated(dictionary, by: discriminator) {
                case .entity(let named):
                    name = named
                    choice.isStated = true
                    choice.unmapped = nil
                case .unmapped(let key, let value):
                    // A value that names nothing: the record is `current` (DESIGN §3.13).
                    choice.isStated = true
                    choice.unmapped = (key, value)
                case .missing:
                    // Nothing said at this level: a stored record of a descendant is kept.
                    choice.isStated = false
                    choice.unmapped = nil
                }
            }
            guard let name, name != current.name, let next = schema.entity(named: name) else { break }
            guard schema.entity(name, isKindOf: current.name) else {
                if schema.entity(current.name, isKindOf: name) {
                    // A more general entity than the one requested: the requested one stays.
                    choice.isStated = false
                    break
                }
                return nil
            }
            choice.entity = next
        }
        return choice
    }

    /// The discriminator declared on `entity` or, failing that, on its nearest ancestor.
    static func governingDiscriminator(of entity: Entity, in schema: Schema) -> SubentityDiscriminator? {
        governingDeclaration(of: entity, in: schema).flatMap { schema.entity(named: $0)?.subentityDiscriminator }
    }

    /// The name of the entity that declares ``governingDiscriminator(of:in:)``.
    static func governingDeclaration(of entity: Entity, in schema: Schema) -> String? {
        var current: Entity? = entity
        var steps = 0
        while let candidate = current, steps < 64 {
            if candidate.subentityDiscriminator != nil { return candidate.name }
            current = candidate.parentName.flatMap { schema.entity(named: $0) }
            steps += 1
        }
        return nil
    }

    /// What a discriminator reads in a dictionary.
    private enum Reading {
        /// The value names this entity.
        case entity(String)
        /// The key holds a value (not null) that names no entity.
        case unmapped(key: String, value: JSONValue)
        /// The key is missing or null (or, for the presence form, no key is present).
        case missing
    }

    private func discriminated(_ dictionary: JSONObject, by discriminator: SubentityDiscriminator) -> Reading {
        switch discriminator {
        case .value(let key, let map):
            guard let value = JSONKeyPath(key).value(in: dictionary), !value.isNull else { return .missing }
            let name: String?
            switch value {
            case .string(let text): name = map[text]
            case .integer, .double, .bool: name = map[value.serialized()]
            default: name = nil
            }
            return name.map(Reading.entity) ?? .unmapped(key: key, value: value)
        case .presence(let pairs):
            for pair in pairs {
                if let value = JSONKeyPath(pair.key).value(in: dictionary), !value.isNull {
                    return .entity(pair.entity)
                }
            }
            return .missing
        }
    }
}
