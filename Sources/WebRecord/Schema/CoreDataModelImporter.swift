import Foundation

/// Converts a Core Data model into a WebRecord schema file.
///
/// It reads the `contents` XML file inside an `.xcdatamodel` bundle, with
/// MMRecord's userInfo keys (`MMRecordEntityPrimaryAttributeKey` and
/// `MMRecordAttributeAlternateNameKey`), and writes the equivalent schema file as
/// JSON text. This is what `webrecord import-model` prints. Entities, attributes
/// and relationships keep the model's order. `Docs/ImportingCoreDataModels.md`
/// has the full mapping and lists what must be added by hand afterwards.
///
/// For example:
///
/// ```swift
/// let model = URL(fileURLWithPath: "AppNet.xcdatamodel/contents")
/// let json = try CoreDataModelImporter.schemaJSON(contentsOf: model)
/// try json.write(toFile: "Schemas/AppNet.json", atomically: true, encoding: .utf8)
/// ```
public enum CoreDataModelImporter {
    /// Converts the contents XML of a Core Data model into WebRecord schema JSON text.
    ///
    /// The text is pretty-printed with a 2-space indent and ends with a newline.
    ///
    /// For example:
    ///
    /// ```swift
    /// let json = try CoreDataModelImporter.schemaJSON(fromModelXML: data, fileName: "AppNet.xcdatamodel/contents")
    /// ```
    ///
    /// - Parameters:
    ///   - data: The UTF-8 XML of the model (the `contents` file of an `.xcdatamodel`).
    ///   - fileName: The name used for the file in error messages.
    /// - Returns: The schema file's text.
    /// - Throws: `CoreDataModelImportError` when the data is empty or binary, the XML is malformed, the root element is not
    ///   `<model>`, a name is missing or used twice, or an attribute type, default value or
    ///   deletion rule has no WebRecord equivalent.
    public static func schemaJSON(fromModelXML data: Data, fileName: String) throws -> String {
        if data.isEmpty { throw CoreDataModelImportError.notAModel(file: fileName, "the file is empty") }
        if data.contains(0) || String(bytes: data, encoding: .utf8) == nil {
            throw CoreDataModelImportError.notAModel(file: fileName, "the file is binary, not UTF-8 XML text")
        }
        let tree: XMLElementTree
        do {
            tree = try XMLElementTree(parsing: data)
        } catch {
            throw CoreDataModelImportError.malformedXML(file: fileName, error)
        }
        let converter = ModelConverter(file: fileName)
        return try converter.schemaText(for: tree.root)
    }

    /// Reads a Core Data model file and converts it into WebRecord schema JSON text.
    ///
    /// The URL may name the `contents` file itself or the `.xcdatamodel` directory that holds it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let json = try CoreDataModelImporter.schemaJSON(contentsOf: URL(fileURLWithPath: "AppNet.xcdatamodel"))
    /// ```
    ///
    /// - Parameter url: A file URL of the model's `contents` file or of its `.xcdatamodel` directory.
    /// - Returns: The schema file's text, pretty-printed with a 2-space indent and a trailing newline.
    /// - Throws: `CoreDataModelImportError` when the file cannot be read (it is missing, is a
    ///   directory with no `contents` file, or may not be read) or cannot be converted; see
    ///   `schemaJSON(fromModelXML:fileName:)`.
    public static func schemaJSON(contentsOf url: URL) throws -> String {
        guard url.isFileURL else {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw CoreDataModelImportError.unreadable(file: url.absoluteString, reason: error.localizedDescription)
            }
            return try schemaJSON(fromModelXML: data, fileName: url.absoluteString)
        }
        var fileURL = url
        if isDirectory(url.path) {
            fileURL = url.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: fileURL.path) else {
                throw CoreDataModelImportError.unreadable(
                    file: url.relativePath,
                    reason: "it is a directory with no 'contents' file; give an .xcdatamodel directory or its contents file")
            }
        }
        let fileName = fileURL.relativePath
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw CoreDataModelImportError.unreadable(file: fileName, reason: "no such file")
        }
        if isDirectory(fileURL.path) {
            throw CoreDataModelImportError.unreadable(file: fileName, reason: "it is a directory, not a file")
        }
        guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw CoreDataModelImportError.unreadable(file: fileName, reason: "permission denied")
        }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw CoreDataModelImportError.unreadable(file: fileName, reason: error.localizedDescription)
        }
        return try schemaJSON(fromModelXML: data, fileName: fileName)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

