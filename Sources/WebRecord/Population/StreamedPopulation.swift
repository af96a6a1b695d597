import Foundation

extension ResponsePopulation {
    /// Populates the store from a response read as a stream: the records at the key path are
    /// read, built and written a batch at a time, in one transaction, so that memory grows with
    /// a batch and with the records kept, not with the response.
    ///
    /// Two threads share the work: one reads the next batch and builds its proto-records while
    /// the store's writer resolves and writes the one before. The result is the one a whole
    /// response gives (the same rows, links, counts and failures; DESIGN §3 holds across
    /// batches, as it does across the responses of a paged request), with two differences a
    /// caller can see:
    /// - the debugger's ``Debugger/responseObject`` and the orphan closure's response are the
    ///   response without its records: the list at the key path is empty (`[]`);
    /// - records met again in a later batch are counted once, as in a whole response, and a
    ///   debug log line may report a row created by one batch as updated by a later one.
    ///
    /// The occurrences of one record in different batches are applied in turn, as consecutive
    /// responses would be: its attributes and to-many lists end as in the whole response, its
    /// sub-entity too (what a batch gives or clears that the record's sub-entity of the moment
    /// does not store is kept for the later batches, ``SwitchedSubentities``); in the few cases
    /// Docs/Population.md lists ("Large responses: streamed population"), the store can differ
    /// from the whole response's.
    ///
    /// The records are read with only the members the schema reads (``keyProjection()``).
    /// A failure that quotes a record (none of the records identified or stored) reads the
    /// response again with every member when `open` can open it again, to quote the record as
    /// the response gives it.
    ///
    /// A response whose records cannot be streamed (no list at the key path, or an entity with
    /// included records, which are linked across the whole response) is read whole and
    /// populated as `populate(_:entity:debugger:)` does.
    ///
    /// A new record that one batch drops, as it lacks a non-optional value, and that occurs again
    /// in a later batch, would lose what its first occurrences gave if applied in turn: the whole
    /// response merges the occurrences first, and may store the record with what each gave. So
    /// what they gave is carried to the later batch, with the links that can be carried (a
    /// to-one kept in the record's row to a stored record, through a relationship that claims
    /// nothing; a child the relationship identifies, or an object without a key related
    /// there), and with the to-ones that records of its
    /// batch set to it, kept in their rows, which claim nothing (``StreamTotals/IncomingLink``).
    /// When a dropped record has another link, or another link to it, the streamed population
    /// is rolled back where it
    /// occurs again and, when `open` can open the response again (a file), the response is read
    /// whole and populated as one; otherwise (standard input) it fails with an
    /// `invalidResponseFormat` that says why.
    ///
    /// - Parameters:
    ///   - open: opens the response, streaming the list at the key path given (nil: none).
    ///   - expectedBytes: the response's size when known, for progress.
    ///   - entity: the entity the response's records are (or the root of their hierarchy).
    ///   - debugger: where errors are collected; a new one by default.
    ///   - reopens: whether `open` can open the response again, to read it whole.
    /// - Throws: ``WebRecordError`` on a fatal error, after rolling back: the store is left as
    ///   it was, whichever batch failed.
    package func populate(
        streaming open: (String?) throws(WebRecordError) -> JSONStreamReader, expectedBytes: Int? = nil,
        entity entityName: String, debugger: Debugger? = nil, reopens: Bool = true
    ) async throws(WebRecordError) -> sending PopulationResult {
        let givenDebugger = debugger
        let checkpoint = debugger?.checkpoint()
        let debugger = debugger ?? Debugger(initialEntity: entityName, logger: store.logger)
        let entity: Entity
        let keyPath: String?
        let reader: JSONStreamReader
        do {
            entity = try store.schema.requireEntity(entityName)
            let included = options.included ?? entity.included
            keyPath = responseKeyPath(of: entity)
            // Read whole (no key path to stream at): an `included` list, which the records
            // need, or an ordered list that is its own inverse (``Schema/hasOrderedSelfInverseList``).
            let streams = included.isEmpty && !store.schema.hasOrderedSelfInverseList
            reader = try open(streams ? keyPath : nil)
            reader.preferBatchByteLimit(store.streamingBatchByteLimit)
            if streams, let projection = keyProjection() { reader.project(onto: projection) }
            switch try reader.start() {
            case .whole(let response):
                return try await populate(response, entity: entityName, debugger: debugger)
            case .streaming where !streams:
                // A top-level array, which a reader streams whatever the key path: read whole.
                var elements: [JSONValue] = []
                while let batch = try reader.nextBatch() { elements.append(contentsOf: batch) }
                _ = try reader.finish()
                return try await populate(.array(elements), entity: entityName, debugger: debugger)
            case .streaming:
                break
            }
            try requireTransformers()
        } catch {
            await store.discardIfNeverWritten()
            throw failure(error, entity: entityName, debugger: debugger, retriable: reopens)
        }
        let progress = reporter()
        progress?.populating(total: nil)
        let batches = BatchPipeline<Graph> { $0.release() }
        startReading(
            reader, into: batches, entity: entity, keyPath: keyPath, debugger: debugger,
            progress: progress.map { ($0, expectedBytes) })
        do {
            let result = try await store.inTransaction { [self] transaction in
                defer { batches.stop() }
                return HandOver(
                    try writeBatches(
                        in: transaction, entity: entity, keyPath: keyPath, debugger: debugger, whole: false,
                        next: batches.take, written: batches.written))
            }.value
            progress?.finish(records: result.storedRecordCount)
            return result
        } catch let quoted as QuotedProjection {
            batches.stop()
            guard reopens else {
                await store.discardIfNeverWritten()
                throw failure(quoted.error, entity: entityName, debugger: debugger, retriable: false)
            }
            // The failure quotes a record as read, with only its mapped members: the response is
            // read again with every member, to fail with the record as the response gives it.
            if let checkpoint { givenDebugger?.restore(checkpoint) }
            var again = self
            again.projectsRecords = false
            return try await again.populate(
                streaming: open, expectedBytes: expectedBytes, entity: entityName, debugger: givenDebugger,
                reopens: reopens)
        } catch let divergence as StreamedDivergence {
            batches.stop()
            guard reopens else {
                await store.discardIfNeverWritten()
                throw Self.failure(
                    WebRecordError(
                        .invalidResponseFormat,
                        "\(divergence.record) \(divergence.reason). Populate the response whole (from a file, WebRecord reads it again whole when this happens)",
                        entity: entityName),
                    entity: entityName, debugger: debugger)
            }
            // The streamed attempt's errors are not the response's: the whole population records its
            // own, in a new debugger, or in the caller's as it was before the attempt.
            if let checkpoint { givenDebugger?.restore(checkpoint) }
            let wholeDebugger = givenDebugger ?? Debugger(initialEntity: entityName, logger: store.logger)
            let response: JSONValue
            do {
                response = try Self.readWhole(open)
            } catch {
                await store.discardIfNeverWritten()
                throw failure(error, entity: entityName, debugger: wholeDebugger)
            }
            return try await populate(response, entity: entityName, debugger: wholeDebugger)
        } catch {
            batches.stop()
            await store.discardIfNeverWritten()
            throw failure(error, entity: entityName, debugger: debugger, retriable: reopens)
        }
    }

    /// The members of the streamed records to build (``KeyProjection``): those a mapping, a
    /// key or a discriminator of the schema reads. Nil, so that every member is built, when a
    /// hook sees a record's dictionary: pre-population, primary-key injection, or a record
    /// class that may choose sub-entities (``Record/subentityName(for:of:)``).
    func keyProjection() -> KeyProjection? {
        projectsMembers ? KeyProjection(schema: store.schema) : nil
    }

    /// Whether the streamed records are read with only the members the schema reads
    /// (``keyProjection()``).
    private var projectsMembers: Bool {
        guard projectsRecords, options.prePopulation == nil, options.primaryKeyInjection == nil else { return false }
        return store.schema.entities.allSatisfy { entity in
            entity.subentityNames.isEmpty
                || ObjectIdentifier(store.recordClass(for: entity.name)) == ObjectIdentifier(Record.self)
        }
    }

    /// The whole response `open` opens, read with no list streamed.
    private static func readWhole(
        _ open: (String?) throws(WebRecordError) -> JSONStreamReader
    ) throws(WebRecordError) -> JSONValue {
        let reader = try open(nil)
        switch try reader.start() {
        case .whole(let response):
            return response
        case .streaming:
            // A top-level array streams even with no key path: gather it.
            var elements: [JSONValue] = []
            while let batch = try reader.nextBatch() { elements += batch }
            _ = try reader.finish()
            return .array(elements)
        }
    }

    /// Reads `reader`'s batches and builds their graphs on a thread of their own, handing each to
    /// `batches`, then the response without its records; or the first error.
    private func startReading(
        _ reader: JSONStreamReader, into batches: BatchPipeline<Graph>, entity: Entity, keyPath: String?,
        debugger: Debugger, progress: (reporter: ProgressReporter, expectedBytes: Int?)?
    ) {
        // The reader is used by this thread alone from now on.
        let handOver = HandOver(reader)
        Thread.detachNewThread { [self] in
            let reader = handOver.value
            var offset = 0
            let earlierParents = InjectionParents()
            // The arenas of the graphs freed, whose storage the next batches take over.
            var freedArenas: [ProtoRecordArena] = []
            do {
                while !batches.isStopped, let values = try reader.nextBatch() {
                    // The graphs the writer is done with are freed here, by the thread that
                    // made them, while the writer goes on.
                    for written in batches.takeWritten() {
                        written.release()
                        freedArenas.append(written.builder.arena)
                    }
                    let graph = try makeGraph(
                        values, entity: entity, keyPath: keyPath, response: .null, listCount: values.count,
                        debugger: debugger, progress: progress?.reporter, indexOffset: offset,
                        earlierParents: earlierParents, arena: freedArenas.popLast(), holdsErrors: true)
                    if let parent = graph.builder.unkeptParent {
                        let record = parent.description
                        graph.release()
                        throw StreamedDivergence(
                            record: record,
                            reason:
                                "is the parent of a primary-key injection in several parts of the response, and what its earlier occurrences gave was not kept (more than \(earlierParents.capacity) such parents came first): populated in parts, the injection could be given less than the whole response gives it"
                        )
                    }
                    offset += values.count
                    if store.logger.isEnabled(.trace) {
                        debugger.log(
                            .trace, "proto-record graph:\n" + Self.describeGraph(graph.builder.protoRecords),
                            entity: entity.name)
                    }
                    progress?.reporter.streamed(
                        bytes: reader.bytesRead, expected: progress?.expectedBytes, records: offset)
                    if !batches.put(.batch(graph)) {
                        graph.release()
                        return
                    }
                }
                let envelope = try reader.finish()
                for written in batches.takeWritten() { written.release() }
                _ = batches.put(.end(envelope))
            } catch {
                _ = batches.put(.failure(error))
            }
        }
    }

    /// Steps 3–8 over the batches, in the write transaction: the one way a population is
    /// written, whether its response came whole (one batch, `whole`) or streamed.
    ///
    /// - Parameters:
    ///   - whole: whether the one batch is the whole response, whose rules for records that
    ///     could not be identified or stored were applied as it was built and written, and
    ///     whose rows need no `_id`s fixed for later batches nor references checked before the
    ///     commit.
    ///   - next: the next batch, the end with the response (without its records, streamed), or
    ///     the reader's failure.
    ///   - written: called with each batch once written.
    func writeBatches(
        in transaction: Storage.Transaction, entity: Entity, keyPath: String?, debugger: Debugger, whole: Bool,
        next: () -> BatchPipeline<Graph>.Item, written: (Graph) -> Void
    ) throws -> PopulationResult {
        var totals = StreamTotals(collectsRecords: options.makesRecords)
        var deleter = RecordDeleter(store: store, transaction: transaction, debugger: debugger)
        // Across batches only, and where no other writer can change a row between two of them.
        var repeats = RepeatedRecords(isEnabled: !whole && store.holdsTheRowsItFinds)
        var switches = SwitchedSubentities(isEnabled: !whole, options: options)
        var unlinkedIDs = UnlinkedChildIDs()
        if !whole {
            // New rows take their `_id`s in turn across the batches, as in one response: from
            // after the largest `_id` each table had when the population began, whatever a batch
            // deletes.
            try transaction.beginRowIDs(in: store.layout.tables.map(\.name))
        }
        while true {
            try transaction.checkCancellation()
            switch next() {
            case .batch(let graph):
                defer { written(graph) }
                // What building the batch recorded comes in its turn, before what writing it does.
                graph.builder.debugger.releaseHeld()
                if !whole {
                    try totals.requireNoObjectWithoutKeyForDropped(in: graph.builder)
                    try totals.applyCarried(to: graph.builder, debugger: debugger)
                    // What merging the records carried into the batch's recorded (a duplicate
                    // that names another entity), as one batch records it while building.
                    graph.builder.debugger.releaseHeld()
                }
                let proposedBefore = deleter.proposed.count
                let stored = try store(
                    graph, in: transaction, deleter: &deleter, repeats: &repeats, switches: &switches,
                    unlinkedIDs: &unlinkedIDs, checksStored: whole, stubs: totals.stubRows,
                    droppableStubs: totals.droppableStubs,
                    insertedEarlier: whole ? nil : { [totals] in totals.wasInserted($0) })
                if proposedBefore > 0 {
                    // A record identified by its owner that an earlier batch's link dropped, and
                    // this batch's owner links again, stays: the owner's last occurrence decides.
                    deleter.withdraw(Self.linkedThroughOwners(graph.builder.protoRecords), amongFirst: proposedBefore)
                }
                if !whole {
                    switches.noteUnlinkedBySwitch(graph.builder.protoRecords)
                    try transaction.endBatch()
                }
                // What no delete the links start removes is needed only when one may come.
                try add(
                    graph, stored: stored, to: &totals, entity: entity,
                    sparesLinks: !whole || !deleter.proposed.isEmpty)
                if !whole {
                    // A join row a list without positions gave back, which one batch, merging
                    // that list's occurrences, never removed: the position it had.
                    for restored in totals.positionsToRestore(stored.writer.orderedListEvents) {
                        guard let position = restored.removedAt else { continue }
                        try transaction.update(
                            restored.table, set: [restored.positionColumn],
                            where: [restored.memberColumn, restored.ownerColumn],
                            values: [position, .integer(restored.member), .integer(restored.owner)])
                    }
                    if try totals.noteStubs(graph.builder.protoRecords, layout: store.layout, in: transaction) {
                        // Rows earlier batches wrote changed: nothing is taken as written.
                        repeats.keep([], disturbed: true)
                    }
                    try totals.noteHoldersMetWithoutKey(graph.builder.protoRecords)
                    try totals.requireSwitchedRowsComplete(graph.builder.protoRecords)
                }
                if !whole {
                    // The rows were made here: freed here too, not by the reader's thread,
                    // whose frees into this thread's heap would wait for its lock (the graph's
                    // release there finds them gone). Nothing reads the batch's rows after this.
                    graph.plans.removeRows()
                }
            case .end(let envelope):
                return try finish(
                    totals, envelope: envelope, in: transaction, entity: entity, keyPath: keyPath, debugger: debugger,
                    deleter: &deleter, whole: whole)
            case .failure(let error):
                throw error
            }
        }
    }

    /// The rows of the records identified by their owner that `protos` name only through their
    /// owner's link, and store linked to it, by table. (One named apart from it is kept by
    /// the response having contained it: ``RecordDeleter/deleteProposed(sparing:)``.)
    private static func linkedThroughOwners(_ protos: [ProtoRecord]) -> [String: Set<Int64>] {
        var rows: [String: Set<Int64>] = [:]
        for proto in protos where proto.owner != nil && !proto.isNamedApartFromOwner && !proto.wasUnlinked {
            guard let row = proto.row, let owner = proto.owner else { continue }
            // Linked by the owner's latest occurrence in the batch: one that a later occurrence
            // unlinked (`"source": null` after it) links nothing, and the drop stands.
            var linked = true
            owner.proto.withLink(owner.relationship.id) { members, _ in
                linked = members.contains { $0 == proto || $0.row == row }
            }
            guard linked else { continue }
            rows[row.table.name, default: []].insert(row.rowID)
        }
        return rows
    }

    /// Notes each row an earlier batch made for an object without a key related through a
    /// to-one kept in its owner's row (``StreamTotals/createdThroughOwners``) that the owner's
    /// row no longer names: one batch does not store such an object when a later occurrence of
    /// the owner unlinks it, so it goes at the end (``StreamTotals/unmake(_:named:bySwitch:)``). (A
    /// to-one kept in the object's own row is followed through the rows the writer clears,
    /// ``StreamTotals/noteLinkChanges(_:cleared:layout:)``.)
    private static func unmakeUnlinkedInOwnersRows(
        _ protos: [ProtoRecord], totals: inout StreamTotals, in representations: RepresentationSet
    ) throws {
        let all = representations.all
        for proto in protos {
            guard let row = proto.row, !row.isNew, row.isChanged else { continue }
            for mapped in proto.representation.relationships {
                guard case .foreignKeyHere(let column, _, _, _)? = mapped.link, let destination = mapped.destination,
                    all.indices.contains(destination), let table = all[destination].table,
                    case .integer(let before)? = row.originalValue(at: column), row.values[column] != .integer(before)
                else { continue }
                try totals.unmake(
                    RowKey(table: table.index, rowID: before), named: "\(table.name) _id \(before)",
                    bySwitch: row.switchedFrom != nil)
            }
        }
    }

