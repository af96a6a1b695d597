import Foundation
import WebRecord

/// Writes Swift record classes for a schema: `webrecord generate-swift` (Docs/Records.md,
/// "Generated classes").
///
/// Each entity gets a `Record` subclass with an accessor per attribute it declares and one
/// per relationship, typed by the schema: a sub-entity's class is a subclass of its parent's.
/// A namespace enum lists every class and registers them on a store.
struct SwiftGenerator {
    /// The access level of the generated declarations.
    enum Access: String, CaseIterable {
        case `internal`
        case `public`
    }

    /// A generated source file.
    struct File: Equatable {
        /// The file's name: the class's name, or the namespace's, with `.swift`.
        var name: String
        var text: String
    }

    let schema: Schema
    let access: Access
    /// The class that root entities' classes inherit from: `Record`, or a user's subclass of it.
    let baseClass: String?
    /// The base names of the schema files, for headers and the namespace's name.
    let schemaFiles: [String]
    /// The names the classes get, by entity name.
    private let classNames: [String: String]
    /// The namespace enum's name: the schema files' names in upper camel case, then `Records`.
    let namespace: String
    /// The qualified spelling of each library type the generated code names, where an entity's
    /// class or the base class would otherwise shadow it (`Foundation.Date` when an entity, or
    /// the class given with `--base-class`, is named `Date`).
    private let typeSpelling: [String: String]

    /// Whether `name` is the name of a class this generator writes (or its namespace's).
    func generates(_ name: String) -> Bool {
        classNames.values.contains(name) || namespace == name
    }

    init(schema: Schema, schemaFiles: [String], access: Access, baseClass: String?) {
        self.schema = schema
        self.access = access
        self.baseClass = baseClass
        self.schemaFiles = schemaFiles
        var used: Set<String> = []
        var names: [String: String] = [:]
        for entity in schema.entities {
            var name = SwiftNaming.identifier(for: entity.name, upper: true) ?? "Entity"
            if SwiftNaming.keywords.contains(name) || SwiftNaming.reservedMemberNames.contains(name)
                || SwiftNaming.moduleNames.contains(name)
            {
                name += "Record"
            }
            names[entity.name] = Self.unique(name, in: &used)
        }
        classNames = names
        let stem = schemaFiles.compactMap { SwiftNaming.identifier(for: $0, upper: true) }.joined()
        namespace = Self.unique((stem.isEmpty ? "Schema" : stem) + "Records", in: &used)
        var spelling: [String: String] = [:]
        for (module, types) in Self.libraryTypes {
            // Shadowed by a class the generator writes, or by the user's base class.
            for type in types {
                spelling[type] = used.contains(type) || baseClass == type ? "\(module).\(type)" : type
            }
        }
        typeSpelling = spelling
    }

    /// The library types generated code may name, by module.
    private static let libraryTypes: [(String, [String])] = [
        ("Swift", ["String", "Int64", "Double", "Bool"]),
        ("Foundation", ["Date", "Data", "Decimal", "URL", "UUID"]),
        ("WebRecord", ["Record", "RecordStore", "JSONValue"]),
    ]

    /// `name`, or `name2`, `name3`… when it is taken.
    private static func unique(_ name: String, in used: inout Set<String>) -> String {
        var candidate = name
        var number = 2
        while used.contains(candidate) {
            candidate = "\(name)\(number)"
            number += 1
        }
        used.insert(candidate)
        return candidate
    }

    private func type(_ name: String) -> String { typeSpelling[name] ?? name }

    // MARK: - Files

    /// One file per entity, in schema order, then the namespace's file.
    func files() -> [File] {
        var files = schema.entities.map { entity in
            File(
                name: className(entity) + ".swift",
                text: header("the record class of the entity \(entity.name)", imports: imports([entity]))
                    + "\n" + classDeclaration(entity))
        }
        files.append(
            File(
                name: namespace + ".swift",
                text: header("the registration of the record classes", imports: ["WebRecord"]) + "\n"
                    + namespaceDeclaration()))
        return files
    }

    /// Every class and the namespace in one file, for standard output.
    func singleFile() -> String {
        let declarations = schema.entities.map(classDeclaration) + [namespaceDeclaration()]
        return header("the record classes", imports: imports(schema.entities)) + "\n"
            + declarations.joined(separator: "\n")
    }

    /// The command line that writes what this generator writes, with the schemas' base names.
    var commandLine: String {
        var parts = ["\(Tool.name) generate-swift"]
        if access != .internal { parts.append("--access \(access.rawValue)") }
        if let baseClass { parts.append("--base-class \(baseClass)") }
        return (parts + schemaFiles.map { $0 + ".json" }).joined(separator: " ")
    }

    private func header(_ subject: String, imports: [String]) -> String {
        let from = schemaFiles.map { $0 + ".json" }.joined(separator: ", ")
        var text = "// Generated from \(from): \(subject).\n"
        text += "// Written by `\(commandLine)`.\n"
        text += "// Do not edit: change the schema and generate it again.\n\n"
        for module in imports { text += "import \(module)\n" }
        return text
    }

