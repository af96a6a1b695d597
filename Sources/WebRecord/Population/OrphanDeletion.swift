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