    /// Adds one written batch to the totals.
    private func add(
        _ graph: Graph, stored: StoredGraph, to totals: inout StreamTotals, entity: Entity, sparesLinks: Bool
    ) throws {
        let builder = graph.builder
        totals.batch += 1
        totals.listCount += graph.listCount ?? 0
        if graph.listCount == nil { totals.isList = false }
        totals.includedCount += graph.includedCount
        let firstPosition = totals.topLevelMet
        totals.topLevelMet += graph.topLevel.count
        // The records an earlier batch met first, dropped, and this one stored: where they go
        // among the records (``StreamTotals/recordPositions``).
        var metEarlier: [ProtoRecord: Int] = [:]
        for (index, proto) in graph.topLevel.enumerated() {
            // A record met in several batches is one record, as in a whole response.
            // Each ends stored (its row is kept) or not (its key is kept, with its first
            // occurrence): the two together count the records identified, each once.
            if let row = proto.row {
                totals.addTopLevel(row)
                // A record that one batch could not store and a later one stored is stored.
                if !totals.dropped.isEmpty {
                    let key = totals.key(of: proto)
                    if totals.dropped.removeValue(forKey: key) != nil, let position = totals.droppedAt[key] {
                        metEarlier[proto] = position
                    }
                }
            } else {
                let key = totals.key(of: proto)
                if totals.dropped[key] == nil {
                    totals.droppedOrder.append(key)
                    if totals.collectsRecords { totals.droppedAt[key] = firstPosition + index }
                }
                // The latest: a carried record dropped again is dropped for what all its
                // occurrences gave, merged as in one batch.
                totals.dropped[key] = .object(proto.dictionary)
                if let reason = proto.dropReason { totals.dropReasons[key] = reason }
            }
        }
        // A top-level record an earlier batch dropped, carried to this batch, which names it
        // only nested (a post given again as another's `repostOf`): stored, as in one batch,
        // where it stands among the records where it first occurred; or dropped again, for
        // what all its occurrences gave.
        var completedNested: [ProtoRecord] = []
        if !totals.dropped.isEmpty, let scope = graph.representations[entity.name]?.keyScopeIndex {
            for proto in builder.protoRecords
            where proto.normalizedKey != nil && proto.representation.keyScopeIndex == scope {
                let key = totals.key(of: proto)
                guard totals.dropped[key] != nil else { continue }
                guard let row = proto.row else {
                    if proto.isDroppedIncomplete {
                        totals.dropped[key] = .object(proto.dictionary)
                        if let reason = proto.dropReason { totals.dropReasons[key] = reason }
                    }
                    continue
                }
                totals.dropped[key] = nil
                totals.addTopLevel(row)
                if let position = totals.droppedAt[key] {
                    metEarlier[proto] = position
                    completedNested.append(proto)
                }
            }
        }
        let unidentified = builder.unidentifiedTopLevel
        if unidentified.count > 0 {
            if totals.unidentified.count == 0 {
                totals.unidentified = unidentified
            } else {
                totals.unidentified.count += unidentified.count
            }
        }
        totals.unmapped += builder.unmappedTopLevel
        totals.touchedOtherRows = totals.touchedOtherRows || stored.writer.touchedOtherRows
        let protos = builder.protoRecords
        Self.addContainedRows(
            protos, to: &totals.contained, spared: &totals.linkSpared, gathersSpared: sparesLinks)
        for (table, rowIDs) in stored.namedRows {
            totals.contained.insert(contentsOf: rowIDs, in: table)
            if sparesLinks { totals.linkSpared.insert(contentsOf: rowIDs, in: table) }
        }
        // A record kept as stored where the place it is given cannot hold it: contained, and
        // unchanged, as the stored entity, as a reference by key to it is.
        try totals.noteKeptAsStored(stored.keptRows, protos: builder.protoRecords)
        for row in stored.keptRows {
            totals.contained.insert(contentsOf: [row.rowID], in: row.table.name)
            if sparesLinks { totals.linkSpared.insert(contentsOf: [row.rowID], in: row.table.name) }
            if let representation = graph.representations[row.entityName] {
                totals.note(row, status: .unchanged, relinked: false, entity: representation)
            }
        }
        try totals.noteDropped(protos, options: builder.options)
        let relinked = stored.writer.relinkedOwners
        for change in stored.gainedMembers {
            switch change.kind {
            case .gained:
                totals.noteGain(owner: change.owner, member: change.member, column: change.column)
            case .moved(let positionColumn):
                totals.noteMove(
                    owner: change.owner, member: change.member, column: change.column, positionColumn: positionColumn)
            case .linked:
                totals.noteLinked(owner: change.owner, member: change.member, column: change.column)
            }
        }
        for taken in stored.takenMembers {
            totals.noteTaken(owner: taken.owner, member: taken.member, column: taken.column)
        }
        for lost in stored.lostMembers {
            totals.noteLoss(
                of: lost.member, by: RowKey(table: lost.ownerTable, rowID: lost.owner), column: lost.column)
        }
        if !stored.positionedMoves.isEmpty { try totals.notePositionedMoves(stored.positionedMoves) }
        if totals.batch > 1 {
            for listed in stored.listedStoredMembers {
                totals.noteListed(listed.member, by: listed.owner, column: listed.column)
            }
        }
        let logsChanges = store.logger.isEnabled(.debug)
        for proto in protos {
            guard let row = proto.row else { continue }
            let isRelinked = !relinked.isEmpty && relinked.contains(row)
            let status: StreamTotals.Status =
                row.isNew ? .inserted : (row.isChanged || isRelinked || row.gainedMembers) ? .updated : .unchanged
            let representation = proto.representation
            // A list's change is compared at the end (``StreamTotals/noteLinkChanges(_:cleared:layout:)``).
            totals.note(
                row, status: status,
                relinked: isRelinked && stored.writer.mirroredMembers.contains(row),
                entity: representation)
            if logsChanges, status != .unchanged {
                let change = status == .inserted ? "created" : "updated"
                let detail = status == .inserted ? "" : Self.describeChanges(of: row)
                graph.debugger.log(
                    .debug, "\(change) \(proto) _id \(row.rowID)\(detail)", entity: representation.name)
            }
        }
        // After the rows the batch holds: a link may have changed one of them after it was written.
        if !stored.writer.listChanges.isEmpty || !stored.writer.clearedRows.isEmpty {
            // The rows whose sub-entity the batch switched, whose clearing takes nothing back.
            var switched = Set<DatabaseValue>()
            for proto in protos {
                if let row = proto.row, row.switchedFrom != nil { switched.insert(.integer(row.rowID)) }
            }
            try totals.noteLinkChanges(
                stored.writer.listChanges, cleared: stored.writer.clearedRows, switched: switched,
                layout: store.layout)
        }
        totals.noteOwnLinks(of: protos, listed: stored.listedOwners, representations: graph.representations)
        if !totals.createdThroughOwners.isEmpty {
            try Self.unmakeUnlinkedInOwnersRows(protos, totals: &totals, in: graph.representations)
        }
        if !stored.writer.joinPairs.isEmpty { totals.noteJoinPairs(stored.writer.joinPairs, layout: store.layout) }
        for lister in stored.joinListers { totals.noteJoinLister(lister.row, side: lister.side) }
        if !stored.writer.orderedLists.isEmpty { totals.noteOrderedLists(stored.writer.orderedLists) }
        if !stored.writer.orderedListEvents.isEmpty { totals.noteGappedJoinLists(stored.writer.orderedListEvents) }
        try totals.noteTakenOneToOnes(
            stored.writer.takenOneToOnes + stored.takenOneToOnes, rows: protos.lazy.compactMap(\.row),
            layout: store.layout)
        try totals.noteTakersTaken(stored.writer.takersTaken, protos: protos, layout: store.layout)
        for proto in protos where proto.owner != nil && proto.representation.keyRelationship == nil {
            guard let row = proto.row, !proto.isNamedApartFromOwner else { continue }
            let key = RowKey(row)
            if row.isNew { totals.createdThroughOwners.insert(key) }
            if !proto.links.isEmpty || !proto.clearedRelationships.isEmpty,
                totals.createdThroughOwners.contains(key)
            {
                totals.createdWithLinks.insert(key)
            }
        }
        guard totals.collectsRecords else { return }
        // A record met again in a later batch, at the top level or nested, shows as stored last.
        if !totals.recordIndex.isEmpty {
            for proto in protos {
                guard let row = proto.row, let index = totals.recordIndex[RowKey(row)] else { continue }
                totals.records[index] = store.record(
                    of: totals.recordClass(for: proto.representation, in: store), entity: proto.representation.entity,
                    rowID: row.rowID, values: row.snapshot)
            }
        }
        for (index, proto) in graph.topLevel.enumerated() + completedNested.map({ (-1, $0) }) {
            guard let row = proto.row, totals.recordIndex[RowKey(row)] == nil else { continue }
            let position = metEarlier[proto] ?? firstPosition + index
            if let last = totals.recordPositions.last, position < last { totals.recordsOutOfOrder = true }
            totals.recordPositions.append(position)
            totals.recordIndex[RowKey(row)] = totals.records.count
            totals.records.append(
                store.record(
                    of: totals.recordClass(for: proto.representation, in: store), entity: proto.representation.entity,
                    rowID: row.rowID, values: row.snapshot))
        }
    }

    /// After the last batch: the rules for records that could not be identified or stored,
    /// orphan deletion, and the result.
    private func finish(
        _ totals: StreamTotals, envelope: JSONValue, in transaction: Storage.Transaction, entity: Entity,
        keyPath: String?, debugger: Debugger, deleter: inout RecordDeleter<Storage>, whole: Bool
    ) throws -> PopulationResult {
        if !whole {
            // A whole response applied these rules as it was built and written.
            debugger.setResponseObject(envelope)
            if totals.listCount == 0 {
                debugger.record(.emptyResultSet(entity: entity.name, keyPath: keyPath))
            }
            let identified = totals.topLevelCount + totals.dropped.count
            do {
                try requireIdentified(
                    totals.unidentified, unmapped: totals.unmapped, identified: identified, entity: entity,
                    keyPath: keyPath)
                let dropped = totals.droppedOrder.filter { totals.dropped[$0] != nil }
                try requireStored(
                    dropped: dropped.count, first: dropped.first.flatMap { totals.dropped[$0] },
                    reason: dropped.first.flatMap { totals.dropReasons[$0] },
                    topLevel: identified, unidentified: totals.unidentified.count, entity: entity, keyPath: keyPath)
            } catch {
                // These quote a record: as read, when only its mapped members were.
                guard projectsMembers, error.value != nil else { throw error }
                throw QuotedProjection(error: error)
            }
        }
        var totals = totals
        if !whole {
            // A member of an ordered list merged by union that a later batch took from its owner
            // leaves the members moved after the listed ones where one batch, which moves them
            // once every row is written, leaves none.
            for (list, positionColumn, listed) in totals.unionListsBeforeTheLastBatch {
                let moves = try transaction.moveMembers(
                    of: list.owner, in: list.table, column: list.column, positionColumn: positionColumn, after: listed)
                if !moves.isEmpty {
                    totals.noteMovedAgain(
                        moves, table: list.table, positionColumn: positionColumn, layout: store.layout)
                }
            }
        }
        if !totals.unmade.isEmpty {
            // Rows earlier batches made that one batch would never have stored: they go, and
            // count as never inserted (``StreamTotals/forgetDeleted(_:layout:)``).
            let tables = store.layout.tables
            let rows = totals.unmade.compactMap { row in
                tables.indices.contains(row.table) ? (table: tables[row.table].name, rowID: row.rowID) : nil
            }
            try deleter.unmake(rows)
            for row in rows {
                totals.contained.remove(row.rowID, in: row.table)
                totals.linkSpared.remove(row.rowID, in: row.table)
            }
        }
        // The deletes the batches' links started, once every batch is written: what any batch
        // contained stays, as in a whole response. (Most responses start none.)
        if !deleter.proposed.isEmpty {
            try deleter.deleteProposed(sparing: totals.linkSpared, andWhatTheRunContained: options.sparedByTheRun)
        }
        var records = totals.records
        if totals.recordsOutOfOrder {
            // In the order their records first occur, as one batch gives them.
            records = zip(totals.recordPositions, records).sorted { $0.0 < $1.0 }.map(\.1)
        }
        if orphanRuleApplies {
            deleter.spare(totals.contained)
            try OrphanDeletion(store: store, options: options, transaction: transaction, debugger: debugger)
                .run(entity: entity, keep: totals.contained, results: records, response: envelope, deleter: &deleter)
        }
        // The ordered lists a list from the other side took a join row from, numbered again
        // without the gap, as one batch, which may never have written the row, leaves them.
        try totals.renumberGappedJoinLists(in: transaction, layout: store.layout)
        let inserted = totals.forgetDeleted(deleter.deletedRows, layout: store.layout)
        try totals.noteListersNamingInsertedRows(in: transaction, layout: store.layout)
        var changes = totals.changeCounts()
        for (name, count) in Self.deletedCounts(deleter.deletedRows, insertedHere: inserted.contains) {
            changes[name, default: ChangeCounts()].deleted += count
        }
        if totals.touchedOtherRows || !deleter.deleted.isEmpty {
            records = try refetch(records, in: transaction)
        }
        try transaction.checkCancellation()
        var result = PopulationResult(
            records: options.returnsRecords ? records : [], debugger: debugger, changesByEntity: changes)
        result.storedRecordCount = options.makesRecords ? records.count : totals.topLevelCount
        var topLevelRowIDs = Set<Int64>(minimumCapacity: totals.topLevelCount)
        for rows in totals.topLevelRows {
            for rowID in rows { topLevelRowIDs.insert(rowID) }
        }
        result.topLevelRowIDs = topLevelRowIDs
        result.containedRowIDs = totals.contained
        result.responseRecordCount = totals.isList ? totals.listCount : nil
        result.includedRecordCount = totals.includedCount
        return result
    }
}

/// A row's identity across the batches of one population: its table (by its position in the
/// layout) and `_id`.
struct RowKey: Hashable {
    let table: Int
    let rowID: Int64

    init(_ row: RowState) {
        table = row.table.index
        rowID = row.rowID
    }

    init(table: Int, rowID: Int64) {
        self.table = table
        self.rowID = rowID
    }
}

/// A top-level record's identity across the batches of one population: its table and normalized
/// primary key, which it has whether or not it is stored; a record of an entity without a key
/// is a record of its own.
private struct TopLevelKey: Hashable {
    let table: String
    let key: KeyValue?
    let serial: Int
}

/// What the batches of a streamed response add up to.
private struct StreamTotals {
    /// What a population did to a row, the strongest over the batches that met it.
    enum Status: UInt8, Comparable {
        case unchanged, updated, inserted

        static func < (lhs: Status, rhs: Status) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let collectsRecords: Bool
    var listCount = 0
    /// Whether the records were a list (not a single object taken as the one record).
    var isList = true
    /// How many values the included records' key paths held.
    var includedCount = 0
    /// The top-level records no batch has stored so far, with the first occurrence, and
    /// (``droppedOrder``) in the order met.
    var dropped: [TopLevelKey: JSONValue] = [:]
    var droppedOrder: [TopLevelKey] = []
    /// Why each record of ``dropped`` was not stored, where it was told.
    var dropReasons: [TopLevelKey: String] = [:]
    private var unkeyed = 0
    /// The rows of the top-level records stored, by table (its position in the layout).
    var topLevelRows: [RowIDSet] = []
    /// How many rows ``topLevelRows`` holds.
    var topLevelCount: Int { topLevelRows.reduce(0) { $0 + $1.count } }

    /// Adds `row` to ``topLevelRows``.
    mutating func addTopLevel(_ row: RowState) {
        let table = row.table.index
        while topLevelRows.count <= table { topLevelRows.append(RowIDSet()) }
        topLevelRows[table].insert(row.rowID)
    }
    var unidentified: (count: Int, first: JSONValue?, firstIndex: Int) = (0, nil, 0)
    var unmapped = 0
    var touchedOtherRows = false
    var contained = ContainedRows()
    /// What no delete the batches' links start removes (``ResponsePopulation/addContainedRows(_:to:spared:gathersSpared:)``).
    var linkSpared = ContainedRows()
    /// The rows earlier batches inserted for records without a key of their own, related
    /// through their owner's to-one (DESIGN §3.6): one batch does not store such a record when
    /// a later occurrence of its owner unlinks it (``noteLinkChanges(_:cleared:layout:)``).
    var createdThroughOwners = Set<RowKey>()
    /// The rows of ``createdThroughOwners`` that a batch gave links of their own (a list, a
    /// to-one, a nested record): one that a later occurrence of its owner unlinks cannot be
    /// taken back as if never stored (``unmake(_:named:bySwitch:)``).
    var createdWithLinks = Set<RowKey>()
    /// The rows of ``createdThroughOwners`` that a later occurrence of their owner unlinked, in
    /// the order met: deleted when the last batch is written, as rows one batch would never have
    /// stored (the whole response leaves each one's `_id` unused).
    var unmade: [RowKey] = []

    /// Notes that a later occurrence of its owner unlinked `row` when it is one of
    /// ``createdThroughOwners``: it goes at the end (``unmade``), as one batch would never have
    /// stored it.
    ///
    /// - Throws: ``StreamedDivergence`` when a batch gave it links of its own, which applied in
    ///   turn could have changed other rows that one batch leaves alone.
    ///   Also when the unlinking is a switch of the owner's sub-entity (`bySwitch`): one batch
    ///   takes the object a later occurrence gives there for the same record.
    mutating func unmake(_ row: RowKey, named name: @autoclosure () -> String, bySwitch: Bool) throws {
        guard createdThroughOwners.contains(row) else { return }
        guard !bySwitch else {
            throw StreamedDivergence(
                record: name(),
                reason:
                    "was made by one part of the response for an object without a key that its owner's to-one related, and a later occurrence makes the owner a sub-entity without that relationship: populated in parts, a later occurrence that relates an object there again would make another record, where the whole response takes it for the same one"
            )
        }
        createdThroughOwners.remove(row)
        guard !createdWithLinks.contains(row) else {
            throw StreamedDivergence(
                record: name(),
                reason:
                    "was made, with links of its own, by one part of the response for an object without a key that its owner's to-one related, and a later occurrence of that owner unlinks it: populated in parts, its links would have changed other records, where the whole response, whose owner's last occurrence decides, does not store it"
            )
        }
        unmade.append(row)
    }
    /// Each row met, by table (its position in the layout) and `_id`: a row met in several
    /// batches counts once, for the entity it was met as last (a record whose sub-entity
    /// changes between batches is one). Compact, as it holds every row a response names.
    var statuses: [RowIDTable] = []
    /// The entities of ``statuses``, by the number a ``RowStatus`` gives.
    private var entityNames: [String] = []
    /// Each entity's number in ``entityNames``, by its representation's position (nil: not met).
    private var entityNumbers: [UInt16?] = []

    /// What a population did to a row, and the entity it was met as last.
    struct RowStatus {
        var status: Status
        var entity: UInt16

        /// The status as ``statuses`` keeps it: never 0, which means none.
        var packed: UInt32 { UInt32(entity) << 8 | (UInt32(status.rawValue) + 1) }

        /// The status `packed` holds; nil for 0.
        init?(packed: UInt32) {
            let low = packed & 0xFF
            guard low > 0, let status = Status(rawValue: UInt8(truncatingIfNeeded: low - 1)) else { return nil }
            self.status = status
            self.entity = UInt16(truncatingIfNeeded: packed >> 8)
        }

