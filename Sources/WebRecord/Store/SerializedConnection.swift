import Foundation

/// A connection that one thread at a time may use, opened when first needed and reopened
/// after ``close()``, with the state that goes with it.
///
/// `@unchecked Sendable` is safe here: the connection and its state are reachable only through
/// ``withConnection(_:)`` and ``reopen()``, which hold the lock for the whole call, and the
/// opener is `@Sendable`. The lock is recursive so a closure that reads while it writes, on the
/// same thread, does not deadlock.
final class SerializedConnection: @unchecked Sendable {
    /// What a store remembers about one of its connections. A class, so that a closure nested
    /// in another on the same thread (a read inside a write, in memory) can share it.
    final class State {
        /// This connection's store created the file (it did not exist when it was opened).
        var createdFile = false
        /// A write transaction has committed on this connection.
        var hasCommitted = false
        /// The tables match the schema's layout: no need to migrate in the next transaction.
        var layoutIsReady = false
        /// The views a reader shows until the tables exist.
        var pendingViews = PendingLayoutViews()

        /// Forgets everything: a new connection is being opened.
        func reset() {
            createdFile = false
            hasCommitted = false
            layoutIsReady = false
            pendingViews = PendingLayoutViews()
        }
    }

    private let lock = NSRecursiveLock()
    private var connection: Connection?
    private var state: State
    private let open: @Sendable (State) throws(WebRecordError) -> Connection

    /// - Parameters:
    ///   - connection: the connection to start with, if it is already open.
    ///   - state: its state.
    ///   - open: opens a new connection when there is none, resetting the state as it sees fit.
    init(_ connection: Connection?, state: State = State(), open: @escaping @Sendable (State) throws(WebRecordError) -> Connection) {
        self.connection = connection
        self.state = state
        self.open = open
    }

    /// Runs `body` with the connection, opened first if there is none, and its state.
    func withConnection<T>(_ body: (Connection, State) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let connection = try self.connection ?? open(state)
        self.connection = connection
        return try body(connection, state)
    }

    /// Replaces the connection with a newly opened one.
    func reopen() throws(WebRecordError) -> Connection {
        lock.lock()
        defer { lock.unlock() }
        self.connection = nil
        let connection = try open(state)
        self.connection = connection
        return connection
    }

    /// Drops the connection; the next ``withConnection(_:)`` opens a new one. SQLite closes the
    /// old one when the last reference to it goes.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        connection = nil
    }
}
