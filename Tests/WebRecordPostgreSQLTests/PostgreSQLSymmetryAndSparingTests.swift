import Foundation
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// On PostgreSQL as on SQLite: no delete a run starts removes what the run contained (DESIGN
/// §3.14), and a relationship that is its own inverse is symmetric (DESIGN §3.11).
@Suite struct PostgreSQLSymmetryAndSparingTests {
    static let schemaJSON = """
        {"entities": {
          "Folder": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "children": {"destination": "Folder", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
              "parent": {"destination": "Folder", "inverse": "children"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "folders", "deleteRule": "cascade"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
            "relationships": {"folders": {"destination": "Folder", "toMany": true, "inverse": "tags"}}},
          "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "friends": {"destination": "User", "toMany": true, "inverse": "friends"},
              "ranked": {"destination": "User", "toMany": true, "ordered": true, "inverse": "ranked"},
              "spouse": {"destination": "User", "inverse": "spouse"}}}
        }}
        """

    static func withoutRowIDs(_ result: PopulationResult) -> [String] {
        result.debugger.warnings.map {
            $0.message.replacingOccurrences(of: #"_id [0-9]+"#, with: "_id", options: .regularExpression)
        }
    }

    static var orphans: PopulationOptions {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        return options
    }

    /// Populates each step into both stores, checking after each that they agree, and returns
    /// the PostgreSQL store's exports of `entity`, as `id -> relationship value`.
    func populate(
        _ steps: [(json: String, entity: String, orphans: Bool)], export relationship: String, of entity: String
    ) throws -> (values: [Int64: JSONValue], results: [PopulationResult]) {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Sparing.json")
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        var results: [PopulationResult] = []
        for (index, step) in steps.enumerated() {
            let options = step.orphans ? Self.orphans : PopulationOptions()
            let response = try JSONReader().read(step.json)
            let expected = try ResponsePopulation(store: sqlite, options: options).populate(
                response, entity: step.entity)
            let result = try ResponsePopulation(store: postgreSQL, options: options).populate(
                response, entity: step.entity)
            #expect(result.changes == expected.changes, "step \(index)")
            // The same warnings, but for the `_id`s they name (SQLite gives a deleted row's again).
            #expect(Self.withoutRowIDs(result) == Self.withoutRowIDs(expected), "step \(index)")
            #expect(try PostgreSQLStores.content(of: postgreSQL) == (try PostgreSQLStores.content(of: sqlite)))
            #expect(try postgreSQL.exportJSON(entity: entity) == (try sqlite.exportJSON(entity: entity)))
            results.append(result)
        }
        var values: [Int64: JSONValue] = [:]
        for object in try postgreSQL.exportJSON(entity: entity).arrayValue ?? [] {
            if case .integer(let id)? = object["id"] { values[id] = object[relationship] ?? .null }
        }
        return (values, results)
    }

    @Test func anOrphansCascadeSparesWhatTheResponseHeld() throws {
        let (parents, results) = try populate(
            [
                (#"[{"id": 1, "children": [{"id": 2}], "tags": [{"id": "a"}, {"id": "b"}]}]"#, "Folder", false),
                (#"[{"id": 2, "tags": ["a"]}]"#, "Folder", true),
            ], export: "parent", of: "Folder")
        #expect(parents == [2: .null], "folder 2 is kept, unlinked from its deleted parent")
        #expect(results[1].changesByEntity["Folder"]?.deleted == 1)
        #expect(results[1].changesByEntity["Tag"]?.deleted == 1, "b goes, a (which the response held) stays")
        #expect(results[1].debugger.warnings.filter { $0.message.hasPrefix("kept ") }.count == 2)
    }

    @Test func aCascadeCycleStopsAtWhatTheResponseHeld() throws {
        let (parents, results) = try populate(
            [
                (
                    #"[{"id": 1, "children": [{"id": 2, "children": [{"id": 3, "children": [{"id": 1}]}]}]}]"#,
                    "Folder", false
                ),
                (#"[{"id": 2}]"#, "Folder", true),
            ], export: "parent", of: "Folder")
        #expect(results[1].changesByEntity["Folder"]?.deleted == 2)
        #expect(parents == [2: .null])
    }

    @Test func theLastOrphanPassOfAPagedRunSparesEveryPagesRecords() throws {
        let schema = try Schema(json: Self.schemaJSON, fileName: "Sparing.json")
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try ResponsePopulation(store: postgreSQL).populate(
            .array([["id": 1, "children": [["id": 2]]], ["id": 9]]), entity: "Folder")
        // Two pages, populated without orphan deletion, then the pass over their union.
        var kept = ContainedRows()
        for page in [JSONValue.array([["id": 2]]), .array([["id": 9]])] {
            kept.formUnion(try ResponsePopulation(store: postgreSQL).populate(page, entity: "Folder").containedRowIDs)
        }
        let debugger = Debugger(initialEntity: "Folder")
        let deleted = try ResponsePopulation(store: postgreSQL, options: Self.orphans).deleteOrphans(
            of: "Folder", keeping: kept, results: [], response: .null, debugger: debugger)
        #expect(deleted == ["Folder": 1])
        #expect(
            try postgreSQL.exportJSON(entity: "Folder").arrayValue?.compactMap { $0["id"] } == [2, 9])
        #expect(debugger.warnings.contains { $0.message.hasPrefix("kept Folder 2") })
    }

    @Test func friendsAreSymmetric() throws {
        let (friends, _) = try populate(
            [
                (#"[{"id": 1, "friends": [2, 3]}]"#, "User", false),
                (#"[{"id": 2, "friends": [4]}]"#, "User", false),
            ], export: "friends", of: "User")
        #expect(friends == [1: [3], 2: [4], 3: [1], 4: [2]])
    }

    @Test func anOrderedSelfInverseListIsSymmetric() throws {
        let (ranked, _) = try populate(
            [
                (#"[{"id": 2, "ranked": [5, 6]}]"#, "User", false),
                (#"[{"id": 1, "ranked": [3, 2]}]"#, "User", false),
            ], export: "ranked", of: "User")
        #expect(ranked[1] == [3, 2])
        #expect(ranked[2] == [5, 6, 1])
    }

    @Test func aSpouseIsSymmetricAndExclusive() throws {
        let (spouses, _) = try populate(
            [
                (#"[{"id": 1, "spouse": 2}]"#, "User", false),
                (#"[{"id": 3, "spouse": 1}]"#, "User", false),
                (#"[{"id": 4, "spouse": 5}, {"id": 5, "spouse": 6}]"#, "User", false),
            ], export: "spouse", of: "User")
        #expect(spouses[1] == 3)
        #expect(spouses[2] == .null)
        #expect(spouses[3] == 1)
        #expect(spouses[4] == .null)
        #expect(spouses[5] == 6)
        #expect(spouses[6] == 5)
    }
}
