import Foundation

/// A value that threads share under a lock: `Mutex`'s shape on a `pthread` mutex.
///
/// WebRecord uses this rather than the standard library's `Synchronization.Mutex` because the
/// Thread Sanitizer cannot see `Mutex` on Linux: it locks with futexes inside the
/// uninstrumented standard library, so every access it protects is reported as a race, and
/// `swift test --sanitize=thread` could not tell a real race from those. `NSLock` is a
/// `pthread_mutex_t`, which the sanitizer intercepts. The cost is one allocation per lock,
/// made once per store, server or debugger.
///
/// `@unchecked Sendable` is safe: the value is only reached inside ``withLock(_:)``, under the
/// lock. Values taken out of it must be `Sendable` or copied, as with `Mutex`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Creates the lock around `initialValue`.
    package init(_ initialValue: Value) {
        value = initialValue
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
