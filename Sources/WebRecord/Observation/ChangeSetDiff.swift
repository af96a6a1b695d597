/// The change set between two results of an observed fetch, with the semantics ``ChangeSet``
/// documents, in O(n log n).
///
/// Records are identified by their row ID, which should be unique in each result. Should one
/// repeat, one of its occurrences on each side is the record and the others are deleted or
/// inserted, so that the change set still applies.
enum ChangeSetDiff {
    /// The changes from the flat results `old` to `new`, lists of row IDs; `changed(id)` tells
    /// whether a record in both changed its content.
    static func changes(from old: [Int64], to new: [Int64], changed: (Int64) -> Bool) -> ChangeSet<Int> {
        let oldIndex = indices(of: old)
        var matched = [Bool](repeating: false, count: old.count)
        var result = ChangeSet<Int>()
        // The records in both, in reverse new order: last occurrences first, should an ID repeat.
        var common: [(old: Int, new: Int)] = []
        common.reserveCapacity(min(old.count, new.count))
        for position in new.indices.reversed() {
            if let oldPosition = oldIndex[new[position]], !matched[oldPosition] {
                matched[oldPosition] = true
                common.append((oldPosition, position))
            } else {
                result.insertions.append(position)
            }
        }
        common.reverse()
        result.insertions.reverse()
        result.deletions = matched.indices.filter { !matched[$0] }
        let staying = longestIncreasingSubsequence(common.map(\.old))
        for (index, record) in common.enumerated() {
            if !staying[index] {
                result.moves.append(.init(from: record.old, to: record.new))
            }
            if changed(new[record.new]) {
                result.modifications.append(.init(old: record.old, new: record.new))
            }
        }
        return result
    }

    /// The changes from the sectioned results `old` to `new`, lists of section keys and row IDs
    /// normally sorted by section key first, so that the records of a section are contiguous and
    /// sections keep their relative order (``ChangeSet`` says what happens otherwise);
    /// `changed(id)` tells whether a record in both changed its content.
    static func changes<SectionKey: Hashable>(
        from old: [(section: SectionKey, id: Int64)], to new: [(section: SectionKey, id: Int64)],
        changed: (Int64) -> Bool
    ) -> ChangeSet<RecordPosition> {
        let oldSections = Sections(old.lazy.map(\.section))
        let newSections = Sections(new.lazy.map(\.section))
        // For each section, the index of its counterpart on the other side, nil if it has none.
        let (oldCounterparts, newCounterparts) = Sections.match(oldSections, newSections)
        var result = ChangeSet<RecordPosition>()
        result.deletedSections = oldCounterparts.indices.filter { oldCounterparts[$0] == nil }
        result.insertedSections = newCounterparts.indices.filter { newCounterparts[$0] == nil }

        let oldIndex = indices(of: old.lazy.map(\.id))
        var matched = [Bool](repeating: false, count: old.count)
        // The records in both, in surviving sections, in reverse new order. Those that change
        // section always move; the others stay in place if they are in a longest increasing
        // subsequence.
        var common: [(old: Int, new: Int, sameSection: Bool)] = []
        common.reserveCapacity(min(old.count, new.count))
        for position in new.indices.reversed() {
            let path = newSections.positions[position]
            // Inserting the section brings the row, and a record that comes from a surviving
            // section, left unmatched, is deleted there.
            guard newCounterparts[path.section] != nil else { continue }
            guard let oldPosition = oldIndex[new[position].id], !matched[oldPosition] else {
                result.insertions.append(path)
                continue
            }
            matched[oldPosition] = true
            // A record that comes from a deleted section is inserted here.
            guard let counterpart = oldCounterparts[oldSections.positions[oldPosition].section] else {
                result.insertions.append(path)
                continue
            }
            common.append((oldPosition, position, counterpart == path.section))
        }
        common.reverse()
        result.insertions.reverse()
        // Deleting a section removes its rows.
        for (position, path) in oldSections.positions.enumerated()
        where !matched[position] && oldCounterparts[path.section] != nil {
            result.deletions.append(path)
        }

        let staying = longestIncreasingSubsequence(common.filter(\.sameSection).map(\.old))
        var sameSectionIndex = 0
        for record in common {
            let from = oldSections.positions[record.old]
            let to = newSections.positions[record.new]
            var stays = false
            if record.sameSection {
                stays = staying[sameSectionIndex]
                sameSectionIndex += 1
            }
            if !stays {
                result.moves.append(.init(from: from, to: to))
            }
            if changed(new[record.new].id) {
                result.modifications.append(.init(old: from, new: to))
            }
        }
        return result
    }

    /// Each ID's index in `ids`: the last one, should an ID repeat.
    static func indices(of ids: some Collection<Int64>) -> [Int64: Int] {
        var indices: [Int64: Int] = [:]
        indices.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            indices[id] = index
        }
        return indices
    }

    /// For each element of `values`, whether it belongs to a longest strictly increasing
    /// subsequence of them, found by patience sorting in O(n log n), or O(n) when `values`
    /// is increasing.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
        // tails[k]: the index of the least last value of the increasing subsequences of length k + 1.
        var tails: [Int] = []
        // previous[i]: the index of the value before values[i] in the subsequence it ends.
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            if let last = tails.last, values[last] < value {
                low = high
            }
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            if low > 0 {
                previous[index] = tails[low - 1]
            }
            if low == tails.count {
                tails.append(index)
            } else {
                tails[low] = index
            }
        }
        var members = [Bool](repeating: false, count: values.count)
        var index = tails.last ?? -1
        while index >= 0 {
            members[index] = true
            index = previous[index]
        }
        return members
    }

    /// The sections of one result: the runs of records with equal section keys.
    struct Sections<Key: Hashable> {
        /// A section's identity: its key, and how many sections before it have that key.
        struct Identity: Hashable {
            var key: Key
            var occurrence: Int
        }

        /// Each record's section and item.
        var positions: [RecordPosition] = []
        /// Each section's identity.
        var identities: [Identity] = []
        /// Each identity's section.
        var sections: [Identity: Int] = [:]

        init(_ sectionKeys: some Collection<Key>) {
            positions.reserveCapacity(sectionKeys.count)
            var occurrences: [Key: Int] = [:]
            var item = 0
            for key in sectionKeys {
                if let last = identities.last, last.key == key {
                    item += 1
                } else {
                    let identity = Identity(key: key, occurrence: occurrences[key, default: 0])
                    occurrences[key] = identity.occurrence + 1
                    sections[identity] = identities.count
                    identities.append(identity)
                    item = 0
                }
                positions.append(RecordPosition(section: identities.count - 1, item: item))
            }
        }

        /// For each section of `old` and of `new`, its counterpart on the other side, or nil: of
        /// the sections whose identity is on both sides, a largest set whose order is the same
        /// on both sides.
        static func match(_ old: Self, _ new: Self) -> (old: [Int?], new: [Int?]) {
            var pairs: [(old: Int, new: Int)] = []
            for (section, identity) in new.identities.enumerated() {
                if let oldSection = old.sections[identity] {
                    pairs.append((oldSection, section))
                }
            }
            var oldCounterparts = [Int?](repeating: nil, count: old.identities.count)
            var newCounterparts = [Int?](repeating: nil, count: new.identities.count)
            let inOrder = longestIncreasingSubsequence(pairs.map(\.old))
            for (index, pair) in pairs.enumerated() where inOrder[index] {
                oldCounterparts[pair.old] = pair.new
                newCounterparts[pair.new] = pair.old
            }
            return (oldCounterparts, newCounterparts)
        }
    }
}
