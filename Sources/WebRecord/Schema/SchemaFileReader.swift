import Foundation

/// An entity as written in one schema file, before inheritance is resolved.
struct EntityDeclaration: Sendable {
    var name: String
    var file: String
    var parent: String?
    var isAbstract = false
    var primaryKey: [String]?
    var primaryKeyIsComposite = false
    var keyPathForResponseObject: String?
    var discriminator: SubentityDiscriminator?
    var attributes: [Attribute] = []
    var relationships: [Relationship] = []
}

/// Reads the JSON of one schema file into entity declarations, noting every problem of shape.
///
/// Unknown keys are problems, so a misspelt option never passes silently.
struct SchemaFileReader {
    let file: String
    private(set) var problems: [SchemaProblem] = []
    private(set) var dateFormats: [String] = []
    private(set) var entities: [EntityDeclaration] = []

    static let topLevelKeys = ["version", "dateFormats", "entities", "description"]
    static let entityKeys = [
        "primaryKey", "keyPathForResponseObject", "parent", "abstract", "subentities",
        "attributes", "relationships", "description",
    ]
    static let attributeKeys = [
        "type", "key", "optional", "default", "indexed", "dateFormat", "transformer", "description",
    ]
    static let relationshipKeys = [
        "destination", "toMany", "ordered", "inverse", "key", "deleteRule", "merge", "optional", "description",
    ]

    init(file: String) {
        self.file = file
    }

