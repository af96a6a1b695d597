import Foundation

/// The state of one running observation: its current results and what it is subscribed to.
///
/// It is written once for every engine, over ``ObservableDatabase``: SQLite's announces each
/// commit with the rows it changed, PostgreSQL's with the tables.
///
/// It belongs to the iterator of a ``RecordObservation`` and is used only from the task
/// iterating it, except while a refresh reads on the store's reader executor, which the
/// iterator awaits. Its records are handed to the consumer with each delivery and kept for the
/// next comparison: a record is an immutable snapshot, and the engine reads only `Record`'s own
/// immutable properties (`rowID`, `storedValues`), never a subclass's.
///
/// `@unchecked Sendable` is safe as it is used: an async iterator is used by one task at a
/// time, which awaits each call into the engine, so the engine is never used concurrently; it
/// only crosses isolation with the iterator, from one `next` call to the next.
final class ObservationEngine<RecordClass: Record>: @unchecked Sendable {
    let database: any RecordDatabase
    let query: ResolvedQuery
    let pending: PendingChanges
    private let subscription: ChangeFeed.Subscription
    /// The results last delivered, in order.
    private(set) var records: [RecordClass] = []
    /// The same records by rowid.
    private var byID: [Int64: RecordClass] = [:]
    /// What counts as part of each delivered record besides its row (see
    /// ``ResolvedQuery/extras(of:with:database:)``), by rowid.
    private var extras: [Int64: [[DatabaseValue]]] = [:]
    /// The database's version when the results were read (see
    /// ``ObservableDatabase/readForObservation(_:)``).
    private var dataVersion: Int64 = 0

    /// What a refresh delivers.
    struct Delivery {
        var records: [RecordClass]
        var changes: ChangeSet<Int>
        var sectionChanges: ChangeSet<RecordPosition>?
    }

    /// Subscribes to the store's commits, then reads the initial results: a commit between the
    /// two is pending, not lost.
    init(database: any RecordDatabase, query: ObservedQuery) async throws(WebRecordError) {
        self.database = database
        self.query = try ResolvedQuery(query, in: database)
        let pending = PendingChanges(region: self.query.region)
        self.pending = pending
        subscription = try await database.subscribeToCommits(
            onChange: { pending.add($0) }, onFailure: { pending.fail($0) })
        let read = try await read(rowIDs: nil)
        records = read.records
        byID = Dictionary(read.records.map { ($0.rowID, $0) }, uniquingKeysWith: { first, _ in first })
        extras = read.extras
        dataVersion = read.version
    }

    deinit {
        subscription.cancel()
        pending.cancel()
    }

    // MARK: - Reading

    /// What a read gives.
    private struct Read {
        var records: [RecordClass]
        var extras: [Int64: [[DatabaseValue]]]
        var version: Int64
    }

    /// Reads the results in order, or, with `rowIDs`, those of the results among them.
    private func read(rowIDs: Set<Int64>?) async throws(WebRecordError) -> Read {
        let query = self.query
        let database = self.database
        let read = try await database.readForObservation { queries throws(WebRecordError) in
            let records: [Record]
            if let rowIDs {
                records = try query.fetch(rowIDs: rowIDs, with: queries, database: database)
            } else {
                records = try query.fetch(with: queries, database: database)
            }
            let extras = try query.extras(of: records, with: queries, database: database)
            return HandOver((records: records.map(RecordClass.typed), extras: extras))
        }
        return Read(records: read.value.value.records, extras: read.value.value.extras, version: read.version)
    }

    /// Whether a commit the subscription does not announce happened since the results were
    /// read: on SQLite, another process's, or another connection's to the file.
    func externalCommitHappened() async throws(WebRecordError) -> Bool {
        try await database.unannouncedCommitHappened(since: dataVersion)
    }

    // MARK: - Refreshing

