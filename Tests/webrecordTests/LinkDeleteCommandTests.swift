import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecord

/// `webrecord populate`: a delete that a response's own links start (a cascading `replace`
/// list's dropped member, a record identified by its owner that the owner unlinks, the cascade
/// either starts) spares every record the same response contained, which the `--json`
/// summary reports as kept and does not count as deleted. Each source is its own response:
/// what a later source holds does not undo an earlier one's delete, and what an earlier source
/// held is spared by a later one's. In a SQLite file and in PostgreSQL.
@Suite struct LinkDeleteCommandTests {
    let directory: TemporaryDirectory
    let schema: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("LinkDeletes.json", Data(linkDeleteSchemaJSON.utf8))
    }

    /// The `--json` summary of populating `sources` (JSON texts, one file each) in one run.
    func populate(_ db: String, _ sources: String...) async throws -> Summary {
        let files = try sources.map { try directory.write("response-\(UUID().uuidString).json", Data($0.utf8)) }
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Folder", "--json"] + files)
        try #require(result.status == 0, "\(result)")
        return try Summary(result)
    }

    /// Each folder's id and its parent's, from `webrecord export`.
    func parents(_ db: String) async throws -> [Int: Int?] {
        let result = try await CLI.run(["export", "--schema", schema, "--db", db, "--entity", "Folder"])
        try #require(result.status == 0, "\(result)")
        var parents: [Int: Int?] = [:]
        for folder in try JSONReader().read(result.stdoutData).arrayValue ?? [] {
            guard let id = folder["id"]?.int64Value else { continue }
            let parent: Int? = folder["parent"]?.int64Value.map(Int.init)
            parents[Int(id)] = .some(parent)
        }
        return parents
    }

    func kept(_ summary: Summary) -> [String] {
        summary.warnings.compactMap { $0["message"]?.stringValue }.filter { $0.contains("kept ") }
    }

    func expectLinkDeletesSpareWhatTheResponseHolds(in db: String) async throws {
        _ = try await populate(db, #"[{"id": 1, "children": [{"id": 2}, {"id": 3}]}]"#)
        // Folder 1's list drops 2, which the response holds later: 2 stays, unlinked.
        let dropped = try await populate(db, #"[{"id": 1, "children": [3]}, {"id": 2, "name": "two"}]"#)
        #expect(dropped.int("Folder", "deleted") == nil || dropped.int("Folder", "deleted") == 0, "\(dropped.object)")
        #expect(kept(dropped).count == 1 && kept(dropped).first?.contains("kept Folder 2") == true, "\(dropped.object)")
        let afterDrop = try await parents(db)
        #expect(afterDrop == [1: nil, 2: nil, 3: 1], "\(afterDrop)")

        // The cascade from a dropped member stops at what the response holds: 3's child 4
        // stays, 5 goes with 3.
        _ = try await populate(db, #"[{"id": 3, "children": [{"id": 4}, {"id": 5}]}]"#)
        let cascade = try await populate(db, #"[{"id": 1, "children": []}, {"id": 4}]"#)
        #expect(cascade.int("Folder", "deleted") == 2, "\(cascade.object)")
        #expect(kept(cascade).first?.contains("kept Folder 4") == true, "\(cascade.object)")
        #expect(try await parents(db) == [1: nil, 2: nil, 4: nil])

        // A record identified by its folder, named apart from it, stays linked when the
        // folder's to-one is set to null.
        _ = try await populate(db, #"[{"id": 1, "info": {"size": 3}}]"#)
        let info = try await populate(db, #"[{"id": 1, "info": null}, {"id": 2, "pinned": {"folder": 1, "size": 4}}]"#)
        #expect((info.int("Info", "deleted") ?? 0) == 0, "\(info.object)")
        #expect(kept(info).first?.contains("leaves it linked") == true, "\(info.object)")
        let alone = try await populate(db, #"[{"id": 1, "info": null}]"#)
        #expect(alone.int("Info", "deleted") == 1, "named only through its folder, it goes: \(alone.object)")

        // Each source is its own response: the first deletes 2, the second stores it anew.
        _ = try await populate(db, #"[{"id": 1, "children": [{"id": 2}]}]"#)
        let sources = try await populate(db, #"[{"id": 1, "children": []}]"#, #"[{"id": 2}]"#)
        #expect(sources.int("Folder", "deleted") == 1, "\(sources.object)")
        #expect(sources.int("Folder", "inserted") == 1, "\(sources.object)")
        #expect(try await parents(db) == [1: nil, 2: nil, 4: nil])

        // What an earlier source contained is spared: the second source's list drops 2, which
        // the first holds, and 2 stays, unlinked, as one response holding both would leave it.
        _ = try await populate(db, #"[{"id": 1, "children": [{"id": 2}]}]"#)
        let earlier = try await populate(db, #"[{"id": 2, "name": "two"}]"#, #"[{"id": 1, "children": []}]"#)
        #expect((earlier.int("Folder", "deleted") ?? 0) == 0, "\(earlier.object)")
        #expect(
            kept(earlier).first?.contains("kept Folder 2 (_id") == true
                && kept(earlier).first?.contains("the run contained it") == true, "\(earlier.object)")
        #expect(try await parents(db) == [1: nil, 2: nil, 4: nil])
    }

    @Test func inASQLiteFile() async throws {
        try await expectLinkDeletesSpareWhatTheResponseHolds(in: directory.path("folders.sqlite"))
    }

    @Test func inPostgreSQL() async throws {
        let server = try PostgreSQLTestServer.shared()
        try await expectLinkDeletesSpareWhatTheResponseHolds(in: server.url(database: try server.makeDatabase()))
    }
}
