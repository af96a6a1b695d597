import Dispatch
import Foundation

/// Keeps a callback observation running: invalidating or releasing it stops the deliveries
/// and releases the observation, as Realm's `NotificationToken` does.
///
/// See ``RecordObservation/start(on:onChange:onError:)``.
public final class ObservationToken: Sendable {
    private let isInvalidated: Locked<Bool>
    private let task: Task<Void, Never>

    init(isInvalidated: Locked<Bool>, task: Task<Void, Never>) {
        self.isInvalidated = isInvalidated
        self.task = task
    }

    /// Stops the deliveries: no callback starts after this returns. Invalidating twice does
    /// nothing more.
    public func invalidate() {
        isInvalidated.withLock { $0 = true }
        task.cancel()
    }

    deinit { invalidate() }
}

extension RecordObservation {
    /// Starts the observation and calls `onChange` on `queue` with each delivery, for code
    /// written in MMRecord's or Realm's block style. Keep the token: releasing it stops the
    /// observation.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = Post.observe(in: store, orderBy: [.descending("date")]).start(on: .main) { results in
    ///     print(results.records.count)
    /// }
    /// // later: token.invalidate()
    /// ```
    ///
    /// The next delivery waits for `onChange` to return: commits made meanwhile are coalesced
    /// into it. Each delivery is handed to `onChange` as a `sending` value, which the block owns.
    ///
    /// - Parameters:
    ///   - queue: where the blocks are called; default the main queue.
    ///   - onChange: called with the initial results, then with each change.
    ///   - onError: called once if the observation fails; nothing is delivered after it.
    /// - Returns: the token that keeps the observation running.
    public func start(
        on queue: DispatchQueue = .main,
        onChange: @escaping @Sendable (sending ObservedResults<RecordClass>) -> Void,
        onError: (@Sendable (WebRecordError) -> Void)? = nil
    ) -> ObservationToken {
        let isInvalidated = Locked(false)
        let task = Task {
            var iterator = makeAsyncIterator()
            do throws(WebRecordError) {
                while let results = try await iterator.next() {
                    // Handed to the queue: this task does not use the delivery again.
                    let delivery = HandOver(results)
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        queue.async {
                            if !isInvalidated.withLock({ $0 }) { onChange(delivery.value) }
                            continuation.resume()
                        }
                    }
                }
            } catch {
                queue.async {
                    if !isInvalidated.withLock({ $0 }) { onError?(error) }
                }
            }
        }
        return ObservationToken(isInvalidated: isInvalidated, task: task)
    }
}
