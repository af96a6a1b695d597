/// Temporary views that show a store's reader the schema's tables before the first write
/// transaction has created or migrated them, so that reads never write.
///
/// A table the file does not have yet reads as empty; a column it does not have yet reads as
/// NULL. SQLite looks up an unqualified name in `temp` before `main`, so a view named like a
/// table stands in for it on this connection only, and nothing is written to the store file.
/// The views are rebuilt whenever the file's schema changes (another connection created or
/// migrated the tables), and dropped once the file has every table and column.
struct PendingLayoutViews {
    private var schemaVersion: Int64?
    private var names: [String] = []

    /// Whether the store file lacks some of the schema's tables or columns.
    var isActive: Bool { !names.isEmpty }

    /// Brings the views up to date with the file's tables. Runs on a reader connection, outside
    /// any transaction.
    mutating func refresh(on connection: Connection, layout: StorageLayout) throws(WebRecordError) {
        try connection.unobserved { () throws(WebRecordError) in try update(on: connection, layout: layout) }
    }

    private mutating func update(on connection: Connection, layout: StorageLayout) throws(WebRecordError) {
        let version: Int64?
        if case .integer(let value)? = try connection.scalar("PRAGMA main.schema_version") {
            version = value
        } else {
            version = nil
        }
        guard version != schemaVersion || version == nil else { return }
        connection.forgetStatements()
        var statements = names.map { "DROP VIEW IF EXISTS temp.\(quote($0))" }
        var created: [String] = []
        let tables =
            layout.tables.map { ($0.name, $0.columns.map(\.name)) }
            + layout.joinTables.map { ($0.name, $0.columnNames) }
        for (table, columns) in tables {
            let present = Set(
                try connection.rows("SELECT name FROM pragma_table_info(?, 'main')", [.text(table)]).compactMap {
                    row -> String? in
                    if case .text(let name)? = row.first { return name }
                    return nil
                })
            guard columns.contains(where: { !present.contains($0) }) else { continue }
            let selected = columns.map { present.contains($0) ? quote($0) : "NULL AS \(quote($0))" }.joined(
                separator: ", ")
            let source = present.isEmpty ? "WHERE 0" : "FROM main.\(quote(table))"
            statements.append("CREATE TEMP VIEW \(quote(table)) AS SELECT \(selected) \(source)")
            created.append(table)
        }
        if !statements.isEmpty {
            try connection.execute("PRAGMA query_only = OFF")
            defer { try? connection.execute("PRAGMA query_only = ON") }
            try connection.execute(statements.joined(separator: "; "))
        }
        names = created
        schemaVersion = version
    }
}