        init(status: Status, entity: UInt16) {
            self.status = status
            self.entity = entity
        }
    }
    /// The rows a batch changed: their values and entity before the population, and their
    /// latest.
    var changed: [RowKey: (original: [DatabaseValue], originalEntity: String, latest: [DatabaseValue])] = [:]
    /// The values before the population of columns a batch's links changed in rows it did not
    /// hold (a member dropped or moved, ``PopulationWriter/listChanges``), by row: what a later
    /// batch that meets the row takes for its values before the population.
    private var clearedValues: [RowKey: [(column: Int, value: DatabaseValue)]] = [:]
    /// The rows whose lists gained an owner of a relationship that is its own inverse.
    var relinkedRows = Set<RowKey>()
    /// The rows the population deleted (``forgetDeleted(_:layout:)``), and those of them a batch
    /// inserted (``vanished``), which one batch would never have stored.
    private var deletedRows = Set<RowKey>()
    private var vanished = Set<RowKey>()
    /// The member columns a stored owner's lists changed through, by member row and column: the
    /// member's value there before the population (nil for a new row) and its latest. An owner
    /// counts as updated for its list only if the list differs when the last batch is written:
    /// a member one batch gives to another owner, or drops, or moves, and a later one gives
    /// back changes nothing, as in a whole response.
    private var memberValues: [MemberColumn: (original: DatabaseValue?, latest: DatabaseValue)] = [:]
    /// The member columns of ``memberValues`` by member row, to follow their latest values.
    private var memberColumns: [RowKey: [Int]] = [:]
    /// The member columns a batch's links changed in the store (``noteLinkChanges(_:cleared:layout:)``):
    /// a member's reference to its owner cleared, or its position moved, after the rows of the
    /// batch were compared. A row met unchanged counts as updated when one ends otherwise than
    /// before the population (``endsChangedByLinks(_:)``).
    private var linkedColumns = Set<MemberColumn>()
    /// The latest ordered list merged by union that a batch wrote for each stored owner, with the
    /// members it listed and the batch (``noteOrderedLists(_:)``).
    private(set) var unionLists: [UnionList: (positionColumn: String, listed: [Int64], batch: Int)] = [:]

    /// An owner's ordered list kept on its members: the members' table, the column that names
    /// the owner, and the owner's `_id`.
    struct UnionList: Hashable, Comparable {
        let table: String
        let column: String
        let owner: Int64

        static func < (lhs: UnionList, rhs: UnionList) -> Bool {
            (lhs.table, lhs.column, lhs.owner) < (rhs.table, rhs.column, rhs.owner)
        }
    }

    /// Keeps the ordered lists a batch wrote (``PopulationWriter/orderedLists``): the latest list
    /// merged by union of each owner, which a replaced list supersedes (an empty union list adds
    /// nothing, and leaves the one before).
    mutating func noteOrderedLists(_ lists: [OrderedList]) {
        for list in lists {
            let key = UnionList(table: list.table, column: list.column, owner: list.owner)
            guard let listed = list.listed else {
                unionLists[key] = nil
                continue
            }
            if !listed.isEmpty { unionLists[key] = (list.positionColumn, listed, batch) }
        }
    }

    /// The ordered lists merged by union that a batch wrote and a later batch may have taken
    /// members of: their members not listed are moved after the listed ones again once every
    /// batch is written, as one batch moves them after its rows are written
    /// (``StoreOperations/moveMembers(of:in:column:positionColumn:after:)``).
    var unionListsBeforeTheLastBatch: [(list: UnionList, positionColumn: String, listed: [Int64])] {
        unionLists.filter { $0.value.batch < batch }.sorted { $0.key < $1.key }.map {
            ($0.key, $0.value.positionColumn, $0.value.listed)
        }
    }

    /// Follows the positions that moving the members not listed again changed
    /// (``unionListsBeforeTheLastBatch``), as a batch's moves are followed.
    mutating func noteMovedAgain(
        _ moves: [(id: Int64, from: Int64, to: Int64)], table: String, positionColumn: String, layout: StorageLayout
    ) {
        guard let (tableIndex, column) = Self.column(positionColumn, of: table, in: layout) else { return }
        for move in moves {
            follow(
                MemberColumn(member: RowKey(table: tableIndex, rowID: move.id), column: column),
                before: .integer(move.from), after: .integer(move.to))
        }
    }
    /// The batch that first gave each member column in ``memberValues`` to an owner, by number.
    private var gainedIn: [MemberColumn: Int] = [:]
    /// The member columns a list took from another record, with the owner and the batch
    /// (``noteTaken(owner:member:column:)``).
    private var takenBy: [MemberColumn: (owner: Int64, batch: Int)] = [:]
    /// The one-to-ones a batch's rows took from rows the batch did not hold, by holder row and
    /// column: the row held, and the batch (``noteTakenOneToOnes(_:rows:layout:)``).
    private var takenOneToOnes: [RowKey: [(column: Int, value: DatabaseValue, batch: Int)]] = [:]
    /// The rows stored before the population, of hierarchies with sub-entities, that a batch
    /// gave data for where they could be held; and those a batch kept as stored, where the place
    /// it gave them cannot hold them (``noteKeptAsStored(_:protos:)``).
    private var heldWithData = ContainedRows()
    private var keptAsStored = ContainedRows()
    /// The holders of ``takenOneToOnes`` that lost the partner they took to another record of
    /// their batch, by holder row: the one-to-one's column name, and the batch
    /// (``noteTakersTaken(_:protos:layout:)``).
    private var takersTaken: [RowKey: [(column: String, batch: Int)]] = [:]
    /// The join rows the batches added or removed (``PopulationWriter/joinPairs``), each under both
    /// of its rows: whether it was there before the population and whether it is now.
    private var joinPairLedger: [JoinPairKey: (original: Bool, latest: Bool)] = [:]
    /// The join rows of ordered lists that a stored owner's list from the side without positions
    /// removed, with the position each had and the batch (``positionsToRestore(_:)``).
    private var removedPositions: [UnpositionedKey: (change: ListChange.UnpositionedChange, batch: Int)] = [:]

    /// A join row, by table, the owner on the side without positions and the member.
    struct UnpositionedKey: Hashable {
        let table: String
        let owner: Int64
        let member: Int64
    }

    /// The join rows that this batch's lists from the side without positions added back after an
    /// earlier batch's occurrence of the same list removed them, with the position each had.
    ///
    /// One batch merges a list's occurrences (the latest, under `replace`), so a join row that the
    /// latest names again is never removed, and keeps the position the ordered list gave it; a
    /// stream removes it and adds it back without one, which would order it first. A row whose
    /// ordered list was written after the removal, in its batch or one in between, is left as
    /// written: that list placed it. `events` are the batch's, in the order written
    /// (``PopulationWriter/orderedListEvents``).
    mutating func positionsToRestore(_ events: [ListChange.OrderedListEvent]) -> [ListChange.UnpositionedChange] {
        var restored: [ListChange.UnpositionedChange] = []
        for event in events {
            switch event {
            case .positioned(let table, let owner):
                if !removedPositions.isEmpty {
                    removedPositions = removedPositions.filter { $0.key.table != table || $0.key.member != owner }
                }
            case .unpositioned(let change):
                let key = UnpositionedKey(table: change.table, owner: change.owner, member: change.member)
                if change.removedAt == nil {
                    if let removed = removedPositions.removeValue(forKey: key), removed.batch < batch {
                        restored.append(removed.change)
                    }
                } else {
                    removedPositions[key] = (change, batch)
                }
            }
        }
        return restored
    }

    /// The ordered lists kept in a join table that a list from the other side took a join row
    /// with a position from, by side of the table: their owners' `_id`s
    /// (``noteGappedJoinLists(_:)``).
    private var gappedJoinLists: [GappedJoinSide: Set<Int64>] = [:]

    /// One side of a join table whose lists are ordered: the column that names a list's owner,
    /// the member's, and the position's.
    struct GappedJoinSide: Hashable, Comparable {
        let table: String
        let ownerColumn: String
        let memberColumn: String
        let positionColumn: String

        static func < (lhs: GappedJoinSide, rhs: GappedJoinSide) -> Bool {
            (lhs.table, lhs.ownerColumn) < (rhs.table, rhs.ownerColumn)
        }
    }

    /// Notes the ordered lists that a batch's lists from the side without positions took a join
    /// row with a position from (``PopulationWriter/orderedListEvents``): the row leaves a gap
    /// in the positions, where one batch, which may not have written the row at all (it wires a
    /// list's latest occurrence, and leaves out a member the other side drops), leaves none.
    mutating func noteGappedJoinLists(_ events: [ListChange.OrderedListEvent]) {
        for case .unpositioned(let change) in events {
            guard let removedAt = change.removedAt, !removedAt.isNull else { continue }
            let side = GappedJoinSide(
                table: change.table, ownerColumn: change.memberColumn, memberColumn: change.ownerColumn,
                positionColumn: change.positionColumn)
            gappedJoinLists[side, default: []].insert(change.member)
        }
    }

    /// Numbers the positions of the lists of ``gappedJoinLists`` 0, 1, ... in the order they
    /// read, once every batch is written (and the deletes the links started are made), so that
    /// the rows end the same whatever the batching and a list populated again keeps its
    /// positions: one read per side of a join table, one update per row moved
    /// (``RecordStorageTransaction/renumberJoinLists(in:ownerColumn:memberColumn:positionColumn:owners:)``).
    /// The counts then compare the stored owners' join rows as they end.
    mutating func renumberGappedJoinLists(
        in transaction: some RecordStorageTransaction, layout: StorageLayout
    ) throws(WebRecordError) {
        for (side, owners) in gappedJoinLists.sorted(by: { $0.key < $1.key }) {
            let lists = try transaction.renumberJoinLists(
                in: side.table, ownerColumn: side.ownerColumn, memberColumn: side.memberColumn,
                positionColumn: side.positionColumn, owners: owners.sorted())
            // The owners' rows, where the table's two sides name rows of different tables (the
            // join rows an owner's own lists noted are kept by the owner's row and the table).
            guard let joinTable = layout.joinTables.first(where: { $0.name == side.table }),
                joinTable.ownerTable != joinTable.targetTable
            else { continue }
            let ownerTableName = side.ownerColumn == "owner" ? joinTable.ownerTable : joinTable.targetTable
            guard let ownerTable = layout.tables.firstIndex(where: { $0.name == ownerTableName }) else { continue }
            for owner in owners {
                let key = RowKey(table: ownerTable, rowID: owner)
                guard joinLists[key]?[side.table] != nil else { continue }
                joinLists[key]?[side.table]?.latest = lists[owner] ?? [:]
            }
        }
    }

    /// The stored rows that gave their own list through a join table in any batch, by the side
    /// of the table they list from (``noteJoinLister(_:side:)``).
    private var joinListerSides: [JoinListerSide: Set<RowKey>] = [:]
    /// Whether a batch inserted a row.
    private var insertedAny = false
    /// The rows of ``joinListerSides`` whose join rows name, at the end, a row the population
    /// inserted (``noteListersNamingInsertedRows(in:layout:)``).
    private var listersNamingInsertedRows = Set<RowKey>()

    /// Notes that the stored row `row` gave its own list through a join table, from `side`: it
    /// counts as updated when its join rows there end otherwise than before the population,
    /// whichever record's list changed them and in whatever order, as a list it gives that gains
    /// or loses a member does.
    mutating func noteJoinLister(_ row: RowState, side: JoinListerSide) {
        joinListerSides[side, default: []].insert(RowKey(row))
    }

    /// Reads, once every batch is written, the join rows of ``joinListerSides`` that name a row the
    /// population inserted: such a join row was not there before the population, so the
    /// lister's list changed, however it came there. A new record's join rows are written
    /// without being compared (nothing was there), so the ledger of join rows
    /// (``noteJoinPairs(_:layout:)``) does not hold one that a new record's list added, in the
    /// batch that lists the lister or in an earlier one. One query per side listed from, only
    /// when the population inserted rows.
    mutating func noteListersNamingInsertedRows(
        in transaction: some RecordStorageTransaction, layout: StorageLayout
    ) throws(WebRecordError) {
        guard insertedAny, !joinListerSides.isEmpty else { return }
        for (side, listers) in joinListerSides.sorted(by: { $0.key < $1.key }) {
            guard let memberTable = layout.tables.firstIndex(where: { $0.name == side.memberTable }) else { continue }
            // The owner column names rows of one table: the listers' `_id`s identify them.
            let byID = Dictionary(listers.map { ($0.rowID, $0) }, uniquingKeysWith: { first, _ in first })
            let rows = try transaction.values(
                of: [side.ownerColumn, side.memberColumn], in: side.table, where: [side.ownerColumn],
                areIn: KeyTuples(rowIDs: byID.keys.sorted()))
            for row in rows {
                guard row.count == 2, case .integer(let owner) = row[0], case .integer(let member) = row[1],
                    let lister = byID[owner]
                else { continue }
                if wasInserted(RowKey(table: memberTable, rowID: member)) { listersNamingInsertedRows.insert(lister) }
            }
        }
    }

    /// A join row seen from one of its rows: the join table, that row, and the other's `_id`.
    struct JoinPairKey: Hashable {
        let table: String
        let row: RowKey
        let other: Int64
    }
    /// The number of the batch being added (from 1).
    var batch = 0
    /// The members of each owner's lists that changed, by owner row: the column that names the
    /// owner, and the position's, for an ordered list.
    private var ownerMembers: [RowKey: [(reference: MemberColumn, position: MemberColumn?)]] = [:]
    /// Each stored owner's join rows that changed, by owner row and join table: as they were
    /// before the population and as they are now, each member's position (null without one) by
    /// its `_id`.
    private var joinLists: [RowKey: [String: (original: [Int64: DatabaseValue], latest: [Int64: DatabaseValue])]] =
        [:]

    /// A member row and one of its columns: the one that names its owner, or its position.
    struct MemberColumn: Hashable {
        let member: RowKey
        let column: Int
    }
    var records: [Record] = []
    var recordIndex: [RowKey: Int] = [:]
    /// How many top-level values the batches so far gave.
    var topLevelMet = 0
    /// Where each record of ``records`` first occurs among the top-level values: a record that a
    /// batch dropped as incomplete and a later one stored goes where it first occurred, as in one
    /// batch (``recordsOutOfOrder`` then).
    var recordPositions: [Int] = []
    var recordsOutOfOrder = false
    /// Where each record of ``dropped`` first occurred, when records are collected.
    var droppedAt: [TopLevelKey: Int] = [:]
    private var recordClasses: [Int: Record.Type] = [:]

    /// The records dropped as incomplete by a batch that a later batch cannot complete by
    /// merging what they gave (``carried``), by their identity across batches.
    var droppedIdentities = Set<RecordIdentity>()
    private var newlyDropped: [RecordIdentity] = []
    /// The records dropped as incomplete by a batch whose occurrences gave only values (no
    /// relationship, and none linked to them), by key scope and key: what they gave, for a later
    /// batch that names them again (``applyCarried(to:debugger:)``).
    private var carried: [ScopedKey: Carried] = [:]

    /// What the occurrences of a record dropped as incomplete gave so far.
    private struct Carried {
        /// The entity it was met as: its representation's position (``Representation/index``),
        /// the same in every batch's ``RepresentationSet``.
        let representation: Int
        /// Whether a discriminator named that entity (``ProtoRecord/entityIsStated``).
        let entityIsStated: Bool
        /// Its occurrences merged (``ProtoRecord/dictionary``).
        let dictionary: JSONObject
        /// What they chose for the attributes whose key paths meet (``ProtoRecord/sharedValues``).
        let sharedValues: [Representation.SharedValue?]?
        /// The `_id` it keeps (``ProtoRecord/reservedRowID``).
        let rowID: Int64?
        /// Its key as its first occurrence gave it (``ProtoRecord/primaryKeyValue``), which
        /// messages and a primary-key injection's parent show, as in one batch.
        let primaryKeyValue: JSONValue?
        /// `Post(5)`, as the warning that dropped it names it.
        let description: String
        /// The links its occurrences set, given again by the batch that names it.
        let links: [ProtoRecordBuilder.CarriedLink]
        /// The to-ones that records of its batches set to it, and the unordered lists that named
        /// it (``IncomingLink``), given again by the batch that names it; for a stub dropped as
        /// incomplete, also those that earlier batches set to its row and the stream gave back
        /// (``noteStubs(_:layout:in:)``).
        var incoming: [IncomingLink]
        /// Its identity, for a record that can no longer be carried (``droppedIdentities``).
        let identity: RecordIdentity
        /// The warnings that its children identified by it were not stored either
        /// (``Marshaler/unstoredOwnerWarning(_:)``), withdrawn with its own when it is completed.
        var childWarnings: [String] = []
    }

    /// A to-one that a stored record (the holder) set to a record its batch dropped as
    /// incomplete and carried: kept in the holder's row, to a record whose inverse, if any, is
    /// an unordered to-many, so that it claims nothing another record's link could take away.
    /// That batch left the holder's to-one as it was (or as the holder's occurrences between
    /// two that named the record left it); the batch that names the carried record again gives
    /// the holder the link again, by key, before its own occurrences, as one batch applies the
    /// holder's occurrence before them (``applyCarried(to:debugger:)``), or, when it names the
    /// holder too and its occurrences set that to-one, as the oldest of them.
    ///
    /// Or an unordered to-many list of the holder that named the record (``list``): that batch
    /// stored the list without it, as one batch leaves out a member it does not store; the
    /// batch that names the record again adds it to the holder's list, removing no other
    /// member, as listed before its own occurrences
    /// (``ProtoRecordBuilder/addDeferred(_:of:relationship:member:)``); a list this batch's
    /// occurrences of the holder replace leaves it out (``givingLists(of:_:from:in:options:)``).
    struct IncomingLink {
        /// Where a list's links live: a join table (whose pairs claim nothing), or the members'
        /// rows, whose foreign key names one holder.
        enum List {
            case joinTable
            case onMembers
        }

        /// The holder's key, in its scope.
        let holder: ScopedKey
        /// The holder's key as its occurrence gave it.
        let holderKey: JSONValue
        /// The entity the holder was stored as: its representation's position.
        let holderRepresentation: Int
        /// The holder's relationship (``Representation/MappedRelationship/id``).
        let relationship: Int
        /// The relationship's inverse, if any, which the batch that names the carried record
        /// again must not set.
        let inverse: String?
        /// The holder's row.
        let row: RowKey
        /// For a link through a to-many, where it lives; nil for a to-one.
        var list: List? = nil
        /// For an ordered list in a join table, the list as the holder's occurrence gave it
        /// (``ListOrder``), given again whole where the record is completed; nil otherwise.
        var order: ListOrder? = nil
    }

    /// An ordered list in a join table, under `replace`, that named a record its batch dropped
    /// as incomplete: the join table and the holder's column in it, and the members as the
    /// holder's occurrence listed them, in order. That batch stored the list without the
    /// record (and without any other member it dropped); the batch that completes the record
    /// gives the holder this list again, as listed before its own occurrences
    /// (``ProtoRecordBuilder/giveEarlierList(_:of:relationship:members:)``), so that the
    /// writer places the record among the others, as one batch does.
    struct ListOrder {
        /// A member as the list named it: its key, in its scope and as given, the entity it
        /// was met as (its representation's position), and, for a member its batch did not
        /// store (dropped as incomplete), its identity.
        struct Member {
            let key: ScopedKey
            let keyValue: JSONValue
            let representation: Int
            let dropped: RecordIdentity?
        }

