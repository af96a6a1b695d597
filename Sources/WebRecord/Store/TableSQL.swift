/// The SQL that reads the rows of one table as ``TableRow``s, built once per transaction
/// rather than once per row.
///
/// Rows are read as `_id`, `_entity`, then ``valueColumns`` in order, so a row's values read
/// by position, never by name.
struct TableSQL {
    /// The table's name.
    let name: String
    /// Every column after `_id` and `_entity`, in layout order.
    let valueColumns: [String]
    /// `"_id", "_entity", ...valueColumns`, quoted, for SELECTs that read whole rows.
    let selectList: String

    init(_ table: StorageLayout.Table) {
        name = table.name
        valueColumns = table.valueColumns
        let quoted = valueColumns.map(quote)
        selectList = (["\"_id\"", "\"_entity\""] + quoted).joined(separator: ", ")
    }

    /// The select list with every column qualified by `alias`: `alias."_id", alias."_entity", ...`.
    func selectList(alias: String) -> String {
        (["_id", "_entity"] + valueColumns).map { "\(alias).\(quote($0))" }.joined(separator: ", ")
    }

    /// The current row of `statement`, whose result columns are `leadingColumns` extra ones,
    /// then `_id`, `_entity` and ``valueColumns`` in order.
    func row(_ statement: Statement, leadingColumns: Int) -> TableRow {
        let rowID = statement.int64(at: leadingColumns)
        var entityName = ""
        if case .text(let text) = statement.value(at: leadingColumns + 1) { entityName = text }
        let columnCount = valueColumns.count
        var values: [DatabaseValue] = []
        values.reserveCapacity(columnCount)
        for index in 0..<columnCount {
            values.append(statement.value(at: leadingColumns + 2 + index))
        }
        return TableRow(rowID: rowID, entityName: entityName, values: values)
    }
}
