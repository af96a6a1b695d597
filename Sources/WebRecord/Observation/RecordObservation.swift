import Foundation

/// An observed fetch, as an `AsyncSequence` of its results: first the initial results, then,
/// after every committed transaction that changed them, the new results with a change set.
///
/// Make one from a record class or a store:
///
/// ```swift
/// for try await results in Post.observe(in: store, orderBy: [.descending("date")]) {
///     print(results.records.count, results.changes?.insertions ?? [])
/// }
/// ```
///
/// Nothing runs until the sequence is iterated; each iteration is an observation of its own.
/// Deliveries wait for the consumer: commits made while it is busy are coalesced into one
/// delivery whose change set goes from the last delivered results to the newest, and nothing
/// is buffered without bound. Cancelling the iterating task ends the sequence and releases the
/// observation. A failure to read the results ends it with a ``WebRecordError``
/// (Docs/Observation.md).
public struct RecordObservation<RecordClass: Record>: AsyncSequence, Sendable {
    /// One delivery.
    public typealias Element = ObservedResults<RecordClass>
    /// Observations fail with WebRecord's error.
    public typealias Failure = WebRecordError

    let store: RecordStore
    let query: ObservedQuery

    /// Starts an observation when iterated.
    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, query: query)
    }

    /// Iterates an observation's deliveries.
    public struct Iterator: AsyncIteratorProtocol {
        let store: RecordStore
        let query: ObservedQuery
        var engine: ObservationEngine<RecordClass>?
        var isFinished = false

        /// The next delivery; nil once the task is cancelled.
        public mutating func next() async throws(WebRecordError) -> ObservedResults<RecordClass>? {
            try await next(isolation: nil)
        }

        /// The next delivery, in the caller's isolation; nil once the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(WebRecordError)
            -> ObservedResults<RecordClass>?
        {
            guard !isFinished, !Task.isCancelled else { return finish() }
            guard let engine else {
                do {
                    let started = try await ObservationEngine<RecordClass>(database: store.database, query: query)
                    engine = started
                    return ObservedResults(
                        records: started.records, sections: started.sections(of: started.records), changes: nil,
                        sectionChanges: nil)
                } catch {
                    isFinished = true
                    throw error
                }
            }
            do throws(WebRecordError) {
                while true {
                    let signaled = await engine.pending.wait(timeout: store.externalChangeInterval)
                    if Task.isCancelled { return finish() }
                    var change = engine.pending.take()
                    // Changes heard of before a failure are delivered first.
                    if change == nil, let failure = engine.pending.failure { throw failure }
                    if !signaled, change == nil {
                        guard try await engine.externalCommitHappened() else { continue }
                        change = .unknown
                    }
                    guard let change else { continue }
                    if let refreshed = try await engine.refresh(after: change) {
                        return ObservedResults(
                            records: refreshed.records, sections: engine.sections(of: refreshed.records),
                            changes: refreshed.changes, sectionChanges: refreshed.sectionChanges)
                    }
                }
            } catch {
                isFinished = true
                self.engine = nil
                throw error
            }
        }

        private mutating func finish() -> ObservedResults<RecordClass>? {
            isFinished = true
            engine = nil
            return nil
        }
    }
}

extension RecordStore {
    /// Observes the records of an entity that match a predicate, in an order.
    ///
    /// For example:
    ///
    /// ```swift
    /// let recent = store.observe("Post", where: "date > ?", arguments: [cutoff], orderBy: [.descending("date")])
    /// for try await results in recent { show(results.records) }
    /// ```
    ///
    /// - Parameters:
    ///   - entityName: the entity; its sub-entities' records are included.
    ///   - predicate: an SQL condition over the entity's columns, as for ``fetch(_:where:arguments:orderBy:limit:offset:includingSubentities:)``.
    ///   - arguments: the values bound to the predicate's placeholders.
    ///   - orderBy: the sort order; ties and the default order are by insertion (`_id`).
    ///   - limit: the most records in the results.
    ///   - sectionKey: an attribute to group the results by: it comes first in the sort order,
    ///     and deliveries carry sections and section change sets.
    ///   - keyPaths: relationship key paths whose values count as part of each record, such as
    ///     `"user"` or `"user.name"`: a post is reported modified when its user's name changes.
    /// - Returns: the observation; iterating it starts it. An unknown entity, sort name, section
    ///   key or key path, or a predicate the database refuses, fails the first delivery.
    public func observe(
        _ entityName: String, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, sectionKey: String? = nil, keyPaths: [String] = []
    ) -> RecordObservation<Record> {
        RecordObservation(
            store: self,
            query: ObservedQuery(
                entityName: entityName, predicate: predicate, arguments: arguments.map(\.databaseValue),
                orderBy: orderBy, limit: limit, sectionKey: sectionKey, keyPaths: keyPaths))
    }
}

extension RecordRequesting {
    /// Observes this class's records, as ``RecordStore/observe(_:where:arguments:orderBy:limit:sectionKey:keyPaths:)``
    /// does, delivering instances of this class.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await results in Post.observe(in: store, orderBy: [.descending("date")]) {
    ///     show(results.records)        // [Post]
    /// }
    /// ```
    public static func observe(
        in store: RecordStore, where predicate: String? = nil, arguments: [any DatabaseValueConvertible] = [],
        orderBy: [SortOrder] = [], limit: Int? = nil, sectionKey: String? = nil, keyPaths: [String] = []
    ) -> RecordObservation<Self> {
        RecordObservation(
            store: store,
            query: ObservedQuery(
                entityName: requestEntityName(in: store), predicate: predicate,
                arguments: arguments.map(\.databaseValue), orderBy: orderBy, limit: limit, sectionKey: sectionKey,
                keyPaths: keyPaths))
    }

    /// Observes the one record of this class with a primary-key value: deliveries hold it, or
    /// no record while there is none.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await results in User.observe(primaryKey: "2", in: store) {
    ///     print(results.records.first?.name ?? "gone")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - value: the key, normalized to the key's type as ``RecordStore/fetchOne(_:primaryKey:)``
    ///     does; an array with one value per part for a composite key.
    ///   - store: the store.
    ///   - keyPaths: relationship key paths whose values count as part of the record.
    public static func observe(primaryKey value: JSONValue, in store: RecordStore, keyPaths: [String] = [])
        -> RecordObservation<Self>
    {
        RecordObservation(
            store: store,
            query: store.database.primaryKeyQuery(
                entityName: requestEntityName(in: store), value: value, keyPaths: keyPaths))
    }
}

extension RecordDatabase {
    /// The observed query of the one record of `entityName` with the key `value`. A key that does
    /// not fit the entity gives a query that fails when it runs, with the reason.
    func primaryKeyQuery(entityName: String, value: JSONValue, keyPaths: [String]) -> ObservedQuery {
        var query = ObservedQuery(
            entityName: entityName, predicate: nil, arguments: [], orderBy: [], limit: 1, sectionKey: nil,
            keyPaths: keyPaths)
        do {
            let (predicate, arguments) = try primaryKeyCondition(entityName, value: value)
            query.predicate = predicate
            query.arguments = arguments
        } catch {
            query.failure = error
        }
        return query
    }
}
