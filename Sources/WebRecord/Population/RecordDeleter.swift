/// Deletes records with their relationships' delete rules: `cascade` deletes the related
/// records too, `deny` refuses while related records exist, `nullify` clears the links
/// (the store does that part when it deletes a row).
///
/// A record the run contained (``spare(_:)``, given before the orphan pass) is never deleted:
/// a cascade that reaches one stops there, and the store unlinks it from the deleted record as
/// `nullify` would, with a non-fatal warning naming both (DESIGN §3.14).
///
/// The deletes a response's own links start (a `replace` list's dropped members under
/// `cascade`, a record identified by its owner that the owner unlinks) wait until the whole
/// response is written (``propose(_:)``), then go through ``deleteProposed(sparing:)``, which
/// spares what the response contained in the same way.
struct RecordDeleter<Storage: RecordStorage> {
    let store: Storage
    let transaction: Storage.Transaction
    let debugger: Debugger
    /// Deleted counts by entity.
    private(set) var deleted: [String: Int] = [:]
    /// The rows deleted, by table, with the entity each was.
    private(set) var deletedRows: [String: [Int64: String]] = [:]
    private var gone = Set<String>()
    /// The rows the run contained, which no delete removes.
    private(set) var spared = ContainedRows()
    /// The deletes the response's links started, in the order met, waiting for its end.
    private(set) var proposed: [Proposal] = []
    private var proposedRows = Set<String>()

    /// A delete a response's link started: the row a link dropped, and the link.
    struct Proposal {
        let table: String
        let rowID: Int64
        /// The entity and `_id` of the record whose link dropped it, and the relationship.
        let ownerEntity: String
        let ownerID: Int64
        let relationship: String
        /// Whether the relationship identifies the row (its key is its owner): kept, it stays
        /// linked, since unlinked it would have no key.
        let identifies: Bool
    }

    init(store: Storage, transaction: Storage.Transaction, debugger: Debugger) {
        self.store = store
        self.transaction = transaction
        self.debugger = debugger
    }

    /// Adds rows the run contained to those no delete removes.
    mutating func spare(_ rows: ContainedRows) {
        spared.formUnion(rows)
    }

    /// Notes a delete a response's link started, for ``deleteProposed(sparing:)`` once the
    /// whole response is written; a row proposed twice is proposed once, as first met.
    mutating func propose(_ proposal: Proposal) {
        guard proposedRows.insert("\(proposal.table)#\(proposal.rowID)").inserted else { return }
        proposed.append(proposal)
    }

    /// Withdraws the first `count` proposals (those earlier batches made) of the rows `rows`
    /// holds, by table: a later batch linked each again through its owner, whose last
    /// occurrence decides the link (DESIGN §3.7), as one batch would have taken only that one.
    mutating func withdraw(_ rows: [String: Set<Int64>], amongFirst count: Int) {
        guard !rows.isEmpty, count > 0 else { return }
        var kept: [Proposal] = []
        kept.reserveCapacity(proposed.count)
        for (index, proposal) in proposed.enumerated() {
            if index < count, rows[proposal.table]?.contains(proposal.rowID) == true {
                proposedRows.remove("\(proposal.table)#\(proposal.rowID)")
            } else {
                kept.append(proposal)
            }
        }
        proposed = kept
    }

