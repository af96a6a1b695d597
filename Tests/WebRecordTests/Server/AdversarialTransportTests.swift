import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 for answers `LoopbackHTTPServer` cannot give: chunked
/// bodies, bodies that stall or trickle, wrong encodings, a connection closed mid-body. Each
/// route is a list of byte segments sent in order, each optionally followed by a pause; the
/// connection is closed after the last one. Every request's path and headers are logged.
final class RawHTTPServer: @unchecked Sendable {
    struct Segment {
        var bytes: [UInt8]
        var pauseAfter: Double = 0
    }

    static let script = #"""
        import base64, json, os, signal, socket, sys, threading, time
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

        def watch_stdin():
            sys.stdin.buffer.read()
            os._exit(0)

        threading.Thread(target=watch_stdin, daemon=True).start()
        routes = json.load(open(sys.argv[1]))
        log_path = sys.argv[2]
        lock = threading.Lock()
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)

        def serve(conn):
            try:
                conn.settimeout(10)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
                lines = head.split("\r\n")
                path = lines[0].split(" ")[1].split("?")[0]
                headers = [l.split(":", 1)[0].strip() + ":" + l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l]
                with lock:
                    with open(log_path, "a") as log:
                        log.write(json.dumps({"path": path, "headers": headers}) + "\n")
                segments = routes.get(path, [{"b": base64.b64encode(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").decode(), "p": 0}])
                for segment in segments:
                    conn.sendall(base64.b64decode(segment["b"]))
                    if segment["p"] > 0:
                        time.sleep(segment["p"])
            except Exception:
                pass
            finally:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except Exception:
                    pass
                conn.close()

        while True:
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
        """#

    let port: Int
    private let process: Process
    private let directory: TemporaryDirectory
    private let logPath: String
    private let input = Pipe()

    init(routes: [String: [Segment]]) throws {
        directory = try TemporaryDirectory()
        let scriptPath = directory.path("server.py")
        let routesPath = directory.path("routes.json")
        logPath = directory.path("requests.log")
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        var table: [String: [[String: Any]]] = [:]
        for (path, segments) in routes {
            table[path] = segments.map { ["b": Data($0.bytes).base64EncodedString(), "p": $0.pauseAfter] }
        }
        try JSONSerialization.data(withJSONObject: table).write(to: URL(fileURLWithPath: routesPath))
        FileManager.default.createFile(atPath: logPath, contents: Data())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptPath, routesPath, logPath]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        self.process = process
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw WebRecordError(.invalidArgument, "the raw HTTP server did not start")
        }
        self.port = port
    }

    deinit {
        // Closing its input ends the script, whatever signals it was started with.
        try? input.fileHandleForWriting.close()
        process.terminate()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The header lines ("Name:value") of every request to `path`, in arrival order.
    func requests(to path: String) -> [[String]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["path"] as? String == path
            else { return nil }
            return object["headers"] as? [String] ?? []
        }
    }

    /// A complete response head.
    static func head(_ headers: [String], status: String = "200 OK") -> [UInt8] {
        Array(("HTTP/1.1 \(status)\r\n" + headers.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n").utf8)
    }

    /// `bytes` as chunks of the given sizes, cycling through them, with the last chunk.
    static func chunked(_ bytes: [UInt8], sizes: [Int], terminated: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = min(sizes[index % sizes.count], bytes.count - offset)
            out += Array(String(size, radix: 16).utf8) + [13, 10] + bytes[offset..<(offset + size)] + [13, 10]
            offset += size
            index += 1
        }
        if terminated { out += Array("0\r\n\r\n".utf8) }
        return out
    }
}

/// HTTPServer and the request layer against responses that are malformed, partial, slow or
/// misleading, and against servers of the application's own: a failed or partial response
/// fails with a clear error and leaves the store exactly as it was; a complete one stores
/// exactly what the server sent.
@Suite(.measuresTime, .serialized) struct AdversarialTransportTests {
    let store: RecordStore
    let directory: TemporaryDirectory

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
    }

    /// The body the store is seeded with before every failing request.
    static let seedBody = RequestSupport.postsText([1, 2], prefix: "seeded")
    /// The body a failing request would have stored.
    static let newBody = RequestSupport.postsText([1, 2, 3, 4], prefix: "new")

    /// Every post and user, as JSON, to compare the store before and after a request.
    func snapshot() throws -> String {
        try store.exportJSON(entity: "Post").serialized() + "|" + store.exportJSON(entity: "User").serialized()
    }

    /// Seeds the store with two posts through a request of its own.
    func seed() async throws {
        let canned = CannedServer()
        canned.enqueue(try JSONReader().read(Data(Self.seedBody.utf8)))
        _ = try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: canned))
        #expect(try store.count("Post") == 2)
    }

    /// Seeds the store, runs a request through `server` that must fail, and checks the store is
    /// unchanged. Returns the error.
    func failingRequest(
        _ server: any Server, urn: String = "posts", timeout: TimeInterval? = nil
    ) async throws -> WebRecordError? {
        try await seed()
        let before = try snapshot()
        var options = RequestOptions(server: server)
        options.timeout = timeout
        let error = await RequestSupport.error {
            _ = try await store.startRequest(entity: "Post", urn: urn, options: options)
        }
        #expect(try snapshot() == before, "a failed request leaves the store exactly as it was")
        return error
    }

    /// Runs a request that must succeed and checks the store holds exactly `body`'s posts.
    func succeedingRequest(_ server: any Server, urn: String = "posts", expecting body: String) async throws {
        let result = try await store.startRequest(entity: "Post", urn: urn, options: RequestOptions(server: server))
        let expected = try JSONReader().read(Data(body.utf8))
        let posts = expected["data"]?.arrayValue ?? []
        #expect(result.records.count == posts.count)
        #expect(try store.count("Post") == posts.count)
        for post in posts {
            let id = try #require(post["id"])
            let stored = try #require(try store.fetchOne("Post", primaryKey: id))
            let text: String? = stored["text"]
            #expect(text == post["text"]?.stringValue)
        }
    }

    // MARK: - Bodies

    @Test func aChunkedBodyWithOddChunkSizesIsStoredExactly() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head(["Content-Type: application/json", "Transfer-Encoding: chunked"])
                        + RawHTTPServer.chunked(body, sizes: [1, 7, 3, 255, 2, 16, 1]))
            ]
        ])
        try await succeedingRequest(HTTPServer(baseURL: raw.baseURL), expecting: Self.newBody)
    }

    @Test func aChunkedBodyWhoseConnectionClosesBeforeTheLastChunkFailsAndStoresNothing() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head(["Content-Type: application/json", "Transfer-Encoding: chunked"])
                        + RawHTTPServer.chunked(Array(body.prefix(body.count / 2)), sizes: [5, 11]))
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
        #expect(error?.message.contains("cut short") == true, "\(String(describing: error))")
    }

    /// The chunks hold the whole JSON document, but the connection closes before the last
    /// (zero-length) chunk: the message is incomplete, and the rule says a body cut short fails.
    @Test func aChunkedBodyMissingOnlyItsLastChunkIsCutShort() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head(["Content-Type: application/json", "Transfer-Encoding: chunked"])
                        + RawHTTPServer.chunked(body, sizes: [64], terminated: false))
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
        #expect(error?.message.contains("cut short") == true, "\(String(describing: error))")
    }

    @Test func aValidGzipBodyInChunksIsStoredExactly() async throws {
        let gzip = CompressedBodies.gzip(Array(Self.newBody.utf8))
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head([
                        "Content-Type: application/json", "Content-Encoding: gzip", "Transfer-Encoding: chunked",
                    ]) + RawHTTPServer.chunked(gzip, sizes: [3, 10, 1]))
            ]
        ])
        try await succeedingRequest(HTTPServer(baseURL: raw.baseURL), expecting: Self.newBody)
    }

    @Test func aGzipBodyCutShortBeforeItsContentLengthFailsAndStoresNothing() async throws {
        let gzip = CompressedBodies.gzip(Array(Self.newBody.utf8))
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head([
                        "Content-Type: application/json", "Content-Encoding: gzip", "Content-Length: \(gzip.count)",
                    ]) + gzip.prefix(gzip.count / 2))
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
        #expect(error?.message.contains("of \(gzip.count) (Content-Length)") == true, "\(String(describing: error))")
    }

    /// The gzip stream itself stops half way, while the HTTP message is complete (its
    /// Content-Length is the bytes sent): what inflates is half a document, which must fail.
    @Test func aTruncatedGzipStreamInACompleteMessageFailsAndStoresNothing() async throws {
        let gzip = CompressedBodies.gzip(Array(Self.newBody.utf8))
        let half = Array(gzip.prefix(gzip.count / 2))
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head([
                        "Content-Type: application/json", "Content-Encoding: gzip", "Content-Length: \(half.count)",
                    ]) + half)
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
    }

    /// A zlib stream (`Content-Encoding: deflate`) of stored blocks, with its Adler-32.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let size = min(data.count - offset, 65_535)
            bytes.append(offset + size == data.count ? 1 : 0)
            bytes += [UInt8(size & 0xFF), UInt8(size >> 8), UInt8(~size & 0xFF), UInt8((~size >> 8) & 0xFF)]
            bytes += data[offset..<(offset + size)]
            offset += size
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        let adler = (b << 16) | a
        return bytes + [
            UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF),
        ]
    }

    @Test func aValidDeflateBodyIsStoredExactly() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/posts",
            LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "deflate"],
                body: Self.zlib(Array(Self.newBody.utf8))))
        try await succeedingRequest(HTTPServer(baseURL: loopback.baseURL), expecting: Self.newBody)
    }

    /// `Content-Encoding: gzip` on a plain JSON body whose every byte arrived. It must fail
    /// (the body cannot be decoded), and the error must not claim the body was cut short
    /// before its Content-Length: all of its bytes came.
    @Test func aBodyWithAWrongContentEncodingFailsWithoutClaimingItWasCutShort() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head([
                        "Content-Type: application/json", "Content-Encoding: gzip", "Content-Length: \(body.count)",
                    ]) + body)
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error != nil)
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
        #expect(error?.message.contains("cut short") == false, "\(String(describing: error))")
    }

    @Test func aBodyLongerThanItsContentLengthStoresOnlyTheAnnouncedBytes() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head(["Content-Type: application/json", "Content-Length: \(body.count)"])
                        + body + Array(#"{"data": [{"id": 99}]}"#.utf8))
            ]
        ])
        try await succeedingRequest(HTTPServer(baseURL: raw.baseURL), expecting: Self.newBody)
    }

    /// The body stops half way and the connection stays open: the attempt's timeout ends it.
    @Test func aBodyThatStallsTimesOutAndStoresNothing() async throws {
        let body = Array(Self.newBody.utf8)
        let raw = try RawHTTPServer(routes: [
            "/posts": [
                .init(
                    bytes: RawHTTPServer.head(["Content-Type: application/json", "Content-Length: \(body.count)"])
                        + body.prefix(body.count / 2), pauseAfter: 60)
            ]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL), timeout: 0.5)
        #expect(error?.code == .serverError, "\(String(describing: error))")
        #expect((error?.cause as? TransportError)?.code == -1001)
        #expect(error?.message.contains("within 0.50 s") == true, "\(String(describing: error))")
    }

    /// A byte every 0.1 s never leaves the connection idle, but the timeout bounds the whole
    /// attempt, "from sending the request to the last byte of the body".
    @Test func aTrickledBodyTimesOutAlthoughBytesKeepComing() async throws {
        let body = Array(Self.newBody.utf8)
        var segments = [
            RawHTTPServer.Segment(
                bytes: RawHTTPServer.head(["Content-Type: application/json", "Content-Length: \(body.count)"]))
        ]
        segments += body.map { RawHTTPServer.Segment(bytes: [$0], pauseAfter: 0.1) }
        let raw = try RawHTTPServer(routes: ["/posts": segments])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL), timeout: 1.5)
        #expect(error?.code == .serverError, "\(String(describing: error))")
        #expect((error?.cause as? TransportError)?.code == -1001)
        #expect(error?.message.contains("within 1.50 s") == true, "\(String(describing: error))")
    }

    @Test func aUTF8ByteOrderMarkIsRejectedAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/posts",
            LoopbackResponse(
                headers: ["Content-Type": "application/json; charset=utf-8"],
                body: [0xEF, 0xBB, 0xBF] + Array(Self.newBody.utf8)))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
        #expect(error?.jsonSyntax == .unexpectedCharacter, "\(String(describing: error))")
        #expect(error?.offset == 0, "\(String(describing: error))")
    }

    @Test func aUTF16BodyIsRejectedWhateverItsCharsetAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        let utf16 = Array(Self.newBody.data(using: .utf16LittleEndian)!)
        loopback.route(
            "/posts", LoopbackResponse(headers: ["Content-Type": "application/json; charset=utf-16le"], body: utf16))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
    }

    @Test func anEmpty200BodyIsInvalidAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", LoopbackResponse(headers: ["Content-Type": "application/json"], body: []))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
    }

    @Test func anEmpty200BodyWithoutAContentTypeIsInvalidAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", LoopbackResponse(headers: [:], body: []))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
    }

    @Test func a304IsAServerErrorWithItsStatusAndStoresNothing() async throws {
        let raw = try RawHTTPServer(routes: [
            "/posts": [.init(bytes: RawHTTPServer.head(["ETag: \"x\""], status: "304 Not Modified"))]
        ])
        let error = try await failingRequest(HTTPServer(baseURL: raw.baseURL))
        #expect(error?.code == .serverError, "\(String(describing: error))")
        #expect(error?.httpStatus == 304, "\(String(describing: error))")
    }

    // MARK: - Status and redirects

    @Test func a401IsAServerErrorNotRetriedAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", .json(#"{"error": "bad token"}"#, status: 401))
        let error = try await failingRequest(
            HTTPServer(baseURL: loopback.baseURL, headers: ["Authorization": "Bearer sekrit-token-1"]))
        #expect(error?.code == .serverError)
        #expect(error?.httpStatus == 401)
        #expect(loopback.requests(to: "/posts").count == 1)
    }

    @Test func a429ThenA200IsRetriedAndStoresExactlyTheSecondAnswer() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/posts",
            [
                .json(RequestSupport.postsText([7], prefix: "limited"), status: 429, headers: ["Retry-After": "0"]),
                .json(Self.newBody),
            ])
        try await succeedingRequest(HTTPServer(baseURL: loopback.baseURL), expecting: Self.newBody)
        #expect(loopback.requests(to: "/posts").count == 2)
        #expect(try store.fetchOne("Post", primaryKey: 7) == nil, "the 429's body is not stored")
    }

    @Test func a503ThatNeverRecoversFailsAfterTheRetriesAndStoresNothing() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/posts", .json(RequestSupport.postsText([7], prefix: "down"), status: 503, headers: ["Retry-After": "0"]))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL))
        #expect(error?.code == .serverError)
        #expect(error?.httpStatus == 503)
        #expect(loopback.requests(to: "/posts").count == 3)
    }

    /// A → B/x → B/y: once a redirect leaves the base URL's origin, no later hop on that other
    /// origin may carry the credentials either.
    @Test func credentialsDoNotReachAnotherOriginAnywhereAlongARedirectChain() async throws {
        let home = try LoopbackHTTPServer()
        let other = try LoopbackHTTPServer()
        home.route("/posts", .redirect(to: other.url("/x").absoluteString))
        other.route("/x", .redirect(to: "/y"))
        other.route("/y", .json(Self.newBody))
        let server = HTTPServer(
            baseURL: home.baseURL,
            headers: ["Authorization": "Bearer sekrit-token-1", "Cookie": "session=abcdef", "X-Api-Key": "key-12345"])

        try await succeedingRequest(server, expecting: Self.newBody)

        #expect(home.requests(to: "/posts").first?.header("Authorization") == "Bearer sekrit-token-1")
        for request in other.requests {
            #expect(request.header("Authorization") == nil, "\(request.path) got the Authorization header")
            #expect(request.header("Cookie") == nil, "\(request.path) got the Cookie header")
            #expect(request.header("X-Api-Key") == nil, "\(request.path) got the X-Api-Key header")
        }
        #expect(other.requests.map(\.path) == ["/x", "/y"])
    }

    /// The body of a redirect is not part of the final response: only the last answer's
    /// bytes are parsed and stored.
    @Test func theBodiesOfRedirectsAreNotMixedIntoTheFinalBody() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/posts",
            LoopbackResponse(
                status: 302, headers: ["Location": "/a", "Content-Type": "application/json"],
                body: Array(RequestSupport.postsText([90], prefix: "moved").utf8)))
        loopback.route(
            "/a",
            LoopbackResponse(
                status: 301, headers: ["Location": "/final", "Content-Type": "application/json"],
                body: Array(RequestSupport.postsText([91], prefix: "moved").utf8)))
        loopback.route("/final", .json(Self.newBody))
        try await succeedingRequest(HTTPServer(baseURL: loopback.baseURL), expecting: Self.newBody)
        #expect(loopback.requests.map(\.path) == ["/posts", "/a", "/final"])
    }

    /// A 307 keeps the method and body; to another origin it still drops the credentials.
    @Test func a307ToAnotherOriginDropsTheCredentials() async throws {
        let home = try LoopbackHTTPServer()
        let other = try LoopbackHTTPServer()
        home.route("/posts", .redirect(to: other.url("/x").absoluteString, status: 307))
        other.route("/x", .json(Self.newBody))
        let server = HTTPServer(baseURL: home.baseURL, headers: ["Authorization": "Bearer sekrit-token-1"])

        try await succeedingRequest(server, expecting: Self.newBody)

        #expect(other.requests(to: "/x").count == 1)
        #expect(other.requests(to: "/x").first?.header("Authorization") == nil)
    }

    /// A redirect that points at itself must end with an error, not keep the client
    /// requesting until the attempt's timeout, and must store nothing.
    @Test func aRedirectLoopFailsWithAServerErrorBeforeTheTimeout() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", .redirect(to: "/posts"))
        let error = try await failingRequest(HTTPServer(baseURL: loopback.baseURL), timeout: 20)
        #expect(error?.code == .serverError, "\(String(describing: error))")
        #expect(
            (error?.cause as? TransportError)?.code != -1001,
            "ended by a redirect limit, not the timeout: \(String(describing: error))")
        #expect(loopback.requests(to: "/posts").count <= 50, "\(loopback.requests(to: "/posts").count) requests")
    }

    // MARK: - Servers of the application's own

    struct ThrowingServer: Server {
        struct Failure: Error {}
        func response(for request: ServerRequest) async throws -> ServerResponse { throw Failure() }
    }

    struct FixedServer: Server {
        let body: JSONValue
        func response(for request: ServerRequest) async throws -> ServerResponse { ServerResponse(body: body) }
    }

    /// Ignores cancellation: answers after the request's task was cancelled.
    struct StubbornServer: Server {
        let started: Locked<Bool>
        let release: Locked<Bool>
        func response(for request: ServerRequest) async throws -> ServerResponse {
            started.withLock { $0 = true }
            // Waits on a thread outside the task pool, and never for cancellation.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    while !release.withLock({ $0 }) { usleep(5_000) }
                    continuation.resume()
                }
            }
            return ServerResponse(body: try JSONReader().read(Data(AdversarialTransportTests.newBody.utf8)))
        }
    }

    @Test func aServerThatThrowsAnotherErrorIsAServerErrorWithItsCauseAndStoresNothing() async throws {
        let error = try await failingRequest(ThrowingServer())
        #expect(error?.code == .serverError)
        #expect(error?.cause is ThrowingServer.Failure)
    }

    @Test func aServerWhoseBodyIsNotShapedAsTheEntityExpectsStoresNothing() async throws {
        let error = try await failingRequest(FixedServer(body: ["data": "not a list of posts"]))
        #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
    }

    @Test func aServerAnsweringAfterCancellationStoresNothing() async throws {
        try await seed()
        let before = try snapshot()
        let started = Locked(false)
        let release = Locked(false)
        let server = StubbornServer(started: started, release: release)
        let task = Task {
            await RequestSupport.error {
                _ = try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: server))
            }
        }
        #expect(await RequestSupport.waitUntil { started.withLock { $0 } })
        task.cancel()
        release.withLock { $0 = true }
        let error = await task.value
        #expect(error?.code == .cancelled)
        #expect(try snapshot() == before)
    }

    @Test func aClassRegistrationWinsOverAnEntityRegistrationForTheSameRequest() async throws {
        store.register(recordClass: FeedPost.self)
        store.register(FixedServer(body: try JSONReader().read(Data(Self.newBody.utf8))), for: FeedPost.self)
        store.register(FixedServer(body: try JSONReader().read(Data(Self.seedBody.utf8))), forEntity: "Post")
        let posts = try await FeedPost.startRequest(urn: "posts", in: store)
        #expect(posts.map(\.id) == [1, 2, 3, 4])
        #expect(posts.map(\.text) == ["new 1", "new 2", "new 3", "new 4"])
    }
}
