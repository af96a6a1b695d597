/// One row touched by a population: a position in its table's rows (``BatchRows``), which hold
/// what the row holds now and what changed.
///
/// A handle, not an object: a batch touches tens of thousands of rows, and each table keeps
/// theirs column-wise, every row's values one after another in one array, so that making,
/// changing and freeing a row allocates nothing of its own. Two handles are equal when they name
/// the same row. Values are addressed by column position (``TablePlan/columns``), never by name.
struct RowState: Hashable {
    /// The row's table.
    ///
    /// Unowned: the batch's graph holds its tables (``TablePlans``) until the batch is written,
    /// and no row outlives its batch (a streamed population keeps ``RowKey``s across batches).
    unowned(unsafe) let table: TablePlan
    /// The row's position among the table's rows.
    let index: Int

    /// A new row: every value null.
    init(newIn table: TablePlan, rowID: Int64, entityName: String) {
        self.table = table
        index = table.rows.appendNew(rowID: rowID, entityName: entityName)
    }

    /// The row at `index` among `table`'s rows.
    init(in table: TablePlan, at index: Int) {
        self.table = table
        self.index = index
    }

    /// A stored row, with its values in ``TablePlan/columns`` order.
    ///
    /// A `json` value is taken in its canonical form (``ValueCoercion/canonicalJSON(_:)``), the
    /// form a population writes: a value stored with its keys in another order is equal to the
    /// same value in a response, so the row is not rewritten for it.
    init(storedIn table: TablePlan, rowID: Int64, entityName: String, values: [DatabaseValue]) {
        self.table = table
        index = table.rows.appendStored(rowID: rowID, entityName: entityName, values: values)
    }

    static func == (lhs: RowState, rhs: RowState) -> Bool { lhs.table === rhs.table && lhs.index == rhs.index }

    /// One word hashed: the position, and the table's position in the layout (rows of two
    /// tables that hash alike are told apart by ``==``).
    func hash(into hasher: inout Hasher) {
        hasher.combine(index &* 1024 &+ table.index)
    }

    /// The table's rows, where this one's fields are.
    private var rows: BatchRows { table.rows }

    /// The row's `_id`.
    var rowID: Int64 {
        get { rows.rowIDs[index] }
        nonmutating set { rows.rowIDs[index] = newValue }
    }

    /// The concrete entity the row is a record of (its `_entity`).
    var entityName: String {
        get { rows.entityNames[index] }
        nonmutating set { rows.entityNames[index] = newValue }
    }

    /// The row's values: for a stored row, as stored and then as the population sets them;
    /// for a new row, `.null` until set.
    var values: RowValues { RowValues(rows: rows, row: index) }

    /// The values as stored before the population; nil for a new row.
    var original: [DatabaseValue]? {
        let flags = rows.flags[index]
        if flags.contains(.isNew) { return nil }
        return flags.contains(.keepsOriginal) ? rows.originals[index] : Array(values)
    }

    /// The value at `column` as stored before the population; nil for a new row.
    func originalValue(at column: Int) -> DatabaseValue? {
        let flags = rows.flags[index]
        if flags.contains(.isNew) { return nil }
        return flags.contains(.keepsOriginal) ? rows.originals[index]?[column] : values[column]
    }

    /// Whether the row is created by this population.
    var isNew: Bool { rows.flags[index].contains(.isNew) }

    /// Whether the row was written (inserted, or updated for a value or a link of its own).
    var isChanged: Bool {
        get { rows.flags[index].contains(.isChanged) }
        nonmutating set { rows.setFlag(.isChanged, newValue, at: index) }
    }

    /// Whether the population added a member to one of the row's to-many relationships kept on
    /// the members (their foreign key now names this row): the row counts as updated, though
    /// none of its own columns changed.
    var gainedMembers: Bool {
        get { rows.flags[index].contains(.gainedMembers) }
        nonmutating set { rows.setFlag(.gainedMembers, newValue, at: index) }
    }

    /// The sub-entity the stored row was before the response made it another one, whose
    /// attributes and relationships the new one lacks and the marshaler clears (nil otherwise).
    var switchedFrom: Representation? {
        get { rows.switchedFrom.isEmpty ? nil : rows.switchedFrom[index]?.takeUnretainedValue() }
        nonmutating set { rows.switchedFrom[index] = newValue.map(Unmanaged.passUnretained) }
    }

    /// Sets the value at `column`, unless it holds that value already: a stored row whose values
    /// a response gives again as they are is then unchanged, and ``hasChangedValues`` compares
    /// no value.
    func set(_ value: DatabaseValue, at column: Int) {
        values[column] = value
    }

    /// Whether a stored row's values differ from what is stored.
    var hasChangedValues: Bool {
        let flags = rows.flags[index]
        if flags.contains(.isNew) { return true }
        guard flags.contains(.keepsOriginal), let original = rows.originals[index] else { return false }
        return !original.elementsEqual(values)
    }

