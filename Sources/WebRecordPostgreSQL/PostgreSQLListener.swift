import Foundation
import WebRecord
internal import WebRecordLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hears every worker's commits to one PostgreSQL store for the observations of this process:
/// a connection of its own that `LISTEN`s on ``PostgreSQLCommitNotice/channel``, on a thread
/// of its own that waits on the connection's socket (`poll`), so that it never holds a thread
/// of the cooperative pool.
///
/// One listener serves every observation of the same database and schema in the process
/// (``subscribe(to:namespace:onChange:onFailure:)``): the first observation starts it, and it
/// stops, closing its connection, when the last one ends. When its connection drops (the server
/// restarted, or ended the session), it reconnects, trying for ``reconnectPeriod``, and then
/// announces an unknown change, since commits made meanwhile were not heard of; when it cannot
/// reconnect, every observation it serves fails with the reason.
///
/// `@unchecked Sendable` is safe: the connection is used only by the listener's thread, and
/// the rest of its state is under its lock.
final class PostgreSQLListener: @unchecked Sendable {
    /// How long a listener whose connection dropped tries to reconnect before its observations
    /// fail.
    static let reconnectPeriod: TimeInterval = 10

    /// The `application_name` of a listener's session, unless the connection URL gives one.
    static let applicationName = "webrecord-listener"

    /// What a listener is for: a database (by its connection text) and a schema in it.
    private struct Key: Hashable {
        var location: String
        var namespace: String
    }

    private enum Phase {
        /// Connecting, or reconnecting after a drop.
        case connecting
        /// Listening: every commit from now on is heard of.
        case listening
        /// Stopped for good, with the reason.
        case failed(WebRecordError)
    }

    private struct State {
        var phase = Phase.connecting
        var handlers: [Int: Handlers] = [:]
        var nextID = 0
        /// The subscriptions waiting for the listener to listen.
        var waiters: [CheckedContinuation<Void, any Error>] = []
        var isStopping = false
    }

    private struct Handlers {
        var onChange: @Sendable (StoreChange) -> Void
        var onFailure: @Sendable (WebRecordError) -> Void
    }

    /// The running listeners, by what they listen for.
    private static let listeners = Locked<[Key: PostgreSQLListener]>([:])

    private let key: Key
    private let info: PostgreSQLConnectionInfo
    private let state = Locked(State())
    /// A pipe whose write end wakes the thread out of `poll` to stop it.
    private let wake: (read: Int32, write: Int32)

    private init(info: PostgreSQLConnectionInfo, namespace: String) throws(WebRecordError) {
        self.info = info
        self.key = Key(location: info.text, namespace: namespace)
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw WebRecordError(
                .storeError, "cannot make a pipe for the listener: \(String(cString: strerror(errno)))")
        }
        wake = (descriptors[0], descriptors[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    // MARK: - Subscribing

    /// Calls `onChange` with every change announced to the store in `namespace` of the database
    /// `info` names, from when this returns, and `onFailure` once if the listener cannot go on.
    ///
    /// - Returns: once the listener listens; cancelling or releasing the subscription ends the
    ///   calls, and the last one stops the listener.
    /// - Throws: `storeError` when the listener cannot connect or listen.
    static func subscribe(
        to info: PostgreSQLConnectionInfo, namespace: String,
        onChange: @escaping @Sendable (StoreChange) -> Void,
        onFailure: @escaping @Sendable (WebRecordError) -> Void
    ) async throws(WebRecordError) -> ChangeFeed.Subscription {
        let key = Key(location: info.text, namespace: namespace)
        let (listener, id) = try listeners.withLock { listeners throws(WebRecordError) in
            let listener: PostgreSQLListener
            if let running = listeners[key] {
                listener = running
            } else {
                listener = try PostgreSQLListener(info: info, namespace: namespace)
                listeners[key] = listener
                listener.start()
            }
            return (listener, listener.add(Handlers(onChange: onChange, onFailure: onFailure)))
        }
        let subscription = ChangeFeed.Subscription { listener.remove(id) }
        do {
            try await listener.waitUntilListening()
        } catch {
            subscription.cancel()
            throw error
        }
        return subscription
    }

    private func add(_ handlers: Handlers) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.handlers[state.nextID] = handlers
            return state.nextID
        }
    }

