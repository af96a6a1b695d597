import Foundation

/// A store's file: opening its connections, and removing it again when a new store's first
/// write fails.
struct StoreFile: Sendable {
    let path: String
    let options: SQLiteDatabase.Options

    /// Opens the writer connection, creating the file (with the configured mode) when there is
    /// none. A file it creates is switched to WAL at once: an empty database, with no tables.
    func openWriter(_ state: ConnectionQueue.State) throws(WebRecordError) -> Connection {
        state.reset()
        state.createdFile = Connection.createFile(atPath: path, mode: mode_t(options.fileMode))
        let connection = try Connection(path: path, mustExist: true, busyTimeout: options.busyTimeout)
        connection.sqlObserver = options.sqlObserver
        // Statement journals in memory: a statement that writes many rows keeps the pages it
        // changes until it ends, and in a temporary file that cost a system call per page and
        // page number (21,000 writes for the 43,000 rows of the App.net benchmark). The page
        // cache keeps SQLite's default size (2 MB), which bounds the memory of a transaction
        // of any size: pages it no longer holds go to the WAL before the commit.
        try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY")
        if state.createdFile { try enableWAL(on: connection) }
        return connection
    }

    /// Opens a reader connection. It never creates the file, and cannot write to it.
    func openReader(_ state: ConnectionQueue.State) throws(WebRecordError) -> Connection {
        state.reset()
        let connection = try Connection(path: path, mustExist: true, busyTimeout: options.busyTimeout)
        connection.sqlObserver = options.sqlObserver
        try connection.execute("PRAGMA foreign_keys = ON; PRAGMA query_only = ON")
        return connection
    }

    /// Switches the file to WAL unless it is already. Runs outside a transaction.
    ///
    /// Several processes opening one new file race to switch it, and SQLite answers a switch
    /// that meets another connection's lock with `SQLITE_BUSY` at once, without its busy
    /// handler: the switch is retried, like any wait for a writer, for up to the busy timeout.
    func enableWAL(on connection: Connection) throws(WebRecordError) {
        let deadline = Date().addingTimeInterval(options.busyTimeout)
        while true {
            do {
                let mode = try connection.unobserved { () throws(WebRecordError) in
                    try connection.scalar("PRAGMA journal_mode")
                }
                if mode != .text("wal") {
                    try connection.execute("PRAGMA journal_mode = WAL")
                }
                return
            } catch {
                let code = (error.sqliteCode ?? 0) & 0xFF
                guard code == 5 || code == 6, Date() < deadline else { throw error }  // SQLITE_BUSY, SQLITE_LOCKED
                usleep(5_000)
            }
        }
    }

    /// Deletes the file and its companions when the database is still empty (nothing was ever
    /// committed to it) and still at `path`. It takes the write lock first, so no other
    /// connection is writing; one that opened the file meanwhile finds it moved and reopens the
    /// path (see ``StoreMigrator/Outcome/fileMoved``).
    ///
    /// - Returns: true when the file was removed.
    func removeIfEmpty(using connection: Connection) -> Bool {
        guard (try? connection.execute("BEGIN IMMEDIATE")) != nil else { return false }
        defer { if connection.isInTransaction { try? connection.execute("ROLLBACK") } }
        guard (try? connection.isEmptyDatabase) == true, !connection.fileHasMoved else { return false }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        return true
    }
}
