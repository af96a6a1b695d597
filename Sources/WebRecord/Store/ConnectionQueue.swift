import Dispatch
import Foundation

/// One SQLite connection and the serial executor it is used from.
///
/// Everything a connection does runs on its own serial dispatch queue, as with GRDB's
/// `SerializedDatabase`: synchronous callers wait on the queue (``sync(_:)``), and tasks hop
/// onto it as their executor (``run(_:)``), so an async read or write never blocks a thread
/// of Swift's cooperative pool, neither on a lock nor inside SQLite. A task that runs on the
/// queue is still itself: `Task.isCancelled` and `Task.checkCancellation()` work in the
/// closure, and cancelling the task interrupts the SQL statement running for it
/// (`sqlite3_interrupt`).
///
/// Access is not reentrant. A closure that runs on the queue and asks for it again is a
/// programming error (a write inside a write): ``sync(_:)`` stops the process at once with a
/// message saying so, instead of deadlocking. Callers that may already be on the queue (a read
/// inside a write) ask ``isCurrent`` first and use ``onQueue(_:)``.
///
/// `@unchecked Sendable` is safe: the connection and its state are only touched on the queue,
/// and the interrupt handle is guarded by its own lock.
final class ConnectionQueue: SerialExecutor, @unchecked Sendable {
    /// What a store remembers about one of its connections.
    final class State {
        /// This connection's store created the file (it did not exist when it was opened).
        var createdFile = false
        /// A write transaction has committed on this connection.
        var hasCommitted = false
        /// The tables match the schema's layout: no need to migrate in the next transaction.
        var layoutIsReady = false
        /// The views a reader shows until the tables exist.
        var pendingViews = PendingLayoutViews()
        /// The rows the open transaction changes, while the store has observers.
        let changeLog = ChangeLog()
        /// Whether the connection reports its changes to ``changeLog``.
        var tracksChanges = false
        /// Why this process cannot write the store's file, when it cannot: the connection was
        /// opened for reading only (see ``StoreFile/unwritableReason()``).
        var unwritable: String?

        /// Forgets everything: a new connection is being opened.
        func reset() {
            createdFile = false
            hasCommitted = false
            layoutIsReady = false
            pendingViews = PendingLayoutViews()
            changeLog.discard()
            tracksChanges = false
            unwritable = nil
        }
    }

    /// What the queue is for, in the reentrancy message: "write", "read".
    let role: String
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()
    private var connection: Connection?
    private let state: State
    private var isClosed = false
    private let open: @Sendable (State) throws(WebRecordError) -> Connection
    /// The last operation number given out, the async operation running now (0 for none), and
    /// the connection's interrupt handle, for cancellation.
    private let running = Locked<(lastOperation: Int, current: Int, handle: Connection.InterruptHandle?)>((0, 0, nil))
    /// Raised while a cancelled operation runs: its statements fail at once.
    private let interruptFlag = InterruptFlag()
    /// Set once at the end of `init`, before the queue is shared; never changed after.
    private var executorActor: ConnectionActor!

    /// - Parameters:
    ///   - role: what the queue is for, named in messages.
    ///   - connection: the connection to start with, if it is already open.
    ///   - state: its state.
    ///   - open: opens a new connection when there is none, resetting the state as it sees fit.
    init(
        role: String, _ connection: Connection?, state: State = State(),
        open: @escaping @Sendable (State) throws(WebRecordError) -> Connection
    ) {
        self.role = role
        self.queue = DispatchQueue(label: "webrecord.\(role)")
        self.connection = connection
        self.state = state
        self.open = open
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
        running.withLock { $0.handle = connection?.interruptHandle }
        connection?.interrupt(while: interruptFlag)
        executorActor = ConnectionActor(queue: self)
    }

    // MARK: - Executor

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// Whether the caller is running on this queue (inside one of its closures).
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self)
    }

    // MARK: - Access

    /// Runs `body` on the queue with the connection (opened first if there is none), waiting
    /// for the queue.
    ///
    /// Stops the process when called from the queue itself: access is not reentrant.
    func sync<T>(_ body: (Connection, State) throws -> T) throws -> T {
        if isCurrent {
            preconditionFailure(
                "WebRecord: a store's \(role) was requested inside one of its own closures (for example a write inside a write). "
                    + "Store access is not reentrant: use the connection the closure was given.")
        }
        return try queue.sync { try onQueue(body) }
    }

    /// Runs `body` on the queue as the calling task's executor, without blocking any thread
    /// while it waits. Cancelling the task interrupts the statement running for it; the
    /// interrupted statement throws SQLite's `SQLITE_INTERRUPT`.
    func run<T: Sendable>(_ body: @escaping @Sendable (Connection, State) throws -> T) async throws -> T {
        let operation = running.withLock { running in
            running.lastOperation &+= 1
            return running.lastOperation
        }
        return try await withTaskCancellationHandler {
            try await executorActor.perform {
                self.running.withLock { $0.current = operation }
                defer {
                    self.running.withLock { running in
                        running.current = 0
                        self.interruptFlag.set(false)
                    }
                }
                // Cancelled while it waited for the queue: it does not start.
                try Task.checkCancellation()
                return try self.onQueue(body)
            }
        } onCancel: {
            // Only while this task's operation runs: not one that ran before or after it.
            running.withLock { running in
                guard running.current == operation else { return }
                interruptFlag.set(true)
                running.handle?.interrupt()
            }
        }
    }

    /// Runs `body` with the connection; the caller is on the queue.
    func onQueue<T>(_ body: (Connection, State) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        if isClosed { throw WebRecordError(.storeError, "the store is closed") }
        let connection = try self.connection ?? opened()
        return try body(connection, state)
    }

    /// Replaces the connection with a newly opened one. The caller is on the queue.
    func reopen() throws(WebRecordError) -> Connection {
        dispatchPrecondition(condition: .onQueue(queue))
        drop()
        return try opened()
    }

    /// Drops the connection; the next access opens a new one. SQLite closes the old one when
    /// the last reference to it goes. The caller is on the queue.
    func drop() {
        dispatchPrecondition(condition: .onQueue(queue))
        running.withLock { $0.handle = nil }
        connection = nil
    }

    /// Drops the connection for good: later access throws a `storeError`.
    ///
    /// - Parameter body: runs first with the connection, if one is open (to checkpoint).
    func close(_ body: (Connection) -> Void = { _ in }) {
        func work() {
            if let connection { body(connection) }
            drop()
            isClosed = true
        }
        if isCurrent { work() } else { queue.sync { work() } }
    }

    private func opened() throws(WebRecordError) -> Connection {
        let connection = try open(state)
        self.connection = connection
        running.withLock { $0.handle = connection.interruptHandle }
        connection.interrupt(while: interruptFlag)
        return connection
    }
}

/// The actor whose executor is a ``ConnectionQueue``: how a task hops onto the queue.
private actor ConnectionActor {
    private unowned let queue: ConnectionQueue

    init(queue: ConnectionQueue) {
        self.queue = queue
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.asUnownedSerialExecutor()
    }

    func perform<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T {
        try body()
    }
}