        let table: String
        let column: String
        let members: [Member]
    }

    /// The rows that the links of records in ``carried`` name, with the records: a batch that
    /// switches such a row's sub-entity clears the relationships back that the old one had,
    /// which the carried link, given again later, would not be. Such a record is then read
    /// again whole. (A list back that a batch gives in between needs nothing: one batch applies
    /// the record's link when its last occurrence is given, as the batch that names it again
    /// does.)
    private var carriedTargets: [RowKey: [ScopedKey]] = [:]
    /// The records of ``carried`` that hold an ``IncomingLink`` to them, by the holder's key and
    /// by its row: a later batch that names the holder, or whose links change its row, could
    /// set that to-one otherwise than the link given again would. Such a record is then read
    /// again whole when it occurs again, unless the batch that names the holder names the
    /// record too and sets that to-one itself (``holdersSettingAgain``).
    private var carriedHolders: [ScopedKey: [ScopedKey]] = [:]
    private var carriedHolderRows: [RowKey: [ScopedKey]] = [:]
    /// The records of ``carried`` named in an ordered list (``IncomingLink/order``): a later
    /// batch that could change that list otherwise than its holder's own occurrences do
    /// (``ListOrderTouches``) reads them again (``uncarryReorderedLists(in:)``).
    private var carriedInOrder = Set<ScopedKey>()
    /// The ordered lists the batch being written gave again (``IncomingLink/order``), by holder
    /// and relationship: a record of that list the batch drops again is carried with the list
    /// as given first, which names the members the batch left out (those still carried), so
    /// that the batch that completes it gives them again too (``noteDropped(_:options:)``).
    private var givenOrders: [GivenList: ListOrder] = [:]

    /// A holder's list, by the holder's key and the relationship's ``Representation/MappedRelationship/id``.
    struct GivenList: Hashable {
        let holder: ScopedKey
        let relationship: Int
    }
    /// The holders' rows that the batch being written gave an ``IncomingLink`` again
    /// (``giveIncoming(_:to:key:in:)``).
    private var givenHolderRows = Set<RowKey>()
    /// The holders of ``IncomingLink``s that the batch being written names with data, together
    /// with the records carried for them, and whose occurrences there set each such to-one
    /// again (``uncarryNamedHolders(in:)``): the link carried is given as the oldest occurrence
    /// of theirs, not by naming the holder again.
    private var holdersSettingAgain = Set<ScopedKey>()
    /// The to-ones (``Representation/MappedRelationship/id``) that stored records, by key, set
    /// to a record their batch dropped as incomplete: an object without a key that a later
    /// batch relates there is, in one batch, that record (decision 6), which the stream did not
    /// store (``requireNoObjectWithoutKeyForDropped(in:)``).
    private var droppedLinkHolders: [ScopedKey: [Int]] = [:]
    /// The rows a batch inserted for records it named only by key, which no batch has given
    /// data since (``noteStubs(_:layout:in:)``).
    private(set) var stubRows = Set<RowKey>()
    /// The rows of ``stubRows`` that a batch whose data of the record lacks a non-optional value
    /// drops as a new record (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``):
    /// those that every batch named only through to-ones it can give back (``stubLinks``).
    private(set) var droppableStubs = Set<RowKey>()
    /// The to-ones that stored records set to each row of ``droppableStubs``, with what each
    /// held before, in the order met (``StubLink``).
    private var stubLinks: [RowKey: [StubLink]] = [:]
    /// How many links ``stubLinks`` holds, at most ``stubLinkCapacity``: a stub whose links
    /// would pass it is no longer droppable, so that memory stays bounded.
    private var stubLinkCount = 0
    static let stubLinkCapacity = 65_536
    /// The rows that links of ``stubLinks`` through a relationship with a list back held
    /// before, with the stubs: a batch that gives such a row a list (or clears a relationship,
    /// or switches its sub-entity) could drop the holder from it, where one batch takes the
    /// link before for the holder where it stands, before that list. Those stubs are no longer
    /// droppable (``noteStubs(_:layout:in:)``).
    private var stubLinkTargets: [RowKey: [RowKey]] = [:]

    /// A to-one kept in a stored record's row (the holder's) that a batch set to a stub, one
    /// that can be given again (``IncomingLink``), with the column in the holder's row and
    /// what it held before the batch that set it to the stub (what the occurrence before left
    /// it). When a later batch gives the stub's data without a non-optional value, the stream
    /// gives the column that value back, unless a batch set it otherwise since.
    struct StubLink {
        var incoming: IncomingLink
        let column: Int
        var before: DatabaseValue
    }

    init(collectsRecords: Bool) {
        self.collectsRecords = collectsRecords
    }

    /// A row met by a batch, and what the batch did to it.
    ///
    /// A row that one batch changes and a later one sets back (a record repeated in the
    /// response, with a value that differs between its occurrences) is unchanged, as it is in a
    /// whole response, where the occurrences merge before anything is written: each row a batch
    /// changes keeps its values from before the population, and its latest values.
    mutating func note(_ row: RowState, status: Status, relinked: Bool, entity representation: Representation) {
        let key = RowKey(row)
        if !memberColumns.isEmpty, let columns = memberColumns[key] {
            for column in columns {
                memberValues[MemberColumn(member: key, column: column)]?.latest = row.values[column]
            }
        }
        while statuses.count <= key.table { statuses.append(RowIDTable()) }
        let earlier = RowStatus(packed: statuses[key.table][key.rowID])
        if relinked { relinkedRows.insert(key) }
        if status == .inserted { insertedAny = true }
        if status == .updated, earlier?.status != .inserted, changed[key] == nil, let original = row.original {
            // Met unchanged before, or not at all: `original` is the row before the population,
            // and its entity the one it was met as, or the one this batch switched it from.
            let originalEntity =
                earlier.map { entityNames[Int($0.entity)] } ?? row.switchedFrom?.name ?? representation.name
            var original = original
            if !clearedValues.isEmpty, let cleared = clearedValues[key] {
                for (column, value) in cleared where column < original.count { original[column] = value }
            }
            changed[key] = (original, originalEntity, Array(row.values))
        } else if !changed.isEmpty, changed[key] != nil {
            changed[key]?.latest = Array(row.values)
        }
        statuses[key.table][key.rowID] =
            RowStatus(status: max(earlier?.status ?? status, status), entity: entityNumber(representation)).packed
    }

    /// Notes how a batch's links changed rows it does not hold, once the rows it holds are
    /// noted (a link may change one of those after it is written), so that the counts end as
    /// one batch's:
    /// - the join rows of stored owners, as they were before the population and as they are now;
    /// - each member row dropped from a stored owner's list or moved in it: its reference to the
    ///   owner and its position, before the population and now;
    /// - each row whose reference a one-to-one's link cleared; one an earlier batch made for an
    ///   object without a key related there is taken back at the end (``unmake(_:named:bySwitch:)``),
    ///   unless the clearing is the switch of a row of `switched` (by `_id`) to another sub-entity.
    ///
    /// A later batch that meets such a row takes what it held before the change for its values
    /// before the population. A row the response names whose reference or position a link
    /// changes, in this batch (after its values were compared) or a later one, counts as it
    /// ends in the store: updated if it ends otherwise than before the population
    /// (``linkedColumns``), whole and streamed alike.
    ///
    /// - Throws: ``StreamedDivergence`` when a list drops a member that an earlier batch gave
    ///   it from another record: one batch wires only the list's latest occurrence, so the
    ///   member keeps the record it had, where in turn it would be left with none.
    mutating func noteLinkChanges(
        _ changes: [ListChange], cleared: [(table: String, column: String, value: DatabaseValue, rowIDs: [Int64])],
        switched: Set<DatabaseValue>, layout: StorageLayout
    ) throws {
        for change in changes {
            let owner = RowKey(change.owner)
            switch change.change {
            case .joinRows(let table, let rows):
                if joinLists[owner]?[table] == nil {
                    joinLists[owner, default: [:]][table] = (rows.before, rows.after)
                } else {
                    joinLists[owner]?[table]?.latest = rows.after
                }
            case .members(let table, let column, let positionColumn, let rows):
                guard let (tableIndex, referenceColumn) = Self.column(column, of: table, in: layout) else { continue }
                let positionIndex = positionColumn.flatMap { Self.column($0, of: table, in: layout)?.column }
                let ownerID = DatabaseValue.integer(change.owner.rowID)
                for row in rows {
                    let member = RowKey(table: tableIndex, rowID: row.rowID)
                    if !carriedHolderRows.isEmpty { uncarryHolder(row: member) }
                    let reference = MemberColumn(member: member, column: referenceColumn)
                    var takenEarlier = false
                    if let taken = takenBy[reference], taken.owner == change.owner.rowID, taken.batch < batch {
                        takenEarlier = true
                    } else if let gained = gainedIn[reference], gained < batch,
                        case .some(.some(let original)) = memberValues[reference]?.original, !original.isNull,
                        original != ownerID
                    {
                        takenEarlier = true
                    }
                    if row.cleared, takenEarlier {
                        throw StreamedDivergence(
                            record: "\(table) _id \(row.rowID)",
                            reason:
                                "is given to \(change.owner.entityName) _id \(change.owner.rowID) by one part of the response, from the record it named, and dropped by a later occurrence of that list: populated in parts, it would name no record, where the whole response, which takes only the list's latest occurrence, leaves it with the record it named"
                        )
                    }
                    follow(reference, before: ownerID, after: row.cleared ? .null : ownerID)
                    let position = positionIndex.map { MemberColumn(member: member, column: $0) }
                    if let position {
                        follow(position, before: row.positionBefore, after: row.positionAfter)
                    }
                    ownerMembers[owner, default: []].append((reference, position))
                }
            }
        }
        for rows in cleared {
            guard let (tableIndex, column) = Self.column(rows.column, of: rows.table, in: layout) else { continue }
            if !createdThroughOwners.isEmpty {
                for rowID in rows.rowIDs {
                    try unmake(
                        RowKey(table: tableIndex, rowID: rowID), named: "\(rows.table) _id \(rowID)",
                        bySwitch: switched.contains(rows.value))
                }
            }
            for rowID in rows.rowIDs {
                if !carriedHolderRows.isEmpty { uncarryHolder(row: RowKey(table: tableIndex, rowID: rowID)) }
                let reference = MemberColumn(member: RowKey(table: tableIndex, rowID: rowID), column: column)
                if let taken = takenBy[reference], taken.batch < batch, DatabaseValue.integer(taken.owner) == rows.value
                {
                    throw StreamedDivergence(
                        record: "\(rows.table) _id \(rowID)",
                        reason:
                            "is taken by a one-to-one from another record in one part of the response and let go of in a later one: populated in parts, no record would hold it, where the whole response, which takes only the link's latest occurrence, leaves it with the record it named"
                    )
                }
                follow(reference, before: rows.value, after: .null)
            }
        }
    }

    /// The position of `table` in `layout`, and of its value column `column`.
    private static func column(_ column: String, of table: String, in layout: StorageLayout) -> (
        table: Int, column: Int
    )? {
        guard let tableIndex = layout.tables.firstIndex(where: { $0.name == table }),
            let columnIndex = layout.tables[tableIndex].valueColumns.firstIndex(of: column)
        else { return nil }
        return (tableIndex, columnIndex)
    }

    /// Follows a column that a link changed from `before` to `after` in a row the batch may not
    /// hold: a member's reference to its owner, or its position.
    private mutating func follow(_ column: MemberColumn, before: DatabaseValue, after: DatabaseValue) {
        let key = column.member
        if memberValues[column] == nil {
            memberValues[column] = (originalValue(of: key, at: column.column, now: before), after)
            memberColumns[key, default: []].append(column.column)
        } else {
            memberValues[column]?.latest = after
        }
        guard before != after else { return }
        linkedColumns.insert(column)
        if let values = changed[key], values.latest.indices.contains(column.column) {
            // Changed by this batch, before its links ran, or by one before: the link changed the
            // row in the store after that, so it ends as the link leaves it (a member a later
            // list moves, where it moves it; one a list drops, or a one-to-one's later link
            // takes its target from, unlinked), whatever its values in memory.
            changed[key]?.latest[column.column] = after
            return
        }
        if statuses.indices.contains(key.table), let status = RowStatus(packed: statuses[key.table][key.rowID]),
            status.status != .unchanged
        {
            return
        }
        if clearedValues[key]?.contains(where: { $0.column == column.column }) != true {
            // Met before only unchanged, or not at all: `before` is its value before the population.
            clearedValues[key, default: []].append((column.column, before))
        }
    }

    /// Forgets the rows the population deleted (by table and `_id`), which count as deleted
    /// only, as in a whole response.
    ///
    /// - Returns: those of them that a batch inserted, as `table#_id`: never in the store, they
    ///   count as nothing.
    mutating func forgetDeleted(_ deleted: [String: [Int64: String]], layout: StorageLayout) -> Set<String> {
        var inserted = Set<String>()
        guard !deleted.isEmpty else { return inserted }
        for (index, table) in layout.tables.enumerated() {
            guard let rows = deleted[table.name] else { continue }
            for rowID in rows.keys {
                deletedRows.insert(RowKey(table: index, rowID: rowID))
                guard index < statuses.count, let status = RowStatus(packed: statuses[index][rowID]) else { continue }
                statuses[index][rowID] = 0
                if status.status == .inserted {
                    inserted.insert("\(table.name)#\(rowID)")
                    vanished.insert(RowKey(table: index, rowID: rowID))
                }
            }
        }
        return inserted
    }

    /// The number the entity of `representation` has in ``statuses``, given it at its first
    /// use: found by the representation's position, which is the entity's in the schema in
    /// every batch, so that no row hashes its entity's name.
    private mutating func entityNumber(_ representation: Representation) -> UInt16 {
        let index = representation.index
        if index < entityNumbers.count, let number = entityNumbers[index] { return number }
        let number = UInt16(truncatingIfNeeded: entityNames.count)
        entityNames.append(representation.name)
        if index >= entityNumbers.count { entityNumbers += repeatElement(nil, count: index + 1 - entityNumbers.count) }
        entityNumbers[index] = number
        return number
    }

    /// Notes the records of a batch that were dropped as incomplete, and throws
    /// ``StreamedDivergence`` when a record an earlier batch dropped, and could not carry,
    /// occurs again: the whole response would have merged the occurrences before dropping any,
    /// and may have stored the record with what each gave, where the batches, applied in turn,
    /// lose what the first gave.
    ///
    /// A record identified by key, whose occurrences gave values and links that can be carried
    /// (``carriedLinks(of:)``), and to which the records of its batch link only through to-ones
    /// and unordered lists that can be given again (``IncomingLink``), a list kept on the
    /// members claiming it once (``claimedOnce(_:by:)``), is carried instead: a later batch
    /// that names it merges what it gave beneath its own occurrences, and gives those links
    /// again, as one batch would (``applyCarried(to:debugger:)``). Other links, or other links
    /// to it, could be undone in between by records of other batches, which one batch would
    /// have applied after them: those still read the response again.
    mutating func noteDropped(_ protos: [ProtoRecord], options: PopulationOptions) throws {
        // Nothing to look up until a batch has dropped a record: most responses never do.
        var linked: LinksNaming?
        var touched: ListOrderTouches?
        for proto in protos where proto.isDroppedIncomplete || !droppedIdentities.isEmpty {
            guard let identity = RecordIdentity(proto) else { continue }
            if droppedIdentities.contains(identity) {
                throw StreamedDivergence(record: proto.description)
            }
            guard proto.isDroppedIncomplete else { continue }
            let naming = linked ?? LinksNaming(protos, options: options)
            linked = naming
            for (holder, relationship) in naming.toOneHolders(of: proto) {
                droppedLinkHolders[holder, default: []].append(relationship)
            }
            var incoming = naming.incomingLinks(to: proto)
            if !givenOrders.isEmpty, var links = incoming {
                // A list this batch gave again (``givenOrders``) is still the list as given
                // first, with the members it left out.
                for index in links.indices where links[index].order != nil {
                    let given = GivenList(holder: links[index].holder, relationship: links[index].relationship)
                    if let order = givenOrders[given] { links[index].order = order }
                }
                incoming = links
            }
            if let links = incoming, links.contains(where: { $0.order != nil }) {
                let touches = touched ?? ListOrderTouches(protos)
                touched = touches
                if links.contains(where: { link in link.order.map { touches.change($0, of: link.holder) } ?? false }) {
                    incoming = nil
                }
            }
            if let key = proto.normalizedKey, Self.clearsOnlyOnce(proto),
                let incoming, Self.claimedOnce(proto, by: incoming),
                let links = Self.carriedLinks(of: proto)
            {
                let scoped = ScopedKey(proto, key)
                carried[scoped] = Carried(
                    representation: proto.representation.index, entityIsStated: proto.entityIsStated,
                    dictionary: proto.dictionary, sharedValues: proto.sharedValues, rowID: proto.reservedRowID,
                    primaryKeyValue: proto.primaryKeyValue,
                    description: proto.description,
                    links: links.carried, incoming: incoming, identity: identity,
                    childWarnings: Self.unstoredChildren(of: proto).map(Marshaler.unstoredOwnerWarning))
                for target in links.targets { carriedTargets[target, default: []].append(scoped) }
                for link in incoming {
                    carriedHolders[link.holder, default: []].append(scoped)
                    carriedHolderRows[link.row, default: []].append(scoped)
                }
                if incoming.contains(where: { $0.order != nil }) { carriedInOrder.insert(scoped) }
            } else {
                newlyDropped.append(identity)
            }
        }
        if !carriedTargets.isEmpty { uncarrySwitchedTargets(protos) }
        givenOrders.removeAll()
        droppedIdentities.formUnion(newlyDropped)
        newlyDropped.removeAll(keepingCapacity: true)
    }

    /// The children of `proto`, a record dropped as incomplete, that its links name and that
    /// were not stored because it was not (``Marshaler/unstoredOwnerWarning(_:)``).
    private static func unstoredChildren(of proto: ProtoRecord) -> [ProtoRecord] {
        proto.links.flatMap { link in
            link.members.filter { $0.owner?.proto == proto && Marshaler.wasDroppedWithOwner($0) }
        }
    }

