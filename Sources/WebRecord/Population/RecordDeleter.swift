/// Deletes records with their relationships' delete rules: `cascade` deletes the related
/// records too, `deny` refuses while related records exist, `nullify` clears the links
/// (the store does that part when it deletes a row).
struct RecordDeleter<Storage: RecordStorage> {
    let store: Storage
    let transaction: Storage.Transaction
    let debugger: Debugger
    /// Deleted counts by entity.
    private(set) var deleted: [String: Int] = [:]
    private var gone = Set<String>()

    init(store: Storage, transaction: Storage.Transaction, debugger: Debugger) {
        self.store = store
        self.transaction = transaction
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
            guard let entityName = try transaction.entityName(ofRow: currentID, in: currentTable),
                let entity = store.schema.entity(named: entityName)
            else { continue }
            plan.append((currentTable, currentID, entityName))
            for relationship in entity.relationships
            where relationship.deleteRule != .nullify || store.schema.identifiesDestination(of: relationship) {
                let related = try transaction.relatedRowIDs(of: currentID, entity: entity, relationship: relationship)
                guard !related.isEmpty else { continue }
                if relationship.deleteRule == .deny {
                    debugger.record(
                        WebRecordError(
                            .invalidEntityDescription,
                            "not deleted: \(relationship.name) has the deny rule and \(related.count) related record(s)",
                            isFatal: false, entity: entityName, property: relationship.name, value: .integer(currentID))
                    )
                    return false
                }
                let destinationTable =
                    store.schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
                queue += related.map { (destinationTable, $0) }
            }
        }
        let keys = store.logger.isEnabled(.debug) ? try primaryKeys(of: plan) : [:]
        let removed = try transaction.deleteRows(plan.map { ($0.table, $0.rowID) })
        for (item, wasThere) in zip(plan, removed) {
            if wasThere {
                deleted[item.entity, default: 0] += 1
                let key = keys["\(item.table)#\(item.rowID)"].map { "(\($0))" } ?? ""
                store.logger.log(.debug, "deleted \(item.entity)\(key) _id \(item.rowID)", entity: item.entity)
            }
            gone.insert("\(item.table)#\(item.rowID)")
        }
        return true
    }

    /// The primary keys of the rows about to be deleted, serialized, by `table#rowID`: read
    /// only when deletions are logged, so that each line names the record, not just its `_id`.
    private func primaryKeys(
        of plan: [(table: String, rowID: Int64, entity: String)]
    ) throws(WebRecordError) -> [String: String] {
        var keys: [String: String] = [:]
        for table in Set(plan.map(\.table)) {
            let records = try transaction.records(withIDs: plan.filter { $0.table == table }.map(\.rowID), in: table)
            for record in records {
                if let key = record.primaryKeyValue { keys["\(table)#\(record.rowID)"] = key.serialized() }
            }
        }
        return keys
    }
}

/// Deletes the stored records of the requested entity that a response did not contain
/// (pipeline step 7, DESIGN §3.14).
///
/// Candidates are every stored record of the entity (sub-entities included), scoped by the
/// rule's predicate, that is not among the top-level results. With ``PopulationOptions/deleteOrphans``
/// all candidates go; with ``PopulationOptions/orphanDeletion`` the closure decides each and may stop.
struct OrphanDeletion<Storage: RecordStorage> {
    let store: Storage
    let options: PopulationOptions
    let transaction: Storage.Transaction
    let debugger: Debugger

    func run(
        entity: Entity, keep: Set<Int64>, results: [Record], response: JSONValue, deleter: inout RecordDeleter<Storage>
    ) throws(WebRecordError) {
        guard options.deleteOrphans != nil || options.orphanDeletion != nil else { return }
        let rule = options.deleteOrphans ?? .all
        let names = store.schema.hierarchy(from: entity.name).map(\.name)
        let candidates = try transaction.records(
            of: names, in: entity.rootName, where: rule.predicate, arguments: rule.arguments.map(\.databaseValue)
        ).filter { !keep.contains($0.rowID) }
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
