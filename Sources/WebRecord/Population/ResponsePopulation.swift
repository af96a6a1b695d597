import Foundation

/// Populates a store from one response: MMRecord's population, in one transaction.
///
/// The steps, in order (DESIGN §3):
/// 1. take the records at the key path;
/// 2. build proto-records, merging duplicates (``ProtoRecordBuilder``);
/// 3. fetch the stored records they name, one batched query per table (``RecordResolver``);
/// 4. create what is missing;
/// 5. pre-populate and populate attributes (``Marshaler``);
/// 6. wire relationships, keeping inverses consistent;
/// 7. delete orphans;
/// 8. commit once.
///
/// A fatal error rolls everything back: the store is left exactly as it was, and the failure
/// carries the ``Debugger``.
///
/// The population is built (steps 1–2) in the caller's context, then written (steps 3–8) in
/// one transaction of the store (``RecordStorage/inTransaction(_:)``). The async form waits for
/// the store's writer without blocking a thread, and cancelling its task interrupts the write
/// and rolls it back.
///
/// The population reads and writes only through ``RecordStorage`` and its transactions, so
/// any store that implements them can be populated.
package struct ResponsePopulation<Storage: RecordStorage>: Sendable {
    /// The store populated.
    let store: Storage
    /// The options of this population.
    let options: PopulationOptions
    /// Where a request's progress goes; nil to report to ``PopulationOptions/progress``.
    let progress: ProgressReporter?
    /// Whether a streamed response's records are read with only the members the schema reads
    /// (``keyProjection()``); off for the second reading of a response whose failure quotes a
    /// record.
    var projectsRecords = true

    /// Creates a population for `store`.
    ///
    /// - Parameters:
    ///   - store: the store populated.
    ///   - options: the options of the population.
    ///   - progress: the reporter of the request the population is part of; by default, one
    ///     for the options' ``PopulationOptions/progress`` when it is set, made as the
    ///     population starts.
    package init(store: Storage, options: PopulationOptions = PopulationOptions(), progress: ProgressReporter? = nil) {
        self.store = store
        self.options = options
        self.progress = progress
    }

    /// The reporter of this population: the request's, or a new one for the options' callback.
    func reporter() -> ProgressReporter? {
        progress
            ?? options.progress.map {
                ProgressReporter(interval: options.progressInterval, phase: .populating, callback: $0)
            }
    }

    /// Populates the store from `response`, for records of `entity`, waiting for the writer.
    ///
    /// - Parameters:
    ///   - response: the parsed response.
    ///   - entity: the entity the response's records are (or the root of their hierarchy).
    ///   - debugger: where errors are collected; a new one by default.
    /// - Returns: the top-level records in response order, the debugger, and change counts.
    /// - Throws: ``WebRecordError`` on a fatal error, after rolling back.
    package func populate(_ response: JSONValue, entity: String, debugger: Debugger? = nil) throws(WebRecordError)
        -> PopulationResult
    {
        let debugger = debugger ?? Debugger(initialEntity: entity, logger: store.logger)
        let progress = reporter()
        do {
            let result: PopulationResult
            switch try prepare(response, entityName: entity, debugger: debugger, progress: progress) {
            case .done(let done):
                result = done
            case .write(let graph):
                defer { graph.release() }
                result = try store.inTransaction { transaction in try write(graph, in: transaction, progress: progress)
                }
            }
            progress?.finish(records: result.storedRecordCount)
            return result
        } catch {
            // A failure before the write transaction leaves no file a first write would not have.
            store.discardIfNeverWritten()
            throw failure(error, entity: entity, debugger: debugger)
        }
    }

    /// Populates the store from `response` on the writer's executor, without blocking the
    /// calling task's thread. Cancelling the task interrupts the write, rolls it back and
    /// throws `cancelled`.
    ///
    /// The records are made on the writer's executor and handed to the calling task, which
    /// may send them on: the result is `sending`.
    package func populate(
        _ response: JSONValue, entity: String, debugger: Debugger? = nil
    ) async throws(WebRecordError) -> sending PopulationResult {
        let debugger = debugger ?? Debugger(initialEntity: entity, logger: store.logger)
        let progress = reporter()
        do {
            switch try prepare(response, entityName: entity, debugger: debugger, progress: progress) {
            case .done(let result):
                progress?.finish(records: result.storedRecordCount)
                return result
            case .write(let graph):
                defer { graph.release() }
                // The graph is handed to the writer's executor and used only there while this
                // task waits for it; the result, made there, is handed back.
                let handOver = HandOver(graph)
                let result = try await store.inTransaction { [self] transaction in
                    HandOver(try write(handOver.value, in: transaction, progress: progress))
                }.value
                progress?.finish(records: result.storedRecordCount)
                return result
            }
        } catch {
            await store.discardIfNeverWritten()
            throw failure(error, entity: entity, debugger: debugger)
        }
    }

    /// ``failure(_:entity:debugger:logged:)`` of this population's store: a conflict with
    /// another writer that the store tries the population again for (its
    /// ``RecordStorage/isTransientConflict(_:)``, within ``RecordStorage/conflictRetryLimit``)
    /// is kept in the debugger without being logged as an error, as the population may yet
    /// succeed: the retry logs it as a warning, and the last one, when the retries run out, is
    /// logged as an error then (`RecordStorage+Population.swift`).
    func failure(_ error: any Error, entity: String, debugger: Debugger, retriable: Bool = true) -> WebRecordError {
        let retried =
            retriable && store.conflictRetryLimit > 0
            && (error as? WebRecordError).map { store.isTransientConflict($0) } == true
        return Self.failure(error, entity: entity, debugger: debugger, logged: !retried)
    }

    /// `error` as a population's failure, with its debugger (where it is recorded, and logged
    /// unless `logged` is false, as the first fatal error) and, for a cancellation, the
    /// entity.
    static func failure(_ error: any Error, entity: String, debugger: Debugger, logged: Bool = true) -> WebRecordError {
        switch error {
        case let error as WebRecordError where error.code == .cancelled:
            let cancelled = WebRecordError.cancelled(entity: entity)
            return WebRecordError(cancelled, debugger: debugger)
        case let error as WebRecordError:
            return error.debugger === debugger ? error : WebRecordError(error, debugger: debugger, logged: logged)
        case is CancellationError: return WebRecordError(.cancelled(entity: entity), debugger: debugger)
        default: return WebRecordError(WebRecordError(.storeError, "\(error)", cause: error), debugger: debugger)
        }
    }

    /// What preparing a population gives: a result already (nothing to write), or the graph
    /// to write.
    private enum Preparation {
        case done(PopulationResult)
        case write(Graph)
    }

    /// A population's proto-record graph, built and ready to write: a whole response's, or
    /// one batch of a streamed response's.
    struct Graph {
        let response: JSONValue
        let entity: Entity
        let keyPath: String?
        let listCount: Int?
        var includedCount = 0
        let builder: ProtoRecordBuilder
        let topLevel: [ProtoRecord]
        let plans: TablePlans
        let representations: RepresentationSet
        let coercion: ValueCoercion
        let debugger: Debugger

        /// The requested records that could not be identified (before any included ones).
        var unidentified: Int { builder.unidentifiedTopLevel.count }

        /// Frees the graph once it is written, or given up: its proto-records, and its rows,
        /// whichever thread releases it.
        func release() {
            builder.releaseGraph()
            plans.removeRows()
        }
    }

    /// Steps 1–2: the records at the key path, and their proto-records.
    private func prepare(
        _ response: JSONValue, entityName: String, debugger: Debugger, progress: ProgressReporter?
    ) throws -> Preparation {
        debugger.setResponseObject(response)
        let entity = try store.schema.requireEntity(entityName)
        try requireTransformers()
        let (values, keyPath, isList) = try records(in: response, entity: entity)
        let listCount = isList ? values.count : nil
        progress?.populating(total: values.count)
        if values.isEmpty {
            debugger.record(.emptyResultSet(entity: entity.name, keyPath: keyPath))
        }
        var graph = try makeGraph(
            values, entity: entity, keyPath: keyPath, response: response, listCount: listCount, debugger: debugger,
            progress: progress)
        do {
            let builder = graph.builder
            try requireIdentified(
                builder.unidentifiedTopLevel, unmapped: builder.unmappedTopLevel, identified: graph.topLevel.count,
                entity: entity,
                keyPath: keyPath)
            graph.includedCount = try buildIncluded(in: response, for: entity, builder: builder, debugger: debugger)
        } catch {
            graph.release()
            throw error
        }
        let protos = graph.builder.protoRecords
        if store.logger.isEnabled(.trace) {
            debugger.log(.trace, "proto-record graph:\n" + Self.describeGraph(protos), entity: entity.name)
        }
        if orphanRuleApplies == false, protos.isEmpty {
            graph.release()
            var result = PopulationResult(records: [], debugger: debugger, changesByEntity: [:])
            result.responseRecordCount = listCount
            result.includedRecordCount = graph.includedCount
            return .done(result)
        }
        return .write(graph)
    }

    /// Step 2 for `values`: the proto-record graph of the top-level records, without the
    /// included ones.
    ///
    /// - Parameter indexOffset: the position of the first value in the whole list, for messages.
    /// - Parameter earlierParents: for a streamed response's batch, what the batches before it
    ///   gave the parents of primary-key injections (nil for a whole response).
    /// - Parameter arena: where the graph's proto-records go: an earlier batch's, freed, whose
    ///   storage the graph takes over; a new one by default.
    func makeGraph(
        _ values: [JSONValue], entity: Entity, keyPath: String?, response: JSONValue, listCount: Int?,
        debugger: Debugger, progress: ProgressReporter?, indexOffset: Int = 0, earlierParents: InjectionParents? = nil,
        arena: ProtoRecordArena? = nil, holdsErrors: Bool = false
    ) throws(WebRecordError) -> Graph {
        // A streamed batch is built ahead of its turn: what building it records waits for it.
        let buildingDebugger = holdsErrors ? Debugger(holdingFor: debugger) : debugger
        let coercion = ValueCoercion(dateFormats: store.schema.dateFormats)
        let plans = TablePlans(layout: store.layout)
        let representations = RepresentationSet(store: store, plans: plans, coercion: coercion)
        let builder = ProtoRecordBuilder(
            store: store, options: options, coercion: coercion, representations: representations,
            debugger: buildingDebugger, arena: arena ?? ProtoRecordArena())
        builder.earlierParents = options.primaryKeyInjection == nil ? nil : earlierParents
        let topLevel: [ProtoRecord]
        do {
            topLevel = try builder.build(
                values, entity: entity, keyPath: keyPath, progress: progress, indexOffset: indexOffset)
        } catch {
            builder.releaseGraph()
            // The population fails: what the batch recorded before is kept with the failure.
            buildingDebugger.releaseHeld()
            throw error
        }
        builder.keepInjectionParents()
        builder.arena.prepareAttributes(coercion: coercion)
        return Graph(
            response: response, entity: entity, keyPath: keyPath, listCount: listCount, builder: builder,
            topLevel: topLevel, plans: plans, representations: representations, coercion: coercion,
            debugger: debugger)
    }

    /// Steps 3–8, in the write transaction: the graph is the one batch of the response, written
    /// and counted by the same code as a streamed response's batches
    /// (``writeBatches(in:entity:keyPath:debugger:whole:next:written:)``).
    private func write(
        _ graph: Graph, in transaction: Storage.Transaction, progress: ProgressReporter?
    ) throws -> PopulationResult {
        try transaction.checkCancellation()
        progress?.writing(records: graph.topLevel.count)
        var given = false
        return try writeBatches(
            in: transaction, entity: graph.entity, keyPath: graph.keyPath, debugger: graph.debugger, whole: true,
            next: {
                defer { given = true }
                return given ? .end(graph.response) : .batch(graph)
            },
            written: { _ in })
    }

    /// What steps 3–6 leave behind: the writer (which rows it relinked).
    struct StoredGraph {
        let writer: PopulationWriter<Storage>
        /// The members stored owners gained, or moved in an ordered list
        /// (``Marshaler/noteGainedMembers()``).
        var gainedMembers: [ListMemberChange] = []
        /// The members lists took from other records (``Marshaler/takenMembers``).
        var takenMembers: [(owner: RowState, member: RowState, column: Int)] = []
        /// The members other owners lost to those lists (``Marshaler/lostMembers()``).
        var lostMembers: [(ownerTable: Int, owner: Int64, member: RowState, column: Int)] = []
        /// The stored rows that give their own list through a join table, with the table's side
        /// they list from (``JoinListerSide``).
        var joinListers: [(row: RowState, side: JoinListerSide)] = []
        /// The stored rows an own link moved out of an ordered list (``Marshaler/positionedMoves``).
        var positionedMoves: [(row: RowState, column: Int, from: DatabaseValue, to: DatabaseValue)] = []
        /// The stored members lists gave an owner that named no other (``Marshaler/listedStoredMembers``).
        var listedStoredMembers: [(owner: RowState, member: RowState, column: Int)] = []
        /// The stored owners that gave a list kept on its members (``Marshaler/listedOwnerColumns``).
        var listedOwners: [(owner: RowState, table: Int, column: Int)] = []
        /// The one-to-ones rows of the batch took from others of the batch
        /// (``Marshaler/takenOneToOnes``).
        var takenOneToOnes: [(table: String, column: String, holder: Int64, value: DatabaseValue)] = []
        /// The stored rows of the records named only inside records not stored for want of a key
        /// (``ProtoRecordBuilder/namedOnly``), by table.
        var namedRows: [String: [Int64]] = [:]
        /// The stored rows of the records kept as stored, not updated, where the place they are
        /// given cannot hold them (``RecordResolver/keptRows``): contained, and unchanged.
        var keptRows: [RowState] = []
    }

    /// Steps 3–6: resolves the graph's records against the store, creates what is missing,
    /// populates attributes, wires relationships, and writes rows and links.
    ///
    /// - Parameters:
    ///   - checksStored: whether to apply the rules for top-level records that could not be
    ///     stored now (a whole response) rather than over all batches (a streamed one).
    ///   - stubs: the rows earlier batches inserted for records they named only by key, whose
    ///     data no batch has given yet (``giveDefaults(to:stubs:coercion:)``).
    ///   - droppableStubs: those of `stubs` that are dropped, as a new record is, when this
    ///     batch gives their data without a non-optional value
    ///     (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``).
    func store(
        _ graph: Graph, in transaction: Storage.Transaction, deleter: inout RecordDeleter<Storage>,
        repeats: inout RepeatedRecords, switches: inout SwitchedSubentities, unlinkedIDs: inout UnlinkedChildIDs,
        checksStored: Bool, stubs: Set<RowKey> = [], droppableStubs: Set<RowKey> = [],
        insertedEarlier: ((RowKey) -> Bool)? = nil
    ) throws -> StoredGraph {
        let (debugger, representations) = (graph.debugger, graph.representations)
        let protos = graph.builder.protoRecords
        let resolver = RecordResolver(
            store: store, transaction: transaction, plans: graph.plans, representations: representations,
            debugger: debugger)
        // Nested records an earlier batch wrote and this one repeats as is are taken as written.
        repeats.carry(protos, topLevel: graph.topLevel)
        var resolving = repeats.carriesAny ? protos.filter { !RepeatedRecords.isCarried($0) } : protos
        var sharesRows = try resolver.resolve(resolving)
        if repeats.noteResolved(resolving) {
            // A record resolved to the row of one taken as written: that one is stored as usual.
            sharesRows = true
            resolving = protos.filter { !RepeatedRecords.isCarried($0) }
        }

        var marshaler = Marshaler(store: store, options: options, coercion: graph.coercion, debugger: debugger)
        marshaler.includedFrom = graph.builder.includedFrom
        // The proto-records that share a row, by row, found once for the three steps that need them.
        let sharing = sharesRows ? Marshaler.protosByRow(protos) : [:]
        if sharesRows {
            for (proto, columns) in attributeTurns(resolving, sharing: sharing, coercion: graph.coercion) {
                marshaler.populateAttributes(of: proto, onlyColumns: columns)
            }
        } else {
            for proto in resolving { marshaler.populateAttributes(of: proto) }
        }
        if !stubs.isEmpty { giveDefaults(to: resolving, stubs: stubs, coercion: graph.coercion) }
        if let insertedEarlier {
            giveSwitchedDefaults(
                to: resolving, insertedEarlier: insertedEarlier, stubs: stubs, coercion: graph.coercion,
                debugger: debugger)
        }
        let superseded = Self.supersededLinks(sharing)
        marshaler.dropIncompleteRecords(protos, superseded: superseded, sharing: sharing, stubs: droppableStubs)
        // What an earlier batch kept of a record's other sub-entities (DESIGN §3.13), once the
        // records that cannot be stored are known: a link to one of them leaves what is there.
        try switches.restore(resolving, coercion: graph.coercion, store: store)
        unlinkedIDs.give(to: protos)
        try numberNewRows(protos, in: transaction)
        unlinkedIDs.keep(protos)
        let dropped = graph.topLevel.filter { $0.row == nil }
        if checksStored {
            try requireStored(
                dropped: dropped.count, first: dropped.first.map { .object($0.dictionary) },
                reason: dropped.first?.dropReason, topLevel: graph.topLevel.count, unidentified: graph.unidentified,
                entity: graph.entity,
                keyPath: graph.keyPath)
        }
        switches.note(resolving, representations: representations, coercion: graph.coercion, store: store)
        var switched = false
        for proto in protos where proto.row?.switchedFrom != nil {
            marshaler.clearSwitchedSubentity(of: proto, representations: representations)
            switched = true
        }
        marshaler.noteLists(of: resolving)
        Self.wireInOrderGiven(resolving, superseded: superseded, with: &marshaler)
        marshaler.finishWiring()
        switches.noteUnwired(marshaler.unwiredLinks)
        let gained = marshaler.noteGainedMembers()
        try Self.requireOwnerKeys(protos)
        var rows: [RowState] = []
        rows.reserveCapacity(protos.count)
        var seen = Set<RowState>()
        for proto in protos {
            // A row two proto-records share (RecordResolver) is written once.
            guard let row = proto.row else { continue }
            if !sharesRows || seen.insert(row).inserted { rows.append(row) }
        }
        var writer = PopulationWriter(store: store, transaction: transaction)
        try writer.writeRows(rows)
        try writer.writeLinks(marshaler.operations, deleter: &deleter)
        switches.confirm(listChanges: writer.listChanges, clearedRows: writer.clearedRows)
        repeats.keep(
            protos,
            disturbed: writer.touchedOtherRows || !writer.relinkedOwners.isEmpty
                || sharesRows || switched)
        return StoredGraph(
            writer: writer, gainedMembers: gained, takenMembers: marshaler.takenMembers,
            lostMembers: marshaler.lostMembers(), joinListers: joinListers(of: marshaler.operations),
            positionedMoves: marshaler.positionedMoves,
            listedStoredMembers: marshaler.listedStoredMembers,
            listedOwners: marshaler.listedOwnerColumns,
            takenOneToOnes: marshaler.takenOneToOnes,
            namedRows: try Self.storedRows(of: graph.builder.namedOnly, in: transaction),
            keptRows: resolver.keptRows.rows)
    }

    /// The stored rows whose own lists `operations` write into a join table, with the side of
    /// the table they list from.
    private func joinListers(of operations: [LinkOperation]) -> [(row: RowState, side: JoinListerSide)] {
        operations.compactMap { operation in
            guard
                case .joinMembers(
                    let owner, let table, let selfColumn, let otherColumn, _, _, _, _, _, let destination) =
                    operation, !owner.isNew
            else { return nil }
            let memberTable = store.schema.entity(named: destination)?.rootName ?? destination
            return (
                owner,
                JoinListerSide(
                    table: table, ownerColumn: selfColumn, memberColumn: otherColumn, memberTable: memberTable)
            )
        }
    }

    /// The stored rows of `named` (records named only inside records that are not stored), by
    /// table: one lookup per entity whose key they give.
    static func storedRows(
        of named: [(representation: Representation, key: KeyValue)], in transaction: Storage.Transaction
    ) throws(WebRecordError) -> [String: [Int64]] {
        guard !named.isEmpty else { return [:] }
        var byEntity: [Int: (representation: Representation, keys: Set<KeyValue>)] = [:]
        for (representation, key) in named {
            byEntity[representation.index, default: (representation, [])].keys.insert(key)
        }
        var rows: [String: [Int64]] = [:]
        for (_, group) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let plan = group.representation.table else { continue }
            let keyColumns = group.representation.keyAttributes.map { plan.columns[$0.column] }
            try transaction.forEachRow(in: plan.name, where: keyColumns, areIn: group.keys.map(\.parts)) { row in
                rows[plan.name, default: []].append(row.rowID)
            }
        }
        return rows
    }

    /// Gives the rows an earlier batch of a streamed response inserted for records it named only
    /// by key (`stubs`), and whose data this batch gives, the defaults of the attributes the data
    /// lacks, as one batch gives a new record them: the stub may have been another entity of
    /// the hierarchy, without those attributes.
    func giveDefaults(to protos: [ProtoRecord], stubs: Set<RowKey>, coercion: ValueCoercion) {
        for proto in protos where !proto.isReference {
            guard let row = proto.row, !row.isNew, stubs.contains(RowKey(row)) else { continue }
            for mapped in proto.representation.attributes where row.values[mapped.column].isNull {
                guard let stored = mapped.storedDefault, lacksValue(mapped, of: proto, coercion: coercion)
                else { continue }
                row.set(stored, at: mapped.column)
            }
        }
    }

    /// Whether `proto` gives `mapped` (``ProtoRecord/value(of:)``) no value that it accepts: none, or one it refuses,
    /// which leaves a new record the attribute's default (``Marshaler``). A `null` it accepts is
    /// a value.
    private func lacksValue(
        _ mapped: Representation.MappedAttribute, of proto: ProtoRecord, coercion: ValueCoercion
    ) -> Bool {
        guard let found = proto.value(of: mapped) else { return true }
        return !mapped.accepts(found, coercion: coercion, store: store)
    }

    /// Gives the rows an earlier batch of a streamed response inserted, and that this batch
    /// switches to another sub-entity, the defaults of the attributes the new entity has and the
    /// one it was has not, where the row holds no value and this batch gives none: one batch
    /// merges the occurrences and creates the record as the entity it ends as, with that
    /// entity's defaults. (A value an earlier batch gave for such an attribute is given back
    /// after this, by ``SwitchedSubentities/restore(_:coercion:store:)``.)
    ///
    /// It also warns, as one batch does where two of a record's occurrences meet (DESIGN
    /// §3.13), when the batch makes such a row, inserted from data, another branch of its
    /// hierarchy, or states a more general entity for it: the later occurrence wins.
    func giveSwitchedDefaults(
        to protos: [ProtoRecord], insertedEarlier: (RowKey) -> Bool, stubs: Set<RowKey>, coercion: ValueCoercion,
        debugger: Debugger
    ) {
        let schema = store.schema
        for proto in protos where !proto.isReference {
            guard let row = proto.row, !row.isNew, let earlier = row.switchedFrom, insertedEarlier(RowKey(row)) else {
                continue
            }
            let later = proto.representation.entity.name
            if !stubs.contains(RowKey(row)), !schema.entity(later, isKindOf: earlier.name),
                proto.entityIsStated || !schema.entity(earlier.name, isKindOf: later)
            {
                // Named as the entity the earlier batch made it, as one batch names it.
                let named = proto.description
                let record = named.hasPrefix(later) ? earlier.name + named.dropFirst(later.count) : named
                debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "a duplicate of \(record) says it is \(later), not \(earlier.name); the later wins",
                        isFatal: false, entity: later, value: .object(proto.dictionary)))
            }
            for mapped in proto.representation.attributes where row.values[mapped.column].isNull {
                guard let stored = mapped.storedDefault, earlier.attribute(atColumn: mapped.column) == nil,
                    lacksValue(mapped, of: proto, coercion: coercion)
                else { continue }
                row.set(stored, at: mapped.column)
            }
        }
    }

    /// Fails, before anything is written, when a new record identified by its owner would be
    /// stored without the owner: it would have no key, and nothing could find it again. The
    /// population's rules leave none (an unlinked one is not stored); this keeps a case they
    /// miss from passing silently.
    static func requireOwnerKeys(_ protos: [ProtoRecord]) throws(WebRecordError) {
        for proto in protos {
            guard let row = proto.row, row.isNew, let key = proto.representation.keyRelationship,
                case .foreignKeyHere(let column, _, _, _)? = key.link, row.values[column].isNull
            else { continue }
            throw WebRecordError(
                .invalidResponseFormat,
                "\(proto) would be stored without the '\(key.name)' that identifies it; nothing is written",
                entity: proto.representation.name, property: key.name)
        }
    }

    /// The links that a later occurrence of the same row sets again, among the proto-records
    /// that share one row (RecordResolver), by row in `sharing`: only the occurrence that gave a relationship last wires it,
    /// as a later value wins (DESIGN §3.7), so that an earlier occurrence's `null` cannot undo a
    /// later one's record, nor the other way round.
    static func supersededLinks(_ sharing: [RowState: [ProtoRecord]]) -> Set<LinkKey> {
        var superseded = Set<LinkKey>()
        for group in sharing.values {
            var last: [Int: (proto: ProtoRecord, givenAt: Int)] = [:]
            for proto in group {
                for link in proto.links {
                    let id = link.relationship.id
                    if let current = last[id], current.givenAt > link.givenAt {
                        superseded.insert(LinkKey(proto: proto, relationship: id))
                    } else {
                        if let current = last[id] { superseded.insert(LinkKey(proto: current.proto, relationship: id)) }
                        last[id] = (proto, link.givenAt)
                    }
                }
            }
        }
        return superseded
    }

    /// Wires the links of `protos`, but `superseded`, in the order the response gave them last
    /// (``ProtoRecord/Link/givenAt``), so that of two records that claim one member (a to-one
    /// target, the member of a one-to-many), the one whose occurrence names it last ends with
    /// it, as when the occurrences fall in batches of their own.
    ///
    /// The links a record's first occurrence gave are in that order already, the graph's; only
    /// those a later occurrence gave again (a record repeated, a stub given its data) are sorted,
    /// and merged in among them. A to-one whose latest occurrence names a record that is not
    /// stored is wired where the earlier occurrence it falls back on gave it
    /// (``ProtoRecord/Link/givenAtInTurn``), as that later occurrence changes nothing when the
    /// occurrences are applied in turn: the lists and claims given after that earlier one come
    /// after it. So is one whose latest occurrence names a record judged not to fit
    /// (``Marshaler/givenAtInTurn(_:)``).
    static func wireInOrderGiven(
        _ protos: [ProtoRecord], superseded: Set<LinkKey>, with marshaler: inout Marshaler
    ) {
        var later: [(givenAt: Int, proto: ProtoRecord, link: Int)] = []
        for proto in protos where proto.row != nil {
            for (index, link) in proto.links.enumerated() {
                let givenAt = marshaler.givenAtInTurn(link)
                if givenAt != proto.firstGiven { later.append((givenAt, proto, index)) }
            }
        }
        let wires = { (proto: ProtoRecord, link: ProtoRecord.Link) in
            superseded.isEmpty || !superseded.contains(LinkKey(proto: proto, relationship: link.relationship.id))
        }
        guard !later.isEmpty else {
            for proto in protos where !proto.links.isEmpty {
                marshaler.wireRelationships(of: proto, superseded: superseded)
            }
            return
        }
        // A stable sort: the links one occurrence gave keep the graph's order.
        later = later.enumerated().sorted { ($0.element.givenAt, $0.offset) < ($1.element.givenAt, $1.offset) }
            .map(\.element)
        var next = 0
        for proto in protos where proto.row != nil {
            for link in proto.links where marshaler.givenAtInTurn(link) == proto.firstGiven {
                while next < later.count, later[next].givenAt < proto.firstGiven {
                    let (_, owner, index) = later[next]
                    if wires(owner, owner.links[index]) { marshaler.wire(owner.links[index], of: owner) }
                    next += 1
                }
                if wires(proto, link) { marshaler.wire(link, of: proto) }
            }
        }
        for (_, owner, index) in later[next...] where wires(owner, owner.links[index]) {
            marshaler.wire(owner.links[index], of: owner)
        }
    }

    /// The proto-records in the order their attributes are populated, each with the columns it
    /// sets (nil: all): the graph's, except that the proto-records sharing one row
    /// (RecordResolver) are populated together, in the order the response gave them last, and
    /// each sets only the attributes whose value it holds from a later occurrence than the
    /// others (``ProtoRecord/attributeTimes``), so that each attribute takes the value the
    /// response gave last, as occurrences merged in turn do (DESIGN §3.7): a later value wins,
    /// an absent one changes nothing, and one the attribute refuses loses to an earlier valid
    /// one. The last of them sets the defaults of a new row. `sharing` is
    /// ``Marshaler/protosByRow(_:)`` of `protos`.
    func attributeTurns(
        _ protos: [ProtoRecord], sharing: [RowState: [ProtoRecord]], coercion: ValueCoercion
    ) -> [(proto: ProtoRecord, columns: Set<Int>?)] {
        var turns: [(proto: ProtoRecord, columns: Set<Int>?)] = []
        turns.reserveCapacity(protos.count)
        for proto in protos {
            guard let row = proto.row, let group = sharing[row] else {
                turns.append((proto, nil))
                continue
            }
            guard group[0] == proto else { continue }
            let ordered = group.sorted { $0.lastGiven < $1.lastGiven }
            var winners: [Int: ProtoRecord] = [:]
            var columns = Set<Int>()
            for member in ordered {
                for mapped in member.representation.attributes { columns.insert(mapped.column) }
            }
            for column in columns {
                var best: (proto: ProtoRecord, time: Int, accepted: Bool)?
                for member in ordered {
                    guard let mapped = member.representation.attributes.first(where: { $0.column == column }),
                        let value = member.value(of: mapped)
                    else { continue }
                    let time = member.attributeTime(column: column)
                    let accepted = mapped.accepts(value, coercion: coercion, store: store)
                    if let current = best,
                        current.accepted && !accepted
                            || current.accepted == accepted
                                && current.time > time
                    {
                        continue
                    }
                    best = (member, time, accepted)
                }
                // Absent from all of them: the last sets a new row's default.
                winners[column] = best?.proto ?? ordered[ordered.count - 1]
            }
            for member in ordered {
                turns.append((member, Set(winners.lazy.filter { $0.value == member }.map(\.key))))
            }
        }
        return turns
    }

    /// Gives the new rows the `_id`s the store reserves for them, in the order the response first
    /// names their records, table by table: one reservation per table that has new rows
    /// (``RecordStorageTransaction/reserveRowIDs(in:count:)``). A new record dropped as incomplete
    /// takes one as well, which stays unused unless a later batch of a streamed response
    /// completes the record (``ProtoRecord/reservedRowID``), and so does a new record a later
    /// occurrence of its owner unlinks (``ProtoRecord/unstoredTable``).
    ///
    /// The resolver gives new rows provisional `_id`s, table by table, records found by key
    /// before those found through their owner, and before the records lacking a non-optional
    /// value are dropped. Reserved here, in response order, the `_id`s do not depend on how a
    /// response is cut into batches: a streamed response's new rows get the `_id`s the whole
    /// response gives them, in a store that hands out the largest plus one. Links are wired
    /// after this, with the final `_id`s.
    func numberNewRows(_ protos: [ProtoRecord], in transaction: Storage.Transaction) throws(WebRecordError) {
        // A new record dropped as incomplete takes its `_id` too, and leaves it unused: a later
        // batch that completes it gives it that one, where one batch would have numbered it.
        // Each entry is a new row, or (nil) the proto-record of one that is not stored.
        // The tables in the order first met, each with its entries; found by layout position.
        var groups: [(table: String, entries: [(row: RowState?, proto: ProtoRecord)])] = []
        var slots = [Int](repeating: -1, count: store.layout.tables.count)
        func group(_ index: Int?, named table: String) -> Int {
            guard let index, slots.indices.contains(index) else {
                groups.append((table, []))
                return groups.count - 1
            }
            if slots[index] < 0 {
                slots[index] = groups.count
                groups.append((table, []))
            }
            return slots[index]
        }
        for proto in protos {
            if let row = proto.row {
                // A row two proto-records share is numbered once.
                guard row.isNew, row.table.rows.mark(row.index) else { continue }
                if let reserved = proto.reservedRowID {
                    row.rowID = reserved
                    continue
                }
                let slot = group(row.table.index, named: row.table.name)
                groups[slot].entries.append((row, proto))
            } else if let table = proto.unstoredTable, proto.reservedRowID == nil {
                let index = store.layout.tables.firstIndex { $0.name == table }
                let slot = group(index, named: table)
                groups[slot].entries.append((nil, proto))
            }
        }
        for (table, entries) in groups {
            let rowIDs = try transaction.reserveRowIDs(in: table, count: entries.count).sorted()
            guard rowIDs.count == entries.count else {
                throw WebRecordError(
                    .storeError, "the store reserved \(rowIDs.count) new ids in '\(table)' for \(entries.count) rows")
            }
            for (entry, rowID) in zip(entries, rowIDs) {
                if let row = entry.row { row.rowID = rowID } else { entry.proto.reservedRowID = rowID }
            }
        }
        for proto in protos {
            if let row = proto.row, row.isNew { proto.rowID = row.rowID }
        }
    }

    /// Adds every stored row the response named, of any entity, at any depth, as an object or a
    /// reference (DESIGN §3.14), to `contained`: the records orphan deletion keeps (those of the
    /// requested entity's table), and those no delete of the run removes. When `gathersSpared`,
    /// also adds to `spared` the rows no delete that the response's own links start removes
    /// (``RecordDeleter/deleteProposed(sparing:)``): every row it contained, but a record
    /// identified by its owner that the response named only through its owner's link to it.
    /// The owner's link, as the response leaves it, decides whether that one stays, as the last
    /// of its occurrences gives it (a new one that a later occurrence of the owner unlinks is not
    /// stored, and a stored one is deleted), so that the result does not depend on how a
    /// streamed response is cut into batches.
    ///
    /// The rows are gathered by table first, then added a table at a time, so that a table's
    /// name is looked up once per batch, not once per row.
    static func addContainedRows(
        _ protos: [ProtoRecord], to contained: inout ContainedRows, spared: inout ContainedRows, gathersSpared: Bool
    ) {
        var tables: [TablePlan?] = []
        var containedIDs: [[Int64]] = []
        var sparedIDs: [[Int64]] = []
        for proto in protos {
            guard let row = proto.row else { continue }
            let index = row.table.index
            while tables.count <= index {
                tables.append(nil)
                containedIDs.append([])
                sparedIDs.append([])
            }
            if tables[index] == nil { tables[index] = row.table }
            let rowID = row.rowID
            containedIDs[index].append(rowID)
            guard gathersSpared else { continue }
            let onlyThroughItsOwner =
                !proto.isNamedApartFromOwner && proto.owner != nil && proto.representation.keyRelationship != nil
            if !onlyThroughItsOwner { sparedIDs[index].append(rowID) }
        }
        for (index, table) in tables.enumerated() {
            guard let table else { continue }
            contained.insert(contentsOf: containedIDs[index], in: table.name)
            spared.insert(contentsOf: sparedIDs[index], in: table.name)
        }
    }

    /// Deleted counts by entity, of the rows deleted (by table and `_id`, with their entity),
    /// but those the same population inserted (`insertedHere`, given `table#_id`): a record it
    /// created and deleted again was never in the store, so it counts as nothing.
    static func deletedCounts(
        _ deleted: [String: [Int64: String]], insertedHere: (String) -> Bool
    ) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (table, rows) in deleted {
            for (rowID, entity) in rows where !insertedHere("\(table)#\(rowID)") {
                counts[entity, default: 0] += 1
            }
        }
        return counts
    }

    /// Refuses a schema that names a value transformer nobody registered, before anything is
    /// read or written: its attribute would otherwise be stored as NULL on every record (a NULL
    /// key inserting a duplicate on every import).
    func requireTransformers() throws(WebRecordError) {
        for entity in store.schema.entities {
            for attribute in entity.attributes {
                guard let name = attribute.transformer, store.transformer(named: name) == nil else { continue }
                throw WebRecordError(
                    .invalidEntityDescription,
                    "the schema names value transformer '\(name)', and none is registered under that name "
                        + "(register it with AttributeTransformers.register, or in the store's configuration, before populating)",
                    entity: entity.name, property: attribute.name)
            }
        }
    }

    /// DESIGN §3.5: a response none of whose top-level records can be identified fails, and so
    /// does one with any such record when orphans are to be deleted after it (a blank or partial
    /// list must never decide what is deleted).
    /// The same rules for top-level records that were identified but not stored (new ones
    /// without a non-optional attribute): none stored fails, and so does any under orphan
    /// deletion — `{"id": 0, "error": "Bad credentials"}` is not a list of records.
    ///
    /// The message names the first record not stored and why (`reason`, the proto-record's
    /// ``ProtoRecord/dropReason``): `Customer 'cus_1': email is null, and it is not optional`.
    func requireStored(
        dropped: Int, first: JSONValue?, reason: String?, topLevel: Int, unidentified: Int, entity: Entity,
        keyPath: String?
    ) throws(WebRecordError) {
        guard dropped > 0 else { return }
        let total = topLevel + unidentified
        let why = reason ?? "it lacks a non-optional attribute"
        if dropped == topLevel {
            let records =
                total == 1
                ? "none of the 1 top-level record could be stored: \(why)"
                : "none of the \(total) top-level records could be stored (the first: \(why))"
            throw WebRecordError(
                .invalidResponseFormat,
                "\(records); the response is not a list of \(entity.name) records, and nothing was written",
                entity: entity.name, keyPath: keyPath, value: first)
        }
        if options.deletesOrphans {
            throw WebRecordError(
                .invalidResponseFormat,
                "\(dropped) of the \(total) top-level records could not be stored (the first: \(why)); "
                    + "with orphan deletion nothing is written or deleted",
                entity: entity.name, keyPath: keyPath, value: first)
        }
    }

    /// Records of an abstract entity that no sub-entity matched (`unmapped`) count too when
    /// orphans are deleted: skipped, they would be taken for orphans.
    func requireIdentified(
        _ unidentified: (count: Int, first: JSONValue?, firstIndex: Int), unmapped: Int, identified: Int,
        entity: Entity,
        keyPath: String?
    ) throws(WebRecordError) {
        guard unidentified.count > 0 || (unmapped > 0 && options.deletesOrphans) else { return }
        let total = unidentified.count + unmapped + identified
        // Where the first one is, and what it is: `data.1`, `{"message": "Bad credentials"}`.
        let first =
            unidentified.first.map {
                " (the first at '\(keyPath.map { "\($0)." } ?? "")\(unidentified.firstIndex)': \(WebRecordError.excerpt(of: $0)))"
            } ?? ""
        if identified == 0, unidentified.count > 0 {
            throw WebRecordError(
                .invalidResponseFormat,
                "none of the \(total) top-level record\(total == 1 ? "" : "s") could be identified (by a primary key and a concrete entity)\(first); "
                    + "the response is not a list of \(entity.name) records, and nothing was written",
                entity: entity.name, keyPath: keyPath, value: unidentified.first)
        }
        if options.deletesOrphans {
            throw WebRecordError(
                .invalidResponseFormat,
                "\(unidentified.count + unmapped) of the \(total) top-level records could not be identified (by a primary key and a concrete entity)\(first); "
                    + "with orphan deletion nothing is written or deleted",
                entity: entity.name, keyPath: keyPath, value: unidentified.first)
        }
    }

    /// `: title "Old" -> "New", date ... -> ...`: the columns an update changes, old and new
    /// values in short, a secret column's values redacted; nothing for a row whose columns stay
    /// as they are (one only relinked through a join table).
    static func describeChanges(of row: RowState) -> String {
        guard let original = row.original else { return "" }
        var changes: [String] = []
        for (index, column) in row.table.columns.enumerated()
        where index < original.count && index < row.values.count && original[index] != row.values[index] {
            if Redaction.isSecret(column) {
                changes.append("\(column) \(Redaction.placeholder) -> \(Redaction.placeholder)")
            } else {
                changes.append("\(column) \(excerpt(original[index])) -> \(excerpt(row.values[index]))")
            }
        }
        return changes.isEmpty ? "" : ": " + changes.joined(separator: ", ")
    }

    /// A stored value for a log line: text quoted, at most 40 characters.
    private static func excerpt(_ value: DatabaseValue) -> String {
        let text: String
        switch value {
        case .text(let string): text = JSONValue.string(string).serialized()
        case .blob(let data): text = "<\(data.count) bytes>"
        default: text = value.description
        }
        return text.count <= 40 ? text : String(text.prefix(37)) + "..."
    }

    var orphanRuleApplies: Bool {
        options.deleteOrphans != nil || options.orphanDeletion != nil
    }

    // MARK: - Step 1: the key path

    /// Where `entity`'s records are in an object response: the options' key path, else the
    /// record class's, else the schema's; nil when none is set (or it is empty).
    func responseKeyPath(of entity: Entity) -> String? {
        let keyPath =
            options.keyPath ?? store.recordClass(for: entity.name).keyPathForResponseObject
            ?? entity.keyPathForResponseObject
        guard let keyPath, !keyPath.isEmpty else { return nil }
        return keyPath
    }

    /// The records at the key path (DESIGN §3.1): an array response ignores the key path, a
    /// single object becomes one record, null or `[]` at the key path is an empty result, and a
    /// key path missing from the object fails the response (`invalidResponseFormat`).
    /// The values and the key path they were found at; `isList` is false when a single object
    /// was taken as the one record (a response that is not a list).
    private func records(in response: JSONValue, entity: Entity) throws(WebRecordError) -> (
        values: [JSONValue], keyPath: String?, isList: Bool
    ) {
        if case .array(let elements) = response { return (elements, nil, true) }
        guard case .object = response else {
            throw WebRecordError(
                .invalidResponseFormat,
                "the response is \(response.typeName); expected an object or an array: "
                    + WebRecordError.bodyExcerpt(of: response),
                entity: entity.name, value: response)
        }
        guard let keyPath = responseKeyPath(of: entity) else { return ([response], nil, false) }
        let found = response.value(atKeyPath: keyPath)
        switch found {
        case nil:
            // DESIGN §3.1: an error envelope answered with 200 is never an empty page.
            throw .missingKeyPath(keyPath, in: response, entity: entity.name)
        case .null?:
            if options.deletesOrphans {
                // DESIGN §3.5: only an explicit empty array means "the server has none".
                throw WebRecordError(
                    .invalidResponseFormat,
                    "the response has null at '\(keyPath)'; with orphan deletion it would "
                        + "delete every record, so nothing was written (an empty array there means the server has none)",
                    entity: entity.name, keyPath: keyPath, value: response)
            }
            return ([], keyPath, true)
        case .array(let elements)?: return (elements, keyPath, true)
        case .object(let object)?: return ([.object(object)], keyPath, false)
        case let other?:
            throw WebRecordError(
                .invalidResponseFormat,
                "the value at '\(keyPath)' is \(other.typeName); expected an object or an array; the response: "
                    + WebRecordError.bodyExcerpt(of: response),
                entity: entity.name, keyPath: keyPath, value: other)
        }
    }

    // MARK: - Step 1b: included records

    /// Builds the proto-records of the records the response brings for other entities (the
    /// options' `included`, else the entity's), into the same graph as the requested ones: a
    /// record named by key in one place and given whole in another is one record, in either
    /// order.
    ///
    /// - Returns: how many values their key paths held.
    private func buildIncluded(
        in response: JSONValue, for entity: Entity, builder: ProtoRecordBuilder, debugger: Debugger
    ) throws(WebRecordError) -> Int {
        let included = options.included ?? entity.included
        guard !included.isEmpty, case .object = response else { return 0 }
        builder.startIncluded()
        var count = 0
        for group in included {
            let values: [JSONValue]
            switch response.value(atKeyPath: group.keyPath) {
            case nil, .null?: continue
            case .array(let elements)?: values = elements
            case .object(let object)?: values = [.object(object)]
            case let other?:
                throw WebRecordError(
                    .invalidResponseFormat,
                    "the included records at '\(group.keyPath)' are \(other.typeName); expected an object or an array",
                    entity: entity.name, keyPath: group.keyPath, value: other)
            }
            count += values.count
            switch group.routing {
            case .entity(let name):
                _ = try builder.build(values, entity: try store.schema.requireEntity(name), keyPath: group.keyPath)
            case .discriminator(let key, let entities):
                var routed: [String: [JSONValue]] = [:]
                var order: [String] = []
                var skipped: [String: Int] = [:]
                var untyped = 0
                for value in values {
                    guard case .object = value, let found = value.value(atKeyPath: key), !found.isNull else {
                        untyped += 1
                        continue
                    }
                    let tag = Self.routingText(found)
                    guard let name = entities[tag] else {
                        skipped[tag, default: 0] += 1
                        continue
                    }
                    if routed[name] == nil { order.append(name) }
                    routed[name, default: []].append(value)
                }
                for name in order {
                    _ = try builder.build(
                        routed[name] ?? [], entity: try store.schema.requireEntity(name), keyPath: group.keyPath)
                }
                if untyped > 0 {
                    // Not a record of a type the map could route: malformed, so a warning.
                    debugger.record(
                        WebRecordError(
                            .invalidResponseFormat,
                            "\(untyped) included value(s) at '\(group.keyPath)' are not objects with a '\(key)'; "
                                + "they were skipped", isFatal: false, entity: entity.name, keyPath: group.keyPath))
                }
                for (tag, skippedCount) in skipped.sorted(by: { $0.key < $1.key }) {
                    debugger.log(
                        .debug,
                        "\(skippedCount) included record(s) at '\(group.keyPath)' with \(key) '\(tag)' were skipped: "
                            + "no entity is routed for it", entity: entity.name)
                }
            }
        }
        return count
    }

    /// A discriminator's value as the text a routing table is keyed by.
    private static func routingText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: ""
        default: value.serialized()
        }
    }

    // MARK: - Results

    /// The records again, as stored now: what a link operation or a deletion changed in rows
    /// the population did not hold shows.
    func refetch(_ records: [Record], in transaction: Storage.Transaction) throws(WebRecordError) -> [Record] {
        var byTable: [String: [Int64]] = [:]
        for record in records { byTable[record.entity.rootName, default: []].append(record.rowID) }
        var fresh: [String: Record] = [:]
        for (table, ids) in byTable {
            for record in try transaction.records(withIDs: ids, in: table) {
                fresh["\(table)#\(record.rowID)"] = record
            }
        }
        return records.compactMap { fresh["\($0.entity.rootName)#\($0.rowID)"] }
    }

    static func describeGraph(_ protos: [ProtoRecord]) -> String {
        protos.map { proto in
            let links = proto.relationships.keys.sorted().map { name in
                "\(name) -> [" + (proto.relationships[name] ?? []).map(\.description).joined(separator: ", ") + "]"
            }
            return "  \(proto)" + (links.isEmpty ? "" : " { " + links.joined(separator: "; ") + " }")
        }.joined(separator: "\n")
    }
}