    /// Reads the results again after `change` and compares them with the last delivered ones.
    ///
    /// A change that touched only the entity's own rows, known by rowid, in results with no limit
    /// and no sections, refetches just those rows and compares them alone: every other record
    /// keeps its values and its relative order, so the work grows with the change, not with the
    /// results. Any other change reads and compares the whole results. The rows are placed by
    /// SQLite's order of values, so only a SQLite store's changes take that path (PostgreSQL's
    /// name no rows anyway).
    ///
    /// - Returns: the new results and their change set, or nil when nothing the observation
    ///   shows changed.
    func refresh(after change: StoreChange) async throws(WebRecordError) -> Delivery? {
        if query.query.sectionKey == nil, database.dialect == .sqlite, let rows = query.rowsToRefetch(change) {
            return try await refresh(rows: rows)
        }
        let read = try await read(rowIDs: nil)
        dataVersion = read.version
        let oldExtras = extras
        let oldByID = byID
        let newByID = Dictionary(read.records.map { ($0.rowID, $0) }, uniquingKeysWith: { first, _ in first })
        let query = self.query
        let changed: (Int64) -> Bool = { id in
            guard let old = oldByID[id], let new = newByID[id] else { return false }
            return !query.hasSameValues(old, new) || oldExtras[id] != read.extras[id]
        }
        // A record at an `_id` another record had, with another key, is not that record: SQLite
        // gives a new row the largest `_id` plus one, so the last row's `_id` comes back after
        // it is deleted. It gets an ID of its own (negative: row IDs are positive), and the one
        // it replaced is deleted.
        let newIDs = read.records.map { record in
            guard let old = oldByID[record.rowID], !isSameRecord(old, record) else { return record.rowID }
            return ~record.rowID
        }
        let changes = ChangeSetDiff.changes(from: records.map(\.rowID), to: newIDs, changed: changed)
        var sectionChanges: ChangeSet<RecordPosition>?
        if let key = query.query.sectionKey {
            sectionChanges = ChangeSetDiff.changes(
                from: records.map { (section: $0.storedValues[key] ?? .null, id: $0.rowID) },
                to: zip(read.records, newIDs).map { (section: $0.storedValues[key] ?? .null, id: $1) },
                changed: changed)
        }
        records = read.records
        byID = newByID
        extras = read.extras
        guard !changes.isEmpty || sectionChanges?.isEmpty == false else { return nil }
        return Delivery(records: records, changes: changes, sectionChanges: sectionChanges)
    }

    /// Refetches the rows `rows` and places them in the results (see ``refresh(after:)``).
    private func refresh(rows: Set<Int64>) async throws(WebRecordError) -> Delivery? {
        let read = try await read(rowIDs: rows)
        // The version is not taken from this read: it may hold another connection's commit,
        // made next to the one announced, which only the rows this read names would then stand
        // for. Kept as it was, the next check (``externalCommitHappened()``) reads the results
        // whole, and a commit of another connection is delivered, not lost.
        // The changed records as they were, by old index.
        let old = rows.compactMap { id in byID[id].map { (index: index(of: $0, in: records), record: $0) } }
            .sorted { $0.index < $1.index }
        // Taken out, so that the array is changed in place when the consumer let go of the last
        // delivery, and copied once otherwise.
        var updated = records
        records = []
        for entry in old.reversed() { updated.remove(at: entry.index) }
        for record in read.records { updated.insert(record, at: insertionIndex(of: record, in: updated)) }
        // The changed records as they are, by new index (the read is in the results' order).
        let new = read.records.map { (index: index(of: $0, in: updated), record: $0) }

        var changes = ChangeSet<Int>()
        // A row now holding another record than before (its `_id` reused, see
        // ``refresh(after:)``): the old one is deleted, the new one inserted.
        let replaced = Set(
            read.records.filter { record in byID[record.rowID].map { !isSameRecord($0, record) } ?? false }
                .map(\.rowID))
        let newIDs = Set(read.records.map(\.rowID)).subtracting(replaced)
        changes.deletions = old.filter { !newIDs.contains($0.record.rowID) }.map(\.index)
        changes.insertions = new.filter { byID[$0.record.rowID] == nil || replaced.contains($0.record.rowID) }
            .map(\.index)
        // A record in both moved when the records that did not change are not before it in the
        // same number in both results; among those that are, the fewest that break their old
        // order move.
        let oldPlace = Dictionary(
            old.enumerated().map {
                ($0.element.record.rowID, (index: $0.element.index, rank: $0.element.index - $0.offset))
            },
            uniquingKeysWith: { first, _ in first })
        var kept: [(old: Int, new: Int)] = []
        var moved: [(old: Int, new: Int)] = []
        for (offset, entry) in new.enumerated() {
            guard let place = oldPlace[entry.record.rowID], !replaced.contains(entry.record.rowID) else { continue }
            let rank = entry.index - offset
            if rank == place.rank {
                kept.append((place.index, entry.index))
            } else {
                moved.append((place.index, entry.index))
            }
            if let previous = byID[entry.record.rowID],
                !query.hasSameValues(previous, entry.record)
                    || extras[entry.record.rowID] != read.extras[entry.record.rowID]
            {
                changes.modifications.append(ChangeSet.Modification(old: place.index, new: entry.index))
            }
        }
        let inOrder = Set(Self.longestIncreasingRun(kept.map(\.old)))
        moved += kept.filter { !inOrder.contains($0.old) }
        changes.moves = moved.sorted { $0.new < $1.new }.map { ChangeSet.Move(from: $0.old, to: $0.new) }

        records = updated
        for entry in old {
            byID[entry.record.rowID] = nil
            extras[entry.record.rowID] = nil
        }
        for record in read.records {
            byID[record.rowID] = record
            extras[record.rowID] = read.extras[record.rowID]
        }
        guard !changes.isEmpty else { return nil }
        return Delivery(records: records, changes: changes, sectionChanges: nil)
    }

