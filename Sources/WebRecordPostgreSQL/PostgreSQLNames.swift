import WebRecord

/// PostgreSQL's limit on names: an identifier is at most 63 bytes (`NAMEDATALEN` − 1); a longer
/// one is cut short by the server, and two names that share their first 63 bytes would be one.
enum PostgreSQLNames {
    /// The longest identifier PostgreSQL keeps whole, in bytes.
    static let maximumLength = 63

    /// Throws `invalidSchema` naming every table, column, join table and index name of
    /// `layout`, and the schema name `namespace`, longer than ``maximumLength`` bytes.
    static func check(_ layout: StorageLayout, namespace: String) throws(WebRecordError) {
        var problems: [WebRecordError] = []
        func check(_ name: String, _ what: String, entity: String? = nil, property: String? = nil) {
            let length = name.utf8.count
            guard length > maximumLength else { return }
            problems.append(
                WebRecordError(
                    .invalidSchema,
                    "the \(what) name '\(name)' is \(length) bytes; PostgreSQL names are at most \(maximumLength) bytes",
                    entity: entity, property: property))
        }
        check(namespace, "schema (namespace)")
        for table in layout.tables {
            check(table.name, "table", entity: table.name)
            for column in table.columns {
                check(column.name, "column", entity: column.entity ?? table.name, property: column.name)
            }
            if !table.primaryKeyColumns.isEmpty { check("_pk_\(table.name)", "index", entity: table.name) }
            for column in table.indexedColumns {
                check("_index_\(table.name)_\(column)", "index", entity: table.name, property: column)
            }
        }
        for join in layout.joinTables {
            check(join.name, "join table")
            check("_index_\(join.name)_target", "index")
        }
        guard let first = problems.first else { return }
        var error = WebRecordError(
            .invalidSchema,
            problems.count == 1
                ? first.message : "\(problems.count) names are too long for PostgreSQL; the first: \(first.message)",
            entity: first.entity, property: first.property)
        error.problems = problems
        throw error
    }
}