    /// Ends the calls of the subscription `id`; stops the listener when it was the last.
    private func remove(_ id: Int) {
        Self.listeners.withLock { listeners in
            let isLast = state.withLock { state in
                state.handlers[id] = nil
                guard state.handlers.isEmpty, !state.isStopping else { return false }
                state.isStopping = true
                return true
            }
            guard isLast else { return }
            if listeners[key] === self { listeners[key] = nil }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    /// Returns once the listener listens; throws why it never will.
    private func waitUntilListening() async throws(WebRecordError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: Result<Void, any Error>? = state.withLock { state in
                    switch state.phase {
                    case .listening:
                        return .success(())
                    case .failed(let error):
                        return .failure(error)
                    case .connecting:
                        state.waiters.append(continuation)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } catch {
            throw error as? WebRecordError ?? WebRecordError(.storeError, "\(error)", cause: error)
        }
    }

    // MARK: - The thread

    private func start() {
        let thread = Thread { [self] in run() }
        thread.name = "WebRecord.PostgreSQLListener"
        thread.start()
    }

    /// The thread's work: connect and listen, then hand out every notification until stopped;
    /// reconnect when the connection drops.
    private func run() {
        var connection: OpaquePointer
        do {
            connection = try connect()
        } catch {
            return fail(error)
        }
        becomeListening(afterDrop: false)
        while !isStopping {
            let socket = PQsocket(connection)
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            // A connection without a socket, or a poll that fails, counts as a dropped connection.
            let polled = socket < 0 ? -1 : poll(&descriptors, 2, -1)
            if polled < 0, socket >= 0, errno == EINTR { continue }
            if isStopping { break }
            if polled >= 0, descriptors[0].revents == 0 { continue }
            if polled < 0 || PQconsumeInput(connection) == 0 || PQstatus(connection) != CONNECTION_OK {
                let reason = Self.message(of: connection)
                PQfinish(connection)
                state.withLock { $0.phase = .connecting }
                guard let reconnected = reconnect(after: reason) else { return }
                connection = reconnected
                becomeListening(afterDrop: true)
                continue
            }
            deliverNotifications(on: connection)
        }
        PQfinish(connection)
    }

    private var isStopping: Bool {
        state.withLock { $0.isStopping }
    }

    /// Hands every notification the connection received to the subscribers.
    private func deliverNotifications(on connection: OpaquePointer) {
        while let notification = PQnotifies(connection) {
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            PQfreemem(notification)
            if let change = PostgreSQLCommitNotice.change(fromPayload: payload, namespace: key.namespace) {
                publish(change)
            }
        }
    }

    /// Tries to connect again for up to ``reconnectPeriod``, waiting longer after each failure;
    /// on failure, fails every subscriber.
    ///
    /// - Returns: the new connection, or nil when the listener failed or was stopped.
    private func reconnect(after reason: String) -> OpaquePointer? {
        let deadline = Date().addingTimeInterval(Self.reconnectPeriod)
        var delay = 0.05
        var lastError = WebRecordError(.storeError, info.scrubbed("the connection to \(info) was lost: \(reason)"))
        while !isStopping {
            do {
                return try connect()
            } catch {
                lastError = error
            }
            guard Date() < deadline else { break }
            // Sleeps on the wake pipe, so that stopping does not wait for the delay.
            var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            let wait = max(0, min(delay, deadline.timeIntervalSinceNow))
            _ = poll(&descriptor, 1, Int32(wait * 1000) + 1)
            delay = min(delay * 2, 2)
        }
        if !isStopping {
            fail(
                WebRecordError(
                    .storeError,
                    info.scrubbed(
                        "the observation lost its connection to \(info) and could not reconnect within "
                            + "\(Int(Self.reconnectPeriod)) seconds: \(lastError.message)"),
                    cause: lastError))
        }
        return nil
    }

    // MARK: - The connection

    /// A new connection to the database, listening on ``PostgreSQLCommitNotice/channel``.
    private func connect() throws(WebRecordError) -> OpaquePointer {
        let keywords = ["dbname", "fallback_application_name"]
        let values = [info.text, Self.applicationName]
        let keywordPointers = keywords.map { strdup($0) }
        let valuePointers = values.map { strdup($0) }
        defer {
            for pointer in keywordPointers + valuePointers { free(pointer) }
        }
        let connection = (keywordPointers.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywords in
            (valuePointers.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { values in
                // The connection text is read as a whole URL or conninfo string (expand_dbname).
                PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
            }
        }
        guard let connection else {
            throw WebRecordError(.storeError, "cannot connect to \(info): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK, PQsetClientEncoding(connection, "UTF8") == 0 else {
            let reason = Self.message(of: connection)
            PQfinish(connection)
            throw WebRecordError(.storeError, info.scrubbed("cannot connect to \(info) to observe: \(reason)"))
        }
        // What the server says outside a statement (why it ends the session) is the listener's
        // to handle, not to print.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        let result = PQexec(connection, "LISTEN \(PostgreSQLCommitNotice.channel)")
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            let reason = Self.message(of: connection)
            PQfinish(connection)
            throw WebRecordError(.storeError, info.scrubbed("cannot listen for changes on \(info): \(reason)"))
        }
        return connection
    }

    private static func message(of connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Telling the subscribers

    /// The listener listens: the subscriptions waiting for it go on. After a drop, commits may
    /// have been missed, and every subscriber is told of an unknown change.
    private func becomeListening(afterDrop: Bool) {
        let waiters = state.withLock { state in
            state.phase = .listening
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        if afterDrop { publish(.unknown) }
    }

    private func publish(_ change: StoreChange) {
        let handlers = state.withLock { Array($0.handlers.values) }
        for handler in handlers { handler.onChange(change) }
    }

    /// Stops for good: the waiting subscriptions throw `error`, every subscriber's `onFailure`
    /// is called with it, and a later subscription starts a new listener.
    private func fail(_ error: WebRecordError) {
        let (waiters, handlers) = state.withLock { state in
            state.phase = .failed(error)
            defer { state.waiters = [] }
            return (state.waiters, Array(state.handlers.values))
        }
        Self.listeners.withLock { listeners in
            if listeners[key] === self { listeners[key] = nil }
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        for handler in handlers { handler.onFailure(error) }
    }
}
