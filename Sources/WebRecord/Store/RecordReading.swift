/// What a ``Record`` reads of the store it came from: the schema, where to log, the record
/// classes registered, and the records related to it.
///
/// A record keeps the store it was read from as this protocol, never as a concrete database,
/// so that any store can make records: ``SQLiteDatabase`` conforms, and so can another store
/// (PostgreSQL, in a module of its own), which makes its records with
/// ``Record/StoredRow/init(entity:rowID:values:store:)``. Every ``RecordStorage`` is one.
package protocol RecordReading: AnyObject, Sendable {
    /// The schema the store was opened for.
    var schema: Schema { get }
    /// Where the store logs: its populations, and what its records could not read.
    var logger: Logger { get }

    /// The entity the record class `recordClass` is registered for on this store, if any.
    func entityName(registeredFor recordClass: Record.Type) -> String?

    /// The records related to `record` through its relationship `name`, at most `limit` of
    /// them: for a to-many, in stored order when it is ordered, else by `_id`. Each is an
    /// instance of the class registered for its entity.
    ///
    /// - Throws: ``WebRecordError``: `invalidEntityDescription` when the record's entity has
    ///   no relationship `name`, or the store's own error when it cannot read.
    func relatedRecords(of record: Record, relationship name: String, limit: Int?) throws(WebRecordError) -> [Record]
}
