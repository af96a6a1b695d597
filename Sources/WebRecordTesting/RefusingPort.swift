import Foundation

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

/// A port on 127.0.0.1 that refuses every connection, and that no other socket can take while
/// this one holds it: bound, never listening.
///
/// Stopping a ``LoopbackHTTPServer`` to get a refused port races with the other tests, whose
/// servers may be given that very port before the connection is tried; a port held this way is
/// refused until the holder is freed.
public final class RefusingPort: Sendable {
    /// The port, in host byte order.
    public let port: UInt16
    private let socketDescriptor: Int32

    /// Binds a socket to an ephemeral port of 127.0.0.1, without `SO_REUSEADDR` and without
    /// listening on it.
    public init() throws {
        (socketDescriptor, port) = try loopbackSocket(reusingAddress: false, listening: false)
    }

    deinit {
        close(socketDescriptor)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }
}
