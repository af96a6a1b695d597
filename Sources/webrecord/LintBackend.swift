import WebRecord
import WebRecordPostgreSQL

/// The database whose store `webrecord lint --backend` checks a schema for: the limits a valid
/// schema may still exceed there, which creating its tables would otherwise meet.
enum LintBackend: String, CaseIterable {
    /// SQLite, the default. A valid schema fits it: loading a schema already checks SQLite's
    /// limits (2000 columns a table, names that meet).
    case sqlite
    /// PostgreSQL: names of at most 63 bytes, tables of at most 1600 columns, indexes of at
    /// most 32 (``PostgreSQLLimits``).
    case postgresql

    /// Every way the layout of `schema` exceeds this backend's limits, each placed in the file
    /// of the entity it is about.
    func problems(in schema: Schema) -> [WebRecordError] {
        guard self == .postgresql else { return [] }
        return PostgreSQLLimits.problems(in: StorageLayout(schema: schema)).map { problem in
            var problem = problem
            if let entity = problem.entity, let file = schema.entity(named: entity)?.fileName, !file.isEmpty {
                problem.file = file
            }
            return problem
        }
    }
}