extension ResponsePopulation {
    /// Deletes the orphans of a multi-response request, once all of it has been populated: the
    /// stored records of `entity` (scoped by the options' rule) that are not in `keeping`.
    ///
    /// Paged requests populate each page without orphan deletion, collect the `_id`s of every
    /// page's top-level records, and call this after the last page, in its own transaction.
    ///
    /// - Parameters:
    ///   - entity: the requested entity.
    ///   - keeping: the rows every page contained (``PopulationResult/containedRowIDs``): no
    ///     orphan among them is deleted, and no cascade deletes any of them.
    ///   - results: the records passed to the orphan closure as the populated records.
    ///   - response: the response passed to the orphan closure (the last page's).
    ///   - debugger: where errors are collected.
    /// - Returns: deleted counts by entity.
    /// - Throws: ``WebRecordError`` after rolling back.
    package func deleteOrphans(
        of entity: String, keeping: ContainedRows, results: [Record], response: JSONValue, debugger: Debugger
    ) throws(WebRecordError) -> [String: Int] {
        do {
            let entity = try store.schema.requireEntity(entity)
            return try store.inTransaction { transaction in
                try orphanPass(
                    entity: entity, keeping: keeping, results: results, response: response, debugger: debugger,
                    in: transaction)
            }
        } catch {
            throw failure(error, entity: entity, debugger: debugger)
        }
    }

