import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate --delete-orphans` on a tree whose children cascade: the orphan goes, and
/// the cascade it starts stops at every record the run contained, from a file or from the pages
/// of a URL, and says so (DESIGN §3.14).
@Suite struct OrphanCascadeCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write(
            "Folders.json",
            """
            {"entities": {
              "Folder": {
                "primaryKey": "id",
                "keyPathForResponseObject": "folders",
                "attributes": {"id": {"type": "integer"}},
                "relationships": {
                  "children": {"destination": "Folder", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
                  "parent": {"destination": "Folder", "inverse": "children"}
                }
              }
            }}
            """)
        db = directory.path("folders.sqlite")
    }

    func populate(_ sources: [String], _ extra: [String] = []) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Folder", "--json"] + extra + sources)
    }

    func file(_ body: String) throws -> String {
        try directory.write("response-\(UUID().uuidString).json", body)
    }

    func stored() throws -> [Int: Int?] {
        let store = try RecordStore(path: db, schema: Schema(contentsOf: URL(fileURLWithPath: schema)))
        var parents: [Int: Int?] = [:]
        for folder in try store.fetch("Folder") {
            guard let id = folder["id"] as Int? else { continue }
            parents[id] = folder.related("parent", as: Record.self).flatMap { $0["id"] as Int? }
        }
        return parents
    }

    func seed() async throws {
        let seeded = try await populate([try file(#"{"folders": [{"id": 1, "children": [{"id": 2}]}, {"id": 9}]}"#)])
        #expect(seeded.status == 0, "\(seeded)")
        #expect(try stored() == [1: nil, 2: 1, 9: nil])
    }

    @Test func aFileListingOnlyTheChildKeepsIt() async throws {
        try await seed()
        let result = try await populate(
            [try file(#"{"folders": [{"id": 2}]}"#), try file(#"{"folders": [{"id": 9}]}"#)], ["--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("Folder", "deleted") == 1)
        #expect(try stored() == [2: nil, 9: nil], "2 is kept, unlinked from the deleted 1")
        let messages = summary.warnings.compactMap { $0["message"]?.stringValue }
        #expect(messages.contains { $0.contains("kept Folder 2") }, "\(messages)")
    }

    @Test func thePagesOfAURLAreOneRun() async throws {
        try await seed()
        let server = try LoopbackHTTPServer()
        let next = server.url("/p2").absoluteString
        server.route("/p1", .json(#"{"folders": [{"id": 2}], "next": "\#(next)"}"#))
        server.route("/p2", .json(#"{"folders": [{"id": 9}], "next": null}"#))
        let result = try await populate(
            [server.url("/p1").absoluteString], ["--paginate", "next-url:next", "--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("Folder", "deleted") == 1)
        #expect(try stored() == [2: nil, 9: nil])
        let messages = summary.warnings.compactMap { $0["message"]?.stringValue }
        #expect(messages.contains { $0.contains("kept Folder 2") }, "\(messages)")
    }
}
