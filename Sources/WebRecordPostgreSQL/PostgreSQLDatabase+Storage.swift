import Foundation
import WebRecord

/// ``PostgreSQLDatabase`` as the store populations write through (``RecordStorage``) and
/// records read through (``RecordReading``).
extension PostgreSQLDatabase: RecordStorage {
    /// Runs `body` in one write transaction (see `write(_:)`). When it changed rows, the
    /// transaction notifies the observations of every worker as it commits
    /// (``PostgreSQLCommitNotice``).
    package func inTransaction<T>(_ body: (PostgreSQLRecordTransaction) throws -> T) throws -> T {
        try write { connection in
            try PostgreSQLCommitNotice.announcing(changesOf: self, on: connection) {
                try body(PostgreSQLRecordTransaction(database: self, connection: connection))
            }
        }
    }

    /// Runs `body` in one write transaction on the database's queue (see the async `write(_:)`);
    /// the transaction's ``PostgreSQLRecordTransaction/checkCancellation()`` sees the task's
    /// cancellation. When it changed rows, the transaction notifies as the synchronous form does.
    package func inTransaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgreSQLRecordTransaction) throws -> T
    ) async throws -> T {
        try await cancellable { [self] cancellation in
            try write(cancellation: cancellation) { connection in
                try PostgreSQLCommitNotice.announcing(changesOf: self, on: connection) {
                    try body(
                        PostgreSQLRecordTransaction(database: self, connection: connection, cancellation: cancellation))
                }
            }
        }
    }

    /// The value transformer named `name`: this database's own, else the process-wide one.
    package func transformer(named name: String) -> AttributeTransformers.Transform? {
        transformers(named: name) ?? AttributeTransformers.transformer(named: name)
    }

    /// The class records of `entityName` are made of.
    package func recordClass(for entityName: String) -> Record.Type {
        recordClasses.recordClass(for: entityName)
    }

    /// A record of `recordClass` for a row of this database.
    package func record(
        of recordClass: Record.Type, entity: Entity, rowID: Int64, values: [String: DatabaseValue]
    ) -> Record {
        recordClass.init(row: Record.StoredRow(entity: entity, rowID: rowID, values: values, store: self))
    }

    /// Nothing to remove: a PostgreSQL store leaves no file behind, and the tables it made
    /// before a failed first write belong to the shared database (a read makes them too).
    package func discardIfNeverWritten() {}

    /// Nothing to remove (see ``discardIfNeverWritten()``).
    package func discardIfNeverWritten() async {}

    /// A serialization failure (`40001`), a deadlock (`40P01`), or a unique key another
    /// worker's transaction inserted while this one had found no row for it (`23505`): each
    /// rolled this transaction back, and the same population, tried again, sees the other
    /// worker's committed rows (Docs/PostgreSQL.md, "Many workers").
    package func isTransientConflict(_ error: WebRecordError) -> Bool {
        ["40001", "40P01", "23505"].contains(error.sqlState ?? "")
    }
}

extension PostgreSQLDatabase: RecordReading {
    /// The entity `recordClass` is registered for.
    package func entityName(registeredFor recordClass: Record.Type) -> String? {
        recordClasses.entityName(registeredFor: recordClass)
    }

    /// The records of the rows `sql` gives (every column of a table: `_id`, `_entity`, then
    /// the others), each of the class registered for its entity.
    func records(_ sql: String, _ arguments: [DatabaseValue]) throws(WebRecordError) -> [Record] {
        do {
            return try withPreparedConnection { connection in try records(sql, arguments, on: connection) }
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)")
        }
    }

    /// ``records(_:_:)`` on `connection`, inside a transaction that holds it.
    func records(_ sql: String, _ arguments: [DatabaseValue], on connection: PostgreSQLConnection)
        throws(WebRecordError) -> [Record]
    {
        let result = try connection.execute(sql, arguments)
        var records: [Record] = []
        records.reserveCapacity(result.rows.count)
        for row in result.rows {
            var values: [String: DatabaseValue] = [:]
            values.reserveCapacity(result.columnNames.count)
            var rowID: Int64 = 0
            var entityName = ""
            for (name, value) in zip(result.columnNames, row) {
                switch name {
                case "_id": if case .integer(let id) = value { rowID = id }
                case "_entity": if case .text(let text) = value { entityName = text }
                default: values[name] = value
                }
            }
            guard let entity = schema.entity(named: entityName) else {
                throw WebRecordError(.incompatibleStore, "row \(rowID) names an unknown entity '\(entityName)'")
            }
            records.append(record(of: recordClass(for: entity.name), entity: entity, rowID: rowID, values: values))
        }
        return records
    }
}
