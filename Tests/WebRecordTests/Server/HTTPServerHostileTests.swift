import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPServer against a hostile server on 127.0.0.1: bodies that inflate without end, URLs of
/// other schemes than http and https in redirects and next links, and headers past the
/// transport's limit.
@Suite(.measuresTime) struct HTTPServerHostileTests {
    let loopback: LoopbackHTTPServer

    init() throws {
        loopback = try LoopbackHTTPServer()
    }

    func request(_ urn: String) -> ServerRequest {
        ServerRequest(urn: urn, entityName: "Post")
    }

    // MARK: - Bodies, decoded

    /// A body in `encoding` that inflates to `count` bytes.
    static func bomb(_ encoding: String, inflatingTo count: Int) -> [UInt8] {
        switch encoding {
        case "deflate": CompressedBodies.deflateBomb(inflatingTo: count)
        case "zstd": CompressedBodies.zstdBomb(inflatingTo: count)
        default: CompressedBodies.gzipBomb(inflatingTo: count)
        }
    }

    @Test(arguments: ["gzip", "deflate", "zstd"])
    func aCompressedBodyIsStoppedAtTheLimitOnceDecoded(encoding: String) async throws {
        let limit = 4 << 20
        let bomb = Self.bomb(encoding, inflatingTo: 300 << 20)
        #expect(bomb.count < limit, "the body on the wire is under the limit; only its decoded size is over")
        loopback.route(
            "/bomb",
            LoopbackResponse(headers: ["Content-Type": "application/json", "Content-Encoding": encoding], body: bomb))
        let server = HTTPServer(baseURL: loopback.baseURL, maximumBodySize: limit)

        let error = await #expect(throws: WebRecordError.self) { try await server.response(for: request("bomb")) }

        #expect(error?.code == .invalidResponseFormat)
        let message = error?.message ?? ""
        #expect(message.contains("larger than the limit of 4194304 bytes (4 MiB) once decoded"), "\(message)")
        #expect(message.contains("HTTPServer.maximumBodySize"), "\(message)")
        #expect(message.contains(loopback.url("/bomb").absoluteString), "\(message)")
        let stoppedAt = message.split(separator: " ").dropLast().last.flatMap { Int($0) }
        #expect(
            try #require(stoppedAt) < limit + (1 << 20),
            "the transfer stops within a chunk of the limit, never inflating the rest: \(message)")
        #expect(
            loopback.requests(to: "/bomb").first?.header("Accept-Encoding")?.contains(
                encoding == "deflate" ? "deflate" : encoding)
                == true, "the transport offers the encoding the bomb uses")
    }

    @Test func aPlainBodyOverTheLimitFailsAndOneAtTheLimitIsRead() async throws {
        let body = "[" + String(repeating: " ", count: 998) + "]"
        loopback.route("/exact", .json(body))
        let exact = try await HTTPServer(baseURL: loopback.baseURL, maximumBodySize: 1000).response(
            for: request("exact"))
        #expect(exact.body == .array([]))

        let error = await #expect(throws: WebRecordError.self) {
            try await HTTPServer(baseURL: loopback.baseURL, maximumBodySize: 999).response(for: request("exact"))
        }
        #expect(
            error?.message.contains("larger than the limit of 999 bytes once decoded") == true,
            "\(String(describing: error))")
    }

    @Test func aLargeLegitimateGzipBodyStreamsAndIsRead() async throws {
        let records = (0..<40_000).map { #"{"id": \#($0), "text": "post number \#($0)"}"# }
        let json = Array(("[" + records.joined(separator: ",") + "]").utf8)
        loopback.route(
            "/large",
            LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: CompressedBodies.gzip(json)))
        let server = HTTPServer(baseURL: loopback.baseURL)
        let reports = Locked<[Int]>([])
        let reporter = ProgressReporter.make(
            interval: .zero, phase: .downloading,
            callbacks: [
                { progress in
                    if progress.phase == .downloading { reports.withLock { $0.append(progress.bytesRead) } }
                }
            ])

        let response = try await ProgressReporter.$current.withValue(reporter) {
            try await server.response(for: request("large"))
        }

        #expect(response.body.arrayValue?.count == 40_000)
        #expect(response.body.value(atKeyPath: "39999.id") == .integer(39_999))
        let downloaded = reports.withLock { $0 }
        #expect(
            downloaded.contains { $0 > 0 && $0 < json.count },
            "the decoded body arrives in pieces, as a plain one does: \(downloaded.count) reports")
        #expect(downloaded.last == json.count)
    }

    @Test func theDefaultLimitIs256MiBAndALimitBelowOneIsOne() {
        #expect(HTTPServer.defaultMaximumBodySize == 268_435_456)
        #expect(HTTPServer(baseURL: loopback.baseURL).maximumBodySize == 268_435_456)
        #expect(HTTPServer(baseURL: loopback.baseURL, maximumBodySize: 0).maximumBodySize == 1)
        #expect(HTTPServer(baseURL: loopback.baseURL, maximumBodySize: -5).maximumBodySize == 1)
    }

    // MARK: - Schemes

    static let otherSchemes = [
        "file:///etc/passwd", "FILE:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/x", "data:,[]",
        "gopher://127.0.0.1:70/x", "localhost:8080/x",
    ]

    @Test(arguments: otherSchemes)
    func aRedirectToAnotherSchemeIsRefusedBeforeItIsRequested(location: String) async throws {
        loopback.route("/start", .redirect(to: location))
        loopback.route("/etc/passwd", .json(#"[{"id": 1}]"#))
        loopback.route("/alert(1)", .json(#"[{"id": 1}]"#))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await #expect(throws: WebRecordError.self) { try await server.response(for: request("start")) }

        #expect(error?.code == .serverError)
        let message = error?.message ?? ""
        #expect(
            message.contains("refused the redirect from \(loopback.url("/start").absoluteString) to "), "\(message)")
        #expect(message.contains("WebRecord follows only http and https URLs"), "\(message)")
        #expect(message.contains("'\(location.prefix { $0 != ":" }.lowercased())'"), "\(message)")
        #expect(loopback.requests.map(\.path) == ["/start"], "nothing but the first request was sent")
    }

    @Test func aRelativeRedirectResolvesAgainstTheRedirectingURL() async throws {
        loopback.route("/a/start", .redirect(to: "next?x=1"))
        loopback.route("/a/next", .json(#"[{"id": 1}]"#))
        let response = try await HTTPServer(baseURL: loopback.baseURL).response(for: request("a/start"))
        #expect(response.url?.absoluteString == loopback.url("/a/next").absoluteString + "?x=1")
    }

    @Test func aRedirectFromHTTPSToHTTPIsFollowedWithAWarningAndWithoutCredentials() throws {
        var next = URLRequest(url: try #require(URL(string: "http://api.example.com/v1/posts")))
        next.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        let decision = HTTPSessionDelegate.decide(
            next, location: "http://api.example.com/v1/posts", from: URL(string: "https://api.example.com/v1/posts"))
        guard case .follow(let request, let warning) = decision else {
            Issue.record("refused: \(decision)")
            return
        }
        #expect(request.url?.absoluteString == "http://api.example.com/v1/posts")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(warning?.isFatal == false)
        #expect(
            warning?.message
                == "the https request to https://api.example.com/v1/posts was redirected to http://api.example.com/v1/posts: the rest of the exchange is not encrypted (credential headers are not sent to it)"
        )

        let same = HTTPSessionDelegate.decide(
            next, location: "/v2", from: URL(string: "http://api.example.com/v1/posts"))
        guard case .follow(let plain, let none) = same else {
            Issue.record("refused: \(same)")
            return
        }
        #expect(plain.url?.absoluteString == "http://api.example.com/v2")
        #expect(none == nil, "http to http gives no warning")
    }

    @Test func theDowngradeWarningReachesTheRequestsDebugger() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let server = DowngradingServer(baseURL: loopback.baseURL)
        store.register(server, forEntity: "Post")
        loopback.route("/posts", .json(RequestSupport.postsBody([1]).serialized()))

        let result = try await store.startRequest(entity: "Post", urn: "posts")

        #expect(result.debugger.warnings.map(\.message).contains { $0.contains("was redirected to http") })
        #expect(try store.fetch("Post").count == 1)
    }

    @Test(arguments: otherSchemes)
    func aURNOfAnotherSchemeIsRefusedBeforeItIsRequested(urn: String) async throws {
        let server = HTTPServer(baseURL: loopback.baseURL)
        let error = await #expect(throws: WebRecordError.self) { try await server.response(for: request(urn)) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.contains("is not requested: WebRecord follows only http and https URLs") == true,
            "\(String(describing: error))")
        #expect(loopback.requests.isEmpty)
    }

    @Test(arguments: ["posts", "users/1:2", "./search:x", "?q=a:b", "HTTP://127.0.0.1/x"])
    func aPathOrAnHTTPURLIsStillAURN(urn: String) throws {
        #expect(throws: Never.self) { try HTTPServer(baseURL: loopback.baseURL).url(for: urn) }
    }

    static let otherSchemeLinks = ["file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/next"]

    @Test(arguments: otherSchemeLinks)
    func aNextLinkOfAnotherSchemeInTheBodyIsRefusedBeforeItIsRequested(link: String) async throws {
        try await refusesNextPage(link: link, pagination: .nextURL(keyPath: "meta.next")) { records in
            .json(#"{"data": \#(records), "meta": {"next": "\#(link)"}}"#)
        }
    }

    @Test(arguments: otherSchemeLinks)
    func aNextLinkOfAnotherSchemeInALinkHeaderIsRefusedBeforeItIsRequested(link: String) async throws {
        try await refusesNextPage(link: link, pagination: .linkHeader) { records in
            .json(#"{"data": \#(records)}"#, headers: ["Link": "<\(link)>; rel=\"next\""])
        }
    }

    @Test(arguments: otherSchemeLinks)
    func aNextLinkOfAnotherSchemeFromACustomPageManagerIsRefused(link: String) async throws {
        let (store, directory) = try RequestSupport.makeStore()
        defer { withExtendedLifetime(directory) {} }
        store.register(LinkingServer(baseURL: loopback.baseURL, link: link), forEntity: "Post")
        loopback.route("/p1", .json(RequestSupport.postsBody([1]).serialized()))
        var pages = 0
        let error = await #expect(throws: WebRecordError.self) {
            for try await _ in store.pages(entity: "Post", urn: "p1", options: PagingOptions(pagination: nil)) {
                pages += 1
            }
        }
        #expect(pages == 1)
        #expect(error?.message.contains("is not requested: WebRecord follows only http and https URLs") == true)
        #expect(loopback.requests.map(\.path) == ["/p1"])
    }

    private func refusesNextPage(
        link: String, pagination: Pagination, page: (String) -> LoopbackResponse
    ) async throws {
        let (store, directory) = try RequestSupport.makeStore()
        defer { withExtendedLifetime(directory) {} }
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Post")
        loopback.route("/p1", page(#"[{"id": 1}]"#))
        loopback.route("/p1/etc/passwd", page(#"[{"id": 2}]"#))
        loopback.route("/etc/passwd", page(#"[{"id": 2}]"#))
        var pages = 0
        let error = await #expect(throws: WebRecordError.self) {
            for try await _ in store.pages(entity: "Post", urn: "p1", options: PagingOptions(pagination: pagination)) {
                pages += 1
            }
        }
        #expect(pages == 1, "the first page is populated")
        let message = error?.message ?? ""
        #expect(message.contains("is not requested: WebRecord follows only http and https URLs"), "\(message)")
        #expect(message.contains(link), "the message names the URL: \(message)")
        #expect(loopback.requests.map(\.path) == ["/p1"], "the link was never requested")
        #expect(try store.fetch("Post").compactMap { $0["id"] as Int? } == [1])
    }

    // MARK: - Headers

    @Test func aHeaderPastTheTransportsLimitNamesTheLimit() async throws {
        loopback.route(
            "/big", .json("[]", headers: ["X-Padding": String(repeating: "a", count: 200_000)]))
        let server = HTTPServer(baseURL: loopback.baseURL)

        let error = await #expect(throws: WebRecordError.self) { try await server.response(for: request("big")) }

        let message = error?.message ?? ""
        #expect(error?.code == .serverError)
        #expect(message.contains("has a header larger than the limit"), "\(message)")
        #expect(message.contains("102400 bytes"), "the message names the limit: \(message)")
        #expect(!message.contains("Out of memory"), "\(message)")
    }
}

/// A server whose responses say they were fetched through an https-to-http redirect.
private final class DowngradingServer: HTTPServer, @unchecked Sendable {
    override func decodeResponse(data: Data, response: HTTPURLResponse, request: ServerRequest) throws
        -> ServerResponse
    {
        var decoded = try super.decodeResponse(data: data, response: response, request: request)
        if case .follow(_, let warning?) = HTTPSessionDelegate.decide(
            URLRequest(url: baseURL), location: baseURL.absoluteString,
            from: URL(string: "https://\(baseURL.host ?? "")/"))
        {
            decoded.warnings.append(warning)
        }
        return decoded
    }
}

/// A server whose page manager names `link` as the next page.
private final class LinkingServer: HTTPServer, @unchecked Sendable {
    let link: String

    init(baseURL: URL, link: String) {
        self.link = link
        super.init(baseURL: baseURL)
    }

    override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
        FixedPageManager(next: request.urn == link ? nil : link)
    }
}

private struct FixedPageManager: PageManager {
    var next: String?
    var nextPageURN: String? { next }
}
