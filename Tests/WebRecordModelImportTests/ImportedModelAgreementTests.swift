import Foundation
import Testing
import WebRecordModelImport

@testable import WebRecord

/// The hand-written Schemas/*.json agree with the Core Data models they describe, as
/// converted by `CoreDataModelImporter` (what `webrecord import-model` prints).
@Suite struct ImportedModelAgreementTests {
    @Test(arguments: [("appnet", "AppNet"), ("foursquare", "Foursquare"), ("atlassian", "Atlassian")])
    func shippedSchemaAgreesWithTheImportedModel(model: String, schemaName: String) throws {
        let text = try CoreDataModelImporter.schemaJSON(contentsOf: fixtureURL("mmrecord/\(model)-model.xml"))
        let imported = try Schema(json: text, fileName: "\(model)-model.json")
        let shipped = try Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/\(schemaName).json"))
        #expect(Set(imported.entities.map(\.name)) == Set(shipped.entities.map(\.name)))
        for entity in imported.entities {
            let mine = try #require(shipped.entity(named: entity.name))
            #expect(mine.parentName == entity.parentName, "\(entity.name) parent")
            #expect(mine.primaryKey == entity.primaryKey, "\(entity.name) primary key")
            for attribute in entity.attributes {
                let counterpart = try #require(
                    mine.attribute(named: attribute.name), "\(entity.name).\(attribute.name)")
                #expect(counterpart.type == attribute.type, "\(entity.name).\(attribute.name) type")
            }
            for relationship in entity.relationships {
                let counterpart = try #require(
                    mine.relationship(named: relationship.name), "\(entity.name).\(relationship.name)")
                #expect(counterpart.destination == relationship.destination)
                #expect(counterpart.isToMany == relationship.isToMany)
                #expect(counterpart.isOrdered == relationship.isOrdered)
                #expect(counterpart.inverse == relationship.inverse)
            }
            // The shipped schema adds nothing the model lacks but mappings: same property names.
            #expect(Set(mine.attributes.map(\.name)) == Set(entity.attributes.map(\.name)), "\(entity.name) attributes")
            #expect(
                Set(mine.relationships.map(\.name)) == Set(entity.relationships.map(\.name)),
                "\(entity.name) relationships")
        }
    }

    @Test(arguments: ["appnet", "foursquare", "atlassian", "instagram", "twitter"])
    func everyImportedModelLintsClean(model: String) throws {
        let text = try CoreDataModelImporter.schemaJSON(contentsOf: fixtureURL("mmrecord/\(model)-model.xml"))
        let schema = try Schema(json: text, fileName: "\(model).json")
        #expect(!schema.entities.isEmpty)
    }
}
