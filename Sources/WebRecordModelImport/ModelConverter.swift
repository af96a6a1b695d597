import WebRecord

/// The userInfo key naming an entity's primary-key property.
private let primaryKeyUserInfoKey = "MMRecordEntityPrimaryAttributeKey"
/// The userInfo key giving a property's JSON name or key path.
private let alternateNameUserInfoKey = "MMRecordAttributeAlternateNameKey"

/// An entity's primary key as the model gives it.
enum ImportedPrimaryKey: Equatable {
    case single(String)
    case composite([String])

    var json: SchemaJSON {
        switch self {
        case .single(let name): .string(name)
        case .composite(let names): .array(names.map(SchemaJSON.string))
        }
    }
}

/// An entity as read from the model, before it is written out.
struct ImportedEntity {
    var name: String
    var parent: String?
    var isAbstract: Bool
    /// The key the model gives this entity itself, before inheritance is considered.
    var primaryKey: ImportedPrimaryKey?
    var attributes: [(String, SchemaJSON)]
    var relationships: [(String, SchemaJSON)]
}

extension AttributeType {
    /// The WebRecord type of a Core Data `attributeType`, or `nil` when there is none.
    init?(coreDataName: String) {
        switch coreDataName {
        case "Integer 16", "Integer 32", "Integer 64": self = .integer
        case "Float", "Double": self = .double
        case "Decimal": self = .decimal
        case "String": self = .string
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Binary": self = .data
        case "UUID": self = .uuid
        case "URI": self = .url
        case "Transformable": self = .json
        default: return nil
        }
    }
}

/// Turns the element tree of a Core Data model into the text of a schema file.
struct ModelConverter {
    /// How deep in the model's XML the conversion reads: `<model>`, `<entity>`, `<attribute>`
    /// or `<relationship>`, `<userInfo>`, `<entry>` (and `<compoundIndexes>`, `<compoundIndex>`,
    /// `<index>`; `<uniquenessConstraints>`, `<uniquenessConstraint>`, `<constraint>`).
    static let elementDepth = 5

    /// The model file, as named in errors.
    let file: String

    func error(_ message: String, at node: ModelXMLElement) -> WebRecordError {
        .at(node, file: file, message)
    }

    // MARK: Model

    func schemaText(for root: ModelXMLElement) throws(WebRecordError) -> String {
        guard root.name == "model" else {
            throw error("not a Core Data model: the root element is <\(root.name)>, not <model>", at: root)
        }
        var entities: [ImportedEntity] = []
        var byName: [String: ImportedEntity] = [:]
        for node in root.children(named: "entity") {
            let entity = try importEntity(node)
            guard byName[entity.name] == nil else {
                throw error("\(entity.name): the model declares this entity more than once", at: node)
            }
            byName[entity.name] = entity
            entities.append(entity)
        }

        var entityMembers: [(String, SchemaJSON)] = []
        for entity in entities {
            var members: [(String, SchemaJSON)] = []
            // A sub-entity inherits its parent's key: repeat it only when it differs.
            if let key = entity.primaryKey, key != inheritedPrimaryKey(of: entity, in: byName) {
                members.append(("primaryKey", key.json))
            }
            if let parent = entity.parent { members.append(("parent", .string(parent))) }
            if entity.isAbstract { members.append(("abstract", .bool(true))) }
            members.append(("attributes", .object(entity.attributes)))
            members.append(("relationships", .object(entity.relationships)))
            entityMembers.append((entity.name, .object(members)))
        }
        let document = SchemaJSON.object([("version", .integer(1)), ("entities", .object(entityMembers))])
        return document.prettyPrinted() + "\n"
    }

    /// The nearest ancestor's primary key, following `parentEntity` up the chain.
    func inheritedPrimaryKey(of entity: ImportedEntity, in byName: [String: ImportedEntity]) -> ImportedPrimaryKey? {
        var visited: Set<String> = [entity.name]
        var parentName = entity.parent
        while let name = parentName, visited.insert(name).inserted, let parent = byName[name] {
            if let key = parent.primaryKey { return key }
            parentName = parent.parent
        }
        return nil
    }

    // MARK: Entity

