/// ``SQLiteDatabase`` as observations see it: the commits of this process come through the
/// file's ``ChangeFeed``, with the rows each changed; another process's show in SQLite's
/// `PRAGMA data_version`, which observations poll.
extension SQLiteDatabase: ObservableDatabase {
    /// Subscribes to the file's ``ChangeFeed``, at once. SQLite's feed never fails, so
    /// `onFailure` is never called.
    package func subscribeToCommits(
        onChange: @escaping @Sendable (StoreChange) -> Void,
        onFailure: @escaping @Sendable (WebRecordError) -> Void
    ) async throws(WebRecordError) -> ChangeFeed.Subscription {
        changes.subscribe(onChange)
    }

    /// Runs `body` on the reader's executor; the version is the reader's `PRAGMA data_version`,
    /// read first.
    package func readForObservation<T: Sendable>(
        _ body: @escaping @Sendable (any RecordQuerying) throws(WebRecordError) -> T
    ) async throws(WebRecordError) -> (value: T, version: Int64) {
        do {
            return try await read { [self] connection in
                let version = try connection.dataVersion()
                return (try body(SQLiteQueries(database: self, connection: connection)), version)
            }
        } catch let error as WebRecordError {
            throw error
        } catch {
            throw WebRecordError(.storeError, "the observation could not read its results: \(error)", cause: error)
        }
    }

    /// Whether the reader's data version differs from `version`: another connection (another
    /// process, or a store this process opened on the file some other way) committed.
    package func unannouncedCommitHappened(since version: Int64) async throws(WebRecordError) -> Bool {
        do {
            return try await dataVersion() != version
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)")
        }
    }
}
