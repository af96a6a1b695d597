import Foundation
import Testing

@testable import WebRecord

/// A record a batch of a streamed population names only by key (a stub), whose data a later
/// batch gives (Docs/Population.md, "Large responses").
@Suite struct StreamedStubTests {
    /// A non-optional attribute with a default is not missing: one batch gives the new record
    /// the default, and the stream stores it as one batch does, without reading again.
    @Test func aDefaultCompletesAStubsData() async throws {
        let schema = try Schema(
            json: """
                {
                  "version": 1,
                  "entities": {
                    "Shape": {
                      "primaryKey": "id",
                      "keyPathForResponseObject": "data",
                      "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
                      "attributes": { "id": { "type": "integer" } },
                      "relationships": { "next": { "destination": "Shape", "inverse": "previous" },
                        "previous": { "destination": "Shape", "toMany": true, "inverse": "next" } }
                    },
                    "Circle": {
                      "parent": "Shape",
                      "attributes": { "radius": { "type": "double", "optional": false, "default": 1 } }
                    },
                    "Square": { "parent": "Shape" }
                  }
                }
                """, fileName: "StubDefaults.json")
        let text = #"{"data": [{"id": 1, "kind": "square", "next": 2}, {"id": 2, "kind": "circle"}]}"#
        let whole = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: schema, entity: "Shape", batchBytes: nil)
        #expect(whole.failure == nil && whole.rows.contains { $0.contains("'Circle' | 2 | 1.0") }, "\(whole)")
        for batchBytes in [1, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                text, after: #"{"data": []}"#, schema: schema, entity: "Shape", batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// A stub's data that gives a value the attribute refuses leaves the default, as one batch
    /// gives a new record whose value is refused (`"radius": "wide"`), and as a value that is
    /// absent does: the stub was stored as a `Shape`, without the `Circle`'s attribute.
    @Test(arguments: [#""radius": "wide""#, #""radius": null"#, #""other": 1"#])
    func aRefusedValueInAStubsDataLeavesTheDefault(member: String) async throws {
        let schema = try Schema(
            json: """
                {"version": 1, "entities": {
                  "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data",
                    "subentities": {"key": "kind", "map": {"circle": "Circle"}},
                    "attributes": {"id": {"type": "integer"}},
                    "relationships": {"next": {"destination": "Shape", "inverse": "previous"},
                      "previous": {"destination": "Shape", "toMany": true, "inverse": "next"}}},
                  "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double", "default": 1}}}}}
                """, fileName: "StubRefused.json")
        let text = #"{"data": [{"id": 1, "next": 2}, {"id": 2, "kind": "circle", \#(member)}]}"#
        let whole = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: schema, entity: "Shape", batchBytes: nil)
        // A `null` the attribute accepts is a value; anything else leaves the default.
        let radius = member.contains("null") ? "NULL" : "1.0"
        #expect(whole.rows.contains { $0.hasPrefix("Shape: 2 | 'Circle' | 2 | \(radius)") }, "\(whole)")
        let streamed = try await PopulatedStore.populating(
            text, after: #"{"data": []}"#, schema: schema, entity: "Shape", batchBytes: 1)
        #expect(streamed == whole, "batches of 1 byte:\n\(streamed)\nwhole:\n\(whole)")
    }
}