    /// Deletes the rows the response's links dropped (``propose(_:)``), in the order met, with
    /// what each cascades to, but the rows of `contained` (the response's, by
    /// ``ResponsePopulation/addContainedRows(_:to:spared:gathersSpared:)``), which are kept with a non-fatal warning: a
    /// dropped one stays unlinked from its owner (or linked, when the link is its key), and a
    /// cascade that reaches one unlinks it. What a `deny` rule refuses stays, unlinked. So do
    /// the rows of `earlier`, which earlier responses of the same run contained (the pages
    /// before this one).
    mutating func deleteProposed(
        sparing contained: ContainedRows, andWhatTheRunContained earlier: ContainedRows = ContainedRows()
    ) throws(WebRecordError) {
        spare(contained)
        spare(earlier)
        let proposals = proposed
        proposed.removeAll()
        proposedRows.removeAll()
        for proposal in proposals {
            guard spared.contains(proposal.rowID, in: proposal.table) else {
                try delete(rowID: proposal.rowID, table: proposal.table)
                continue
            }
            guard let record = try transaction.records(withIDs: [proposal.rowID], in: proposal.table).first else {
                continue
            }
            let name = record.entity.name
            let key = record.primaryKeyValue.map { " \($0.serialized())" } ?? ""
            let outcome =
                proposal.identifies
                ? "leaves it linked (it is identified by that record) instead of deleting it"
                : "unlinks it instead of deleting it"
            debugger.record(
                WebRecordError(
                    .invalidEntityDescription,
                    "kept \(name)\(key) (_id \(proposal.rowID)): the "
                        + (contained.contains(proposal.rowID, in: proposal.table) ? "response" : "run")
                        + " contained it, so dropping it from "
                        + "\(proposal.ownerEntity) _id \(proposal.ownerID)'s \(proposal.relationship) \(outcome)",
                    isFatal: false, entity: name, value: record.primaryKeyValue))
        }
    }

    /// Deletes the row `rowID` of `table` and what cascades from it, but the rows the run
    /// contained (``spare(_:)``), which are left, unlinked from what is deleted.
    ///
    /// - Returns: false when a `deny` rule refused the delete (recorded on the debugger), or
    ///   when the row is one the run contained.
    @discardableResult
    mutating func delete(rowID: Int64, table: String) throws(WebRecordError) -> Bool {
        guard !spared.contains(rowID, in: table) else { return false }
        var plan: [(table: String, rowID: Int64, entity: String)] = []
        var queue: [(String, Int64)] = [(table, rowID)]
        var planned = Set<String>()
        var kept: [(table: String, rowID: Int64, from: String, fromID: Int64, relationship: String)] = []
        // A `deny` rule refuses the delete while a related record would remain: those the same
        // delete removes (a comment's issue, when the cascade goes issue to comments) do not
        // count, so they are checked once the whole plan is known.
        var denials: [(entity: String, rowID: Int64, relationship: String, table: String, related: [Int64])] = []
        while let (currentTable, currentID) = queue.popLast() {
            let token = "\(currentTable)#\(currentID)"
            guard !gone.contains(token), planned.insert(token).inserted else { continue }
            guard let entityName = try transaction.entityName(ofRow: currentID, in: currentTable),
                let entity = store.schema.entity(named: entityName)
            else { continue }
            plan.append((currentTable, currentID, entityName))
            for relationship in entity.relationships
            where relationship.deleteRule != .nullify || store.schema.identifiesDestination(of: relationship) {
                var related = try transaction.relatedRowIDs(of: currentID, entity: entity, relationship: relationship)
                guard !related.isEmpty else { continue }
                let destinationTable =
                    store.schema.entity(named: relationship.destination)?.rootName ?? relationship.destination
                if relationship.deleteRule != .deny, !spared.isEmpty {
                    // What the run contained stays: deleting this row unlinks it instead.
                    related.removeAll { id in
                        guard spared.contains(id, in: destinationTable) else { return false }
                        if planned.insert("\(destinationTable)#\(id)").inserted {
                            kept.append((destinationTable, id, entityName, currentID, relationship.name))
                        }
                        return true
                    }
                }
                guard !related.isEmpty else { continue }
                if relationship.deleteRule == .deny {
                    denials.append((entityName, currentID, relationship.name, destinationTable, related))
                    continue
                }
                queue += related.map { (destinationTable, $0) }
            }
        }
        let deleting = Set(plan.map { "\($0.table)#\($0.rowID)" })
        for denial in denials {
            let remaining = denial.related.filter { !deleting.contains("\(denial.table)#\($0)") }
            guard remaining.isEmpty else {
                debugger.record(
                    WebRecordError(
                        .invalidEntityDescription,
                        "not deleted: \(denial.relationship) has the deny rule and \(remaining.count) related record(s)",
                        isFatal: false, entity: denial.entity, property: denial.relationship,
                        value: .integer(denial.rowID)))
                return false
            }
        }
        try warnKept(kept)
        let keys = store.logger.isEnabled(.debug) ? try primaryKeys(of: plan) : [:]
        let removed = try transaction.deleteRows(plan.map { ($0.table, $0.rowID) })
        for (item, wasThere) in zip(plan, removed) {
            if wasThere {
                deleted[item.entity, default: 0] += 1
                deletedRows[item.table, default: [:]][item.rowID] = item.entity
                let key = keys["\(item.table)#\(item.rowID)"].map { "(\($0))" } ?? ""
                debugger.log(.debug, "deleted \(item.entity)\(key) _id \(item.rowID)", entity: item.entity)
            }
            gone.insert("\(item.table)#\(item.rowID)")
        }
        return true
    }

