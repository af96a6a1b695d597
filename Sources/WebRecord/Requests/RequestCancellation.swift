import Foundation

/// A registry of the requests in flight by cancellation domain: the scope in which
/// ``RecordStore/cancelRequests(inDomain:)`` cancels.
///
/// A request started with ``RequestOptions/domain`` registers a way to cancel its task in its
/// store's registry while it runs; ``RecordStore/cancelRequests(inDomain:)`` cancels every task
/// registered there under the domain. Every store uses ``shared`` unless its
/// ``RecordStore/Configuration/cancellation`` says otherwise, so that, as with MMRecord's
/// `cancelRequestsWithDomain:`, cancelling a domain through one store cancels the domain's
/// requests on every store. Give stores a registry of their own to keep them apart:
///
/// ```swift
/// var configuration = RecordStore.Configuration()
/// configuration.cancellation = RequestCancellation()   // this store's domains only
/// let store = try RecordStore(path: "cache.sqlite", schema: schema, configuration: configuration)
/// ```
///
/// Stores given the same registry share their domains.
public final class RequestCancellation: Sendable {
    /// The process-wide registry, every store's unless its configuration names another.
    public static let shared = RequestCancellation()

    /// Creates a registry of its own, shared only by the stores it is given to.
    public init() {}

    private struct State {
        var nextID = 0
        var handlers: [String: [Int: @Sendable () -> Void]] = [:]
    }

    private let state = Locked(State())

    /// Registers `cancel` under `domain`.
    ///
    /// - Returns: a token for ``remove(_:domain:)``.
    func register(domain: String, cancel: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.handlers[domain, default: [:]][state.nextID] = cancel
            return state.nextID
        }
    }

    /// Removes a registration once its request has finished.
    func remove(_ token: Int, domain: String) {
        state.withLock { state in
            state.handlers[domain]?[token] = nil
            if state.handlers[domain]?.isEmpty == true { state.handlers[domain] = nil }
        }
    }

    /// Cancels every request registered under `domain`.
    func cancel(domain: String) {
        let handlers = state.withLock { $0.handlers[domain].map { Array($0.values) } ?? [] }
        for cancel in handlers { cancel() }
    }

    /// The number of requests registered under `domain`.
    func count(domain: String) -> Int {
        state.withLock { $0.handlers[domain]?.count ?? 0 }
    }

    /// Runs `operation` in a task registered under `domain`, so that cancelling the domain
    /// cancels it; cancelling the calling task cancels it too. Without a domain, runs it in
    /// the calling task.
    ///
    /// - Throws: what `operation` throws.
    func run<T: Sendable>(
        domain: String?, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let domain else { return try await operation() }
        let task = Task { try await operation() }
        let token = register(domain: domain) { task.cancel() }
        defer { remove(token, domain: domain) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
