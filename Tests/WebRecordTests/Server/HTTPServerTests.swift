import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPServer against a real HTTP server on 127.0.0.1.
@Suite(.measuresTime) struct HTTPServerTests {
    let loopback: LoopbackHTTPServer

    init() throws {
        loopback = try LoopbackHTTPServer()
    }

    func request(
        _ urn: String, method: String = "GET", data: JSONValue? = nil, headers: [String: String] = [:],
        timeout: TimeInterval? = nil
    ) -> ServerRequest {
        ServerRequest(urn: urn, data: data, method: method, headers: headers, timeout: timeout, entityName: "Post")
    }

    // MARK: - Status codes

    @Test func aJSONResponseIsParsedWithItsStatusHeadersAndURL() async throws {
        loopback.route(
            "/posts", .json(#"{"data": [{"id": 1}], "meta": {"code": 200}}"#, headers: ["X-Rate-Limit": "99"]))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let response = try await server.response(for: request("posts"))

        #expect(response.body.value(atKeyPath: "data.0.id") == .integer(1))
        #expect(response.statusCode == 200)
        #expect(response.header("x-rate-limit") == "99")
        #expect(response.url == loopback.url("/posts"))
    }

    @Test func a404IsAServerErrorWithTheStatusAndTheBody() async throws {
        loopback.route("/missing", .json(#"{"error": "no such stream"}"#, status: 404))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("missing")) }

        #expect(error?.code == .serverError)
        #expect(error?.httpStatus == 404)
        #expect(error?.message.contains("HTTP 404") == true)
        #expect(error?.message.contains(#""error": "no such stream""#) == true)
        #expect(loopback.requests(to: "/missing").count == 1, "a 404 is not retried")
    }

    @Test func a500CarriesABodyExcerptOfAtMost200Characters() async throws {
        let long = String(repeating: "stack frame; ", count: 100)
        loopback.route("/boom", .text("Internal error: \(long)", contentType: "text/plain", status: 500))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = try #require(await RequestSupport.error { _ = try await server.response(for: request("boom")) })

        #expect(error.code == .serverError)
        #expect(error.httpStatus == 500)
        let excerpt = try #require(
            error.message.components(separatedBy: ": ").dropFirst().joined(separator: ": ") as String?)
        #expect(excerpt.hasPrefix("Internal error: stack frame;"))
        #expect(excerpt.count <= 200)
        #expect(excerpt.hasSuffix("..."))
    }

    @Test func a204HasANullBody() async throws {
        loopback.route("/empty", LoopbackResponse(status: 204))
        let response = try await HTTPServer(baseURL: loopback.baseURL).response(for: request("empty", method: "DELETE"))
        #expect(response.body == .null)
        #expect(response.statusCode == 204)
    }

    // MARK: - Timeouts and transport errors

    // The slow routes would answer after ten minutes, and the tests show by the order of
    // events that the request gave up first: the server had answered nothing when it did. No
    // elapsed time is compared: the whole suite runs its tests in parallel on two cores, and a
    // request's task has been seen to wait about 25 s for a thread there. (The server stops
    // when the test ends, and its slow answers with it.)
    @Test func aSlowResponseTimesOutAsAServerError() async throws {
        loopback.route("/slow", .json("[]", delay: 600))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("slow", timeout: 0.3)) }

        #expect(error?.code == .serverError)
        #expect((error?.cause as? TransportError)?.code == -1001)
        #expect(error?.message.contains("within 0.30 s") == true)
        #expect(loopback.requests(to: "/slow").count == 1, "the request was sent")
        #expect(loopback.answered(to: "/slow").isEmpty, "it gave up before the server answered")
    }

    @Test func theServerTimeoutAppliesWhenTheRequestGivesNone() async throws {
        loopback.route("/slow", .json("[]", delay: 600))
        let server = HTTPServer(baseURL: loopback.baseURL, timeout: 0.25)

        let error = await RequestSupport.error { _ = try await server.response(for: request("slow")) }

        #expect(error?.code == .serverError)
        #expect(error?.message.contains("within 0.25 s") == true, "\(String(describing: error))")
        #expect(loopback.requests(to: "/slow").count == 1, "the request was sent")
        #expect(loopback.answered(to: "/slow").isEmpty, "it gave up before the server answered")
    }

    @Test func aRefusedConnectionIsAServerErrorWithItsCause() async throws {
        // A port held bound and not listening: no other test's server can be given it meanwhile.
        let refusing = try RefusingPort()
        let port = refusing.port
        let server = HTTPServer(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)/")))

        let error = await RequestSupport.error { _ = try await server.response(for: request("posts")) }
        withExtendedLifetime(refusing) {}

        #expect(error?.code == .serverError)
        #expect(error?.httpStatus == nil)
        #expect(error?.cause is TransportError)
        #expect(error?.message.contains("could not reach http://127.0.0.1:\(port)/posts") == true)
    }

    // MARK: - Retries

    @Test func getIsRetriedOn503And429HonouringRetryAfter() async throws {
        loopback.route(
            "/busy",
            [
                .status(503, headers: ["Retry-After": "0"]),
                .status(429, headers: ["Retry-After": "0"]),
                .json(#"{"data": []}"#),
            ])
        let server = HTTPServer(baseURL: loopback.baseURL)

        let response = try await server.response(for: request("busy"))

        #expect(response.statusCode == 200)
        #expect(loopback.requests(to: "/busy").count == 3)
    }

    @Test func retriesStopAfterMaxRetriesWithTheLastStatus() async throws {
        loopback.route("/down", .status(503, headers: ["Retry-After": "0"]))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("down")) }

        #expect(error?.httpStatus == 503)
        #expect(loopback.requests(to: "/down").count == 3, "one request and the default 2 retries")
    }