    /// Deletes rows this population inserted that one batch would never have stored: objects
    /// without a key that an earlier batch made through their owner's to-one and a later
    /// occurrence of the owner unlinked. Nothing else names them, so no delete rule applies and
    /// nothing spares them; they count as never inserted (``deletedRows``, which the stream's
    /// totals take for vanished).
    mutating func unmake(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) {
        guard !rows.isEmpty else { return }
        var entities: [String] = []
        for row in rows {
            entities.append(try transaction.entityName(ofRow: row.rowID, in: row.table) ?? row.table)
        }
        let removed = try transaction.deleteRows(rows)
        for ((row, entity), wasThere) in zip(zip(rows, entities), removed) where wasThere {
            deletedRows[row.table, default: [:]][row.rowID] = entity
            gone.insert("\(row.table)#\(row.rowID)")
            debugger.log(
                .debug, "took back \(entity) _id \(row.rowID): a later occurrence of its owner unlinked it",
                entity: entity)
        }
    }

    /// Records on the debugger, for each row the run contained that a cascade reached, that it
    /// was kept and unlinked rather than deleted, naming it and the record whose deletion
    /// reached it.
    private func warnKept(
        _ kept: [(table: String, rowID: Int64, from: String, fromID: Int64, relationship: String)]
    ) throws(WebRecordError) {
        for item in kept {
            let record = try transaction.records(withIDs: [item.rowID], in: item.table).first
            let name = record?.entity.name ?? item.table
            let key = record?.primaryKeyValue.map { " \($0.serialized())" } ?? ""
            debugger.record(
                WebRecordError(
                    .invalidEntityDescription,
                    "kept \(name)\(key) (_id \(item.rowID)): the run contained it, so deleting \(item.from) _id "
                        + "\(item.fromID) unlinks it from \(item.relationship) instead of cascading to it",
                    isFatal: false, entity: name, value: record?.primaryKeyValue))
        }
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
/// rule's predicate, that the run did not contain (`keep`), at any depth. With ``PopulationOptions/deleteOrphans``
/// all candidates go; with ``PopulationOptions/orphanDeletion`` the closure decides each and may stop.
struct OrphanDeletion<Storage: RecordStorage> {
    let store: Storage
    let options: PopulationOptions
    let transaction: Storage.Transaction
    let debugger: Debugger

    func run(
        entity: Entity, keep: ContainedRows, results: [Record], response: JSONValue,
        deleter: inout RecordDeleter<Storage>
    ) throws(WebRecordError) {
        guard options.deleteOrphans != nil || options.orphanDeletion != nil else { return }
        let rule = options.deleteOrphans ?? .all
        let names = store.schema.hierarchy(from: entity.name).map(\.name)
        // Another worker's records, written after this population began, are orphans too (or
        // not yet there): the pass runs as if the populations had run one after the other.
        try transaction.excludeOtherWriters(of: entity.rootName)
        let candidates = try transaction.records(
            of: names, in: entity.rootName, where: rule.predicate, arguments: rule.arguments.map(\.databaseValue)
        ).filter { !keep.contains($0.rowID, in: entity.rootName) }
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
