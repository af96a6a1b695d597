import Foundation

/// A store's file: opening its connections, and removing it again when a new store's first
/// write fails.
///
/// A store file this process cannot write (a read-only file, or a file in a directory it may
/// not write, where SQLite cannot make the `-wal` and `-shm` beside it) is opened for reading
/// only, and reads work as SQLite allows: with no `-wal` beside it, the file holds every
/// commit, and it is opened `immutable` (nothing is created, no lock is taken); with a `-wal`,
/// it is read through it, which needs its `-shm` to exist or the directory to be writable (else
/// the open fails, naming the directory). A write then fails at once, saying why, before
/// SQLite touches anything.
package struct StoreFile: Sendable {
    let path: String
    let options: SQLiteDatabase.Options

    /// Opens the writer connection, creating the file (with the configured mode) when there is
    /// none. A file it creates is switched to WAL at once: an empty database, with no tables.
    func openWriter(_ state: ConnectionQueue.State) throws(WebRecordError) -> Connection {
        state.reset()
        if let target = Self.missingLinkTarget(path) {
            throw Self.error(
                "the store '\(path)' is a symbolic link to '\(target)', which is missing: create the link's target, or give the store's own path",
                sqliteCode: 14)  // SQLITE_CANTOPEN
        }
        if let reason = unwritableReason() {
            // Opened for reading only: a write fails at once, saying why (see the type).
            let connection = try openForReading(because: reason)
            state.unwritable = reason
            connection.sqlObserver = options.sqlObserver
            try connection.execute("PRAGMA foreign_keys = ON")
            return connection
        }
        state.createdFile = Connection.createFile(atPath: path, mode: mode_t(options.fileMode))
        if !state.createdFile, !FileManager.default.fileExists(atPath: path),
            access(directory, W_OK) != 0, errno == EACCES || errno == EROFS
        {
            throw Self.error(
                "cannot create the store '\(path)': its directory '\(directory)' is not writable", sqliteCode: 14)
        }
        let connection = try Connection(path: path, mustExist: true, busyTimeout: options.busyTimeout)
        connection.sqlObserver = options.sqlObserver
        // Statement journals in memory: a statement that writes many rows keeps the pages it
        // changes until it ends, and in a temporary file that cost a system call per page and
        // page number (21,000 writes for the 43,000 rows of the App.net benchmark). The page
        // cache keeps SQLite's default size (2 MB), which bounds the memory of a transaction
        // of any size: pages it no longer holds go to the WAL before the commit.
        try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY")
        if state.createdFile { try enableWAL(on: connection, createdEmpty: true) }
        return connection
    }

    /// Opens a reader connection. It never creates the file, and cannot write to it.
    func openReader(_ state: ConnectionQueue.State) throws(WebRecordError) -> Connection {
        state.reset()
        let reason = unwritableReason()
        state.unwritable = reason
        let connection: Connection
        if let reason {
            connection = try openForReading(because: reason)
        } else {
            connection = try Connection(path: path, mustExist: true, busyTimeout: options.busyTimeout)
        }
        connection.sqlObserver = options.sqlObserver
        try connection.execute("PRAGMA foreign_keys = ON; PRAGMA query_only = ON")
        return connection
    }

    /// The directory holding the file.
    var directory: String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Why this process cannot write the existing store file, or nil when it can (or there is
    /// no file yet): the file is read-only, or its directory is not writable.
    func unwritableReason() -> String? {
        guard access(path, F_OK) == 0 else { return nil }
        if access(path, W_OK) != 0, errno == EACCES || errno == EROFS || errno == EPERM {
            return "the file is read-only for this process"
        }
        if access(directory, W_OK) != 0, errno == EACCES || errno == EROFS || errno == EPERM {
            return
                "its directory '\(directory)' is not writable for this process (SQLite makes the store's -wal and -shm files there)"
        }
        return nil
    }

    /// Opens the file for reading only, creating nothing beside it (see the type).
    private func openForReading(because reason: String) throws(WebRecordError) -> Connection {
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: path + "-wal") {
            return try Connection(
                path: Self.uri(path, "mode=ro&immutable=1"), readOnly: true, busyTimeout: options.busyTimeout)
        }
        if !fileManager.fileExists(atPath: path + "-shm"), access(directory, W_OK) != 0 {
            throw Self.error(
                "cannot read the store '\(path)': it has a write-ahead log ('\(path)-wal') and no '\(path)-shm', which SQLite must create to read it, and its directory '\(directory)' is not writable; make the directory writable",
                sqliteCode: 8)
        }
        return try Connection(path: path, readOnly: true, busyTimeout: options.busyTimeout)
    }

    /// A `file:` URI for `path` with `query`: `?`, `#` and `%` in the path percent-encoded, and
    /// an absolute path given an empty authority (`file:///...`).
    static func uri(_ path: String, _ query: String) -> String {
        var encoded = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": encoded += "%25"
            case "?": encoded += "%3F"
            case "#": encoded += "%23"
            default: encoded.unicodeScalars.append(character)
            }
        }
        return (path.hasPrefix("/") ? "file://" : "file:") + encoded + "?" + query
    }

    /// The refusal of a write to a store this process cannot write.
    func unwritableError(_ reason: String) -> WebRecordError {
        Self.error("the store '\(path)' cannot be written: \(reason)", sqliteCode: 8)  // SQLITE_READONLY
    }

    /// A `storeError` about the file, with SQLite's primary result code for its kind.
    private static func error(_ message: String, sqliteCode: Int32) -> WebRecordError {
        var error = WebRecordError(.storeError, message)
        error.sqliteCode = sqliteCode
        return error
    }

    /// Switches the file to WAL unless it is already. Runs outside a transaction.
    ///
    /// Several processes opening one new file race to switch it, and SQLite answers a switch
    /// that meets another connection's lock with `SQLITE_BUSY` at once, without its busy
    /// handler: the switch is retried, like any wait for a writer, for up to the busy timeout.
    ///
    /// - Parameter createdEmpty: whether the connection just created the file, which holds
    ///   nothing yet. The switch writes the file's first page; for a file that holds nothing,
    ///   a rollback journal on disk has nothing to restore, so the switch keeps its journal in
    ///   memory, and costs one write and one sync of the file instead of also a journal file,
    ///   its sync and its directory's (Docs/Performance.md measures them).
    func enableWAL(on connection: Connection, createdEmpty: Bool = false) throws(WebRecordError) {
        let deadline = Date().addingTimeInterval(options.busyTimeout)
        while true {
            do {
                let mode = try connection.unobserved { () throws(WebRecordError) in
                    try connection.scalar("PRAGMA journal_mode")
                }
                if mode != .text("wal") {
                    if createdEmpty {
                        try connection.unobserved { () throws(WebRecordError) in
                            if try connection.isEmptyDatabase { try connection.execute("PRAGMA journal_mode = MEMORY") }
                        }
                    }
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
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            // A disk that is full (or failing) may refuse even the lock; a file of no bytes
            // still holds nothing (SQLite's first commit, or its switch to WAL, writes the
            // header), and goes.
            let code = (error.sqliteCode ?? 0) & 0xFF
            guard code != 5, code != 6, !connection.fileHasMoved else { return false }  // SQLITE_BUSY, SQLITE_LOCKED
            return removeIfBlank()
        }
        defer { if connection.isInTransaction { try? connection.execute("ROLLBACK") } }
        guard (try? connection.isEmptyDatabase) == true, !connection.fileHasMoved else { return false }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        return true
    }

    /// Deletes the file, and its companions, when it holds no bytes at all: what a store that
    /// created the file and could not write its first page (a full disk) leaves. Call it only
    /// for a file this store created.
    ///
    /// - Returns: true when the file was removed.
    @discardableResult
    func removeIfBlank() -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size == 0 else {
            return false
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        return true
    }

    /// The target of `path` when `path` is a symbolic link whose target does not exist
    /// (a dangling link); nil otherwise.
    package static func missingLinkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK, stat(path, &status) != 0,
            errno == ENOENT
        else { return nil }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
    }
}