    @Test(arguments: [0, 1, 4])
    func theRetryCountIsConfigurable(maxRetries: Int) async throws {
        loopback.route("/down", .status(429, headers: ["Retry-After": "0"]))
        let server = HTTPServer(baseURL: loopback.baseURL, maxRetries: maxRetries)

        let error = await RequestSupport.error { _ = try await server.response(for: request("down")) }

        #expect(error?.httpStatus == 429)
        #expect(loopback.requests(to: "/down").count == maxRetries + 1)
    }

    @Test func retryAfterInSecondsIsWaitedFor() async throws {
        loopback.route("/busy", [.status(503, headers: ["Retry-After": "1"]), .json("[]")])
        let server = HTTPServer(baseURL: loopback.baseURL)
        let started = Date()

        _ = try await server.response(for: request("busy"))

        #expect(Date().timeIntervalSince(started) >= 0.9)
        #expect(loopback.requests(to: "/busy").count == 2)
    }

    @Test func retryAfterIsCappedByTheMaximumRetryDelay() async throws {
        loopback.route("/busy", [.status(503, headers: ["Retry-After": "3600"]), .json("[]")])
        let server = RetryWatchingServer(baseURL: loopback.baseURL, maximumRetryDelay: 0.1)
        let task = Task { try await server.response(for: request("busy")) }
        // The wait the server chose, before it waits: no elapsed time is compared. (Should the
        // cap not apply, the hour's wait is cancelled rather than waited out.)
        #expect(await RequestSupport.waitUntil { server.waitsToRetry.value })
        let waits = server.waits.value
        if waits != [0.1] { task.cancel() }

        _ = try await task.value

        #expect(waits == [0.1], "the 3600 s Retry-After waits the 0.1 s cap")
        #expect(loopback.requests(to: "/busy").count == 2)
    }

    @Test func withoutRetryAfterTheWaitDoublesFromTheRetryDelay() async throws {
        loopback.route("/busy", [.status(503), .status(503), .json("[]")])
        let server = HTTPServer(baseURL: loopback.baseURL, retryDelay: 0.15)
        let started = Date()

        _ = try await server.response(for: request("busy"))

        // 0.15 s, then 0.3 s.
        #expect(Date().timeIntervalSince(started) >= 0.44)
        #expect(loopback.requests(to: "/busy").count == 3)
    }

    @Test func postIsNeverRetried() async throws {
        loopback.route("/posts", .status(503, headers: ["Retry-After": "0"]))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error {
            _ = try await server.response(for: request("posts", method: "POST", data: ["text": "hi"]))
        }

        #expect(error?.httpStatus == 503)
        #expect(loopback.requests(to: "/posts").count == 1)
    }

    @Test(arguments: [
        ("120", 120.0), ("0", 0.0), (" 5 ", 5.0), ("-3", 0.0),
    ])
    func retryAfterSecondsAreRead(value: String, seconds: Double) {
        #expect(HTTPServer.retryAfterSeconds(value, now: Date()) == seconds)
    }

