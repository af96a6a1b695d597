import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// The paging rules, through `RecordStore.pages(entity:urn:options:)` against loopback servers:
/// next links resolved as RFC 3986 says, `Link` headers parsed by RFC 8288's grammar,
/// parameters replaced rather than duplicated, why paging ended, and credentials kept to
/// their origin. Each test asserts the exact requests the loopback server received.
enum PagingRules {
    /// `Item` records are at `data`; `Thing` has no key path (the whole body is one record).
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Item": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } }
            },
            "Thing": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } }
            }
          }
        }
        """

    /// A fresh store in a temporary directory, removed when the directory is released.
    static func makeStore() throws -> (RecordStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(
            path: directory.path("paging.sqlite"), schema: Schema(json: schemaJSON, fileName: "Paging.json"))
        return (store, directory)
    }

    /// A fresh store whose `Item` requests go to a new loopback HTTP server.
    static func makeLoopbackStore() throws -> (RecordStore, TemporaryDirectory, LoopbackHTTPServer) {
        let (store, directory) = try makeStore()
        let loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Item")
        return (store, directory, loopback)
    }

    /// The stored `Item` ids, ascending.
    static func storedIDs(in store: RecordStore) throws -> [Int] {
        try store.fetch("Item", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    static func collect(_ pages: PageSequence<Record>) async throws -> [Page<Record>] {
        var result: [Page<Record>] = []
        for try await page in pages { result.append(page) }
        return result
    }
}

// MARK: - Rule 1: next links resolved against the page that named them

@Suite(.measuresTime) struct PagingRulesResolutionTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory, loopback) = try PagingRules.makeLoopbackStore()
    }

    func storedIDs() throws -> [Int] { try PagingRules.storedIDs(in: store) }

    func page(_ urn: String, _ pagination: Pagination) async throws -> [Page<Record>] {
        try await PagingRules.collect(
            store.pages(entity: "Item", urn: urn, options: PagingOptions(pagination: pagination)))
    }

    @Test func anAbsoluteNextURLIsUsedAsWritten() async throws {
        loopback.route(
            "/api/v1/items", .json(PagingBodies.body([1], next: loopback.url("/elsewhere/list?x=1&y=2").absoluteString))
        )
        loopback.route("/elsewhere/list", .json(PagingBodies.body([2], next: nil)))
        let pages = try await page("api/v1/items", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/api/v1/items", "/elsewhere/list?x=1&y=2"])
        #expect(try storedIDs() == [1, 2])
        #expect(pages.map(\.end) == [nil, .noNextPage])
    }

    @Test func anAbsolutePathGoesToTheHostRootNotBelowTheSourcePath() async throws {
        loopback.route("/api/v1/items", .json(PagingBodies.body([1], next: "/posts?page=2")))
        loopback.route("/posts", .json(PagingBodies.body([2], next: nil)))
        loopback.route("/api/v1/posts", .status(500))
        loopback.route("/api/v1/items/posts", .status(500))
        let pages = try await page("api/v1/items", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/api/v1/items", "/posts?page=2"])
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aQueryOnlyReferenceKeepsThePagesPath() async throws {
        loopback.route(
            "/api/v1/items",
            [
                .json(PagingBodies.body([1], next: "?page=2")), .json(PagingBodies.body([2], next: "?page=3&sort=id")),
                .json(PagingBodies.body([3], next: nil)),
            ])
        let pages = try await page("api/v1/items?page=1", .nextURL(keyPath: "meta.next"))
        #expect(
            PagingBodies.sent(loopback) == [
                "/api/v1/items?page=1", "/api/v1/items?page=2", "/api/v1/items?page=3&sort=id",
            ])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func relativePathsReplaceTheLastSegmentOfThePageThatNamedThem() async throws {
        // Each link resolves against the URL of the page that named it, not the first page's.
        loopback.route(
            "/api/v1/items",
            [
                .json(PagingBodies.body([1], next: "items?page=3")), .json(PagingBodies.body([2], next: "../next")),
            ])
        loopback.route("/api/next", .json(PagingBodies.body([3], next: "deeper/list")))
        loopback.route("/api/deeper/list", .json(PagingBodies.body([4], next: nil)))
        let pages = try await page("api/v1/items", .nextURL(keyPath: "meta.next"))
        #expect(
            PagingBodies.sent(loopback) == ["/api/v1/items", "/api/v1/items?page=3", "/api/next", "/api/deeper/list"])
        #expect(try storedIDs() == [1, 2, 3, 4])
        #expect(pages.map(\.end) == [nil, nil, nil, .noNextPage])
    }

    @Test func anAbsolutePathIgnoresTheServersBasePath() async throws {
        store.register(HTTPServer(baseURL: loopback.url("/api/v1/")), forEntity: "Item")
        loopback.route("/api/v1/items", .json(PagingBodies.body([1], next: "/posts?page=2")))
        loopback.route("/posts", .json(PagingBodies.body([2], next: "more")))
        loopback.route("/more", .json(PagingBodies.body([3], next: nil)))
        let pages = try await page("items", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/api/v1/items", "/posts?page=2", "/more"])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func dotSegmentsAreRemoved() async throws {
        loopback.route("/a/b/c", .json(PagingBodies.body([1], next: "./d/../e/./f?k=v")))
        loopback.route("/a/b/e/f", .json(PagingBodies.body([2], next: "../../../../../top")))
        loopback.route("/top", .json(PagingBodies.body([3], next: "/x/./y/../z")))
        loopback.route("/x/z", .json(PagingBodies.body([4], next: nil)))
        let pages = try await page("a/b/c", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/a/b/c", "/a/b/e/f?k=v", "/top", "/x/z"])
        #expect(try storedIDs() == [1, 2, 3, 4])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func linkHeaderTargetsResolveTheSameWay() async throws {
        loopback.route(
            "/api/v1/items",
            [
                .json(PagingBodies.body([1]), headers: ["Link": #"</posts?page=2>; rel="next""#]),
                .json(PagingBodies.body([4]), headers: ["Link": #"<../up>; rel="next""#]),
            ])
        loopback.route("/api/up", .json(PagingBodies.body([5]), headers: ["Link": #"</posts>; rel="first""#]))
        loopback.route(
            "/posts",
            [
                .json(PagingBodies.body([2]), headers: ["Link": #"<?page=3>; rel="next""#]),
                .json(PagingBodies.body([3]), headers: ["Link": #"<api/v1/items?page=4>; rel="next""#]),
            ])
        let pages = try await page("api/v1/items", .linkHeader)
        #expect(
            PagingBodies.sent(loopback) == [
                "/api/v1/items", "/posts?page=2", "/posts?page=3", "/api/v1/items?page=4", "/api/up",
            ])
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test
    func aFragmentOnlyLinkNamesThePageItself() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "#more")))
        let pages = try await page(loopback.url("/p1").absoluteString, .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/p1"])
        #expect(pages.last?.end == .repeatedPage)
    }

    @Test func aRedirectedPagesLinksResolveAgainstTheURLItWasServedFrom() async throws {
        loopback.route("/old/p1", .redirect(to: "/new/p1"))
        loopback.route("/new/p1", .json(PagingBodies.body([1], next: "p2")))
        loopback.route("/new/p2", .json(PagingBodies.body([2], next: nil)))
        let pages = try await page("old/p1", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/old/p1", "/new/p1", "/new/p2"])
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aCursorKeepsTheSourceURNAndItsPath() async throws {
        loopback.route(
            "/api/v1/feed",
            [
                .json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: nil)),
            ])
        let pages = try await page("api/v1/feed", .cursor(keyPath: "meta.cursor", parameter: "after"))
        #expect(PagingBodies.sent(loopback) == ["/api/v1/feed", "/api/v1/feed?after=c1"])
        #expect(pages.last?.end == .noNextPage)
    }
}

// MARK: - Rule 2: Link headers parsed by RFC 8288's grammar

@Suite(.measuresTime) struct PagingRulesLinkHeaderTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory, loopback) = try PagingRules.makeLoopbackStore()
    }

    func storedIDs() throws -> [Int] { try PagingRules.storedIDs(in: store) }

    /// Serves `/start` with the Link header `link`, and `/target` as a last page.
    func follow(_ link: String) async throws -> [Page<Record>] {
        loopback.route("/start", .json(PagingBodies.body([1]), headers: ["Link": link]))
        // The last page's `Link` names no next page: the server's own end.
        loopback.route("/target", .json(PagingBodies.body([2]), headers: ["Link": #"</start>; rel="first""#]))
        return try await PagingRules.collect(
            store.pages(entity: "Item", urn: "start", options: PagingOptions(pagination: .linkHeader)))
    }

    /// A custom ``Server`` may hand over lines whose names differ only in case: one field.
    /// (Over HTTP on Linux, FoundationNetworking keeps only the first such line; see Servers.md.)
    @Test func aHeaderLookupJoinsTheLinesOfOneFieldWhateverTheirCase() {
        let response = ServerResponse(
            body: .null, headers: ["link": "<b>; rel=next", "Link": "<a>; rel=prev", "LINK": "<c>; rel=last", "X": "1"])
        #expect(response.header("Link") == "<a>; rel=prev, <c>; rel=last, <b>; rel=next")
        #expect(response.header("x") == "1")
        #expect(response.header("Missing") == nil)
        #expect(LinkHeader(response.header("Link") ?? "").target(relation: "next") == "b")
    }

    @Test func aTargetMayContainCommasAndSemicolons() async throws {
        let target = loopback.url("/target").absoluteString + "?ids=1,2;x"
        let pages = try await follow(#"<\#(target)>; rel="next""#)
        #expect(PagingBodies.sent(loopback) == ["/start", "/target?ids=1,2;x"])
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aCommaOrSemicolonInATargetDoesNotSplitTheList() async throws {
        let pages = try await follow(#"</first?a=1,<b>;c>; rel="first", </target?x=1,2>; rel="next""#)
        #expect(PagingBodies.sent(loopback) == ["/start", "/target?x=1,2"])
        #expect(pages.count == 2)
    }

    @Test func quotedValuesMayContainCommasSemicolonsAndEscapedQuotes() async throws {
        let link = #"</prev>; title="a, b; rel=\"next\", c"; rel="prev", </target>; title="x, y"; rel="next""#
        let pages = try await follow(link)
        #expect(PagingBodies.sent(loopback) == ["/start", "/target"])
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test(arguments: [
        #"</target>; rel="prev next""#, #"</target>; rel="next last""#, #"</target>; rel="  prev   next  ""#,
        #"</target>; REL="NEXT""#, #"</target>; Rel=Next"#, #"</target>;rel=next"#, #"</target> ; rel = "next""#,
    ])
    func relationListsAndCaseAreUnderstood(link: String) async throws {
        let pages = try await follow(link)
        #expect(PagingBodies.sent(loopback) == ["/start", "/target"], "\(link)")
        #expect(pages.count == 2)
    }

    @Test(arguments: [
        #"</first>; rel="first", </prev>; rel="prev", </last>; rel="last", </target>; rel="next""#,
        #"</target>; rel="next", </first>; rel="first", </last>; rel="last""#,
        #"</last>; rel="last", </target>; rel="next", </first>; rel="first""#,
    ])
    func severalLinksInAnyOrder(link: String) async throws {
        _ = try await follow(link)
        #expect(PagingBodies.sent(loopback) == ["/start", "/target"], "\(link)")
    }

    @Test(arguments: ["link", "LINK", "Link"])
    func theHeaderNameIsCaseInsensitive(name: String) async throws {
        loopback.route("/start", .json(PagingBodies.body([1]), headers: [name: #"</target>; rel="next""#]))
        loopback.route("/target", .json(PagingBodies.body([2])))
        _ = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "start", options: PagingOptions(pagination: .linkHeader)))
        #expect(PagingBodies.sent(loopback) == ["/start", "/target"])
    }

    @Test(arguments: [
        #"</target>; rel="nextpage""#, #"</target>; rel="next-page""#, #"</target>; title="next""#,
        #"</target>; rel="prev"; title="rel=next""#, #"</target>; rev="next""#, "",
    ])
    func noNextRelationMeansNoNextPage(link: String) async throws {
        let pages = try await follow(link)
        #expect(PagingBodies.sent(loopback) == ["/start"], "\(link)")
        #expect(pages.map(\.end) == [.noNextPage])
        #expect(pages.last?.result.pagingEnd == .noNextPage)
    }
}

// MARK: - Rule 3: parameters replace, never duplicate

@Suite(.measuresTime) struct PagingRulesParameterTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory, loopback) = try PagingRules.makeLoopbackStore()
    }

    func storedIDs() throws -> [Int] { try PagingRules.storedIDs(in: store) }

    func pages(_ urn: String, data: JSONValue? = nil, _ pagination: Pagination) async throws -> [Page<Record>] {
        try await PagingRules.collect(
            store.pages(entity: "Item", urn: urn, data: data, options: PagingOptions(pagination: pagination)))
    }

    @Test func aCursorReplacesTheOneInTheSourceURL() async throws {
        loopback.route(
            "/items",
            [
                .json(PagingBodies.body([1], cursor: "c2")), .json(PagingBodies.body([2], cursor: "c3")),
                .json(PagingBodies.body([3], cursor: nil)),
            ])
        let pages = try await pages("items?cursor=abc&limit=5", .cursor(keyPath: "meta.cursor", parameter: "cursor"))
        #expect(
            PagingBodies.sent(loopback) == [
                "/items?cursor=abc&limit=5", "/items?limit=5&cursor=c2", "/items?limit=5&cursor=c3",
            ])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aPageNumberReplacesTheOneInTheSourceURL() async throws {
        loopback.route(
            "/items",
            [.json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3, 4])), .json(PagingBodies.body([]))])
        let pages = try await pages("items?page=1", .pageNumber(parameter: "page"))
        #expect(PagingBodies.sent(loopback) == ["/items?page=1", "/items?page=2", "/items?page=3"])
        #expect(try storedIDs() == [1, 2, 3, 4])
        #expect(pages.last?.end == .emptyPage)
    }

    @Test func otherQueryItemsKeepTheirOrderAroundAReplacedPage() async throws {
        loopback.route("/items", [.json(PagingBodies.body([1])), .json(PagingBodies.body([]))])
        _ = try await pages("items?sort=new&page=9&q=a%20b&plus=a+b&tag=x&tag=y", .pageNumber(parameter: "page"))
        #expect(
            PagingBodies.sent(loopback) == [
                "/items?sort=new&q=a%20b&plus=a+b&tag=x&tag=y&page=1",
                "/items?sort=new&q=a%20b&plus=a+b&tag=x&tag=y&page=2",
            ])
    }

    @Test func anOffsetAndLimitReplaceTheSourceURLs() async throws {
        loopback.route(
            "/items",
            [
                .json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3, 4])), .json(PagingBodies.body([5])),
                .json(PagingBodies.body([])),
            ])
        let pages = try await pages(
            "items?offset=40&sort=id&limit=100", .offset(parameter: "offset", limitParameter: "limit", limit: 2))
        #expect(
            PagingBodies.sent(loopback) == [
                "/items?sort=id&offset=0&limit=2", "/items?sort=id&offset=2&limit=2", "/items?sort=id&offset=4&limit=2",
                "/items?sort=id&offset=5&limit=2",
            ])
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
        #expect(pages.last?.end == .emptyPage)
    }

    @Test func aParameterWrittenTwiceOrPercentEncodedIsStillReplacedOnce() async throws {
        loopback.route("/items", [.json(PagingBodies.body([1])), .json(PagingBodies.body([]))])
        _ = try await pages("items?page=7&x=1&page=8&p%61ge=9", .pageNumber(parameter: "page"))
        #expect(PagingBodies.sent(loopback) == ["/items?x=1&page=1", "/items?x=1&page=2"])
    }

    @Test func requestParametersReplaceTheSourceURLsToo() async throws {
        loopback.route(
            "/items", [.json(PagingBodies.body([1], cursor: "n1")), .json(PagingBodies.body([2], cursor: nil))])
        let pages = try await pages(
            "items?limit=5&sort=new&cursor=old", data: ["limit": 2],
            .cursor(keyPath: "meta.cursor", parameter: "cursor"))
        #expect(
            PagingBodies.sent(loopback) == ["/items?sort=new&cursor=old&limit=2", "/items?sort=new&limit=2&cursor=n1"])
        #expect(pages.count == 2)
    }

    @Test func aBracketedCursorParameterIsReplacedToo() async throws {
        loopback.route(
            "/items", [.json(PagingBodies.body([1], cursor: "c2")), .json(PagingBodies.body([2], cursor: nil))])
        let pages = try await pages(
            "items?page%5Bcursor%5D=abc&page%5Bsize%5D=5", .cursor(keyPath: "meta.cursor", parameter: "page[cursor]"))
        #expect(
            PagingBodies.sent(loopback) == [
                "/items?page%5Bcursor%5D=abc&page%5Bsize%5D=5", "/items?page%5Bsize%5D=5&page%5Bcursor%5D=c2",
            ])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aNextURLIsSentAsNamedWithNothingAppended() async throws {
        loopback.route(
            "/items",
            [
                .json(PagingBodies.body([1], next: "?page=2&page=2b")), .json(PagingBodies.body([2], next: nil)),
            ])
        _ = try await pages("items?page=1", .nextURL(keyPath: "meta.next"))
        #expect(PagingBodies.sent(loopback) == ["/items?page=1", "/items?page=2&page=2b"])
    }
}

// MARK: - Rule 4: paging always ends and says why

@Suite(.measuresTime) struct PagingRulesEndTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory) = try PagingRules.makeStore()
        loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Item")
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Thing")
    }

    func storedIDs(_ entity: String = "Item") throws -> [Int] {
        try store.fetch(entity, orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    func pages(_ urn: String, entity: String = "Item", _ options: PagingOptions) async throws -> [Page<Record>] {
        try await PagingRules.collect(store.pages(entity: entity, urn: urn, options: options))
    }

    /// The end is on the last page and on its result only.
    func expectEnd(_ pages: [Page<Record>], _ end: PagingEnd, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(pages.last?.end == end, sourceLocation: sourceLocation)
        #expect(pages.last?.result.pagingEnd == end, sourceLocation: sourceLocation)
        #expect(pages.last?.isLast == true, sourceLocation: sourceLocation)
        #expect(
            pages.dropLast().allSatisfy { $0.end == nil && $0.result.pagingEnd == nil && !$0.isLast },
            sourceLocation: sourceLocation)
    }

    func repeatWarnings(_ page: Page<Record>?) -> [WebRecordError] {
        (page?.result.debugger.warnings ?? []).filter {
            $0.code == .invalidResponseFormat && $0.message.contains("already requested")
        }
    }

    @Test func noNextURLIsNoNextPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: nil)))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .noNextPage)
        #expect(try storedIDs() == [1, 2])
        #expect(pages.last?.result.debugger.warnings.isEmpty == true)
    }

    @Test func anEmptyPageThatStillNamesANextPageIsFollowed() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([], next: "/p3")))
        loopback.route("/p3", .json(PagingBodies.body([3], next: nil)))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2", "/p3"])
        expectEnd(pages, .noNextPage)
    }

    @Test func anEmptyPageNamingNoNextPageIsEmptyPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([], next: nil)))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .emptyPage)
    }

    @Test func anEmptyNumberedPageIsEmptyPage() async throws {
        loopback.route("/list", [.json(PagingBodies.body([1, 2])), .json(PagingBodies.body([]))])
        let pages = try await pages("list", PagingOptions(pagination: .pageNumber(parameter: "page")))
        #expect(PagingBodies.sent(loopback) == ["/list?page=1", "/list?page=2"])
        expectEnd(pages, .emptyPage)
    }

    @Test func aShortOffsetPageIsFollowedToTheEmptyPage() async throws {
        loopback.route(
            "/range",
            [.json(PagingBodies.body([1, 2, 3])), .json(PagingBodies.body([4])), .json(PagingBodies.body([]))])
        let pages = try await pages(
            "range", PagingOptions(pagination: .offset(parameter: "o", limitParameter: "n", limit: 3)))
        #expect(PagingBodies.sent(loopback) == ["/range?o=0&n=3", "/range?o=3&n=3", "/range?o=4&n=3"])
        expectEnd(pages, .emptyPage)
        #expect(try storedIDs() == [1, 2, 3, 4])
    }

    @Test func theTotalReachedIsNoNextPage() async throws {
        loopback.route("/list", .json(PagingBodies.body([1, 2], meta: ["total": 2])))
        let pages = try await pages(
            "list", PagingOptions(pagination: .pageNumber(parameter: "page", totalKeyPath: "meta.total")))
        #expect(PagingBodies.sent(loopback) == ["/list?page=1"])
        expectEnd(pages, .noNextPage)
    }

    @Test func offsetPagesAreCountedAtTheEntitysKeyPathWhateverElseTheBodyHolds() async throws {
        let included: JSONValue = .array((1...5).map { .integer($0) })
        func page(_ ids: [Int]) -> String {
            var object = JSONObject()
            object["data"] = .array(ids.map { ["id": .integer(Int64($0)), "name": .string("item \($0)")] })
            object["included"] = included
            object["links"] = .array([])
            return JSONValue.object(object).serialized()
        }
        loopback.route("/range", [.json(page([1, 2])), .json(page([3, 4])), .json(page([5])), .json(page([]))])
        let pages = try await pages(
            "range", PagingOptions(pagination: .offset(parameter: "o", limitParameter: "n", limit: 2)))
        #expect(
            PagingBodies.sent(loopback) == ["/range?o=0&n=2", "/range?o=2&n=2", "/range?o=4&n=2", "/range?o=5&n=2"])
        expectEnd(pages, .emptyPage)
        #expect(try storedIDs() == [1, 2, 3, 4, 5])
    }

    @Test func numberedPagesAreCountedAtTheRequestsKeyPath() async throws {
        loopback.route(
            "/things",
            [
                .json(#"{"results": [{"id": 1}, {"id": 2}], "other": [0, 0, 0]}"#),
                .json(#"{"results": [], "other": [0]}"#),
            ])
        var options = PagingOptions(pagination: .pageNumber(parameter: "page"))
        options.request.population.keyPath = "results"
        let pages = try await pages("things", entity: "Thing", options)
        #expect(PagingBodies.sent(loopback) == ["/things?page=1", "/things?page=2"])
        expectEnd(pages, .emptyPage)
        #expect(try storedIDs("Thing") == [1, 2])
    }

    static let uncountable = #"{"id": 7, "name": "seven", "a": [1, 2, 3], "b": [4, 5, 6]}"#

    @Test
    func aNumberedPageThatCannotBeCountedIsUncountablePage() async throws {
        loopback.route("/things", .json(Self.uncountable))
        let pages = try await pages(
            "things", entity: "Thing", PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: 4))
        #expect(PagingBodies.sent(loopback) == ["/things?page=1"])
        expectEnd(pages, .uncountablePage)
        #expect(try storedIDs("Thing") == [7])
    }

    @Test
    func anOffsetPageThatCannotBeCountedIsUncountablePage() async throws {
        loopback.route("/things", .json(Self.uncountable))
        let pages = try await pages(
            "things", entity: "Thing",
            PagingOptions(pagination: .offset(parameter: "o", limitParameter: "n", limit: 1), maximumPages: 4))
        #expect(PagingBodies.sent(loopback) == ["/things?o=0&n=1"])
        expectEnd(pages, .uncountablePage)
    }

    @Test
    func anUncountablePageDeletesNoOrphans() async throws {
        _ = try await store.populate(["id": 99, "name": "old"], entity: "Thing")
        loopback.route("/things", .json(Self.uncountable))
        var options = PagingOptions(pagination: .offset(parameter: "o", limitParameter: "n", limit: 5), maximumPages: 4)
        options.request.population.deleteOrphans = .all
        let pages = try await pages("things", entity: "Thing", options)
        #expect(PagingBodies.sent(loopback) == ["/things?o=0&n=5"])
        expectEnd(pages, .uncountablePage)
        #expect(try storedIDs("Thing") == [7, 99])
        #expect(pages.last?.orphansDeleted.isEmpty == true)
    }

    @Test func aNextURLBackToAnEarlierPageIsRepeatedPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: "/p3")))
        loopback.route("/p3", .json(PagingBodies.body([3], next: "/p2")))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2", "/p3"])
        expectEnd(pages, .repeatedPage)
        #expect(repeatWarnings(pages.last).count == 1)
        #expect(pages.last?.result.debugger.warnings.allSatisfy { !$0.isFatal } == true)
        #expect(try storedIDs() == [1, 2, 3])
    }

    @Test func aNextURLBackToTheFirstPageGivenAsAnAbsoluteURLIsRepeatedPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: "p1")))
        let pages = try await pages(
            loopback.url("/p1").absoluteString, PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .repeatedPage)
        #expect(repeatWarnings(pages.last).count == 1)
    }

    @Test
    func aNextURLBackToTheFirstPageGivenAsAPathIsRepeatedPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: "/p1")))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .repeatedPage)
    }

    @Test func aLinkHeaderNamingItsOwnPageIsRepeatedPage() async throws {
        loopback.route(
            "/items",
            [
                .json(PagingBodies.body([1]), headers: ["Link": #"</items?page=2>; rel="next""#]),
                .json(PagingBodies.body([2]), headers: ["Link": #"<?page=2>; rel="next""#]),
            ])
        let pages = try await pages(loopback.url("/items").absoluteString, PagingOptions(pagination: .linkHeader))
        #expect(PagingBodies.sent(loopback) == ["/items", "/items?page=2"])
        expectEnd(pages, .repeatedPage)
        #expect(repeatWarnings(pages.last).count == 1)
    }

    @Test func anEmptyLinkTargetNamesThePageItself() async throws {
        loopback.route("/items", .json(PagingBodies.body([1]), headers: ["Link": #"<>; rel="next""#]))
        let pages = try await pages(
            loopback.url("/items?page=1").absoluteString, PagingOptions(pagination: .linkHeader))
        #expect(PagingBodies.sent(loopback) == ["/items?page=1"])
        expectEnd(pages, .repeatedPage)
        #expect(repeatWarnings(pages.last).count == 1)
    }

    @Test func aCursorAlreadySentOnAnEarlierPageIsRepeatedPage() async throws {
        loopback.route(
            "/feed",
            [
                .json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: "c2")),
                .json(PagingBodies.body([3], cursor: "c1")),
            ])
        let pages = try await pages(
            "feed", PagingOptions(pagination: .cursor(keyPath: "meta.cursor", parameter: "cursor")))
        #expect(PagingBodies.sent(loopback) == ["/feed", "/feed?cursor=c1", "/feed?cursor=c2"])
        expectEnd(pages, .repeatedPage)
        #expect(repeatWarnings(pages.last).count == 1)
        #expect(try storedIDs() == [1, 2, 3])
    }

    @Test func theCursorJustSentIsNoNextPage() async throws {
        loopback.route(
            "/feed", [.json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: "c1"))])
        let pages = try await pages(
            "feed", PagingOptions(pagination: .cursor(keyPath: "meta.cursor", parameter: "cursor")))
        #expect(PagingBodies.sent(loopback) == ["/feed", "/feed?cursor=c1"])
        expectEnd(pages, .noNextPage)
        #expect(repeatWarnings(pages.last).isEmpty)
    }

    @Test
    func theCursorOfTheSourceURLIsTheOneJustSent() async throws {
        loopback.route("/feed", .json(PagingBodies.body([1], cursor: "abc")))
        let pages = try await pages(
            "feed?cursor=abc&limit=5", PagingOptions(pagination: .cursor(keyPath: "meta.cursor", parameter: "cursor")))
        #expect(PagingBodies.sent(loopback) == ["/feed?cursor=abc&limit=5"])
        expectEnd(pages, .noNextPage)
    }

    @Test func reachingTheLimitWhileANextPageIsNamedIsPageLimit() async throws {
        // Every page brings new records: a page of old ones would end paging by itself.
        loopback.route(
            "/list",
            [
                .json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3, 4])), .json(PagingBodies.body([5, 6])),
                .json(PagingBodies.body([7, 8])),
            ])
        let pages = try await pages("list", PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: 3))
        #expect(PagingBodies.sent(loopback) == ["/list?page=1", "/list?page=2", "/list?page=3"])
        expectEnd(pages, .pageLimit)
    }

    @Test(arguments: [0, 1, -5])
    func aLimitBelowTwoRequestsTheFirstPageOnly(limit: Int) async throws {
        loopback.route("/list", .json(PagingBodies.body([1, 2])))
        let pages = try await pages(
            "list", PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: limit))
        #expect(PagingBodies.sent(loopback) == ["/list?page=1"])
        expectEnd(pages, .pageLimit)
    }

    @Test func reachingTheLimitOnTheLastPageIsNoNextPage() async throws {
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: nil)))
        let pages = try await pages("p1", PagingOptions(pagination: .nextURL(keyPath: "meta.next"), maximumPages: 2))
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .noNextPage)
    }

    @Test func theDefaultLimitIsTenThousandPages() async throws {
        #expect(PagingOptions.defaultMaximumPages == 10_000)
        #expect(PagingOptions().maximumPages == nil)
        // A server that always names a next page: the run stops at the default limit.
        let counter = CountingServer()
        store.register(counter, forEntity: "Item")
        var count = 0
        var last: Page<Record>?
        for try await page in store.pages(
            entity: "Item", urn: "endless", options: PagingOptions(pagination: .pageNumber(parameter: "page")))
        {
            count += 1
            last = page
        }
        #expect(count == PagingOptions.defaultMaximumPages)
        #expect(counter.requests == PagingOptions.defaultMaximumPages)
        #expect(last?.end == .pageLimit)
        #expect(last?.result.pagingEnd == .pageLimit)
        #expect(last?.index == PagingOptions.defaultMaximumPages - 1)
    }

    // MARK: Orphans

    @Test func orphansAreDeletedAfterACompletePaging() async throws {
        _ = try await store.populate(.object(["data": [["id": 1], ["id": 99]]]), entity: "Item")
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: nil)))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all
        let pages = try await pages("p1", options)
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, .noNextPage)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs() == [1, 2])
    }

    @Test(arguments: [PagingEnd.emptyPage, .noNextPage])
    func orphansAreDeletedAfterAnEmptyPageOrTheTotal(end: PagingEnd) async throws {
        _ = try await store.populate(.object(["data": [["id": 99]]]), entity: "Item")
        let pagination: Pagination =
            end == .emptyPage
            ? .pageNumber(parameter: "page")
            : .offset(parameter: "offset", limitParameter: "limit", limit: 2, totalKeyPath: "meta.total")
        loopback.route(
            "/list",
            [
                .json(PagingBodies.body([1, 2], meta: ["total": 3])),
                .json(PagingBodies.body(end == .emptyPage ? [] : [3], meta: ["total": 3])),
            ])
        var options = PagingOptions(pagination: pagination)
        options.request.population.deleteOrphans = .all
        let pages = try await pages("list", options)
        #expect(
            PagingBodies.sent(loopback)
                == (end == .emptyPage
                    ? ["/list?page=1", "/list?page=2"] : ["/list?offset=0&limit=2", "/list?offset=2&limit=2"]))
        expectEnd(pages, end)
        #expect(pages.last?.orphansDeleted == ["Item": 1])
        #expect(try storedIDs() == (end == .emptyPage ? [1, 2] : [1, 2, 3]))
    }

    @Test(arguments: [PagingEnd.pageLimit, .repeatedPage])
    func noOrphansAreDeletedAfterAnIncompletePaging(end: PagingEnd) async throws {
        _ = try await store.populate(.object(["data": [["id": 99]]]), entity: "Item")
        loopback.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        loopback.route("/p2", .json(PagingBodies.body([2], next: end == .pageLimit ? "/p3" : "/p1")))
        var options = PagingOptions(
            pagination: .nextURL(keyPath: "meta.next"), maximumPages: end == .pageLimit ? 2 : nil)
        options.request.population.deleteOrphans = .all
        let pages = try await pages(loopback.url("/p1").absoluteString, options)
        #expect(PagingBodies.sent(loopback) == ["/p1", "/p2"])
        expectEnd(pages, end)
        #expect(pages.last?.orphansDeleted.isEmpty == true)
        #expect(try storedIDs() == [1, 2, 99])
        let warnings = pages.last?.result.debugger.warnings ?? []
        #expect(
            warnings.contains {
                $0.code == .invalidResponseFormat && !$0.isFatal
                    && $0.message.contains("paging ended with \(end.rawValue)")
                    && $0.message.contains("no orphans were deleted")
            }, "\(warnings.map(\.message))")
    }

    @Test(arguments: PagingEnd.allCases)
    func onlyTheServersOwnEndsAreComplete(end: PagingEnd) {
        #expect(end.isComplete == [.noNextPage, .emptyPage, .shortPage].contains(end))
    }
}

/// A server that answers every request with one item and counts them.
final class CountingServer: Server, @unchecked Sendable {
    private let count = Locked(0)
    var requests: Int { count.value }

    /// Each page one new item, so that only the page limit ends the run.
    func response(for request: ServerRequest) async throws -> ServerResponse {
        let number = count.withLock { count in
            count += 1
            return count
        }
        return ServerResponse(body: ["data": [["id": .integer(Int64(number)), "name": "one"]]])
    }
}

// MARK: - Rule 5: credentials stay with their origin

@Suite(.measuresTime) struct PagingRulesCredentialTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let home: LoopbackHTTPServer
    let other: LoopbackHTTPServer

    static let secrets = ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"]

    init() throws {
        (store, directory) = try PagingRules.makeStore()
        home = try LoopbackHTTPServer()
        other = try LoopbackHTTPServer()
        store.register(
            HTTPServer(
                baseURL: home.baseURL,
                headers: [
                    "Authorization": "token X", "Proxy-Authorization": "Basic cHJveHk=", "Cookie": "session=s1",
                    "X-Api-Key": "k-123",
                    "X-Client": "webrecord-tests",
                ]),
            forEntity: "Item")
    }

    func storedIDs() throws -> [Int] { try PagingRules.storedIDs(in: store) }

    /// Which of the secret headers a request carried, and the non-secret one.
    func carried(_ request: LoopbackRequest) -> [String] {
        (Self.secrets + ["X-Client"]).filter { request.header($0) != nil }
    }

    @Test func aNextPageOnAnotherPortGetsNoCredentialsAndTheHomeOriginGetsThemBack() async throws {
        home.route("/p1", .json(PagingBodies.body([1], next: other.url("/p2").absoluteString)))
        other.route("/p2", .json(PagingBodies.body([2], next: home.url("/p3?x=1").absoluteString)))
        home.route("/p3", .json(PagingBodies.body([3], next: nil)))
        let pages = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(PagingBodies.sent(home) == ["/p1", "/p3?x=1"])
        #expect(PagingBodies.sent(other) == ["/p2"])
        #expect(home.requests.map(carried) == Array(repeating: Self.secrets + ["X-Client"], count: 2))
        #expect(
            home.requests.allSatisfy { $0.header("Authorization") == "token X" && $0.header("Cookie") == "session=s1" })
        #expect(other.requests.map(carried) == [["X-Client"]])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aLinkHeaderToAnotherPortGetsNoCredentials() async throws {
        home.route(
            "/items",
            .json(
                PagingBodies.body([1]),
                headers: ["Link": "<\(other.url("/items?page=2").absoluteString)>; rel=\"next\""]))
        other.route(
            "/items",
            [
                .json(PagingBodies.body([2]), headers: ["Link": #"</items?page=3>; rel="next""#]),
                .json(PagingBodies.body([3]), headers: ["Link": #"</items?page=2>; rel="prev""#]),
            ])
        let pages = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "items", options: PagingOptions(pagination: .linkHeader)))
        #expect(PagingBodies.sent(home) == ["/items"])
        // The relative link resolves against the other server's page, and stays there.
        #expect(PagingBodies.sent(other) == ["/items?page=2", "/items?page=3"])
        #expect(home.requests.map(carried) == [Self.secrets + ["X-Client"]])
        #expect(other.requests.map(carried) == [["X-Client"], ["X-Client"]])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func sameOriginPagesKeepTheirCredentials() async throws {
        home.route("/a/p1", .json(PagingBodies.body([1], next: home.url("/b/p2").absoluteString)))
        home.route("/b/p2", .json(PagingBodies.body([2], next: "/c/p3")))
        home.route("/c/p3", .json(PagingBodies.body([3], next: "../d/p4")))
        home.route("/d/p4", .json(PagingBodies.body([4], next: nil)))
        _ = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "a/p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next")))
        )
        #expect(PagingBodies.sent(home) == ["/a/p1", "/b/p2", "/c/p3", "/d/p4"])
        #expect(home.requests.map(carried) == Array(repeating: Self.secrets + ["X-Client"], count: 4))
        #expect(other.requests.isEmpty)
    }

    @Test func cursorPagesOnAnotherOriginGetNoCredentialsOnAnyPage() async throws {
        other.route("/feed", [.json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: nil))])
        _ = try await PagingRules.collect(
            store.pages(
                entity: "Item", urn: other.url("/feed").absoluteString,
                options: PagingOptions(pagination: .cursor(keyPath: "meta.cursor", parameter: "cursor"))))
        #expect(PagingBodies.sent(other) == ["/feed", "/feed?cursor=c1"])
        #expect(other.requests.map(carried) == [["X-Client"], ["X-Client"]])
        #expect(home.requests.isEmpty)
    }

    @Test func numberedPagesOnTheHomeOriginKeepCredentialsOnEveryPage() async throws {
        home.route(
            "/list", [.json(PagingBodies.body([1])), .json(PagingBodies.body([2])), .json(PagingBodies.body([]))])
        let pages = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "list", options: PagingOptions(pagination: .pageNumber(parameter: "page")))
        )
        #expect(PagingBodies.sent(home) == ["/list?page=1", "/list?page=2", "/list?page=3"])
        #expect(home.requests.map(carried) == Array(repeating: Self.secrets + ["X-Client"], count: 3))
        #expect(pages.last?.end == .emptyPage)
    }

    @Test
    func aSameOriginPageRedirectedToAnotherPortLosesItsCredentials() async throws {
        home.route("/p1", .json(PagingBodies.body([1], next: "/moved")))
        home.route("/moved", .redirect(to: other.url("/p2").absoluteString))
        other.route("/p2", .json(PagingBodies.body([2], next: nil)))
        _ = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(PagingBodies.sent(home) == ["/p1", "/moved"])
        #expect(PagingBodies.sent(other) == ["/p2"])
        #expect(home.requests.map(carried) == Array(repeating: Self.secrets + ["X-Client"], count: 2))
        #expect(other.requests.map(carried) == [["X-Client"]])
        #expect(try storedIDs() == [1, 2])
    }

    @Test
    func theSchemesCaseDoesNotMakeAnotherOrigin() async throws {
        let upper = "HTTP://127.0.0.1:\(home.port)/p2"
        home.route("/p1", .json(PagingBodies.body([1], next: upper)))
        home.route("/p2", .json(PagingBodies.body([2], next: nil)))
        _ = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(PagingBodies.sent(home) == ["/p1", "/p2"])
        #expect(home.requests.map(carried) == Array(repeating: Self.secrets + ["X-Client"], count: 2))
    }

    @Test func secretHeadersAreRecognisedWhateverTheirCase() async throws {
        let lowerCased = HTTPServer(
            baseURL: home.baseURL,
            headers: ["authorization": "token X", "COOKIE": "session=s1", "x-api-key": "k", "X-Client": "c"])
        store.register(lowerCased, forEntity: "Item")
        home.route("/p1", .json(PagingBodies.body([1], next: other.url("/p2").absoluteString)))
        other.route("/p2", .json(PagingBodies.body([2], next: nil)))
        _ = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(home.requests.map(carried) == [["Authorization", "Cookie", "X-Api-Key", "X-Client"]])
        #expect(other.requests.map(carried) == [["X-Client"]])
    }

    @Test func aNetworkPathReferenceToAnotherPortGetsNoCredentials() async throws {
        home.route("/p1", .json(PagingBodies.body([1], next: "//127.0.0.1:\(other.port)/p2?page=2")))
        other.route("/p2", .json(PagingBodies.body([2], next: nil)))
        let pages = try await PagingRules.collect(
            store.pages(entity: "Item", urn: "p1", options: PagingOptions(pagination: .nextURL(keyPath: "meta.next"))))
        #expect(PagingBodies.sent(home) == ["/p1"])
        #expect(PagingBodies.sent(other) == ["/p2?page=2"])
        #expect(home.requests.map(carried) == [Self.secrets + ["X-Client"]])
        #expect(other.requests.map(carried) == [["X-Client"]])
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func perRequestCredentialsStayWithTheirOriginToo() async throws {
        store.register(HTTPServer(baseURL: home.baseURL), forEntity: "Item")
        home.route("/p1", .json(PagingBodies.body([1], next: other.url("/p2").absoluteString)))
        other.route("/p2", .json(PagingBodies.body([2], next: home.url("/p3").absoluteString)))
        home.route("/p3", .json(PagingBodies.body([3], next: nil)))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.headers = ["Authorization": "Bearer per-request", "Cookie": "c=2", "X-Client": "per-request"]
        _ = try await PagingRules.collect(store.pages(entity: "Item", urn: "p1", options: options))
        #expect(PagingBodies.sent(home) == ["/p1", "/p3"])
        #expect(PagingBodies.sent(other) == ["/p2"])
        #expect(
            home.requests.allSatisfy {
                $0.header("Authorization") == "Bearer per-request" && $0.header("Cookie") == "c=2"
            })
        #expect(other.requests.map(carried) == [["X-Client"]])
    }

    @Test func originsCompareSchemeHostAndPort() throws {
        let origin = { (text: String) in URLReference.origin(of: try #require(URL(string: text))) }
        #expect(try origin("http://127.0.0.1:8080/a?x") == origin("HTTP://127.0.0.1:8080/b"))
        #expect(try origin("http://Example.COM/a") == origin("http://example.com:80/b"))
        #expect(try origin("https://example.com/a") == origin("https://example.com:443/"))
        #expect(try origin("http://127.0.0.1:8080/") != origin("http://127.0.0.1:8081/"))
        #expect(try origin("http://example.com/") != origin("https://example.com/"))
        #expect(try origin("http://example.com/") != origin("http://api.example.com/"))
    }
}

// MARK: - URLReference and LinkHeader units

@Suite struct PagingRulesURLReferenceTests {
    static let base = URL(string: "http://a/b/c/d;p?q")!

    /// RFC 3986 §5.4.1.
    static let normal: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 §5.4.2 (the strict reading of `http:g`).
    static let abnormal: [(String, String)] = [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ]

    @Test(arguments: normal)
    func normalExamples(reference: String, expected: String) {
        #expect(URLReference.resolve(reference, against: Self.base)?.absoluteString == expected)
    }

    @Test(arguments: abnormal)
    func abnormalExamples(reference: String, expected: String) {
        #expect(URLReference.resolve(reference, against: Self.base)?.absoluteString == expected)
    }

    @Test(arguments: [
        ("?page=2", "https://api.example.com/v1/items?page=2"), ("/v2/items", "https://api.example.com/v2/items"),
        ("../users", "https://api.example.com/users"), ("items?page=3", "https://api.example.com/v1/items?page=3"),
        ("/posts?page=2", "https://api.example.com/posts?page=2"),
        ("https://other.example/x?y=1", "https://other.example/x?y=1"),
        ("//cdn.example.com/p?page=2", "https://cdn.example.com/p?page=2"),
        ("./next/./page/../2", "https://api.example.com/v1/next/2"),
    ])
    func aPagesNextLinks(reference: String, expected: String) throws {
        let base = try #require(URL(string: "https://api.example.com/v1/items?page=1"))
        #expect(URLReference.resolve(reference, against: base)?.absoluteString == expected)
    }

    @Test func aBaseWithAnAuthorityAndNoPathMergesBelowTheRoot() throws {
        let base = try #require(URL(string: "http://h:8080"))
        #expect(URLReference.resolve("items?page=2", against: base)?.absoluteString == "http://h:8080/items?page=2")
        #expect(URLReference.resolve("?page=2", against: base)?.absoluteString == "http://h:8080?page=2")
    }
}

@Suite struct PagingRulesLinkHeaderParsingTests {
    func links(_ value: String) -> [(String, [String])] {
        LinkHeader(value).links.map { ($0.target, $0.relations) }
    }

    @Test func aTargetKeepsItsCommasAndSemicolons() {
        let header = LinkHeader(#"<https://h/items?ids=1,2;x>; rel="next", <https://h/items?ids=0>; rel="prev""#)
        #expect(header.links.map(\.target) == ["https://h/items?ids=1,2;x", "https://h/items?ids=0"])
        #expect(header.target(relation: "next") == "https://h/items?ids=1,2;x")
        #expect(header.target(relation: "prev") == "https://h/items?ids=0")
    }

    @Test func quotedValuesKeepTheirCommasAndEscapes() {
        let header = LinkHeader(#"</a>; title="one, two; \"three\""; rel="prev", </b>; rel="next"; title="x,y""#)
        #expect(header.links.count == 2)
        #expect(header.links.first?.parameters.map(\.name) == ["title", "rel"])
        #expect(header.links.first?.parameters.first?.value == #"one, two; "three""#)
        #expect(header.links.last?.parameters.last?.value == "x,y")
        #expect(header.target(relation: "next") == "/b")
    }

    @Test func relIsASpaceSeparatedCaseInsensitiveList() {
        let header = LinkHeader(#"</p>; REL="Prev NEXT", </l>; rel=last"#)
        #expect(header.links.first?.relations == ["prev", "next"])
        #expect(header.target(relation: "next") == "/p")
        #expect(header.target(relation: "NEXT") == "/p")
        #expect(header.target(relation: "Last") == "/l")
        #expect(header.target(relation: "first") == nil)
    }

    @Test func theFirstLinkOfARelationWinsWhateverTheOrder() {
        let header = LinkHeader(#"</first>; rel="first", </last>; rel="last", </n1>; rel="next", </n2>; rel="next""#)
        #expect(header.target(relation: "next") == "/n1")
        #expect(header.links.map(\.target) == ["/first", "/last", "/n1", "/n2"])
    }

    @Test func onlyTheFirstRelParameterCounts() {
        let header = LinkHeader(#"</a>; rel="prev"; rel="next""#)
        #expect(header.links.first?.relations == ["prev"])
        #expect(header.target(relation: "next") == nil)
    }

    @Test func namesAreLowerCasedAndAValuelessParameterHasNoValue() {
        let header = LinkHeader(#"</a>; Rel=next; Crossorigin; TYPE="text/html""#)
        let parameters = header.links.first?.parameters ?? []
        #expect(parameters.map(\.name) == ["rel", "crossorigin", "type"])
        #expect(parameters.map(\.value) == ["next", nil, "text/html"])
    }

    @Test func malformedElementsAreSkippedToTheNextLink() {
        #expect(links(#"junk; rel="next", </ok>; rel="next""#).map(\.0) == ["/ok"])
        #expect(links(#"</a>; rel="prev" trailing, </b>; rel="next""#).map(\.0) == ["/a", "/b"])
        #expect(links(#"<unclosed; rel="next""#).isEmpty)
        #expect(LinkHeader("").links.isEmpty)
        #expect(LinkHeader(" , ,").links.isEmpty)
    }

    @Test func whitespaceAroundDelimitersIsAllowed() {
        let header = LinkHeader("  </a> ;  rel = \"next\"  ,\t</b>\t;\trel=prev")
        #expect(header.target(relation: "next") == "/a")
        #expect(header.target(relation: "prev") == "/b")
    }
}