    /// The row's values as a dictionary by column name, for a ``Record``.
    var snapshot: [String: DatabaseValue] { table.dictionary(Array(values)) }
}

/// The values of one row (``RowState/values``), read and written in place in its table's rows.
struct RowValues: RandomAccessCollection {
    /// Unowned: the handle the values were read from holds the table, which holds its rows.
    unowned(unsafe) let rows: BatchRows
    let row: Int

    var startIndex: Int { 0 }
    var endIndex: Int { rows.width }

    /// The value at `column`. Setting one that differs from it keeps, for a stored row, what
    /// was stored before (``RowState/original``).
    subscript(column: Int) -> DatabaseValue {
        get { rows.values[row * rows.width + column] }
        nonmutating set {
            let position = row * rows.width + column
            guard rows.values[position] != newValue else { return }
            rows.keepOriginal(of: row)
            rows.values[position] = newValue
        }
    }
}

/// The rows of one table that a batch touches, column-wise (``RowState``): their `_id`s, their
/// entities, their flags, and every row's values one after another, ``width`` per row.
///
/// Held by the batch's ``TablePlan``, used by the one thread that writes the batch, and emptied
/// when the batch is written (``removeAll()``).
final class BatchRows {
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let isNew = Flags(rawValue: 1)
        static let isChanged = Flags(rawValue: 2)
        static let gainedMembers = Flags(rawValue: 4)
        static let keepsOriginal = Flags(rawValue: 8)
        /// Met by a pass over the batch's rows that takes each once (``mark(_:)``).
        static let marked = Flags(rawValue: 16)
    }

    /// The number of values of each row: the table's ``TablePlan/columns``.
    let width: Int
    /// The positions of the columns of `json` attributes (``TablePlan/jsonColumns``).
    private let jsonColumns: [Int]

    // Columns held by pointer (``BatchColumn``): reading or writing a row's field retains no
    // array, as reading an `Array` kept in a class does, tens of thousands of times a batch.
    // Unchecked exclusivity: one thread uses the rows and no two accesses overlap, and the
    // dynamic checks of a class's properties would cost more than the reads.
    @exclusivity(unchecked) var rowIDs = BatchColumn<Int64>()
    @exclusivity(unchecked) var entityNames = BatchColumn<String>()
    @exclusivity(unchecked) var flags = BatchColumn<Flags>()
    /// Every row's values, ``width`` per row, one row after another.
    @exclusivity(unchecked) var values = BatchColumn<DatabaseValue>()
    /// What a stored row held before its first value changed, by row: a row given again as
    /// stored keeps nothing twice.
    @exclusivity(unchecked) var originals: [Int: [DatabaseValue]] = [:]
    /// ``RowState/switchedFrom``, by row: few rows switch. Unretained: the batch's graph holds
    /// its representations for as long as its rows, and a representation holds its table,
    /// which holds these rows: retained, it would make a cycle.
    @exclusivity(unchecked) var switchedFrom: [Int: Unmanaged<Representation>] = [:]

    init(width: Int, jsonColumns: [Int]) {
        self.width = width
        self.jsonColumns = jsonColumns
    }

    /// The number of rows.
    var count: Int { rowIDs.count }

    deinit { removeAll() }

    func appendNew(rowID: Int64, entityName: String) -> Int {
        rowIDs.append(rowID)
        entityNames.append(entityName)
        flags.append(.isNew)
        values.append(repeating: .null, count: width)
        return rowIDs.count - 1
    }

    func appendStored(rowID: Int64, entityName: String, values stored: [DatabaseValue]) -> Int {
        rowIDs.append(rowID)
        entityNames.append(entityName)
        flags.append([])
        let start = values.count
        for column in 0..<width { values.append(column < stored.count ? stored[column] : .null) }
        for column in jsonColumns {
            if case .text(let text) = values[start + column], let canonical = ValueCoercion.canonicalJSON(text) {
                values[start + column] = .text(canonical)
            }
        }
        return rowIDs.count - 1
    }

    /// Marks the row `row` as met; false when it was met already. For the one pass that needs it
    /// (numbering new rows, which two proto-records may share), in place of a set of rows.
    func mark(_ row: Int) -> Bool {
        guard !flags[row].contains(.marked) else { return false }
        flags[row].insert(.marked)
        return true
    }

    func setFlag(_ flag: Flags, _ on: Bool, at row: Int) {
        if on { flags[row].insert(flag) } else { flags[row].remove(flag) }
    }

    /// Keeps what the stored row `row` holds now as what was stored, unless it is new or kept
    /// already: called before a value of it first changes.
    func keepOriginal(of row: Int) {
        guard flags[row].isDisjoint(with: [.isNew, .keepsOriginal]) else { return }
        flags[row].insert(.keepsOriginal)
        originals[row] = Array(values.elements(from: row * width, count: width))
    }

    /// Frees every row: the batch is written.
    func removeAll() {
        rowIDs.removeAll()
        entityNames.removeAll()
        flags.removeAll()
        values.removeAll()
        originals = [:]
        switchedFrom = [:]
    }
}
