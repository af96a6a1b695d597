import Foundation
internal import WebRecordSQLite

/// What one committed write transaction changed: the rows of each table it inserted, updated or
/// deleted, by rowid, as SQLite's update hook reported them.
///
/// A table whose rows are not all known (more than ``ChangeLog/rowLimit`` of them, or a change
/// made outside a tracked transaction) maps to nil: every row may have changed.
package enum StoreChange: Sendable, Equatable {
    /// The tables changed, each with its changed rowids when they are known.
    case tables([String: Set<Int64>?])
    /// Something committed, and what it changed is not known: another process wrote, or a
    /// transaction ran before changes were tracked.
    case unknown

    /// Whether this change may touch any of `tables`.
    package func touches(_ tables: Set<String>) -> Bool {
        switch self {
        case .unknown: true
        case .tables(let changed): changed.keys.contains { tables.contains($0) }
        }
    }
}

/// The rows a connection's transaction changes, collected by SQLite's update hook while the
/// store has observers (``Connection/trackChanges(into:)``).
///
/// Only the connection's queue touches it: the hook runs inside the statements the queue runs.
final class ChangeLog {
    /// Beyond this many rows in one table, its rowids are dropped and the table counts as
    /// wholly changed, so that a large population does not hold every rowid in memory.
    static let rowLimit = 50_000

    private var rows: [String: Set<Int64>?] = [:]
    /// Table names by the address SQLite passes them at, which is stable while the schema is:
    /// most calls find their name here without making a Swift string.
    private var names: [UnsafeRawPointer: String] = [:]
    /// How many rows the update hook has reported, ever: a statement that changed rows while
    /// this stayed the same wrote a table the hook does not report (``Statement/writeTargets``).
    private(set) var hookedRows = 0
    /// The join tables (`WITHOUT ROWID`, which SQLite's update hook never reports) whose rows
    /// a delete from each record table cascades to (their `ON DELETE CASCADE`).
    var cascadingJoinTables: [String: [String]] = [:]

    /// Counts `table` as wholly changed: its rows changed, and which is not known.
    func recordWhole(_ table: String) {
        rows[table] = .some(nil)
    }

    fileprivate func record(table: UnsafePointer<CChar>, rowID: Int64, deleted: Bool) {
        hookedRows &+= 1
        let key = UnsafeRawPointer(table)
        let name: String
        if let known = names[key] {
            name = known
        } else {
            name = String(cString: table)
            names[key] = name
        }
        if deleted, let joinTables = cascadingJoinTables[name] {
            for joinTable in joinTables { recordWhole(joinTable) }
        }
        switch rows[name] {
        case .none:
            rows[name] = [rowID]
        case .some(.none):
            break
        case .some(.some(var set)):
            rows[name] = nil  // drop the stored set's reference so the insert does not copy it
            set.insert(rowID)
            rows[name] = set.count > Self.rowLimit ? .some(nil) : set
        }
    }

    /// The changes collected since the last call, forgotten here.
    func take() -> [String: Set<Int64>?] {
        defer { rows = [:] }
        return rows
    }

    /// Forgets the changes of a transaction that rolled back, and the table names (the schema
    /// may have changed with it).
    func discard() {
        rows = [:]
        names = [:]
    }
}

extension Connection {
    /// Reports every row this connection inserts, updates or deletes to `log`, until
    /// ``stopTrackingChanges()``. `log` must outlive the tracking.
    ///
    /// SQLite's update hook reports the rows of tables with a rowid only. A join table has
    /// none (`WITHOUT ROWID`): a statement that changes its rows counts it as wholly changed
    /// (``Statement/writeTargets``), and so does a delete from a record table that its rows
    /// cascade from (``ChangeLog/cascadingJoinTables``).
    func trackChanges(into log: ChangeLog) {
        let context = Unmanaged.passUnretained(log).toOpaque()
        trackedChanges = log
        sqlite3_update_hook(
            handle,
            { context, operation, _, table, rowID in
                guard let context, let table else { return }
                Unmanaged<ChangeLog>.fromOpaque(context).takeUnretainedValue()
                    .record(table: table, rowID: rowID, deleted: operation == SQLITE_DELETE)
            }, context)
    }

    /// Stops reporting changes.
    func stopTrackingChanges() {
        trackedChanges = nil
        sqlite3_update_hook(handle, nil, nil)
    }

    /// Makes every `DELETE` delete its rows one by one, so that the update hook sees each of
    /// them: SQLite empties a table without a `WHERE` in one step that no hook reports (the
    /// truncate optimization), unless the authorizer answers `SQLITE_IGNORE` for the delete.
    func reportEveryDeletedRow() {
        reportsEveryDeletedRow = true
    }

