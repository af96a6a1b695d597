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

/// Deletes the stored records of the requested entity that a response did not contain
/// (pipeline step 7, DESIGN §3.14).
///
/// Candidates are every stored record of the entity (sub-entities included), scoped by the
/// rule's predicate, that is not among the top-level results. With ``PopulationOptions/deleteOrphans``
/// all candidates go; with ``PopulationOptions/orphanDeletion`` the closure decides each and may stop.
struct OrphanDeletion {
    let store: SQLiteDatabase
    let options: PopulationOptions
    let connection: Connection
    let debugger: Debugger

    func run(
        entity: Entity, keep: Set<Int64>, results: [Record], response: JSONValue, deleter: inout RecordDeleter
    ) throws(WebRecordError) {
        guard options.deleteOrphans != nil || options.orphanDeletion != nil else { return }
        let rule = options.deleteOrphans ?? .all
        let names = store.schema.hierarchy(from: entity.name).map(\.name)
        var sql = "SELECT * FROM \(quote(entity.rootName)) WHERE \"_entity\" IN (\(RecordResolver.placeholders(names.count)))"
        var arguments: [DatabaseValue] = names.map { .text($0) }
        if let predicate = rule.predicate {
            sql += " AND (\(predicate))"
            arguments += rule.arguments.map(\.databaseValue)
        }
        sql += " ORDER BY \"_id\""
        let candidates = try store.records(sql, arguments, on: connection).filter { !keep.contains($0.rowID) }
        var stop = false
        for candidate in candidates {
            if let decide = options.orphanDeletion {
                guard decide(candidate, results, response, &stop) else {
                    if stop { break }
                    continue
                }
            }
            try deleter.delete(rowID: candidate.rowID, table: entity.rootName)
            if stop { break }
        }
    }
}
