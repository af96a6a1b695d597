import Testing
import WebRecordTesting

@testable import WebRecord

/// The change sets of observed fetches: what changed between two results, by the rules
/// `ChangeSet` documents, checked on hand-written cases and by applying random ones.
@Suite struct ChangeSetTests {
    typealias Flat = ChangeSet<Int>
    typealias Sectioned = ChangeSet<RecordPosition>

    static func diff(_ old: [Int64], _ new: [Int64], changed: Set<Int64> = []) -> Flat {
        ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
    }

    static func diff(
        _ old: [(section: String, id: Int64)], _ new: [(section: String, id: Int64)], changed: Set<Int64> = []
    ) -> Sectioned {
        ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
    }

    static func at(_ section: Int, _ item: Int) -> RecordPosition {
        RecordPosition(section: section, item: item)
    }

    // MARK: - Flat results

    @Test("Empty results to empty results change nothing")
    func emptyToEmpty() {
        let changes = Self.diff([Int64](), [])
        #expect(changes.isEmpty)
        #expect(changes == Flat())
    }

    @Test("Equal results with no change change nothing")
    func unchanged() {
        #expect(Self.diff([3, 1, 2], [3, 1, 2]).isEmpty)
    }

    @Test("Records in new results only are inserted")
    func allInserted() {
        #expect(Self.diff([], [7, 8, 9], changed: [8]) == Flat(insertions: [0, 1, 2]))
    }

    @Test("Records in old results only are deleted")
    func allDeleted() {
        #expect(Self.diff([7, 8, 9], [], changed: [8]) == Flat(deletions: [0, 1, 2]))
    }

    @Test("Two records that swap places make one move")
    func swap() {
        let changes = Self.diff([1, 2], [2, 1])
        #expect(changes == Flat(moves: [.init(from: 1, to: 0)]))
        #expect(!changes.isEmpty)
    }

    @Test("A record moved to the front is the only move")
    func moveToFront() {
        #expect(Self.diff([1, 2, 3, 4], [4, 1, 2, 3]) == Flat(moves: [.init(from: 3, to: 0)]))
    }

    @Test("A changed record that stays in place is a modification only")
    func modificationOnly() {
        #expect(Self.diff([1, 2, 3], [1, 2, 3], changed: [2]) == Flat(modifications: [.init(old: 1, new: 1)]))
    }

