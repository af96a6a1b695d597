import Foundation
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// On PostgreSQL as on SQLite: no delete a response's own links start removes what the response
/// contained (a cascading `replace` list's dropped member, a many-to-many's, their cascades, a
/// record identified by its owner, a sub-entity switch), whole or streamed in batches of any
/// size, with the same rows, counts and warnings.
@Suite struct PostgreSQLLinkDeleteSparingTests {
    /// The warnings that say a record was kept, but for the `_id`s they name.
    static func kept(_ result: PopulationResult) -> [String] {
        result.debugger.warnings.map(\.message).filter { $0.hasPrefix("kept ") }.map {
            $0.replacingOccurrences(of: #"_id [0-9]+"#, with: "_id", options: .regularExpression)
        }
    }

    /// Populates `seed` whole, then `text` whole and streamed in batches of 1 and 40 bytes, into
    /// a SQLite and a PostgreSQL store each, checking that every store ends with the whole SQLite
    /// population's rows, counts and warnings; returns the PostgreSQL whole population's result
    /// and store.
    func populate(
        seed: String, _ text: String, entity: String = "Folder", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (result: PopulationResult, store: PostgreSQLDatabase) {
        let schema = try Schema(json: linkDeleteSchemaJSON, fileName: "LinkDeletes.json")
        let data = Data(text.utf8)
        var expected: (changes: [String: ChangeCounts], kept: [String], content: [String: [[DatabaseValue]]])?
        var first: (PopulationResult, PostgreSQLDatabase)?
        for batchBytes in [nil, 1, 40] as [Int?] {
            let sqlite = try PostgreSQLStores.sqlite(schema)
            let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
            _ = try await ResponsePopulation(store: sqlite).populate(try JSONReader().read(seed), entity: entity)
            _ = try await ResponsePopulation(store: postgreSQL).populate(try JSONReader().read(seed), entity: entity)
            let results: [PopulationResult]
            if let batchBytes {
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                }
                results = [
                    try await ResponsePopulation(store: sqlite).populate(streaming: open, entity: entity),
                    try await ResponsePopulation(store: postgreSQL).populate(streaming: open, entity: entity),
                ]
            } else {
                let response = try JSONReader().read(text)
                results = [
                    try await ResponsePopulation(store: sqlite).populate(response, entity: entity),
                    try await ResponsePopulation(store: postgreSQL).populate(response, entity: entity),
                ]
                first = (results[1], postgreSQL)
            }
            let contents = [try PostgreSQLStores.content(of: sqlite), try PostgreSQLStores.content(of: postgreSQL)]
            for (result, content) in zip(results, contents) {
                let outcome = (result.changesByEntity, Self.kept(result), content)
                guard let expected else {
                    expected = outcome
                    continue
                }
                let way = batchBytes.map { "batches of \($0) bytes" } ?? "whole"
                #expect(outcome.0 == expected.changes, "\(way)", sourceLocation: sourceLocation)
                #expect(outcome.1 == expected.kept, "\(way)", sourceLocation: sourceLocation)
                #expect(outcome.2 == expected.content, "\(way)", sourceLocation: sourceLocation)
            }
        }
        let (result, store) = try #require(first)
        return (result, store)
    }

    func parents(_ store: PostgreSQLDatabase) throws -> [Int64: JSONValue] {
        var parents: [Int64: JSONValue] = [:]
        for object in try store.exportJSON(entity: "Folder").arrayValue ?? [] {
            if case .integer(let id)? = object["id"] { parents[id] = object["parent"] ?? .null }
        }
        return parents
    }

    @Test func aDroppedMemberTheResponseHoldsStays() async throws {
        let seed = #"[{"id": 1, "children": [{"id": 2}, {"id": 3}]}]"#
        for text in [
            #"[{"id": 1, "children": [3]}, {"id": 2, "name": "two"}]"#,
            #"[{"id": 4, "see": [2]}, {"id": 1, "children": [3]}]"#,
            #"[{"id": 1, "children": [2, 3]}, {"id": 1, "children": [3]}]"#,
        ] {
            let (result, store) = try await populate(seed: seed, text)
            #expect(try parents(store)[2] == .null, "\(text)")
            #expect(result.changesByEntity["Folder"]?.deleted ?? 0 == 0, "\(text)")
            #expect(Self.kept(result).count == 1, "\(text)")
        }
    }

    @Test func theCascadeOfADroppedMemberSparesWhatTheResponseHolds() async throws {
        let seed = #"[{"id": 1, "children": [{"id": 2, "children": [{"id": 3}, {"id": 5}]}]}]"#
        let (result, store) = try await populate(seed: seed, #"[{"id": 1, "children": []}, {"id": 3}]"#)
        #expect(try parents(store) == [1: .null, 3: .null])
        #expect(result.changesByEntity["Folder"]?.deleted == 2)
        #expect(Self.kept(result).count == 1)
    }

    @Test func aDroppedJoinMemberTheResponseHoldsStays() async throws {
        let seed = #"[{"id": 1, "tags": [{"id": "a"}, {"id": "b"}]}]"#
        let (result, store) = try await populate(seed: seed, #"[{"id": 1, "tags": ["a"]}, {"id": 2, "tags": ["b"]}]"#)
        #expect(try store.exportJSON(entity: "Tag").arrayValue?.count == 2)
        #expect(result.changesByEntity["Tag"]?.deleted ?? 0 == 0)
    }

    @Test func anOwnerKeyedRecordTheResponseNamesApartStaysLinked() async throws {
        let seed = #"[{"id": 1, "info": {"size": 3}}]"#
        let (result, store) = try await populate(
            seed: seed, #"[{"id": 1, "info": null}, {"id": 2, "pinned": {"folder": 1, "size": 4}}]"#)
        let infos = try store.exportJSON(entity: "Info").arrayValue ?? []
        #expect(infos.count == 1 && infos.first?["folder"] == .integer(1), "\(infos)")
        #expect(result.changesByEntity["Info"]?.deleted ?? 0 == 0)
        let (superseded, _) = try await populate(
            seed: seed, #"[{"id": 1, "info": {"size": 5}}, {"id": 1, "info": null}]"#)
        #expect(superseded.changesByEntity["Info"]?.deleted == 1)
    }

    @Test func aSubentitySwitchsCascadeSparesWhatTheResponseHolds() async throws {
        let seed = #"[{"id": 1, "kind": "box", "label": {"text": "l", "notes": [{"id": 5}, {"id": 6}]}}]"#
        let (result, store) = try await populate(
            seed: seed, #"[{"id": 1, "kind": "bag", "pins": [5]}]"#, entity: "Item")
        #expect(try store.exportJSON(entity: "Note").arrayValue?.count == 1)
        #expect(result.changesByEntity["Label"]?.deleted == 1)
        #expect(result.changesByEntity["Note"]?.deleted == 1)
        #expect(Self.kept(result).count == 1)
    }
}
