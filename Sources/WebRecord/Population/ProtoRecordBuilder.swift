/// Builds the proto-record graph of a response (pipeline steps 1 and 2).
///
/// It walks each top-level dictionary and everything nested in it, picks sub-entities,
/// runs pre-population and primary-key injection, and merges duplicates: dictionaries with
/// the same primary key, or the same owner for records identified by their owner, become one
/// proto-record (DESIGN §3.5–3.7, §3.11–3.13).
final class ProtoRecordBuilder {
    let schema: Schema
    let options: PopulationOptions
    let coercion: ValueCoercion
    let debugger: Debugger
    let selector: SubentitySelector
    private var representations: [String: Representation] = [:]
    private var byIdentity: [ProtoRecord.Identity: ProtoRecord] = [:]
    /// Every proto-record, in the order first met.
    private(set) var protoRecords: [ProtoRecord] = []

    init(store: RecordStore, options: PopulationOptions, coercion: ValueCoercion, debugger: Debugger) {
        self.schema = store.schema
        self.options = options
        self.coercion = coercion
        self.debugger = debugger
        self.selector = SubentitySelector(schema: store.schema, store: store)
    }

    func representation(of entity: Entity) -> Representation {
        if let cached = representations[entity.name] { return cached }
        let representation = Representation(entity: entity)
        representations[entity.name] = representation
        return representation
    }

    /// The top-level proto-records for `values`, in response order, without repeats.
    func build(_ values: [JSONValue], entity: Entity, keyPath: String?) throws(WebRecordError) -> [ProtoRecord] {
        var results: [ProtoRecord] = []
        var seen = Set<ObjectIdentifier>()
        for (index, value) in values.enumerated() {
            let proto: ProtoRecord?
            switch value {
            case .object(let dictionary):
                proto = try self.proto(for: dictionary, entity: entity, parent: nil, via: nil, depth: 1)
            case .null:
                proto = nil
            default:
                proto = reference(value, to: entity, parent: nil, depth: 1, keyPath: keyPath.map { "\($0).\(index)" } ?? "\(index)")
            }
            if let proto, seen.insert(ObjectIdentifier(proto)).inserted {
                results.append(proto)
            }
        }
        return results
    }

    // MARK: - Dictionaries

