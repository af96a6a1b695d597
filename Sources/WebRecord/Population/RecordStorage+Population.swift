/// Populations of a store known only as a protocol (`any RecordDatabase`, as a ``RecordStore``
/// holds it): each call makes a ``ResponsePopulation`` for the store's own type and runs it.
extension RecordStorage {
    /// Populates this store from `response` (see ``ResponsePopulation/populate(_:entity:debugger:)``).
    package func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions, debugger: Debugger? = nil
    ) throws(WebRecordError) -> PopulationResult {
        try ResponsePopulation(store: self, options: options).populate(response, entity: entity, debugger: debugger)
    }

    /// Populates this store from `response` without blocking the calling task's thread.
    package func populate(
        _ response: JSONValue, entity: String, options: PopulationOptions, progress: ProgressReporter? = nil,
        debugger: Debugger? = nil
    ) async throws(WebRecordError) -> sending PopulationResult {
        try await ResponsePopulation(store: self, options: options, progress: progress)
            .populate(response, entity: entity, debugger: debugger)
    }

    /// Populates this store from a streamed response (see
    /// ``ResponsePopulation/populate(streaming:expectedBytes:entity:debugger:reopens:)``).
    package func populate(
        streaming open: (String?) throws(WebRecordError) -> JSONStreamReader, expectedBytes: Int? = nil,
        entity: String, options: PopulationOptions, reopens: Bool = true
    ) async throws(WebRecordError) -> sending PopulationResult {
        try await ResponsePopulation(store: self, options: options).populate(
            streaming: open, expectedBytes: expectedBytes, entity: entity, reopens: reopens)
    }

    /// Deletes the orphans of a whole paged or multi-source population (see
    /// ``ResponsePopulation/deleteOrphans(of:keeping:results:response:debugger:)``).
    package func deleteOrphans(
        of entity: String, keeping: Set<Int64>, results: [Record], response: JSONValue, options: PopulationOptions,
        debugger: Debugger
    ) async throws(WebRecordError) -> [String: Int] {
        try await ResponsePopulation(store: self, options: options).deleteOrphans(
            of: entity, keeping: keeping, results: results, response: response, debugger: debugger)
    }
}
