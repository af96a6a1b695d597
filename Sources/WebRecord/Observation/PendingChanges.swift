import Dispatch
import Foundation

/// The commits an observation has not looked at yet, merged into one change, and the wait for
/// the next one.
///
/// The store's ``ChangeFeed`` adds to it from the thread that committed; the observation takes
/// the merged change when it is ready for it. However many commits arrive while the consumer
/// is busy, what is kept is one change: the union of the tables and rows they touched (or
/// ``StoreChange/unknown``), so nothing is buffered without bound. A database that can no
/// longer hear of commits fails it (``fail(_:)``), which also ends the wait.
final class PendingChanges: Sendable {
    private struct State {
        var change: StoreChange?
        var failure: WebRecordError?
        var waiter: CheckedContinuation<Void, Never>?
        /// Which wait a timer belongs to, so that a late timer does not end a later wait.
        var wait = 0
        var isCancelled = false
    }

    private let state = Locked(State())
    /// The tables the observation depends on; changes elsewhere are dropped.
    private let region: Set<String>

    init(region: Set<String>) {
        self.region = region
    }

    /// Adds a committed change, if it touches the region, and wakes the wait.
    func add(_ change: StoreChange) {
        guard change.touches(region) else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.change = Self.merge(state.change, change)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Records that commits can no longer be heard of, and wakes the wait. The first failure
    /// is kept.
    func fail(_ error: WebRecordError) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.failure == nil { state.failure = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Why commits can no longer be heard of, if they cannot.
    var failure: WebRecordError? {
        state.withLock { $0.failure }
    }

    /// Takes the merged change, leaving none pending.
    func take() -> StoreChange? {
        state.withLock { state in
            defer { state.change = nil }
            return state.change
        }
    }

    /// Waits until a change is pending, `timeout` has passed, the task is cancelled, or a
    /// failure is recorded.
    ///
    /// - Returns: whether a change is pending.
    func wait(timeout: Duration) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait: Int? = state.withLock { state in
                    guard state.change == nil, state.failure == nil, !state.isCancelled else { return nil }
                    state.wait += 1
                    state.waiter = continuation
                    return state.wait
                }
                guard let wait else { return continuation.resume() }
                let nanoseconds =
                    timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                    wake(wait)
                }
            }
        } onCancel: {
            cancel()
        }
        return state.withLock { $0.change != nil }
    }

    /// Ends the wait `wait` if it is still the current one.
    private func wake(_ wait: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.wait == wait else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends any wait, now and later: the observation is over.
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isCancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Two changes as one: an unknown change covers everything; a table whose rows are unknown
    /// in either stays unknown.
    private static func merge(_ old: StoreChange?, _ new: StoreChange) -> StoreChange {
        guard let old else { return new }
        switch (old, new) {
        case (.tables(var tables), .tables(let more)):
            for (table, rows) in more {
                switch (tables[table], rows) {
                case (.none, _): tables[table] = rows
                case (.some(.some(let known)), .some(let added)): tables[table] = .some(known.union(added))
                default: tables[table] = .some(nil)
                }
            }
            return .tables(tables)
        default:
            return .unknown
        }
    }
}
