import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record given as two branches of its hierarchy (a `Video`, then a `Photo`) in one response
/// warns that the later wins (DESIGN §3.13), whether the two occurrences are in one batch or in
/// two; a more specific entity, or a more general one that states none, does not warn.
@Suite struct BranchWarningAcrossBatchesTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: #"""
                    {"version": 1, "entities": {
                      "Post": {"primaryKey": "id",
                        "attributes": {"id": {"type": "string"}, "kind": {"type": "string"}},
                        "subentities": {"key": "kind", "map": {"photo": "Photo", "video": "Video"}}},
                      "Photo": {"parent": "Post", "attributes": {"w": {"type": "integer"}}},
                      "Video": {"parent": "Post", "attributes": {"rate": {"type": "double"}}}}}
                    """#, fileName: "Branches.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// The warnings of populating `text` into an empty store, streamed in batches of
    /// `batchBytes` (nil: whole), and the entity record p1 ends as.
    static func outcome(_ text: String, batchBytes: Int?) async throws -> (warnings: [String], entity: String) {
        let store = try RecordStore(inMemory: schema)
        let result: PopulationResult
        if let batchBytes {
            let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
            result = try await population.populate(
                streaming: readingOnce(Data(text.utf8), batchByteLimit: batchBytes), entity: "Post", reopens: false)
        } else {
            result = try await store.populate(try JSONReader().read(text), entity: "Post")
        }
        let rows = try await store.read { connection in
            try connection.rows(#"SELECT "_entity" FROM "Post" WHERE "id" = 'p1'"#)
        }
        guard case .text(let entity)? = rows.first?.first else { return (result.debugger.warnings.map(\.message), "-") }
        return (result.debugger.warnings.map(\.message), entity)
    }

    @Test(arguments: [
        (#"[{"id": "p1", "kind": "video"}, {"id": "p1", "kind": "photo"}]"#, "Photo", true),
        (#"[{"id": "p1", "kind": "video", "rate": 1.5}, {"id": "p1", "kind": "photo", "w": 3}]"#, "Photo", true),
        (#"[{"id": "p1"}, {"id": "p1", "kind": "photo"}]"#, "Photo", false),
        (#"[{"id": "p1", "kind": "photo"}, {"id": "p1"}]"#, "Photo", false),
    ])
    func warnsAsOneBatchDoes(text: String, entity: String, warns: Bool) async throws {
        let whole = try await Self.outcome(text, batchBytes: nil)
        #expect(whole.entity == entity)
        #expect(whole.warnings.contains { $0.contains("the later wins") } == warns, "\(whole.warnings)")
        for batchBytes in [1, 1 << 20] {
            let streamed = try await Self.outcome(text, batchBytes: batchBytes)
            #expect(streamed.entity == whole.entity, "batches of \(batchBytes) bytes")
            #expect(
                streamed.warnings.sorted() == whole.warnings.sorted(),
                "batches of \(batchBytes) bytes: \(streamed.warnings) against \(whole.warnings)")
        }
    }
}
