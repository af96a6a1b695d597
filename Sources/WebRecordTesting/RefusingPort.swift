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
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw LoopbackError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named =
            bound == 0
            ? withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            } : -1
        guard named == 0 else {
            let text = String(cString: strerror(errno))
            close(fd)
            throw LoopbackError(description: "bind on 127.0.0.1: \(text)")
        }
        socketDescriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(socketDescriptor)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }
}
