/// How one entity is represented in responses: where each property's value is found, how
/// the primary key is read and normalized, and which sub-entity a dictionary stands for.
///
/// Built once per entity per population; key paths are split once here, not per record.
struct Representation {
    struct KeyPath {
        let text: String
        let components: [String]

        init(_ text: String) {
            self.text = text
            self.components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }

        /// The value at this path, `.null` for an explicit null, nil when absent.
        func value(in dictionary: JSONObject) -> JSONValue? {
            guard let first = components.first, var value = dictionary[first] else { return nil }
            for component in components.dropFirst() {
                switch value {
                case .object(let object):
                    guard let next = object[component] else { return nil }
                    value = next
                case .array(let array):
                    guard let index = Int(component), array.indices.contains(index) else { return nil }
                    value = array[index]
                default:
                    return nil
                }
            }
            return value
        }
    }

    struct Mapped<Property> {
        let property: Property
        let keyPaths: [KeyPath]

        /// The first candidate present in `dictionary`, with its path.
        func value(in dictionary: JSONObject) -> (value: JSONValue, keyPath: String)? {
            for path in keyPaths {
                if let value = path.value(in: dictionary) { return (value, path.text) }
            }
            return nil
        }
    }

    let entity: Entity
    let attributes: [Mapped<Attribute>]
    let relationships: [Mapped<Relationship>]
    /// The attributes forming the primary key, when it is made of attributes.
    let keyAttributes: [Mapped<Attribute>]
    /// The to-one relationship forming the primary key, when the record is identified by its owner.
    let keyRelationship: Relationship?

    init(entity: Entity) {
        self.entity = entity
        let attributes = entity.attributes.map { Mapped(property: $0, keyPaths: $0.keyPaths.map(KeyPath.init)) }
        self.attributes = attributes
        relationships = entity.relationships.map { Mapped(property: $0, keyPaths: $0.keyPaths.map(KeyPath.init)) }
        switch entity.primaryKey {
        case .attribute(let name)?:
            keyAttributes = attributes.filter { $0.property.name == name }
            keyRelationship = nil
        case .composite(let names)?:
            keyAttributes = names.compactMap { name in attributes.first { $0.property.name == name } }
            keyRelationship = nil
        case .relationship(let name)?:
            keyAttributes = []
            keyRelationship = entity.relationship(named: name)
        case nil:
            keyAttributes = []
            keyRelationship = nil
        }
    }

    /// The raw primary-key value(s) in a dictionary: one value, or an array for a composite key.
    /// Nil when any part is absent or null.
    func rawPrimaryKey(in dictionary: JSONObject) -> JSONValue? {
        guard !keyAttributes.isEmpty else { return nil }
        var parts: [JSONValue] = []
        for mapped in keyAttributes {
            guard let (value, _) = mapped.value(in: dictionary), !value.isNull else { return nil }
            parts.append(value)
        }
        return parts.count == 1 ? parts[0] : .array(parts)
    }

    /// The normalized key for a raw key value (DESIGN §3.3): each part coerced to its attribute's
    /// type, so `"5"` and `5` match. Nil when a part cannot be coerced.
    func normalizedKey(_ raw: JSONValue, coercion: ValueCoercion) -> [DatabaseValue]? {
        let parts = keyAttributes.count == 1 ? [raw] : (raw.arrayValue ?? [])
        guard parts.count == keyAttributes.count, !parts.isEmpty else { return nil }
        var values: [DatabaseValue] = []
        for (mapped, part) in zip(keyAttributes, parts) {
            guard let value = coercion.keyValue(part, for: mapped.property) else { return nil }
            values.append(value)
        }
        return values
    }

    /// The dictionary for a reference by key: the key placed at each key attribute's first key path.
    func referenceDictionary(for raw: JSONValue) -> JSONObject {
        var dictionary = JSONObject()
        let parts = keyAttributes.count == 1 ? [raw] : (raw.arrayValue ?? [])
        for (mapped, part) in zip(keyAttributes, parts) {
            guard let path = mapped.keyPaths.first, path.components.count == 1 else {
                dictionary[mapped.property.name] = part
                continue
            }
            dictionary[path.text] = part
        }
        return dictionary
    }
}

/// Picks the sub-entity a dictionary stands for (DESIGN §3.13).
struct SubentitySelector {
    let schema: Schema
    let store: RecordStore

    /// The most specific entity for `dictionary`, starting at `entity`: the registered Record
    /// class's hook first, then the schema's discriminator, repeated down the hierarchy.
    func entity(for dictionary: JSONObject, startingAt entity: Entity) -> Entity {
        var current = entity
        var steps = 0
        while !current.subentityNames.isEmpty, steps < 64 {
            steps += 1
            let hook = store.recordClass(for: current.name).subentityName(for: dictionary, of: current)
            guard let name = hook ?? discriminated(dictionary, by: current.subentityDiscriminator),
                name != current.name, let next = schema.entity(named: name), schema.entity(name, isKindOf: current.name)
            else { break }
            current = next
        }
        return current
    }

    private func discriminated(_ dictionary: JSONObject, by discriminator: SubentityDiscriminator?) -> String? {
        switch discriminator {
        case nil:
            return nil
        case .value(let key, let map)?:
            guard let value = Representation.KeyPath(key).value(in: dictionary) else { return nil }
            switch value {
            case .string(let text): return map[text]
            case .integer, .double, .bool: return map[value.serialized()]
            default: return nil
            }
        case .presence(let pairs)?:
            for pair in pairs {
                if let value = Representation.KeyPath(pair.key).value(in: dictionary), !value.isNull {
                    return pair.entity
                }
            }
            return nil
        }
    }
}
