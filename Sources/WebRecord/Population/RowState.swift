/// The state of one row touched by a population: what it holds now, and what changed.
///
/// Values are kept by column position (``TablePlan/columns``), not by name: a population
/// touches tens of thousands of rows, and an array per row is far cheaper than a dictionary.
final class RowState {
    let table: TablePlan
    var rowID: Int64
    var entityName: String
    /// The row's values: for a stored row, as stored and then as the population sets them;
    /// for a new row, `.null` until set.
    ///
    /// Unchecked exclusivity: a population runs on one thread and no two accesses overlap;
    /// the marshaler writes these tens of thousands of times, and the dynamic checks showed.
    @exclusivity(unchecked) var values: [DatabaseValue]
    /// The values as stored before the population; nil for a new row.
    let original: [DatabaseValue]?
    var isChanged = false
    /// Whether the population added a member to one of the row's to-many relationships kept on
    /// the members (their foreign key now names this row): the row counts as updated, though
    /// none of its own columns changed.
    var gainedMembers = false
    /// The sub-entity the stored row was before the response made it another one, whose
    /// attributes and relationships the new one lacks and the marshaler clears (nil otherwise).
    var switchedFrom: Representation?

    /// A new row: every value null.
    init(newIn table: TablePlan, rowID: Int64, entityName: String) {
        self.table = table
        self.rowID = rowID
        self.entityName = entityName
        self.values = Array(repeating: .null, count: table.columns.count)
        self.original = nil
    }

    /// A stored row, with its values in ``TablePlan/columns`` order.
    ///
    /// A `json` value is taken in its canonical form (``ValueCoercion/canonicalJSON(_:)``), the
    /// form a population writes: a value stored with its keys in another order is equal to the
    /// same value in a response, so the row is not rewritten for it.
    init(storedIn table: TablePlan, rowID: Int64, entityName: String, values: [DatabaseValue]) {
        var values = values
        for index in table.jsonColumns where index < values.count {
            if case .text(let text) = values[index], let canonical = ValueCoercion.canonicalJSON(text) {
                values[index] = .text(canonical)
            }
        }
        self.table = table
        self.rowID = rowID
        self.entityName = entityName
        self.values = values
        self.original = values
    }

    /// Sets the value at `column`, unless it holds that value already: a stored row whose values
    /// a response gives again as they are then keeps sharing its values with ``original``, so
    /// that no copy is made and ``hasChangedValues`` compares no value.
    func set(_ value: DatabaseValue, at column: Int) {
        if values[column] != value { values[column] = value }
    }

    /// Whether the row is created by this population.
    var isNew: Bool { original == nil }

    /// Whether a stored row's values differ from what is stored.
    var hasChangedValues: Bool {
        guard let original else { return true }
        return values != original
    }

    /// The row as the store writes it.
    var tableRow: TableRow { TableRow(rowID: rowID, entityName: entityName, values: values) }

    /// The row's values as a dictionary by column name, for a ``Record``.
    var snapshot: [String: DatabaseValue] { table.dictionary(values) }
}
