import Foundation

/// A connection that one thread at a time may use.
///
/// `@unchecked Sendable` is safe here: the connection is reachable only through
/// ``withConnection(_:)``, which holds the lock for the whole call. The lock is recursive so a
/// closure that reads while it writes, on the same thread, does not deadlock.
final class SerializedConnection: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private let connection: Connection

    init(_ connection: Connection) {
        self.connection = connection
    }

    func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}
