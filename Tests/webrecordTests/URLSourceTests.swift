import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate` with http(s) URL sources, against a real server on 127.0.0.1.
@Suite(.measuresTime) struct URLSourceTests {
    let directory: TemporaryDirectory
    let schema: String
    let posts: String
    let server: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        schema = try CLI.fixture("appnet-schema.json").path
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        posts = String(decoding: data, as: UTF8.self)
        server = try LoopbackHTTPServer()
    }

    var db: String { directory.path("appnet.sqlite") }

    func populate(_ sources: [String], _ extra: [String] = []) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", "--json"] + extra + sources,
            in: directory.url)
    }

    /// Populates from a file so the store exists, and returns its bytes.
    func populatedStore() async throws -> Data {
        let file = try directory.write("posts.json", posts)
        let result = try await populate([file])
        #expect(result.status == 0, "\(result)")
        return try Data(contentsOf: URL(fileURLWithPath: db))
    }

    @Test func populatesFromAURL() async throws {
        server.route("/stream/0/posts/stream/global", .json(posts))
        let url = server.url("/stream/0/posts/stream/global?count=20").absoluteString
        let result = try await populate(
            [url], ["--header", "Authorization: Bearer secret", "--header=X-Client: webrecord"])
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("records") == 20)
        #expect(try Summary(result).int("Post", "inserted") == 20)

        let requests = server.requests(to: "/stream/0/posts/stream/global")
        #expect(requests.count == 1)
        #expect(requests.first?.method == "GET")
        #expect(requests.first?.query == "count=20")
        #expect(requests.first?.header("Authorization") == "Bearer secret")
        #expect(requests.first?.header("X-Client") == "webrecord")
    }

    @Test func filesAndURLsMix() async throws {
        server.route("/posts", .json(posts))
        let file = try directory.write("posts.json", posts)
        let result = try await populate([file, server.url("/posts").absoluteString])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("records") == 40)
        #expect(summary.int("Post", "inserted") == 20)
        #expect(summary.int("Post", "unchanged") == 20)
    }

    /// Each failure exits 1 with one line on stderr and leaves the store byte-for-byte as it was.
    func expectFailure(
        _ url: String, _ extra: [String] = [], _ check: (String) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = try await populatedStore()
        let result = try await populate([url], extra)
        #expect(result.status == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1, "\(result)", sourceLocation: sourceLocation)
        let line = result.stderrLines.first ?? ""
        // With --json, stdout holds the failure object: the same message, nothing saved (DESIGN §5).
        let failure = try? JSONReader().read(result.stdoutData)
        #expect(
            "webrecord: error: " + (failure?["error"]?["message"]?.stringValue ?? "") == line,
            "\(result)", sourceLocation: sourceLocation)
        #expect(failure?["savedSources"] == [] && failure?["orphansDeleted"] == false, sourceLocation: sourceLocation)
        #expect(line.hasPrefix("webrecord: error: "), "\(line)", sourceLocation: sourceLocation)
        #expect(check(line), "\(line)", sourceLocation: sourceLocation)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: db)) == before, "store unchanged", sourceLocation: sourceLocation)
    }

    @Test func serverError() async throws {
        server.route("/posts", .status(500))
        try await expectFailure(server.url("/posts").absoluteString) {
            $0.contains("serverError") && $0.contains("HTTP 500")
        }
    }

    @Test func aServerFailureNamesTheURLAndNoEntity() async throws {
        server.route("/posts", .json(#"{"error": "down"}"#, status: 500))
        let url = server.url("/posts").absoluteString
        try await expectFailure(url) {
            $0 == #"webrecord: error: serverError: HTTP 500 from \#(url): {"error": "down"}"#
        }
    }

    @Test func aPopulationFailureNamesTheSource() async throws {
        server.route("/posts", .json(#"{"data": 5}"#))
        let url = server.url("/posts").absoluteString
        try await expectFailure(url) {
            $0
                == "webrecord: error: \(url): invalidResponseFormat: Post, key path 'data': the value at 'data' is integer; expected an object or an array; the response: {\"data\":5}"
        }
    }

    @Test(arguments: [[], ["--paginate", "link-header"]])
    func aFailingFirstURLCreatesNoStore(extra: [String]) async throws {
        server.route("/posts", .status(500))
        let result = try await populate([server.url("/posts").absoluteString], extra)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("serverError"), "\(result)")
        #expect(server.requests(to: "/posts").count == 1)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty,
            "no store file or companion")
    }

    @Test func truncatedBody() async throws {
        server.route(
            "/posts",
            LoopbackResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Array(posts.utf8),
                truncatedLength: 100))
        try await expectFailure(server.url("/posts").absoluteString) { $0.contains("invalidResponseFormat") }
    }

    @Test func notJSONContentType() async throws {
        server.route("/posts", .text("<html>maintenance</html>", contentType: "text/html"))
        try await expectFailure(server.url("/posts").absoluteString) {
            $0.contains("invalidResponseFormat") && $0.contains("text/html")
        }
    }

    @Test func malformedJSONBody() async throws {
        server.route("/posts", .json("{\n  \"data\": [\n}"))
        try await expectFailure(server.url("/posts").absoluteString) {
            $0.contains("not valid JSON") && $0.contains("line 3, column 1")
        }
    }

    @Test func refusedConnection() async throws {
        // A port held bound and not listening: no other test's server can be given it meanwhile.
        let closed = try RefusingPort()
        let url = closed.url("/posts").absoluteString
        try await expectFailure(url) { $0.contains("serverError") && $0.contains("could not reach") }
        withExtendedLifetime(closed) {}
    }

    @Test func timeout() async throws {
        // The server would answer after ten minutes, longer than `CLI.run` lets the process
        // live (five minutes, then SIGKILL): only `--timeout 0.5` can end this run with an
        // error of its own. That holds however loaded the machine is, so no elapsed time is compared.
        server.route("/posts", .json(posts, delay: 600))
        try await expectFailure(server.url("/posts").absoluteString, ["--timeout", "0.5"]) {
            $0.contains("serverError") && $0.contains("within 0.50 s")
        }
        #expect(server.requests(to: "/posts").count == 1, "the request was sent")
        #expect(server.answered(to: "/posts").isEmpty, "the run ended before the server answered")
    }

    @Test func credentialsInTheURLAreNotPrinted() async throws {
        server.route("/posts", .status(500))
        var components = try #require(URLComponents(url: server.url("/posts"), resolvingAgainstBaseURL: false))
        components.user = "alice"
        components.password = "hunter2"
        let url = try #require(components.url).absoluteString
        try await expectFailure(url) { !$0.contains("hunter2") }
    }
}