    /// The links of `proto`, a record dropped as incomplete, as they can be carried to a later
    /// batch, with the rows they name; nil when one cannot be: only a to-one kept in the
    /// record's row, to a stored record of a relationship that claims nothing (its inverse,
    /// if any, is a to-many: no other record's link takes the member away), and a to-one to a
    /// child the relationship identifies, or to an object without a key related there
    /// (``isRelatedThere(_:through:of:)``), which has no links of its own, are carried; a to-one
    /// only ever set to `null` needs nothing (``clearsOnlyOnce(_:)``). Any other link could be
    /// undone in between by records of other batches, which one batch applies after it.
    private static func carriedLinks(
        of proto: ProtoRecord
    ) -> (carried: [ProtoRecordBuilder.CarriedLink], targets: [RowKey])? {
        var carried: [ProtoRecordBuilder.CarriedLink] = []
        var targets: [RowKey] = []
        for link in proto.links {
            let mapped = link.relationship
            // Only `null`: nothing to carry (``clearsOnlyOnce(_:)``).
            if Self.isOnlyNull(link) { continue }
            guard !mapped.isToMany, !mapped.isSymmetric, link.members.count == 1, let member = link.members.first
            else { return nil }
            if mapped.identifiesDestination || isRelatedThere(member, through: link, of: proto) {
                guard member.normalizedKey == nil, member.links.isEmpty, member.clearedRelationships.isEmpty else {
                    return nil
                }
                carried.append(
                    .child(relationship: mapped.id, rowID: member.reservedRowID, shared: member.sharedValues))
            } else if case .foreignKeyHere? = mapped.link, let row = member.row, member.normalizedKey != nil,
                let key = member.primaryKeyValue,
                mapped.inverse.map({ member.representation.relationship(named: $0)?.isToMany == true }) ?? true
            {
                carried.append(.reference(relationship: mapped.id, key: key))
                targets.append(RowKey(row))
            } else {
                return nil
            }
        }
        return (carried, targets)
    }

    /// Whether `proto`, a new record dropped as incomplete, is claimed through each list kept on
    /// the members among `incoming` (``IncomingLink/List/onMembers``) by one holder alone, and
    /// sets no link back through it itself: its foreign key names one holder, the claim named
    /// last, which the batches could order otherwise than one batch does.
    private static func claimedOnce(_ proto: ProtoRecord, by incoming: [IncomingLink]) -> Bool {
        var claims: [Int: ScopedKey] = [:]
        for link in incoming where link.list == .onMembers {
            if let holder = claims[link.relationship], holder != link.holder { return false }
            claims[link.relationship] = link.holder
            if let inverse = link.inverse,
                proto.clearedRelationships.contains(inverse)
                    || proto.links.contains(where: { $0.relationship.name == inverse })
            {
                return false
            }
        }
        return true
    }

    /// Whether every relationship that `proto`, a new record dropped as incomplete, sets to
    /// `null` is a to-one that its occurrences set to nothing else (``isOnlyNull(_:)``). Such a
    /// `null` changes nothing one batch would keep: the record has no row, so nothing it named
    /// is let go of, and a later occurrence that sets the to-one decides, or, naming a record
    /// that is not stored, falls back on the `null`, which leaves the new row's to-one empty,
    /// as a link that changes nothing does. So it is not carried.
    private static func clearsOnlyOnce(_ proto: ProtoRecord) -> Bool {
        let cleared = proto.clearedRelationships
        guard !cleared.isEmpty else { return true }
        return cleared.allSatisfy { name in proto.links.contains { $0.relationship.name == name && isOnlyNull($0) } }
    }

    /// Whether `link` is a to-one (not its own inverse) that every occurrence set to `null`.
    private static func isOnlyNull(_ link: ProtoRecord.Link) -> Bool {
        !link.relationship.isToMany && !link.relationship.isSymmetric && link.members.isEmpty
            && link.earlier.allSatisfy(\.isEmpty)
    }

    /// Whether `member`, the one member of `proto`'s to-one `link`, is an object without a key
    /// related there (decision 6), given by one occurrence of `proto` alone: a new record, as
    /// `proto` is new and relates nothing there, that nothing else can name, carried as a child
    /// the relationship identifies is (a user's `cover_image`, ``ProtoRecordBuilder/CarriedLink/child(relationship:rowID:shared:)``).
    private static func isRelatedThere(_ member: ProtoRecord, through link: ProtoRecord.Link, of proto: ProtoRecord)
        -> Bool
    {
        guard member.normalizedKey == nil, link.earlier.isEmpty, let owner = member.owner else { return false }
        return owner.proto == proto && owner.relationship.id == link.relationship.id
            && member.representation.keyRelationship == nil
    }

    /// Stops carrying the records whose carried links name a row that `protos` switch to
    /// another sub-entity: they are read again whole when they occur again
    /// (``droppedIdentities``).
    private mutating func uncarrySwitchedTargets(_ protos: [ProtoRecord]) {
        for proto in protos where proto.row?.switchedFrom != nil {
            guard let row = proto.row, let records = carriedTargets.removeValue(forKey: RowKey(row)) else { continue }
            for key in records {
                guard let record = carried.removeValue(forKey: key) else { continue }
                newlyDropped.append(record.identity)
            }
        }
    }

    /// The links of a batch's proto-records, by the proto-record they name.
    private struct LinksNaming {
        /// Each proto-record a link names, with the records whose links name it and how.
        private var naming: [ProtoRecord: [(holder: ProtoRecord, link: ProtoRecord.Link)]] = [:]
        /// The proto-records that an occurrence a later one superseded named
        /// (``ProtoRecord/Link/earlier``), with the records whose links they were.
        private var superseded: [ProtoRecord: [(holder: ProtoRecord, link: ProtoRecord.Link)]] = [:]

        /// The rules lists are merged by, which an ordered list given again needs
        /// (``incomingLink(from:_:to:options:)``); nil: no ordered list can be.
        private var options: PopulationOptions?

        /// The links of `protos` that name records `includes` accepts (all by default).
        init(
            _ protos: [ProtoRecord], options: PopulationOptions? = nil, includes: (ProtoRecord) -> Bool = { _ in true }
        ) {
            self.options = options
            for proto in protos {
                for link in proto.links {
                    for member in link.members where includes(member) {
                        naming[member, default: []].append((proto, link))
                    }
                    for given in link.earlier {
                        for member in given where includes(member) {
                            superseded[member, default: []].append((proto, link))
                        }
                    }
                }
            }
        }

        /// The stored records identified by key whose to-one names `proto`, by key, with the
        /// relationship (``Representation/MappedRelationship/id``).
        func toOneHolders(of proto: ProtoRecord) -> [(holder: ScopedKey, relationship: Int)] {
            (naming[proto] ?? []).compactMap { holder, link in
                guard !link.relationship.isToMany, holder.row != nil, let key = holder.normalizedKey else {
                    return nil
                }
                return (ScopedKey(holder, key), link.relationship.id)
            }
        }

        /// The links to `proto`, a record dropped as incomplete, as they can be given again
        /// by a later batch (``IncomingLink``); nil when one cannot be: an ordered list, or a
        /// list in a join table whose other side is ordered, a one-to-one, a to-one with an
        /// ordered list back, a relationship that is its own inverse, a link that identifies
        /// its destination, a to-one kept in the other row, one from a record that is not
        /// stored or not identified by key, or a superseded occurrence
        /// whose latest occurrence names another record. (One whose latest names `proto` too,
        /// as the same post on two overlapping pages names the same compact user twice, is
        /// the link given again: wired in turn, the occurrences between them fall back on
        /// nothing past it.)
        func incomingLinks(to proto: ProtoRecord) -> [IncomingLink]? {
            if let earlier = superseded[proto], !earlier.allSatisfy({ $0.link.members.contains(proto) }) {
                return nil
            }
            return holdersLinking(to: proto)?.map(\.incoming)
        }

        /// The records whose superseded occurrences named `proto` (``ProtoRecord/Link/earlier``),
        /// with their links.
        func supersededHolders(of proto: ProtoRecord) -> [(holder: ProtoRecord, link: ProtoRecord.Link)] {
            superseded[proto] ?? []
        }

        /// ``incomingLinks(to:)``, each with the holder and its link, whatever superseded
        /// occurrences named `proto`.
        func holdersLinking(
            to proto: ProtoRecord
        ) -> [(incoming: IncomingLink, holder: ProtoRecord, link: ProtoRecord.Link)]? {
            guard let links = naming[proto] else { return [] }
            var incoming: [(incoming: IncomingLink, holder: ProtoRecord, link: ProtoRecord.Link)] = []
            for (holder, link) in links {
                guard let given = Self.incomingLink(from: holder, link, to: proto, options: options) else {
                    return nil
                }
                incoming.append((given, holder, link))
            }
            return incoming
        }

        /// The link `link` of `holder` to `proto` as a later batch can give it again; nil when
        /// it cannot be (``incomingLinks(to:)``). An ordered list is given again whole
        /// (``ListOrder``): one in a join table, merged by `replace` under `options`, given
        /// whole (no element refused), whose members each have a key and are stored, or were
        /// dropped as incomplete.
        static func incomingLink(
            from holder: ProtoRecord, _ link: ProtoRecord.Link, to proto: ProtoRecord,
            options: PopulationOptions? = nil
        ) -> IncomingLink? {
            let mapped = link.relationship
            guard !mapped.isSymmetric, !mapped.identifiesDestination, holder != proto,
                let row = holder.row, row.switchedFrom == nil, !holder.isDroppedIncomplete,
                let key = holder.normalizedKey, let keyValue = holder.primaryKeyValue
            else { return nil }
            // The relationship back, which a list's other side, or a to-one's, needs unordered.
            let back = mapped.inverse.flatMap { proto.representation.relationship(named: $0) }
            let backIsUnorderedList =
                mapped.inverse == nil || (back.map { $0.isToMany && !$0.property.isOrdered } ?? false)
            var list: IncomingLink.List?
            var order: ListOrder?
            if mapped.isToMany {
                // An ordered list is given again whole, in a join table only: a position the
                // list gave without the record would otherwise be given again otherwise than one
                // batch gives it.
                if mapped.property.isOrdered {
                    guard case .joinTable(let table, let column, _, _)? = mapped.link, let options,
                        options.mergePolicy(of: mapped.property, on: holder.entity) == .replace,
                        let members = Self.listOrder(link)
                    else { return nil }
                    order = ListOrder(table: table, column: column, members: members)
                }
                switch mapped.link {
                case .joinTable?:
                    guard backIsUnorderedList else { return nil }
                    list = .joinTable
                case .foreignKeyThere?:
                    guard let back, !back.isToMany else { return nil }
                    list = .onMembers
                default: return nil
                }
            } else {
                guard case .foreignKeyHere? = mapped.link, link.members.count == 1, backIsUnorderedList else {
                    return nil
                }
            }
            return IncomingLink(
                holder: ScopedKey(holder, key), holderKey: keyValue,
                holderRepresentation: holder.representation.index, relationship: mapped.id,
                inverse: mapped.inverse, row: RowKey(row), list: list, order: order)
        }

        /// The members of `link`, a to-many given whole, as ``ListOrder`` keeps them; nil when
        /// one has no key, or was neither stored nor dropped as incomplete.
        private static func listOrder(_ link: ProtoRecord.Link) -> [ListOrder.Member]? {
            guard !link.isPartial, !link.addsOnly, link.judged.isEmpty else { return nil }
            var members: [ListOrder.Member] = []
            members.reserveCapacity(link.members.count)
            for member in link.members {
                guard let key = member.normalizedKey, let keyValue = member.primaryKeyValue else { return nil }
                var dropped: RecordIdentity?
                if member.row == nil {
                    guard member.isDroppedIncomplete, let identity = RecordIdentity(member) else { return nil }
                    dropped = identity
                } else if member.row?.switchedFrom != nil {
                    return nil
                }
                members.append(
                    ListOrder.Member(
                        key: ScopedKey(member, key), keyValue: keyValue, representation: member.representation.index,
                        dropped: dropped))
            }
            return members
        }
    }

    /// Stops carrying the records that a stored record's to-one names (``carriedHolders``)
    /// when this batch names that record: its occurrence could set the to-one otherwise, or a
    /// list back could take it. A carried record this batch names too is read again whole,
    /// unless the holder's occurrences in this batch set each of those to-ones themselves (the
    /// same post on two overlapping pages, with the same compact user): the link carried is
    /// then an earlier occurrence of theirs, given as one (``holdersSettingAgain``,
    /// ``giveIncoming(_:to:key:in:)``).
    private mutating func uncarryNamedHolders(in builder: ProtoRecordBuilder) throws {
        let named = carriedHolders.filter { holder, _ in
            guard let proto = builder.proto(withKey: holder.key, scope: holder.scope) else { return false }
            return !Self.onlyNamesByKey(proto, in: builder.protoRecords)
        }
        for (holder, records) in named {
            carriedHolders[holder] = nil
            let holderProto = builder.proto(withKey: holder.key, scope: holder.scope)
            var kept: [ScopedKey] = []
            for key in records {
                guard var record = carried[key] else { continue }
                if let holderProto, Self.changesInPart(record.incoming, of: holder, in: holderProto) {
                    if let proto = builder.proto(withKey: key.key, scope: key.scope) {
                        throw StreamedDivergence(record: proto.description, reason: Self.reorderedReason)
                    }
                    uncarry(key, record)
                    continue
                }
                if let holderProto,
                    let lists = givingLists(of: key, record, from: holder, in: holderProto, options: builder.options)
                {
                    record = lists
                    // Only lists in a join table left to give: nothing of the holder's can undo them.
                    if !record.incoming.contains(where: { $0.holder == holder && $0.list != .joinTable }) {
                        if record.incoming.contains(where: { $0.holder == holder }) { kept.append(key) }
                        continue
                    }
                }
                if let holderProto,
                    Self.leavesAlone(record.incoming, of: holder, in: holderProto, among: builder.protoRecords)
                {
                    kept.append(key)
                    continue
                }
                if let proto = builder.proto(withKey: key.key, scope: key.scope) {
                    if let holderProto, Self.setsAgain(record.incoming, of: holder, in: holderProto) {
                        holdersSettingAgain.insert(holder)
                        continue
                    }
                    throw StreamedDivergence(
                        record: proto.description,
                        reason:
                            "was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response together with a record that linked to it there: populated in parts, that link given again could end otherwise than in the whole response"
                    )
                }
                uncarry(key, record)
            }
            if !kept.isEmpty { carriedHolders[holder] = kept }
        }
    }

    /// Why a stream reads a record again whose ordered list (``ListOrder``) could end otherwise.
    private static let reorderedReason =
        "was not stored where it first occurs, as it lacks a non-optional value, and is named in an ordered list that the response changes before the record occurs again complete, otherwise than by that list's own later occurrences: populated in parts, its position in the list could end otherwise than in the whole response"

    /// Whether `holder`, the record with the key `key` as this batch names it, changes an
    /// ordered list it gave a carried record (``IncomingLink/order``) otherwise than by giving
    /// it again whole, which replaces it (``givingLists(of:_:from:in:options:)``): as another
    /// entity, or by a list with an element refused, which one batch unites with the earlier.
    private static func changesInPart(_ incoming: [IncomingLink], of key: ScopedKey, in holder: ProtoRecord) -> Bool {
        incoming.contains { link in
            guard link.holder == key, link.order != nil else { return false }
            if link.holderRepresentation != holder.representation.index { return true }
            return holder.links.contains {
                $0.relationship.id == link.relationship && ($0.isPartial || $0.addsOnly || !$0.judged.isEmpty)
            }
        }
    }

    /// Stops carrying the records named in an ordered list (``carriedInOrder``) that a record
    /// of this batch could change otherwise than the list's holder does (``ListOrderTouches``):
    /// given again whole, the list would undo that change, where one batch applies it after
    /// the list. A record this batch names is read again whole.
    private mutating func uncarryReorderedLists(in builder: ProtoRecordBuilder) throws {
        var tables = Set<String>()
        for key in carriedInOrder {
            for link in carried[key]?.incoming ?? [] { if let order = link.order { tables.insert(order.table) } }
        }
        let touches = ListOrderTouches(builder.protoRecords, tables: tables)
        for key in carriedInOrder {
            guard let record = carried[key], record.incoming.contains(where: { $0.order != nil }) else {
                carriedInOrder.remove(key)
                continue
            }
            guard
                record.incoming.contains(where: { link in
                    link.order.map { touches.change($0, of: link.holder) } ?? false
                })
            else { continue }
            if let proto = builder.proto(withKey: key.key, scope: key.scope) {
                throw StreamedDivergence(record: proto.description, reason: Self.reorderedReason)
            }
            carriedInOrder.remove(key)
            uncarry(key, record)
        }
    }

    /// The records of a batch that could change an ordered list kept in a join table
    /// (``ListOrder``) other than its holder: those that set or clear a relationship kept in
    /// that join table on the other side, with the records they name there, and those whose
    /// sub-entity the batch switched. A list given again whole would undo what they did to it.
    private struct ListOrderTouches {
        /// By join table: the column of the side set, the record that set it, and the records
        /// it named there.
        private var sides: [String: [(column: String, record: ProtoRecord, named: [ProtoRecord])]] = [:]
        private var switched = Set<ScopedKey>()

        /// The records of `protos` that could change a list in one of `tables` (any, when nil).
        init(_ protos: [ProtoRecord], tables: Set<String>? = nil) {
            for proto in protos {
                if proto.row?.switchedFrom != nil, let key = proto.normalizedKey {
                    switched.insert(ScopedKey(proto, key))
                }
                for link in proto.links {
                    note(link.relationship, of: proto, naming: link.members, tables: tables)
                }
                for name in proto.clearedRelationships {
                    guard let mapped = proto.representation.relationship(named: name) else { continue }
                    note(mapped, of: proto, naming: [], tables: tables)
                }
            }
        }

        private mutating func note(
            _ mapped: Representation.MappedRelationship, of record: ProtoRecord, naming members: [ProtoRecord],
            tables: Set<String>?
        ) {
            guard case .joinTable(let table, let column, _, _)? = mapped.link, tables?.contains(table) ?? true else {
                return
            }
            sides[table, default: []].append((column, record, members))
        }

        /// Whether they could change `order`, the list of `holder`: a record listed in it sets
        /// or clears its side of the join table, or is switched, or a record's side names the
        /// holder.
        func change(_ order: ListOrder, of holder: ScopedKey) -> Bool {
            guard !switched.isEmpty || sides[order.table] != nil else { return false }
            let members = Set(order.members.map(\.key))
            if !switched.isDisjoint(with: members) { return true }
            for side in sides[order.table] ?? [] where side.column != order.column {
                if let key = side.record.normalizedKey, members.contains(ScopedKey(side.record, key)) { return true }
                if side.named.contains(where: { member in
                    member.normalizedKey.map { ScopedKey(member, $0) == holder } ?? false
                }) {
                    return true
                }
            }
            return false
        }
    }

