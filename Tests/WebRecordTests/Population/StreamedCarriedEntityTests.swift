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
            // The later occurrence's entity decides, and says so, as in one batch. Known issue
            // (Docs/Population.md, "Warnings"): a batch whose own occurrences pass through a more
            // specific entity first (a Puppy, then a Cat) compares the carried entity with the
            // last of them, and says so once more.
            if text.contains(#""kind": "puppy", "age": 2}, {"id": 1, "kind": "cat""#), batchBytes == 40 {
                withKnownIssue("a carried record's entity compared with the batch's last") {
                    PopulatedStore.expectWarningsEqual(
                        streamed, whole, batchBytes: batchBytes, sourceLocation: #_sourceLocation)
                }
            } else {
                PopulatedStore.expectWarningsEqual(
                    streamed, whole, batchBytes: batchBytes, sourceLocation: #_sourceLocation)
            }
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
