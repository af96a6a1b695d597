import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// No delete that a response's own links start removes a record the same response contained
/// (DESIGN §3.14 and "the mirror equals the server"): a `replace` list's dropped member under
/// `cascade`, a many-to-many's, the cascade such a member starts, a record identified by its
/// owner when the owner unlinks it or switches to a sub-entity without the relationship. The
/// deletes wait for the end of the response; what it contained, earlier or later, at the top
/// level, nested elsewhere or named by key, stays (unlinked, or linked when the link is its
/// key) with a warning, and is not counted as deleted. Streamed in batches of any size, the
/// store and the counts are the whole response's.
@Suite struct LinkDeleteSparingTests {
    static var schema: Schema {
        get throws { try Schema(json: linkDeleteSchemaJSON, fileName: "LinkDeletes.json") }
    }

    /// How a response is populated: whole, or streamed in batches of about so many bytes.
    enum Way: CustomStringConvertible {
        case whole
        case streamed(Int)

        static let all: [Way] = [.whole, .streamed(1), .streamed(40), .streamed(1 << 20)]

        var description: String {
            switch self {
            case .whole: "whole"
            case .streamed(let bytes): "streamed in batches of \(bytes) bytes"
            }
        }
    }

    /// One population of `text` after `seed`, in a store of its own.
    struct Outcome {
        let way: Way
        let test: RecordingStore
        let result: PopulationResult
        var store: RecordStore { test.store }

        func count(_ entity: String, _ change: KeyPath<ChangeCounts, Int>) -> Int {
            result.changesByEntity[entity]?[keyPath: change] ?? 0
        }

        /// The warnings that say a record was kept.
        var kept: [String] { result.debugger.warnings.map(\.message).filter { $0.hasPrefix("kept ") } }
    }

