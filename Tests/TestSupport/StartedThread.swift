import Foundation

/// A body running on a thread of its own from the moment it is made. A `Task` starts when one
/// of the task pool's few threads is free, which, under a full test run, can be seconds later;
/// a test whose timing matters (a lock another worker must take at once) starts it here.
public final class StartedThread<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Result<T, any Error>?

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// What the body returned, or the error it threw, once it has ended; waited for on a thread
    /// of its own, not on the task pool's.
    public func value() async throws -> T {
        try await ChildProcess.onThread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let outcome { return try outcome.get() }
                condition.wait()
            }
        }
    }
}
