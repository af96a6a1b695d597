import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A record named twice in one response keeps every value it was given, in PostgreSQL: the
/// Jira-shaped page whose short copies come before and after the full issues, through the
/// library (whole, streamed, paged) and through `webrecord populate --db postgresql://...`.
@Suite struct PostgreSQLRepeatedRecordTests {
    static let cases: [(JiraIssues.Order, JiraIssues.Way)] = JiraIssues.Order.allCases.flatMap { order in
        [JiraIssues.Way.whole, .streamed(batchBytes: 1), .pages(size: 1), .pages(size: 3)].map { (order, $0) }
    }

    @Test(arguments: cases)
    func aShortCopyNeverHidesWhatTheFullIssueGave(order: JiraIssues.Order, way: JiraIssues.Way) async throws {
        let server = try PostgreSQLTestServer.shared()
        let url = server.url(database: try server.makeDatabase())
        let store = try RecordStore(postgreSQL: url, schema: JiraIssues.schema())
        defer { store.close() }
        let results = try await JiraIssues.populate(JiraIssues.issues(order), into: store, way: way)
        #expect(try JiraIssues.facts(in: store) == JiraIssues.expectedFacts, "\(order), \(way)")
        #expect(results.allSatisfy { !$0.debugger.contains(.typeMismatch) }, "\(results.map(\.debugger.errors))")
    }

    /// The CLI into PostgreSQL, from a file and paged over HTTP in pages of 1 and of 3.
    @Test(arguments: JiraIssues.Order.allCases)
    func theCommandKeepsWhatEveryCopyGave(order: JiraIssues.Order) async throws {
        let server = try PostgreSQLTestServer.shared()
        let webrecord = try BuiltExecutables.executable("webrecord", besides: Bundle.main)
        let directory = try TemporaryDirectory()
        let issues = try JiraIssues.issues(order)
        let file = directory.path("issues.json")
        try Data(JiraIssues.page(issues).serialized().utf8).write(to: URL(fileURLWithPath: file))
        let http = try LoopbackHTTPServer()
        for size in [1, 3] {
            let chunks = stride(from: 0, to: issues.count, by: size).map {
                Array(issues[$0..<min($0 + size, issues.count)])
            }
            for (offset, chunk) in chunks.enumerated() {
                guard case .object(var page) = JiraIssues.page(chunk, startAt: offset * size, total: issues.count)
                else { continue }
                page["nextPage"] =
                    offset + 1 < chunks.count ? .string(http.url("/\(size)/\(offset + 2)").absoluteString) : .null
                http.route("/\(size)/\(offset + 1)", .json(JSONValue.object(page).serialized()))
            }
        }
        let runs: [(String, [String])] = [
            ("a file", [file]),
            ("pages of 1", ["--paginate", "next-url:nextPage", http.url("/1/1").absoluteString]),
            ("pages of 3", ["--paginate", "next-url:nextPage", http.url("/3/1").absoluteString]),
        ]
        for (name, source) in runs {
            let url = server.url(database: try server.makeDatabase())
            let run = try await ChildProcess.run(
                webrecord,
                ["populate", "--schema", JiraIssues.schemaURL.path, "--db", url, "--entity", "Issue", "--quiet"]
                    + source, timeout: 300)
            #expect(run.status == 0, "\(name): \(run)")
            let store = try RecordStore(postgreSQL: url, schema: JiraIssues.schema())
            defer { store.close() }
            #expect(try JiraIssues.facts(in: store) == JiraIssues.expectedFacts, "\(order), \(name)")
        }
    }
}
