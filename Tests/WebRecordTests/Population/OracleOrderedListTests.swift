import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Ordered to-many lists after re-syncs, checked against a reference model of the documented
/// semantics (DESIGN §3.7 and §3.11; Docs/Population.md, decision 7, "Ordered to-many with
/// `union`" and "Unchanged rows"; Docs/StorageLayout.md, the position columns): random, seeded
/// sequences of responses, after each of which every owner's members, in the order their
/// positions give (`ORDER BY position, _id`), and the counts must be what the model says, and
/// the last response streamed at 1, 64 and 300 bytes must end as it does whole.
///
/// The schema has an ordered one-to-many kept on its members under `replace` (`ru`) and under
/// `union` (`uu`), and an ordered many-to-many in a join table with positions under `replace`
/// (`rm`) and under `union` (`um`). Lists are given as objects and as keys, with members
/// repeated within a list, the same owner given several times in one response, members moving
/// between owners, `[]` and `null`.
///
/// What the documents leave open is compared only as far as it is decided: where a member
/// repeated within one list goes (the list's members are then compared as a set, ahead of the
/// members it did not list), and, in the counts, whether an owner whose list only changed order,
/// or lost a member to another owner while it gave no list, counts as updated; for items and
/// tags only `inserted`, `deleted` and the sum of `updated` and `unchanged` are compared.
@Suite("Population: ordered lists against a reference model")
struct OracleOrderedListTests {
    // MARK: - The schema

