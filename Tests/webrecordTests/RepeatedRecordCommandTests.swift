import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate` of a Jira-shaped page whose issues are named again by short copies
/// (`Tests/WebRecordTests/Fixtures/jira/`): every issue keeps what its full copy gave, from a
/// file or standard input, and paged over HTTP whatever the page size, in either order.
@Suite struct RepeatedRecordCommandTests {
    let directory: TemporaryDirectory
    let server: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        server = try LoopbackHTTPServer()
    }

    var db: String { directory.path("jira.sqlite") }

    func populate(_ arguments: [String], input: Data? = nil) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", JiraIssues.schemaURL.path, "--db", db, "--entity", "Issue", "--json"] + arguments,
            in: directory.url, input: input)
    }

    func facts() throws -> [String] {
        try JiraIssues.facts(in: RecordStore(path: db, schema: JiraIssues.schema()))
    }

    /// Serves `issues` as pages of `size` at /search/1, /search/2, ..., each naming the next in
    /// `nextPage`, the last with a null one.
    func servePages(_ issues: [JSONValue], size: Int) {
        let chunks = stride(from: 0, to: issues.count, by: size).map {
            Array(issues[$0..<min($0 + size, issues.count)])
        }
        for (offset, chunk) in chunks.enumerated() {
            guard case .object(var page) = JiraIssues.page(chunk, startAt: offset * size, total: issues.count) else {
                continue
            }
            page["nextPage"] =
                offset + 1 < chunks.count ? .string(server.url("/search/\(offset + 2)").absoluteString) : .null
            server.route("/search/\(offset + 1)", .json(JSONValue.object(page).serialized()))
        }
    }

    @Test(arguments: JiraIssues.Order.allCases)
    func aFileOrStandardInputKeepsWhatEveryCopyGave(order: JiraIssues.Order) async throws {
        let page = JiraIssues.page(try JiraIssues.issues(order)).serialized()
        let file = directory.path("issues.json")
        try Data(page.utf8).write(to: URL(fileURLWithPath: file))
        let result = try await populate([file])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("typeMismatch"), "\(result.stdout)")
        #expect(try facts() == JiraIssues.expectedFacts, "\(order)")

        try FileManager.default.removeItem(atPath: db)
        let piped = try await populate(["-"], input: Data(page.utf8))
        #expect(piped.status == 0, "\(piped)")
        #expect(try facts() == JiraIssues.expectedFacts, "\(order), standard input")
    }

    @Test(arguments: JiraIssues.Order.allCases, [1, 2, 3, 4])
    func pagesOfAnySizeKeepWhatEveryCopyGave(order: JiraIssues.Order, size: Int) async throws {
        servePages(try JiraIssues.issues(order), size: size)
        let result = try await populate(
            ["--paginate", "next-url:nextPage", server.url("/search/1").absoluteString])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("typeMismatch"), "\(result.stdout)")
        #expect(try facts() == JiraIssues.expectedFacts, "\(order), pages of \(size)")
    }
}
