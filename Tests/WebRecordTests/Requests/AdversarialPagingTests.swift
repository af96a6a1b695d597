import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// An adversarial round on paged syncs over real HTTP (a loopback server on 127.0.0.1): after a
/// run that ends without throwing, the store must hold what the server holds; a run that cannot
/// know it saw the whole list must delete no orphan; a page that fails must leave that page
/// unwritten and delete nothing.
enum AdversarialPaging {
    /// `Item`s at `data`, each in at most one `Folder`; a folder's `items` is a cascading
    /// `replace` list (dropping a member deletes it, but never one the same response contains).
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Item": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "folder": { "destination": "Folder", "inverse": "items" }
              }
            },
            "Folder": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
              "relationships": {
                "items": {
                  "destination": "Item", "toMany": true, "inverse": "folder",
                  "deleteRule": "cascade", "merge": "replace"
                }
              }
            }
          }
        }
        """

    static func schema() throws -> Schema {
        try Schema(json: schemaJSON, fileName: "AdversarialPaging.json")
    }
}

@Suite(.measuresTime) struct AdversarialPagingTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(path: directory.path("adversarial.sqlite"), schema: AdversarialPaging.schema())
        loopback = try LoopbackHTTPServer()
        store.register(
            HTTPServer(baseURL: loopback.baseURL, timeout: 20, maxRetries: 3, retryDelay: 0), forEntity: "Item")
    }

    // MARK: Helpers

    /// `{"data": [{"id": 1, "name": "item 1"}, ...], "meta": {...}}`, names prefixed by `prefix`.
    func body(_ ids: [Int], prefix: String = "item", meta: JSONObject = [:]) -> String {
        JSONValue.object([
            "data": .array(ids.map { ["id": .integer(Int64($0)), "name": .string("\(prefix) \($0)")] }),
            "meta": .object(meta),
        ]).serialized()
    }

    /// A page whose `meta.next` is `next`, null when nil.
    func body(_ ids: [Int], prefix: String = "item", next: String?) -> String {
        body(ids, prefix: prefix, meta: ["next": next.map { .string($0) } ?? .null])
    }

    /// Stores `ids` as they were before the run: every one named "old <id>".
    func seed(_ ids: [Int]) throws {
        _ = try store.populate(
            .object(["data": .array(ids.map { ["id": .integer(Int64($0)), "name": .string("old \($0)")] })]),
            entity: "Item")
    }

    func storedIDs() throws -> [Int] {
        try store.fetch("Item", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    func storedNames() throws -> [Int: String] {
        var names: [Int: String] = [:]
        for record in try store.fetch("Item", orderBy: [.ascending("id")]) {
            if let id: Int = record["id"] { names[id] = record["name"] as String? }
        }
        return names
    }

    /// Runs the paged request to its end, returning the pages and the error it threw, if any.
    func run(_ urn: String, _ options: PagingOptions) async -> (pages: [Page<Record>], error: WebRecordError?) {
        var pages: [Page<Record>] = []
        do {
            for try await page in store.pages(entity: "Item", urn: urn, options: options) { pages.append(page) }
            return (pages, nil)
        } catch {
            return (pages, error)
        }
    }

    func options(_ pagination: Pagination, maximumPages: Int? = nil) -> PagingOptions {
        var options = PagingOptions(pagination: pagination, maximumPages: maximumPages)
        options.request.population.deleteOrphans = .all
        return options
    }

    // MARK: - Totals: the server's stated end, not one the paginator inferred

    /// `.pageNumber(totalKeyPath:)` takes the stated total for reached from the records the
    /// run's pages listed, counted, not from the page number times a guessed page size: a short
    /// first page (1 record) followed by a page of 2 is 3 of 4, so page 3 is fetched, and record
    /// 4, which the server lists there, is not deleted as an orphan.
    @Test func aShortPageBeforeAFullerOneDoesNotMakeTheStatedTotalLookReached() async throws {
        try seed([1, 2, 3, 4, 99])
        loopback.route(
            "/list",
            [
                .json(body([1], meta: ["total": 4])), .json(body([2, 3], meta: ["total": 4])),
                .json(body([4], meta: ["total": 4])), .json(body([], meta: ["total": 4])),
            ])
        let (pages, error) = await run("list", options(.pageNumber(parameter: "page", totalKeyPath: "meta.total")))
        #expect(error == nil, "\(String(describing: error))")
        let ids = try storedIDs()
        #expect(ids.contains(4), "record 4 is on the server's page 3; it was deleted as an orphan: \(ids)")
        #expect(pages.last?.end == .noNextPage)
        #expect(ids == [1, 2, 3, 4], "a complete run leaves exactly the server's list")
        #expect(pages.last?.progress.recordsPopulated == 4)
    }

    /// An empty page before the pages listed the total the server states is not the server's
    /// end (DESIGN §3.14: deletion runs only when the server stated the end): the run ends
    /// `listMoved`, with a warning, and records 3 and 4, which it never reached, are kept.
    @Test(arguments: ["offset", "pageNumber"])
    func anEmptyPageBeforeTheStatedTotalIsReachedDeletesNoOrphan(kind: String) async throws {
        try seed([1, 2, 3, 4])
        loopback.route(
            "/list",
            [
                .json(body([1, 2], meta: ["total": 4])), .json(body([], meta: ["total": 4])),
                .json(body([3, 4], meta: ["total": 4])),
            ])
        let pagination: Pagination =
            kind == "offset"
            ? .offset(parameter: "offset", limitParameter: "limit", limit: 2, totalKeyPath: "meta.total")
            : .pageNumber(parameter: "page", totalKeyPath: "meta.total")
        let (pages, error) = await run("list", options(pagination))
        let ids = try storedIDs()
        #expect(error == nil, "\(String(describing: error))")
        #expect(ids == [1, 2, 3, 4], "records 3 and 4 were deleted though the total (4) was never reached")
        #expect(pages.last?.end == .listMoved)
        #expect(
            pages.last?.result.debugger.errors.contains {
                $0.message.contains("is empty, but the server stated a total of 4 and the pages listed 2")
            } == true)
        #expect(pages.last?.orphansDeleted.isEmpty == true)
    }

    /// An empty cursor page that still names a new cursor (the server says more follow, as
    /// Slack-style APIs do when a page's records are all filtered out) is followed, as an empty
    /// page that names a next URL is: record 2, on the server's page 3, is reached and kept.
    @Test func anEmptyCursorPageThatNamesANewCursorIsNotTheServersEnd() async throws {
        try seed([1, 2, 99])
        loopback.route(
            "/feed",
            [
                .json(body([1], meta: ["cursor": "c1"])), .json(body([], meta: ["cursor": "c2"])),
                .json(body([2], meta: ["cursor": .null])),
            ])
        let (pages, error) = await run("feed", options(.cursor(keyPath: "meta.cursor", parameter: "after")))
        #expect(error == nil)
        let ids = try storedIDs()
        #expect(pages.count == 3 && pages.last?.end == .noNextPage, "\(pages.map(\.end))")
        #expect(ids == [1, 2], "a complete run leaves exactly the server's list")
    }

    /// The total shrinking between pages (a record deleted meanwhile) is `listMoved`: no orphan.
    @Test func aShrinkingTotalIsListMovedAndDeletesNothing() async throws {
        try seed([1, 2, 3, 4, 5, 6, 99])
        loopback.route(
            "/list", [.json(body([1, 2], meta: ["total": 6])), .json(body([4, 5], meta: ["total": 5]))])
        let (pages, error) = await run("list", options(.pageNumber(parameter: "page", totalKeyPath: "meta.total")))
        #expect(error == nil)
        #expect(pages.last?.end == .listMoved)
        #expect(pages.last?.orphansDeleted.isEmpty == true)
        #expect(try storedIDs() == [1, 2, 3, 4, 5, 6, 99])
    }

    // MARK: - Records that move while the run goes

    @Test func aRecordThatMovesFromPageOneToPageTwoEndsTheRunAsListMoved() async throws {
        try seed([1, 2, 3, 99])
        loopback.route("/p1", .json(body([1, 2], next: "/p2")))
        loopback.route("/p2", .json(body([2, 3], next: nil)))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .listMoved)
        #expect(try storedIDs() == [1, 2, 3, 99])
    }

    @Test func theSameKeyAsTextOnALaterPageIsTheSameRecordAndListMoved() async throws {
        try seed([99])
        loopback.route(
            "/p1", .json(#"{"data": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], "meta": {"next": "/p2"}}"#))
        loopback.route(
            "/p2", .json(#"{"data": [{"id": "2", "name": "b2"}, {"id": "3", "name": "c"}], "meta": {"next": null}}"#))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .listMoved)
        #expect(try storedIDs() == [1, 2, 3, 99])
        #expect(try store.count("Item") == 4, "no duplicate for \"2\"")
    }

    @Test func keysAsTextOnOnePageAndNumbersOnAnotherMakeOneCompleteList() async throws {
        try seed([1, 2, 3, 99])
        loopback.route("/p1", .json(#"{"data": [{"id": 1, "name": "a"}], "meta": {"next": "/p2"}}"#))
        loopback.route(
            "/p2", .json(#"{"data": [{"id": "2", "name": "b"}, {"id": "03", "name": "c"}], "meta": {"next": null}}"#))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .noNextPage)
        #expect(try storedIDs() == [1, 2, 3])
        #expect(try storedNames() == [1: "a", 2: "b", 3: "c"])
        #expect(pages.last?.orphansDeleted == ["Item": 1])
    }

    @Test func aPageThatRepeatsAnEarlierPageUnderAnotherURLIsRepeatedPage() async throws {
        try seed([1, 2, 3, 99])
        loopback.route("/p1", .json(body([1, 2], next: "/p2")))
        loopback.route("/p2", .json(body([3], next: "/p1?cachebust=1")))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .repeatedPage)
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2", "/p1?cachebust=1"])
        #expect(try storedIDs() == [1, 2, 3, 99])
    }

    @Test func emptyPagesThatKeepNamingEachOtherLoopToRepeatedPage() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(body([1], next: "/p2")))
        loopback.route("/p2", .json(body([], next: "/p3")))
        loopback.route("/p3", .json(body([], next: "/p2")))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .repeatedPage)
        #expect(try storedIDs() == [1, 99])
    }

    @Test func anEmptyPageInTheMiddleThatNamesANextPageIsFollowedToTheEnd() async throws {
        try seed([1, 2, 99])
        loopback.route("/p1", .json(body([1], next: "/p2")))
        loopback.route("/p2", .json(body([], next: "/p3")))
        loopback.route("/p3", .json(body([2], next: nil)))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .noNextPage)
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        // The last page's counts include the orphans deleted, as a single request's do.
        #expect(pages.last?.result.population.changesByEntity["Item"]?.deleted == 1)
    }

    /// A record deleted while a next-link run goes (item 1, after page 1) shifts item 3, which
    /// the server pages by offset, onto the page already fetched: the run never sees it. With a
    /// total stated on every page, the change is `listMoved` and nothing is deleted; so is a
    /// last page that comes before the pages listed the total. Without one, the run cannot
    /// tell (Docs/Requests.md, "A stated total guards every kind").
    @Test(arguments: ["next-url", "cursor", "has-more"])
    func aStatedTotalGuardsLinkCursorAndFlagRunsAgainstARecordDeletedMeanwhile(kind: String) async throws {
        func meta(_ total: Int, next: String?) -> JSONObject {
            switch kind {
            case "next-url": ["total": .integer(Int64(total)), "next": next.map { .string($0) } ?? .null]
            case "cursor": ["total": .integer(Int64(total)), "cursor": next.map { .string($0) } ?? .null]
            default: ["total": .integer(Int64(total)), "more": .bool(next != nil)]
            }
        }
        let pagination: Pagination =
            switch kind {
            case "next-url": .nextURL(keyPath: "meta.next", totalKeyPath: "meta.total")
            case "cursor": .cursor(keyPath: "meta.cursor", parameter: "after", totalKeyPath: "meta.total")
            default:
                .hasMore(flagKeyPath: "meta.more", lastKeyPath: "id", parameter: "after", totalKeyPath: "meta.total")
            }
        // The total changes between pages.
        try seed([1, 2, 3, 4, 5])
        loopback.route(
            "/list",
            [.json(body([1, 2], meta: meta(5, next: "/list?p=2"))), .json(body([4, 5], meta: meta(4, next: nil)))])
        var (pages, error) = await run("list", options(pagination))
        #expect(error == nil, "\(String(describing: error))")
        #expect(pages.last?.end == .listMoved, "\(pages.map(\.end))")
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
        // The total stays, and the last page comes before the pages listed it.
        loopback.route(
            "/list",
            [.json(body([1, 2], meta: meta(5, next: "/list?p=2"))), .json(body([4, 5], meta: meta(5, next: nil)))])
        (pages, error) = await run("list", options(pagination))
        #expect(error == nil, "\(String(describing: error))")
        #expect(pages.last?.end == .listMoved, "\(pages.map(\.end))")
        #expect(
            pages.last?.result.debugger.errors.contains {
                $0.message.contains("is the last, but the server stated a total of 5 and the pages listed 4")
            } == true)
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
        // The pages list the total: the server's end, and the orphan goes.
        loopback.route(
            "/list",
            [.json(body([2, 3], meta: meta(4, next: "/list?p=2"))), .json(body([4, 5], meta: meta(4, next: nil)))])
        (pages, error) = await run("list", options(pagination))
        #expect(error == nil, "\(String(describing: error))")
        #expect(pages.last?.end == .noNextPage, "\(pages.map(\.end))")
        #expect(try storedIDs() == [2, 3, 4, 5])
    }

    @Test func aLastPageThatStillNamesMoreEndsAtThePageLimitAndDeletesNothing() async throws {
        try seed([1, 2, 99])
        loopback.route("/p1", .json(body([1], next: "/p2")))
        loopback.route("/p2", .json(body([2], next: "/p3")))
        loopback.route("/p3", .status(404))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next"), maximumPages: 2))
        #expect(error == nil)
        #expect(pages.last?.end == .pageLimit)
        #expect(try storedIDs() == [1, 2, 99])
    }

    // MARK: - A page that fails mid-run

    enum Failure: String, CaseIterable {
        case status500, malformedJSON, truncatedBody, wrongContentType, corruptGzip, tamperedGzip, errorEnvelope
        case unidentifiedRecord, timeout, missingKeyPath, nullKeyPath, redirectLoop, emptyBody
        case keyNotANumber, keyTooLarge, fractionalKey
    }

    func failingResponse(_ failure: Failure) -> LoopbackResponse {
        let good = body([3, 4], prefix: "new", next: "/p3")
        switch failure {
        case .status500: return .status(500)
        case .malformedJSON: return .json(String(good.dropLast()) + ",}")
        case .truncatedBody:
            var response = LoopbackResponse.json(good)
            response.truncatedLength = good.utf8.count / 2
            return response
        case .wrongContentType: return .text(good, contentType: "text/html")
        case .corruptGzip:
            var bytes = CompressedBodies.gzip(Array(good.utf8))
            bytes.removeLast(12)
            bytes += [0xDE, 0xAD, 0xBE, 0xEF]
            return LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: bytes)
        case .tamperedGzip:
            // A byte of the payload changed in transit: "new 3" arrives as "new 8"; the CRC-32
            // in the gzip trailer no longer matches.
            var bytes = CompressedBodies.gzip(Array(good.utf8))
            let needle = Array("new 3".utf8)
            if let start = (0...(bytes.count - needle.count)).first(where: {
                Array(bytes[$0..<($0 + needle.count)]) == needle
            }) {
                bytes[start + 4] = UInt8(ascii: "8")
            }
            return LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: bytes)
        case .errorEnvelope: return .json(#"{"error": {"message": "backend unavailable"}}"#)
        case .unidentifiedRecord:
            return .json(#"{"data": [{"id": 3, "name": "new 3"}, {"name": "no key"}], "meta": {"next": "/p3"}}"#)
        case .timeout: return .json(good, delay: 30)
        case .keyNotANumber:
            return .json(#"{"data": [{"id": 3, "name": "new 3"}, {"id": "12abc"}], "meta": {"next": "/p3"}}"#)
        case .keyTooLarge:
            return .json(
                #"{"data": [{"id": 3, "name": "new 3"}, {"id": 99999999999999999999}], "meta": {"next": "/p3"}}"#)
        case .fractionalKey:
            return .json(#"{"data": [{"id": 3, "name": "new 3"}, {"id": 99.5}], "meta": {"next": "/p3"}}"#)
        case .nullKeyPath: return .json(#"{"data": null, "meta": {"next": "/p3"}}"#)
        case .redirectLoop: return .redirect(to: "/p2")
        case .emptyBody: return LoopbackResponse(headers: ["Content-Type": "application/json"], body: [])
        case .missingKeyPath:
            return .json(#"{"items": [{"id": 3, "name": "new 3"}], "meta": {"next": "/p3"}}"#)
        }
    }

    @Test(arguments: Failure.allCases)
    func aPageThatFailsMidRunIsNotWrittenAndDeletesNothing(failure: Failure) async throws {
        try seed([1, 3, 99])
        loopback.route("/p1", .json(body([1, 2], prefix: "new", next: "/p2")))
        loopback.route("/p2", failingResponse(failure))
        loopback.route("/p3", .json(body([5], prefix: "new", next: nil)))
        var options = options(.nextURL(keyPath: "meta.next"))
        if failure == .timeout { options.request.timeout = 1 }
        let (pages, error) = await run("p1", options)
        #expect(error != nil, "the run reported success after a failed page 2: \(pages.map(\.end))")
        #expect(pages.count == 1)
        #expect(try storedIDs() == [1, 2, 3, 99], "nothing deleted, page 2 not written")
        #expect(try storedNames() == [1: "new 1", 2: "new 2", 3: "old 3", 99: "old 99"])
        #expect(loopback.requests(to: "/p3").isEmpty)
        #expect(error?.message.contains("no orphans were deleted") == true, "\(String(describing: error?.message))")
    }

    /// A 204 in the middle of a run whose earlier page named it: the server sent no list, and
    /// nothing in it states the end.
    @Test func aNoContentPageInTheMiddleOfARunDeletesNoOrphan() async throws {
        try seed([1, 3, 99])
        loopback.route("/p1", .json(body([1, 2], prefix: "new", next: "/p2")))
        loopback.route("/p2", LoopbackResponse(status: 204))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        let ids = try storedIDs()
        #expect(
            ids == [1, 2, 3, 99], "ended \(String(describing: pages.last?.end)), error \(String(describing: error))")
    }

    @Test func aFirstPageThatFailsLeavesTheStoreAsItWas() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(#"{"data": [{"id": 1, "name": "new 1"}, {"id": 2, "na"#))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error != nil)
        #expect(pages.isEmpty)
        #expect(try storedNames() == [1: "old 1", 99: "old 99"])
    }

    /// A later page that is a bare array: its records are read, but nothing says whether more
    /// follow, so the run is not complete.
    @Test func aLaterPageThatIsABareArrayIsNotTheServersEnd() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(body([1], prefix: "new", next: "/p2")))
        loopback.route("/p2", .json(#"[{"id": 3, "name": "new 3"}]"#))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil, "\(String(describing: error))")
        #expect(pages.last?.end == .nextPageNotFound)
        #expect(try storedNames() == [1: "new 1", 3: "new 3", 99: "old 99"])
    }

    /// The block form reports the failure of page 2 to its completion, and the store keeps page
    /// 1 and every record the run did not reach.
    @Test func theBlockFormReportsAFailedPageAndDeletesNothing() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(body([1, 2], prefix: "new", next: "/p2")))
        loopback.route("/p2", .text("<html>oops</html>", contentType: "text/html"))
        let delivered = Locked(0)
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Int, WebRecordError>, Never>) in
            store.startPagedRequest(
                entity: "Item", urn: "p1", options: options(.nextURL(keyPath: "meta.next")),
                callbackQueue: .global(),
                pageBlock: { _ in
                    delivered.withLock { $0 += 1 }
                    return true
                },
                completion: { continuation.resume(returning: $0) })
        }
        #expect(delivered.value == 1)
        if case .success(let count) = outcome { Issue.record("reported success with \(count) pages") }
        #expect(try storedNames() == [1: "new 1", 2: "new 2", 99: "old 99"])
    }

    // MARK: - Retries

    @Test func aPageRetriedAfter503And429IsAppliedOnceAndTheRunCompletes() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(body([1, 2], prefix: "new", next: "/p2")))
        loopback.route(
            "/p2",
            [
                .status(503, headers: ["Retry-After": "0"]), .status(429, headers: ["Retry-After": "0"]),
                .json(body([3], prefix: "new", next: nil)),
            ])
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil, "\(String(describing: error))")
        #expect(loopback.requests(to: "/p2").count == 3)
        #expect(pages.count == 2)
        #expect(pages.last?.end == .noNextPage)
        #expect(pages.last?.progress.recordsPopulated == 3)
        #expect(pages.last?.progress.pagesFetched == 2)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedNames() == [1: "new 1", 2: "new 2", 3: "new 3"])
    }

    @Test func aPageThatStaysUnavailableFailsTheRunAndDeletesNothing() async throws {
        try seed([1, 99])
        loopback.route("/p1", .json(body([1], prefix: "new", next: "/p2")))
        loopback.route("/p2", .status(503, headers: ["Retry-After": "0"]))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error?.httpStatus == 503)
        #expect(pages.count == 1)
        #expect(loopback.requests(to: "/p2").count == 4)
        #expect(try storedNames() == [1: "new 1", 99: "old 99"])
    }

    // MARK: - Relationships spread across pages

    /// Docs/Population.md, "Each response decides for itself, with what the run contained
    /// before it": page 1 holds item 10 at the top level; page 2 holds item 11 with its folder,
    /// whose cascading `replace` list is `[11]`. Item 10 was stored in folder 1 before the run,
    /// so page 2's list drops it, but the run contained it (the server lists it on page 1): it
    /// is kept, unlinked, as the same two pages as one response keep it (checked below).
    @Test func aCascadingReplaceOnALaterPageDoesNotDeleteARecordAnEarlierPageHeld() async throws {
        var folderOptions = PopulationOptions()
        folderOptions.keyPath = "data"
        _ = try await store.populate(
            .object(["data": [["id": 1, "items": [["id": 10, "name": "old 10"], ["id": 11, "name": "old 11"]]]]]),
            entity: "Folder", options: folderOptions)
        loopback.route("/p1", .json(#"{"data": [{"id": 10, "name": "ten"}], "meta": {"next": "/p2"}}"#))
        loopback.route(
            "/p2",
            .json(
                #"{"data": [{"id": 11, "name": "eleven", "folder": {"id": 1, "items": [11]}}], "meta": {"next": null}}"#
            ))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil, "\(String(describing: error))")
        #expect(pages.last?.end == .noNextPage)
        let names = try storedNames()
        #expect(names == [10: "ten", 11: "eleven"], "item 10 is on the server's page 1; the store holds \(names)")

        // The same two pages as one response: the baseline the paged run should match.
        let (single, singleDirectory) = try singleResponseStore()
        _ = singleDirectory
        _ = try await single.populate(
            .object(["data": [["id": 1, "items": [["id": 10, "name": "old 10"], ["id": 11, "name": "old 11"]]]]]),
            entity: "Folder", options: folderOptions)
        _ = try await single.populate(
            JSONReader().read(
                #"{"data": [{"id": 10, "name": "ten"}, {"id": 11, "name": "eleven", "folder": {"id": 1, "items": [11]}}]}"#
            ), entity: "Item")
        #expect(try single.fetch("Item", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? } == [10, 11])
    }

    func singleResponseStore() throws -> (RecordStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        return (try RecordStore(path: directory.path("single.sqlite"), schema: AdversarialPaging.schema()), directory)
    }

    @Test func aRecordMovingBetweenFoldersAcrossPagesEndsInTheLaterFolder() async throws {
        loopback.route(
            "/p1",
            .json(
                #"{"data": [{"id": 10, "name": "ten", "folder": {"id": 1, "items": [10, 11]}}], "meta": {"next": "/p2"}}"#
            ))
        loopback.route(
            "/p2",
            .json(
                #"{"data": [{"id": 12, "name": "twelve", "folder": {"id": 2, "items": [11, 12]}}], "meta": {"next": null}}"#
            ))
        let (pages, error) = await run("p1", options(.nextURL(keyPath: "meta.next")))
        #expect(error == nil)
        #expect(pages.last?.end == .noNextPage)
        #expect(try storedIDs() == [10, 11, 12], "item 11 is named by key on both pages")
        let folder1 = try store.fetchOne("Folder", primaryKey: 1)
        let folder2 = try store.fetchOne("Folder", primaryKey: 2)
        #expect(folder1?.relatedRecords("items", as: Record.self).compactMap { $0["id"] as Int? }.sorted() == [10])
        #expect(folder2?.relatedRecords("items", as: Record.self).compactMap { $0["id"] as Int? }.sorted() == [11, 12])
    }
}