    func importEntity(_ node: ModelXMLElement) throws(WebRecordError) -> ImportedEntity {
        guard let name = nonEmpty(node.attribute("name")) else {
            throw error("an <entity> element has no name", at: node)
        }
        let userInfo = try self.userInfo(of: node, owner: name)
        let indexedNames = singlePropertyIndexes(of: node)
        var entity = ImportedEntity(
            name: name,
            parent: nonEmpty(node.attribute("parentEntity")),
            isAbstract: flag(node.attribute("isAbstract")),
            primaryKey: nonEmpty(userInfo[primaryKeyUserInfoKey]).map(ImportedPrimaryKey.single),
            attributes: [],
            relationships: [])

        var propertyNames: Set<String> = []
        var propertyLevelPrimaryKey: String?
        for child in node.children where child.name == "attribute" || child.name == "relationship" {
            guard let propertyName = nonEmpty(child.attribute("name")) else {
                throw error("\(name): an <\(child.name)> element has no name", at: child)
            }
            guard propertyNames.insert(propertyName).inserted else {
                throw error("\(name).\(propertyName): the entity declares this property more than once", at: child)
            }
            let propertyInfo = try self.userInfo(of: child, owner: "\(name).\(propertyName)")
            if child.name == "attribute" {
                let definition = try attribute(
                    child, named: propertyName, of: name, userInfo: propertyInfo,
                    indexed: indexedNames.contains(propertyName))
                entity.attributes.append((propertyName, definition))
            } else {
                let definition = try relationship(child, named: propertyName, of: name, userInfo: propertyInfo)
                entity.relationships.append((propertyName, definition))
            }
            if propertyLevelPrimaryKey == nil {
                propertyLevelPrimaryKey = nonEmpty(propertyInfo[primaryKeyUserInfoKey])
            }
        }
        // The entity's own userInfo wins; a property's copy of the key, then a single
        // uniqueness constraint, are only fallbacks.
        if entity.primaryKey == nil {
            entity.primaryKey =
                propertyLevelPrimaryKey.map(ImportedPrimaryKey.single) ?? uniquenessConstraintKey(of: node)
        }
        // A primary-key attribute keeps no default (Core Data's Integer 0): every record created
        // without a key would share it, and WebRecord's validator refuses that.
        let keyNames: [String]
        switch entity.primaryKey {
        case .single(let name)?: keyNames = [name]
        case .composite(let names)?: keyNames = names
        case nil: keyNames = []
        }
        entity.attributes = entity.attributes.map { name, definition in
            guard keyNames.contains(name), case .object(let members) = definition else { return (name, definition) }
            return (name, .object(members.filter { $0.0 != "default" }))
        }
        return entity
    }

    /// The entries of an element's `<userInfo>` children.
    func userInfo(of node: ModelXMLElement, owner: String) throws(WebRecordError) -> [String: String] {
        var entries: [String: String] = [:]
        for userInfo in node.children(named: "userInfo") {
            for entry in userInfo.children(named: "entry") {
                guard let key = entry.attribute("key") else {
                    throw error("\(owner): a userInfo <entry> has no key", at: entry)
                }
                entries[key] = entry.attribute("value") ?? ""
            }
        }
        return entries
    }

    /// Attributes indexed on their own, by a `<fetchIndex>` or an old-style `<compoundIndex>`.
    func singlePropertyIndexes(of node: ModelXMLElement) -> Set<String> {
        var names: Set<String> = []
        for index in node.children(named: "fetchIndex") {
            let elements = index.children(named: "fetchIndexElement")
            if elements.count == 1, let property = nonEmpty(elements[0].attribute("property")) {
                names.insert(property)
            }
        }
        for group in node.children(named: "compoundIndexes") {
            for index in group.children(named: "compoundIndex") {
                let elements = index.children(named: "index")
                if elements.count == 1, let property = nonEmpty(elements[0].attribute("value")) {
                    names.insert(property)
                }
            }
        }
        return names
    }

    /// The key given by the entity's only uniqueness constraint, if it has exactly one.
    func uniquenessConstraintKey(of node: ModelXMLElement) -> ImportedPrimaryKey? {
        let constraints = node.children(named: "uniquenessConstraints")
            .flatMap { $0.children(named: "uniquenessConstraint") }
        guard constraints.count == 1 else { return nil }
        let names = constraints[0].children(named: "constraint").compactMap { nonEmpty($0.attribute("value")) }
        switch names.count {
        case 0: return nil
        case 1: return .single(names[0])
        default: return .composite(names)
        }
    }

    // MARK: Properties

    func attribute(
        _ node: ModelXMLElement, named name: String, of entity: String,
        userInfo: [String: String], indexed: Bool
    ) throws(WebRecordError) -> SchemaJSON {
        guard let coreDataType = node.attribute("attributeType") else {
            throw error("\(entity).\(name): the attribute has no attributeType", at: node)
        }
        guard let type = AttributeType(coreDataName: coreDataType) else {
            throw error("\(entity).\(name): unsupported attributeType \"\(coreDataType)\"", at: node)
        }
        var members: [(String, SchemaJSON)] = [("type", .string(type.rawValue))]
        if let key = nonEmpty(userInfo[alternateNameUserInfoKey]) {
            members.append(("key", .string(key)))
        }
        if !flag(node.attribute("optional")) {
            members.append(("optional", .bool(false)))
        }
        if let text = node.attribute("defaultValueString"),
            let value = try defaultValue(text, type: type, property: "\(entity).\(name)", node: node)
        {
            members.append(("default", value))
        }
        if indexed || flag(node.attribute("indexed")) {
            members.append(("indexed", .bool(true)))
        }
        return .object(members)
    }