    /// Applies to the lists kept in a join table (``IncomingLink/List/joinTable``) that
    /// `holder` gave `record`, whose pairs nothing but the holder's own list, or the record's
    /// list back, removes, what `holderProto`, the holder as this batch names it again, does to
    /// them, as one batch merges its occurrences (decision 7), and returns `record` so changed
    /// (also in ``carried``). A list it gives again that replaces (or a `null`, under that
    /// rule) replaces the one that named the record, which is then left out of it, as in one
    /// batch: that link is no longer given. A list merged by `union` (whose `null` removes
    /// nothing either), or none, keeps it. Returns nil, changing
    /// nothing, when the holder is this batch's record of another entity.
    private mutating func givingLists(
        of key: ScopedKey, _ record: Carried, from holder: ScopedKey, in holderProto: ProtoRecord,
        options: PopulationOptions
    ) -> Carried? {
        let given = record.incoming.filter { $0.holder == holder && $0.list == .joinTable }
        guard given.allSatisfy({ $0.holderRepresentation == holderProto.representation.index }) else { return nil }
        let replaced = Set(
            holderProto.representation.relationships.filter { mapped in
                given.contains { $0.relationship == mapped.id }
                    && options.mergePolicy(of: mapped.property, on: holderProto.entity) != .union
                    && (holderProto.clearedRelationships.contains(mapped.name)
                        || holderProto.links.contains { $0.relationship.id == mapped.id && !$0.isPartial })
            }.map(\.id))
        guard !replaced.isEmpty else { return record }
        var record = record
        record.incoming.removeAll { $0.holder == holder && replaced.contains($0.relationship) }
        carried[key] = record
        for link in given where replaced.contains(link.relationship) {
            guard !record.incoming.contains(where: { $0.row == link.row }) else { continue }
            carriedHolderRows[link.row]?.removeAll { $0 == key }
            if carriedHolderRows[link.row]?.isEmpty == true { carriedHolderRows[link.row] = nil }
        }
        return record
    }

    /// Whether `holder`, the record with the key `key` as this batch names it, sets again each
    /// of the to-ones among `incoming` that it holds: an occurrence of this batch sets the
    /// relationship (to a record, or to `null`), so that the link carried is an earlier
    /// occurrence of the same link, which one batch falls back on only where the later ones
    /// name records that are not stored (``ProtoRecord/Link/membersInTurn``). Its lists in a
    /// join table need nothing here; one kept on the members is never set again so.
    private static func setsAgain(_ incoming: [IncomingLink], of key: ScopedKey, in holder: ProtoRecord) -> Bool {
        incoming.allSatisfy { link in
            // A list in a join table is given as before (``givingLists(of:_:from:in:options:)``);
            // one kept on the members could be claimed otherwise by the holder's list.
            guard link.holder == key, link.list != .joinTable else { return true }
            guard link.list == nil else { return false }
            return holder.representation.relationships.contains { $0.id == link.relationship && holder.hasLink($0) }
        }
    }

    /// Whether `holder`, the record with the key `key` named again with data by this batch,
    /// leaves each link it gave a carried record as it was: every such link is a to-one kept in
    /// the holder's row (lists in a join table are given as before,
    /// ``givingLists(of:_:from:in:options:)``), which the holder's occurrences neither set nor
    /// clear, as the entity it was stored as, and no list of `protos` claims the holder (a
    /// to-many whose inverse could be that to-one). One batch keeps the link the earlier
    /// occurrence gave, as no later one sets it: the record stays carried, and the link is
    /// given again where it is completed, as when the holder is named by key only
    /// (``onlyNamesByKey(_:in:)``).
    private static func leavesAlone(
        _ incoming: [IncomingLink], of key: ScopedKey, in holder: ProtoRecord, among protos: [ProtoRecord]
    ) -> Bool {
        let own = incoming.filter { $0.holder == key && $0.list != .joinTable }
        guard !own.isEmpty, holder.row?.switchedFrom == nil else { return false }
        for link in own {
            guard link.list == nil, link.holderRepresentation == holder.representation.index,
                let mapped = holder.representation.relationships.first(where: { $0.id == link.relationship }),
                !holder.hasLink(mapped), !holder.clearedRelationships.contains(mapped.name)
            else { return false }
        }
        return !protos.contains { other in
            other.links.contains { link in
                (link.relationship.isToMany || link.relationship.isSymmetric) && link.members.contains(holder)
            }
        }
    }

    /// Whether `proto` is a reference by key that changes nothing: no data, no link of its own,
    /// and no list of `protos` claims it as a member (a to-many, whose inverse could be the
    /// holder's to-one). Such a holder keeps its ``IncomingLink``, as one batch gives a
    /// reference to a record met before nothing.
    private static func onlyNamesByKey(_ proto: ProtoRecord, in protos: [ProtoRecord]) -> Bool {
        guard proto.isReference, proto.links.isEmpty, proto.clearedRelationships.isEmpty else { return false }
        return !protos.contains { other in
            other.links.contains { link in
                (link.relationship.isToMany || link.relationship.isSymmetric) && link.members.contains(proto)
            }
        }
    }

    /// Stops carrying the records whose ``IncomingLink`` the row `row` holds: a batch's links
    /// changed the row.
    private mutating func uncarryHolder(row: RowKey) {
        guard let records = carriedHolderRows.removeValue(forKey: row) else { return }
        for key in records {
            if let record = carried[key] { uncarry(key, record) }
        }
    }

    /// Stops carrying `record`: it is read again whole when it occurs again.
    private mutating func uncarry(_ key: ScopedKey, _ record: Carried) {
        carried[key] = nil
        droppedIdentities.insert(record.identity)
    }

    /// Merges what earlier batches gave each carried record (``noteDropped(_:options:)``) that this
    /// batch names, beneath what this batch gives it, before the batch is resolved: the record
    /// then ends as in one batch, stored with the `_id` it kept if it is complete now, or
    /// dropped again. The warning that dropped it earlier is withdrawn: this batch's outcome
    /// replaces it. A batch that names the record as another entity of its hierarchy merges
    /// into it as one later occurrence does (``ProtoRecordBuilder/mergeEarlier(_:shared:as:stated:into:)``).
    ///
    /// - Throws: ``StreamedDivergence`` when the entity the record was carried as is not in
    ///   this batch's schema, which cannot happen within one population; or when this batch's
    ///   occurrences name the record first as a more general entity that states none, then as
    ///   another (``ProtoRecordBuilder/mergeEarlier(_:shared:as:stated:into:)``).
    mutating func applyCarried(to builder: ProtoRecordBuilder, debugger: Debugger) throws {
        guard !carried.isEmpty else { return }
        defer { holdersSettingAgain.removeAll() }
        if !carriedHolders.isEmpty { try uncarryNamedHolders(in: builder) }
        if !carriedInOrder.isEmpty { try uncarryReorderedLists(in: builder) }
        // Whichever is fewer is looked up in the other: the records carried, or the batch's.
        let protos = builder.protoRecords
        var found: [(ScopedKey, ProtoRecord)] = []
        if carried.count <= protos.count {
            for key in carried.keys {
                if let proto = builder.proto(withKey: key.key, scope: key.scope) { found.append((key, proto)) }
            }
        } else {
            for proto in protos {
                guard let normalized = proto.normalizedKey else { continue }
                let key = ScopedKey(proto, normalized)
                if carried[key] != nil { found.append((key, proto)) }
            }
        }
        let representations = builder.representations.all
        for (key, proto) in found {
            guard let record = carried.removeValue(forKey: key) else { continue }
            guard representations.indices.contains(record.representation) else {
                throw StreamedDivergence(record: proto.description)
            }
            guard
                builder.mergeEarlier(
                    record.dictionary, shared: record.sharedValues, as: representations[record.representation],
                    stated: record.entityIsStated, into: proto)
            else {
                throw StreamedDivergence(
                    record: proto.description,
                    reason:
                        "was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response as a more general entity and then as others: populated in parts, its entity could end otherwise than in the whole response"
                )
            }
            if let key = record.primaryKeyValue { proto.primaryKeyValue = key }
            try builder.linkCarried(record.links, from: record.dictionary, into: proto)
            try giveIncoming(record, to: proto, key: key, in: builder)
            proto.reservedRowID = record.rowID
            let warning = Marshaler.incompleteWarningStart(record.description)
            debugger.withdrawWarning { $0.message.hasPrefix(warning) }
            for childWarning in record.childWarnings {
                debugger.withdrawWarning { $0.message == childWarning }
            }
        }
    }

    /// Gives `proto`, a carried record this batch names again, the to-ones that records of
    /// earlier batches set to it (``IncomingLink``): each holder, which this batch does not
    /// name (``uncarryNamedHolders(in:)``), is named by key and given the link before this
    /// batch's occurrences, as one batch applies the holder's occurrence first. A holder this
    /// batch names, and whose occurrences set that to-one again (``holdersSettingAgain``), is
    /// given the link as the oldest of its occurrences (``ProtoRecord/noteEarlierLink(_:members:)``),
    /// which it falls back on where the later ones name records that are not stored; one of
    /// them that names `proto` already needs nothing, as the fallback never passes it.
    ///
    /// - Throws: ``StreamedDivergence`` when this batch sets the relationship back from the
    ///   carried record (its list of holders), which one batch would apply after the holders'
    ///   links, where the store no longer lists them as its members; or when a holder cannot be
    ///   named again, which cannot happen within one population.
    private mutating func giveIncoming(
        _ record: Carried, to proto: ProtoRecord, key: ScopedKey, in builder: ProtoRecordBuilder
    ) throws {
        for link in record.incoming {
            // A list back merged by `union` only adds: applied after the links given again, as
            // one batch applies it after the holders' occurrences, it keeps them.
            if let inverse = link.inverse,
                proto.clearedRelationships.contains(inverse)
                    || proto.links.contains(where: {
                        $0.relationship.name == inverse
                            && builder.options.mergePolicy(of: $0.relationship.property, on: proto.entity) != .union
                    })
            {
                throw StreamedDivergence(
                    record: proto.description,
                    reason:
                        "was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response with its list '\(inverse)' of the records that link to it: populated in parts, that list could end otherwise than in the whole response"
                )
            }
            if let list = link.list {
                // A list kept on the members: no other record of this batch may claim the record
                // through it, as the batches could order those claims otherwise.
                if list == .onMembers,
                    builder.protoRecords.contains(where: { other in
                        other.links.contains { $0.relationship.id == link.relationship && $0.members.contains(proto) }
                    })
                {
                    throw StreamedDivergence(
                        record: proto.description,
                        reason:
                            "was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response where another list claims it: populated in parts, the list that holds it could end otherwise than in the whole response"
                    )
                }
                let representations = builder.representations.all
                guard representations.indices.contains(link.holderRepresentation) else {
                    throw StreamedDivergence(record: proto.description)
                }
                let holder = representations[link.holderRepresentation]
                if let order = link.order {
                    // The list again as it was given: each member this batch names, or by key,
                    // but one its batch dropped that no batch has stored since (carried on, or
                    // never to be: it reads again if it occurs).
                    let keyPath = holder.relationships.first(where: { $0.id == link.relationship })?.name ?? ""
                    var members: [ProtoRecord] = []
                    members.reserveCapacity(order.members.count)
                    for member in order.members {
                        if let named = builder.proto(withKey: member.key.key, scope: member.key.scope) {
                            members.append(named)
                            continue
                        }
                        if let identity = member.dropped,
                            carried[member.key] != nil || droppedIdentities.contains(identity)
                        {
                            continue
                        }
                        guard representations.indices.contains(member.representation),
                            let named = builder.namedAgain(
                                member.keyValue, of: representations[member.representation], keyPath: keyPath)
                        else { throw StreamedDivergence(record: proto.description) }
                        members.append(named)
                    }
                    guard
                        builder.giveEarlierList(
                            link.holderKey, of: holder, relationship: link.relationship, members: members)
                    else { throw StreamedDivergence(record: proto.description) }
                    givenOrders[GivenList(holder: link.holder, relationship: link.relationship)] = order
                } else {
                    guard
                        builder.addDeferred(link.holderKey, of: holder, relationship: link.relationship, member: proto)
                    else { throw StreamedDivergence(record: proto.description) }
                }
            } else if holdersSettingAgain.contains(link.holder) {
                guard let holder = builder.proto(withKey: link.holder.key, scope: link.holder.scope),
                    let mapped = holder.representation.relationships.first(where: { $0.id == link.relationship }),
                    let given = holder.links.first(where: { $0.relationship.id == mapped.id })
                else { throw StreamedDivergence(record: proto.description) }
                if !given.members.contains(proto) && !given.earlier.contains(where: { $0.contains(proto) }) {
                    holder.noteEarlierLink(mapped, members: [proto])
                }
            } else {
                let representations = builder.representations.all
                guard representations.indices.contains(link.holderRepresentation),
                    builder.linkDeferred(
                        link.holderKey, of: representations[link.holderRepresentation],
                        relationship: link.relationship, to: proto)
                else { throw StreamedDivergence(record: proto.description) }
            }
            givenHolderRows.insert(link.row)
            carriedHolders[link.holder]?.removeAll { $0 == key }
            if carriedHolders[link.holder]?.isEmpty == true { carriedHolders[link.holder] = nil }
            carriedHolderRows[link.row]?.removeAll { $0 == key }
            if carriedHolderRows[link.row]?.isEmpty == true { carriedHolderRows[link.row] = nil }
        }
    }

    /// Throws ``StreamedDivergence`` when the batch relates an object without a key through a
    /// to-one that an earlier batch's occurrence of the same record set to a record that batch
    /// dropped as incomplete (``droppedLinkHolders``): one batch takes the object for that
    /// record, related there so far (decision 6), and merges the two, where the stream, which
    /// did not store it, would take the object for what the store relates there. A batch that
    /// sets the to-one otherwise (to a record by key, or `null`) ends that.
    mutating func requireNoObjectWithoutKeyForDropped(in builder: ProtoRecordBuilder) throws {
        guard !droppedLinkHolders.isEmpty else { return }
        for (holder, relationships) in droppedLinkHolders {
            guard let proto = builder.proto(withKey: holder.key, scope: holder.scope) else { continue }
            var watched = relationships
            for link in proto.links where watched.contains(link.relationship.id) {
                if link.members.contains(where: { $0.normalizedKey == nil }) {
                    throw StreamedDivergence(
                        record: "\(proto).\(link.relationship.name)",
                        reason:
                            "named a record that was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response as an object without a key, which the whole response takes for that record: populated in parts, it would be taken for another"
                    )
                }
                watched.removeAll { $0 == link.relationship.id }
            }
            let cleared = proto.clearedRelationships
            if !cleared.isEmpty {
                watched.removeAll { id in
                    proto.representation.relationships.contains { $0.id == id && cleared.contains($0.name) }
                }
            }
            droppedLinkHolders[holder] = watched.isEmpty ? nil : watched
        }
    }

    /// Notes the rows of holders (``IncomingLink``) that the batch met through an object without
    /// a key (related there, decision 6), which no lookup by key finds: such an object can set
    /// the holder's to-one otherwise than the link given again. The records carried for them are
    /// read again when they occur again.
    ///
    /// - Throws: ``StreamedDivergence`` when the batch gave such a holder its link again too:
    ///   one batch would apply the object after it.
    mutating func noteHoldersMetWithoutKey(_ protos: [ProtoRecord]) throws {
        defer { givenHolderRows.removeAll(keepingCapacity: true) }
        guard !carriedHolderRows.isEmpty || !givenHolderRows.isEmpty else { return }
        for proto in protos where proto.normalizedKey == nil {
            guard let row = proto.row else { continue }
            let key = RowKey(row)
            if givenHolderRows.contains(key) {
                throw StreamedDivergence(
                    record: "\(row.entityName) _id \(row.rowID)",
                    reason:
                        "links to a record that was not stored where it first occurs, as it lacks a non-optional value, and is related again through an object without a key where that record occurs again later in the response: populated in parts, its link could end otherwise than in the whole response"
                )
            }
            uncarryHolder(row: key)
        }
    }

    /// Throws ``StreamedDivergence`` when the batch makes a row an earlier batch inserted another
    /// sub-entity, which lacks a value for one of its non-optional attributes: one batch merges
    /// the occurrences and does not store such a new record (decision 5), where the batches,
    /// applied in turn, keep the row.
    mutating func requireSwitchedRowsComplete(_ protos: [ProtoRecord]) throws {
        for proto in protos where proto.row?.switchedFrom != nil {
            guard let row = proto.row, wasInserted(RowKey(row)),
                let missing = proto.representation.requiredAttributes.first(where: { row.values[$0.column].isNull })
            else { continue }
            throw StreamedDivergence(
                record: proto.description,
                reason:
                    "was stored where it first occurs, and occurs again later in the response as \(proto.representation.name) without a value for its non-optional attribute '\(missing.name)': populated in parts, it would stay stored, where the whole response does not store it"
            )
        }
    }

