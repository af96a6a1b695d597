import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate --paginate`, `--max-pages` and `--delete-orphans`, against a loopback server.
@Suite(.measuresTime) struct PaginateCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let posts: [JSONValue]
    let server: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        schema = try CLI.fixture("appnet-schema.json").path
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        posts = try JSONReader().read(data)["data"]?.arrayValue ?? []
        server = try LoopbackHTTPServer()
    }

    var db: String { directory.path("appnet.sqlite") }

    /// Serves the 20 fixture posts as pages of `size` at /page1, /page2, ... linked by `meta.next`.
    func servePages(size: Int, failing: Int? = nil) {
        let chunks = stride(from: 0, to: posts.count, by: size).map { Array(posts[$0..<min($0 + size, posts.count)]) }
        for (offset, chunk) in chunks.enumerated() {
            let number = offset + 1
            if number == failing {
                server.route("/page\(number)", .status(500))
                continue
            }
            let next: JSONValue =
                number < chunks.count ? .string(server.url("/page\(number + 1)").absoluteString) : .null
            let body: JSONValue = ["data": .array(chunk), "meta": ["next": next]]
            server.route("/page\(number)", .json(body.serialized()))
        }
    }

    func populate(_ extra: [String]) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", "--json"] + extra
                + [server.url("/page1").absoluteString], in: directory.url)
    }

    func storedPostIDs() throws -> [String] {
        let store = try RecordStore(path: db, schema: Schema(contentsOf: URL(fileURLWithPath: schema)))
        return try store.fetch("Post", orderBy: [.ascending("id")]).compactMap { $0["id"] as String? }
    }

    @Test func followsALinkObjectsHrefAndFailsOnANextThatIsNotALink() async throws {
        let first = Array(posts[0..<5])
        let second = Array(posts[5..<10])
        server.route(
            "/page1",
            .json(JSONValue.object(["data": .array(first), "meta": ["next": ["href": "/page2"]]]).serialized()))
        server.route("/page2", .json(JSONValue.object(["data": .array(second), "meta": ["next": 3]]).serialized()))
        let result = try await populate(["--paginate", "next-url:meta.next"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("'meta.next'"), "\(result.stderr)")
        #expect(result.stderr.contains("integer"), "\(result.stderr)")
        #expect(server.requests(to: "/page2").count == 1, "the link object was followed")
        #expect(try storedPostIDs().count == 10, "both pages were populated before the bad link stopped paging")
    }

    /// A URL source that names a next page, populated without --paginate, is one page of a
    /// longer list: --delete-orphans deleted the posts of the pages it names. Now it deletes
    /// nothing, and a warning says how to follow the pages.
    @Test func aFirstPageWithoutPaginateDeletesNoOrphans() async throws {
        servePages(size: 5)
        let all = try await populate(["--paginate", "next-url:meta.next"])
        #expect(all.status == 0, "\(all)")
        #expect(try storedPostIDs().count == 20)

        let result = try await populate(["--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("deleted") == 0, "\(result.stdout)")
        #expect(try storedPostIDs().count == 20, "posts of the pages the first page names were deleted")
        let messages = summary.warnings.compactMap { $0["message"]?.stringValue }
        #expect(
            messages.contains {
                $0.contains("names a next page ('meta.next')") && $0.contains("no orphans were deleted")
                    && $0.contains("--paginate next-url:meta.next")
            }, "\(messages)")
        #expect(server.requests(to: "/page2").count == 1, "only the paged run asked for page 2")
    }

    @Test func followsEveryPage() async throws {
        servePages(size: 5)
        let result = try await populate(["--paginate", "next-url:meta.next"])
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("records") == 20)
        #expect(try Summary(result).int("Post", "inserted") == 20)
        #expect((1...4).allSatisfy { server.requests(to: "/page\($0)").count == 1 })
        #expect(result.stderr.isEmpty, "no progress line in a pipe")
    }

    @Test func maxPagesStopsEarly() async throws {
        servePages(size: 5)
        let result = try await populate(["--paginate=next-url:meta.next", "--max-pages", "2"])
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("records") == 10)
        #expect(server.requests(to: "/page3").isEmpty)
    }

    @Test func deleteOrphansAfterTheLastPage() async throws {
        servePages(size: 5)
        let extra = try directory.write("extra.json", #"{"data": [{"id": "orphan-1", "text": "old"}]}"#)
        let seeded = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", extra], in: directory.url)
        #expect(seeded.status == 0, "\(seeded)")
        let result = try await populate(["--paginate", "next-url:meta.next", "--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("Post", "deleted") == 1)
        #expect(try !storedPostIDs().contains("orphan-1"))
        #expect(try storedPostIDs().count == 20)
    }

    @Test func aFailingPageExitsOneKeepsEarlierPagesAndDeletesNothing() async throws {
        servePages(size: 5, failing: 3)
        let extra = try directory.write("extra.json", #"{"data": [{"id": "orphan-1", "text": "old"}]}"#)
        _ = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", extra], in: directory.url)
        let result = try await populate(["--paginate", "next-url:meta.next", "--delete-orphans"])
        #expect(result.status == 1)
        let failure = try JSONReader().read(result.stdoutData)
        #expect(failure["error"]?["code"] == "serverError", "\(result)")
        #expect(failure["failedSource"]?["pagesSaved"] == 2 && failure["orphansDeleted"] == false, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderr.contains("serverError") && result.stderr.contains("no orphans were deleted"))
        let stored = try storedPostIDs()
        #expect(stored.count == 11, "two pages of five and the orphan")
        #expect(stored.contains("orphan-1"))
    }

    @Test func anUnknownPaginationKindIsAUsageError() async throws {
        let result = try await populate(["--paginate", "pages:2"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid --paginate 'pages:2'"))
        #expect(server.requests.isEmpty)
    }
}
