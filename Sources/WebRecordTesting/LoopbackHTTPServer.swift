import Foundation
import Synchronization
import WebRecord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real HTTP/1.1 server on `127.0.0.1`, on an ephemeral port, with programmable routes.
///
/// Tests run ``HTTPServer`` against it instead of mocking URLSession: every request crosses a
/// real socket. Each route answers with a sequence of ``LoopbackResponse``s (the last one
/// repeats), which can set the status, headers and body, wait before answering, send a
/// truncated body or redirect. Every request the server saw is logged for assertions.
///
/// For example:
///
/// ```swift
/// let server = try LoopbackHTTPServer()
/// server.route("/posts", .json(#"{"data": []}"#))
/// server.route("/busy", [.status(503, headers: ["Retry-After": "0"]), .json("[]")])
/// let client = HTTPServer(baseURL: server.baseURL)
/// _ = try await client.response(for: ServerRequest(urn: "busy", entityName: "Post"))
/// #expect(server.requests(to: "/busy").count == 2)
/// ```
///
/// The server accepts connections on one background thread and answers each on a thread of
/// its own, closing the connection after each response (`Connection: close`). ``stop()``, or
/// releasing the server, closes the listening socket; threads still answering finish within a
/// fraction of a second, and none of them keeps the process from exiting.
///
/// Tests wait for events rather than for time: ``requests`` shows a request has arrived, and
/// ``answered`` that its response has gone (so a delayed response can no longer come later).
public final class LoopbackHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: UInt16
    private let core: LoopbackCore

    /// Starts a server on `127.0.0.1` and an ephemeral port.
    ///
    /// - Throws: ``LoopbackError`` when the socket cannot be created, bound or listened on.
    public init() throws {
        let core = try LoopbackCore()
        self.core = core
        self.port = core.port
        core.startAccepting()
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:PORT/`.
    public var baseURL: URL {
        // The text is a well-formed URL by construction.
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// The URL of a path on this server, such as `url("/posts?page=2")`.
    public func url(_ path: String) -> URL {
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return URL(string: relative, relativeTo: baseURL)?.absoluteURL ?? baseURL
    }

    /// Answers requests to `path` (the path only, without the query) with `responses`, one
    /// per request in order; the last response repeats once the others are used up.
    ///
    /// - Parameters:
    ///   - path: the path, such as `/posts`. A path without a leading slash gets one.
    ///   - method: the method to match, or nil for any.
    ///   - responses: the responses, at least one.
    public func route(_ path: String, method: String? = nil, _ responses: [LoopbackResponse]) {
        core.setRoute(LoopbackRoute(method: method?.uppercased(), responses: responses), for: Self.normalized(path))
    }

    /// Answers every request to `path` with `response`.
    ///
    /// - Parameters:
    ///   - path: the path, such as `/posts`.
    ///   - method: the method to match, or nil for any.
    ///   - response: the response.
    public func route(_ path: String, method: String? = nil, _ response: LoopbackResponse) {
        route(path, method: method, [response])
    }

    /// Every request the server has read, in the order they arrived.
    public var requests: [LoopbackRequest] { core.requestLog }

    /// The requests whose path is `path`.
    public func requests(to path: String) -> [LoopbackRequest] {
        let path = Self.normalized(path)
        return requests.filter { $0.path == path }
    }

    /// Every request the server has finished answering, in the order the answers ended: its
    /// response was sent after the response's delay, or the client had closed the connection
    /// by then.
    public var answered: [LoopbackRequest] { core.answeredLog }

    /// The requests to `path` that the server has finished answering.
    public func answered(to path: String) -> [LoopbackRequest] {
        let path = Self.normalized(path)
        return answered.filter { $0.path == path }
    }

    /// Stops listening, and returns once the listening socket is closed: from then on, new
    /// connections are refused. Connections being answered finish at once: a response still
    /// waiting out its delay is sent now, and then counts among ``answered``. (A test shows so
    /// that an answer coming after a cancellation changes nothing.)
    public func stop() {
        core.stop()
    }

    private static func normalized(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}

/// One response a ``LoopbackHTTPServer`` route gives.
public struct LoopbackResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers. `Content-Length` and `Connection` are added by the server.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]
    /// How long to wait before answering, in seconds.
    public var delay: TimeInterval
    /// When set, only this many bytes of the body are sent, while `Content-Length` announces
    /// the whole body; then the connection is closed.
    public var truncatedLength: Int?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the headers.
    ///   - body: the body bytes.
    ///   - delay: seconds to wait before answering.
    ///   - truncatedLength: send only this many body bytes (see ``truncatedLength``).
    public init(
        status: Int = 200, headers: [String: String] = [:], body: [UInt8] = [], delay: TimeInterval = 0,
        truncatedLength: Int? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.truncatedLength = truncatedLength
    }

    /// A JSON body with `Content-Type: application/json`.
    ///
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - status: the status code; default 200.
    ///   - headers: extra headers.
    ///   - delay: seconds to wait before answering.
    public static func json(
        _ text: String, status: Int = 200, headers: [String: String] = [:], delay: TimeInterval = 0
    ) -> LoopbackResponse {
        var all = ["Content-Type": "application/json"]
        all.merge(headers) { _, new in new }
        return LoopbackResponse(status: status, headers: all, body: Array(text.utf8), delay: delay)
    }

    /// A body of any content type.
    ///
    /// - Parameters:
    ///   - text: the body text.
    ///   - contentType: the `Content-Type`, or nil to send none.
    ///   - status: the status code; default 200.
    public static func text(_ text: String, contentType: String? = "text/plain", status: Int = 200) -> LoopbackResponse
    {
        LoopbackResponse(
            status: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Array(text.utf8))
    }

    /// A status with a short JSON error body.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: extra headers, such as `Retry-After`.
    public static func status(_ status: Int, headers: [String: String] = [:]) -> LoopbackResponse {
        json(#"{"error": "status \#(status)"}"#, status: status, headers: headers)
    }

    /// A redirect to `location` (a path or an absolute URL).
    ///
    /// - Parameters:
    ///   - location: where to go.
    ///   - status: the redirect status; default 302.
    public static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Location": location])
    }
}

/// One request a ``LoopbackHTTPServer`` read.
public struct LoopbackRequest: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query, without the `?`, or nil when there was none.
    public var query: String?
    /// The headers, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// The value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The query items, percent-decoded, in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// An error starting a ``LoopbackHTTPServer``.
public struct LoopbackError: Error, Sendable, CustomStringConvertible {
    /// What failed, with `errno`'s text.
    public var description: String
}

// MARK: - Implementation

struct LoopbackRoute: Sendable {
    var method: String?
    var responses: [LoopbackResponse]
    var served = 0
}

/// The listening socket, the routes and the log, shared by the server threads.
final class LoopbackCore: Sendable {
    private struct State {
        var routes: [String: LoopbackRoute] = [:]
        var log: [LoopbackRequest] = []
        var answered: [LoopbackRequest] = []
    }

    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())
    private let stopped = Atomic<Bool>(false)
    /// Signalled once the accept thread has closed the listening socket.
    private let closed = DispatchSemaphore(value: 0)

    init() throws {
        (listener, port) = try loopbackSocket(reusingAddress: true, listening: true)
    }

    var requestLog: [LoopbackRequest] { state.withLock { $0.log } }

    var answeredLog: [LoopbackRequest] { state.withLock { $0.answered } }

    func setRoute(_ route: LoopbackRoute, for path: String) {
        state.withLock { $0.routes[path] = route }
    }

    func startAccepting() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    func stop() {
        if !stopped.exchange(true, ordering: .sequentiallyConsistent) {
            // shutdown wakes the thread blocked in accept(); it then closes the socket. Where
            // shutdown leaves a listening socket as it was, a connection wakes it instead.
            #if canImport(Darwin)
                _ = shutdown(listener, SHUT_RDWR)
            #else
                _ = shutdown(listener, Int32(SHUT_RDWR))
            #endif
            knock()
        }
        // The accept thread closes the socket at once; the timeout only keeps a stop from
        // hanging should that thread never run.
        if closed.wait(timeout: .now() + 10) == .success {
            closed.signal()
        }
    }

    /// Connects to the listening socket and hangs up, to wake a thread blocked in accept().
    private func knock() {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                break
            }
            if isStopped {
                close(connection)
                break
            }
            let thread = Thread { [self] in serve(connection) }
            thread.name = "LoopbackHTTPServer.connection"
            thread.start()
        }
        close(listener)
        closed.signal()
    }

    // MARK: Connections

    private func serve(_ fd: Int32) {
        var answered: LoopbackRequest?
        defer {
            close(fd)
            if let answered { state.withLock { $0.answered.append(answered) } }
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            var yes: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard let request = readRequest(fd) else { return }
        let response = state.withLock { state -> LoopbackResponse in
            state.log.append(request)
            guard var route = state.routes[request.path], route.method.map({ $0 == request.method }) ?? true,
                !route.responses.isEmpty
            else {
                return .json(#"{"error": "no route for \#(request.method) \#(request.path)"}"#, status: 404)
            }
            let response = route.responses[min(route.served, route.responses.count - 1)]
            route.served += 1
            state.routes[request.path] = route
            return response
        }
        if response.delay > 0 {
            let deadline = Date().addingTimeInterval(response.delay)
            while Date() < deadline, !isStopped {
                usleep(10_000)
            }
        }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        bytes += response.body.prefix(response.truncatedLength ?? response.body.count)
        sendAll(fd, bytes)
        answered = request
    }

    private func readRequest(_ fd: Int32) -> LoopbackRequest? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            guard let chunk = receive(fd) else { return nil }
            buffer += chunk
            headerEnd = Self.find(separator, in: buffer)
            if buffer.count > 1 << 20 { return nil }
        }
        guard let end = headerEnd else { return nil }
        let headText = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        var body = Array(buffer[(end + 4)...])
        while body.count < length {
            guard let chunk = receive(fd) else { break }
            body += chunk
        }
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return LoopbackRequest(
            method: String(requestLine[0]), path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
            headers: headers, body: body)
    }

    private func receive(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(chunk[..<count])
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}

/// A TCP socket bound to an ephemeral port of 127.0.0.1, listening or not, and its port.
///
/// - Parameter reusingAddress: whether to set `SO_REUSEADDR`; a socket without it keeps the
///   port from every other socket while it is open.
func loopbackSocket(reusingAddress: Bool, listening: Bool) throws -> (descriptor: Int32, port: UInt16) {
    #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    let errorText = { String(cString: strerror(errno)) }
    guard fd >= 0 else { throw LoopbackError(description: "socket: \(errorText())") }
    if reusingAddress {
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0, !listening || listen(fd, 64) == 0 else {
        let text = errorText()
        close(fd)
        throw LoopbackError(description: "bind/listen on 127.0.0.1: \(text)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
        let text = errorText()
        close(fd)
        throw LoopbackError(description: "getsockname: \(text)")
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}
