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
              "attributes": { "id": { "type": "string" }, "name": { "type": "string", "optional": false } },
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
        // Back as a dog whose walker is a person that is not stored (no name): the walker it had.
        (
            #"[{"id": 1, "kind": "dog", "walker": {"id": "p0", "name": "N"}}]"#,
            #"[{"id": 1, "kind": "cat"}, {"id": 1, "kind": "dog", "walker": {"id": "p9"}}]"#, "p0"
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

/// A record whose sub-entity changes between the batches of a streamed population and changes
/// back, where the switch cleared a relationship kept in other rows (a to-many, join rows, a
/// to-one whose key the destination holds) or a one-to-one kept in its row: one batch keeps
/// it, and other records may claim its members in between, so the batches cannot give it back
/// in turn. The stream is read again whole and ends as the whole response; a stream that cannot
/// be read again is refused, saying why, and writes nothing. Where the switch cleared nothing,
/// or the later batch sets the relationship as a later occurrence replaces it, nothing is read
/// again (Docs/Population.md, "Large responses").
@Suite struct StreamedSubentityListsTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Shape": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
              "attributes": { "id": { "type": "integer" } }
            },
            "Circle": {
              "parent": "Shape",
              "relationships": {
                "marks": { "destination": "Mark", "toMany": true, "inverse": "circle" },
                "tags": { "destination": "Tag", "toMany": true, "inverse": "circles" },
                "badge": { "destination": "Badge", "inverse": "circle" },
                "pins": { "destination": "Pin", "toMany": true, "inverse": "circle", "merge": "union" }
              }
            },
            "Square": { "parent": "Shape", "attributes": { "side": { "type": "double" } } },
            "Mark": {
              "primaryKey": "id", "attributes": { "id": { "type": "string" } },
              "relationships": { "circle": { "destination": "Circle", "inverse": "marks" } }
            },
            "Pin": {
              "primaryKey": "id", "attributes": { "id": { "type": "string" } },
              "relationships": { "circle": { "destination": "Circle", "inverse": "pins" } }
            },
            "Tag": {
              "primaryKey": "id", "attributes": { "id": { "type": "string" } },
              "relationships": { "circles": { "destination": "Circle", "toMany": true, "inverse": "tags" } }
            },
            "Badge": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "label": { "type": "string", "optional": false } },
              "relationships": { "circle": { "destination": "Circle", "inverse": "badge" } }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "SubentityLists.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// `list` populated into a store holding `earlier`: whole, or streamed in batches of
    /// `batchBytes` from a reader that `reopens` or not.
    static func outcome(
        _ list: String, after earlier: String, batchBytes: Int?, reopens: Bool = true
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Shape",
            batchBytes: batchBytes, reopens: reopens)
    }

    @Test(arguments: [
        // Members of a to-many kept on them, given in the response, then stored.
        (
            #"[]"#,
            #"[{"id": 1, "kind": "circle", "marks": ["m1"]}, {"id": 1, "kind": "square"}, {"id": 1, "kind": "circle"}]"#,
            true
        ),
        (
            #"[{"id": 1, "kind": "circle", "marks": ["m1"]}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle"}]"#, true
        ),
        // Join rows.
        (
            #"[{"id": 1, "kind": "circle", "tags": ["t1"]}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle"}]"#, true
        ),
        // A one-to-one.
        (
            #"[{"id": 1, "kind": "circle", "badge": "b1"}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle"}]"#, true
        ),
        // A list that merges by union, given again: it adds to what the switch cleared.
        (
            #"[{"id": 1, "kind": "circle", "pins": ["p1"]}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle", "pins": ["p2"]}]"#, true
        ),
        // Set again, to a record that is not stored (no label): the link keeps what is there.
        (
            #"[{"id": 1, "kind": "circle", "badge": {"id": "b1", "label": "L"}}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle", "badge": {"id": "b2"}}]"#, true
        ),
        // Nothing to clear: nothing lost.
        (#"[{"id": 1, "kind": "circle"}]"#, #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle"}]"#, false),
        // Replaced by the later batch, as a later occurrence replaces it.
        (
            #"[{"id": 1, "kind": "circle", "marks": ["m1"]}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle", "marks": ["m2"]}]"#, false
        ),
        (
            #"[{"id": 1, "kind": "circle", "badge": "b1"}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "circle", "badge": null}]"#, false
        ),
        // Never switched back: cleared in every batching.
        (
            #"[{"id": 1, "kind": "circle", "marks": ["m1"]}]"#,
            #"[{"id": 1, "kind": "square"}, {"id": 2, "kind": "square"}]"#, false
        ),
    ])
    func aSwitchBackAfterAListWasClearedEndsAsInOneBatch(earlier: String, list: String, refusedOnce: Bool)
        async throws
    {
        let whole = try await Self.outcome(list, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(list, after: earlier, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
        let before = try await Self.outcome("[]", after: earlier, batchBytes: nil)
        let once = try await Self.outcome(list, after: earlier, batchBytes: 1, reopens: false)
        if refusedOnce {
            #expect(
                once.failure?.contains("is made a Circle again after a batch made it another entity") == true, "\(once)"
            )
            #expect(once.rows == before.rows, "a refused stream writes nothing")
        } else {
            #expect(once == whole, "\(once)\nwhole:\n\(whole)")
        }
    }
}
