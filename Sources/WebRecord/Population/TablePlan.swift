/// One table as a population reads and writes it: its columns by position, built once per
/// population rather than once per row.
///
/// A population holds each row's values in an array in the order of ``columns`` (see
/// ``RowState``), the order of a ``TableRow``'s values, so the marshaler and the store address
/// columns by index, never by name.
final class TablePlan {
    /// The table's name.
    let name: String
    /// The table's position in the layout: the same for every population of one store.
    let index: Int
    /// Every column after `_id` and `_entity`, in layout order.
    let columns: [String]
    /// The position of each column in ``columns``.
    let columnIndex: [String: Int]
    /// The positions of the primary-key columns, in key order.
    let primaryKeyColumns: [Int]
    /// The positions of the columns of `json` attributes, whose stored text a row compares as
    /// JSON (``RowState``).
    let jsonColumns: [Int]
    /// The rows of the table the batch touches (``RowState``).
    let rows: BatchRows

    init(_ table: StorageLayout.Table, index: Int) {
        name = table.name
        self.index = index
        columns = table.valueColumns
        var columnIndex: [String: Int] = [:]
        for (index, column) in columns.enumerated() { columnIndex[column] = index }
        self.columnIndex = columnIndex
        primaryKeyColumns = table.primaryKeyColumns.compactMap { columnIndex[$0] }
        jsonColumns = table.columns.compactMap { column in
            guard case .attribute(.json) = column.role else { return nil }
            return columnIndex[column.name]
        }
        rows = BatchRows(width: columns.count, jsonColumns: jsonColumns)
    }

    /// A row's values as a dictionary by column name, the form ``Record`` keeps.
    func dictionary(_ values: [DatabaseValue]) -> [String: DatabaseValue] {
        var dictionary: [String: DatabaseValue] = [:]
        dictionary.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() where index < values.count {
            dictionary[column] = values[index]
        }
        return dictionary
    }
}

/// The table plans of a store's layout, by table name.
struct TablePlans {
    private let plans: [String: TablePlan]

    init(layout: StorageLayout) {
        var plans: [String: TablePlan] = [:]
        for (index, table) in layout.tables.enumerated() { plans[table.name] = TablePlan(table, index: index) }
        self.plans = plans
    }

    /// The plan of the table named `name`, if the layout has one.
    subscript(name: String) -> TablePlan? { plans[name] }

    /// Frees the rows of every table (``TablePlan/rows``): the batch is written.
    func removeRows() {
        for plan in plans.values { plan.rows.removeAll() }
    }
}
