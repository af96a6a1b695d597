import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// For random sequences of populations and deletions (inserts, updates, sort-key changes,
/// records moving in and out of the predicate and of a limit), applying each delivered change
/// set to the previous results gives exactly the new results, by the batch-update rules
/// (Docs/Observation.md): remove the deletions and the sources of moves, insert the insertions
/// and the targets of moves, then replace the modifications at their new positions.
@Suite struct ObservationPropertyTests {
    typealias S = ObservationSupport

    /// A record as the test compares it: its key and its row.
    struct Item: Equatable, CustomStringConvertible {
        var id: Int64
        var values: [String: DatabaseValue]
        var description: String { "\(id)" }
        init(_ record: Record) {
            id = record["id"] ?? -1
            values = record.storedValues
        }
    }

    static func apply(_ changes: ChangeSet<Int>, to old: [Item], new: [Item]) -> [Item] {
        let removed = Set(changes.deletions + changes.moves.map(\.from))
        var result = old.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        var inserted: [(Int, Item)] = changes.insertions.map { ($0, new[$0]) }
        inserted += changes.moves.map { ($0.to, old[$0.from]) }
        for (index, item) in inserted.sorted(by: { $0.0 < $1.0 }) { result.insert(item, at: index) }
        for modification in changes.modifications { result[modification.new] = new[modification.new] }
        return result
    }

    static func apply(
        _ changes: ChangeSet<RecordPosition>, to old: [[Item]], new: [[Item]]
    ) -> [[Item]] {
        var sections = old
        let removed = changes.deletions + changes.moves.map(\.from)
        for position in removed.sorted(by: >) { sections[position.section].remove(at: position.item) }
        for section in changes.deletedSections.sorted(by: >) { sections.remove(at: section) }
        for section in changes.insertedSections.sorted() { sections.insert(new[section], at: section) }
        var inserted: [(RecordPosition, Item)] = changes.insertions.map { ($0, new[$0.section][$0.item]) }
        inserted += changes.moves.map { ($0.to, old[$0.from.section][$0.from.item]) }
        for (position, item) in inserted.sorted(by: { $0.0 < $1.0 }) {
            sections[position.section].insert(item, at: position.item)
        }
        for modification in changes.modifications {
            sections[modification.new.section][modification.new.item] =
                new[modification.new.section][modification.new.item]
        }
        return sections
    }

    /// One random step: new posts, changed posts, deleted posts.
    static func step(_ random: inout SeededRandom, existing: inout Set<Int>, store: RecordStore) async throws {
        var posts: [JSONValue] = []
        for _ in 0..<random.next(below: 4) {
            let id = 1 + random.next(below: 40)
            existing.insert(id)
            posts.append(
                S.post(
                    id, title: "t\(random.next(below: 3))", rank: random.next(below: 100),
                    category: ["a", "b", "c", "d"][random.next(below: 4)]))
        }
        if !posts.isEmpty { _ = try await store.populate(.array(posts), entity: "Post") }
        if random.next(below: 3) == 0, let victim = existing.randomElement(using: &random) {
            existing.remove(victim)
            try await store.write { try $0.execute(#"DELETE FROM "Post" WHERE "id" = \#(victim)"#) }
        }
    }

    @Test(arguments: [
        ("all", nil as String?, nil as Int?),
        ("predicate", "rank < 50", nil),
        ("limit", nil, 10),
        ("predicate and limit", "rank >= 20", 7),
    ])
    func flatChangeSetsTurnTheOldResultsIntoTheNew(_ name: String, _ predicate: String?, _ limit: Int?)
        async throws
    {
        let store = try RecordStore(inMemory: S.schema())
        var random = SeededRandom(seed: 0x0B5E_17AB)
        var existing = Set<Int>()
        let observation = store.observe(
            "Post", where: predicate, orderBy: [.descending("rank"), .ascending("title")], limit: limit)
        var iterator = observation.makeAsyncIterator()
        var current = try #require(try await iterator.next()).records.map(Item.init)
        var deliveries = 0
        for _ in 0..<120 {
            try await Self.step(&random, existing: &existing, store: store)
            let expected = try store.fetch(
                "Post", where: predicate, orderBy: [.descending("rank"), .ascending("title")], limit: limit
            ).map(Item.init)
            guard expected != current else { continue }
            let delivery = try #require(try await iterator.next())
            let new = delivery.records.map(Item.init)
            #expect(new == expected, "\(name): the delivery is the store's state")
            let changes = try #require(delivery.changes)
            #expect(Self.apply(changes, to: current, new: new) == new, "\(name): \(current) → \(new) by \(changes)")
            current = new
            deliveries += 1
        }
        #expect(deliveries > 40, "\(name): \(deliveries) deliveries")
    }

    @Test func sectionedChangeSetsTurnTheOldSectionsIntoTheNew() async throws {
        let store = try RecordStore(inMemory: S.schema())
        var random = SeededRandom(seed: 0x5EC7_1045)
        var existing = Set<Int>()
        var iterator = store.observe("Post", orderBy: [.ascending("rank")], sectionKey: "category")
            .makeAsyncIterator()
        func sections(_ results: ObservedResults<Record>) -> [[Item]] {
            results.sections.map { results.records[$0.range].map(Item.init) }
        }
        var current = sections(try #require(try await iterator.next()))
        var deliveries = 0
        for _ in 0..<120 {
            try await Self.step(&random, existing: &existing, store: store)
            let expected = try store.fetch("Post", orderBy: [.ascending("category"), .ascending("rank")]).map(Item.init)
            guard expected != current.flatMap({ $0 }) else { continue }
            let delivery = try #require(try await iterator.next())
            let new = sections(delivery)
            #expect(new.flatMap { $0 } == expected)
            #expect(
                delivery.sections.map(\.key)
                    == Array(Set(expected.map { $0.values["category"] })).compactMap {
                        if case .text(let text)? = $0 { JSONValue.string(text) } else { nil }
                    }.sorted { $0.stringValue ?? "" < $1.stringValue ?? "" })
            let changes = try #require(delivery.sectionChanges)
            #expect(Self.apply(changes, to: current, new: new) == new, "\(current) → \(new) by \(changes)")
            #expect(
                delivery.changes.map { Self.apply($0, to: current.flatMap { $0 }, new: new.flatMap { $0 }) }
                    == new.flatMap { $0 })
            current = new
            deliveries += 1
        }
        #expect(deliveries > 40, "\(deliveries) deliveries")
    }
}
