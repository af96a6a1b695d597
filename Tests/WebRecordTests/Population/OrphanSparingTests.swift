import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// No delete the orphan pass starts removes a record the same run contained (DESIGN §3.14): an
/// orphan's cascade, a cascade cycle, a cascade into another entity and a paged run's last
/// orphan pass all stop at such a record, unlink it instead, and say so with a warning.
@Suite struct OrphanSparingTests {
    /// A tree of folders whose children cascade, and tags (a many-to-many) that cascade too.
    static let schema = """
        {"entities": {
          "Folder": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "children": {"destination": "Folder", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
              "parent": {"destination": "Folder", "inverse": "children"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "folders", "deleteRule": "cascade"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"folders": {"destination": "Folder", "toMany": true, "inverse": "tags"}}}
        }}
        """

    let directory: TemporaryDirectory
    let store: RecordStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(path: directory.path(), schema: Schema(json: Self.schema))
    }

    static var orphans: PopulationOptions {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        return options
    }

    func folderIDs() throws -> [Int] {
        try store.fetch("Folder", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    func keptWarnings(_ result: PopulationResult) -> [String] {
        result.debugger.warnings.map(\.message).filter { $0.hasPrefix("kept ") }
    }

    @Test func anOrphansCascadeSparesTheChildTheResponseHeld() throws {
        _ = try store.populate(.array([["id": 1, "children": [["id": 2]]]]), entity: "Folder")
        #expect(try folderIDs() == [1, 2])

        let result = try store.populate(.array([["id": 2]]), entity: "Folder", options: Self.orphans)
        #expect(try folderIDs() == [2], "the orphan goes, the record the response held stays")
        #expect(result.changesByEntity["Folder"]?.deleted == 1)
        #expect(try store.count("Folder", where: "parent IS NULL") == 1, "it is unlinked from the deleted parent")
        let warnings = keptWarnings(result)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("Folder 2") == true, "\(warnings)")
        #expect(warnings.first?.contains("children") == true, "\(warnings)")
    }

    @Test func aCascadeCycleStopsAtTheRecordTheResponseHeld() throws {
        // 1 -> 2 -> 3 -> 1, every link cascading.
        _ = try store.populate(
            .array([["id": 1, "children": [["id": 2, "children": [["id": 3, "children": [["id": 1]]]]]]]]),
            entity: "Folder")
        #expect(try store.count("Folder", where: "parent IS NOT NULL") == 3)

        let result = try store.populate(.array([["id": 2]]), entity: "Folder", options: Self.orphans)
        #expect(try folderIDs() == [2])
        #expect(result.changesByEntity["Folder"]?.deleted == 2)
        #expect(try store.count("Folder", where: "parent IS NULL") == 1)
    }

    @Test func aCascadeIntoAnotherEntitySparesWhatTheResponseHeld() throws {
        _ = try store.populate(
            .array([["id": 1, "tags": [["id": "a"], ["id": "b"]]], ["id": 2]]), entity: "Folder")
        // Folder 1 is an orphan; its tag "a" is named by folder 2, "b" by nothing.
        let result = try store.populate(.array([["id": 2, "tags": ["a"]]]), entity: "Folder", options: Self.orphans)
        #expect(try folderIDs() == [2])
        #expect(try store.fetch("Tag").compactMap { $0["id"] as String? } == ["a"])
        #expect(result.changesByEntity["Tag"]?.deleted == 1)
        #expect(try store.fetchOne("Folder", primaryKey: 2)?.relatedRecords("tags", as: Record.self).count == 1)
        #expect(keptWarnings(result).count == 1)
    }

    @Test func aPagedRunSparesWhatAnyPageHeld() async throws {
        let loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Folder")
        _ = try await store.populate(.array([["id": 1, "children": [["id": 2]]], ["id": 9]]), entity: "Folder")
        // Page 1 holds folder 2, page 2 folder 9: folder 1 is the orphan.
        let next = loopback.url("/p2").absoluteString
        loopback.route("/p1", .json(#"{"folders": [{"id": 2}], "next": "\#(next)"}"#))
        loopback.route("/p2", .json(#"{"folders": [{"id": 9}], "next": null}"#))
        var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
        options.request.population.deleteOrphans = .all
        options.request.population.keyPath = "folders"
        var last: Page<Record>?
        for try await page in store.pages(entity: "Folder", urn: "p1", options: options) { last = page }
        #expect(try folderIDs() == [2, 9])
        #expect(last?.orphansDeleted["Folder"] == 1)
        let warnings = last?.result.debugger.warnings.map(\.message).filter { $0.hasPrefix("kept ") } ?? []
        #expect(warnings.count == 1, "\(warnings)")
    }
}
