/// One table as a population reads and writes it: its columns by position, and the SQL that
/// reads and writes its rows, built once per population rather than once per row.
///
/// A population holds each row's values in an array in the order of ``columns`` (see
/// ``RowState``), so the marshaler and the writer address columns by index, never by name.
final class TablePlan {
    /// The table's name.
    let name: String
    /// Every column after `_id` and `_entity`, in layout order.
    let columns: [String]
    /// The position of each column in ``columns``.
    let columnIndex: [String: Int]
    /// The positions of the primary-key columns, in key order.
    let primaryKeyColumns: [Int]
    /// `"_id", "_entity", ...columns`, quoted, for SELECTs that read whole rows.
    let selectList: String
    /// `INSERT INTO t ("_id", "_entity", ...) VALUES (?, ?, ...)`.
    let insertSQL: String
    /// `UPDATE t SET "_entity" = ?, ... WHERE "_id" = ?`.
    let updateSQL: String
    /// The `_id` the next new row of this population gets; read from the store on first use.
    var nextRowID: Int64?

    init(_ table: StorageLayout.Table) {
        name = table.name
        columns = table.columns.map(\.name).filter { $0 != "_id" && $0 != "_entity" }
        var columnIndex: [String: Int] = [:]
        for (index, column) in columns.enumerated() { columnIndex[column] = index }
        self.columnIndex = columnIndex
        primaryKeyColumns = table.primaryKeyColumns.compactMap { columnIndex[$0] }
        let quoted = columns.map(quote)
        selectList = (["\"_id\"", "\"_entity\""] + quoted).joined(separator: ", ")
        insertSQL = Self.insertSQL(table: name, selectList: selectList, columnCount: columns.count + 2, rows: 1)
        let assignments = (["\"_entity\""] + quoted).map { "\($0) = ?" }.joined(separator: ", ")
        updateSQL = "UPDATE \(quote(name)) SET \(assignments) WHERE \"_id\" = ?"
    }

    /// `INSERT INTO t (...) VALUES (?, ...), (?, ...), ...` for `rows` rows.
    func insertSQL(rows: Int) -> String {
        Self.insertSQL(table: name, selectList: selectList, columnCount: columns.count + 2, rows: rows)
    }

    private static func insertSQL(table: String, selectList: String, columnCount: Int, rows: Int) -> String {
        let row = "(" + RecordResolver.placeholders(columnCount) + ")"
        return "INSERT INTO \(quote(table)) (\(selectList)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// The select list with every column qualified by `alias`: `alias."_id", alias."_entity", ...`.
    func selectList(alias: String) -> String {
        (["_id", "_entity"] + columns).map { "\(alias).\(quote($0))" }.joined(separator: ", ")
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
        for table in layout.tables { plans[table.name] = TablePlan(table) }
        self.plans = plans
    }

    /// The plan of the table named `name`, if the layout has one.
    subscript(name: String) -> TablePlan? { plans[name] }
}
