/// Deletes records with their relationships' delete rules: `cascade` deletes the related
/// records too, `deny` refuses while related records exist, `nullify` clears the links
/// (SQLite's `ON DELETE SET NULL` and `ON DELETE CASCADE` on join rows do that part).
struct RecordDeleter {
    let store: SQLiteDatabase
    let connection: Connection
    let debugger: Debugger
    /// Deleted counts by entity.
    private(set) var deleted: [String: Int] = [:]
    private var gone = Set<String>()

    init(store: SQLiteDatabase, connection: Connection, debugger: Debugger) {
        self.store = store
        self.connection = connection
        self.debugger = debugger
    }

    /// Deletes the row `rowID` of `table` and what cascades from it.
    ///
    /// - Returns: false when a `deny` rule refused the delete (recorded on the debugger).
    @discardableResult
    mutating func delete(rowID: Int64, table: String) throws(WebRecordError) -> Bool {
        var plan: [(table: String, rowID: Int64, entity: String)] = []
        var queue: [(String, Int64)] = [(table, rowID)]
        var planned = Set<String>()
        while let (currentTable, currentID) = queue.popLast() {
            let token = "\(currentTable)#\(currentID)"
            guard !gone.contains(token), planned.insert(token).inserted else { continue }
            guard case .text(let entityName)? = try connection.scalar(
                "SELECT \"_entity\" FROM \(quote(currentTable)) WHERE \"_id\" = ?", [.integer(currentID)]),
                let entity = store.schema.entity(named: entityName)
            else { continue }
            plan.append((currentTable, currentID, entityName))
            for relationship in entity.relationships where relationship.deleteRule != .nullify {
                let related = try relatedIDs(of: currentID, entity: entity, relationship: relationship)
                guard !related.isEmpty else { continue }
                if relationship.deleteRule == .deny {
                    debugger.record(WebRecordError(
                        .invalidEntityDescription,
                        "not deleted: \(relationship.name) has the deny rule and \(related.count) related record(s)",
                        isFatal: false, entity: entityName, property: relationship.name, value: .integer(currentID)))
                    return false
                }
                let destinationTable = store.schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
                queue += related.map { (destinationTable, $0) }
            }
        }
        for item in plan {
            try connection.execute("DELETE FROM \(quote(item.table)) WHERE \"_id\" = ?", [.integer(item.rowID)])
            if connection.changes > 0 {
                deleted[item.entity, default: 0] += 1
                store.logger.log(.debug, "deleted \(item.entity) _id \(item.rowID)", entity: item.entity)
            }
            gone.insert("\(item.table)#\(item.rowID)")
        }
        return true
    }

    private func relatedIDs(of rowID: Int64, entity: Entity, relationship: Relationship) throws(WebRecordError) -> [Int64] {
        guard let storage = store.layout.storage(of: relationship.name, in: entity.name),
            let destination = store.schema.entity(named: relationship.destination)
        else { return [] }
        let sql: String
        switch storage {
        case .foreignKeyHere(let column, _):
            sql = "SELECT \(quote(column)) FROM \(quote(entity.rootName)) WHERE \"_id\" = ? AND \(quote(column)) IS NOT NULL"
        case .foreignKeyThere(_, let column, _):
            sql = "SELECT \"_id\" FROM \(quote(destination.rootName)) WHERE \(quote(column)) = ?"
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            sql = "SELECT \(quote(otherColumn)) FROM \(quote(table)) WHERE \(quote(selfColumn)) = ?"
        }
        return try connection.rows(sql, [.integer(rowID)]).compactMap { row in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
    }
}
