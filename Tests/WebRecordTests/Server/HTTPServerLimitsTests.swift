import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What HTTPServer does with values that could trap or be dropped: timeouts and waits of any
/// size, server-sent `Retry-After` and `Content-Length`, headers that cannot be sent, and
/// secrets a server echoes back.
@Suite(.measuresTime) struct HTTPServerLimitsTests {
    static let secret = "S3cr3tT0kenValue"
    let loopback: LoopbackHTTPServer

    init() throws {
        loopback = try LoopbackHTTPServer()
    }

    func request(_ urn: String, headers: [String: String] = [:], timeout: TimeInterval? = nil) -> ServerRequest {
        ServerRequest(urn: urn, headers: headers, timeout: timeout, entityName: "Post")
    }

    // MARK: - Timeouts and waits

    static let waits: [(Double, UInt64)] = [
        (.nan, 0), (-1, 0), (0, 0), (1.5, 1_500_000_000), (-.infinity, 0),
        (2e10, 86_400_000_000_000), (.infinity, 86_400_000_000_000), (.greatestFiniteMagnitude, 86_400_000_000_000),
    ]

    @Test(arguments: waits)
    func waitsBecomeNanosecondsWithoutTrapping(seconds: Double, nanoseconds: UInt64) {
        #expect(HTTPServer.nanoseconds(seconds) == nanoseconds)
    }

    @Test(arguments: [0, -1, Double.nan, -Double.infinity])
    func aTimeoutThatIsNoPositiveNumberIsRefusedBeforeSending(timeout: Double) async throws {
        loopback.route("/posts", .json("[]"))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let error = await RequestSupport.error {
            _ = try await server.response(for: request("posts", timeout: timeout))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "the timeout must be a positive number of seconds, not \(timeout)")
        #expect(loopback.requests(to: "/posts").isEmpty)
    }

    @Test(arguments: [2e10, 1e300, Double.infinity])
    func aHugeTimeoutIsClampedToADay(timeout: Double) async throws {
        loopback.route("/posts", .json(#"{"data": []}"#))
        let server = HTTPServer(baseURL: loopback.baseURL, timeout: timeout)
        #expect(try server.effectiveTimeout(for: request("posts")) == HTTPServer.maximumTimeout)
        #expect(try server.urlRequest(for: request("posts")).timeoutInterval == HTTPServer.maximumTimeout + 1)
        let response = try await server.response(for: request("posts"))
        #expect(response.statusCode == 200)
    }

    @Test func aHugeRetryCapIsClampedToADay() {
        #expect(
            HTTPServer(baseURL: loopback.baseURL, maximumRetryDelay: .infinity).maximumRetryDelay
                == HTTPServer.maximumTimeout)
        #expect(HTTPServer(baseURL: loopback.baseURL, maximumRetryDelay: .nan).maximumRetryDelay == 0)
    }

    @Test(arguments: [
        ("99999999999999999999999999", HTTPServer.maximumTimeout), ("9223372036854775807", HTTPServer.maximumTimeout),
        ("86401", HTTPServer.maximumTimeout), ("86400", 86_400),
    ])
    func aRetryAfterTooLargeIsTheLongestWait(value: String, seconds: Double) {
        #expect(HTTPServer.retryAfterSeconds(value, now: Date()) == seconds)
    }

    @Test func aServerAskingToWaitForeverIsRetriedAfterTheCap() async throws {
        loopback.route("/busy", [.status(503, headers: ["Retry-After": "99999999999999999999999999"]), .json("[]")])
        let server = HTTPServer(baseURL: loopback.baseURL, maxRetries: 1, maximumRetryDelay: 0)
        let response = try await server.response(for: request("busy"))
        #expect(response.statusCode == 200)
        #expect(loopback.requests(to: "/busy").count == 2)
    }

    @Test func aRetryDelayThatOverflowsWaitsTheCap() throws {
        let server = HTTPServer(
            baseURL: loopback.baseURL, maxRetries: 5000, retryDelay: 1e300, maximumRetryDelay: .infinity)
        let response = try #require(
            HTTPURLResponse(url: loopback.baseURL, statusCode: 503, httpVersion: nil, headerFields: [:]))
        #expect(server.retryWait(for: response, attempt: 4000) == HTTPServer.maximumTimeout)
    }

    @Test(arguments: [
        (1e300, "1e+300 s"), (.infinity, "inf s"), (.nan, "nan s"), (5, "5 s"), (0.25, "0.25 s"), (0.001, "0.001 s"),
        (0.0005, "0.0005 s"),
    ])
    func secondsAreFormattedWithoutTrapping(seconds: Double, text: String) {
        #expect(WebRecordError.formatSeconds(seconds) == text)
    }

    @Test(arguments: ["abc", "99999999999999999999999999", "-5", "12 bytes"])
    func aContentLengthThatIsNoNumberIsNotRepeated(length: String) {
        let error = WebRecordError.truncatedBody(
            url: nil, received: 3, expectedLength: length, cause: URLError(.networkConnectionLost))
        #expect(error.message.hasPrefix("the response body from (no URL) was cut short after 3 bytes: "))
    }

