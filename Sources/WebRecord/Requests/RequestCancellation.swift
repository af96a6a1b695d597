import Foundation

/// The shared registry of requests in flight by cancellation domain.
///
/// A request started with a domain registers a way to cancel its task here while it runs;
/// ``Server/cancelRequests(inDomain:)`` and ``RecordStore/cancelRequests(inDomain:)`` cancel
/// every task registered under the domain.
final class RequestCancellation: Sendable {
    /// The registry every request uses.
    static let shared = RequestCancellation()

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