    /// ``deleteOrphans(of:keeping:results:response:debugger:)`` on the writer's executor,
    /// without blocking the calling task's thread; cancelling the task rolls it back.
    package func deleteOrphans(
        of entity: String, keeping: ContainedRows, results: [Record], response: JSONValue, debugger: Debugger
    ) async throws(WebRecordError) -> [String: Int] {
        do {
            let entity = try store.schema.requireEntity(entity)
            // The records are read on the writer's executor while this task waits for it.
            let results = HandOver(results)
            return try await store.inTransaction { [self] transaction in
                try orphanPass(
                    entity: entity, keeping: keeping, results: results.value, response: response, debugger: debugger,
                    in: transaction)
            }
        } catch {
            throw failure(error, entity: entity, debugger: debugger)
        }
    }

    private func orphanPass(
        entity: Entity, keeping: ContainedRows, results: [Record], response: JSONValue, debugger: Debugger,
        in transaction: Storage.Transaction
    ) throws -> [String: Int] {
        var deleter = RecordDeleter(store: store, transaction: transaction, debugger: debugger)
        deleter.spare(keeping)
        try OrphanDeletion(store: store, options: options, transaction: transaction, debugger: debugger)
            .run(entity: entity, keep: keeping, results: results, response: response, deleter: &deleter)
        return deleter.deleted
    }
}
