import Foundation
import WebRecord

/// A ``LogHandler`` that keeps every event in memory, for tests.
///
/// WebRecord's logging level and handler are global, and tests run in parallel: use
/// ``capture(level:_:)``, which installs a fresh handler and level for the duration of its body
/// and serializes with every other capture in the process, then restores what was there.
///
/// For example:
///
/// ```swift
/// let (_, events) = try await InMemoryLogHandler.capture(level: .all) {
///     try await store.startRequest(entity: "Post", urn: "posts")
/// }
/// #expect(!events.contains { $0.description.contains("secret-token") })
/// ```
public final class InMemoryLogHandler: LogHandler {
    private let stored = Locked<[LogEvent]>([])

    /// Creates an empty handler.
    public init() {}

    /// Keeps the event.
    public func log(event: LogEvent) {
        stored.withLock { $0.append(event) }
    }

    /// Every event kept, in order.
    public var events: [LogEvent] { stored.withLock { $0 } }

    /// The messages of the events kept, in order.
    public var messages: [String] { events.map(\.message) }

    /// Forgets the events kept so far.
    public func removeAll() {
        stored.withLock { $0.removeAll() }
    }

    /// Runs `body` with a fresh in-memory handler installed at `level`, then restores the
    /// previous handler and level.
    ///
    /// Captures are serialized process-wide, so two tests capturing at once do not see each
    /// other's settings. Code that logs from other tasks during the capture (other tests
    /// running in parallel) may still add events: filter them by what your test logs.
    ///
    /// - Parameters:
    ///   - level: the ``Record/loggingLevel`` during the capture; `.none` logs nothing.
    ///   - body: the code to run.
    /// - Returns: what `body` returns, and the events logged while it ran. The value need not
    ///   be `Sendable` (records, a ``RequestResult``): it is handed to the caller.
    /// - Throws: what `body` throws, after restoring the previous settings.
    public static func capture<T>(
        level: LogLevel?, _ body: @Sendable () async throws -> sending T
    ) async throws -> sending (T, [LogEvent]) {
        await CaptureLock.shared.acquire()
        let handler = InMemoryLogHandler()
        let previousHandler = Record.logHandler
        let previousLevel = Record.loggingLevel
        Record.logHandler = handler
        Record.loggingLevel = level
        func restore() async {
            Record.loggingLevel = previousLevel
            Record.logHandler = previousHandler
            await CaptureLock.shared.release()
        }
        do {
            let value = try await body()
            await restore()
            return (value, handler.events)
        } catch {
            await restore()
            throw error
        }
    }
}

/// A process-wide asynchronous lock for ``InMemoryLogHandler/capture(level:_:)``.
private actor CaptureLock {
    static let shared = CaptureLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
