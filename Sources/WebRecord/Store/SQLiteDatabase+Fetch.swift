import Foundation

/// ``SQLiteDatabase`` as the database of a ``RecordStore``: fetches and exports read through
/// its reader connection (inside a write, the writer's).
extension SQLiteDatabase: RecordDatabase {
    /// SQLite's SQL.
    package var dialect: SQLDialect { .sqlite }

    /// Runs `body` with queries on the connection ``read(_:)`` gives.
    package func withQueries<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError) -> T {
        do {
            return try read { connection in try body(SQLiteQueries(database: self, connection: connection)) }
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        }
    }

    /// Runs `body` with queries inside one read transaction (`BEGIN` ... `COMMIT`).
    package func withSnapshot<T>(_ body: (any RecordQuerying) throws(WebRecordError) -> T) throws(WebRecordError) -> T {
        do {
            return try read { connection in
                try connection.execute("BEGIN")
                do {
                    let result = try body(SQLiteQueries(database: self, connection: connection))
                    try connection.execute("COMMIT")
                    return result
                } catch {
                    if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        }
    }
}

/// Queries on one connection of a ``SQLiteDatabase``.
struct SQLiteQueries: RecordQuerying {
    let database: SQLiteDatabase
    let connection: Connection

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [[DatabaseValue]] {
        try connection.rows(sql, arguments)
    }

    func records(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [Record] {
        try database.records(sql, arguments, on: connection)
    }
}

extension SQLiteDatabase {

    func records(_ sql: String, _ arguments: [DatabaseValue], on connection: Connection) throws(WebRecordError)
        -> [Record]
    {
        let statement = try connection.cachedStatement(sql)
        let names = (0..<statement.columnCount).map { statement.columnName($0) }
        var result: [Record] = []
        try statement.forEachRow(arguments) { row throws(WebRecordError) in
            var values: [String: DatabaseValue] = [:]
            values.reserveCapacity(names.count)
            var rowID: Int64 = 0
            var entityName = ""
            for (index, name) in names.enumerated() {
                let value = row.value(at: index)
                switch name {
                case "_id": if case .integer(let id) = value { rowID = id }
                case "_entity": if case .text(let text) = value { entityName = text }
                default: values[name] = value
                }
            }
            guard let entity = schema.entity(named: entityName) else {
                throw WebRecordError(.incompatibleStore, "row \(rowID) names an unknown entity '\(entityName)'")
            }
            result.append(makeRecord(entity: entity, rowID: rowID, values: values))
        }
        return result
    }

    func makeRecord(entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record {
        recordClasses.recordClass(for: entity.name).init(
            row: Record.StoredRow(entity: entity, rowID: rowID, values: values, store: self))
    }

}

/// ``SQLiteDatabase`` as the store its records read through (``RecordReading``): their
/// relationships are fetched by ``SQLiteDatabase/relatedRecords(of:relationship:limit:)``.
extension SQLiteDatabase: RecordReading {
    /// The entity `recordClass` is registered for (see ``RecordClassRegistry/entityName(registeredFor:)``).
    package func entityName(registeredFor recordClass: Record.Type) -> String? {
        recordClasses.entityName(registeredFor: recordClass)
    }
}