    /// Notes the rows a batch inserted for records it named only by key (stubs, which are
    /// stored without their non-optional values until their data comes), with the to-ones
    /// that name them (``stubLinks``), and applies what a later batch that gives a stub's data
    /// without a non-optional value does. One batch merges the occurrences first and does not
    /// store such a record (decision 5), so the links to it keep what the occurrence before
    /// left them. When every batch named the stub only through to-ones kept in stored records'
    /// rows that claim nothing (``IncomingLink``), that batch dropped the record as a new one
    /// (``droppableStubs``), and the stream deletes the stub's row, gives each such to-one back
    /// what it held before, unless a later batch set it otherwise (the claim named last wins,
    /// decision 7), counts the row as never inserted, and carries those links with the record
    /// (``noteDropped(_:options:)``), so that a batch that completes it gives them again.
    ///
    /// - Returns: whether a stub's row was deleted and links given back, which changes rows
    ///   that earlier batches wrote.
    /// - Throws: ``StreamedDivergence`` when a later batch gives the data of a stub that is not
    ///   droppable, and it lacks a non-optional value: the batches, applied in turn, would keep
    ///   the stub and update it, and another link to it (a list, join rows, a one-to-one) could
    ///   not be given back as the whole response leaves it. A later batch whose data is complete
    ///   ends as one batch does.
    mutating func noteStubs(
        _ protos: [ProtoRecord], layout: StorageLayout, in transaction: some RecordStorageTransaction
    ) throws -> Bool {
        var naming: LinksNaming?
        var droppedAny = false
        for proto in protos where proto.isReference {
            guard let row = proto.row else { continue }
            let key = RowKey(row)
            if row.isNew {
                stubRows.insert(key)
                // A top-level stub is among the records: not dropped.
                let isTopLevel = topLevelRows.indices.contains(key.table) && topLevelRows[key.table].contains(key.rowID)
                if !isTopLevel, stubLinkCount < Self.stubLinkCapacity {
                    droppableStubs.insert(key)
                    stubLinks[key] = []
                }
            }
            guard droppableStubs.contains(key) else { continue }
            // Only the links that name references by key: the stubs among them.
            let links = naming ?? LinksNaming(protos, includes: \.isReference)
            naming = links
            noteLinks(to: proto, row: key, in: links)
        }
        if !stubLinkTargets.isEmpty {
            if droppableStubs.isEmpty {
                stubLinkTargets.removeAll()
            } else {
                for proto in protos {
                    guard let row = proto.row, let stubs = stubLinkTargets[RowKey(row)] else { continue }
                    guard
                        row.switchedFrom != nil || !proto.clearedRelationships.isEmpty
                            || proto.links.contains(where: { $0.relationship.isToMany })
                    else { continue }
                    for stub in stubs { forgetStubLinks(of: stub) }
                }
            }
        }
        for proto in protos {
            if proto.isReference { continue }
            if proto.isDroppedIncomplete, !stubRows.isEmpty, let rowID = proto.reservedRowID,
                let table = proto.representation.table, stubRows.contains(RowKey(table: table.index, rowID: rowID))
            {
                let key = RowKey(table: table.index, rowID: rowID)
                guard droppableStubs.contains(key) else {
                    throw StreamedDivergence(
                        record: proto.description,
                        reason:
                            "was stored from a reference by key where it first occurs, and a later occurrence gives its data without a value for a non-optional attribute, after a list was given to the record a link to it named before: populated in parts, that link given back could end otherwise than in the whole response, which does not store it"
                    )
                }
                try dropStub(proto, row: key, layout: layout, in: transaction)
                droppedAny = true
                continue
            }
            guard !stubRows.isEmpty, let row = proto.row, !row.isNew, stubRows.remove(RowKey(row)) != nil else {
                continue
            }
            forgetStubLinks(of: RowKey(row))
            // Defaults are given as to a new row (``ResponsePopulation/giveDefaults(to:stubs:coercion:)``).
            if let missing = proto.representation.attributes.first(where: {
                !$0.isOptional && row.values[$0.column].isNull
            }) {
                throw StreamedDivergence(
                    record: proto.description,
                    reason:
                        "was stored from a reference by key where it first occurs, and a later occurrence gives its data without a value for the non-optional attribute '\(missing.name)': populated in parts, it would stay stored, and a link to it (a list, join rows, a one-to-one) could not be given back as the whole response, which does not store it, leaves it"
                )
            }
        }
        return droppedAny
    }

    /// Notes the to-ones that `proto`, a reference by key to the stub `row`, is named through
    /// in its batch (``stubLinks``), each with what it held before the batch set it to the stub
    /// (``before(_:stub:stored:)``); a holder that held the stub already keeps what it held
    /// before that. A to-one that a later occurrence of the same record set to another record
    /// (``LinksNaming/supersededHolders(of:)``) needs nothing: the link to the stub was never
    /// written; one that names the stub because the later occurrence names a record that is
    /// not stored is noted too. The stub is no longer droppable when a link cannot be given
    /// back (``LinksNaming/incomingLinks(to:)``), or past ``stubLinkCapacity``.
    private mutating func noteLinks(to proto: ProtoRecord, row: RowKey, in naming: LinksNaming) {
        let stub = DatabaseValue.integer(row.rowID)
        guard var holders = naming.holdersLinking(to: proto) else {
            forgetStubLinks(of: row)
            return
        }
        for (holder, link) in naming.supersededHolders(of: proto) {
            guard case .foreignKeyHere(let column, _, _, _)? = link.relationship.link, let holderRow = holder.row
            else {
                forgetStubLinks(of: row)
                return
            }
            if holderRow.values[column] != stub { continue }
            guard let incoming = LinksNaming.incomingLink(from: holder, link, to: proto) else {
                forgetStubLinks(of: row)
                return
            }
            holders.append((incoming, holder, link))
        }
        guard stubLinkCount + holders.count <= Self.stubLinkCapacity else {
            forgetStubLinks(of: row)
            return
        }
        var links = stubLinks[row] ?? []
        for (incoming, holder, link) in holders {
            // A holder carried to this batch (``applyCarried(to:debugger:)``) had occurrences in
            // earlier batches, whose links one batch falls back on and this one does not see.
            guard holder.reservedRowID == nil,
                case .foreignKeyHere(let column, _, _, _)? = link.relationship.link, let holderRow = holder.row,
                holderRow.values[column] == stub,
                let before = before(link, stub: row, stored: holderRow.originalValue(at: column) ?? .null)
            else {
                forgetStubLinks(of: row)
                return
            }
            if incoming.inverse != nil, case .integer(let target) = before, before != stub {
                stubLinkTargets[RowKey(table: row.table, rowID: target), default: []].append(row)
            }
            if let index = links.firstIndex(where: {
                $0.incoming.row == incoming.row && $0.incoming.relationship == incoming.relationship
            }) {
                links[index].incoming = incoming
                // Set to another record and back since: what it held then.
                if before != stub { links[index].before = before }
            } else {
                // A holder that held the stub through a link not noted cannot be given back.
                guard before != stub else {
                    forgetStubLinks(of: row)
                    return
                }
                links.append(StubLink(incoming: incoming, column: column, before: before))
                stubLinkCount += 1
            }
        }
        stubLinks[row] = links
    }

    /// What the to-one `link`, which one batch wired to the stub `stub`, holds when the stub is
    /// not stored, as one batch wires it (``ProtoRecord/Link/membersInTurn``): what the latest
    /// occurrence before the one that named the stub set it to that is stored (null after a
    /// `null`), or, with none, `stored`, what the holder's row held before the batch. Nil when
    /// the link was not wired to the stub, or that occurrence names another stub, whose own
    /// links are not followed through this one.
    private func before(_ link: ProtoRecord.Link, stub: RowKey, stored: DatabaseValue) -> DatabaseValue? {
        let given = link.earlier + [link.members]
        guard let wired = given.lastIndex(where: { $0.isEmpty || $0.first?.row != nil }),
            let named = given[wired].first?.row, RowKey(named) == stub
        else { return nil }
        for occurrence in given[..<wired].reversed() {
            guard let member = occurrence.first else { return .null }
            guard let row = member.row else { continue }
            // A stub this batch made, or an earlier one.
            guard occurrence.count == 1, !(member.isReference && row.isNew), !stubRows.contains(RowKey(row)) else {
                return nil
            }
            return .integer(row.rowID)
        }
        return stored
    }

    /// Forgets the links to the stub `row`, which is no longer droppable.
    private mutating func forgetStubLinks(of row: RowKey) {
        guard droppableStubs.remove(row) != nil else { return }
        stubLinkCount -= stubLinks.removeValue(forKey: row)?.count ?? 0
    }

    /// Deletes the row `row` of the stub that `proto`, dropped by this batch as incomplete,
    /// resolved to, after giving each to-one an earlier batch set to it back what it held
    /// before, where it still names the stub; and adds those to what the record carries
    /// (``Carried/incoming``), if it is carried.
    private mutating func dropStub(
        _ proto: ProtoRecord, row: RowKey, layout: StorageLayout, in transaction: some RecordStorageTransaction
    ) throws {
        let links = stubLinks.removeValue(forKey: row) ?? []
        stubLinkCount -= links.count
        droppableStubs.remove(row)
        stubRows.remove(row)
        let stub = DatabaseValue.integer(row.rowID)
        var givenBack: [IncomingLink] = []
        for link in links {
            let holder = link.incoming.row
            guard layout.tables.indices.contains(holder.table) else { continue }
            let table = layout.tables[holder.table]
            guard table.valueColumns.indices.contains(link.column) else { continue }
            let column = table.valueColumns[link.column]
            // Only where it still names the stub: a batch since that set it otherwise wins.
            let written = try transaction.update(
                table.name, set: [column], where: ["_id", column], values: [link.before, .integer(holder.rowID), stub])
            guard written > 0 else { continue }
            touchedOtherRows = true
            if changed[holder]?.latest.indices.contains(link.column) == true {
                changed[holder]?.latest[link.column] = link.before
            }
            memberValues[MemberColumn(member: holder, column: link.column)]?.latest = link.before
            givenBack.append(link.incoming)
            // An object without a key a later batch relates there is, in one batch, this record
            // (``requireNoObjectWithoutKeyForDropped(in:)``).
            droppedLinkHolders[link.incoming.holder, default: []].append(link.incoming.relationship)
        }
        // A link to another stub that held this one before holds, when given back, what this
        // one's link held before it (one batch falls back on the occurrence before).
        for (other, otherLinks) in stubLinks where other.table == row.table {
            for (index, link) in otherLinks.enumerated() where link.before == stub {
                if let earlier = links.first(where: {
                    $0.incoming.row == link.incoming.row && $0.incoming.relationship == link.incoming.relationship
                }) {
                    stubLinks[other]?[index].before = earlier.before
                } else {
                    forgetStubLinks(of: other)
                    break
                }
            }
        }
        guard layout.tables.indices.contains(row.table) else { return }
        let tableName = layout.tables[row.table].name
        _ = try transaction.deleteRows([(table: tableName, rowID: row.rowID)])
        // Never inserted, as in one batch; a later batch that completes the record inserts it
        // again with this `_id` (``Carried/rowID``).
        if statuses.indices.contains(row.table) { statuses[row.table][row.rowID] = 0 }
        changed[row] = nil
        contained.remove(row.rowID, in: tableName)
        linkSpared.remove(row.rowID, in: tableName)
        guard let key = proto.normalizedKey else { return }
        let scoped = ScopedKey(proto, key)
        guard var record = carried[scoped] else { return }
        for link in givenBack
        where !record.incoming.contains(where: { $0.row == link.row && $0.relationship == link.relationship }) {
            record.incoming.append(link)
            carriedHolders[link.holder, default: []].append(scoped)
            carriedHolderRows[link.row, default: []].append(scoped)
        }
        carried[scoped] = record
    }

    /// The identity of a top-level record across batches.
    mutating func key(of proto: ProtoRecord) -> TopLevelKey {
        if let key = proto.normalizedKey {
            return TopLevelKey(table: proto.representation.keyScopeName, key: key, serial: 0)
        }
        unkeyed += 1
        return TopLevelKey(table: proto.representation.rootName, key: nil, serial: unkeyed)
    }

    /// The record class of `representation`'s entity, looked up once per entity.
    mutating func recordClass(for representation: Representation, in store: some RecordStorage) -> Record.Type {
        if let found = recordClasses[representation.index] { return found }
        let found = store.recordClass(for: representation.name)
        recordClasses[representation.index] = found
        return found
    }

    /// Notes the one-to-ones this batch's rows took from rows it did not hold, and checks that no
    /// row of the batch lets go of one an earlier batch's row took.
    ///
    /// - Throws: ``StreamedDivergence`` when a row lets go of (clears, or moves from) a
    ///   one-to-one it took from another row in an earlier batch: one batch wires only the
    ///   latest occurrence of the link, and leaves the other row holding it, where in turn it
    ///   would be held by none.
    mutating func noteTakenOneToOnes(
        _ taken: [(table: String, column: String, holder: Int64, value: DatabaseValue)], rows: some Sequence<RowState>,
        layout: StorageLayout
    ) throws {
        if !takenOneToOnes.isEmpty {
            for row in rows {
                guard let held = takenOneToOnes[RowKey(row)] else { continue }
                for earlier in held where earlier.batch < batch && row.values[earlier.column] != earlier.value {
                    throw StreamedDivergence(
                        record: "\(row.entityName) _id \(row.rowID)",
                        reason:
                            "takes a one-to-one from another record in one part of the response and lets go of it in a later one: populated in parts, no record would hold it, where the whole response, which takes only the link's latest occurrence, leaves it with the record it named"
                    )
                }
            }
        }
        for item in taken {
            guard let (table, column) = Self.column(item.column, of: item.table, in: layout) else { continue }
            let holder = RowKey(table: table, rowID: item.holder)
            takenOneToOnes[holder, default: []].removeAll { $0.column == column }
            takenOneToOnes[holder, default: []].append((column, item.value, batch))
        }
    }

    /// Notes the stored rows a batch kept as stored where the place it gave them cannot hold
    /// them (``RecordResolver/keptRows``), and the stored rows of hierarchies with sub-entities
    /// it gave data for where they can be held.
    ///
    /// - Throws: ``StreamedDivergence`` when one batch keeps as stored a row another batch gave
    ///   data for (in either order): one batch merges the occurrences first and keeps the record
    ///   as stored for all of them (or takes an entity a discriminator states for every link),
    ///   where in turn the occurrence that can be held would be applied alone.
    mutating func noteKeptAsStored(_ kept: [RowState], protos: [ProtoRecord]) throws {
        for row in kept where heldWithData.contains(row.rowID, in: row.table.name) {
            throw StreamedDivergence(
                record: "\(row.entityName) _id \(row.rowID)",
                reason: Self.keptAsStoredReason)
        }
        for proto in protos where !proto.isReference {
            let representation = proto.representation
            guard let row = proto.row, !row.isNew,
                representation.hasSubentities || representation.name != representation.rootName,
                !wasInserted(RowKey(row))
            else { continue }
            if keptAsStored.contains(row.rowID, in: row.table.name) {
                throw StreamedDivergence(record: proto.description, reason: Self.keptAsStoredReason)
            }
            heldWithData.insert(row.rowID, in: row.table.name)
        }
        for row in kept { keptAsStored.insert(row.rowID, in: row.table.name) }
    }

    private static let keptAsStoredReason =
        "is a stored record given in one part of the response where it cannot be held (as an entity its stored one is not a kind of, with no discriminator) and in another with data where it can: populated in parts, one occurrence would be applied alone, where the whole response merges them first"

    /// Notes the takers a batch's pairings took from (``PopulationWriter/takersTaken``), and
    /// checks that no occurrence of this batch sets the one-to-one of one an earlier batch noted.
    ///
    /// - Throws: ``StreamedDivergence`` when a record took a one-to-one that is its own inverse
    ///   from another record, lost what it took to a later record of that batch that took the
    ///   taker itself, and a later batch's occurrence of it sets that one-to-one again, even to
    ///   the partner it ended that batch with (which leaves its row as it was): one batch wires
    ///   only that latest occurrence, and leaves the pair the taker broke up linked, where in
    ///   turn both stay without a partner.
    mutating func noteTakersTaken(
        _ takers: [(table: String, column: String, holder: Int64)], protos: [ProtoRecord], layout: StorageLayout
    ) throws {
        if !takersTaken.isEmpty {
            for proto in protos where !proto.links.isEmpty {
                guard let row = proto.row, let held = takersTaken[RowKey(row)] else { continue }
                for earlier in held where earlier.batch < batch {
                    let setsIt = proto.links.contains { link in
                        guard case .foreignKeyHere(_, _, let columnName, _)? = link.relationship.link else {
                            return false
                        }
                        return columnName == earlier.column
                    }
                    guard setsIt else { continue }
                    throw StreamedDivergence(
                        record: "\(row.entityName) _id \(row.rowID)",
                        reason:
                            "takes a one-to-one from another record in one part of the response, loses it to a record that takes it in turn, and sets it again in a later part: populated in parts, the record it took from would be left without its partner, where the whole response, which takes only the link's latest occurrence, leaves the two linked"
                    )
                }
            }
        }
        for taker in takers {
            guard let (table, _) = Self.column(taker.column, of: taker.table, in: layout) else { continue }
            takersTaken[RowKey(table: table, rowID: taker.holder), default: []].append((taker.column, batch))
        }
    }

    /// A member that the owner `owner` lost to another's list in a batch
    /// (``Marshaler/lostMembers()``): if the owner is met, its lists count as changed unless a
    /// later batch gives the member back. When the member named another stored owner before
    /// the population (an earlier batch moved it to `owner` by its own link), that owner lost it
    /// to the list too, as one batch, which compares with the rows before the population, finds.
    mutating func noteLoss(of member: RowState, by owner: RowKey, column: Int) {
        let key = follow(member, at: column, of: owner)
        guard case .integer(let from)? = memberValues[key]?.original, from != owner.rowID else { return }
        let before = RowKey(table: owner.table, rowID: from)
        guard !wasInserted(before) else { return }
        ownerMembers[before, default: []].append((key, nil))
    }

    /// The moves of a stored row out of an owner's ordered list by its own link, by row and
    /// column: the owner it left, and the batch (``notePositionedMoves(_:)``).
    private var positionedMoves: [MemberColumn: (from: DatabaseValue, batch: Int)] = [:]

    /// Notes the rows a batch's own links moved out of an ordered list (``Marshaler/positionedMoves``).
    ///
    /// - Throws: ``StreamedDivergence`` when a later batch's own link gives a row back to the
    ///   owner an earlier batch's own link moved it from. One batch wires only the link's latest
    ///   occurrence: the row never left that owner, and keeps its position in the list; applied in
    ///   turn, it would come back without one.
    mutating func notePositionedMoves(_ moves: [(row: RowState, column: Int, from: DatabaseValue, to: DatabaseValue)])
        throws
    {
        for move in moves {
            let key = MemberColumn(member: RowKey(move.row), column: move.column)
            if let earlier = positionedMoves[key], earlier.batch < batch, earlier.from == move.to, !move.to.isNull {
                throw StreamedDivergence(
                    record: "\(move.row.entityName) _id \(move.row.rowID)",
                    reason:
                        "is moved out of an ordered list by its own link in one part of the response, and given back to that list's owner by a later occurrence of the link: populated in parts, it would come back without its position, where the whole response, which takes only the link's latest occurrence, keeps it"
                )
            }
            if positionedMoves[key] == nil || !move.from.isNull { positionedMoves[key] = (move.from, batch) }
        }
    }

    /// A stored member that a batch's list gave `owner`, and that named no other owner when the
    /// batch began (``Marshaler/listedStoredMembers``): if it named another stored owner before
    /// the population (an earlier batch unlinked it, or gave it to `owner` by its own link), that
    /// owner lost it to the list, as one batch, which compares with the rows before the
    /// population, finds (``noteLoss(of:by:column:)``).
    mutating func noteListed(_ member: RowState, by owner: RowState, column: Int) {
        let key = RowKey(member)
        // Only a row an earlier batch changed can have named another owner before.
        guard changed[key] != nil || clearedValues[key] != nil,
            case .integer(let from)? = originalValue(of: key, at: column, now: .null), from != owner.rowID
        else { return }
        let lostBy = RowKey(table: owner.table.index, rowID: from)
        guard !wasInserted(lostBy) else { return }
        noteLoss(of: member, by: lostBy, column: column)
    }

