import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Paging against servers that never say "last page", and credentials on redirects: the run
/// ends by itself and says why, and a token never follows a redirect to another origin.
@Suite(.measuresTime) struct PagingEndTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        loopback = try LoopbackHTTPServer()
        store.register(
            HTTPServer(baseURL: loopback.baseURL, headers: ["Authorization": "token S3CRET", "X-Trace": "t1"]),
            forEntity: "Post")
    }

    func page(_ ids: [Int]) -> LoopbackResponse {
        .json(RequestSupport.postsBody(ids).serialized())
    }

    func collect(_ pages: PageSequence<Record>) async throws -> [Page<Record>] {
        var result: [Page<Record>] = []
        for try await page in pages { result.append(page) }
        return result
    }

    @Test func aServerThatClampsOffsetsEndsWithRepeatedPageAndDeletesNothing() async throws {
        _ = try await store.populate(try JSONReader().read(#"{"data": [{"id": 99, "text": "kept"}]}"#), entity: "Post")
        // Offsets past the end are clamped: every later page is the last one again, full.
        loopback.route("/clamped", [page([1, 2]), page([3, 4]), page([3, 4])])
        var options = PagingOptions(pagination: .offset(parameter: "offset", limitParameter: "limit", limit: 2))
        options.request.population.deleteOrphans = .all
        let pages = try await collect(store.pages(entity: "Post", urn: "clamped", options: options))
        #expect(pages.count == 3)
        #expect(pages.last?.end == .repeatedPage && pages.last?.result.pagingEnd == .repeatedPage)
        #expect(
            loopback.requests(to: "/clamped").map { $0.query ?? "" } == [
                "offset=0&limit=2", "offset=2&limit=2", "offset=4&limit=2",
            ])
        #expect(pages.last?.orphansDeleted.isEmpty == true)
        #expect(try store.fetchOne("Post", primaryKey: 99) != nil)
        #expect(pages.last?.result.debugger.warnings.contains { $0.message.contains("not advancing") } == true)
        #expect(
            pages.last?.result.debugger.warnings.contains { $0.message.contains("no orphans were deleted") } == true)
    }

    @Test(arguments: [
        Pagination.cursor(keyPath: "cursor", parameter: "max_id"), .pageNumber(parameter: "page"),
        .offset(parameter: "offset", limitParameter: "limit", limit: 2), .nextURL(keyPath: "next"),
    ])
    func aServerThatIgnoresWhatItIsSentEndsWithRepeatedPageAndDeletesNothing(pagination: Pagination) async throws {
        _ = try await store.populate(
            try JSONReader().read(#"{"data": [{"id": 3, "text": "on a page never reached"}]}"#), entity: "Post")
        // Every request gets page 1, which names its own cursor, and itself as the next URL:
        // a wrong parameter name, which the server ignores.
        loopback.route("/feed", .json(#"{"data": [{"id": 1}, {"id": 2}], "cursor": "X", "next": "/feed"}"#))
        var options = PagingOptions(pagination: pagination)
        options.request.population.deleteOrphans = .all
        let pages = try await collect(store.pages(entity: "Post", urn: "feed", options: options))
        #expect(pages.last?.end == .repeatedPage, "\(pages.map(\.end))")
        #expect(pages.last?.orphansDeleted.isEmpty == true)
        #expect(try store.fetchOne("Post", primaryKey: 3) != nil, "a record the run never reached is kept")
        #expect(loopback.requests(to: "/feed").count <= 2)
    }

    @Test func aServerThatIgnoresItsCursorIsCaughtWhenTheRecordsAreNotReturnedToo() async throws {
        _ = try await store.populate(try JSONReader().read(#"{"data": [{"id": 3}]}"#), entity: "Post")
        loopback.route("/bulk", .json(#"{"data": [{"id": 1}, {"id": 2}], "cursor": "X"}"#))
        var options = PagingOptions(pagination: .cursor(keyPath: "cursor", parameter: "max_id"))
        options.request.population.deleteOrphans = .all
        options.request.population.returnsRecords = false
        let pages = try await collect(store.pages(entity: "Post", urn: "bulk", options: options))
        #expect(pages.last?.end == .repeatedPage, "\(pages.map(\.end))")
        #expect(try store.fetchOne("Post", primaryKey: 3) != nil)
    }

    @Test func aFailingPageNumberedPageNamesItsParameters() async throws {
        loopback.route("/list", [page([1, 2]), .status(500)])
        let failure = await #expect(throws: WebRecordError.self) {
            _ = try await collect(
                store.pages(
                    entity: "Post", urn: "list", options: PagingOptions(pagination: .pageNumber(parameter: "page"))))
        }
        #expect(failure?.message.contains(#"(page 2, "#) == true, "\(String(describing: failure))")
        #expect(failure?.message.contains(#""page":2"#) == true, "\(String(describing: failure))")
    }

    @Test func aNextLinkBackToAnEarlierPageEndsWithRepeatedPage() async throws {
        loopback.route("/a", .json(#"{"data": [{"id": 1}], "next": "/b"}"#))
        loopback.route("/b", .json(#"{"data": [{"id": 2}], "next": "/c"}"#))
        loopback.route("/c", .json(#"{"data": [{"id": 3}], "next": "/a"}"#))
        let pages = try await collect(
            store.pages(entity: "Post", urn: "a", options: PagingOptions(pagination: .nextURL(keyPath: "next"))))
        #expect(pages.map(\.end) == [nil, nil, .repeatedPage])
        #expect(loopback.requests.map(\.path) == ["/a", "/b", "/c"])
        #expect(pages.last?.result.debugger.warnings.contains { $0.message.contains("already requested") } == true)
    }

    @Test func aFailingLaterPageIsNamedInTheError() async throws {
        loopback.route("/a", .json(#"{"data": [{"id": 1}], "next": "/b?x=1"}"#))
        loopback.route("/b", .status(500))
        let failure = await #expect(throws: WebRecordError.self) {
            _ = try await collect(
                store.pages(entity: "Post", urn: "a", options: PagingOptions(pagination: .nextURL(keyPath: "next"))))
        }
        #expect(failure?.message.contains("(page 2, ") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("/b?x=1") == true, "\(String(describing: failure))")
    }

    @Test func theEndingIsTheServersWhenItNamesNoMore() async throws {
        loopback.route("/one", .json(#"{"data": [{"id": 1}], "next": null}"#))
        let pages = try await collect(
            store.pages(entity: "Post", urn: "one", options: PagingOptions(pagination: .nextURL(keyPath: "next"))))
        #expect(pages.map(\.end) == [.noNextPage])
        #expect(PagingEnd.noNextPage.isComplete && PagingEnd.emptyPage.isComplete && PagingEnd.shortPage.isComplete)
        #expect(
            !PagingEnd.repeatedPage.isComplete && !PagingEnd.pageLimit.isComplete
                && !PagingEnd.uncountablePage.isComplete)
    }

    @Test func theDefaultPageLimitEndsAnEndlessRun() async throws {
        #expect(PagingOptions.defaultMaximumPages == 10_000)
        loopback.route("/endless", page([1]))
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "endless",
                options: PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: 4)))
        // Pages 2.. repeat page 1's records: the run ends before the limit, as not advancing.
        #expect(pages.count == 2 && pages.last?.end == .repeatedPage)
    }

    @Test func aRedirectToAnotherOriginDropsTheCredentials() async throws {
        let other = try LoopbackHTTPServer()
        other.route("/data", page([1]))
        loopback.route("/moved", .redirect(to: other.url("/data").absoluteString))
        _ = try await store.startRequest(entity: "Post", urn: "moved")
        let arrived = try #require(other.requests(to: "/data").first)
        #expect(arrived.header("Authorization") == nil)
        #expect(arrived.header("X-Trace") == "t1")
        #expect(loopback.requests(to: "/moved").first?.header("Authorization") == "token S3CRET")
    }

    @Test func aRedirectWithinTheOriginKeepsThem() async throws {
        loopback.route("/hop", .redirect(to: loopback.url("/data").absoluteString))
        loopback.route("/data", page([1]))
        _ = try await store.startRequest(entity: "Post", urn: "hop")
        #expect(loopback.requests(to: "/data").first?.header("Authorization") == "token S3CRET")
    }
}