    // MARK: - Headers

    @Test(arguments: [
        ("Authorization", "token abc\r", "the value of header 'Authorization' contains a carriage return (\\r)"),
        ("Authorization", "token\nabc", "the value of header 'Authorization' contains a line feed (\\n)"),
        ("X-Key", "a\u{0}b", "the value of header 'X-Key' contains a NUL character"),
        ("X-Key", "a\u{7F}b", "the value of header 'X-Key' contains the control character U+007F"),
        ("", "value", "a header has an empty name"),
        ("X Key", "value", "header name 'X Key' contains a space; a name is letters, digits and !#$%&'*+-.^_`|~"),
        ("X:Key", "value", "header name 'X:Key' contains ':'; a name is letters, digits and !#$%&'*+-.^_`|~"),
        ("Ünicode", "value", "header name 'Ünicode' contains 'Ü'; a name is letters, digits and !#$%&'*+-.^_`|~"),
    ])
    func headersThatCannotBeSentAreNamed(name: String, value: String, problem: String) {
        #expect(HTTPServer.headerProblem(name: name, value: value) == problem)
    }

    @Test(arguments: [
        ("Authorization", "Bearer a.b-c_d~e+f/g="), ("X-Weird!#$%&'*+-.^_`|~", "tab\tinside"), ("Accept", ""),
    ])
    func headersThatCanBeSentPass(name: String, value: String) {
        #expect(HTTPServer.headerProblem(name: name, value: value) == nil)
    }

    @Test func aDefaultOrRequestHeaderWithACarriageReturnFailsTheRequestUnsent() async throws {
        loopback.route("/posts", .json("[]"))
        let byDefault = HTTPServer(baseURL: loopback.baseURL, headers: ["Authorization": "token \(Self.secret)\r"])
        let first = await RequestSupport.error { _ = try await byDefault.response(for: request("posts")) }
        #expect(first?.code == .invalidArgument)
        #expect(first?.message == "the value of header 'Authorization' contains a carriage return (\\r)")

        let plain = HTTPServer(baseURL: loopback.baseURL)
        let second = await RequestSupport.error {
            _ = try await plain.response(for: request("posts", headers: ["X-Api-Key": "\(Self.secret)\n"]))
        }
        #expect(second?.message == "the value of header 'X-Api-Key' contains a line feed (\\n)")
        #expect(loopback.requests(to: "/posts").isEmpty, "nothing was sent")
    }

    // MARK: - Secrets in errors

    @Test func anErrorBodyEchoingTheTokenDoesNotCarryIt() async throws {
        loopback.route(
            "/private",
            .json(#"{"message": "token \#(Self.secret) is not valid", "access_token": "\#(Self.secret)"}"#, status: 401)
        )
        let server = HTTPServer(baseURL: loopback.baseURL, headers: ["Authorization": "token \(Self.secret)"])
        let error = await RequestSupport.error {
            _ = try await server.response(for: request("private?access_token=\(Self.secret)"))
        }
        #expect(error?.httpStatus == 401)
        let message = try #require(error?.message)
        #expect(!message.contains(Self.secret), "\(message)")
        #expect(message.contains("access_token=%3Credacted%3E"), "\(message)")
        #expect(message.contains(#""access_token":"<redacted>""#), "\(message)")
        #expect(message.contains(#""message":"<redacted> is not valid""#), "the echoed header value: \(message)")
        #expect(
            loopback.requests(to: "/private").first?.header("Authorization") == "token \(Self.secret)",
            "the token was sent")
    }

    @Test func aPlainTextErrorBodyHasItsSecretPairsRedacted() async throws {
        loopback.route("/broken", .text("failed for password=\(Self.secret)&user=x", status: 500))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let error = await RequestSupport.error { _ = try await server.response(for: request("broken")) }
        #expect(
            error?.message.contains("failed for password=<redacted>&user=x") == true, "\(String(describing: error))")
    }

    @Test func aURNThatCannotBeSentIsNamedRedacted() async throws {
        let server = HTTPServer(baseURL: loopback.baseURL)
        let error = await RequestSupport.error {
            _ = try await server.response(for: request("http://?access_token=\(Self.secret)"))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("access_token=") == true, "\(String(describing: error))")
        #expect(error?.message.contains(Self.secret) == false, "\(String(describing: error))")
    }

    @Test func jsonFileServerMessagesRedactTheURN() async throws {
        let directory = try TemporaryDirectory()
        let server = try JSONFileServer(root: directory.url)
        let error = await RequestSupport.error {
            _ = try await server.response(for: request("missing?access_token=\(Self.secret)"))
        }
        #expect(error?.code == .notFound)
        #expect(
            error?.message.contains("URN 'missing?access_token=<redacted>'") == true, "\(String(describing: error))")
        #expect(error?.message.contains(Self.secret) == false)
    }
}