    /// Whether `new`, read at `old`'s `_id`, is the same record: the stored values of its primary
    /// key (the owner's `_id` for a key that is a relationship) are `old`'s. The key is each
    /// record's own entity's, so that a sub-entity's key identifies its records when the
    /// observed entity has none (DESIGN §3.3). Without a primary key, the `_id` is all there is,
    /// and it is.
    private func isSameRecord(_ old: RecordClass, _ new: RecordClass) -> Bool {
        let oldKey = old.entity.primaryKey?.propertyNames ?? query.entity.primaryKey?.propertyNames ?? []
        let newKey = new.entity.primaryKey?.propertyNames ?? query.entity.primaryKey?.propertyNames ?? []
        if oldKey.isEmpty, newKey.isEmpty { return true }
        return Set(oldKey + newKey).allSatisfy { old.storedValues[$0] == new.storedValues[$0] }
    }

    /// The index of `record` in `records`, which are in the query's order and hold it.
    private func index(of record: RecordClass, in records: [RecordClass]) -> Int {
        let index = insertionIndex(of: record, in: records)
        if index < records.count, records[index].rowID == record.rowID { return index }
        // The order of values in Swift should always be SQLite's; if it ever is not, search.
        return records.firstIndex { $0.rowID == record.rowID } ?? index
    }

    /// Where `record` goes in `records`, which are in the query's order.
    private func insertionIndex(of record: RecordClass, in records: [RecordClass]) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if query.precedes(records[middle], record) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The values of a longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // indices into values
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var current = tails.last ?? -1
        while current >= 0 {
            run.append(values[current])
            current = previous[current]
        }
        return run.reversed()
    }

    // MARK: - Sections

    /// The sections of `records` by the section key.
    func sections(of records: [RecordClass]) -> [RecordSection] {
        guard let key = query.query.sectionKey else { return [] }
        var sections: [RecordSection] = []
        var start = 0
        for index in records.indices.dropFirst()
        where records[index].storedValues[key] ?? .null != records[start].storedValues[key] ?? .null {
            sections.append(RecordSection(key: records[start].jsonValue(key) ?? .null, range: start..<index))
            start = index
        }
        if !records.isEmpty {
            sections.append(RecordSection(key: records[start].jsonValue(key) ?? .null, range: start..<records.count))
        }
        return sections
    }
}