    /// Installs the authorizer, which SQLite calls as it prepares each statement: it notes the
    /// tables the statement writes itself (``takeWriteTargets()``), and, once
    /// ``reportEveryDeletedRow()`` was called, turns off the truncate optimization.
    func installAuthorizer() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            handle,
            { context, action, table, _, _, trigger in
                guard let context, let table,
                    action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE
                else { return SQLITE_OK }
                // The catalog's own tables keep SQLite's usual behaviour.
                guard strncmp(table, "sqlite_", 7) != 0 else { return SQLITE_OK }
                let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
                // A trigger's writes are not the statement's own (a foreign key's action is
                // reported by the hook, or by ``ChangeLog/cascadingJoinTables``).
                if trigger == nil { connection.noteWriteTarget(table) }
                return action == SQLITE_DELETE && connection.reportsEveryDeletedRow ? SQLITE_IGNORE : SQLITE_OK
            }, context)
    }

    /// Notes a table the statement being prepared writes.
    private func noteWriteTarget(_ table: UnsafePointer<CChar>) {
        if let last = preparedWriteTargets.last, last.withCString({ strcmp($0, table) == 0 }) { return }
        preparedWriteTargets.append(String(cString: table))
    }

    /// The tables the statements prepared since the last call write, forgotten here.
    func takeWriteTargets() -> [String] {
        defer { preparedWriteTargets = [] }
        return preparedWriteTargets
    }

    /// The rows the update hook reported so far, when changes are tracked: read before a
    /// statement runs, for ``noteUnreportedWrites(of:hookedBefore:)``.
    var hookedRows: Int? { trackedChanges?.hookedRows }

    /// Counts the tables `targets` as wholly changed when the statement that writes them
    /// changed rows that the update hook did not report (a join table's).
    func noteUnreportedWrites(of targets: [String], hookedBefore: Int?, changedRows: Int64) {
        guard let hookedBefore, let log = trackedChanges, changedRows > 0, log.hookedRows == hookedBefore else {
            return
        }
        for table in targets { log.recordWhole(table) }
    }

    /// SQLite's `PRAGMA data_version`: it changes when another connection, in this process or
    /// another, commits to the file.
    func dataVersion() throws(WebRecordError) -> Int64 {
        let statement = try cachedStatement("PRAGMA data_version")
        var version: Int64 = 0
        try statement.forEachRow([]) { statement in
            if case .integer(let value) = statement.rowValues().first { version = value }
        }
        return version
    }
}

/// Where a store's commits are announced to the observations of its file.
///
/// Every ``SQLiteDatabase`` on the same file in this process shares one feed (see
/// ``feed(forFile:)``), so that a write through any of them reaches the observers of all.
package final class ChangeFeed: Sendable {
    private let subscribers = Locked<(next: Int, handlers: [Int: @Sendable (StoreChange) -> Void])>((0, [:]))

    package init() {}

    /// Whether anything observes the feed: changes are tracked only then.
    package var hasSubscribers: Bool { subscribers.withLock { !$0.handlers.isEmpty } }

    /// Calls `handler` with every change published from now on, until the returned subscription
    /// is cancelled or released. `handler` runs on the thread that committed: keep it short.
    package func subscribe(_ handler: @escaping @Sendable (StoreChange) -> Void) -> Subscription {
        let id = subscribers.withLock { state in
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
        return Subscription { [weak self] in
            _ = self?.subscribers.withLock { $0.handlers.removeValue(forKey: id) }
        }
    }

    /// Announces a committed change to every subscriber.
    package func publish(_ change: StoreChange) {
        let handlers = subscribers.withLock { Array($0.handlers.values) }
        for handler in handlers { handler(change) }
    }

    /// A registration with a feed; cancelling or releasing it ends the calls.
    package final class Subscription: Sendable {
        private let cancellation: Locked<(@Sendable () -> Void)?>

        /// A subscription that `cancel` ends: how a feed other than this one (a PostgreSQL
        /// database's listener) hands out its own.
        package init(_ cancel: @escaping @Sendable () -> Void) {
            cancellation = Locked(cancel)
        }

        /// Ends the calls. Cancelling twice does nothing more.
        package func cancel() {
            let cancel = cancellation.withLock { value in
                defer { value = nil }
                return value
            }
            cancel?()
        }

        deinit { cancel() }
    }

    /// The feeds of open files, by path, held weakly: a feed lives as long as a store uses it.
    private static let files = Locked<[String: WeakFeed]>([:])

    private struct WeakFeed {
        weak var feed: ChangeFeed?
    }

    /// The feed every store on the file at `path` shares; a new one for a store in memory.
    static func feed(forFile path: String?) -> ChangeFeed {
        guard let path else { return ChangeFeed() }
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return files.withLock { files in
            if let feed = files[key]?.feed { return feed }
            let feed = ChangeFeed()
            files = files.filter { $0.value.feed != nil }
            files[key] = WeakFeed(feed: feed)
            return feed
        }
    }
}
