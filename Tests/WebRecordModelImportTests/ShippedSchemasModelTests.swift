import Foundation
import Testing
import WebRecordModelImport

@testable import WebRecord

/// The schema files shipped in `Schemas/` say what MMRecord's Core Data models say, as
/// `CoreDataModelImporter` reads the models.
@Suite struct ShippedSchemasModelTests {
    /// A shipped schema and the MMRecord example it describes.
    enum Shipped: String, CaseIterable, Sendable {
        case appNet = "AppNet"
        case foursquare = "Foursquare"
        case atlassian = "Atlassian"

        var url: URL { packageRoot.appendingPathComponent("Schemas/\(rawValue).json") }
        var modelFixture: String { "mmrecord/\(rawValue.lowercased())-model.xml" }
    }

    static func load(_ shipped: Shipped) throws -> Schema {
        try Schema(contentsOf: shipped.url)
    }

    static func entity(_ name: String, in schema: Schema) throws -> Entity {
        try #require(schema.entity(named: name), "\(name) is declared")
    }

    /// Names, types, destinations, cardinality, order, inverses and primary keys are MMRecord's,
    /// as the Core Data model importer reads them from the example's model.
    @Test(arguments: Shipped.allCases)
    func matchesTheCoreDataModel(_ shipped: Shipped) throws {
        let schema = try Self.load(shipped)
        let imported = try JSONReader().read(
            CoreDataModelImporter.schemaJSON(contentsOf: fixtureURL(shipped.modelFixture)))
        let model = try #require(imported["entities"]?.objectValue)
        #expect(Set(schema.entities.map(\.name)) == Set(model.keys))
        for (name, declaration) in model {
            let entity = try Self.entity(name, in: schema)
            #expect(entity.parentName == declaration["parent"]?.stringValue, "\(name)'s parent")
            let modelKey = declaration["primaryKey"]?.stringValue
            if let modelKey {
                #expect(entity.primaryKey?.propertyNames == [modelKey], "\(name)'s primary key")
            }
            let attributes = try #require(declaration["attributes"]?.objectValue)
            let own = entity.attributes.filter { $0.entityName == name }
            #expect(Set(own.map(\.name)) == Set(attributes.keys), "\(name)'s attributes")
            for (attributeName, spec) in attributes {
                #expect(
                    entity.attribute(named: attributeName)?.type.rawValue == spec["type"]?.stringValue,
                    "\(name).\(attributeName)'s type")
            }
            let relationships = try #require(declaration["relationships"]?.objectValue)
            #expect(
                Set(entity.relationships.filter { $0.entityName == name }.map(\.name)) == Set(relationships.keys),
                "\(name)'s relationships")
            for (relationshipName, spec) in relationships {
                let relationship = try #require(entity.relationship(named: relationshipName))
                #expect(
                    relationship.destination == spec["destination"]?.stringValue,
                    "\(name).\(relationshipName)'s destination")
                #expect(
                    relationship.isToMany == (spec["toMany"]?.boolValue ?? false), "\(name).\(relationshipName) to-many"
                )
                #expect(
                    relationship.isOrdered == (spec["ordered"]?.boolValue ?? false),
                    "\(name).\(relationshipName) ordered")
                #expect(relationship.inverse == spec["inverse"]?.stringValue, "\(name).\(relationshipName)'s inverse")
            }
        }
    }

    /// Every alternate name in the model is a candidate key in the schema, except where the
    /// schema documents a better mapping.
    @Test(arguments: Shipped.allCases)
    func keepsTheModelsAlternateNames(_ shipped: Shipped) throws {
        let schema = try Self.load(shipped)
        let imported = try JSONReader().read(
            CoreDataModelImporter.schemaJSON(contentsOf: fixtureURL(shipped.modelFixture)))
        // Link.name read "id" and Link.key read "PrimaryKey", which the issue response does not have.
        let remapped: Set<String> = ["Link.name", "Link.key"]
        for (name, declaration) in try #require(imported["entities"]?.objectValue) {
            let entity = try Self.entity(name, in: schema)
            for group in ["attributes", "relationships"] {
                for (property, spec) in declaration[group]?.objectValue ?? [:] {
                    guard let key = spec["key"]?.stringValue, !remapped.contains("\(name).\(property)") else {
                        continue
                    }
                    let keyPaths =
                        entity.attribute(named: property)?.keyPaths ?? entity.relationship(named: property)?.keyPaths
                    #expect(keyPaths?.first == key, "\(name).\(property) reads '\(key)' first")
                }
            }
        }
    }
}