    private func proto(
        for original: JSONObject, entity declared: Entity, parent: ProtoRecord?, via relationship: Relationship?, depth: Int
    ) throws(WebRecordError) -> ProtoRecord? {
        if depth > options.maximumRecordDepth {
            throw WebRecordError(
                .invalidResponseFormat,
                "records nest deeper than \(options.maximumRecordDepth) levels",
                entity: declared.name, property: relationship?.name)
        }
        let entity = selector.entity(for: original, startingAt: declared)
        if entity.isAbstract {
            debugger.record(WebRecordError(
                .invalidEntityDescription, "\(entity.name) is abstract and no sub-entity matched the record; it was skipped",
                isFatal: false, entity: entity.name))
            return nil
        }
        var dictionary = original
        options.prePopulation?(entity, &dictionary)
        let representation = self.representation(of: entity)

        // Identity: the primary key, injected if missing, or the owner.
        var identity: ProtoRecord.Identity?
        var rawKey: JSONValue?
        var normalized: [DatabaseValue]?
        var owner: (proto: ProtoRecord, relationship: Relationship)?
        var ownerProtoFromDictionary: ProtoRecord?

        if !representation.keyAttributes.isEmpty {
            rawKey = representation.rawPrimaryKey(in: dictionary)
                ?? options.primaryKeyInjection?(entity, dictionary, parent).flatMap { $0.isNull ? nil : $0 }
            if let raw = rawKey {
                normalized = representation.normalizedKey(raw, coercion: coercion)
                if let normalized {
                    identity = .key(root: entity.rootName, values: normalized)
                } else {
                    debugger.record(.typeMismatch(
                        entity: entity.name, property: entity.primaryKey?.description ?? "", keyPath: nil, value: raw,
                        expected: "a primary key of type \(representation.keyAttributes.map(\.property.type.rawValue).joined(separator: "+"))"))
                    rawKey = nil
                }
            }
        } else if let keyRelationship = representation.keyRelationship {
            if let parent, let relationship, relationship.inverse == keyRelationship.name, !relationship.isToMany {
                owner = (parent, relationship)
            } else if let mapped = representation.relationships.first(where: { $0.property.name == keyRelationship.name }),
                let (value, keyPath) = mapped.value(in: dictionary), !value.isNull
            {
                ownerProtoFromDictionary = try related(value, relationship: keyRelationship, parent: nil, depth: depth, keyPath: keyPath).first
            } else if let injected = options.primaryKeyInjection?(entity, dictionary, parent), !injected.isNull {
                ownerProtoFromDictionary = try related(injected, relationship: keyRelationship, parent: nil, depth: depth, keyPath: keyPath(keyRelationship)).first
            }
            if let ownerProto = ownerProtoFromDictionary {
                if let inverseName = keyRelationship.inverse, let inverse = ownerProto.entity.relationship(named: inverseName) {
                    owner = (ownerProto, inverse)
                } else {
                    owner = (ownerProto, keyRelationship)
                }
            }
        }
        if identity == nil, owner == nil, let parent, let relationship, !relationship.isToMany {
            // DESIGN §3.6: a nested object without a key, reached through a to-one, is the record
            // already related there.
            owner = (parent, relationship)
        }
        if identity == nil, let owner {
            identity = .owned(
                root: entity.rootName, owner: ObjectIdentifier(owner.proto),
                relationship: "\(owner.relationship.entityName).\(owner.relationship.name)")
        }
        if identity == nil, entity.primaryKey != nil {
            debugger.record(.missingPrimaryKey(entity: entity.name, keyPath: keyPath(entity)))
        }

        // Merge with an earlier occurrence, or make a new proto-record.
        let proto: ProtoRecord
        if let identity, let existing = byIdentity[identity] {
            proto = existing
            merge(dictionary, into: existing, entity: entity)
        } else {
            proto = ProtoRecord(entity: entity, dictionary: dictionary, parent: parent, isReference: false, depth: depth)
            proto.identity = identity
            proto.normalizedKey = normalized
            proto.primaryKeyValue = rawKey
            proto.owner = owner
            if let identity { byIdentity[identity] = proto }
            protoRecords.append(proto)
            if let rawKey, representation.rawPrimaryKey(in: dictionary) == nil {
                // An injected key is written into the dictionary so the key attribute is stored.
                for (mapped, part) in zip(representation.keyAttributes, representation.keyAttributes.count == 1 ? [rawKey] : (rawKey.arrayValue ?? [])) {
                    proto.dictionary[mapped.property.name] = part
                }
            }
        }

        // Relationships present in this occurrence.
        for mapped in representation.relationships {
            guard let (value, keyPath) = mapped.value(in: dictionary) else { continue }
            let relationship = mapped.property
            if value.isNull {
                proto.relationships[relationship.name] = []
                proto.clearedRelationships.insert(relationship.name)
                continue
            }
            var members: [ProtoRecord]
            if relationship.name == representation.keyRelationship?.name, let ownerProtoFromDictionary {
                members = [ownerProtoFromDictionary]
            } else {
                members = try related(value, relationship: relationship, parent: proto, depth: depth + 1, keyPath: keyPath)
            }
            if !relationship.isToMany, members.count > 1 {
                members = [members[0]]
            }
            proto.relationships[relationship.name] = members
            proto.clearedRelationships.remove(relationship.name)
        }
        return proto
    }

