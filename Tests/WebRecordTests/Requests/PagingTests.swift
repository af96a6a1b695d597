import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Paged requests against a loopback server that serves pages: every paginator kind, failures,
/// cancellation, orphans across pages, bounded memory, and progress.
@Suite(.measuresTime) struct PagingTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Post")
    }

    /// A page body: the posts, plus `meta` members.
    func page(_ ids: [Int], meta: JSONObject = [:]) -> String {
        var body = RequestSupport.postsBody(ids).objectValue ?? JSONObject()
        body["meta"] = .object(meta)
        return JSONValue.object(body).serialized()
    }

    func collect(_ pages: PageSequence<Record>) async throws -> [Page<Record>] {
        var result: [Page<Record>] = []
        for try await page in pages { result.append(page) }
        return result
    }

    func storedIDs() throws -> [Int] {
        try store.fetch("Post", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    // MARK: - Paginators

    @Test func nextURLInTheBody() async throws {
        loopback.route("/p1", .json(page([1, 2], meta: ["next": .string(loopback.url("/p2").absoluteString)])))
        loopback.route("/p2", .json(page([3, 4], meta: ["next": .string(loopback.url("/p3").absoluteString)])))
        loopback.route("/p3", .json(page([5], meta: ["next": .null])))
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(pages.map(\.index) == [0, 1, 2])
        #expect(pages.map { $0.records.count } == [2, 2, 1])
        #expect(pages.map(\.isLast) == [false, false, true])
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
    }

    @Test func linkHeaderRelNext() async throws {
        loopback.route(
            "/items",
            .json(
                page([1]),
                headers: [
                    "Link": "<\(loopback.url("/items2").absoluteString)>; rel=\"next\", <http://x/last>; rel=\"last\""
                ]))
        loopback.route("/items2", .json(page([2]), headers: ["Link": "</items3>; rel=\"next\""]))
        loopback.route("/items3", .json(page([3]), headers: ["Link": "</items>; rel=\"first\""]))
        let pages = try await collect(
            store.pages(entity: "Post", urn: "items", options: PagingOptions(pagination: .linkHeader)))
        #expect(pages.count == 3)
        #expect(try storedIDs() == [1, 2, 3])
        #expect(loopback.requests(to: "/items3").count == 1, "a relative Link target resolves against the response URL")
    }

    @Test func cursorSentBackAsAParameter() async throws {
        loopback.route(
            "/feed",
            [
                .json(page([1, 2], meta: ["min_id": "c1"])), .json(page([3], meta: ["min_id": "c2"])),
                .json(page([4], meta: [:])),
            ])
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "feed", data: ["count": 2],
                options: PagingOptions(pagination: .cursor(keyPath: "meta.min_id", parameter: "before_id"))))
        #expect(pages.count == 3)
        let queries = loopback.requests(to: "/feed").map {
            Dictionary($0.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        }
        #expect(queries.map { $0["before_id"] } == [nil, "c1", "c2"])
        #expect(queries.allSatisfy { $0["count"] == "2" })
        #expect(try storedIDs() == [1, 2, 3, 4])
    }

    @Test func pageNumberStopsOnAnEmptyPage() async throws {
        loopback.route("/list", [.json(page([1, 2])), .json(page([3, 4])), .json(page([]))])
        let pages = try await collect(
            store.pages(entity: "Post", urn: "list", options: PagingOptions(pagination: .pageNumber(parameter: "page")))
        )
        #expect(pages.count == 3)
        #expect(pages.last?.isLast == true)
        #expect(
            loopback.requests(to: "/list").map { $0.queryItems.first { $0.name == "page" }?.value } == ["1", "2", "3"])
    }

    @Test func pageNumberStopsAtTheTotal() async throws {
        loopback.route(
            "/list",
            [.json(page([1, 2], meta: ["total": 4])), .json(page([3, 4], meta: ["total": 4])), .json(page([9]))])
        let progress = Locked<[PagingProgress]>([])
        var options = PagingOptions(pagination: .pageNumber(parameter: "page", totalKeyPath: "meta.total"))
        options.onProgress = { event in progress.withLock { $0.append(event) } }
        let foundation = Progress(totalUnitCount: -1)
        options.progress = foundation
        let pages = try await collect(store.pages(entity: "Post", urn: "list", options: options))
        #expect(pages.count == 2)
        #expect(loopback.requests(to: "/list").count == 2)
        let events = progress.withLock { $0 }
        #expect(events.map(\.pagesFetched) == [1, 2])
        #expect(events.map(\.recordsPopulated) == [2, 4])
        #expect(events.map(\.totalRecords) == [4, 4])
        #expect(foundation.completedUnitCount == 4 && foundation.totalUnitCount == 4)
    }

    @Test func offsetAndLimitFollowAShortPageToTheEmptyOne() async throws {
        loopback.route("/range", [.json(page([1, 2])), .json(page([3, 4])), .json(page([5])), .json(page([]))])
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "range",
                options: PagingOptions(pagination: .offset(parameter: "offset", limitParameter: "limit", limit: 2))))
        #expect(pages.count == 4)
        #expect(pages.last?.end == .emptyPage)
        let items = loopback.requests(to: "/range").map { request in
            request.queryItems.map { "\($0.name)=\($0.value)" }.sorted()
        }
        #expect(
            items == [
                ["limit=2", "offset=0"], ["limit=2", "offset=2"], ["limit=2", "offset=4"], ["limit=2", "offset=5"],
            ])
    }

    @Test func maximumPagesEndsPaging() async throws {
        // Each page new records (a page repeating earlier ones would end paging by itself).
        loopback.route("/list", [.json(page([1])), .json(page([2])), .json(page([3])), .json(page([4]))])
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "list",
                options: PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: 3)))
        #expect(pages.count == 3)
        #expect(pages.last?.isLast == true)
        #expect(pages.last?.end == .pageLimit)
    }

    // MARK: - Failures, cancellation, orphans

    @Test func aFailingMiddlePageStopsPagingKeepsEarlierPagesAndDeletesNothing() async throws {
        _ = try await store.populate(RequestSupport.postsBody([99]), entity: "Post")
        loopback.route("/p1", .json(page([1, 2], meta: ["next": .string(loopback.url("/p2").absoluteString)])))
        loopback.route("/p2", .status(500))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all
        var delivered: [Int] = []
        let failure = await RequestSupport.failure {
            for try await page in store.pages(entity: "Post", urn: "p1", options: options) {
                delivered.append(page.index)
            }
        }
        #expect(delivered == [0])
        #expect(failure?.code == .serverError)
        #expect(failure?.httpStatus == 500)
        #expect(try storedIDs() == [1, 2, 99])
    }

    @Test func orphansAreDeletedAfterTheLastPageFromTheUnionOfPages() async throws {
        _ = try await store.populate(RequestSupport.postsBody([1, 2, 3, 4, 99]), entity: "Post")
        loopback.route("/p1", .json(page([1, 2], meta: ["next": .string(loopback.url("/p2").absoluteString)])))
        loopback.route("/p2", .json(page([3], meta: ["next": .null])))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all
        var afterFirstPage: [Int] = []
        var last: Page<Record>?
        for try await page in store.pages(entity: "Post", urn: "p1", options: options) {
            if page.index == 0 { afterFirstPage = try storedIDs() }
            last = page
        }
        #expect(afterFirstPage == [1, 2, 3, 4, 99], "nothing is deleted before the last page")
        #expect(try storedIDs() == [1, 2, 3])
        #expect(last?.orphansDeleted["Post"] == 2)
    }

    @Test func cancellingBetweenPagesStopsAndDeletesNothing() async throws {
        _ = try await store.populate(RequestSupport.postsBody([99]), entity: "Post")
        loopback.route("/p1", .json(page([1], meta: ["next": .string(loopback.url("/p2").absoluteString)])))
        // The second page would come ten minutes on: however late the cancellation comes, it
        // comes before that page.
        loopback.route(
            "/p2", .json(page([2], meta: ["next": .string(loopback.url("/p3").absoluteString)]), delay: 600))
        loopback.route("/p3", .json(page([3])))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all
        let firstPage = Locked(false)
        let sequence = store.pages(entity: "Post", urn: "p1", options: options)
        let task = Task {
            var count = 0
            for try await _ in sequence {
                count += 1
                firstPage.value = true
            }
            return count
        }
        #expect(await RequestSupport.waitUntil { firstPage.value })
        task.cancel()
        let failure = await RequestSupport.failure { _ = try await task.value }
        #expect(failure?.code == .cancelled)
        // The task has ended, so no request is sent from now on: when /p2 was asked for before
        // the cancellation, the server answers it now (stopping makes it answer at once), and
        // that late answer is awaited, so that a population it could start would have happened.
        #expect(loopback.answered(to: "/p2").isEmpty, "cancelled before the second page came")
        loopback.stop()
        #expect(
            await RequestSupport.waitUntil {
                loopback.requests(to: "/p2").isEmpty || !loopback.answered(to: "/p2").isEmpty
            })
        #expect(try storedIDs() == [1, 99])
        #expect(loopback.requests(to: "/p3").isEmpty)
    }

    @Test func pagesAlreadyDeliveredAreNotKept() async throws {
        let pageCount = 50
        for index in 1...pageCount {
            let next: JSONValue = index < pageCount ? .string(loopback.url("/p\(index + 1)").absoluteString) : .null
            loopback.route("/p\(index)", .json(page(Array((index * 10)..<(index * 10 + 10)), meta: ["next": next])))
        }
        final class WeakRecord { weak var record: Record? }
        var earlier: [WeakRecord] = []
        var pages = 0
        for try await page in store.pages(
            entity: "Post", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        {
            pages += 1
            // Every record of the pages before this one is gone: nothing holds on to them.
            #expect(earlier.allSatisfy { $0.record == nil })
            earlier = page.records.map { record in
                let box = WeakRecord()
                box.record = record
                return box
            }
        }
        #expect(pages == pageCount)
        #expect(try store.count("Post") == pageCount * 10)
    }

    // MARK: - Block forms

    @Test func theResultBlockDecidesWhetherToRequestTheNextPage() async throws {
        loopback.route("/list", .json(page([1])))
        let queue = DispatchQueue(label: "paging-callbacks")
        let seen = Locked<[Int]>([])
        let outcome: Result<Int, WebRecordError> = await withCheckedContinuation { continuation in
            store.startPagedRequest(
                entity: "Post", urn: "list", options: PagingOptions(pagination: .pageNumber(parameter: "page")),
                callbackQueue: queue,
                pageBlock: { page in
                    seen.withLock { $0.append(page.index) }
                    return page.index < 1
                },
                completion: { continuation.resume(returning: $0) })
        }
        #expect(seen.withLock { $0 } == [0, 1])
        #expect((try? outcome.get()) == 2)
        #expect(loopback.requests(to: "/list").count == 2)
    }

    @Test func theClassBlockFormHandsPagesOfTheClass() async throws {
        loopback.route("/list", .json(page([4, 5])))
        store.register(recordClass: FeedPost.self)
        let queue = DispatchQueue(label: "paging-callbacks")
        let seen = Locked<[[Int?]]>([])
        let outcome: Result<Int, WebRecordError> = await withCheckedContinuation { continuation in
            FeedPost.startPagedRequest(
                urn: "list", in: store, options: PagingOptions(pagination: .pageNumber(parameter: "page")),
                callbackQueue: queue,
                pageBlock: { page in
                    let ids = page.records.map(\.id)  // FeedPost's own accessor: no cast
                    seen.withLock { $0.append(ids) }
                    return false
                },
                completion: { continuation.resume(returning: $0) })
        }
        #expect(seen.withLock { $0 } == [[4, 5]])
        #expect((try? outcome.get()) == 1)
        #expect(loopback.requests(to: "/list").count == 1)
    }

    // MARK: - Batches

    @Test func aBatchCompletesOnceEveryRequestDelivered() async throws {
        loopback.route("/a", .json(page([1])))
        loopback.route("/b", .status(404))
        loopback.route("/c", .json(page([3]), delay: 0.3))
        let results = await store.startBatch(
            [
                BatchRequest(entity: "Post", urn: "a"), BatchRequest(entity: "Post", urn: "b"),
                BatchRequest(entity: "Post", urn: "c"),
            ],
            maximumConcurrentRequests: 2)
        #expect(results.count == 3)
        #expect((try? results[0].get())?.records.count == 1)
        if case .failure(let failure) = results[1] {
            #expect(failure.httpStatus == 404)
        } else {
            Issue.record("the second request should fail")
        }
        #expect((try? results[2].get())?.records.count == 1)
        #expect(try storedIDs() == [1, 3])
    }

    @Test func aBatchOfClassRequestsIsTypedByEachRequestsClass() async throws {
        loopback.route("/a", .json(page([1, 2])))
        loopback.route("/u", .json(#"{"id": 9, "name": "Ann"}"#))
        loopback.route("/b", .status(404))
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "User")
        let (posts, user, missing) = await store.startBatch(
            BatchRequest(FeedPost.self, urn: "a"), BatchRequest(FeedUser.self, urn: "u"),
            BatchRequest(FeedPost.self, urn: "b"), maximumConcurrentRequests: 2)
        // Each result's records are its request's class: FeedPost's `id`, FeedUser's `name`.
        let postRecords: [FeedPost] = try posts.get().records
        #expect(postRecords.map(\.id) == [1, 2])
        #expect(try user.get().records.map(\.name) == ["Ann"])
        #expect(try user.get().request.entityName == "User")
        if case .failure(let failure) = missing {
            #expect(failure.httpStatus == 404)
        } else {
            Issue.record("the third request should fail")
        }
        #expect(try storedIDs() == [1, 2])
    }

    @Test func anEmptyBatchCompletesAtOnce() async throws {
        let results = await store.startBatch([])
        #expect(results.isEmpty)
        let queue = DispatchQueue(label: "batch-callbacks")
        let count: Int = await withCheckedContinuation { continuation in
            store.startBatch([], callbackQueue: queue) { continuation.resume(returning: $0.count) }
        }
        #expect(count == 0)
        #expect(loopback.requests.isEmpty)
    }
}
