import Foundation
import Testing

@testable import WebRecord

/// A record whose sub-entity changes between the batches of a streamed population and changes
/// back keeps the to-one its sub-entity holds in its own row, as one batch keeps it: the batch
/// of the other sub-entity clears it, and the batch that switches back gives it back unless it
/// sets the relationship itself (Docs/Population.md, "Large responses").
@Suite struct StreamedSubentityLinksTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Animal": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "subentities": { "key": "kind", "map": { "dog": "Dog", "cat": "Cat" } },
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } }
            },
            "Dog": {
              "parent": "Animal",
              "relationships": { "walker": { "destination": "Person", "inverse": "dogs" } }
            },
            "Cat": {
              "parent": "Animal",
              "relationships": { "vet": { "destination": "Person", "inverse": "cats" } }
            },
            "Person": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": {
                "dogs": { "destination": "Dog", "toMany": true, "inverse": "walker", "merge": "union" },
                "cats": { "destination": "Cat", "toMany": true, "inverse": "vet", "merge": "union" }
              }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "SubentityLinks.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    @Test(arguments: [
        // A dog's walker, a cat, the dog again: the walker is back.
        (
            #"[]"#, #"[{"id": 1, "kind": "dog", "walker": "p1"}, {"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog"}]"#,
            "p1"
        ),
        // Stored as a dog with a walker: a cat, then the dog again, keeps it.
        (
            #"[{"id": 1, "kind": "dog", "walker": "p0"}]"#, #"[{"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog"}]"#,
            "p0"
        ),
        // Back as a dog with a walker of its own: that one.
        (
            #"[]"#,
            #"[{"id": 1, "kind": "dog", "walker": "p1"}, {"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog", "walker": "p3"}]"#,
            "p3"
        ),
        // Back as a dog whose walker is null: none.
        (
            #"[]"#,
            #"[{"id": 1, "kind": "dog", "walker": "p1"}, {"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog", "walker": null}]"#,
            nil
        ),
        // There and back twice.
        (
            #"[]"#,
            #"[{"id": 1, "kind": "dog", "walker": "p1"}, {"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog"}, {"id": 1, "kind": "cat"}, {"id": 2, "kind": "dog"}, {"id": 1, "kind": "dog"}]"#,
            "p1"
        ),
    ])
    func aDogThatIsACatInBetweenKeepsItsWalker(earlier: String, list: String, walker: String?) async throws {
        let text = #"{"data": \#(list)}"#
        let before = #"{"data": \#(earlier)}"#
        let whole = try await PopulatedStore.populating(
            text, after: before, schema: Self.schema, entity: "Animal", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        let store = try RecordStore(inMemory: Self.schema)
        _ = try await store.populate(try JSONReader().read(before), entity: "Animal")
        _ = try await store.populate(try JSONReader().read(text), entity: "Animal")
        let dog = try #require(try store.fetchOne("Animal", primaryKey: 1))
        let walked: Record? = dog.related("walker")
        #expect(walked?["id"] as String? == walker, "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                text, after: before, schema: Self.schema, entity: "Animal", batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }
}
