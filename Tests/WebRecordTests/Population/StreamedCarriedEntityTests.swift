import Foundation
import Testing

@testable import WebRecord

/// A new record that one batch of a streamed population drops as incomplete, and that a later
/// batch names as another entity of its hierarchy (a sub-entity, a more general entity, another
/// branch, or only by key through a relationship to the parent entity), ends as in one batch:
/// the later occurrences decide its entity as a later occurrence does in one batch (DESIGN
/// §3.7, §3.13), without reading the response again (Docs/Population.md, "Large responses").
@Suite struct StreamedCarriedEntityTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Animal": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "subentities": { "key": "kind", "map": { "dog": "Dog", "cat": "Cat", "puppy": "Puppy" } },
              "attributes": {
                "id": { "type": "integer" },
                "name": { "type": "string", "optional": false }
              },
              "relationships": {
                "friend": { "destination": "Animal", "inverse": "friendOf" },
                "friendOf": { "destination": "Animal", "toMany": true, "inverse": "friend", "merge": "union" }
              }
            },
            "Dog": { "parent": "Animal", "attributes": { "bark": { "type": "string" } } },
            "Puppy": { "parent": "Dog", "attributes": { "age": { "type": "integer" } } },
            "Cat": { "parent": "Animal", "attributes": { "lives": { "type": "integer" } } }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "Carried.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// `text` populated into a store that holds `earlier`: whole, or streamed in batches of
    /// `batchBytes` from a reader that cannot be opened twice.
    static func outcome(of text: String, after earlier: String, batchBytes: Int?) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            text, after: earlier, schema: schema, entity: "Animal", batchBytes: batchBytes)
    }

    @Test(arguments: [
        // Another branch, stated later: the later entity wins, and the earlier one's values go.
        (
            #"{"data": []}"#,
            #"{"data": [{"id": 1, "kind": "dog", "bark": "woof"}, {"id": 1, "kind": "cat", "name": "Tom", "lives": 9}]}"#
        ),
        // A more specific entity later: the record becomes it.
        (
            #"{"data": []}"#,
            #"{"data": [{"id": 1, "bark": "woof"}, {"id": 1, "kind": "puppy", "name": "Rex", "age": 1}]}"#
        ),
        // A more general entity later, not stated (no discriminator): the earlier one is kept.
        (#"{"data": []}"#, #"{"data": [{"id": 1, "kind": "puppy", "age": 1}, {"id": 1, "name": "Rex"}]}"#),
        // A more general entity later, stated: the later wins, as a later value does.
        (
            #"{"data": []}"#,
            #"{"data": [{"id": 1, "kind": "puppy", "age": 1}, {"id": 1, "kind": "dog", "name": "Rex"}]}"#
        ),
        // Named later only by key, through a relationship to the parent entity: nothing changes,
        // and the record, still incomplete, is not stored, nor the link to it.
        (
            #"{"data": []}"#,
            #"{"data": [{"id": 1, "kind": "dog", "bark": "woof"}, {"id": 2, "kind": "cat", "name": "Tom", "friend": 1}]}"#
        ),
        // Dropped twice as two entities, then completed as a third; among a stored store's rows.
        (
            #"{"data": [{"id": 7, "kind": "cat", "name": "Kit"}]}"#,
            #"{"data": [{"id": 1, "kind": "dog"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "kind": "puppy", "age": 2}, {"id": 1, "kind": "cat", "name": "Tom"}]}"#
        ),
    ])
    func aCarriedRecordNamedAsAnotherEntityEndsAsInOneBatch(earlier: String, text: String) async throws {
        let whole = try await Self.outcome(of: text, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(of: text, after: earlier, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
            // The later occurrence's entity decides, and says so, as in one batch: where a
            // batch's own occurrences pass through a more specific entity first (a Puppy, then a
            // Cat), the carried entity meets the first of them.
            PopulatedStore.expectWarningsEqual(
                streamed, whole, batchBytes: batchBytes, sourceLocation: #_sourceLocation)
        }
    }

    /// A carried record that a later batch names as more than one entity (batches of 40 bytes
    /// hold the last two records together): the carried entity meets the first of them, as in
    /// one batch, rows, counts and warnings alike. Where that first one is a more general entity
    /// that states none (which keeps the carried one, and the batch's later occurrences were
    /// merged from it instead), the stream is refused, writes nothing, and equals the whole
    /// response read again.
    @Test(arguments: [
        // Carried as a cat; a dog, then a cat: two warnings in one batch.
        #"{"data": [{"id": 1, "kind": "cat"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "kind": "dog", "bark": "w"}, {"id": 1, "kind": "cat", "name": "Tom"}]}"#,
        // Carried as a puppy; a dog stated (warned), then a puppy again (not).
        #"{"data": [{"id": 1, "kind": "puppy"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "kind": "dog", "bark": "w"}, {"id": 1, "kind": "puppy", "name": "Rex"}]}"#,
        // Carried as a dog; a dog, then a cat: one warning.
        #"{"data": [{"id": 1, "kind": "dog"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "kind": "dog", "bark": "w"}, {"id": 1, "kind": "cat", "name": "Tom"}]}"#,
        // Carried as a puppy; a plain animal (keeps it), then a cat.
        #"{"data": [{"id": 1, "kind": "puppy"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "bark": "w"}, {"id": 1, "kind": "cat", "name": "Tom"}]}"#,
        // Carried as a dog; a puppy, then a cat, then completed as a dog in a third batch.
        #"{"data": [{"id": 1, "kind": "dog"}, {"id": 7, "kind": "cat", "name": "Kat"}, {"id": 1, "kind": "puppy", "age": 2}, {"id": 1, "kind": "cat", "lives": 3}, {"id": 1, "kind": "dog", "name": "Rex"}, {"id": 8, "kind": "cat", "name": "Kit"}]}"#,
    ])
    func aCarriedRecordNamedAsSeveralEntitiesInOneBatchEndsAsInOneBatch(text: String) async throws {
        let earlier = #"{"data": [{"id": 7, "kind": "cat", "name": "Kit"}]}"#
        let whole = try await Self.outcome(of: text, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        let before = try await Self.outcome(of: #"{"data": []}"#, after: earlier, batchBytes: nil)
        for batchBytes in [1, 40, 1 << 20] {
            var streamed = try await Self.outcome(of: text, after: earlier, batchBytes: batchBytes)
            if let failure = streamed.failure, AdversarialHierarchyStreamTests.isRefusal(failure) {
                #expect(streamed.rows == before.rows, "batches of \(batchBytes) bytes: a refused stream wrote")
                streamed = try await PopulatedStore.populating(
                    text, after: earlier, schema: Self.schema, entity: "Animal", batchBytes: batchBytes, reopens: true)
            }
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
            PopulatedStore.expectWarningsEqual(
                streamed, whole, batchBytes: batchBytes, sourceLocation: #_sourceLocation)
        }
    }

    /// The entity each case ends as, so that the comparison above is not only of two stores
    /// that could both be wrong.
    @Test func theEntityEachOccurrenceGivesIsTheOneOneBatchChooses() async throws {
        let branch = try await Self.outcome(
            of:
                #"{"data": [{"id": 1, "kind": "dog", "bark": "woof"}, {"id": 1, "kind": "cat", "name": "Tom", "lives": 9}]}"#,
            after: #"{"data": []}"#, batchBytes: 1)
        // Columns: _id, _entity, id, name, bark, age, lives, friend.
        #expect(branch.rows.contains("Animal: 1 | 'Cat' | 1 | 'Tom' | NULL | NULL | 9 | NULL"), "\(branch)")
        let general = try await Self.outcome(
            of: #"{"data": [{"id": 1, "kind": "puppy", "age": 1}, {"id": 1, "name": "Rex"}]}"#,
            after: #"{"data": []}"#, batchBytes: 1)
        #expect(general.rows.contains("Animal: 1 | 'Puppy' | 1 | 'Rex' | NULL | 1 | NULL | NULL"), "\(general)")
        let byKey = try await Self.outcome(
            of:
                #"{"data": [{"id": 1, "kind": "dog", "bark": "woof"}, {"id": 2, "kind": "cat", "name": "Tom", "friend": 1}]}"#,
            after: #"{"data": []}"#, batchBytes: 1)
        #expect(!byKey.rows.contains { $0.contains("'Dog'") }, "\(byKey)")
        #expect(byKey.counts["Cat"]?.inserted == 1, "\(byKey)")
    }
}