    /// The typed default for `defaultValueString`, or `nil` for types whose default is dropped.
    func defaultValue(
        _ text: String, type: AttributeType, property: String, node: ModelXMLElement
    ) throws(WebRecordError) -> SchemaJSON? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty && type != .string { return nil }
        switch type {
        case .string:
            return .string(text)
        case .integer:
            guard let value = Int64(trimmed) else {
                throw error("\(property): default value \"\(text)\" is not an integer", at: node)
            }
            return .integer(value)
        case .double, .decimal:
            guard let value = Double(trimmed), value.isFinite else {
                throw error("\(property): default value \"\(text)\" is not a number", at: node)
            }
            if type == .decimal, DecimalCoding.decimal(from: trimmed) == nil {
                // What the schema reader would refuse: say it here, where the model is named.
                throw error(
                    "\(property): default value \"\(text)\" is not a decimal number of at most 38 significant digits",
                    at: node)
            }
            // Keep the model's spelling ("0.0", "1.50") when it is already a JSON number. A
            // decimal written otherwise (".5", "+1.5") is respelled digit for digit: through a
            // double it would lose the digits past the 17th.
            if JSONNumberText.isJSONNumber(trimmed) { return .number(trimmed) }
            if type == .decimal, let spelled = Self.jsonSpelling(ofDecimal: trimmed) { return .number(spelled) }
            return .number("\(value)")
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return .bool(true)
            case "no", "false", "0": return .bool(false)
            default: throw error("\(property): default value \"\(text)\" is not a boolean", at: node)
            }
        case .date, .data, .uuid, .url, .json:
            return nil
        }
    }

    /// Whether `character` is an ASCII digit.
    private static func isDigit(_ character: Character) -> Bool { ("0"..."9").contains(character) }

    /// `text`, a decimal number as Core Data reads one (`.5`, `+1.5`, `007`, `5.`, `1.5E3`),
    /// spelled as a JSON number with the same digits; nil when it is not written that way.
    static func jsonSpelling(ofDecimal text: String) -> String? {
        var rest = Substring(text)
        var sign = ""
        if let first = rest.first, first == "+" || first == "-" {
            if first == "-" { sign = "-" }
            rest = rest.dropFirst()
        }
        var exponent = ""
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let power = rest[rest.index(after: e)...]
            let digits = power.first == "+" || power.first == "-" ? power.dropFirst() : power
            guard !digits.isEmpty, digits.allSatisfy(Self.isDigit) else { return nil }
            exponent = "e" + power
            rest = rest[..<e]
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.allSatisfy(Self.isDigit),
            fraction.allSatisfy(Self.isDigit)
        else { return nil }
        let integer = whole.drop { $0 == "0" }
        return sign + (integer.isEmpty ? "0" : String(integer)) + (fraction.isEmpty ? "" : "." + fraction) + exponent
    }

    func relationship(
        _ node: ModelXMLElement, named name: String, of entity: String, userInfo: [String: String]
    ) throws(WebRecordError) -> SchemaJSON {
        guard let destination = nonEmpty(node.attribute("destinationEntity")) else {
            throw error("\(entity).\(name): the relationship has no destinationEntity", at: node)
        }
        var members: [(String, SchemaJSON)] = [("destination", .string(destination))]
        if flag(node.attribute("toMany")) {
            members.append(("toMany", .bool(true)))
            if flag(node.attribute("ordered")) { members.append(("ordered", .bool(true))) }
            // MMRecord added to a to-many and never removed from it: say so, whatever the default.
            members.append(("merge", .string(Relationship.MergePolicy.union.rawValue)))
        } else if flag(node.attribute("ordered")) {
            members.append(("ordered", .bool(true)))
        }
        if let inverse = nonEmpty(node.attribute("inverseName")) { members.append(("inverse", .string(inverse))) }
        if let key = nonEmpty(userInfo[alternateNameUserInfoKey]) { members.append(("key", .string(key))) }
        switch node.attribute("deletionRule") {
        case nil, "Nullify", "No Action":
            break  // nullify is WebRecord's default; "No Action" has no equivalent
        case "Cascade":
            members.append(("deleteRule", .string(Relationship.DeleteRule.cascade.rawValue)))
        case "Deny":
            members.append(("deleteRule", .string(Relationship.DeleteRule.deny.rawValue)))
        case let rule?:
            throw error("\(entity).\(name): unknown deletionRule \"\(rule)\"", at: node)
        }
        return .object(members)
    }

    // MARK: Helpers

    func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// Core Data writes booleans as `YES`; absent means `NO`.
    func flag(_ value: String?) -> Bool {
        switch value?.lowercased() {
        case "yes", "true", "1": true
        default: false
        }
    }
}
