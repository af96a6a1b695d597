import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Every type that can carry a secret shows it redacted in `String(describing:)`,
/// `String(reflecting:)` and `dump`, through the one redaction of `Logging/Redaction.swift`.
@Suite struct RedactionTests {
    static let secret = "S3cr3tT0kenValue"

    /// The three ways a value is shown: no secret in any, a redaction marker in each.
    func expectRedacted(_ value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        var dumped = ""
        dump(value, to: &dumped)
        for (way, text) in [
            ("describing", String(describing: value)), ("reflecting", String(reflecting: value)), ("dump", dumped),
        ] {
            #expect(!text.contains(Self.secret), "\(way): \(text)", sourceLocation: sourceLocation)
            #expect(
                text.contains("redacted"), "\(way) shows no redaction marker: \(text)", sourceLocation: sourceLocation)
        }
    }

    var request: ServerRequest {
        var request = ServerRequest(
            urn: "posts?count=2&access_token=\(Self.secret)",
            data: ["q": "swift", "client_secret": .string(Self.secret)],
            headers: ["authorization": "token \(Self.secret)", "X-Client": "tests"], entityName: "Post")
        request.page = PageInformation(index: 1, previousPageManager: pageManager)
        return request
    }

    var response: ServerResponse {
        ServerResponse(
            body: ["data": [["id": "1", "refresh_token": .string(Self.secret)]]],
            headers: ["Set-Cookie": "session=\(Self.secret)", "Content-Type": "application/json"], statusCode: 200,
            url: URL(
                string:
                    "https://me:\(Self.secret)@api.example.com/posts?Access_Token=\(Self.secret)#token=\(Self.secret)"))
    }

    var pageManager: BuiltInPageManager {
        BuiltInPageManager(
            nextPageURN: "https://api.example.com/posts?page=2&access_token=\(Self.secret)",
            nextPageData: ["api_key": .string(Self.secret)])
    }

    var error: WebRecordError {
        var error = WebRecordError(
            .serverError, "HTTP 401 from https://api.example.com/posts?access_token=\(Self.secret)",
            value: ["password": .string(Self.secret)],
            cause: TransportError(code: -1, description: "failed for https://u:\(Self.secret)@host/"))
        error.httpStatus = 401
        return error
    }

    var debugger: Debugger {
        let debugger = Debugger(initialEntity: "Post")
        debugger.record(error)
        debugger.setResponseObject(["token": .string(Self.secret)])
        return debugger
    }

    var result: RequestResult<Record> {
        RequestResult<Record>(
            population: PopulationResult(records: [], debugger: debugger, changesByEntity: [:]), response: response,
            request: request, pageManager: pageManager)
    }

    var options: RequestOptions {
        RequestOptions(
            server: HTTPServer(baseURL: URL(string: "https://api.example.com/")!), headers: ["X-Api-Key": Self.secret],
            timeout: 5)
    }

    @Test func serverRequest() { expectRedacted(request) }
    @Test func serverResponse() { expectRedacted(response) }
    @Test func requestOptions() { expectRedacted(options) }
    @Test func requestResult() { expectRedacted(result) }
    @Test func requestUpdate() { expectRedacted(RequestUpdate.remote(result)) }
    @Test func builtInPageManager() { expectRedacted(pageManager) }
    @Test func pageInformation() { expectRedacted(PageInformation(index: 1, previousPageManager: pageManager)) }
    @Test func batchRequest() {
        expectRedacted(
            BatchRequest(
                entity: "Post", urn: "posts?token=\(Self.secret)", data: ["secret": .string(Self.secret)],
                options: options))
    }
    @Test func pagingOptions() { expectRedacted(PagingOptions(request: options, pagination: .linkHeader)) }
    @Test func webRecordError() { expectRedacted(error) }
    @Test func webRecordFailure() { expectRedacted(WebRecordError(error, debugger: debugger)) }
    @Test func debuggerShowsNoSecret() { expectRedacted(debugger) }
    @Test func httpServer() {
        expectRedacted(
            HTTPServer(
                baseURL: URL(string: "https://bot:\(Self.secret)@api.example.com/v1/")!,
                headers: [
                    "Authorization": "Bearer \(Self.secret)", "Proxy-Authorization": Self.secret,
                    "X-Auth-Token": Self.secret,
                ]))
    }

    @Test func page() async throws {
        let page = Page<Record>(
            index: 0, records: [], result: result, pageManager: pageManager,
            progress: PagingProgress(pagesFetched: 1, recordsPopulated: 0, elapsed: 0), isLast: true,
            orphansDeleted: [:])
        expectRedacted(page)
    }

    @Test func pageSequence() throws {
        let store = try RecordStore(
            inMemory: try Schema(
                json: #"{"entities": {"Post": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}}}}"#,
                fileName: "s.json"))
        expectRedacted(
            store.pages(entity: "Post", urn: "posts?access_token=\(Self.secret)", data: ["token": .string(Self.secret)])
        )
    }

    // MARK: - The redaction itself

    @Test(arguments: [
        "Authorization", "PROXY-AUTHORIZATION", "cookie", "Set-Cookie", "X-Api-Key", "x-auth-token", "X-Access-Token",
        "X-CSRF-Token", "client_secret", "ACCESS_TOKEN", "refresh_token", "api_key", "apikey", "token", "password",
        "secret", "signature", "sig", "auth", "X-Amz-Signature",
    ])
    func usualSecretNamesMatchIgnoringCase(name: String) {
        #expect(Redaction.isSecret(name))
        #expect(Redaction.isSecret(name.uppercased()))
    }

    @Test(arguments: ["page", "count", "key", "id", "Content-Type", "Accept"])
    func ordinaryNamesAreNotSecret(name: String) {
        #expect(!Redaction.isSecret(name))
    }

    @Test func secretNamesStayConfigurable() {
        #expect(!Redaction.isSecret("X-Redaction-Test-Credential"))
        let previous = Redaction.secretNames
        Redaction.secretNames = previous.union(["X-Redaction-Test-Credential"])
        defer { Redaction.secretNames = previous }
        #expect(Redaction.isSecret("x-redaction-test-credential"))
        #expect(
            Redaction.headers(["X-REDACTION-TEST-CREDENTIAL": Self.secret]) == [
                "X-REDACTION-TEST-CREDENTIAL": "<redacted>"
            ])
    }

    @Test(arguments: [
        ("https://user:\(secret)@host.example/path", "https://user:%3Credacted%3E@host.example/path"),
        (
            "https://host.example/p?a=1&Access_Token=\(secret)&b=2",
            "https://host.example/p?a=1&Access_Token=%3Credacted%3E&b=2"
        ),
        (
            "https://host.example/cb#access_token=\(secret)&state=x",
            "https://host.example/cb#access_token=%3Credacted%3E&state=x"
        ),
        ("https://host.example/p?page=2", "https://host.example/p?page=2"),
    ])
    func urls(url: String, redacted: String) throws {
        #expect(Redaction.url(URL(string: url)) == redacted)
    }

    @Test(arguments: [
        ("posts?access_token=\(secret)&count=2", "posts?access_token=<redacted>&count=2"),
        (
            "https://u:\(secret)@h.example/x?token=\(secret)",
            "https://u:%3Credacted%3E@h.example/x?token=%3Credacted%3E"
        ),
        ("posts/1", "posts/1"),
    ])
    func urns(urn: String, redacted: String) {
        #expect(Redaction.urn(urn) == redacted)
    }

    @Test(arguments: [
        (
            "could not reach https://u:\(secret)@h.example/: refused",
            "could not reach https://u:<redacted>@h.example/: refused"
        ),
        ("failed: access_token=\(secret)&page=2", "failed: access_token=<redacted>&page=2"),
        ("'password=\(secret)' and id=5", "'password=<redacted>' and id=5"),
        // A percent-encoded name, as a URL's query may write it (libpq reads it as `password`).
        (
            "postgresql://u@/db?host=/x&pass%77ord=\(secret)&sslmode=require",
            "postgresql://u@/db?host=/x&pass%77ord=<redacted>&sslmode=require"
        ),
        ("mail me at someone@example.com", "mail me at someone@example.com"),
        ("already access_token=%3Credacted%3E", "already access_token=%3Credacted%3E"),
        // A URL mistyped with one slash or none keeps its password out (a tool takes it for a path).
        ("no such file: http:/alice:pw123@host/x", "no such file: http:/alice:<redacted>@host/x"),
        ("http:alice:pw123@host/x: no such file", "http:alice:<redacted>@host/x: no such file"),
        ("see note:alice:pw123@host", "see note:alice:pw123@host"),
        // GitLab's parameter, beside its `Private-Token` header.
        (
            "https://gitlab.example.com/api/v4/projects?private_token=glpat-abc",
            "https://gitlab.example.com/api/v4/projects?private_token=<redacted>"
        ),
        // The example of `Redaction.redacted(_:)`'s documentation.
        (
            "https://me:pw@api.example.com/posts?access_token=abc&count=20",
            "https://me:<redacted>@api.example.com/posts?access_token=<redacted>&count=20"
        ),
    ])
    func freeText(text: String, redacted: String) {
        #expect(Redaction.redacted(text) == redacted)
    }

    @Test func echoedValuesAreScrubbed() {
        let secrets = Redaction.secretValues(
            headers: ["Authorization": "token \(Self.secret)", "Accept": "application/json"],
            url: URL(string: "https://h.example/x?api_key=k%20\(Self.secret)&page=abcd"))
        #expect(secrets.contains(Self.secret))
        #expect(!secrets.contains("abcd"))
        let scrubbed = Redaction.scrubbing(
            "bad token \(Self.secret); key k \(Self.secret); page abcd", secrets: secrets)
        #expect(!scrubbed.contains(Self.secret))
        #expect(scrubbed.contains("page abcd"))
    }

    @Test func shortValuesAreNotScrubbedFromText() {
        #expect(Redaction.scrubbing("a bad answer", secrets: ["a", "bad"]) == "a bad answer")
    }
}