    /// The modules a file needs: Foundation when an accessor's type is one of its.
    private func imports(_ entities: [Entity]) -> [String] {
        let foundation: Set<AttributeType> = [.date, .data, .decimal, .url, .uuid]
        let needsFoundation = entities.contains { entity in
            declaredAttributes(of: entity).contains { foundation.contains($0.type) }
        }
        return needsFoundation ? ["Foundation", "WebRecord"] : ["WebRecord"]
    }

    // MARK: - Declarations

    func className(_ entity: Entity) -> String { classNames[entity.name] ?? entity.name }

    private var publicPrefix: String { access == .public ? "public " : "" }

    private func classDeclaration(_ entity: Entity) -> String {
        let parent = entity.parentName.flatMap(schema.entity(named:))
        let superclass = parent.map(className) ?? baseClass ?? type("Record")
        let hasSubentities = schema.entities.contains { $0.parentName == entity.name }
        let classKeyword: String
        switch (access, hasSubentities) {
        case (.public, true): classKeyword = "open class"
        case (.public, false): classKeyword = "public final class"
        case (.internal, true): classKeyword = "class"
        case (.internal, false): classKeyword = "final class"
        }
        var lines = documentation(classSummary(entity), indent: "")
        lines.append("\(classKeyword) \(className(entity)): \(superclass) {")
        lines.append(
            "    override \(publicPrefix)class var entityName: \(type("String")) { \(literal(entity.name)) }")
        let properties = propertyNames(for: entity)
        for attribute in declaredAttributes(of: entity) {
            lines.append("")
            lines += attributeAccessor(attribute, of: entity, named: properties[attribute.name] ?? attribute.name)
        }
        for relationship in declaredRelationships(of: entity) {
            lines.append("")
            lines += relationshipAccessor(
                relationship, of: entity, named: properties[relationship.name] ?? relationship.name)
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func classSummary(_ entity: Entity) -> String {
        var text = "A record of the entity `\(entity.name)`"
        if let parent = entity.parentName { text += ", a kind of `\(parent)`" }
        switch entity.primaryKey {
        case .attribute(let name)?: text += ", identified by its `\(name)`"
        case .composite(let names)?: text += ", identified by " + names.map { "`\($0)`" }.joined(separator: " and ")
        case .relationship(let name)?: text += ", identified by its `\(name)`"
        case nil: text += ", with no primary key"
        }
        text += "."
        if entity.isAbstract { text += " Abstract: its records are of its sub-entities." }
        return text
    }

    private func declaredAttributes(of entity: Entity) -> [Attribute] {
        let inherited = Set(entity.parentName.flatMap(schema.entity(named:))?.attributes.map(\.name) ?? [])
        return entity.attributes.filter { !inherited.contains($0.name) }
    }

    private func declaredRelationships(of entity: Entity) -> [Relationship] {
        let inherited = Set(entity.parentName.flatMap(schema.entity(named:))?.relationships.map(\.name) ?? [])
        return entity.relationships.filter { !inherited.contains($0.name) }
    }

    /// The Swift name of every property an entity declares, by schema name, told apart from the
    /// names its ancestors' classes already use.
    private func propertyNames(for entity: Entity) -> [String: String] {
        var used: Set<String> = []
        var ancestors: [Entity] = []
        var next = entity.parentName.flatMap(schema.entity(named:))
        while let ancestor = next {
            ancestors.insert(ancestor, at: 0)
            next = ancestor.parentName.flatMap(schema.entity(named:))
        }
        var names: [String: String] = [:]
        for owner in ancestors + [entity] {
            let attributes = declaredAttributes(of: owner).map { ($0.name, "Attribute") }
            let relationships = declaredRelationships(of: owner).map { ($0.name, "Relationship") }
            for (name, suffix) in attributes + relationships {
                var swiftName = SwiftNaming.identifier(for: name, upper: false) ?? "property"
                if SwiftNaming.recordMemberNames.contains(swiftName)
                    || SwiftNaming.reservedMemberNames.contains(swiftName)
                {
                    swiftName += suffix
                }
                let unique = Self.unique(swiftName, in: &used)
                if owner.name == entity.name { names[name] = unique }
            }
        }
        return names
    }

    private func attributeAccessor(_ attribute: Attribute, of entity: Entity, named name: String) -> [String] {
        let swiftType = type(Self.swiftTypeName(attribute.type))
        let keyRole: String? =
            switch entity.primaryKey {
            case .attribute(let key)? where key == attribute.name: "the primary key"
            case .composite(let keys)? where keys.contains(attribute.name): "part of the primary key"
            default: nil
            }
        let isKey = keyRole != nil
        var summary = "The `\(attribute.name)` attribute, \(Self.typeDescription(attribute.type))"
        if let keyRole {
            summary += ": \(keyRole), which every record has."
        } else if !attribute.isOptional {
            summary += ", required in the schema, yet nil on a record stored before the attribute was added"
            summary +=
                attribute.defaultValue == nil ? " and on a stub made from a reference, until its data arrives." : "."
        } else {
            summary += "."
        }
        summary += renaming(attribute.name, to: name)
        var lines = documentation(summary, indent: "    ")
        let declared = SwiftNaming.declared(name)
        if isKey {
            lines += accessor("\(declared): \(swiftType)", "self[primaryKey: \(literal(attribute.name))]")
        } else {
            lines += accessor("\(declared): \(swiftType)?", "self[\(literal(attribute.name))]")
        }
        return lines
    }

    private func relationshipAccessor(_ relationship: Relationship, of entity: Entity, named name: String)
        -> [String]
    {
        let destination = schema.entity(named: relationship.destination).map(className) ?? type("Record")
        var summary = "The `\(relationship.name)` relationship, to "
        summary +=
            relationship.isToMany ? "many `\(relationship.destination)` records" : "one `\(relationship.destination)`"
        if relationship.isToMany, relationship.isOrdered { summary += " in order" }
        if let inverse = relationship.inverse { summary += "; its inverse is `\(inverse)`" }
        summary += "."
        if case .relationship(let key)? = entity.primaryKey, key == relationship.name {
            summary += " It is the primary key."
        }
        summary += renaming(relationship.name, to: name)
        var lines = documentation(summary, indent: "    ")
        let declared = SwiftNaming.declared(name)
        if relationship.isToMany {
            lines += accessor("\(declared): [\(destination)]", "relatedRecords(\(literal(relationship.name)))")
        } else {
            lines += accessor("\(declared): \(destination)?", "related(\(literal(relationship.name)))")
        }
        return lines
    }

    /// A computed property on one line, or on three when one would pass 120 columns.
    private func accessor(_ declaration: String, _ body: String) -> [String] {
        let line = "    \(publicPrefix)var \(declaration) { \(body) }"
        if line.count <= 120 { return [line] }
        return ["    \(publicPrefix)var \(declaration) {", "        \(body)", "    }"]
    }

    /// The doc comment's note on a renamed or escaped property.
    private func renaming(_ schemaName: String, to swiftName: String) -> String {
        if SwiftNaming.keywords.contains(swiftName) {
            return " Escaped with backticks: `\(swiftName)` is a Swift keyword."
        }
        guard let plain = SwiftNaming.identifier(for: schemaName, upper: false), plain != swiftName else { return "" }
        if SwiftNaming.recordMemberNames.contains(plain) {
            return " Named `\(swiftName)`: `\(plain)` is a member of `Record`."
        }
        if SwiftNaming.reservedMemberNames.contains(plain) {
            return " Named `\(swiftName)`: `\(plain)` after a dot means something else in Swift."
        }
        return " Named `\(swiftName)`: `\(plain)` is taken by another property."
    }

    /// An attribute type in prose: `an integer`, `a URL`.
    static func typeDescription(_ type: AttributeType) -> String {
        switch type {
        case .integer: "an integer"
        case .uuid: "a UUID"
        case .url: "a URL"
        case .json: "any JSON value"
        case .data: "bytes"
        default: "a \(type.rawValue)"
        }
    }

    /// The Swift type an attribute is read as.
    static func swiftTypeName(_ type: AttributeType) -> String {
        switch type {
        case .string: "String"
        case .integer: "Int64"
        case .double: "Double"
        case .decimal: "Decimal"
        case .boolean: "Bool"
        case .date: "Date"
        case .data: "Data"
        case .uuid: "UUID"
        case .url: "URL"
        case .json: "JSONValue"
        }
    }

    private func namespaceDeclaration() -> String {
        let files = schemaFiles.map { $0 + ".json" }.joined(separator: ", ")
        var lines = documentation("The record classes generated from \(files).", indent: "")
        lines.append("\(publicPrefix)enum \(namespace) {")
        lines += documentation("Every generated class, each parent before its sub-entities.", indent: "    ")
        let ordered = parentsFirst(schema.entities)
        lines.append("    \(publicPrefix)static var classes: [\(type("Record")).Type] {")
        lines.append("        [")
        for entity in ordered { lines.append("            \(className(entity)).self,") }
        lines.append("        ]")
        lines.append("    }")
        lines.append("")
        lines += documentation(
            "Registers every generated class on `store` for its entity, so that the store makes its records of them.",
            indent: "    ")
        lines.append("    \(publicPrefix)static func register(on store: \(type("RecordStore"))) {")
        lines.append("        for recordClass in classes {")
        lines.append("            store.register(recordClass: recordClass)")
        lines.append("        }")
        lines.append("    }")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The entities with each parent before its sub-entities, otherwise in schema order.
    private func parentsFirst(_ entities: [Entity]) -> [Entity] {
        var placed: Set<String> = []
        var result: [Entity] = []
        func place(_ entity: Entity) {
            guard !placed.contains(entity.name) else { return }
            if let parent = entity.parentName.flatMap(schema.entity(named:)) { place(parent) }
            placed.insert(entity.name)
            result.append(entity)
        }
        entities.forEach(place)
        return result
    }

    // MARK: - Text

    /// A Swift string literal for `text`.
    private func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `text` as `///` lines of at most 120 columns.
    private func documentation(_ text: String, indent: String) -> [String] {
        let width = 120 - indent.count - 4
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { "\(indent)/// \($0)" }
    }
}
