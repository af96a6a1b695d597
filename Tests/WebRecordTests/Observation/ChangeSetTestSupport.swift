import WebRecordTesting

@testable import WebRecord

/// A record of observed results, as the tests see it: its row ID and the version of its content.
struct VersionedRow: Hashable, CustomStringConvertible {
    var id: Int64
    var version: Int

    var description: String { "\(id)v\(version)" }
}

/// Why a change set could not be applied.
struct ApplyFailure: Error, CustomStringConvertible {
    var description: String
}

/// Change sets applied by the rules ``ChangeSet`` documents, as UIKit's batch updates apply them.
enum ChangeSetApplication {
    /// `old` after `changes`: remove the deletions and the sources of the moves (old positions),
    /// insert the insertions (the new rows) and the targets of the moves (the moved rows) at
    /// their new positions, lowest first, then replace the modifications with the new rows at
    /// their new positions.
    static func apply(_ changes: ChangeSet<Int>, to old: [VersionedRow], new: [VersionedRow]) throws -> [VersionedRow] {
        var removed: Set<Int> = []
        for position in changes.deletions + changes.moves.map(\.from) {
            guard old.indices.contains(position) else { throw ApplyFailure(description: "no old row \(position)") }
            guard removed.insert(position).inserted else {
                throw ApplyFailure(description: "old row \(position) removed twice")
            }
        }
        var rows = old.indices.filter { !removed.contains($0) }.map { old[$0] }
        var added: [(position: Int, row: VersionedRow)] = []
        for position in changes.insertions {
            guard new.indices.contains(position) else { throw ApplyFailure(description: "no new row \(position)") }
            added.append((position, new[position]))
        }
        for move in changes.moves {
            added.append((move.to, old[move.from]))
        }
        added.sort { $0.position < $1.position }
        for (index, (position, row)) in added.enumerated() {
            if index > 0, added[index - 1].position == position {
                throw ApplyFailure(description: "new row \(position) inserted twice")
            }
            guard position <= rows.count else {
                throw ApplyFailure(description: "insertion past the end at \(position)")
            }
            rows.insert(row, at: position)
        }
        for modification in changes.modifications {
            guard rows.indices.contains(modification.new), new.indices.contains(modification.new) else {
                throw ApplyFailure(description: "no row to modify at \(modification.new)")
            }
            rows[modification.new] = new[modification.new]
        }
        return rows
    }

    /// `old` after `changes`: remove the deleted rows and the sources of the moves (old
    /// positions), and the deleted sections; insert the inserted sections with their new rows;
    /// insert the inserted rows (the new rows) and the targets of the moves (the moved rows) at
    /// their new positions, lowest first; then replace the modifications with the new rows at
    /// their new positions.
    static func apply(
        _ changes: ChangeSet<RecordPosition>, to old: [[VersionedRow]], new: [[VersionedRow]]
    ) throws -> [[VersionedRow]] {
        func row(at position: RecordPosition, in sections: [[VersionedRow]]) -> VersionedRow? {
            guard sections.indices.contains(position.section),
                sections[position.section].indices.contains(position.item)
            else { return nil }
            return sections[position.section][position.item]
        }
        let deletedSections = Set(changes.deletedSections)
        let insertedSections = Set(changes.insertedSections)
        guard deletedSections.count == changes.deletedSections.count, deletedSections.allSatisfy(old.indices.contains)
        else { throw ApplyFailure(description: "bad deleted sections \(changes.deletedSections)") }
        guard insertedSections.count == changes.insertedSections.count,
            insertedSections.allSatisfy(new.indices.contains)
        else { throw ApplyFailure(description: "bad inserted sections \(changes.insertedSections)") }

        var removed: Set<RecordPosition> = []
        for position in changes.deletions + changes.moves.map(\.from) {
            guard row(at: position, in: old) != nil else { throw ApplyFailure(description: "no old row \(position)") }
            guard !deletedSections.contains(position.section) else {
                throw ApplyFailure(description: "old row \(position) is in a deleted section")
            }
            guard removed.insert(position).inserted else {
                throw ApplyFailure(description: "old row \(position) removed twice")
            }
        }
        var sections: [[VersionedRow]] = old.indices.filter { !deletedSections.contains($0) }.map { section in
            old[section].indices.filter { !removed.contains(RecordPosition(section: section, item: $0)) }
                .map { old[section][$0] }
        }
        for section in changes.insertedSections.sorted() {
            guard section <= sections.count else { throw ApplyFailure(description: "section \(section) past the end") }
            sections.insert(new[section], at: section)
        }

        var added: [(position: RecordPosition, row: VersionedRow)] = []
        for position in changes.insertions {
            guard let row = row(at: position, in: new) else {
                throw ApplyFailure(description: "no new row \(position)")
            }
            added.append((position, row))
        }
        for move in changes.moves {
            guard let row = row(at: move.from, in: old) else { throw ApplyFailure(description: "no old row \(move)") }
            added.append((move.to, row))
        }
        added.sort { $0.position < $1.position }
        for (index, (position, row)) in added.enumerated() {
            guard !insertedSections.contains(position.section) else {
                throw ApplyFailure(description: "new row \(position) is in an inserted section")
            }
            if index > 0, added[index - 1].position == position {
                throw ApplyFailure(description: "new row \(position) inserted twice")
            }
            guard sections.indices.contains(position.section), position.item <= sections[position.section].count
            else { throw ApplyFailure(description: "insertion out of bounds at \(position)") }
            sections[position.section].insert(row, at: position.item)
        }
        for modification in changes.modifications {
            let position = modification.new
            guard let row = row(at: position, in: new), sections.indices.contains(position.section),
                sections[position.section].indices.contains(position.item)
            else { throw ApplyFailure(description: "no row to modify at \(position)") }
            sections[position.section][position.item] = row
        }
        return sections
    }
}

