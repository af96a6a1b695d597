import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Stores for the PostgreSQL tests: a PostgreSQL database of the test server's, and a SQLite one
/// in memory to compare it with, for the same schema.
enum PostgreSQLStores {
    /// The package's root directory (the fixtures and schemas are read from the checkout).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A shipped schema, `Schemas/<name>.json`.
    static func shippedSchema(_ name: String) throws -> Schema {
        try Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/\(name).json"))
    }

    /// A response of MMRecord's examples, `Tests/WebRecordTests/Fixtures/mmrecord/<name>`.
    static func fixture(_ name: String) throws -> JSONValue {
        try JSONReader().read(
            Data(contentsOf: packageRoot.appendingPathComponent("Tests/WebRecordTests/Fixtures/mmrecord/\(name)")))
    }

    /// A connection string for a new, empty database of the test server.
    static func newDatabase() throws -> String {
        let server = try PostgreSQLTestServer.shared()
        return server.conninfo(database: try server.makeDatabase())
    }

    /// A PostgreSQL store for `schema` in a new database (or in `location`), in `namespace`.
    static func postgreSQL(
        _ schema: Schema, at location: String? = nil, namespace: String = "public"
    ) throws -> PostgreSQLDatabase {
        var options = PostgreSQLDatabase.Options()
        options.namespace = namespace
        return try PostgreSQLDatabase(try location ?? newDatabase(), schema: schema, options: options)
    }

    /// A SQLite store for `schema` in memory.
    static func sqlite(_ schema: Schema) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: nil, schema: schema, options: SQLiteDatabase.Options())
    }

    /// Every row of every table and join table of `layout`, by table, read with `rows`: the
    /// layout's columns in order, rows by `_id` (join rows by owner and target). The same SQL
    /// runs on both stores.
    ///
    /// `_id`s are replaced by their rank in their table (1 for the smallest), in the `_id`
    /// column, in foreign keys and in join rows: the two stores hand out new `_id`s in the same
    /// order, but SQLite takes the largest plus one, so it gives again the `_id` of a last row
    /// deleted, where a sequence never does.
    static func content(
        of layout: StorageLayout, rows: (String) throws -> [[DatabaseValue]]
    ) throws -> [String: [[DatabaseValue]]] {
        var content: [String: [[DatabaseValue]]] = [:]
        var ranks: [String: [DatabaseValue: DatabaseValue]] = [:]
        for table in layout.tables {
            let columns = table.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
            let tableRows = try rows("SELECT \(columns) FROM \"\(table.name)\" ORDER BY \"_id\"")
            content[table.name] = tableRows
            var rank: [DatabaseValue: DatabaseValue] = [:]
            for (index, row) in tableRows.enumerated() { rank[row[0]] = .integer(Int64(index + 1)) }
            ranks[table.name] = rank
        }
        func ranked(_ value: DatabaseValue, in table: String) -> DatabaseValue {
            value.isNull ? value : ranks[table]?[value] ?? .text("dangling \(value)")
        }
        for table in layout.tables {
            content[table.name] = content[table.name]?.map { row in
                var row = row
                for (index, column) in table.columns.enumerated() {
                    if column.name == "_id" { row[index] = ranked(row[index], in: table.name) }
                    if case .foreignKey(let target) = column.role { row[index] = ranked(row[index], in: target) }
                }
                return row
            }
        }
        for join in layout.joinTables {
            let columns = join.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
            content[join.name] = try rows("SELECT \(columns) FROM \"\(join.name)\"").map { row in
                var row = row
                row[0] = ranked(row[0], in: join.ownerTable)
                row[1] = ranked(row[1], in: join.targetTable)
                return row
            }.sorted { "\($0)" < "\($1)" }
        }
        return content
    }

    /// ``content(of:rows:)`` of a SQLite store.
    static func content(of database: SQLiteDatabase) throws -> [String: [[DatabaseValue]]] {
        try database.read { connection in try content(of: database.layout) { try connection.rows($0) } }
    }

    /// ``content(of:rows:)`` of a PostgreSQL store.
    static func content(of database: PostgreSQLDatabase) throws -> [String: [[DatabaseValue]]] {
        try database.withConnection { connection in try content(of: database.layout) { try connection.rows($0) } }
    }
}