    /// Populates `seed` whole, then `text` every ``Way``, each into a fresh store, and checks
    /// that every way leaves the same rows and reports the same counts (of the entities
    /// `counted`, all by default) and warnings as the whole response.
    static func outcomes(
        seed: String, _ text: String, entity: String = "Folder", countsOf counted: Set<String>? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for way in Way.all {
            let test = try RecordingStore(schema: schema)
            _ = try await test.store.populate(json(seed), entity: entity)
            let result: PopulationResult
            switch way {
            case .whole:
                result = try await test.store.populate(json(text), entity: entity)
            case .streamed(let bytes):
                let data = Data(text.utf8)
                result = try await ResponsePopulation(store: test.store.sqlite!).populate(
                    streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: bytes) },
                    entity: entity)
            }
            outcomes.append(Outcome(way: way, test: test, result: result))
        }
        let whole = outcomes[0]
        for outcome in outcomes.dropFirst() {
            #expect(
                try dumpContent(outcome.store) == dumpContent(whole.store), "\(outcome.way)",
                sourceLocation: sourceLocation)
            let counts = { (result: PopulationResult) in
                result.changesByEntity.filter { counted?.contains($0.key) ?? true }
            }
            #expect(
                counts(outcome.result) == counts(whole.result),
                "\(outcome.way): \(outcome.result.changesByEntity) against \(whole.result.changesByEntity)",
                sourceLocation: sourceLocation)
            #expect(outcome.kept == whole.kept, "\(outcome.way)", sourceLocation: sourceLocation)
        }
        return outcomes
    }

    /// Each folder's `_id`-free state: its id and its parent's id.
    static func parents(_ store: RecordStore) throws -> [Int: Int?] {
        var parents: [Int: Int?] = [:]
        for folder in try store.fetch("Folder") {
            guard let id = folder["id"] as Int? else { continue }
            parents[id] = folder.related("parent", as: Record.self).flatMap { $0["id"] as Int? }
        }
        return parents
    }

    static let twoChildren = #"[{"id": 1, "children": [{"id": 2}, {"id": 3}]}]"#

    // MARK: - A replace list's dropped member

    @Test(
        "A member a cascading list drops stays when the response holds it elsewhere",
        arguments: [
            // Later in the response, at the top level.
            #"[{"id": 1, "children": [3]}, {"id": 2, "name": "two"}]"#,
            // Earlier in the response.
            #"[{"id": 2, "name": "two"}, {"id": 1, "children": [3]}]"#,
            // Nested in another record, as an object.
            #"[{"id": 1, "children": [3]}, {"id": 4, "see": [{"id": 2, "name": "two"}]}]"#,
            // Named by key in another record, before the list.
            #"[{"id": 4, "see": [2]}, {"id": 1, "children": [3]}]"#,
            // Listed by an earlier occurrence of the same owner.
            #"[{"id": 1, "children": [2, 3]}, {"id": 1, "children": [3]}]"#,
        ])
    func aDroppedMemberTheResponseHoldsStays(text: String) async throws {
        for outcome in try await Self.outcomes(seed: Self.twoChildren, text) {
            let parents = try Self.parents(outcome.store)
            #expect(parents[2] == .some(nil), "\(outcome.way): folder 2 stays, unlinked from 1: \(parents)")
            #expect(parents[3] == 1, "\(outcome.way)")
            #expect(outcome.count("Folder", \.deleted) == 0, "\(outcome.way): \(outcome.result.changesByEntity)")
            #expect(outcome.kept.count == 1, "\(outcome.way): \(outcome.kept)")
            #expect(outcome.kept.first?.contains("kept Folder 2") == true, "\(outcome.kept)")
            #expect(outcome.kept.first?.contains("children") == true, "\(outcome.kept)")
        }
    }

    @Test("A member a cascading list drops that the response does not hold is deleted and counted")
    func aDroppedMemberTheResponseDoesNotHoldGoes() async throws {
        for outcome in try await Self.outcomes(seed: Self.twoChildren, #"[{"id": 1, "children": [3]}]"#) {
            #expect(try Self.parents(outcome.store) == [1: nil, 3: 1], "\(outcome.way)")
            #expect(outcome.count("Folder", \.deleted) == 1, "\(outcome.way)")
            #expect(outcome.kept.isEmpty, "\(outcome.way)")
        }
    }

    @Test("The cascade from a dropped member stops at a record the response holds")
    func theCascadeOfADroppedMemberSparesWhatTheResponseHolds() async throws {
        let seed = #"[{"id": 1, "children": [{"id": 2, "children": [{"id": 3}, {"id": 5}]}]}]"#
        for outcome in try await Self.outcomes(seed: seed, #"[{"id": 1, "children": []}, {"id": 3}]"#) {
            #expect(try Self.parents(outcome.store) == [1: nil, 3: nil], "\(outcome.way)")
            #expect(outcome.count("Folder", \.deleted) == 2, "\(outcome.way): 2 and 5 go")
            #expect(outcome.kept.count == 1, "\(outcome.way): \(outcome.kept)")
            #expect(outcome.kept.first?.contains("kept Folder 3") == true, "\(outcome.kept)")
        }
    }

    @Test(
        "A many-to-many member a cascading list drops stays when another record of the response lists it",
        arguments: [
            #"[{"id": 1, "tags": ["a"]}, {"id": 2, "tags": ["b"]}]"#,
            #"[{"id": 2, "tags": ["b"]}, {"id": 1, "tags": ["a"]}]"#,
        ])
    func aDroppedJoinMemberTheResponseHoldsStays(text: String) async throws {
        let seed = #"[{"id": 1, "tags": [{"id": "a"}, {"id": "b"}]}]"#
        for outcome in try await Self.outcomes(seed: seed, text) {
            #expect(
                try outcome.store.fetch("Tag", orderBy: [.ascending("id")]).map { $0["id"] as String? } == ["a", "b"])
            let two = try outcome.store.fetchOne("Folder", primaryKey: 2)?.relatedRecords("tags", as: Record.self)
            #expect(two?.compactMap { $0["id"] as String? } == ["b"], "\(outcome.way)")
            let one = try outcome.store.fetchOne("Folder", primaryKey: 1)?.relatedRecords("tags", as: Record.self)
            #expect(one?.compactMap { $0["id"] as String? } == ["a"], "\(outcome.way)")
            #expect(outcome.count("Tag", \.deleted) == 0, "\(outcome.way)")
            #expect(outcome.kept.count == 1, "\(outcome.way): \(outcome.kept)")
        }
    }

    @Test("A deny rule still refuses to delete a dropped member, which stays unlinked")
    func aDenyRuleRefusesTheDelete() async throws {
        let seed = #"[{"id": 1, "children": [{"id": 2, "locks": [{"id": "k"}]}]}]"#
        for outcome in try await Self.outcomes(seed: seed, #"[{"id": 1, "children": []}]"#) {
            #expect(try Self.parents(outcome.store) == [1: nil, 2: nil], "\(outcome.way)")
            #expect(outcome.count("Folder", \.deleted) == 0, "\(outcome.way)")
            #expect(
                outcome.result.debugger.warnings.contains { $0.message.contains("deny rule") }, "\(outcome.way)")
        }
    }

    // MARK: - Records identified by their owner

    @Test("A record identified by its owner that the response names apart stays linked when the owner unlinks it")
    func anOwnerKeyedRecordTheResponseNamesApartStays() async throws {
        let seed = #"[{"id": 1, "info": {"size": 3}}]"#
        let texts = [
            #"[{"id": 1, "info": null}, {"id": 2, "pinned": {"folder": 1, "size": 4}}]"#,
            #"[{"id": 2, "pinned": {"folder": 1, "size": 4}}, {"id": 1, "info": null}]"#,
        ]
        for text in texts {
            for outcome in try await Self.outcomes(seed: seed, text) {
                let infos = try outcome.store.fetch("Info")
                #expect(infos.map { $0["size"] as Int? } == [4], "\(outcome.way): \(text)")
                #expect(infos.first?.related("folder", as: Record.self)?["id"] as Int? == 1, "its key stays")
                #expect(outcome.count("Info", \.deleted) == 0, "\(outcome.way)")
                #expect(outcome.kept.count == 1, "\(outcome.way): \(outcome.kept)")
                #expect(outcome.kept.first?.contains("leaves it linked") == true, "\(outcome.kept)")
            }
        }
    }

    @Test("A record identified by its owner, named only through the owner, goes when a later occurrence unlinks it")
    func anOwnerKeyedRecordNamedOnlyThroughItsOwnerGoes() async throws {
        let seed = #"[{"id": 1, "info": {"size": 3}}]"#
        let control = #"[{"id": 1, "info": null}]"#
        let superseded = #"[{"id": 1, "info": {"size": 5}}, {"id": 1, "info": null}]"#
        for text in [control, superseded] {
            for outcome in try await Self.outcomes(seed: seed, text) {
                #expect(try outcome.store.count("Info") == 0, "\(outcome.way): \(text)")
                #expect(outcome.count("Info", \.deleted) == 1, "\(outcome.way): \(outcome.result.changesByEntity)")
                #expect(outcome.count("Info", \.updated) + outcome.count("Info", \.unchanged) == 0, "deleted only")
                #expect(outcome.kept.isEmpty, "\(outcome.way)")
            }
        }
    }

    @Test("A new record identified by its owner that a later occurrence unlinks counts as nothing, however batched")
    func aNewOwnerKeyedRecordALaterOccurrenceUnlinksCountsAsNothing() async throws {
        // Whole, it is never stored; streamed a record a batch, one batch creates it and the
        // deletes at the end remove it: neither inserted nor deleted. (Its owner, relinked by
        // each batch, counts as updated streamed, as documented, and unchanged whole.)
        let text = #"[{"id": 1, "info": {"size": 5}}, {"id": 1, "info": null}]"#
        for outcome in try await Self.outcomes(seed: #"[{"id": 1}]"#, text, countsOf: ["Info"]) {
            #expect(try outcome.store.count("Info") == 0, "\(outcome.way)")
            #expect(outcome.result.changesByEntity["Info"] == nil, "\(outcome.way): \(outcome.result.changesByEntity)")
        }
    }

    @Test("A sub-entity switch deletes the label it identified, and the label's cascade spares what the response holds")
    func aSubentitySwitchsCascadeSparesWhatTheResponseHolds() async throws {
        let seed = #"[{"id": 1, "kind": "box", "label": {"text": "l", "notes": [{"id": 5}, {"id": 6}]}}]"#
        let text = #"[{"id": 1, "kind": "bag", "pins": [5]}]"#
        for outcome in try await Self.outcomes(seed: seed, text, entity: "Item") {
            #expect(try outcome.store.count("Label") == 0, "\(outcome.way)")
            #expect(try outcome.store.fetch("Note").map { $0["id"] as Int? } == [5], "\(outcome.way)")
            #expect(outcome.count("Label", \.deleted) == 1, "\(outcome.way): \(outcome.result.changesByEntity)")
            #expect(outcome.count("Note", \.deleted) == 1, "\(outcome.way): only note 6 goes")
            #expect(outcome.kept.count == 1, "\(outcome.way): \(outcome.kept)")
            #expect(outcome.kept.first?.contains("kept Note 5") == true, "\(outcome.kept)")
        }
    }

    // MARK: - Paged requests

    @Test("In a paged request, each page's link deletes spare what that page holds")
    func eachPageSparesWhatItHolds() async throws {
        let loopback = try LoopbackHTTPServer()
        let test = try RecordingStore(schema: Self.schema)
        let store = test.store
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Folder")
        _ = try await store.populate(json(Self.twoChildren), entity: "Folder")
        // Page 1 drops 2 and 3 from folder 1 but holds 3; page 2 holds 2, too late for it.
        let next = loopback.url("/p2").absoluteString
        loopback.route("/p1", .json(#"{"folders": [{"id": 1, "children": []}, {"id": 3}], "next": "\#(next)"}"#))
        loopback.route("/p2", .json(#"{"folders": [{"id": 2}], "next": null}"#))
        var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
        options.request.population.keyPath = "folders"
        var pages: [Page<Record>] = []
        for try await page in store.pages(entity: "Folder", urn: "p1", options: options) { pages.append(page) }
        #expect(pages.count == 2)
        #expect(pages.first?.result.changesByEntity["Folder"]?.deleted == 1, "page 1 deletes 2, keeps 3")
        #expect(try Self.parents(store) == [1: nil, 2: nil, 3: nil], "page 2 stores 2 again")
    }
}