    mutating func read(_ data: Data) {
        let root: JSONValue
        do {
            root = try JSONReader().read(data)
        } catch {
            problems.append(
                SchemaProblem(file: file, message: "malformed JSON: \(error.message)", line: error.line, column: error.column))
            return
        }
        guard let top = root.objectValue else {
            problem(nil, nil, "the file must hold a JSON object, not \(root.typeName)")
            return
        }
        checkKeys(top, allowed: Self.topLevelKeys, entity: nil, property: nil, what: "schema")
        if let version = top["version"], version.int64Value != 1 {
            problem(nil, nil, "unsupported version \(version); this WebRecord reads version 1")
        }
        if let formats = top["dateFormats"] {
            if let list = formats.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
                dateFormats = list.compactMap(\.stringValue)
            } else {
                problem(nil, nil, "'dateFormats' must be an array of strings")
            }
        }
        guard let entitiesValue = top["entities"] else {
            problem(nil, nil, "missing 'entities'")
            return
        }
        guard let entityObjects = entitiesValue.objectValue else {
            problem(nil, nil, "'entities' must be an object mapping entity names to entities")
            return
        }
        for (name, value) in entityObjects {
            readEntity(name: name, value: value)
        }
    }

    // MARK: - Entities

    private mutating func readEntity(name: String, value: JSONValue) {
        checkIdentifier(name, entity: name, property: nil, what: "entity name")
        guard let object = value.objectValue else {
            problem(name, nil, "an entity must be an object, not \(value.typeName)")
            return
        }
        checkKeys(object, allowed: Self.entityKeys, entity: name, property: nil, what: "entity")
        var entity = EntityDeclaration(name: name, file: file)
        entity.parent = string(object["parent"], entity: name, property: nil, key: "parent")
        entity.isAbstract = bool(object["abstract"], entity: name, property: nil, key: "abstract") ?? false
        entity.keyPathForResponseObject = string(
            object["keyPathForResponseObject"], entity: name, property: nil, key: "keyPathForResponseObject")
        switch object["primaryKey"] {
        case nil, .null?:
            break
        case .string(let key)?:
            entity.primaryKey = [key]
        case .array(let parts)? where !parts.isEmpty && parts.allSatisfy({ $0.stringValue != nil }):
            entity.primaryKey = parts.compactMap(\.stringValue)
            entity.primaryKeyIsComposite = parts.count > 1
        case let other?:
            problem(name, nil, "'primaryKey' must be a property name or a non-empty array of names, not \(other.typeName)")
        }
        if let discriminator = object["subentities"] {
            entity.discriminator = readDiscriminator(discriminator, entity: name)
        }
        if let attributes = object["attributes"] {
            if let members = attributes.objectValue {
                for (attributeName, spec) in members {
                    if let attribute = readAttribute(attributeName, spec, entity: name) {
                        entity.attributes.append(attribute)
                    }
                }
            } else {
                problem(name, nil, "'attributes' must be an object")
            }
        }
        if let relationships = object["relationships"] {
            if let members = relationships.objectValue {
                for (relationshipName, spec) in members {
                    if let relationship = readRelationship(relationshipName, spec, entity: name) {
                        entity.relationships.append(relationship)
                    }
                }
            } else {
                problem(name, nil, "'relationships' must be an object")
            }
        }
        entities.append(entity)
    }

    private mutating func readDiscriminator(_ value: JSONValue, entity: String) -> SubentityDiscriminator? {
        guard let object = value.objectValue else {
            problem(entity, nil, "'subentities' must be an object with 'key' and 'map', or with 'present'")
            return nil
        }
        checkKeys(object, allowed: ["key", "map", "present"], entity: entity, property: nil, what: "subentities")
        if let present = object["present"] {
            guard let pairs = present.objectValue, pairs.allSatisfy({ $0.value.stringValue != nil }), !pairs.isEmpty else {
                problem(entity, nil, "'subentities.present' must map keys to entity names")
                return nil
            }
            return .presence(pairs.map { (key: $0.key, entity: $0.value.stringValue ?? "") })
        }
        guard let key = object["key"]?.stringValue,
            let map = object["map"]?.objectValue, map.allSatisfy({ $0.value.stringValue != nil }), !map.isEmpty
        else {
            problem(entity, nil, "'subentities' needs 'key' (a key path) and 'map' (values to entity names)")
            return nil
        }
        var table: [String: String] = [:]
        for (value, target) in map { table[value] = target.stringValue }
        return .value(key: key, map: table)
    }

    // MARK: - Properties

    private mutating func readAttribute(_ name: String, _ value: JSONValue, entity: String) -> Attribute? {
        checkIdentifier(name, entity: entity, property: name, what: "attribute name")
        guard let object = value.objectValue else {
            problem(entity, name, "an attribute must be an object, not \(value.typeName)")
            return nil
        }
        checkKeys(object, allowed: Self.attributeKeys, entity: entity, property: name, what: "attribute")
        guard let typeName = object["type"]?.stringValue else {
            problem(entity, name, "missing 'type' (one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))")
            return nil
        }
        guard let type = AttributeType(rawValue: typeName) else {
            let hint = NameSuggestion.hint(for: typeName, in: AttributeType.allCases.map(\.rawValue))
            problem(entity, name, "unknown type '\(typeName)'\(hint)")
            return nil
        }
        let attribute = Attribute(
            name: name, entityName: entity, type: type,
            keyPaths: keyPaths(object["key"], name: name, entity: entity),
            isOptional: bool(object["optional"], entity: entity, property: name, key: "optional") ?? true,
            defaultValue: object["default"].flatMap { $0.isNull ? nil : $0 },
            isIndexed: bool(object["indexed"], entity: entity, property: name, key: "indexed") ?? false,
            dateFormat: string(object["dateFormat"], entity: entity, property: name, key: "dateFormat"),
            transformer: string(object["transformer"], entity: entity, property: name, key: "transformer"))
        if attribute.dateFormat != nil, type != .date {
            problem(entity, name, "'dateFormat' applies only to date attributes")
        }
        if let defaultValue = attribute.defaultValue, !Self.defaultFits(defaultValue, type) {
            problem(entity, name, "default \(defaultValue.serialized()) is not a valid \(type.rawValue)")
        }
        return attribute
    }

    private mutating func readRelationship(_ name: String, _ value: JSONValue, entity: String) -> Relationship? {
        checkIdentifier(name, entity: entity, property: name, what: "relationship name")
        guard let object = value.objectValue else {
            problem(entity, name, "a relationship must be an object, not \(value.typeName)")
            return nil
        }
        checkKeys(object, allowed: Self.relationshipKeys, entity: entity, property: name, what: "relationship")
        guard let destination = object["destination"]?.stringValue else {
            problem(entity, name, "missing 'destination'")
            return nil
        }
        let toMany = bool(object["toMany"], entity: entity, property: name, key: "toMany") ?? false
        let ordered = bool(object["ordered"], entity: entity, property: name, key: "ordered") ?? false
        var deleteRule = Relationship.DeleteRule.nullify
        if let rule = string(object["deleteRule"], entity: entity, property: name, key: "deleteRule") {
            if let parsed = Relationship.DeleteRule(rawValue: rule) {
                deleteRule = parsed
            } else {
                problem(entity, name, "unknown deleteRule '\(rule)' (use nullify, cascade or deny)")
            }
        }
        var merge = Relationship.MergePolicy.union
        if let policy = string(object["merge"], entity: entity, property: name, key: "merge") {
            if let parsed = Relationship.MergePolicy(rawValue: policy) {
                merge = parsed
            } else {
                problem(entity, name, "unknown merge '\(policy)' (use union or replace)")
            }
            if !toMany { problem(entity, name, "'merge' applies only to to-many relationships") }
        }
        if ordered, !toMany { problem(entity, name, "'ordered' applies only to to-many relationships") }
        return Relationship(
            name: name, entityName: entity, destination: destination, isToMany: toMany, isOrdered: ordered,
            inverse: string(object["inverse"], entity: entity, property: name, key: "inverse"),
            keyPaths: keyPaths(object["key"], name: name, entity: entity),
            deleteRule: deleteRule, mergePolicy: merge,
            isOptional: bool(object["optional"], entity: entity, property: name, key: "optional") ?? true)
    }

    /// `key` entries then the name, without repeats.
    private mutating func keyPaths(_ value: JSONValue?, name: String, entity: String) -> [String] {
        var paths: [String] = []
        switch value {
        case nil, .null?: break
        case .string(let path)?: paths = [path]
        case .array(let list)? where list.allSatisfy({ $0.stringValue != nil }): paths = list.compactMap(\.stringValue)
        case let other?: problem(entity, name, "'key' must be a key path or an array of key paths, not \(other.typeName)")
        }
        for path in paths where path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            problem(entity, name, "key path '\(path)' has an empty component")
        }
        if !paths.contains(name) { paths.append(name) }
        return paths
    }

    static func defaultFits(_ value: JSONValue, _ type: AttributeType) -> Bool {
        switch type {
        case .string, .url, .uuid, .decimal, .date: value.stringValue != nil || (type == .decimal && value.doubleValue != nil)
        case .integer: value.int64Value != nil
        case .double: value.doubleValue != nil
        case .boolean: value.boolValue != nil
        case .data: value.stringValue.map { Data(base64Encoded: $0) != nil } ?? false
        case .json: true
        }
    }

    // MARK: - Checks

    /// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    private mutating func checkIdentifier(_ name: String, entity: String?, property: String?, what: String) {
        if !Self.isIdentifier(name) {
            problem(entity, property, "\(what) '\(name)' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)")
        } else if name.hasPrefix("_") {
            problem(entity, property, "\(what) '\(name)' starts with '_', which WebRecord reserves for its own columns")
        } else if name.lowercased().hasPrefix("sqlite_") {
            problem(entity, property, "\(what) '\(name)' starts with 'sqlite_', which SQLite reserves")
        }
    }

    private mutating func checkKeys(
        _ object: JSONObject, allowed: [String], entity: String?, property: String?, what: String
    ) {
        for key in object.keys where !allowed.contains(key) {
            problem(entity, property, "unknown \(what) key '\(key)'\(NameSuggestion.hint(for: key, in: allowed))")
        }
    }

    private mutating func string(_ value: JSONValue?, entity: String?, property: String?, key: String) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let string = value.stringValue, !string.isEmpty else {
            problem(entity, property, "'\(key)' must be a non-empty string, not \(value.typeName)")
            return nil
        }
        return string
    }

    private mutating func bool(_ value: JSONValue?, entity: String?, property: String?, key: String) -> Bool? {
        guard let value, !value.isNull else { return nil }
        guard let flag = value.boolValue else {
            problem(entity, property, "'\(key)' must be true or false, not \(value.typeName)")
            return nil
        }
        return flag
    }

    private mutating func problem(_ entity: String?, _ property: String?, _ message: String) {
        problems.append(SchemaProblem(file: file, entity: entity, property: property, message: message))
    }
}
