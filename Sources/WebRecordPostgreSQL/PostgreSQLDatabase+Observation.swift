import Foundation
import WebRecord

/// ``PostgreSQLDatabase`` as observations see it: every worker's commits come through
/// `LISTEN`/`NOTIFY` (``PostgreSQLListener``, ``PostgreSQLCommitNotice``), each with the
/// tables it changed, and an observation reads its results in one snapshot.
extension PostgreSQLDatabase: ObservableDatabase {
    /// Subscribes to the listener of this database and schema, starting it when this is its
    /// first subscriber; returns once it listens.
    package func subscribeToCommits(
        onChange: @escaping @Sendable (StoreChange) -> Void,
        onFailure: @escaping @Sendable (WebRecordError) -> Void
    ) async throws(WebRecordError) -> ChangeFeed.Subscription {
        try await PostgreSQLListener.subscribe(
            to: connectionInfo, namespace: namespace, onChange: onChange, onFailure: onFailure)
    }

    /// Runs `body` on the database's queue, inside one `REPEATABLE READ` read-only transaction
    /// (``withSnapshot(_:)``). The version is always 0: there is nothing to poll.
    package func readForObservation<T: Sendable>(
        _ body: @escaping @Sendable (any RecordQuerying) throws(WebRecordError) -> T
    ) async throws(WebRecordError) -> (value: T, version: Int64) {
        (try await onQueue { [self] () throws(WebRecordError) in try withSnapshot(body) }, 0)
    }

    /// Never: every commit of a WebRecord worker is announced, and a program writing the tables
    /// outside WebRecord announces its own with `NOTIFY webrecord` (``PostgreSQLCommitNotice``).
    package func unannouncedCommitHappened(since version: Int64) async throws(WebRecordError) -> Bool {
        false
    }

    /// Runs `work` on the database's queue, off the cooperative pool, with its errors as
    /// ``WebRecordError``s.
    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws(WebRecordError) -> T)
        async throws(WebRecordError) -> T
    {
        do {
            return try await cancellable { _ in try work() }
        } catch {
            throw error as? WebRecordError
                ?? WebRecordError(.storeError, "the observation could not read its results: \(error)", cause: error)
        }
    }
}