// MARK: - Error

/// Why a Core Data model could not be converted into a schema file.
///
/// Its `description` reads `FILE:LINE:COLUMN: message` (or `FILE: message` when there is no
/// location), and a message about a property starts with `Entity.property:`.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try CoreDataModelImporter.schemaJSON(contentsOf: url)
/// } catch let error as CoreDataModelImportError {
///     print(error)   // Model/contents:12:9: Post.date: unsupported attributeType "Undefined"
/// }
/// ```
public struct CoreDataModelImportError: Error, Sendable, CustomStringConvertible {
    /// The model file, as it was named to the importer.
    public var file: String
    /// The 1-based line of the problem in the model file, when known.
    public var line: Int?
    /// The 1-based column of the problem in the model file, when known.
    public var column: Int?
    /// What is wrong, starting with `Entity.property:` when it concerns one property.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - file: The model file.
    ///   - line: The 1-based line of the problem, if known.
    ///   - column: The 1-based column of the problem, if known.
    ///   - message: What is wrong.
    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `FILE:LINE:COLUMN: message`, or `FILE: message` when the location is unknown.
    public var description: String {
        switch (line, column) {
        case let (line?, column?): "\(file):\(line):\(column): \(message)"
        case let (line?, nil): "\(file):\(line): \(message)"
        default: "\(file): \(message)"
        }
    }
}

extension CoreDataModelImportError {
    static func unreadable(file: String, reason: String) -> Self {
        Self(file: file, message: "cannot read the model: \(reason)")
    }

    static func notAModel(file: String, _ reason: String) -> Self {
        Self(file: file, message: "not a Core Data model: \(reason); expected the contents XML of an .xcdatamodel")
    }

    static func malformedXML(file: String, _ error: XMLParseError) -> Self {
        Self(file: file, line: error.line, column: error.column, message: "malformed XML: \(error.message)")
    }

    static func at(_ node: XMLElementNode, file: String, _ message: String) -> Self {
        Self(file: file, line: node.line, column: node.column, message: message)
    }
}

// MARK: - Conversion

/// The userInfo key naming an entity's primary-key property.
private let primaryKeyUserInfoKey = "MMRecordEntityPrimaryAttributeKey"
/// The userInfo key giving a property's JSON name or key path.
private let alternateNameUserInfoKey = "MMRecordAttributeAlternateNameKey"

private enum ImportedPrimaryKey: Equatable {
    case single(String)
    case composite([String])

    var json: SchemaJSON {
        switch self {
        case .single(let name): .string(name)
        case .composite(let names): .array(names.map(SchemaJSON.string))
        }
    }
}

private struct ImportedEntity {
    var name: String
    var parent: String?
    var isAbstract: Bool
    /// The key the model gives this entity itself, before inheritance is considered.
    var primaryKey: ImportedPrimaryKey?
    var attributes: [(String, SchemaJSON)]
    var relationships: [(String, SchemaJSON)]
}

/// The WebRecord attribute types, with Core Data's `attributeType` names mapped onto them.
private enum ImportedAttributeType: String {
    case string, integer, double, decimal, boolean, date, data, uuid, url, json

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

private struct ModelConverter {
    let file: String

    func error(_ message: String, at node: XMLElementNode) -> CoreDataModelImportError {
        .at(node, file: file, message)
    }

    // MARK: Model

