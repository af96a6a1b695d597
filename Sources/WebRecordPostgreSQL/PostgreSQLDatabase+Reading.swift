import Foundation
import WebRecord

/// ``PostgreSQLDatabase`` as the database of a ``RecordStore``: fetches and exports run the
/// same queries as on SQLite, their `?` placeholders numbered for PostgreSQL.
///
/// The first read checks the tables as the first write does, and makes or migrates them in a
/// transaction of its own when they are missing or lack what the schema adds: the tables of a
/// shared server are there for every worker, and a read never fails because no worker has
/// written yet. A schema the tables cannot be migrated to is refused (`incompatibleStore`)
/// before anything is read, as a SQLite store refuses it when opened.
extension PostgreSQLDatabase: RecordDatabase {
    /// PostgreSQL's SQL.
    package var dialect: SQLDialect { .postgreSQL }

    /// Runs `body` with queries on the database's connection, each in a transaction of its own.
    package func withQueries<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError) -> T {
        try onConnection { connection throws(WebRecordError) in
            try body(PostgreSQLQueries(database: self, connection: connection))
        }
    }

    /// Runs `body` with queries inside one `REPEATABLE READ` read-only transaction: every query
    /// sees the same committed state.
    package func withSnapshot<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError)
        -> T
    {
        try onConnection { connection throws(WebRecordError) in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do throws(WebRecordError) {
                let result = try body(PostgreSQLQueries(database: self, connection: connection))
                try connection.execute("COMMIT")
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// ``withPreparedConnection(_:)`` with `body`'s typed errors.
    private func onConnection<T>(_ body: (PostgreSQLConnection) throws(WebRecordError) -> T) throws(WebRecordError)
        -> T
    {
        do {
            return try withPreparedConnection { connection in try body(connection) }
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        }
    }
}

/// Queries on the connection of a ``PostgreSQLDatabase``: SQLite's `?` placeholders become
/// `$1`, `$2`, ...
struct PostgreSQLQueries: RecordQuerying {
    let database: PostgreSQLDatabase
    let connection: PostgreSQLConnection

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [[DatabaseValue]] {
        try connection.execute(PostgreSQLPlaceholders.numberedForBothStores(sql, from: 1), arguments).rows
    }

    func records(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [Record] {
        try database.records(PostgreSQLPlaceholders.numberedForBothStores(sql, from: 1), arguments, on: connection)
    }
}
