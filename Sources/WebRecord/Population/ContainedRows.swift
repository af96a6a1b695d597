/// The rows a run contained, by table: every record it named, at any depth and of any entity,
/// as an object or as a reference by key (DESIGN §3.14).
///
/// Orphan deletion keeps the requested entity's (``rowIDs(in:)`` of its table), and no delete the
/// run starts, directly or by a cascade, removes any of them: it unlinks them instead
/// (``RecordDeleter``).
///
/// Each table's `_id`s are a ``RowIDSet``: a run names every row it stores, and a response of a
/// million rows keeps a few hundred kilobytes here, not tens of megabytes.
package struct ContainedRows: Sendable, Hashable {
    private var byTable: [String: RowIDSet] = [:]

    /// No rows.
    package init() {}

    /// Whether the row `rowID` of `table` is among them.
    package func contains(_ rowID: Int64, in table: String) -> Bool {
        byTable[table]?.contains(rowID) ?? false
    }

    /// The `_id`s of the rows of `table` among them.
    package func rowIDs(in table: String) -> Set<Int64> {
        Set(byTable[table] ?? RowIDSet())
    }

    /// Whether there are none.
    package var isEmpty: Bool { byTable.values.allSatisfy(\.isEmpty) }

    /// Adds the row `rowID` of `table`.
    package mutating func insert(_ rowID: Int64, in table: String) {
        byTable[table, default: RowIDSet()].insert(rowID)
    }

    /// Adds the rows `rowIDs` of `table`.
    package mutating func insert(contentsOf rowIDs: [Int64], in table: String) {
        guard !rowIDs.isEmpty else { return }
        func add(_ set: inout RowIDSet) {
            for rowID in rowIDs { set.insert(rowID) }
        }
        add(&byTable[table, default: RowIDSet()])
    }

    /// Removes the row `rowID` of `table`: a row the population took back (a stream's
    /// ``RecordDeleter/unmake(_:)``), whose `_id` a later population may give another record.
    package mutating func remove(_ rowID: Int64, in table: String) {
        byTable[table]?.remove(rowID)
    }

    /// Adds the rows of `other`, e.g. those of another page of the same run.
    package mutating func formUnion(_ other: ContainedRows) {
        for (table, rowIDs) in other.byTable {
            byTable[table, default: RowIDSet()].formUnion(rowIDs)
        }
    }
}
