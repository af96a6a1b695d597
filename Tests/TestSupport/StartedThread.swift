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

    /// A body that had not ended within the wait's timeout.
    public struct Timeout: Error, CustomStringConvertible {
        /// The seconds waited.
        public var seconds: TimeInterval
        public var description: String { "the thread's body had not ended after \(Int(seconds)) s" }
    }

    /// What the body returned, or the error it threw, once it has ended; waited for on a thread
    /// of its own, not on the task pool's.
    ///
    /// - Throws: ``Timeout`` when the body has not ended after `timeout` seconds (stretched
    ///   under a sanitizer, see ``Sanitizer/bound(_:)``): the test fails rather than hangs.
    public func value(timeout: TimeInterval = MachineLoad.hangTimeout) async throws -> T {
        let limit = Sanitizer.bound(timeout)
        return try await ChildProcess.onThread { [self] in
            let deadline = Date().addingTimeInterval(limit)
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let outcome { return try outcome.get() }
                if !condition.wait(until: deadline) && outcome == nil { throw Timeout(seconds: limit) }
            }
        }
    }
}
