/// What an observation needs of the database behind a store: to hear of the commits that may
/// change its results, to read its results in one read, and to tell whether a commit it was not
/// told of happened.
///
/// ``ObservationEngine`` is written once over it. ``SQLiteDatabase`` hears of the commits of
/// this process through its ``ChangeFeed``, each with the rows it changed, and tells of other
/// processes' commits by SQLite's `PRAGMA data_version`. A PostgreSQL database (in a module of
/// its own) hears of every worker's commits through `LISTEN`/`NOTIFY`, each with the tables it
/// changed, and has nothing to poll.
package protocol ObservableDatabase: AnyObject, Sendable {
    /// Calls `onChange` with every commit announced from when this returns, and `onFailure` once
    /// when commits can no longer be heard of (after which nothing more is announced), until the
    /// returned subscription is cancelled or released.
    ///
    /// It returns once every later commit is sure to be announced, so that a commit between
    /// this call and a read that follows it is announced, never lost. The handlers run on the
    /// thread that heard of the commit: keep them short.
    ///
    /// - Throws: when the database cannot start hearing of commits (a PostgreSQL server that
    ///   refuses the listening connection).
    func subscribeToCommits(
        onChange: @escaping @Sendable (StoreChange) -> Void,
        onFailure: @escaping @Sendable (WebRecordError) -> Void
    ) async throws(WebRecordError) -> ChangeFeed.Subscription

    /// Runs `body` with read queries, off the cooperative pool, and returns what it gave together
    /// with a version of the database as of the read, for
    /// ``unannouncedCommitHappened(since:)``.
    ///
    /// - Throws: what `body` threw; `cancelled` when the task is cancelled during the read; a
    ///   `storeError` when the database cannot read.
    func readForObservation<T: Sendable>(
        _ body: @escaping @Sendable (any RecordQuerying) throws(WebRecordError) -> T
    ) async throws(WebRecordError) -> (value: T, version: Int64)

    /// Whether a commit that ``subscribeToCommits(onChange:onFailure:)`` does not announce has
    /// happened since the read that gave `version`: on SQLite, another process's, or another
    /// connection's to the file.
    func unannouncedCommitHappened(since version: Int64) async throws(WebRecordError) -> Bool
}