    /// Notes the join rows a batch added or removed (``PopulationWriter/joinPairs``), in the
    /// order the batch wrote them, under both of their rows.
    mutating func noteJoinPairs(_ pairs: [ListChange.JoinPair], layout: StorageLayout) {
        for pair in pairs {
            guard let memberTable = layout.tables.firstIndex(where: { $0.name == pair.memberTable }) else { continue }
            let owner = RowKey(pair.owner)
            let member = RowKey(table: memberTable, rowID: pair.member)
            // A join row that names a row the population inserted was not there before it, even
            // when the first change noted is its removal: a new owner's join rows are written
            // without being noted (nothing was there to compare them with).
            let wasThere = !pair.added && !wasInserted(owner) && !wasInserted(member)
            for key in [
                JoinPairKey(table: pair.table, row: owner, other: member.rowID),
                JoinPairKey(table: pair.table, row: member, other: owner.rowID),
            ] {
                if joinPairLedger[key] == nil {
                    joinPairLedger[key] = (wasThere, pair.added)
                } else {
                    joinPairLedger[key]?.latest = pair.added
                }
            }
        }
    }

    /// A member a batch's list took from another record (``Marshaler/takenMembers``): a later
    /// batch whose occurrence of that list drops it diverges from one batch, which wires only the
    /// list's latest occurrence and leaves the member with the record it named.
    mutating func noteTaken(owner: RowState, member: RowState, column: Int) {
        takenBy[MemberColumn(member: RowKey(member), column: column)] = (owner.rowID, batch)
    }

    /// A member a batch gave a stored owner (``Marshaler/noteGainedMembers()``).
    mutating func noteGain(owner: RowState, member: RowState, column: Int) {
        let key = follow(member, at: column, of: RowKey(owner))
        if gainedIn[key] == nil { gainedIn[key] = batch }
    }

    /// A member that joined or left, by a link, a stored owner that gave its list
    /// (``Marshaler/noteGainedMembers()``): the owner's list changed, unless the member ends as
    /// it was before the population.
    mutating func noteLinked(owner: RowState, member: RowState, column: Int) {
        follow(member, at: column, of: RowKey(owner))
    }

    /// An owner's list kept on its members, through one column: the owner's row, and the
    /// members' table position and column.
    struct OwnerColumn: Hashable {
        let owner: RowKey
        let table: Int
        let column: Int
    }

    /// A column of a record table: the table's position, and the column's.
    struct TableColumn: Hashable {
        let table: Int
        let column: Int
    }
    /// The columns through which a child names the owner that identifies it, through a to-one
    /// (a `Source`'s `post`): such an owner counts as updated when it loses a child it held
    /// before the population, not when it gains one, as one batch counts it (nil until the
    /// first batch).
    private var ownedChildColumns: Set<TableColumn>?

    /// The columns that name the owner of a list kept on its members, by the members' table
    /// position: each column and the owner's table position (nil until the first batch).
    private var ownerListColumns: [[(column: Int, ownerTable: Int)]]?
    /// The members that joined or left a stored owner by a link of their own (or another
    /// one-way link) in any batch, by owner and column (``noteOwnLinks(of:listed:)``).
    private var ownLinks: [OwnerColumn: Set<MemberColumn>] = [:]
    /// The stored owners that gave a list kept on its members in any batch, by column.
    private var listedOwnerColumns = Set<OwnerColumn>()

    /// Notes, for the rows of a batch, each column that names the owner of a list kept on its
    /// members and that the batch changed (the member joined or left that owner, a stored one),
    /// and the stored owners that gave such a list (`listed`, ``Marshaler/listedOwnerColumns``).
    ///
    /// One batch counts an owner that gives its list as updated when a member of the response
    /// joins or leaves it, by its own link as much as by the list (``Marshaler/noteGainedMembers()``),
    /// wherever in the response the list and the link are given. Across batches, the link and
    /// the list can be in different batches, in either order: the owner then counts as its list
    /// ends when the last batch is written (``ownLinksChanged(_:)``).
    mutating func noteOwnLinks(
        of protos: [ProtoRecord], listed: [(owner: RowState, table: Int, column: Int)],
        representations: RepresentationSet
    ) {
        for item in listed {
            listedOwnerColumns.insert(OwnerColumn(owner: RowKey(item.owner), table: item.table, column: item.column))
        }
        if ownerListColumns == nil {
            var columns: [[(column: Int, ownerTable: Int)]] = []
            var owned = Set<TableColumn>()
            for representation in representations.all {
                for relationship in representation.relationships
                where !relationship.isToMany && relationship.identifiesDestination {
                    guard case .foreignKeyThere(let table, let column, _, _, _)? = relationship.link else { continue }
                    owned.insert(TableColumn(table: table.index, column: column))
                }
            }
            ownedChildColumns = owned
            for representation in representations.all {
                guard let ownerTable = representation.table?.index else { continue }
                for relationship in representation.relationships where relationship.isToMany {
                    guard case .foreignKeyThere(let table, let column, _, _, _)? = relationship.link else { continue }
                    while columns.count <= table.index { columns.append([]) }
                    if !columns[table.index].contains(where: { $0 == (column, ownerTable) }) {
                        columns[table.index].append((column, ownerTable))
                    }
                }
            }
            ownerListColumns = columns
        }
        guard let ownerListColumns, !ownerListColumns.isEmpty else { return }
        for proto in protos {
            guard let row = proto.row, row.table.index < ownerListColumns.count else { continue }
            for (column, ownerTable) in ownerListColumns[row.table.index] {
                let now = row.values[column]
                let before = row.originalValue(at: column) ?? .null
                guard before != now else { continue }
                for value in [before, now] {
                    guard case .integer(let id) = value else { continue }
                    let owner = RowKey(table: ownerTable, rowID: id)
                    // An owner the population inserted counts as inserted whatever its members.
                    if wasInserted(owner) { continue }
                    let member = track(row, at: column)
                    ownLinks[OwnerColumn(owner: owner, table: row.table.index, column: column), default: []]
                        .insert(member)
                }
            }
        }
    }

    /// The stored owners whose list, given in some batch, a member joined or left by a link of
    /// its own in some batch, and that end with it otherwise than before the population
    /// (``noteOwnLinks(of:listed:representations:)``).
    private func ownLinksChanged() -> Set<RowKey> {
        var owners = Set<RowKey>()
        for (key, members) in ownLinks where listedOwnerColumns.contains(key) && !owners.contains(key.owner) {
            let ownerID = DatabaseValue.integer(key.owner.rowID)
            let changed = members.contains { member in
                guard !vanished.contains(member.member), let values = memberValues[member] else { return false }
                let namedBefore = values.original == ownerID
                let namesNow = values.latest == ownerID && !deletedRows.contains(member.member)
                return namedBefore != namesNow
            }
            if changed { owners.insert(key.owner) }
        }
        return owners
    }

    /// A member a batch moved in a stored owner's ordered list, which it held before
    /// (``Marshaler/noteGainedMembers()``): the owner's list changed, unless a later batch
    /// moves the member back, as one batch, which wires only the list's latest occurrence, finds.
    mutating func noteMove(owner: RowState, member: RowState, column: Int, positionColumn: Int) {
        ownerMembers[RowKey(owner), default: []].append((track(member, at: column), track(member, at: positionColumn)))
    }

    /// Follows the column `column` of `member`, which names or named `owner`, among the owner's
    /// members (``memberValues``, ``ownerMembers``): its value before the population, and its
    /// latest.
    @discardableResult
    private mutating func follow(_ member: RowState, at column: Int, of owner: RowKey) -> MemberColumn {
        let key = track(member, at: column)
        ownerMembers[owner, default: []].append((key, nil))
        return key
    }

    /// Keeps the value of the column `column` of `member` before the population, and its latest
    /// (``memberValues``), once.
    private mutating func track(_ member: RowState, at column: Int) -> MemberColumn {
        let memberKey = RowKey(member)
        let key = MemberColumn(member: memberKey, column: column)
        if memberValues[key] == nil {
            // Before the population: as an earlier batch found the row, or as this one did.
            let original = originalValue(of: memberKey, at: column, now: member.originalValue(at: column))
            memberValues[key] = (original, member.values[column])
            memberColumns[memberKey, default: []].append(column)
        }
        return key
    }

    /// The value at `column` of the row `member` before the population: none for a row a batch
    /// inserted; as a batch before found it; as it was before a batch's links changed it; or
    /// `now`, its value as this batch finds it.
    private func originalValue(of member: RowKey, at column: Int, now: DatabaseValue?) -> DatabaseValue? {
        if statuses.indices.contains(member.table),
            RowStatus(packed: statuses[member.table][member.rowID])?.status == .inserted
        {
            return nil
        }
        if let original = changed[member]?.original, original.indices.contains(column) { return original[column] }
        if let cleared = clearedValues[member], let value = cleared.first(where: { $0.column == column }) {
            return value.value
        }
        return now
    }

    /// Whether an earlier batch inserted the row `key`.
    func wasInserted(_ key: RowKey) -> Bool {
        statuses.indices.contains(key.table) && RowStatus(packed: statuses[key.table][key.rowID])?.status == .inserted
    }

    /// Whether a row a batch met unchanged ends, in a column a link changed in the store after
    /// the row was compared (``linkedColumns``), otherwise than before the population: moved
    /// elsewhere in a list, or unlinked by a list that drops it or a one-to-one that takes its
    /// target.
    private func endsChangedByLinks(_ key: RowKey) -> Bool {
        guard !linkedColumns.isEmpty, let columns = memberColumns[key] else { return false }
        return columns.contains { column in
            let member = MemberColumn(member: key, column: column)
            guard linkedColumns.contains(member), let values = memberValues[member] else { return false }
            return values.original != values.latest
        }
    }

    /// Whether a member that named the row `owner` before the population names another now,
    /// given to it by another owner's list (``noteLoss(of:by:column:)``).
    private func lostMembers(_ owner: RowKey) -> Bool {
        guard let members = ownerMembers[owner] else { return false }
        let ownerID = DatabaseValue.integer(owner.rowID)
        return members.contains { member in
            guard let values = memberValues[member.reference] else { return false }
            return values.original == ownerID && values.latest != ownerID
                && !vanished.contains(member.reference.member)
        }
    }

    /// Whether the lists of the row `owner` differ, now that the last batch is written, from
    /// what they were before the population: a join row added, removed or moved; a member that
    /// names it and did not, or no longer names it (deleted, or given to another record) and did,
    /// or moved. A member a batch inserted and the population deleted was never there.
    private func listsChanged(_ owner: RowKey) -> Bool {
        if let joins = joinLists[owner] {
            for (table, lists) in joins where lists.original != lists.latest {
                for member in Set(lists.original.keys).union(lists.latest.keys) {
                    let (before, now) = (lists.original[member], lists.latest[member])
                    if before == now { continue }
                    // The join row's presence as it ends, whichever side's list added or removed
                    // it: the ledger's, when a batch noted it. A join row that was not there before
                    // the population and is not now leaves the list as it was, whatever positions
                    // the owner's own lists noted for it in between (an earlier batch added it, and
                    // the other side's list removed it after the owner's list was noted).
                    if let pair = joinPairLedger[JoinPairKey(table: table, row: owner, other: member)] {
                        if pair.original != pair.latest { return true }
                        // There before and now: changed only if it moved in the list.
                        if pair.latest, before != nil, now != nil { return true }
                        continue
                    }
                    // Moved in the list, or added or removed.
                    return true
                }
            }
        }
        guard let members = ownerMembers[owner] else { return false }
        let ownerID = DatabaseValue.integer(owner.rowID)
        for member in members where !vanished.contains(member.reference.member) {
            guard let values = memberValues[member.reference] else { continue }
            let namedBefore = values.original == ownerID
            let namesNow = values.latest == ownerID && !deletedRows.contains(member.reference.member)
            if let owned = ownedChildColumns, !owned.isEmpty,
                owned.contains(TableColumn(table: member.reference.member.table, column: member.reference.column))
            {
                // A child its owner identifies, through a to-one: only one the owner held before
                // the population and no longer holds changes it.
                if namedBefore && !namesNow { return true }
                continue
            }
            if namedBefore != namesNow { return true }
            // Moved in an ordered list: the owner's list changed, whether the response names the
            // member (moved in memory) or not (moved in the store).
            if namesNow, let position = member.position, let positions = memberValues[position],
                positions.original != positions.latest
            {
                return true
            }
        }
        return false
    }

    func changeCounts() -> [String: ChangeCounts] {
        var counts = [ChangeCounts](repeating: ChangeCounts(), count: entityNames.count)
        // The rows whose join rows differ, as they end, from before the population.
        let pairsChanged = Set(joinPairLedger.lazy.filter { $0.value.original != $0.value.latest }.map(\.key.row))
        // The rows that give their own list through a join table whose join rows there changed.
        var listsInJoinTablesChanged = listersNamingInsertedRows
        if !joinListerSides.isEmpty {
            var listersByTable: [String: Set<RowKey>] = [:]
            for (side, rows) in joinListerSides { listersByTable[side.table, default: []].formUnion(rows) }
            for (key, value) in joinPairLedger where value.original != value.latest {
                if listersByTable[key.table]?.contains(key.row) == true { listsInJoinTablesChanged.insert(key.row) }
            }
        }
        let ownLinksChanged = ownLinks.isEmpty ? [] : ownLinksChanged()
        for (table, rows) in statuses.enumerated() {
            for (rowID, packed) in rows {
                guard let row = RowStatus(packed: packed) else { continue }
                var status = row.status
                let entity = entityNames[Int(row.entity)]
                if status == .unchanged,
                    endsChangedByLinks(RowKey(table: table, rowID: rowID))
                        || lostMembers(RowKey(table: table, rowID: rowID))
                        || ownLinksChanged.contains(RowKey(table: table, rowID: rowID))
                        || listsInJoinTablesChanged.contains(RowKey(table: table, rowID: rowID))
                {
                    status = .updated
                }
                if status == .updated {
                    let key = RowKey(table: table, rowID: rowID)
                    // A row whose list gained the owner of a link that is its own inverse counts
                    // as updated, unless the join rows end as they were.
                    let relinked = relinkedRows.contains(key) && (joinPairLedger.isEmpty || pairsChanged.contains(key))
                    if !relinked, !listsChanged(key), !ownLinksChanged.contains(key),
                        !listsInJoinTablesChanged.contains(key), let values = changed[key],
                        values.original == values.latest, values.originalEntity == entity
                    {
                        status = .unchanged
                    }
                }
                switch status {
                case .inserted: counts[Int(row.entity)].inserted += 1
                case .updated: counts[Int(row.entity)].updated += 1
                case .unchanged: counts[Int(row.entity)].unchanged += 1
                }
            }
        }
        var changes: [String: ChangeCounts] = [:]
        for (number, entityCounts) in counts.enumerated()
        where entityCounts.inserted + entityCounts.updated + entityCounts.unchanged > 0 {
            changes[entityNames[number]] = entityCounts
        }
        return changes
    }
}

/// A bounded hand-over of batches from the thread that reads and builds them to the writer:
/// at most ``capacity`` wait, so that reading runs ahead of writing by that many and no more.
final class BatchPipeline<Batch>: @unchecked Sendable {
    /// What comes through: a batch, the end (with the response without its records), or the
    /// reader's failure.
    enum Item {
        case batch(Batch)
        case end(JSONValue)
        case failure(any Error)
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var stopped = false
    /// Whether the reader has put its last item (the end or a failure).
    private var readerDone = false
    /// Batches written, waiting for the reader to free them.
    private var done: [Batch] = []
    /// How many items may wait.
    let capacity: Int
    /// What is done with a batch dropped when the writer stops.
    private let discard: (Batch) -> Void

    /// A hand-over where `capacity` batches may wait. One is enough: the writer, not the
    /// reader, bounds a population's time (Docs/Performance.md), so a second batch waiting
    /// saves no time and costs a batch's memory.
    init(capacity: Int = 1, discard: @escaping (Batch) -> Void) {
        self.capacity = capacity
        self.discard = discard
    }

    /// Whether the writer has stopped taking items.
    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// A batch the writer is done with: kept for the reader to free while the writer goes on,
    /// or freed at once when the reader has put its last item.
    func written(_ batch: Batch) {
        condition.lock()
        let keep = !readerDone && !stopped
        if keep { done.append(batch) }
        condition.unlock()
        if !keep { discard(batch) }
    }

    /// The batches the writer is done with, for the reader to free.
    func takeWritten() -> [Batch] {
        condition.lock()
        defer { condition.unlock() }
        let taken = done
        done.removeAll()
        return taken
    }

    /// Waits for room and adds `item`; false when the writer has stopped (the item is dropped).
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity, !stopped { condition.wait() }
        guard !stopped else { return false }
        if case .batch = item {} else { readerDone = true }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Waits for the next item.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// The writer is done: wakes the reader and drops what waits.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        for case .batch(let batch) in items { discard(batch) }
        items.removeAll()
        done.forEach(discard)
        done.removeAll()
        condition.broadcast()
    }
}

/// A side of a join table that a stored record listed its own members from: the table, the
/// column that names the record, the column that names its members, and the members' record
/// table.
struct JoinListerSide: Hashable, Comparable {
    let table: String
    let ownerColumn: String
    let memberColumn: String
    let memberTable: String

    static func < (lhs: JoinListerSide, rhs: JoinListerSide) -> Bool {
        (lhs.table, lhs.ownerColumn, lhs.memberColumn) < (rhs.table, rhs.ownerColumn, rhs.memberColumn)
    }
}

/// A record's identity across the batches of one population: its table and key, or, for a record
/// identified by its owner, its table, its owner's row and the owner's relationship.
enum RecordIdentity: Hashable {
    case key(table: String, key: KeyValue)
    case owned(table: String, owner: Int64, relationship: Int)

    init?(_ proto: ProtoRecord) {
        if let key = proto.normalizedKey {
            self = .key(table: proto.representation.keyScopeName, key: key)
        } else if let owner = proto.owner, let ownerRowID = owner.proto.row?.rowID {
            self = .owned(table: proto.representation.rootName, owner: ownerRowID, relationship: owner.relationship.id)
        } else {
            return nil
        }
    }
}

/// Thrown inside a streamed population's transaction, which it rolls back, when applying the
/// batches in turn could end otherwise than the whole response: a record that one batch dropped
/// as incomplete occurs again in a later one (``StreamTotals/noteDropped(_:options:)``), a record a batch
/// stored as a reference gets incomplete data later (``StreamTotals/noteStubs(_:)``), or a record
/// switches back to a sub-entity whose links kept in other rows a switch cleared
/// (``SwitchedSubentities/restore(_:coercion:store:)``).
/// A streamed population's failure that quotes a record read with only the members the schema
/// reads (``KeyProjection``): the response is read again with every member, when it can be, to
/// fail as it would have.
struct QuotedProjection: Error {
    let error: WebRecordError
}

struct StreamedDivergence: Error {
    /// The record, as a proto-record describes itself.
    let record: String
    /// Why the batches could not be applied in turn, after the record's name in a message.
    var reason =
        "was not stored where it first occurs, as it lacks a non-optional value, and occurs again later in the response: populated in parts, what its first occurrence gave would be lost"
}
