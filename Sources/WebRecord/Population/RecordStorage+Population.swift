import Foundation

/// Populations of a store known only as a protocol (`any RecordDatabase`, as a ``RecordStore``
/// holds it): each call makes a ``ResponsePopulation`` for the store's own type and runs it.
///
/// These are also where a population that another writer's transaction conflicted with is
/// tried again (``RecordStorage/isTransientConflict(_:)``): from the start, its transaction
/// having been rolled back, at most ``RecordStorage/conflictRetryLimit`` times, after a short
/// random pause that grows with each retry. Each conflict is logged as a warning (not as an
/// error: the population may yet succeed) and kept in the result's ``Debugger/retries``; when
/// the last attempt conflicts too, its error is logged as an error and reported, saying how
/// many attempts were made.
extension RecordStorage {
    /// Populates this store from `response` (see ``ResponsePopulation/populate(_:entity:debugger:)``).
    package func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions, debugger: Debugger? = nil
    ) throws(WebRecordError) -> PopulationResult {
        var conflicts = ConflictRetries(store: self, entity: entity, debugger: debugger)
        while true {
            do {
                let result = try ResponsePopulation(store: self, options: options).populate(
                    response, entity: entity, debugger: debugger)
                return conflicts.succeeded(result, debugger: result.debugger)
            } catch {
                usleep(UInt32(try conflicts.pause(after: error) * 1_000))
            }
        }
    }

    /// Populates this store from `response` without blocking the calling task's thread.
    package func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions, progress: ProgressReporter? = nil,
        debugger: Debugger? = nil
    ) async throws(WebRecordError) -> sending PopulationResult {
        var conflicts = ConflictRetries(store: self, entity: entity, debugger: debugger)
        while true {
            do {
                let result = try await ResponsePopulation(store: self, options: options, progress: progress)
                    .populate(response, entity: entity, debugger: debugger)
                return conflicts.succeeded(result, debugger: result.debugger)
            } catch {
                try await conflicts.wait(after: error)
            }
        }
    }

    /// Populates this store from a streamed response (see
    /// ``ResponsePopulation/populate(streaming:expectedBytes:entity:debugger:reopens:)``). A
    /// conflict is retried only when `open` can open the response again (`reopens`; standard
    /// input and pipes are kept as they are read, ``SpooledInput``, and can): a stream that
    /// cannot reports the conflict instead.
    package func populate(
        streaming open: (String?) throws(WebRecordError) -> JSONStreamReader, expectedBytes: Int? = nil,
        entity: String, options: PopulationOptions, reopens: Bool = true
    ) async throws(WebRecordError) -> sending PopulationResult {
        var conflicts = ConflictRetries(store: self, entity: entity, debugger: nil)
        while true {
            do {
                let result = try await ResponsePopulation(store: self, options: options).populate(
                    streaming: open, expectedBytes: expectedBytes, entity: entity, reopens: reopens)
                return conflicts.succeeded(result, debugger: result.debugger)
            } catch {
                guard reopens || !isTransientConflict(error) else {
                    var error = error
                    error.message +=
                        " (a conflict with another writer; the response cannot be read again to retry: populate it from a file)"
                    throw error
                }
                try await conflicts.wait(after: error)
            }
        }
    }

    /// Deletes the orphans of a whole paged or multi-source population (see
    /// ``ResponsePopulation/deleteOrphans(of:keeping:results:response:debugger:)``).
    package func deleteOrphans(
        of entity: String, keeping: ContainedRows, results: [Record], response: JSONValue, options: PopulationOptions,
        debugger: Debugger
    ) async throws(WebRecordError) -> [String: Int] {
        var conflicts = ConflictRetries(store: self, entity: entity, debugger: debugger)
        while true {
            do {
                let deleted = try await ResponsePopulation(store: self, options: options).deleteOrphans(
                    of: entity, keeping: keeping, results: results, response: response, debugger: debugger)
                return conflicts.succeeded(deleted, debugger: debugger)
            } catch {
                try await conflicts.wait(after: error)
            }
        }
    }
}

/// The conflicts one population has met, and what to do after each: the one retry loop of
/// every population of a ``RecordStorage``, sync or async, whole, streamed or an orphan pass.
///
/// Before each attempt the debugger's state is kept; after a transient conflict it is restored
/// (the attempt's errors are not the population's), the conflict is logged as a warning and
/// kept, and the next attempt waits a short random pause that grows with each retry. When the
/// attempt succeeds, the conflicts go into its debugger's ``Debugger/retries``.
private struct ConflictRetries<Storage: RecordStorage> {
    let store: Storage
    let entity: String
    let debugger: Debugger?
    private var conflicts: [WebRecordError] = []
    private var checkpoint: Int?

    init(store: Storage, entity: String, debugger: Debugger?) {
        self.store = store
        self.entity = entity
        self.debugger = debugger
        checkpoint = debugger?.checkpoint()
    }

    /// `value`, from the attempt that succeeded, after recording the conflicts before it in
    /// `debugger`.
    func succeeded<T>(_ value: sending T, debugger: Debugger) -> sending T {
        debugger.recordRetries(conflicts)
        return value
    }

    /// The milliseconds to wait before the next attempt after `error`, with the debugger
    /// restored to what it was before the failed attempt.
    ///
    /// - Throws: `error` when it is no transient conflict, or when the retries are used up.
    mutating func pause(after error: any Error) throws(WebRecordError) -> Int {
        let error = error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        let pause = try store.retryPause(after: error, entity: entity, conflicts: &conflicts)
        if let checkpoint { debugger?.restore(checkpoint) }
        checkpoint = debugger?.checkpoint()
        return pause
    }

    /// Waits before the next attempt after `error` (``pause(after:)``); a cancelled task stops
    /// waiting with `cancelled`.
    mutating func wait(after error: any Error) async throws(WebRecordError) {
        let milliseconds = try pause(after: error)
        do {
            try await Task.sleep(for: .milliseconds(milliseconds))
        } catch {
            throw WebRecordError.cancelled(entity: entity)
        }
    }
}

extension RecordStorage {
    /// How long to wait, in milliseconds, before trying `error`'s work again, after logging the conflict and
    /// adding it to `conflicts`.
    ///
    /// - Throws: `error` itself when it is no transient conflict; when the retries are used up,
    ///   `error` saying how many attempts conflicted, with every conflict in its debugger's
    ///   ``Debugger/retries``.
    fileprivate func retryPause(
        after error: WebRecordError, entity: String, conflicts: inout [WebRecordError]
    ) throws(WebRecordError) -> Int {
        guard isTransientConflict(error) else { throw error }
        guard conflicts.count < conflictRetryLimit else {
            var failure = error
            failure.message =
                "another writer's transaction conflicted with this population \(conflicts.count + 1) times (retried \(conflicts.count)); the last time: "
                + error.message
            error.debugger?.recordRetries(conflicts)
            // The population's own failure left the conflict unlogged, as it was to be retried.
            logger.log(.error, failure.description, entity: entity)
            throw failure
        }
        conflicts.append(error)
        logger.log(
            .warning,
            "retrying the population (retry \(conflicts.count) of \(conflictRetryLimit)) after a conflict with another writer: \(error.message)",
            entity: entity)
        return Int.random(in: 10...50) * conflicts.count
    }
}
