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
    /// Where a detail response (one record, as ``Record/refresh(in:options:isolation:)`` asks
    /// for) holds the record; `""` for the response itself.
    var keyPathForDetailResponse: String?
    var discriminator: SubentityDiscriminator?
    /// The records of other entities that come with this one's in a response.
    var included: [IncludedRecords]?
    var attributes: [Attribute] = []
    var relationships: [Relationship] = []
    /// Properties declared but too broken to read (an unknown type, no destination). They are
    /// already reported; the resolver does not report them again as missing where they are used.
    var unreadableProperties: [String] = []
}

/// Reads the JSON of one schema file into entity declarations, noting every problem of shape.
///
/// Unknown keys are problems, so a misspelt option never passes silently.
struct SchemaFileReader {
    let file: String
    private(set) var problems: [WebRecordError] = []
    private(set) var dateFormats: [String] = []
    private(set) var entities: [EntityDeclaration] = []
    /// The file's `keyStyle`: how a property with no `key` maps to a response key.
    private(set) var keyStyle = KeyStyle.asIs

    static let topLevelKeys = ["version", "dateFormats", "keyStyle", "entities", "description"]
    static let entityKeys = [
        "primaryKey", "keyPathForResponseObject", "keyPathForDetailResponse", "parent", "abstract", "subentities",
        "included",
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
        let duplicates: [JSONDuplicateKey]
        do {
            (root, duplicates) = try JSONReader().readReportingDuplicateKeys(data)
        } catch {
            problems.append(
                WebRecordError.schemaProblem(
                    file: file, message: "malformed JSON: \(error.message)", line: error.line, column: error.column))
            return
        }
        for duplicate in duplicates {
            noteDuplicate(duplicate)
        }
        guard let top = root.objectValue else {
            problem(nil, nil, "the file must hold a JSON object, not \(Self.kind(of: root))")
            return
        }
        checkKeys(top, allowed: Self.topLevelKeys, entity: nil, property: nil, what: "schema")
        if let version = Self.nonNull(top["version"]) {
            switch version {
            case .integer, .double:
                if version.int64Value != 1 {
                    problem(nil, nil, "unsupported version \(version.serialized()); this WebRecord reads version 1")
                }
            default:
                problem(nil, nil, "'version' must be the number 1, not \(Self.kind(of: version))")
            }
        }
        if let formats = Self.nonNull(top["dateFormats"]) {
            if let list = formats.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
                dateFormats = list.compactMap(\.stringValue)
            } else {
                problem(nil, nil, "'dateFormats' must be an array of strings" + Self.notOrElement(formats))
            }
        }
        if let style = Self.nonNull(top["keyStyle"]) {
            if let name = style.stringValue, let known = KeyStyle(rawValue: name) {
                keyStyle = known
            } else {
                let names = KeyStyle.allCases.map(\.rawValue).joined(separator: " or ")
                let given = style.stringValue.map { "'\($0)'" } ?? Self.kind(of: style)
                problem(nil, nil, "'keyStyle' must be \(names), not \(given)")
            }
        }
        guard let entitiesValue = top["entities"] else {
            problem(nil, nil, "missing 'entities'")
            return
        }
        guard let entityObjects = entitiesValue.objectValue else {
            problem(
                nil, nil,
                "'entities' must be an object mapping entity names to entities, not \(Self.kind(of: entitiesValue))")
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
            problem(name, nil, "an entity must be an object, not \(Self.kind(of: value))")
            return
        }
        checkKeys(object, allowed: Self.entityKeys, entity: name, property: nil, what: "entity")
        var entity = EntityDeclaration(name: name, file: file)
        entity.parent = string(object["parent"], entity: name, property: nil, key: "parent")
        entity.isAbstract = bool(object["abstract"], entity: name, property: nil, key: "abstract") ?? false
        entity.keyPathForResponseObject = string(
            object["keyPathForResponseObject"], entity: name, property: nil, key: "keyPathForResponseObject")
        if let path = entity.keyPathForResponseObject {
            checkKeyPath(path, entity: name, property: nil, key: "keyPathForResponseObject")
        }
        // An empty key path is the response itself: the bare object most detail endpoints answer.
        if case .string("")? = object["keyPathForDetailResponse"] {
            entity.keyPathForDetailResponse = ""
        } else {
            entity.keyPathForDetailResponse = string(
                object["keyPathForDetailResponse"], entity: name, property: nil, key: "keyPathForDetailResponse")
            if let path = entity.keyPathForDetailResponse {
                checkKeyPath(path, entity: name, property: nil, key: "keyPathForDetailResponse")
            }
        }
        switch object["primaryKey"] {
        case nil, .null?:
            break
        case .string(let key)? where !key.isEmpty:
            entity.primaryKey = [key]
        case .array(let parts)? where !parts.isEmpty && parts.allSatisfy({ !($0.stringValue ?? "").isEmpty }):
            let names = parts.compactMap(\.stringValue)
            var seen = Set<String>()
            for part in names where !seen.insert(part).inserted {
                problem(name, part, "the primary key names '\(part)' twice")
            }
            entity.primaryKey = names
            entity.primaryKeyIsComposite = parts.count > 1
        case let other?:
            problem(
                name, nil,
                "'primaryKey' must be a property name or a non-empty array of names" + Self.notOrElement(other))
        }
        if let discriminator = Self.nonNull(object["subentities"]) {
            entity.discriminator = readDiscriminator(discriminator, entity: name)
        }
        if let included = Self.nonNull(object["included"]) {
            entity.included = readIncluded(included, entity: name)
        }
        if let attributes = Self.nonNull(object["attributes"]) {
            if let members = attributes.objectValue {
                for (attributeName, spec) in members {
                    if let attribute = readAttribute(attributeName, spec, entity: name) {
                        entity.attributes.append(attribute)
                    } else {
                        entity.unreadableProperties.append(attributeName)
                    }
                }
            } else {
                problem(name, nil, "'attributes' must be an object, not \(Self.kind(of: attributes))")
            }
        }
        if let relationships = Self.nonNull(object["relationships"]) {
            if let members = relationships.objectValue {
                for (relationshipName, spec) in members {
                    if let relationship = readRelationship(relationshipName, spec, entity: name) {
                        entity.relationships.append(relationship)
                    } else {
                        entity.unreadableProperties.append(relationshipName)
                    }
                }
            } else {
                problem(name, nil, "'relationships' must be an object, not \(Self.kind(of: relationships))")
            }
        }
        checkStyledKeys(of: entity)
        entities.append(entity)
    }

    private mutating func readDiscriminator(_ value: JSONValue, entity: String) -> SubentityDiscriminator? {
        guard let object = value.objectValue else {
            problem(
                entity, nil,
                "'subentities' must be an object with 'key' and 'map', or with 'present', not \(Self.kind(of: value))")
            return nil
        }
        checkKeys(object, allowed: ["key", "map", "present"], entity: entity, property: nil, what: "subentities")
        if object["present"] != nil, object["key"] != nil || object["map"] != nil {
            problem(entity, nil, "'subentities' takes either 'key' and 'map' or 'present', not both")
            return nil
        }
        if let present = object["present"] {
            guard let pairs = present.objectValue, pairs.allSatisfy({ $0.value.stringValue != nil }), !pairs.isEmpty
            else {
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
        checkKeyPath(key, entity: entity, property: nil, key: "subentities.key")
        var table: [String: String] = [:]
        for (value, target) in map { table[value] = target.stringValue }
        return .value(key: key, map: table)
    }

    /// `"included": [{"keyPath": "included", "entity": "Person"}, {"keyPath": "included", "key": "type",
    /// "map": {"people": "Person"}}]`: the records of other entities a response brings.
    private mutating func readIncluded(_ value: JSONValue, entity: String) -> [IncludedRecords] {
        guard let elements = value.arrayValue else {
            problem(entity, nil, "'included' must be an array of objects, not \(Self.kind(of: value))")
            return []
        }
        var result: [IncludedRecords] = []
        for (index, element) in elements.enumerated() {
            let what = "'included[\(index)]'"
            guard let object = element.objectValue else {
                problem(entity, nil, "\(what) must be an object, not \(Self.kind(of: element))")
                continue
            }
            checkKeys(object, allowed: ["keyPath", "entity", "key", "map"], entity: entity, property: nil, what: what)
            guard let keyPath = object["keyPath"]?.stringValue, !keyPath.isEmpty else {
                problem(entity, nil, "\(what) needs 'keyPath', the key path of the records in the response")
                continue
            }
            checkKeyPath(keyPath, entity: entity, property: nil, key: "included[\(index)].keyPath")
            if let target = object["entity"] {
                guard object["key"] == nil, object["map"] == nil else {
                    problem(entity, nil, "\(what) takes either 'entity' or 'key' and 'map', not both")
                    continue
                }
                guard let name = target.stringValue, !name.isEmpty else {
                    problem(entity, nil, "\(what).entity must be an entity name, not \(Self.kind(of: target))")
                    continue
                }
                result.append(.entity(name, at: keyPath))
                continue
            }
            guard let key = object["key"]?.stringValue, !key.isEmpty,
                let map = object["map"]?.objectValue, !map.isEmpty, map.allSatisfy({ $0.value.stringValue != nil })
            else {
                problem(
                    entity, nil,
                    "\(what) needs 'entity', or 'key' (a key path in each record) and 'map' (values to entity names)")
                continue
            }
            checkKeyPath(key, entity: entity, property: nil, key: "included[\(index)].key")
            var table: [String: String] = [:]
            for (value, target) in map { table[value] = target.stringValue }
            result.append(.routed(at: keyPath, by: key, table))
        }
        return result
    }

    // MARK: - Properties

    private mutating func readAttribute(_ name: String, _ value: JSONValue, entity: String) -> Attribute? {
        checkIdentifier(name, entity: entity, property: name, what: "attribute name")
        guard let object = value.objectValue else {
            problem(entity, name, "an attribute must be an object, not \(Self.kind(of: value))")
            return nil
        }
        checkKeys(object, allowed: Self.attributeKeys, entity: entity, property: name, what: "attribute")
        let typeNames = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
        guard let typeValue = object["type"], !typeValue.isNull else {
            problem(entity, name, "missing 'type' (one of \(typeNames))")
            return nil
        }
        guard let typeName = typeValue.stringValue, !typeName.isEmpty else {
            problem(entity, name, "'type' must be one of \(typeNames), not \(Self.kind(of: typeValue))")
            return nil
        }
        guard let type = AttributeType(rawValue: typeName) else {
            let suggestion =
                Self.coreDataTypeNames[typeName.lowercased()]
                ?? NameSuggestion.closest(to: typeName, in: AttributeType.allCases.map(\.rawValue))
            problem(entity, name, "unknown type '\(typeName)'\(suggestion.map { " (did you mean '\($0)'?)" } ?? "")")
            return nil
        }
        let attribute = Attribute(
            name: name, entityName: entity, type: type,
            keyPaths: keyPaths(object["key"], name: name, entity: entity),
            isOptional: bool(object["optional"], entity: entity, property: name, key: "optional") ?? true,
            defaultValue: Self.nonNull(object["default"]),
            isIndexed: bool(object["indexed"], entity: entity, property: name, key: "indexed") ?? false,
            dateFormat: string(object["dateFormat"], entity: entity, property: name, key: "dateFormat"),
            transformer: string(object["transformer"], entity: entity, property: name, key: "transformer"))
        if attribute.dateFormat != nil, type != .date {
            problem(entity, name, "'dateFormat' applies only to date attributes")
        }
        if let defaultValue = attribute.defaultValue, !defaultFits(defaultValue, attribute) {
            // A date says why it is not one (`a date (month 13 does not exist)`).
            let expected =
                type == .date
                ? ValueCoercion(dateFormats: dateFormats).refusal(
                    defaultValue, type: .date, dateFormat: attribute.dateFormat)
                : Self.valueDescription(of: type)
            problem(entity, name, "default \(defaultValue.serialized()) is not \(expected)")
        }
        return attribute
    }

    private mutating func readRelationship(_ name: String, _ value: JSONValue, entity: String) -> Relationship? {
        checkIdentifier(name, entity: entity, property: name, what: "relationship name")
        guard let object = value.objectValue else {
            problem(entity, name, "a relationship must be an object, not \(Self.kind(of: value))")
            return nil
        }
        checkKeys(object, allowed: Self.relationshipKeys, entity: entity, property: name, what: "relationship")
        guard let destinationValue = object["destination"], !destinationValue.isNull else {
            problem(entity, name, "missing 'destination'")
            return nil
        }
        guard let destination = destinationValue.stringValue, !destination.isEmpty else {
            problem(entity, name, "'destination' must be an entity name, not \(Self.kind(of: destinationValue))")
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
        var merge = Relationship.MergePolicy.replace
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

    /// Two properties of one entity whose names the file's key style turns into the same key
    /// (`avatarURL` and `avatarUrl`, `createdAt` and `created_at`): each would read the other's
    /// value where its own key is missing, so it is a problem.
    private mutating func checkStyledKeys(of entity: EntityDeclaration) {
        guard keyStyle != .asIs else { return }
        var owners: [String: String] = [:]
        for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
            let key = keyStyle.key(for: name)
            if let other = owners[key] {
                problem(
                    entity.name, name,
                    "its \(keyStyle.rawValue) key '\(key)' is also \(entity.name).\(other)'s; give one of them a 'key'")
            } else {
                owners[key] = name
            }
        }
    }

    /// `key` entries, then the name in the file's key style, then the name, without repeats.
    private mutating func keyPaths(_ value: JSONValue?, name: String, entity: String) -> [String] {
        var paths: [String] = []
        switch value {
        case nil, .null?: break
        case .string(let path)?: paths = [path]
        case .array(let list)? where list.allSatisfy({ $0.stringValue != nil }): paths = list.compactMap(\.stringValue)
        case let other?:
            problem(entity, name, "'key' must be a key path or an array of key paths" + Self.notOrElement(other))
        }
        for path in paths {
            checkKeyPath(path, entity: entity, property: name, key: "key")
        }
        let styled = keyStyle.key(for: name)
        if !paths.contains(styled) { paths.append(styled) }
        if !paths.contains(name) { paths.append(name) }
        return paths
    }

    /// The value unless it is absent or JSON null. (A bare `nil` in a closure returning
    /// `JSONValue` would be `JSONValue.null`, since JSONValue is nil-literal expressible.)
    static func nonNull(_ value: JSONValue?) -> JSONValue? {
        guard let value, !value.isNull else { return Optional<JSONValue>.none }
        return value
    }

    /// Whether a default is a value a response could carry for the attribute: it must pass the
    /// same coercion as response values (DESIGN §3.10), with the file's `dateFormats`.
    private func defaultFits(_ value: JSONValue, _ attribute: Attribute) -> Bool {
        guard let stored = ValueCoercion(dateFormats: dateFormats).storedValue(value, for: attribute) else {
            return false
        }
        return !stored.isNull
    }

    /// Core Data's attribute type names (and a few common spellings), mapped to WebRecord's,
    /// for the "did you mean" of an unknown type.
    static let coreDataTypeNames: [String: String] = [
        "integer 16": "integer", "integer 32": "integer", "integer 64": "integer", "int": "integer",
        "int16": "integer", "int32": "integer", "int64": "integer", "float": "double", "number": "double",
        "bool": "boolean", "binary": "data", "binary data": "data", "transformable": "json", "uri": "url",
        "str": "string", "text": "string",
    ]

    // MARK: - Checks

    /// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy {
            ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95
        }
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

    /// A key path is dot-separated and none of its components is empty.
    private mutating func checkKeyPath(_ path: String, entity: String?, property: String?, key: String) {
        if path.isEmpty {
            problem(entity, property, "'\(key)' must be a key path, not an empty string")
        } else if path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            problem(entity, property, "'\(key)' key path '\(path)' has an empty component")
        }
    }

    /// Reports a key written twice in one JSON object, which JSON readers resolve by keeping the last.
    private mutating func noteDuplicate(_ duplicate: JSONDuplicateKey) {
        let path = duplicate.path
        let place = "line \(duplicate.line), column \(duplicate.column)"
        var entity: String?
        var property: String?
        var message = "duplicate key '\(duplicate.key)' at \(place); only the last value would be used"
        if path.first == "entities" {
            if path.count == 1 {
                entity = duplicate.key
                message = "entity declared twice in this file (again at \(place))"
            } else {
                entity = path[1]
                if path.count == 3, path[2] == "attributes" || path[2] == "relationships" {
                    property = duplicate.key
                    message = "declared twice in '\(path[2])' (again at \(place))"
                } else if path.count >= 4, path[2] == "attributes" || path[2] == "relationships" {
                    property = path[3]
                }
            }
        }
        problems.append(
            WebRecordError.schemaProblem(
                file: file, entity: entity, property: property, message: message,
                line: entity == nil ? duplicate.line : nil, column: entity == nil ? duplicate.column : nil))
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
        guard let string = value.stringValue else {
            problem(entity, property, "'\(key)' must be a string, not \(Self.kind(of: value))")
            return nil
        }
        guard !string.isEmpty else {
            problem(entity, property, "'\(key)' must be a non-empty string")
            return nil
        }
        return string
    }

    private mutating func bool(_ value: JSONValue?, entity: String?, property: String?, key: String) -> Bool? {
        guard let value, !value.isNull else { return nil }
        guard let flag = value.boolValue else {
            problem(entity, property, "'\(key)' must be true or false, not \(Self.kind(of: value))")
            return nil
        }
        return flag
    }

    // MARK: - Wording

    /// What a value is, for a message: `a string`, `an empty string`, `a number`, `a boolean`,
    /// `an array`, `an empty array`, `an object` or `null`.
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double, .number: "a number"
        case .string(let text): text.isEmpty ? "an empty string" : "a string"
        case .array(let elements): elements.isEmpty ? "an empty array" : "an array"
        case .object: "an object"
        }
    }

    /// `, not a number` for a value that is not an array; for an array, which element is wrong:
    /// `; element 2 is a number` (the first that is not a string, else the first empty string).
    static func notOrElement(_ value: JSONValue) -> String {
        guard let elements = value.arrayValue, !elements.isEmpty else { return ", not \(kind(of: value))" }
        guard
            let index = elements.firstIndex(where: { $0.stringValue == nil })
                ?? elements.firstIndex(where: { $0.stringValue == "" })
        else { return "" }
        return "; element \(index + 1) is \(kind(of: elements[index]))"
    }

    /// What a valid default of an attribute type is: `an integer`, `base64 data`, `a UUID`...
    static func valueDescription(of type: AttributeType) -> String {
        switch type {
        case .string: "a string"
        case .integer: "an integer"
        case .double: "a number (finite, in a double's range)"
        case .decimal: "a decimal number of at most 38 significant digits"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "base64 data"
        case .uuid: "a UUID"
        case .url: "a URL"
        case .json: "JSON"
        }
    }

    private mutating func problem(_ entity: String?, _ property: String?, _ message: String) {
        problems.append(WebRecordError.schemaProblem(file: file, entity: entity, property: property, message: message))
    }
}