    /// The proto-records a relationship's value names: nested objects, arrays of them, or references.
    private func related(
        _ value: JSONValue, relationship: Relationship, parent: ProtoRecord?, depth: Int, keyPath: String
    ) throws(WebRecordError) -> [ProtoRecord] {
        guard let destination = schema.entity(named: relationship.destination) else { return [] }
        switch value {
        case .null:
            return []
        case .object(let dictionary):
            return try proto(for: dictionary, entity: destination, parent: parent, via: relationship, depth: depth).map { [$0] } ?? []
        case .array(let elements):
            var members: [ProtoRecord] = []
            var seen = Set<ObjectIdentifier>()
            for (index, element) in elements.enumerated() {
                let member: ProtoRecord?
                switch element {
                case .object(let dictionary):
                    member = try proto(for: dictionary, entity: destination, parent: parent, via: relationship, depth: depth)
                case .null:
                    member = nil
                case .array:
                    debugger.record(.typeMismatch(
                        entity: relationship.entityName, property: relationship.name, keyPath: "\(keyPath).\(index)",
                        value: element, expected: "an object or a primary-key value"))
                    member = nil
                default:
                    member = reference(element, to: destination, parent: parent, depth: depth, keyPath: "\(keyPath).\(index)")
                }
                if let member, seen.insert(ObjectIdentifier(member)).inserted { members.append(member) }
            }
            return members
        default:
            return reference(value, to: destination, parent: parent, depth: depth, keyPath: keyPath).map { [$0] } ?? []
        }
    }

    /// A proto-record for a reference by primary key (DESIGN §3.11): the record with that key,
    /// a stub until its data arrives.
    private func reference(_ value: JSONValue, to entity: Entity, parent: ProtoRecord?, depth: Int, keyPath: String) -> ProtoRecord? {
        let representation = self.representation(of: entity)
        guard !representation.keyAttributes.isEmpty, let normalized = representation.normalizedKey(value, coercion: coercion) else {
            debugger.record(.typeMismatch(
                entity: entity.name, property: entity.primaryKey?.description ?? "", keyPath: keyPath, value: value,
                expected: representation.keyAttributes.isEmpty
                    ? "an object (\(entity.name) cannot be referenced by a key)"
                    : "an object or a \(representation.keyAttributes.map(\.property.type.rawValue).joined(separator: "+")) primary key"))
            return nil
        }
        let identity = ProtoRecord.Identity.key(root: entity.rootName, values: normalized)
        if let existing = byIdentity[identity] { return existing }
        let proto = ProtoRecord(
            entity: entity, dictionary: representation.referenceDictionary(for: value), parent: parent,
            isReference: true, depth: depth)
        proto.identity = identity
        proto.normalizedKey = normalized
        proto.primaryKeyValue = value
        byIdentity[identity] = proto
        protoRecords.append(proto)
        return proto
    }

    /// DESIGN §3.7: later keys fill absent ones; on a conflict the later value wins.
    private func merge(_ dictionary: JSONObject, into proto: ProtoRecord, entity: Entity) {
        if proto.isReference || (entity.name != proto.entity.name && schema.entity(entity.name, isKindOf: proto.entity.name)) {
            proto.entity = entity
        }
        proto.isReference = false
        for (key, value) in dictionary {
            if let earlier = proto.dictionary[key], earlier != value {
                WebRecord.logger.log(
                    .debug, "duplicate record in response: '\(key)' changes from \(WebRecordError.excerpt(of: earlier)) to \(WebRecordError.excerpt(of: value)); the later value wins",
                    entity: entity.name)
            }
            proto.dictionary[key] = value
        }
    }

    private func keyPath(_ entity: Entity) -> String? {
        entity.primaryKey.map { key in
            key.propertyNames.map { name in entity.attribute(named: name)?.keyPaths.first ?? name }.joined(separator: "+")
        }
    }

    private func keyPath(_ relationship: Relationship) -> String {
        relationship.keyPaths.first ?? relationship.name
    }
}