    @Test func retryAfterAsAnHTTPDateIsTheTimeUntilThatDate() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2015-10-21T07:28:00Z"))
        #expect(HTTPServer.retryAfterSeconds("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == 30)
        #expect(HTTPServer.retryAfterSeconds("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == 0)
        #expect(HTTPServer.retryAfterSeconds("soon", now: now) == nil)
    }

    // MARK: - Headers and parameters

    @Test func defaultAndPerRequestHeadersAreSentAndTheRequestsWin() async throws {
        loopback.route("/me", .json("{}"))
        let server = HTTPServer(
            baseURL: loopback.baseURL, headers: ["Authorization": "Bearer default-token", "X-Client": "webrecord"])

        _ = try await server.response(
            for: request("me", headers: ["authorization": "Bearer user-token", "X-Trace": "1"]))

        let sent = try #require(loopback.requests(to: "/me").first)
        #expect(sent.header("Authorization") == "Bearer user-token")
        #expect(sent.headers.filter { $0.name.lowercased() == "authorization" }.count == 1)
        #expect(sent.header("X-Client") == "webrecord")
        #expect(sent.header("X-Trace") == "1")
        #expect(sent.header("Accept") == "application/json")
    }

    @Test func getParametersAreEncodedIntoTheQuery() async throws {
        loopback.route("/search", .json("[]"))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let data: JSONValue = ["q": "a b+c&d", "count": 20, "exact": false, "tags": ["x", "y"], "skip": nil]

        _ = try await server.response(for: request("search?lang=en", data: data))

        let sent = try #require(loopback.requests(to: "/search").first)
        #expect(sent.method == "GET")
        #expect(sent.body.isEmpty)
        #expect(
            sent.queryItems.map { "\($0.name)=\($0.value)" } == [
                "lang=en", "q=a b+c&d", "count=20", "exact=false", "tags=x", "tags=y",
            ])
        #expect(sent.query?.contains("a%20b%2Bc%26d") == true, "a + is sent as %2B, never as a space")
    }

    @Test func getParametersMustBeAnObject() async throws {
        let server = HTTPServer(baseURL: loopback.baseURL)
        let error = await RequestSupport.error { _ = try await server.response(for: request("search", data: [1, 2])) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("URN 'search'") == true)
        #expect(loopback.requests.isEmpty)
    }

    @Test func otherMethodsSendTheParametersAsAJSONBody() async throws {
        loopback.route("/posts", method: "POST", .json(#"{"data": {"id": 9}}"#, status: 201))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let response = try await server.response(
            for: request("posts", method: "post", data: ["text": "hello", "reply_to": 3]))

        let sent = try #require(loopback.requests(to: "/posts").first)
        #expect(sent.method == "POST")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(try JSONReader().read(sent.body) == ["text": "hello", "reply_to": 3])
        #expect(sent.query == nil)
        #expect(response.statusCode == 201)
    }

    // MARK: - URNs

    @Test(arguments: [
        ("http://h.test/v1", "posts", "http://h.test/v1/posts"),
        ("http://h.test/v1/", "posts", "http://h.test/v1/posts"),
        ("http://h.test/v1", "/posts/1", "http://h.test/v1/posts/1"),
        ("http://h.test/", "stream/0/posts?count=5", "http://h.test/stream/0/posts?count=5"),
        ("http://h.test/v1", "https://other.test/x?y=1", "https://other.test/x?y=1"),
        ("http://h.test/v1", "HTTP://other.test/x", "http://other.test/x"),  // schemes are sent lower-case
    ])
    func urnsResolveAgainstTheBaseURL(base: String, urn: String, expected: String) throws {
        let server = HTTPServer(baseURL: try #require(URL(string: base)))
        #expect(try server.url(for: urn).absoluteString == expected)
    }

    // MARK: - Redirects, content types and bodies

    @Test func redirectsAreFollowed() async throws {
        loopback.route("/old", .redirect(to: "/new"))
        loopback.route("/new", .json(#"{"data": [{"id": 2}]}"#))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let response = try await server.response(for: request("old"))

        #expect(response.body.value(atKeyPath: "data.0.id") == .integer(2))
        #expect(response.url == loopback.url("/new"))
        #expect(loopback.requests.map(\.path) == ["/old", "/new"])
    }

    @Test func aContentTypeThatIsNotJSONIsAnInvalidResponseFormat() async throws {
        loopback.route("/page", .text("<html><body>Maintenance</body></html>", contentType: "text/html; charset=utf-8"))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("page")) }

        #expect(error?.code == .invalidResponseFormat)
        #expect(error?.message.contains("text/html") == true)
        #expect(error?.message.contains("Maintenance") == true)
    }

    @Test(arguments: [
        "application/json", "application/json; charset=utf-8", "application/vnd.api+json", "Application/JSON",
    ])
    func jsonContentTypesAreAccepted(contentType: String) async throws {
        loopback.route("/x", .text(#"{"ok": true}"#, contentType: contentType))
        let response = try await HTTPServer(baseURL: loopback.baseURL).response(for: request("x"))
        #expect(response.body == ["ok": true])
    }

    @Test(arguments: [
        ("application/json", true), ("application/problem+json", true), ("text/json", false),
        ("text/plain", false), ("application/jsonp", false), ("+json", false), ("", false),
    ])
    func jsonContentTypesAreRecognized(contentType: String, isJSON: Bool) {
        #expect(HTTPServer.isJSONContentType(contentType) == isJSON)
    }

    @Test func aMissingContentTypeIsAcceptedWhenTheBodyParses() async throws {
        loopback.route("/bare", .text("[1, 2]", contentType: nil))
        loopback.route("/junk", .text("hello", contentType: nil))
        let server = HTTPServer(baseURL: loopback.baseURL)

        #expect(try await server.response(for: request("bare")).body == [1, 2])
        let error = await RequestSupport.error { _ = try await server.response(for: request("junk")) }
        #expect(error?.code == .invalidResponseFormat)
    }

    @Test func aBodyThatIsNotJSONGivesTheLineAndColumn() async throws {
        loopback.route("/bad", .json("{\n  \"data\": [1, 2,]\n}"))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("bad")) }

        #expect(error?.code == .invalidResponseFormat)
        #expect(error?.location == "line 2, column 17", "\(error?.description ?? "")")
        #expect(error?.line == 2 && error?.column == 17 && error?.jsonSyntax != nil)
    }

    @Test func aTruncatedBodyIsAnInvalidResponseFormat() async throws {
        let body = Array(#"{"data": [{"id": 1}, {"id": 2}]}"#.utf8)
        loopback.route(
            "/cut", LoopbackResponse(headers: ["Content-Type": "application/json"], body: body, truncatedLength: 12))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await RequestSupport.error { _ = try await server.response(for: request("cut")) }

        #expect(error?.code == .invalidResponseFormat)
        #expect(error?.message.contains("cut short") == true)
        #expect(error?.message.contains("after 12 bytes of \(body.count) (Content-Length)") == true)
    }

    // MARK: - Cancellation

    @Test func cancellingTheTaskMidFlightIsCancelled() async throws {
        loopback.route("/slow", .json("[]", delay: 600))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let task = Task { try await server.response(for: request("slow")) }
        #expect(await RequestSupport.waitUntil { !loopback.requests(to: "/slow").isEmpty })

        task.cancel()
        let error = await RequestSupport.error { _ = try await task.value }

        #expect(error?.code == .cancelled)
        #expect(loopback.answered(to: "/slow").isEmpty, "cancelled before the server's answer, ten minutes on")
    }

    @Test func cancellingDuringARetryWaitIsCancelled() async throws {
        // A retry ten minutes on: however late the cancellation comes, it comes during the wait.
        loopback.route("/busy", .status(503, headers: ["Retry-After": "600"]))
        let server = RetryWatchingServer(baseURL: loopback.baseURL, maximumRetryDelay: 3600)
        let task = Task { try await server.response(for: request("busy")) }
        #expect(await RequestSupport.waitUntil { server.waitsToRetry.value })

        task.cancel()
        let error = await RequestSupport.error { _ = try await task.value }

        #expect(error?.code == .cancelled)
        #expect(loopback.requests(to: "/busy").count == 1)
    }

    /// An HTTPServer that says when it has begun to wait before a retry, and how long.
    final class RetryWatchingServer: HTTPServer, @unchecked Sendable {
        let waitsToRetry = Locked(false)
        /// The waits chosen, in seconds, in order.
        let waits = Locked<[TimeInterval]>([])

        override func retryWait(for response: HTTPURLResponse, attempt: Int) -> TimeInterval {
            // The wait follows at once.
            let wait = super.retryWait(for: response, attempt: attempt)
            waits.withLock { $0.append(wait) }
            waitsToRetry.value = true
            return wait
        }
    }

    // MARK: - Subclassing

    /// An API that signs its requests, wraps results in an envelope, and pages by cursor.
    final class SignedEnvelopeServer: HTTPServer, @unchecked Sendable {
        struct CursorPageManager: PageManager {
            let cursor: String?
            var nextPageURN: String? { cursor.map { "items?after=\($0)" } }
        }

        override func urlRequest(for request: ServerRequest) throws -> URLRequest {
            var urlRequest = try super.urlRequest(for: request)
            urlRequest.setValue("sig-\(request.urn.count)", forHTTPHeaderField: "X-Signature")
            return urlRequest
        }

        override func decodeResponse(data: Data, response: HTTPURLResponse, request: ServerRequest) throws
            -> ServerResponse
        {
            var decoded = try super.decodeResponse(data: data, response: response, request: request)
            if decoded.body["ok"] == .bool(false) {
                throw WebRecordError(.serverError, "API error: \(decoded.body["reason"]?.stringValue ?? "?")")
            }
            decoded.body = decoded.body["result"] ?? .null
            return decoded
        }

        override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
            CursorPageManager(cursor: response.header("X-Next-Cursor"))
        }
    }

    @Test func aSubclassOverridesRequestBuildingDecodingAndPaging() async throws {
        loopback.route(
            "/items", .json(#"{"ok": true, "result": {"data": [{"id": 5}]}}"#, headers: ["X-Next-Cursor": "c5"]))
        loopback.route("/broken", .json(#"{"ok": false, "reason": "quota"}"#))
        let server = SignedEnvelopeServer(baseURL: loopback.baseURL)

        let response = try await server.response(for: request("items"))
        let pageManager = try #require(server.pageManager(for: response, of: request("items")))

        #expect(response.body == ["data": [["id": 5]]])
        #expect(loopback.requests(to: "/items").first?.header("X-Signature") == "sig-5")
        #expect(pageManager.nextPageURN == "items?after=c5")
        #expect(pageManager.canRequestNextPage)
        #expect(pageManager.totalResultsCount == nil)
        let error = await RequestSupport.error { _ = try await server.response(for: request("broken")) }
        #expect(error?.message == "API error: quota")
    }

    // MARK: - Logging

    @Test func trafficIsLoggedAtAllWithSecretsRedacted() async throws {
        loopback.route("/login", .json(#"{"session": "s"}"#))
        let server = HTTPServer(baseURL: loopback.baseURL, headers: ["Authorization": "Bearer top-secret-token"])
        let marker = "login-\(UUID().uuidString)"

        let (_, events) = try await InMemoryLogHandler.capture(level: .all) {
            _ = try await server.response(
                for: ServerRequest(
                    urn: "login?access_token=query-secret-value&who=\(marker)", method: "GET",
                    headers: ["Cookie": "sid=cookie-secret-value"], entityName: "Post"))
            _ = try await server.response(
                for: ServerRequest(
                    urn: "login", data: ["user": .string(marker), "password": "body-secret-value"], method: "POST",
                    entityName: "Post"))
        }

        let mine = events.filter { $0.description.contains(marker) }
        #expect(mine.contains { $0.level == .trace && $0.message == "HTTP GET request" })
        let all = events.map(\.description).joined(separator: "\n")
        #expect(!all.contains("top-secret-token"))
        #expect(!all.contains("query-secret-value"))
        #expect(!all.contains("cookie-secret-value"))
        #expect(mine.contains { $0.metadata["headers"]?.contains("Authorization: <redacted>") == true })
        #expect(mine.contains { $0.metadata["url"]?.contains("access_token=%3Credacted%3E") == true })
        #expect(!all.contains("body-secret-value"))
        #expect(mine.contains { $0.metadata["body"]?.contains(#""password":"<redacted>""#) == true })
        #expect(events.contains { $0.message == "HTTP 200 response" })
    }

    @Test func nothingIsLoggedAtTheDefaultLevel() async throws {
        loopback.route("/quiet", .json("{}"))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let marker = "quiet-\(UUID().uuidString)"

        let (_, events) = try await InMemoryLogHandler.capture(level: .none) {
            try await server.response(for: request("quiet?m=\(marker)"))
        }

        #expect(!events.contains { $0.description.contains(marker) })
    }
}