    @Test("A record that moved and changed is both a move and a modification")
    func movedAndModified() {
        #expect(
            Self.diff([1, 2, 3], [3, 1, 2], changed: [3])
                == Flat(modifications: [.init(old: 2, new: 0)], moves: [.init(from: 2, to: 0)]))
    }

    @Test("Deletions, insertions, moves and modifications together")
    func mixed() {
        // 2 deleted, 5 inserted, 4 moved to the front, 3 changed in place (relative to 1 and 4).
        #expect(
            Self.diff([1, 2, 3, 4], [4, 5, 1, 3], changed: [2, 3, 5])
                == Flat(
                    deletions: [1], insertions: [1], modifications: [.init(old: 2, new: 3)],
                    moves: [.init(from: 3, to: 0)]))
    }

    // MARK: - Sectioned results

    @Test("Sections absent from one side are deleted or inserted with their rows")
    func sectionsInsertedAndDeleted() {
        let changes = Self.diff(
            [("a", 1), ("a", 2), ("b", 3)], [("b", 3), ("c", 4), ("c", 5)], changed: [1, 4])
        #expect(changes == Sectioned(deletedSections: [0], insertedSections: [1]))
    }

    @Test("A record that goes from one surviving section to another is a move")
    func moveBetweenSurvivingSections() {
        // In flat order nothing moved: only the section changed.
        let changes = Self.diff([("a", 1), ("a", 2), ("b", 3)], [("a", 1), ("b", 2), ("b", 3)], changed: [2])
        #expect(
            changes
                == Sectioned(
                    modifications: [.init(old: Self.at(0, 1), new: Self.at(1, 0))],
                    moves: [.init(from: Self.at(0, 1), to: Self.at(1, 0))]))
    }

    @Test("A record that leaves a deleted section is an insertion, not a move nor a modification")
    func moveFromDeletedSection() {
        let changes = Self.diff([("a", 1), ("b", 2)], [("b", 1), ("b", 2)], changed: [1, 2])
        #expect(
            changes
                == Sectioned(
                    deletedSections: [0], insertions: [Self.at(0, 0)],
                    modifications: [.init(old: Self.at(1, 0), new: Self.at(0, 1))]))
    }

    @Test("A record that goes into an inserted section is a deletion, not a move nor a modification")
    func moveIntoInsertedSection() {
        let changes = Self.diff([("a", 1), ("a", 2)], [("a", 2), ("b", 1)], changed: [1])
        #expect(changes == Sectioned(insertedSections: [1], deletions: [Self.at(0, 0)]))
    }

    @Test("Moves within a section are as few as in flat results")
    func moveWithinSection() {
        let changes = Self.diff(
            [("a", 1), ("b", 2), ("b", 3), ("b", 4)], [("a", 1), ("b", 4), ("b", 2), ("b", 3)])
        #expect(changes == Sectioned(moves: [.init(from: Self.at(1, 2), to: Self.at(1, 0))]))
    }

    @Test("Sections that swap places: one is deleted and inserted, and the change set applies")
    func sectionsOutOfOrder() throws {
        let old: [(section: String, id: Int64)] = [("a", 1), ("b", 2)]
        let new: [(section: String, id: Int64)] = [("b", 2), ("a", 1)]
        let changes = Self.diff(old, new)
        #expect(changes == Sectioned(deletedSections: [1], insertedSections: [0]))
        try Self.expectSectionedApplies(changes, old, new, changed: [])
    }

    @Test("A key that comes back after another one makes a section per run, matched by rank")
    func repeatedSectionKey() throws {
        let old: [(section: String, id: Int64)] = [("a", 1), ("b", 2), ("a", 3), ("a", 4)]
        #expect(Self.diff(old, old).isEmpty)
        let new: [(section: String, id: Int64)] = [("a", 1), ("b", 2), ("a", 4), ("a", 3), ("b", 5)]
        let changes = Self.diff(old, new)
        #expect(
            changes
                == Sectioned(insertedSections: [3], moves: [.init(from: Self.at(2, 1), to: Self.at(2, 0))]))
        try Self.expectSectionedApplies(changes, old, new, changed: [])
    }

    @Test("A repeated row ID: its last occurrence is the record, and the change set applies")
    func repeatedID() throws {
        let old: [Int64] = [1, 2, 1, 3]
        let new: [Int64] = [3, 1, 3, 2]
        let changes = Self.diff(old, new, changed: [3])
        let result = try ChangeSetApplication.apply(
            changes, to: ChangeSetSamples.rows(old, changed: [3], new: false),
            new: ChangeSetSamples.rows(new, changed: [3], new: true))
        #expect(result == ChangeSetSamples.rows(new, changed: [3], new: true))
    }

    // MARK: - Random results

    @Test("Random flat change sets apply, with as few moves as can be")
    func randomFlat() throws {
        var random = SeededRandom(seed: 20_240_611)
        for _ in 0..<400 {
            let sample = ChangeSetSamples.flat(&random, count: 30)
            try Self.checkFlat(sample.old, sample.new, changed: sample.changed)
        }
    }

    @Test("Random sectioned change sets apply, with as few moves as can be")
    func randomSectioned() throws {
        var random = SeededRandom(seed: 7_021)
        for _ in 0..<400 {
            let sample = ChangeSetSamples.sectioned(&random, count: 30, keys: 5)
            try Self.checkSectioned(sample.old, sample.new, changed: sample.changed)
        }
    }

    @Test("Random change sets apply when IDs repeat and section keys come in any order")
    func randomUnsortedInput() throws {
        var random = SeededRandom(seed: 99)
        for _ in 0..<300 {
            let old = (0..<random.next(below: 20)).map { _ in
                (section: random.next(below: 4), id: Int64(random.next(below: 15)))
            }
            let new = (0..<random.next(below: 20)).map { _ in
                (section: random.next(below: 4), id: Int64(random.next(below: 15)))
            }
            let changed = Set((0..<15).map(Int64.init).filter { _ in ChangeSetSamples.chance(0.3, &random) })

            let flatChanges = ChangeSetDiff.changes(from: old.map(\.id), to: new.map(\.id), changed: changed.contains)
            let newRows = ChangeSetSamples.rows(new.map(\.id), changed: changed, new: true)
            let flatResult = try ChangeSetApplication.apply(
                flatChanges, to: ChangeSetSamples.rows(old.map(\.id), changed: changed, new: false), new: newRows)
            #expect(flatResult == newRows, "\(old) → \(new): \(flatChanges)")

            let changes = ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
            try Self.expectSectionedApplies(changes, old, new, changed: changed)
        }
    }

    @Test("20,000 records with a few changes: the change set applies and its moves are few")
    func large() throws {
        var random = SeededRandom(seed: 20_000)
        let old = ChangeSetSamples.shuffled((0..<20_000).map(Int64.init), &random)
        var new = old.filter { _ in !ChangeSetSamples.chance(0.001, &random) }
        var moved: Set<Int64> = []
        for _ in 0..<25 {
            let id = new.remove(at: random.next(below: new.count))
            moved.insert(id)
            new.insert(id, at: random.next(below: new.count + 1))
        }
        for id in 20_000..<20_030 {
            new.insert(Int64(id), at: random.next(below: new.count + 1))
        }
        let changed = Set(new.filter { _ in ChangeSetSamples.chance(0.01, &random) })
        let changes = ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
        #expect(changes.moves.count <= moved.count)
        #expect(changes.insertions.count == 30)
        let newRows = ChangeSetSamples.rows(new, changed: changed, new: true)
        #expect(
            try ChangeSetApplication.apply(
                changes, to: ChangeSetSamples.rows(old, changed: changed, new: false), new: newRows) == newRows)
    }

    // MARK: - Checks

    /// Checks the flat change set from `old` to `new` against the rules: it applies, its parts
    /// are sorted and name the right records, and its moves are as few as can be.
    static func checkFlat(_ old: [Int64], _ new: [Int64], changed: Set<Int64>) throws {
        let changes = ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
        let context = "\(old) → \(new), changed \(changed.sorted()): \(changes)"
        let newRows = ChangeSetSamples.rows(new, changed: changed, new: true)
        let result = try ChangeSetApplication.apply(
            changes, to: ChangeSetSamples.rows(old, changed: changed, new: false), new: newRows)
        #expect(result == newRows, "\(context)")

        #expect(changes.deletedSections.isEmpty && changes.insertedSections.isEmpty)
        #expect(isAscending(changes.deletions) && isAscending(changes.insertions), "\(context)")
        #expect(isAscending(changes.modifications.map(\.new)) && isAscending(changes.moves.map(\.to)), "\(context)")
        #expect(changes.moves.allSatisfy { old[$0.from] == new[$0.to] }, "\(context)")
        #expect(changes.modifications.allSatisfy { old[$0.old] == new[$0.new] }, "\(context)")

        let oldIDs = Set(old)
        let newIDs = Set(new)
        #expect(Set(changes.deletions.map { old[$0] }) == oldIDs.subtracting(newIDs), "\(context)")
        #expect(Set(changes.insertions.map { new[$0] }) == newIDs.subtracting(oldIDs), "\(context)")
        #expect(
            Set(changes.modifications.map { new[$0.new] }) == oldIDs.intersection(newIDs).intersection(changed),
            "\(context)")
        #expect(changes.isEmpty == (old == new && oldIDs.isDisjoint(with: changed)), "\(context)")

        let oldIndex = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1, $0) })
        let commonOldIndices = new.compactMap { oldIndex[$0] }
        let kept = ChangeSetSamples.longestIncreasingLength(commonOldIndices)
        #expect(changes.moves.count == commonOldIndices.count - kept, "\(context)")
    }

    /// Checks the sectioned change set from `old` to `new` (sorted by section key first) against
    /// the rules: it applies, its parts are sorted and name the right sections and records, and
    /// its moves are as few as can be.
    static func checkSectioned(
        _ old: [(section: Int, id: Int64)], _ new: [(section: Int, id: Int64)], changed: Set<Int64>
    ) throws {
        let changes = ChangeSetDiff.changes(from: old, to: new, changed: changed.contains)
        let context = "\(old) → \(new), changed \(changed.sorted()): \(changes)"
        try expectSectionedApplies(changes, old, new, changed: changed)

        #expect(isAscending(changes.deletedSections) && isAscending(changes.insertedSections), "\(context)")
        #expect(isAscending(changes.deletions) && isAscending(changes.insertions), "\(context)")
        #expect(isAscending(changes.modifications.map(\.new)) && isAscending(changes.moves.map(\.to)), "\(context)")

        let oldKeys = uniqued(old.map(\.section))
        let newKeys = uniqued(new.map(\.section))
        #expect(changes.deletedSections == oldKeys.indices.filter { !newKeys.contains(oldKeys[$0]) }, "\(context)")
        #expect(changes.insertedSections == newKeys.indices.filter { !oldKeys.contains(newKeys[$0]) }, "\(context)")

        let oldSection = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0.section) })
        let newSection = Dictionary(uniqueKeysWithValues: new.map { ($0.id, $0.section) })
        let oldRows = ChangeSetSamples.sections(old, changed: changed, new: false)
        let newRows = ChangeSetSamples.sections(new, changed: changed, new: true)
        func oldID(_ position: RecordPosition) -> Int64 { oldRows[position.section][position.item].id }
        func newID(_ position: RecordPosition) -> Int64 { newRows[position.section][position.item].id }
        #expect(changes.moves.allSatisfy { oldID($0.from) == newID($0.to) }, "\(context)")
        #expect(changes.modifications.allSatisfy { oldID($0.old) == newID($0.new) }, "\(context)")

        // A record is deleted when it leaves a surviving section for none or for an inserted one.
        let expectedDeletions = old.filter {
            newKeys.contains($0.section) && !(newSection[$0.id].map(oldKeys.contains) ?? false)
        }
        #expect(Set(changes.deletions.map(oldID)) == Set(expectedDeletions.map(\.id)), "\(context)")
        let expectedInsertions = new.filter {
            oldKeys.contains($0.section) && !(oldSection[$0.id].map(newKeys.contains) ?? false)
        }
        #expect(Set(changes.insertions.map(newID)) == Set(expectedInsertions.map(\.id)), "\(context)")
        // The records in surviving sections on both sides, in new order.
        let common = new.filter {
            oldKeys.contains($0.section) && (oldSection[$0.id].map(newKeys.contains) ?? false)
        }
        #expect(
            Set(changes.modifications.map { newID($0.new) }) == Set(common.map(\.id)).intersection(changed),
            "\(context)")

        // Records that change section all move; in each section, those outside a longest
        // increasing subsequence of old positions move.
        let oldIndex = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
        var kept = 0
        for key in newKeys {
            let staying = common.filter { $0.section == key && oldSection[$0.id] == key }
            kept += ChangeSetSamples.longestIncreasingLength(staying.compactMap { oldIndex[$0.id] })
        }
        #expect(changes.moves.count == common.count - kept, "\(context)")
    }

    /// Expects `changes` applied to the sections of `old` to give those of `new`.
    static func expectSectionedApplies<Key: Equatable>(
        _ changes: Sectioned, _ old: [(section: Key, id: Int64)], _ new: [(section: Key, id: Int64)],
        changed: Set<Int64>
    ) throws {
        let newRows = ChangeSetSamples.sections(new, changed: changed, new: true)
        let result = try ChangeSetApplication.apply(
            changes, to: ChangeSetSamples.sections(old, changed: changed, new: false), new: newRows)
        #expect(result == newRows, "\(old) → \(new), changed \(changed.sorted()): \(changes)")
    }

    static func isAscending<T: Comparable>(_ values: [T]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    }

    static func uniqued(_ keys: [Int]) -> [Int] {
        var result: [Int] = []
        for key in keys where result.last != key {
            result.append(key)
        }
        return result
    }
}