    static let schemaJSON = #"""
        {"entities": {
          "Owner": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "ru": {"destination": "Item", "toMany": true, "ordered": true, "inverse": "rOwner"},
              "uu": {"destination": "Item", "toMany": true, "ordered": true, "merge": "union", "inverse": "uOwner"},
              "rm": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "rOwners"},
              "um": {"destination": "Tag", "toMany": true, "ordered": true, "merge": "union", "inverse": "uOwners"}}},
          "Item": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "rOwner": {"destination": "Owner", "inverse": "ru"},
              "uOwner": {"destination": "Owner", "inverse": "uu"}}},
          "Tag": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "rOwners": {"destination": "Owner", "toMany": true, "inverse": "rm"},
              "uOwners": {"destination": "Owner", "toMany": true, "inverse": "um"}}}
        }}
        """#

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "OrderedLists.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let lists = ["ru", "uu", "rm", "um"]

    // MARK: - Responses, as values

    /// A list element: a key, an object with only its key, or an object with a name.
    struct Element: Equatable {
        var id: Int
        var object = false
        var name: String?
    }

    /// A to-many as given: absent (`nil` in `Occurrence.lists`), `null`, or a list.
    enum Given: Equatable {
        case null
        case list([Element])
    }

    struct Occurrence: Equatable {
        var id: Int
        /// By relationship name; a missing name is absent from the JSON.
        var lists: [String: Given] = [:]
    }

    typealias Sync = [Occurrence]

    static func json(_ element: Element) -> String {
        guard element.object else { return String(element.id) }
        if let name = element.name { return "{\"id\": \(element.id), \"name\": \"\(name)\"}" }
        return "{\"id\": \(element.id)}"
    }

    static func json(_ occurrence: Occurrence) -> String {
        var members = ["\"id\": \(occurrence.id)"]
        for name in lists {
            switch occurrence.lists[name] {
            case nil: break
            case .null?: members.append("\"\(name)\": null")
            case .list(let elements)?:
                members.append("\"\(name)\": [" + elements.map { json($0) }.joined(separator: ", ") + "]")
            }
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ sync: Sync) -> String { "[" + sync.map { json($0) }.joined(separator: ", ") + "]" }

    // MARK: - The reference model

    /// An ordered list as the documents decide it: runs in order, each run a set of members
    /// whose order among themselves is open (one member when it is decided).
    typealias Runs = [Set<Int>]

    struct Model: Equatable {
        var owners: [Int: [String: Runs]] = [:]
        var items: [Int: String?] = [:]
        var tags: [Int: String?] = [:]

        func members(_ owner: Int, _ list: String) -> Set<Int> {
            (owners[owner]?[list] ?? []).reduce(into: Set<Int>()) { $0.formUnion($1) }
        }
    }

    /// The runs a list gives: one per member, or one set when a member repeats (the documents do
    /// not say which of its places it takes).
    static func runs(_ elements: [Element]) -> Runs {
        let ids = elements.map(\.id)
        if Set(ids).count == ids.count { return ids.map { [$0] } }
        return ids.isEmpty ? [] : [Set(ids)]
    }

    static func removing(_ members: Set<Int>, from runs: Runs) -> Runs {
        runs.map { $0.subtracting(members) }.filter { !$0.isEmpty }
    }

    /// Applies one occurrence in response order (decision 7: a whole response ends as its
    /// occurrences applied in turn, the claim named last winning).
    ///
    /// `wiresReplaced` false: the owner gives a `replace` one-to-many again later in the
    /// response, so this list names its members without wiring them (Docs/Population.md, "A
    /// member a list takes from another record and a later occurrence drops": "One batch wires
    /// only a list's latest occurrence").
    static func apply(
        _ occurrence: Occurrence, to model: inout Model, inserted: inout Set<String>, wiresReplaced: Bool = true
    ) {
        if model.owners[occurrence.id] == nil {
            model.owners[occurrence.id] = [:]
            inserted.insert("Owner \(occurrence.id)")
        }
        for list in lists {
            guard let given = occurrence.lists[list] else { continue }
            let isTag = list.hasSuffix("m")
            let union = list.hasPrefix("u")
            let exclusive = !isTag
            var elements: [Element] = []
            if case .list(let listed) = given { elements = listed }
            for element in elements {
                if isTag {
                    if model.tags[element.id] == nil {
                        model.tags[element.id] = .some(nil)
                        inserted.insert("Tag \(element.id)")
                    }
                    if let name = element.name { model.tags[element.id] = .some(name) }
                } else {
                    if model.items[element.id] == nil {
                        model.items[element.id] = .some(nil)
                        inserted.insert("Item \(element.id)")
                    }
                    if let name = element.name { model.items[element.id] = .some(name) }
                }
            }
            let listed = Set(elements.map(\.id))
            if exclusive && !union && !wiresReplaced { continue }
            if exclusive {
                for other in Array(model.owners.keys) where other != occurrence.id {
                    let kept = removing(listed, from: model.owners[other]?[list] ?? [])
                    model.owners[other]?[list] = kept
                }
            }
            let old = model.owners[occurrence.id]?[list] ?? []
            if union {
                model.owners[occurrence.id]?[list] = runs(elements) + removing(listed, from: old)
            } else {
                model.owners[occurrence.id]?[list] = runs(elements)
            }
        }
    }

    // MARK: - The store, read back

    struct Stored: Equatable {
        var owners: [Int: [String: [Int]]] = [:]
        var items: [Int: String?] = [:]
        var tags: [Int: String?] = [:]
    }

    static func stored(_ store: RecordStore) throws -> Stored {
        func int(_ value: DatabaseValue) -> Int {
            if case .integer(let number) = value { return Int(number) }
            return -1
        }
        func text(_ value: DatabaseValue) -> String? {
            if case .text(let string) = value { return string }
            return nil
        }
        return try store.read { connection in
            var stored = Stored()
            for row in try connection.rows(#"SELECT "id" FROM "Owner""#) {
                stored.owners[int(row[0])] = ["ru": [], "uu": [], "rm": [], "um": []]
            }
            for row in try connection.rows(#"SELECT "id", "name" FROM "Item""#) {
                stored.items[int(row[0])] = .some(text(row[1]))
            }
            for row in try connection.rows(#"SELECT "id", "name" FROM "Tag""#) {
                stored.tags[int(row[0])] = .some(text(row[1]))
            }
            for (list, column) in [("ru", "rOwner"), ("uu", "uOwner")] {
                for row in try connection.rows(
                    """
                    SELECT o."id", i."id" FROM "Item" i JOIN "Owner" o ON o."_id" = i."\(column)"
                    ORDER BY o."id", i."_position_\(column)", i."_id"
                    """)
                {
                    stored.owners[int(row[0])]?[list]?.append(int(row[1]))
                }
            }
            for list in ["rm", "um"] {
                for row in try connection.rows(
                    """
                    SELECT o."id", t."id" FROM "_Owner_\(list)" j JOIN "Owner" o ON o."_id" = j."owner"
                    JOIN "Tag" t ON t."_id" = j."target" ORDER BY o."id", j."position", t."_id"
                    """)
                {
                    stored.owners[int(row[0])]?[list]?.append(int(row[1]))
                }
            }
            return stored
        }
    }

    /// Whether `order`, read from the store, is what `runs` decide.
    static func agrees(_ order: [Int], with runs: Runs) -> Bool {
        guard order.count == runs.reduce(0, { $0 + $1.count }) else { return false }
        var rest = order[...]
        for run in runs {
            if Set(rest.prefix(run.count)) != run { return false }
            rest = rest.dropFirst(run.count)
        }
        return true
    }

    static func describe(_ runs: Runs) -> String {
        "["
            + runs.map { $0.count == 1 ? "\($0.first!)" : "{\($0.sorted().map(String.init).joined(separator: ","))}" }
            .joined(separator: ", ") + "]"
    }

    /// What differs between the store and the model, one line each.
    static func differences(_ stored: Stored, _ model: Model) -> [String] {
        var lines: [String] = []
        if Set(stored.owners.keys) != Set(model.owners.keys) {
            lines.append("owners: store \(stored.owners.keys.sorted()), model \(model.owners.keys.sorted())")
        }
        for owner in model.owners.keys.sorted() {
            for list in lists {
                let order = stored.owners[owner]?[list] ?? []
                let runs = model.owners[owner]?[list] ?? []
                if !agrees(order, with: runs) {
                    lines.append("owner \(owner).\(list): store \(order), model \(describe(runs))")
                }
            }
        }
        if stored.items != model.items { lines.append("items: store \(stored.items), model \(model.items)") }
        if stored.tags != model.tags { lines.append("tags: store \(stored.tags), model \(model.tags)") }
        return lines
    }

    // MARK: - Counts

    /// The counts' differences from what the model decides for one sync.
    static func countDifferences(
        _ counts: [String: ChangeCounts], sync: Sync, before: Model, after: Model, inserted: Set<String>
    ) -> [String] {
        var lines: [String] = []
        func named(_ prefix: String, _ ids: Set<Int>) -> (inserted: Int, others: Int) {
            let new = ids.filter { inserted.contains("\(prefix) \($0)") }.count
            return (new, ids.count - new)
        }
        // Owners: new ones inserted; a list it gave whose membership changed, updated; nothing
        // changed at all, unchanged; otherwise only the sum is decided.
        var owners = ChangeCounts()
        var ownersSplit = true
        for owner in Set(sync.map(\.id)) {
            if inserted.contains("Owner \(owner)") {
                owners.inserted += 1
                continue
            }
            let given = Set(sync.filter { $0.id == owner }.flatMap { $0.lists.keys })
            let membershipChanged = given.contains { before.members(owner, $0) != after.members(owner, $0) }
            let nothingChanged = lists.allSatisfy { list in
                let was = before.owners[owner]?[list] ?? []
                let now = after.owners[owner]?[list] ?? []
                return was == now && now.allSatisfy { $0.count == 1 }
            }
            if membershipChanged {
                owners.updated += 1
            } else if nothingChanged {
                owners.unchanged += 1
            } else {
                owners.updated += 1
                ownersSplit = false
            }
        }
        var expected: [(String, ChangeCounts, Bool)] = [("Owner", owners, ownersSplit)]
        for (entity, suffix) in [("Item", "u"), ("Tag", "m")] {
            var ids = Set<Int>()
            for occurrence in sync {
                for (list, given) in occurrence.lists where list.hasSuffix(suffix) {
                    if case .list(let elements) = given { ids.formUnion(elements.map(\.id)) }
                }
            }
            let (new, others) = named(entity, ids)
            var want = ChangeCounts()
            want.inserted = new
            want.updated = others
            expected.append((entity, want, false))
        }
        for (entity, want, split) in expected {
            let got = counts[entity] ?? ChangeCounts()
            let same =
                split
                ? got == want
                : got.inserted == want.inserted && got.deleted == want.deleted
                    && got.updated + got.unchanged == want.updated + want.unchanged
            if !same { lines.append("counts of \(entity): \(got), model \(want)\(split ? "" : " (sum)")") }
        }
        return lines
    }

    // MARK: - Running a sequence

    /// The first disagreement of `syncs`, each populated whole in turn, with the model, or nil.
    static func firstMismatch(_ syncs: [Sync]) async throws -> String? {
        let store = try RecordStore(inMemory: schema)
        var model = Model()
        for (index, sync) in syncs.enumerated() {
            let before = model
            var inserted = Set<String>()
            var lastList: [Int: Int] = [:]
            for (index, occurrence) in sync.enumerated() where occurrence.lists["ru"] != nil {
                lastList[occurrence.id] = index
            }
            for (index, occurrence) in sync.enumerated() {
                apply(occurrence, to: &model, inserted: &inserted, wiresReplaced: lastList[occurrence.id] == index)
            }
            let text = json(sync)
            let result: PopulationResult
            do {
                result = try await store.populate(try JSONReader().read(text), entity: "Owner")
            } catch {
                return "sync \(index + 1) \(text) failed: \(error)"
            }
            var problems = differences(try stored(store), model)
            problems += countDifferences(
                result.changesByEntity, sync: sync, before: before, after: model, inserted: inserted)
            if !problems.isEmpty {
                return "after\n" + syncs[...index].map { json($0) }.joined(separator: "\n") + "\n"
                    + problems.map { "  " + $0 }.joined(separator: "\n")
            }
        }
        return nil
    }

    /// The store after `history` (each populated whole), then `last`, whole (`batchBytes` nil)
    /// or streamed from a source read again (`reopens`) or read once.
    static func outcome(
        _ history: [Sync], then last: Sync, batchBytes: Int?, reopens: Bool = true
    ) async throws -> AdversarialStreamTests.Outcome {
        let store = try RecordStore(inMemory: schema)
        for sync in history { _ = try await store.populate(try JSONReader().read(json(sync)), entity: "Owner") }
        let text = json(last)
        let result: PopulationResult
        do {
            if let batchBytes {
                let data = Data(text.utf8)
                let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
                let once = readingOnce(data, batchByteLimit: batchBytes)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath throws(WebRecordError) in
                    reopens
                        ? JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes) : try once(keyPath)
                }
                result = try await population.populate(streaming: open, entity: "Owner", reopens: reopens)
            } else {
                result = try await store.populate(try JSONReader().read(text), entity: "Owner")
            }
        } catch let error as WebRecordError {
            return .init(
                rows: try AdversarialStreamTests.rows(of: store), counts: [:], recordIDs: [], failure: error.message)
        }
        return .init(
            rows: try AdversarialStreamTests.rows(of: store), counts: result.changesByEntity,
            recordIDs: result.records.map(\.rowID), failure: nil)
    }

    static let batchSizes = [1, 64, 300]

    /// The first way the last of `syncs` streamed ends differently from it whole, or nil.
    static func firstStreamDifference(_ syncs: [Sync]) async throws -> String? {
        guard let last = syncs.last else { return nil }
        let history = Array(syncs.dropLast())
        let whole = try await outcome(history, then: last, batchBytes: nil)
        let before = try await outcome(history, then: [], batchBytes: nil).rows
        let label = "after\n" + syncs.map { json($0) }.joined(separator: "\n")
        for size in batchSizes {
            let streamed = try await outcome(history, then: last, batchBytes: size)
            if streamed != whole {
                return "\(label)\nbatches of \(size) bytes (+ streamed, - whole):\n\(streamed.difference(from: whole))"
            }
            let once = try await outcome(history, then: last, batchBytes: size, reopens: false)
            if once.failure == nil {
                if once != whole {
                    return "\(label)\nbatches of \(size) bytes, read once (+ streamed, - whole):\n"
                        + once.difference(from: whole)
                }
            } else if once.rows != before {
                return "\(label)\nbatches of \(size) bytes, read once: refused, and wrote something"
            }
        }
        return nil
    }

    // MARK: - Generating and shrinking

    static func generate(_ random: inout SeededRandom) -> [Sync] {
        (0..<(2 + random.next(below: 3))).map { _ in
            (0..<(1 + random.next(below: 4))).map { _ in
                var occurrence = Occurrence(id: 1 + random.next(below: 3))
                for list in lists {
                    let roll = random.next(below: 10)
                    if roll < 4 { continue }
                    if roll == 4 {
                        occurrence.lists[list] = .null
                        continue
                    }
                    let elements = (0..<random.next(below: 5)).map { _ in
                        let id = 1 + random.next(below: 5)
                        switch random.next(below: 3) {
                        case 0: return Element(id: id)
                        case 1: return Element(id: id, object: true)
                        default: return Element(id: id, object: true, name: "n\(random.next(below: 3))")
                        }
                    }
                    occurrence.lists[list] = .list(elements)
                }
                return occurrence
            }
        }
    }

    /// Sequences one step smaller than `syncs`.
    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for (s, sync) in syncs.enumerated() {
            for (o, occurrence) in sync.enumerated() {
                var fewer = syncs
                fewer[s].remove(at: o)
                variants.append(fewer)
                for (list, given) in occurrence.lists {
                    var absent = syncs
                    absent[s][o].lists[list] = nil
                    variants.append(absent)
                    guard case .list(let elements) = given else { continue }
                    for e in elements.indices {
                        var shorter = syncs
                        var kept = elements
                        kept.remove(at: e)
                        shorter[s][o].lists[list] = .list(kept)
                        variants.append(shorter)
                        if elements[e].object {
                            var plain = syncs
                            var keys = elements
                            keys[e] = Element(id: elements[e].id)
                            plain[s][o].lists[list] = .list(keys)
                            variants.append(plain)
                        }
                    }
                }
            }
        }
        return variants
    }

    static func shrink(_ syncs: [Sync], failing: ([Sync]) async throws -> Bool) async throws -> [Sync] {
        var current = syncs
        var progress = true
        while progress {
            progress = false
            for variant in smaller(current) where try await failing(variant) {
                current = variant
                progress = true
                break
            }
        }
        return current
    }

    // MARK: - The comparison

    @Test("random re-syncs of ordered lists leave the members, in order, and the counts the model gives")
    func randomResyncsAgreeWithTheModel() async throws {
        var failures: [String] = []
        var repeatedMembers = 0
        var repeatedOwners = 0
        var nulls = 0
        for seed in 0..<300 {
            var random = SeededRandom(seed: UInt64(seed))
            let syncs = Self.generate(&random)
            let given = syncs.flatMap { $0 }.flatMap { $0.lists.values }
            if given.contains(where: {
                guard case .list(let elements) = $0 else { return false }
                return Set(elements.map(\.id)).count < elements.count
            }) {
                repeatedMembers += 1
            }
            if syncs.contains(where: { Set($0.map(\.id)).count < $0.count }) { repeatedOwners += 1 }
            if given.contains(.null) { nulls += 1 }
            guard try await Self.firstMismatch(syncs) != nil else { continue }
            let small = try await Self.shrink(syncs) { try await Self.firstMismatch($0) != nil }
            failures.append("seed \(seed):\n" + (try await Self.firstMismatch(small) ?? "?"))
        }
        #expect(failures.isEmpty, "\(failures.count) of 300 seeds disagree; the first:\n\(failures.first ?? "")")
        // The sequences exercise what the suite is about.
        #expect(
            repeatedMembers > 50 && repeatedOwners > 100 && nulls > 100,
            "repeated members \(repeatedMembers), repeated owners \(repeatedOwners), nulls \(nulls)")
    }

    @Test("random ordered-list responses end the same streamed at 1, 64 and 300 bytes as whole")
    func randomResponsesEndTheSameStreamed() async throws {
        var failures: [String] = []
        // Seed 1087 shrinks to the known difference `unionMemberTakenByAnotherOwnerInALaterBatch`
        // asserts (Docs/Population.md, "Known difference: positions left by a union list's later
        // take"); every other seed must end the same.
        for seed in 0..<200 where seed != 87 {
            var random = SeededRandom(seed: UInt64(1_000 + seed))
            let syncs = Self.generate(&random)
            guard try await Self.firstStreamDifference(syncs) != nil else { continue }
            let small = try await Self.shrink(syncs) { try await Self.firstStreamDifference($0) != nil }
            failures.append("seed \(1_000 + seed):\n" + (try await Self.firstStreamDifference(small) ?? "?"))
        }
        #expect(failures.isEmpty, "\(failures.count) of 199 seeds differ; the first:\n\(failures.first ?? "")")
    }

    // MARK: - Focused cases the comparison found

    /// Owner `owner`'s `uu` members and their stored positions, in the order the positions give,
    /// after `history` (each whole) and then `last`, whole or streamed in batches of `batchBytes`.
    static func unionPositions(
        _ history: [String], then last: String, batchBytes: Int?, owner: Int
    ) async throws -> [[Int?]] {
        let store = try RecordStore(inMemory: schema)
        for text in history { _ = try await store.populate(try JSONReader().read(text), entity: "Owner") }
        if let batchBytes {
            let data = Data(last.utf8)
            let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
            let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
            }
            _ = try await population.populate(streaming: open, entity: "Owner", reopens: true)
        } else {
            _ = try await store.populate(try JSONReader().read(last), entity: "Owner")
        }
        return try await store.read { connection in
            try connection.rows(
                """
                SELECT i."id", i."_position_uOwner" FROM "Item" i JOIN "Owner" o ON o."_id" = i."uOwner"
                WHERE o."id" = \(owner) ORDER BY i."_position_uOwner", i."_id"
                """
            ).map { row in
                row.map { value -> Int? in
                    if case .integer(let number) = value { return Int(number) }
                    return nil
                }
            }
        }
    }

    /// Docs/Population.md, "The same store": "A streamed population leaves the store that
    /// populating the whole response leaves, row for row [...] whatever the batch size, for every
    /// response"; Docs/StorageLayout.md, "Ordered one-to-many": the position column "holds the
    /// member's position in its owner's list, from 0, in response order"; Docs/Population.md,
    /// "Ordered to-many with `union`": the members not listed "keep their relative order after"
    /// the listed ones. Owner 1 holds items 1 and 3 under `union`; the response lists item 5 for
    /// it, and then owner 3 takes item 1. Whole, owner 1's list is `[5, 3]` at positions 0 and 1.
    /// Streamed one record per batch, the first batch moves items 1 and 3 to positions 1 and 2,
    /// and the second takes item 1 away: the stream moves owner 1's members not listed again once
    /// every batch is written, so item 3 ends at position 1, as whole, and counts alike.
    @Test("a union member left after another owner takes an earlier one has the whole response's position streamed")
    func unionMemberTakenByAnotherOwnerInALaterBatch() async throws {
        let history = [#"[{"id": 1, "uu": [1, 3]}]"#]
        let last = #"[{"id": 1, "uu": [5]}, {"id": 3, "uu": [1]}]"#
        let whole = try await Self.unionPositions(history, then: last, batchBytes: nil, owner: 1)
        #expect(whole == [[5, 0], [3, 1]])
        for size in [1, 30] {
            let streamed = try await Self.unionPositions(history, then: last, batchBytes: size, owner: 1)
            #expect(streamed == whole, "batches of \(size) bytes")
        }
        let wholeRows = try await Self.outcome(
            [[Occurrence(id: 1, lists: ["uu": .list([Element(id: 1), Element(id: 3)])])]],
            then: [
                Occurrence(id: 1, lists: ["uu": .list([Element(id: 5)])]),
                Occurrence(id: 3, lists: ["uu": .list([Element(id: 1)])]),
            ], batchBytes: nil)
        let streamedRows = try await Self.outcome(
            [[Occurrence(id: 1, lists: ["uu": .list([Element(id: 1), Element(id: 3)])])]],
            then: [
                Occurrence(id: 1, lists: ["uu": .list([Element(id: 5)])]),
                Occurrence(id: 3, lists: ["uu": .list([Element(id: 1)])]),
            ], batchBytes: 1)
        #expect(streamedRows == wholeRows, "(+ streamed, - whole):\n\(streamedRows.difference(from: wholeRows))")
    }

    /// Responses where two owners each list one member under `union`, and each gives the list again
    /// later naming nothing (`[]` or `null`), or naming another member: the member, the owner
    /// whose occurrence named it last, and the owner that lost it.
    static let unionClaims: [(name: String, history: [Sync], last: Sync, item: Int, holder: Int)] = {
        func owner(_ id: Int, _ given: Given) -> Occurrence { Occurrence(id: id, lists: ["uu": given]) }
        func list(_ ids: Int...) -> Given { .list(ids.map { Element(id: $0) }) }
        return [
            (
                "owner 2 named last, both give []", [],
                [owner(1, list(2)), owner(2, list(2)), owner(1, list()), owner(2, list())], 2, 2
            ),
            (
                "owner 1 named last, both give []", [],
                [owner(2, list(5)), owner(1, list(5)), owner(2, list()), owner(1, list())], 5, 1
            ),
            ("both give null", [], [owner(1, list(2)), owner(2, list(2)), owner(1, .null), owner(2, .null)], 2, 2),
            (
                "both list another member", [],
                [owner(1, list(2)), owner(2, list(2)), owner(1, list(3)), owner(2, list(4))], 2, 2
            ),
            (
                "the first owner held it before", [[owner(1, list(2))]],
                [owner(1, list(2)), owner(2, list(2)), owner(1, list()), owner(2, list())], 2, 2
            ),
            (
                "the later owner held it before", [[owner(2, list(2))]],
                [owner(2, list(2)), owner(1, list(2)), owner(2, list()), owner(1, list())], 2, 1
            ),
        ]
    }()

    /// Decision 7 (Docs/Population.md): "Under `union`, each member of a merged list is claimed by
    /// the occurrence that named it last", and under `union` "its `[]` or `null` removes nothing an
    /// earlier occurrence listed" (nor names anything). In `[{"id": 1, "uu": [2]}, {"id": 2,
    /// "uu": [2]}, {"id": 1, "uu": []}, {"id": 2, "uu": []}]` owner 2 named item 2 last and holds
    /// it, as the occurrences applied in turn leave it. One batch gave it to owner 1: it weighed
    /// each owner's claim by its list's latest occurrence (the `[]`), not by the occurrence that
    /// named the member. Whole, and streamed at 1 and 40 bytes and in one batch of 1 MB, row for
    /// row.
    @Test("a member two united lists named is held by the occurrence that named it last", arguments: 0..<6)
    func unionMemberClaimedByTheOccurrenceThatNamedItLast(index: Int) async throws {
        let (name, history, last, item, holder) = Self.unionClaims[index]
        #expect(try await Self.firstMismatch(history + [last]) == nil, "\(name)")
        let store = try RecordStore(inMemory: Self.schema)
        for sync in history + [last] {
            _ = try await store.populate(try JSONReader().read(Self.json(sync)), entity: "Owner")
        }
        let held = try await store.read { connection in
            try connection.rows(
                """
                SELECT o."id" FROM "Item" i JOIN "Owner" o ON o."_id" = i."uOwner" WHERE i."id" = \(item)
                """
            ).map { row -> Int? in
                if case .integer(let number) = row[0] { return Int(number) }
                return nil
            }
        }
        #expect(held == [holder], "\(name): item \(item) is held by \(held)")
        let whole = try await Self.outcome(history, then: last, batchBytes: nil)
        for size in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(history, then: last, batchBytes: size)
            #expect(
                streamed == whole,
                "\(name), batches of \(size) bytes (+ streamed, - whole):\n\(streamed.difference(from: whole))")
        }
    }

    /// Docs/Population.md, "Unchanged rows": "A record the response names counts as `updated`
    /// when its row changed or its to-many membership changed: a list it gives gains or loses a
    /// member, or, for an ordered list, holds a member at another position"; "Positions moved
    /// again at the end": "A member that the list itself listed and a later occurrence takes
    /// leaves its place empty". Owner 1 lists items 3 and 2, and owner 2 takes item 3: item 2
    /// stays at position 1. Given `[2]` again, item 2 moves to position 0, and owner 1 counts as
    /// `updated` though its list reads `[2]` before and after; likewise under `union`, and where
    /// the take that leaves the place empty is in the same response. (The suite's model compares
    /// the order the positions give, not the positions, and expects `unchanged` here: it is left
    /// to compare only what it decides, see the longer run in Docs/Population.md.) Whole, and
    /// streamed at 1 and 40 bytes and in one batch of 1 MB, with the same counts.
    @Test("an owner whose member moves into the place a take left empty counts as updated", arguments: 0..<3)
    func memberMovedIntoAnEmptiedPlaceCountsTheOwnerUpdated(index: Int) async throws {
        func owner(_ id: Int, _ list: String, _ ids: Int...) -> Occurrence {
            Occurrence(id: id, lists: [list: .list(ids.map { Element(id: $0) })])
        }
        let cases: [(history: [Sync], last: Sync, owners: [Int])] = [
            ([[owner(1, "ru", 3, 2), owner(2, "ru", 3)]], [owner(1, "ru", 2)], [0, 1, 0, 0]),
            ([[owner(1, "uu", 2, 3), owner(2, "uu", 2)]], [owner(1, "uu", 3)], [0, 1, 0, 0]),
            ([[owner(2, "ru", 5)]], [owner(2, "ru", 4, 5), owner(3, "ru", 4)], [1, 1, 0, 0]),
        ]
        let (history, last, owners) = cases[index]
        let whole = try await Self.outcome(history, then: last, batchBytes: nil)
        let counted = whole.counts["Owner"].map { [$0.inserted, $0.updated, $0.unchanged, $0.deleted] }
        #expect(counted == owners, "\(whole)")
        for size in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(history, then: last, batchBytes: size)
            #expect(
                streamed == whole,
                "batches of \(size) bytes (+ streamed, - whole):\n\(streamed.difference(from: whole))")
        }
    }

    /// Known issue (Docs/Population.md, "Positions moved again at the end"): owner 1 holds item 3
    /// under `union`; the response lists item 5 for it, then item 4, and then owner 3 takes item 5.
    /// One batch merges owner 1's lists into `[4, 5]` and moves item 3 after both, to position 2,
    /// where owner 3's take leaves position 1 empty, as the occurrences applied in turn leave it.
    /// A stream of one record a batch moves item 3 again at the end after the latest list it
    /// wrote, `[4]`, to position 1. The list reads `[4, 3]` either way; only the position differs.
    @Test("a union member moved after an owner's lists that a later batch takes from keeps its place streamed")
    func unionPositionsAfterListsOfAnOwnerRepeatedAcrossBatches() async throws {
        let history = [#"[{"id": 1, "uu": [3]}]"#]
        let last = #"[{"id": 1, "uu": [5]}, {"id": 1, "uu": [4]}, {"id": 3, "uu": [5]}]"#
        let whole = try await Self.unionPositions(history, then: last, batchBytes: nil, owner: 1)
        #expect(whole == [[4, 0], [3, 2]])
        let oneBatch = try await Self.unionPositions(history, then: last, batchBytes: 1 << 20, owner: 1)
        #expect(oneBatch == whole, "one batch of 1 MB")
        let streamed = try await Self.unionPositions(history, then: last, batchBytes: 1, owner: 1)
        #expect(streamed.map { $0.first } == whole.map { $0.first }, "the order read, batches of 1 byte")
        withKnownIssue("a stream moves the members not listed after the latest list it wrote, not the merged one") {
            #expect(streamed == whole, "batches of 1 byte")
        }
    }

    /// Docs/Population.md, "Decisions where the design is silent": "A to-one set from the to-one
    /// side of an ordered one-to-many (a category naming its venue) leaves the member without a
    /// position: only the to-many side sets positions, and a member without one reads first."
    /// Docs/StorageLayout.md, "Ordered one-to-many": "Read the list with
    /// `ORDER BY "_position_<name>", "_id"`." Owner 1 lists item 3; item 1 then names owner 1
    /// from its own side: the documented read gives `[1, 3]`, under `replace` and `union` alike.
    @Test(
        "a member that names its owner from the to-one side has no position and reads first",
        arguments: [("ru", "rOwner"), ("uu", "uOwner")])
    func memberNamingItsOwnerReadsFirst(list: String, column: String) async throws {
        let store = try RecordStore(inMemory: Self.schema)
        _ = try await store.populate(try JSONReader().read("[{\"id\": 1, \"\(list)\": [3]}]"), entity: "Owner")
        _ = try await store.populate(try JSONReader().read("[{\"id\": 1, \"\(column)\": 1}]"), entity: "Item")
        let order = try await store.read { connection in
            try connection.rows(
                """
                SELECT i."id" FROM "Item" i JOIN "Owner" o ON o."_id" = i."\(column)"
                WHERE o."id" = 1 ORDER BY i."_position_\(column)", i."_id"
                """
            ).map { row -> Int? in
                if case .integer(let number) = row[0] { return Int(number) }
                return nil
            }
        }
        #expect(order == [1, 3], "owner 1's \(list), read in the documented order")
    }
}
