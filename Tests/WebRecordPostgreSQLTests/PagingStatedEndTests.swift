import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecord
import WebRecordPostgreSQL
import WebRecordTesting

/// Paging ends only when the server says so, on a SQLite file and on a PostgreSQL database,
/// through `RecordStore.pages(entity:urn:options:)` against a loopback server: a has-more flag
/// with the last record's key, offsets that advance by what a page returned up to the stated
/// total, a list that moves while it is paged, next links and cursors that are not where the
/// paginator looks, and what a failing page's message says was kept. Each test seeds a record
/// the server no longer has, and asks for orphan deletion: it is deleted only after an end the
/// server stated.
@Suite(.measuresTime) struct PagingStatedEndTests {
    enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
        case sqlite, postgreSQL
        var description: String { rawValue }
    }

    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Item": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } }
            }
          }
        }
        """

    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        loopback = try LoopbackHTTPServer()
    }

    /// A store of the kind, its `Item` requests going to the loopback server, holding the record
    /// 99, which no page holds.
    func store(_ kind: StoreKind) async throws -> RecordStore {
        let schema = try Schema(json: Self.schemaJSON)
        let store: RecordStore
        switch kind {
        case .sqlite:
            store = try RecordStore(path: directory.path("paging.sqlite"), schema: schema)
        case .postgreSQL:
            let url = try await ChildProcess.onThread {
                let server = try PostgreSQLTestServer.shared()
                return server.url(database: try server.makeDatabase())
            }
            store = try RecordStore(postgreSQL: url, schema: schema)
        }
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Item")
        _ = try await store.populate(.object(["data": [["id": 99, "name": "gone from the server"]]]), entity: "Item")
        return store
    }

    func storedIDs(_ store: RecordStore) throws -> [Int] {
        try store.fetch("Item", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    /// Every page of a run that deletes orphans after its last page.
    func pages(_ store: RecordStore, _ urn: String, _ pagination: Pagination?) async throws -> [Page<Record>] {
        var options = PagingOptions(pagination: pagination)
        options.request.population.deleteOrphans = .all
        var result: [Page<Record>] = []
        for try await page in store.pages(entity: "Item", urn: urn, options: options) { result.append(page) }
        return result
    }

    /// A page of `ids` at `data`, with `extra` members at the top.
    static func body(_ ids: [Int], _ extra: JSONObject = [:]) -> String {
        var object = extra
        object["data"] = .array(ids.map { ["id": .integer(Int64($0)), "name": .string("item \($0)")] })
        return JSONValue.object(object).serialized()
    }

    func warnings(_ pages: [Page<Record>]) -> [String] {
        (pages.last?.result.debugger.warnings ?? []).map(\.message)
    }

    /// The run ended as `end`, an incomplete end: the orphan is kept, and a warning says so.
    func expectIncomplete(
        _ pages: [Page<Record>], _ end: PagingEnd, in store: RecordStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(pages.last?.end == end, "\(pages.map(\.end))", sourceLocation: sourceLocation)
        #expect(pages.last?.orphansDeleted.isEmpty == true, sourceLocation: sourceLocation)
        #expect(try storedIDs(store).contains(99), "the orphan is kept", sourceLocation: sourceLocation)
        #expect(
            warnings(pages).contains { $0.contains("paging ended with \(end.rawValue)") && $0.contains("no orphans") },
            "\(warnings(pages))", sourceLocation: sourceLocation)
    }

    // MARK: - The last record's key while a flag says there is more

    static let stripe = Pagination.hasMore(flagKeyPath: "has_more", lastKeyPath: "id", parameter: "starting_after")

    @Test(arguments: StoreKind.allCases)
    func hasMoreSendsTheLastRecordsKeyUntilTheFlagIsFalse(kind: StoreKind) async throws {
        let store = try await store(kind)
        // Pages one and two short of the limit asked, as a server may answer: only the flag ends.
        loopback.route(
            "/v1/customers",
            [
                .json(Self.body([1, 2, 3], ["has_more": true])), .json(Self.body([4, 5], ["has_more": true])),
                .json(Self.body([6, 7], ["has_more": false])),
            ])
        let pages = try await pages(store, "v1/customers?limit=3", Self.stripe)
        #expect(
            PagingBodies.sent(loopback) == [
                "/v1/customers?limit=3", "/v1/customers?limit=3&starting_after=3",
                "/v1/customers?limit=3&starting_after=5",
            ])
        #expect(pages.map(\.end) == [nil, nil, .noNextPage])
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs(store) == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test(arguments: StoreKind.allCases)
    func aStringKeyIsSentAsItIs(kind: StoreKind) async throws {
        let store = try await store(kind)
        loopback.route(
            "/list",
            [
                .json(#"{"data": [{"id": 1, "cursor": "cus_A"}], "hasMore": true}"#),
                .json(#"{"data": [{"id": 2, "cursor": "cus_B"}], "hasMore": false}"#),
            ])
        let pages = try await pages(
            store, "list", .hasMore(flagKeyPath: "hasMore", lastKeyPath: "cursor", parameter: "after"))
        #expect(PagingBodies.sent(loopback) == ["/list", "/list?after=cus_A"])
        #expect(pages.last?.end == .noNextPage)
        #expect(try storedIDs(store) == [1, 2])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageWithoutTheFlagIsNotTheLast(kind: StoreKind) async throws {
        let store = try await store(kind)
        loopback.route("/list", [.json(Self.body([1, 2], ["has_more": true])), .json(Self.body([3]))])
        let pages = try await pages(store, "list", Self.stripe)
        #expect(PagingBodies.sent(loopback) == ["/list", "/list?starting_after=2"])
        try expectIncomplete(pages, .nextPageNotFound, in: store)
        #expect(warnings(pages).contains { $0.contains("page 2 holds records but does not say whether more follow") })
        #expect(try storedIDs(store) == [1, 2, 3, 99])
    }

    @Test(arguments: [
        (#"{"data": [], "has_more": true}"#, "'has_more' is true but the page holds no record"),
        (#"{"data": [{"id": 1}], "has_more": "yes"}"#, "'has_more' is string; expected a boolean has-more flag"),
    ])
    func aFlagThatCannotNameTheNextPageFailsTheRun(body: String, message: String) async throws {
        for kind in StoreKind.allCases {
            let store = try await store(kind)
            loopback.route("/list-\(kind)", [.json(Self.body([5], ["has_more": true])), .json(body)])
            let error = await #expect(throws: WebRecordError.self) {
                _ = try await pages(store, "list-\(kind)", Self.stripe)
            }
            #expect(error?.code == .invalidResponseFormat)
            #expect(error?.message.contains(message) == true, "\(kind): \(error?.message ?? "")")
            #expect(
                error?.message.contains("pages 1-2 were saved; the page after page 2 could not be named") == true,
                "\(kind): \(error?.message ?? "")")
            #expect(try storedIDs(store).contains(99))
        }
    }

    // MARK: - Offsets advance by what a page returned, up to the stated total

    @Test(arguments: StoreKind.allCases)
    func anOffsetAdvancesByTheRecordsReturnedAndStopsAtTheTotal(kind: StoreKind) async throws {
        let store = try await store(kind)
        // Jira caps maxResults: 3 asked, 2 returned, then 1, then the rest.
        loopback.route(
            "/search",
            [
                .json(Self.body([1, 2], ["total": 6])), .json(Self.body([3], ["total": 6])),
                .json(Self.body([4, 5, 6], ["total": 6])),
            ])
        let pages = try await pages(
            store, "search",
            .offset(parameter: "startAt", limitParameter: "maxResults", limit: 3, totalKeyPath: "total"))
        #expect(
            PagingBodies.sent(loopback) == [
                "/search?startAt=0&maxResults=3", "/search?startAt=2&maxResults=3", "/search?startAt=3&maxResults=3",
            ])
        #expect(pages.map(\.end) == [nil, nil, .noNextPage])
        #expect(pages.last?.pageManager?.totalResultsCount == 6)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs(store) == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: StoreKind.allCases)
    func withoutATotalAnOffsetRunGoesOnToAnEmptyPage(kind: StoreKind) async throws {
        let store = try await store(kind)
        loopback.route("/range", [.json(Self.body([1, 2])), .json(Self.body([3])), .json(Self.body([]))])
        let pages = try await pages(store, "range", .offset(parameter: "o", limitParameter: "n", limit: 50))
        #expect(PagingBodies.sent(loopback) == ["/range?o=0&n=50", "/range?o=2&n=50", "/range?o=3&n=50"])
        #expect(pages.last?.end == .emptyPage)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs(store) == [1, 2, 3])
    }

    // MARK: - A list that moves while it is paged

    @Test(arguments: StoreKind.allCases)
    func aTotalThatChangesBetweenPagesIsListMoved(kind: StoreKind) async throws {
        let store = try await store(kind)
        // Newest first; record 4 is deleted after page 1, so page 2 skips record 3.
        loopback.route(
            "/search",
            [
                .json(Self.body([6, 5], ["total": 6])), .json(Self.body([2, 1], ["total": 5])),
                .json(Self.body([], ["total": 5])),
            ])
        let pages = try await pages(
            store, "search",
            .offset(parameter: "startAt", limitParameter: "maxResults", limit: 2, totalKeyPath: "total"))
        #expect(PagingBodies.sent(loopback) == ["/search?startAt=0&maxResults=2", "/search?startAt=2&maxResults=2"])
        try expectIncomplete(pages, .listMoved, in: store)
        #expect(
            warnings(pages).contains {
                $0.contains("the list moved while it was paged: its total was 6 on page 1 and is 5 on page 2")
            }, "\(warnings(pages))")
    }

    @Test(arguments: StoreKind.allCases)
    func aPageThatRepeatsSomeEarlierRecordsIsListMoved(kind: StoreKind) async throws {
        let store = try await store(kind)
        // Newest first; record 7 is created after page 1, so page 2 starts with record 5 again.
        loopback.route("/issues", [.json(Self.body([6, 5])), .json(Self.body([5, 4])), .json(Self.body([]))])
        let pages = try await pages(store, "issues", .pageNumber(parameter: "page"))
        #expect(PagingBodies.sent(loopback) == ["/issues?page=1", "/issues?page=2"])
        try expectIncomplete(pages, .listMoved, in: store)
        #expect(
            warnings(pages).contains { $0.contains("page 2 holds 1 of its 2 records that earlier pages held") },
            "\(warnings(pages))")
    }

    // MARK: - Ends the paginator would infer

    /// For each kind that reads what names the next page, a page where it is absent, and the
    /// same page stating the end.
    static let absentOrStated: [(Pagination, absent: String, stated: String)] = [
        (
            .nextURL(keyPath: "meta.next"), #"{"data": [{"id": 1}], "meta": {}}"#,
            #"{"data": [{"id": 1}], "meta": {"next": null}}"#
        ),
        (.nextURL(keyPath: "meta.next"), #"{"data": [{"id": 1}]}"#, #"{"data": [{"id": 1}], "meta": {"next": ""}}"#),
        (
            .cursor(keyPath: "cursor", parameter: "c"), #"{"data": [{"id": 1}]}"#,
            #"{"data": [{"id": 1}], "cursor": null}"#
        ),
        (stripe, #"{"data": [{"id": 1}], "has_more": null}"#, #"{"data": [{"id": 1}], "has_more": false}"#),
    ]

    @Test(arguments: absentOrStated)
    func anAbsentNextPageIsNotTheLastPage(pagination: Pagination, absent: String, stated: String) async throws {
        for kind in StoreKind.allCases {
            let store = try await store(kind)
            loopback.route("/absent-\(kind)", .json(absent))
            let notFound = try await pages(store, "absent-\(kind)", pagination)
            try expectIncomplete(notFound, .nextPageNotFound, in: store)
            #expect(warnings(notFound).contains { $0.contains("does not say whether more follow") })

            loopback.route("/stated-\(kind)", .json(stated))
            let complete = try await pages(store, "stated-\(kind)", pagination)
            #expect(complete.last?.end == .noNextPage, "\(kind)")
            #expect(complete.last?.orphansDeleted == ["Item": 1], "\(kind)")
            #expect(try storedIDs(store) == [1], "\(kind)")
        }
    }

    @Test(arguments: StoreKind.allCases, [Pagination.linkHeader, nil])
    func aLaterPageWithoutALinkHeaderIsNotTheLastPage(kind: StoreKind, pagination: Pagination?) async throws {
        let store = try await store(kind)
        loopback.route("/p1", .json(Self.body([1]), headers: ["Link": "</p2>; rel=\"next\""]))
        loopback.route("/p2", .json(Self.body([2])))
        let pages = try await pages(store, "p1", pagination)
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        try expectIncomplete(pages, .nextPageNotFound, in: store)
        #expect(
            warnings(pages).contains {
                $0.contains("page 2 holds records but does not say whether more follow (no Link header)")
            })
    }

    @Test(arguments: StoreKind.allCases, [Pagination.linkHeader, nil])
    func aLinkHeaderNamingNoNextPageIsTheLastPage(kind: StoreKind, pagination: Pagination?) async throws {
        let store = try await store(kind)
        loopback.route("/p1", .json(Self.body([1]), headers: ["Link": "</p2>; rel=\"next\""]))
        loopback.route("/p2", .json(Self.body([2]), headers: ["Link": "</p1>; rel=\"prev\", </p1>; rel=\"first\""]))
        let pages = try await pages(store, "p1", pagination)
        #expect(pages.last?.end == .noNextPage)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs(store) == [1, 2])
    }

    @Test(arguments: StoreKind.allCases)
    func aFirstPageWithoutALinkHeaderIsAListThatFitsOnePage(kind: StoreKind) async throws {
        let store = try await store(kind)
        loopback.route("/all", .json(Self.body([1, 2])))
        let pages = try await pages(store, "all", .linkHeader)
        #expect(pages.last?.end == .noNextPage)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
    }

    // MARK: - A failing page says what was kept

    @Test(arguments: StoreKind.allCases, [0, 1, 2])
    func aFailingPagesMessageCountsThePagesSaved(kind: StoreKind, failing: Int) async throws {
        let store = try await store(kind)
        var responses = (0..<failing).map {
            LoopbackResponse.json(Self.body([$0 + 1], ["meta": ["next": .string("/list?p=\($0 + 2)")]]))
        }
        responses.append(.status(500))
        loopback.route("/list", responses)
        let error = await #expect(throws: WebRecordError.self) {
            _ = try await pages(store, "list?p=1", .nextURL(keyPath: "meta.next"))
        }
        let message = error?.message ?? ""
        let expected = [
            "; no orphans were deleted", "; page 1 was saved; page 2 failed; no orphans were deleted",
            "; pages 1-2 were saved; page 3 failed; no orphans were deleted",
        ][failing]
        #expect(message.hasSuffix(expected), "\(message)")
        if failing == 0 { #expect(!message.contains("saved"), "\(message)") }
        #expect(try storedIDs(store) == (0..<failing).map { $0 + 1 } + [99])
    }
}