/// Random results for the property tests.
enum ChangeSetSamples {
    /// `values` in a random order.
    static func shuffled<T>(_ values: [T], _ random: inout SeededRandom) -> [T] {
        var values = values
        for index in values.indices.dropLast().reversed() {
            values.swapAt(index, random.next(below: index + 1))
        }
        return values
    }

    /// Whether a random event of probability `probability` happens.
    static func chance(_ probability: Double, _ random: inout SeededRandom) -> Bool {
        random.nextFraction() < probability
    }

    /// Random flat results: a random subset of old IDs kept, new IDs added, in a random order or
    /// in the old order with a few records moved, and some records changed.
    static func flat(_ random: inout SeededRandom, count: Int) -> (old: [Int64], new: [Int64], changed: Set<Int64>) {
        let old = shuffled((0..<Int64(random.next(below: count + 1))).map { $0 }, &random)
        let keep = random.nextFraction()
        var new = old.filter { _ in chance(keep, &random) }
        if chance(0.5, &random) {
            new = shuffled(new, &random)
        } else {
            for _ in 0..<random.next(below: 4) where !new.isEmpty {
                let id = new.remove(at: random.next(below: new.count))
                new.insert(id, at: random.next(below: new.count + 1))
            }
        }
        for id in Int64(count)..<Int64(count + random.next(below: count / 2 + 1)) {
            new.insert(id, at: random.next(below: new.count + 1))
        }
        let changeRate = random.nextFraction()
        let changed = Set((old + new).filter { _ in chance(changeRate, &random) })
        return (old, new, changed)
    }

    /// Random sectioned results, sorted by section key first: each side has a random subset of
    /// the section keys, records keep or change their section, and keep, change or lose their
    /// rank within it.
    static func sectioned(
        _ random: inout SeededRandom, count: Int, keys: Int
    ) -> (old: [(section: Int, id: Int64)], new: [(section: Int, id: Int64)], changed: Set<Int64>) {
        let oldKeys = (0..<keys).filter { _ in chance(0.7, &random) }
        let newKeys = (0..<keys).filter { _ in chance(0.7, &random) }
        var old: [(section: Int, id: Int64, rank: Double)] = []
        if !oldKeys.isEmpty {
            for id in 0..<Int64(random.next(below: count + 1)) {
                old.append((oldKeys[random.next(below: oldKeys.count)], id, random.nextFraction()))
            }
        }
        var new: [(section: Int, id: Int64, rank: Double)] = []
        if !newKeys.isEmpty {
            let keep = random.nextFraction()
            let stay = random.nextFraction()
            let reorder = random.nextFraction() * 0.5
            for record in old where chance(keep, &random) {
                let section =
                    newKeys.contains(record.section) && chance(stay, &random)
                    ? record.section : newKeys[random.next(below: newKeys.count)]
                new.append((section, record.id, chance(reorder, &random) ? random.nextFraction() : record.rank))
            }
            for id in Int64(count)..<Int64(count + random.next(below: count / 2 + 1)) {
                new.append((newKeys[random.next(below: newKeys.count)], id, random.nextFraction()))
            }
        }
        func sorted(_ records: [(section: Int, id: Int64, rank: Double)]) -> [(section: Int, id: Int64)] {
            records.sorted { ($0.section, $0.rank, $0.id) < ($1.section, $1.rank, $1.id) }.map { ($0.section, $0.id) }
        }
        let changeRate = random.nextFraction()
        let changed = Set((old.map(\.id) + new.map(\.id)).filter { _ in chance(changeRate, &random) })
        return (sorted(old), sorted(new), changed)
    }

    /// The length of a longest strictly increasing subsequence of `values`, the quadratic way.
    static func longestIncreasingLength(_ values: [Int]) -> Int {
        var lengths: [Int] = []
        for (index, value) in values.enumerated() {
            var length = 1
            for earlier in 0..<index where values[earlier] < value {
                length = max(length, lengths[earlier] + 1)
            }
            lengths.append(length)
        }
        return lengths.max() ?? 0
    }

    /// The rows of `ids`, version 1 for the changed ones when `new`, else version 0.
    static func rows(_ ids: [Int64], changed: Set<Int64>, new: Bool) -> [VersionedRow] {
        ids.map { VersionedRow(id: $0, version: new && changed.contains($0) ? 1 : 0) }
    }

    /// The rows of `records` in sections: one per run of equal section keys.
    static func sections<Key: Equatable>(
        _ records: [(section: Key, id: Int64)], changed: Set<Int64>, new: Bool
    ) -> [[VersionedRow]] {
        var sections: [[VersionedRow]] = []
        var lastKey: Key?
        for record in records {
            let row = VersionedRow(id: record.id, version: new && changed.contains(record.id) ? 1 : 0)
            if let lastKey, lastKey == record.section, !sections.isEmpty {
                sections[sections.count - 1].append(row)
            } else {
                sections.append([row])
            }
            lastKey = record.section
        }
        return sections
    }
}
