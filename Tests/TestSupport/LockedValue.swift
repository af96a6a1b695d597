import WebRecord

extension Locked {
    /// The value, read or replaced whole under the lock.
    ///
    /// Each read and each write takes the lock once, so `value += 1` is a read and a write that
    /// another thread can come between: change a value in place with `withLock(_:)`.
    package var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
