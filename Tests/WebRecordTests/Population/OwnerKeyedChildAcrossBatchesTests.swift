import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A child identified by its owner (a post's `source`, whose key is its post), cleared, given
/// again and cleared again by occurrences of the owner in different batches: a stream from a
/// reader opened once ends as the whole response, rows, `_id`s and counts included, or refuses as
/// documented and equals it read again. Before, a batch that gave the child and then cleared it
/// withdrew the delete an earlier batch's `null` had started, and the child stayed.
@Suite struct OwnerKeyedChildAcrossBatchesTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Post": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "string" }, "title": { "type": "string" } },
                          "relationships": { "source": { "destination": "Source", "inverse": "post" } }
                        },
                        "Source": {
                          "primaryKey": "post",
                          "attributes": { "name": { "type": "string" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "source" } }
                        }
                      }
                    }
                    """, fileName: "OwnerKeyedChild.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let earlier: String
        let response: String
        var testDescription: String { response }
    }

    @Test(arguments: [
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response:
                #"[{"id": "p1", "source": null}, {"id": "p1", "source": {"name": "y"}}, {"id": "p1", "source": null}]"#),
        Case(
            earlier: "[]",
            response:
                #"[{"id": "p1", "source": {"name": "x"}}, {"id": "p1", "source": null}, {"id": "p1", "source": {"name": "y"}}, {"id": "p1", "source": null}]"#
        ),
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response: #"[{"id": "p1", "source": null}, {"id": "p1", "source": {"name": "y"}}]"#),
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response: #"[{"id": "p1", "source": {"name": "y"}}, {"id": "p1", "source": null}]"#),
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response:
                #"[{"id": "p1", "source": null}, {"id": "p1", "title": "t"}, {"id": "p1", "source": {"name": "x"}}]"#),
        // Given, cleared and given again: the post ends as one batch counts it, `unchanged` (a
        // source it gains counts the source, not the post; one it loses would count the post).
        Case(
            earlier: #"[{"id": "p1"}]"#,
            response:
                #"[{"id": "p1", "source": {"name": "x"}}, {"id": "p1", "source": null}, {"id": "p1", "source": {"name": "x"}}]"#
        ),
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response: #"[{"id": "p1", "source": null}, {"id": "p1", "source": {"name": "x"}}]"#),
        // The later two occurrences in one batch (the first one's title fills a batch alone).
        Case(
            earlier: #"[{"id": "p1", "source": {"name": "x"}}]"#,
            response:
                #"[{"id": "p1", "title": "\#(String(repeating: "t", count: 120))", "source": null}, {"id": "p1", "source": {"name": "y"}}, {"id": "p1", "source": null}]"#
        ),
        Case(
            earlier: "[]",
            response:
                #"[{"id": "p1", "source": {"name": "x"}}, {"id": "p1", "title": "\#(String(repeating: "t", count: 120))", "source": null}, {"id": "p1", "source": {"name": "y"}}, {"id": "p1", "source": null}]"#
        ),
    ])
    func clearedGivenAndClearedAgainEndsAsOneBatch(_ example: Case) async throws {
        let whole = try await PopulatedStore.populating(
            example.response, after: example.earlier, schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        // The rows end alike, whatever the batches.
        for batchBytes in [1, 40, 100] {
            let streamed = try await PopulatedStore.populating(
                example.response, after: example.earlier, schema: Self.schema, entity: "Post", batchBytes: batchBytes)
            #expect(streamed.rows == whole.rows, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
        try await PopulatedStore.expectStreamsEqual(
            example.response, after: example.earlier, schema: Self.schema, entity: "Post", whole: whole,
            batchSizes: [1, 40, 100, 1 << 20], isRefusal: { $0.contains("Populate the response whole") })
    }
}