    func schemaText(for root: XMLElementNode) throws -> String {
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

    func importEntity(_ node: XMLElementNode) throws -> ImportedEntity {
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
            entity.primaryKey = propertyLevelPrimaryKey.map(ImportedPrimaryKey.single) ?? uniquenessConstraintKey(of: node)
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
    func userInfo(of node: XMLElementNode, owner: String) throws -> [String: String] {
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
    func singlePropertyIndexes(of node: XMLElementNode) -> Set<String> {
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
    func uniquenessConstraintKey(of node: XMLElementNode) -> ImportedPrimaryKey? {
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
        _ node: XMLElementNode, named name: String, of entity: String,
        userInfo: [String: String], indexed: Bool
    ) throws -> SchemaJSON {
        guard let coreDataType = node.attribute("attributeType") else {
            throw error("\(entity).\(name): the attribute has no attributeType", at: node)
        }
        guard let type = ImportedAttributeType(coreDataName: coreDataType) else {
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
           let value = try defaultValue(text, type: type, property: "\(entity).\(name)", node: node) {
            members.append(("default", value))
        }
        if indexed || flag(node.attribute("indexed")) {
            members.append(("indexed", .bool(true)))
        }
        return .object(members)
    }

    /// The typed default for `defaultValueString`, or `nil` for types whose default is dropped.
    func defaultValue(
        _ text: String, type: ImportedAttributeType, property: String, node: XMLElementNode
    ) throws -> SchemaJSON? {
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
            // Keep the model's spelling ("0.0", "1.50") when it is already a JSON number.
            return .number(JSONNumberText.isJSONNumber(trimmed) ? trimmed : "\(value)")
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

    func relationship(
        _ node: XMLElementNode, named name: String, of entity: String, userInfo: [String: String]
    ) throws -> SchemaJSON {
        guard let destination = nonEmpty(node.attribute("destinationEntity")) else {
            throw error("\(entity).\(name): the relationship has no destinationEntity", at: node)
        }
        var members: [(String, SchemaJSON)] = [("destination", .string(destination))]
        if flag(node.attribute("toMany")) {
            members.append(("toMany", .bool(true)))
            if flag(node.attribute("ordered")) { members.append(("ordered", .bool(true))) }
            // MMRecord added to a to-many and never removed from it: say so, whatever the default.
            members.append(("merge", .string("union")))
        } else if flag(node.attribute("ordered")) {
            members.append(("ordered", .bool(true)))
        }
        if let inverse = nonEmpty(node.attribute("inverseName")) { members.append(("inverse", .string(inverse))) }
        if let key = nonEmpty(userInfo[alternateNameUserInfoKey]) { members.append(("key", .string(key))) }
        switch node.attribute("deletionRule") {
        case nil, "Nullify", "No Action":
            break  // nullify is WebRecord's default; "No Action" has no equivalent
        case "Cascade":
            members.append(("deleteRule", .string("cascade")))
        case "Deny":
            members.append(("deleteRule", .string("deny")))
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

// MARK: - JSON output

/// A JSON value as the importer writes it: object members keep their order.
private indirect enum SchemaJSON {
    case string(String)
    case integer(Int64)
    /// A number already spelled as valid JSON.
    case number(String)
    case bool(Bool)
    case array([SchemaJSON])
    case object([(String, SchemaJSON)])

    var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// Pretty-printed text with a 2-space indent. An object or array that holds only
    /// scalars stays on one line: `{ "type": "date", "key": "created_at" }`.
    func prettyPrinted() -> String {
        var output = ""
        write(to: &output, indent: 0)
        return output
    }

    func write(to output: inout String, indent: Int) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .integer(let value): output += String(value)
        case .number(let text): output += text
        case .bool(let value): output += value ? "true" : "false"
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
            } else if elements.allSatisfy(\.isScalar) {
                output += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { output += ", " }
                    element.write(to: &output, indent: indent)
                }
                output += "]"
            } else {
                let padding = String(repeating: " ", count: indent + 2)
                output += "[\n"
                for (index, element) in elements.enumerated() {
                    output += padding
                    element.write(to: &output, indent: indent + 2)
                    output += index + 1 < elements.count ? ",\n" : "\n"
                }
                output += String(repeating: " ", count: indent) + "]"
            }
        case .object(let members):
            if members.isEmpty {
                output += "{}"
            } else if members.allSatisfy({ $0.1.isScalar }) {
                output += "{ "
                for (index, (key, value)) in members.enumerated() {
                    if index > 0 { output += ", " }
                    Self.writeString(key, to: &output)
                    output += ": "
                    value.write(to: &output, indent: indent)
                }
                output += " }"
            } else {
                let padding = String(repeating: " ", count: indent + 2)
                output += "{\n"
                for (index, (key, value)) in members.enumerated() {
                    output += padding
                    Self.writeString(key, to: &output)
                    output += ": "
                    value.write(to: &output, indent: indent + 2)
                    output += index + 1 < members.count ? ",\n" : "\n"
                }
                output += String(repeating: " ", count: indent) + "}"
            }
        }
    }

    static func writeString(_ value: String, to output: inout String) {
        var bytes: [UInt8] = []
        JSONTextWriter.appendString(value, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }
}
