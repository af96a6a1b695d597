import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// The paging rules through `webrecord populate --paginate`, run as a child process against
/// two loopback servers: next links resolved as RFC 3986 says, `Link` headers parsed by
/// RFC 8288's grammar, parameters replaced rather than duplicated, why paging ended (in
/// `--json`'s `paging` and the text summary), orphans after incomplete paging, and credentials
/// kept to their origin. Each test asserts the exact requests the servers received.
@Suite(.measuresTime) struct PagingRulesCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let server: LoopbackHTTPServer
    let other: LoopbackHTTPServer

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

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("paging-schema.json", Self.schemaJSON)
        server = try LoopbackHTTPServer()
        other = try LoopbackHTTPServer()
    }

    var db: String { directory.path("paging.sqlite") }

    // MARK: Helpers

    func populate(_ sources: [String], _ extra: [String], entity: String = "Item", json: Bool = true) async throws
        -> CLIResult
    {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", entity] + (json ? ["--json"] : []) + extra
                + sources,
            in: directory.url)
    }

    func populate(_ source: URL, _ extra: [String], entity: String = "Item") async throws -> CLIResult {
        try await populate([source.absoluteString], extra, entity: entity)
    }

    func storedIDs(_ entity: String = "Item") throws -> [Int] {
        let store = try RecordStore(path: db, schema: Schema(contentsOf: URL(fileURLWithPath: schema)))
        return try store.fetch(entity, orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    /// Seeds the store with `ids` from a file.
    func seed(_ ids: [Int], entity: String = "Item") async throws {
        let body = entity == "Item" ? PagingBodies.body(ids) : #"{"id": \#(ids[0]), "name": "old"}"#
        let file = try directory.write("seed.json", body)
        let result = try await populate([file], [], entity: entity)
        #expect(result.status == 0, "\(result)")
    }

    /// The `paging` array of a `--json` summary as (source, pages, end).
    func paging(_ result: CLIResult) throws -> [PagingLine] {
        try (Summary(result).object["paging"]?.arrayValue ?? []).map {
            PagingLine(
                source: $0["source"]?.stringValue ?? "?", pages: $0["pages"]?.int64Value.map(Int.init) ?? -1,
                end: $0["end"]?.stringValue ?? "?")
        }
    }

    struct PagingLine: Equatable, CustomStringConvertible {
        var source: String
        var pages: Int
        var end: String
        var description: String { "\(source): \(pages) \(end)" }
    }

    func warnings(_ result: CLIResult) throws -> [(code: String, message: String)] {
        try Summary(result).warnings.map { ($0["code"]?.stringValue ?? "", $0["message"]?.stringValue ?? "") }
    }

    // MARK: - Rule 1: next links resolved against the page that named them

    @Test func nextURLsResolveAsRFC3986Says() async throws {
        server.route(
            "/api/v1/items",
            [
                .json(PagingBodies.body([1], next: "?page=2")),
                .json(PagingBodies.body([2], next: "../v2/./list/../items")),
            ])
        server.route("/api/v2/items", .json(PagingBodies.body([3], next: "/posts?page=2")))
        server.route("/posts", .json(PagingBodies.body([4], next: "items?page=5")))
        server.route("/items", .json(PagingBodies.body([5], next: server.url("/final?x=1").absoluteString)))
        server.route("/final", .json(PagingBodies.body([6], next: nil)))
        let source = server.url("/api/v1/items?page=1")
        let result = try await populate(source, ["--paginate", "next-url:meta.next"])
        #expect(result.status == 0, "\(result)")
        #expect(
            PagingBodies.sent(server) == [
                "/api/v1/items?page=1", "/api/v1/items?page=2", "/api/v2/items", "/posts?page=2", "/items?page=5",
                "/final?x=1",
            ])
        #expect(try storedIDs() == [1, 2, 3, 4, 5, 6])
        #expect(try paging(result) == [PagingLine(source: source.absoluteString, pages: 6, end: "noNextPage")])
        #expect(try Summary(result).int("records") == 6)
    }

    @Test func linkHeaderTargetsResolveAgainstTheirPage() async throws {
        server.route(
            "/a/b/list",
            [
                .json(PagingBodies.body([1]), headers: ["Link": #"<?page=2>; rel="next""#]),
                .json(PagingBodies.body([2]), headers: ["Link": #"<../c/./more>; rel="next""#]),
            ])
        server.route("/a/c/more", .json(PagingBodies.body([3]), headers: ["Link": #"</top?page=4>; rel="next""#]))
        server.route("/top", .json(PagingBodies.body([4]), headers: ["Link": #"</a/b/list>; rel="first""#]))
        let source = server.url("/a/b/list")
        let result = try await populate(source, ["--paginate", "link-header"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/a/b/list", "/a/b/list?page=2", "/a/c/more", "/top?page=4"])
        #expect(try storedIDs() == [1, 2, 3, 4])
        #expect(try paging(result) == [PagingLine(source: source.absoluteString, pages: 4, end: "noNextPage")])
    }

    @Test func anAbsolutePathDoesNotStayBelowTheSourcePath() async throws {
        server.route("/deep/path/items", .json(PagingBodies.body([1], next: "/items")))
        server.route("/items", .json(PagingBodies.body([2], next: nil)))
        server.route("/deep/path/items/items", .status(500))
        let result = try await populate(server.url("/deep/path/items"), ["--paginate", "next-url:meta.next"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/deep/path/items", "/items"])
        #expect(try storedIDs() == [1, 2])
    }

    // MARK: - Rule 2: Link headers by RFC 8288's grammar

    @Test(arguments: [
        #"<TARGET?ids=1,2;x>; rel="next""#,
        #"</first?a=1,2;b>; rel="first", <TARGET?ids=1,2;x>; rel="next", </last>; rel="last""#,
        #"</prev>; title="a, b; rel=\"next\", c"; rel="prev", <TARGET?ids=1,2;x>; title="x, y"; rel="next""#,
        #"<TARGET?ids=1,2;x>; rel="prev next""#,
        #"<TARGET?ids=1,2;x>; REL="NEXT""#,
        #"</last>; rel=last, </first>; rel=first, <TARGET?ids=1,2;x>; Rel=Next"#,
    ])
    func linkHeadersAreParsedByTheirGrammar(link: String) async throws {
        let target = server.url("/target").absoluteString
        server.route(
            "/start",
            .json(PagingBodies.body([1]), headers: ["Link": link.replacingOccurrences(of: "TARGET", with: target)]))
        // The last page's `Link` names no next page: the server's own end.
        server.route("/target", .json(PagingBodies.body([2]), headers: ["Link": #"</start>; rel="first""#]))
        let result = try await populate(server.url("/start"), ["--paginate", "link-header"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/start", "/target?ids=1,2;x"], "\(link)")
        #expect(try storedIDs() == [1, 2])
        #expect(try paging(result).map(\.end) == ["noNextPage"])
    }

    @Test(arguments: [
        #"</target>; rel="nextpage""#, #"</target>; title="next""#, #"</target>; rel="prev"; title="rel=next""#,
    ])
    func aLinkThatIsNotNextIsNotFollowed(link: String) async throws {
        server.route("/start", .json(PagingBodies.body([1]), headers: ["Link": link]))
        server.route("/target", .json(PagingBodies.body([2])))
        let result = try await populate(server.url("/start"), ["--paginate", "link-header"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/start"], "\(link)")
        #expect(try paging(result).map(\.end) == ["noNextPage"])
    }

    // MARK: - Rule 3: parameters replace, never duplicate

    @Test func aCursorReplacesTheSourceURLs() async throws {
        server.route(
            "/items",
            [
                .json(PagingBodies.body([1], cursor: "c2")), .json(PagingBodies.body([2], cursor: "c3")),
                .json(PagingBodies.body([3], cursor: nil)),
            ])
        let result = try await populate(
            server.url("/items?cursor=abc&limit=5"), ["--paginate", "cursor:meta.cursor:cursor"])
        #expect(result.status == 0, "\(result)")
        #expect(
            PagingBodies.sent(server) == [
                "/items?cursor=abc&limit=5", "/items?limit=5&cursor=c2", "/items?limit=5&cursor=c3",
            ])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(try paging(result).map(\.end) == ["noNextPage"])
    }

    @Test func aPageNumberReplacesTheSourceURLs() async throws {
        server.route(
            "/items", [.json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3])), .json(PagingBodies.body([]))])
        let result = try await populate(server.url("/items?page=1"), ["--paginate", "page:page"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/items?page=1", "/items?page=2", "/items?page=3"])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(try paging(result).map(\.end) == ["emptyPage"])
    }

    @Test func aPageNumberAmongOtherItemsKeepsTheirOrder() async throws {
        server.route("/items", [.json(PagingBodies.body([1])), .json(PagingBodies.body([]))])
        let result = try await populate(server.url("/items?a=1&page=5&b=2&page=6&c=3"), ["--paginate", "page:page"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/items?a=1&b=2&c=3&page=1", "/items?a=1&b=2&c=3&page=2"])
    }

    @Test func anOffsetAndLimitReplaceTheSourceURLs() async throws {
        server.route(
            "/items", [.json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3])), .json(PagingBodies.body([]))])
        let result = try await populate(
            server.url("/items?limit=50&sort=id&offset=100"), ["--paginate", "offset:offset:limit:2"])
        #expect(result.status == 0, "\(result)")
        #expect(
            PagingBodies.sent(server) == [
                "/items?sort=id&offset=0&limit=2", "/items?sort=id&offset=2&limit=2", "/items?sort=id&offset=3&limit=2",
            ])
        #expect(try storedIDs() == [1, 2, 3])
        #expect(try paging(result).map(\.end) == ["emptyPage"])
    }

    // MARK: - Rule 4: paging always ends and says why

    @Test func theJSONSummaryAndTheTextSummarySayWhyPagingEnded() async throws {
        server.route("/p1", .json(PagingBodies.body([1, 2], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([3], next: nil)))
        let source = server.url("/p1").absoluteString
        let json = try await populate([source], ["--paginate", "next-url:meta.next"])
        #expect(json.status == 0, "\(json)")
        #expect(try paging(json) == [PagingLine(source: source, pages: 2, end: "noNextPage")])
        #expect(try Summary(json).int("Item", "inserted") == 3)
        #expect(try warnings(json).isEmpty)

        let text = try await populate([source], ["--paginate", "next-url:meta.next"], json: false)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdoutLines.contains("  paging: 2 pages from \(source), ended: noNextPage"), "\(text)")
        #expect(
            text.stdoutLines.first == "Populated 3 Item records: 0 inserted, 0 updated, 3 unchanged, 0 deleted",
            "\(text)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2", "/p1", "/p2"])
    }

    @Test func eachPagedSourceHasItsOwnPagingEntry() async throws {
        server.route("/a", [.json(PagingBodies.body([1])), .json(PagingBodies.body([]))])
        other.route(
            "/b", [.json(PagingBodies.body([2, 3])), .json(PagingBodies.body([4])), .json(PagingBodies.body([]))])
        let a = server.url("/a").absoluteString
        let b = other.url("/b").absoluteString
        let result = try await populate([a, b], ["--paginate", "offset:o:n:2"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/a?o=0&n=2", "/a?o=1&n=2"])
        #expect(PagingBodies.sent(other) == ["/b?o=0&n=2", "/b?o=2&n=2", "/b?o=3&n=2"])
        #expect(
            try paging(result) == [
                PagingLine(source: a, pages: 2, end: "emptyPage"), PagingLine(source: b, pages: 3, end: "emptyPage"),
            ])
        #expect(try storedIDs() == [1, 2, 3, 4])
    }

    @Test func anEmptyPageThatNamesNoNextPageEndsPaging() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([], next: nil)))
        let result = try await populate(server.url("/p1"), ["--paginate", "next-url:meta.next"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2"])
        #expect(try paging(result).map(\.end) == ["emptyPage"])
    }

    @Test func anEmptyPageThatNamesANextPageIsFollowedAndOrphansWaitForTheEnd() async throws {
        try await seed([99])
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([], next: "/p3")))
        server.route("/p3", .json(PagingBodies.body([3], next: nil)))
        let result = try await populate(server.url("/p1"), ["--paginate", "next-url:meta.next", "--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2", "/p3"])
        #expect(try paging(result).map(\.end) == ["noNextPage"])
        #expect(try storedIDs() == [1, 3])
    }

    @Test func aLoopingNextURLIsRepeatedPageWithAWarning() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([2], next: "/p3")))
        server.route("/p3", .json(PagingBodies.body([3], next: "/p1")))
        let source = server.url("/p1").absoluteString
        let result = try await populate([source], ["--paginate", "next-url:meta.next"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2", "/p3"])
        #expect(try paging(result) == [PagingLine(source: source, pages: 3, end: "repeatedPage")])
        #expect(
            try warnings(result).contains {
                $0.code == "invalidResponseFormat" && $0.message.contains("already requested")
            })
        #expect(try storedIDs() == [1, 2, 3])
    }

    @Test func theTextSummarySaysRepeatedPageAndWarns() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([2], next: "/p1")))
        let source = server.url("/p1").absoluteString
        let result = try await populate([source], ["--paginate", "next-url:meta.next"], json: false)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2"])
        #expect(result.stdoutLines.contains("  paging: 2 pages from \(source), ended: repeatedPage"), "\(result)")
        #expect(result.stdoutLines.last == "1 warning", "\(result)")
        #expect(
            result.stderrLines.count == 1
                && result.stderrLines.allSatisfy {
                    $0.hasPrefix("webrecord: warning: ") && $0.contains("already requested")
                        && $0.hasSuffix("[invalidResponseFormat]")
                }, "\(result)")
    }

    @Test func aRepeatedCursorIsRepeatedPage() async throws {
        server.route(
            "/feed",
            [
                .json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: "c2")),
                .json(PagingBodies.body([3], cursor: "c1")),
            ])
        let result = try await populate(server.url("/feed"), ["--paginate", "cursor:meta.cursor:cursor"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/feed", "/feed?cursor=c1", "/feed?cursor=c2"])
        #expect(try paging(result).map(\.end) == ["repeatedPage"])
        #expect(try warnings(result).contains { $0.code == "invalidResponseFormat" })
    }

    @Test func theCursorJustSentIsNoNextPage() async throws {
        server.route(
            "/feed", [.json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: "c1"))])
        let result = try await populate(server.url("/feed"), ["--paginate", "cursor:meta.cursor:cursor"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/feed", "/feed?cursor=c1"])
        #expect(try paging(result).map(\.end) == ["noNextPage"])
        #expect(try warnings(result).isEmpty)
    }

    @Test func maxPagesEndsWithPageLimit() async throws {
        // Every page brings new records: a page of old ones would end paging by itself.
        server.route(
            "/list",
            [
                .json(PagingBodies.body([1, 2])), .json(PagingBodies.body([3, 4])), .json(PagingBodies.body([5, 6])),
                .json(PagingBodies.body([7, 8])),
            ])
        let result = try await populate(server.url("/list"), ["--paginate", "page:p", "--max-pages", "3"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/list?p=1", "/list?p=2", "/list?p=3"])
        #expect(try paging(result).map(\.end) == ["pageLimit"])
        #expect(try paging(result).map(\.pages) == [3])
    }

    @Test func maxPagesDefaultsToTenThousand() async throws {
        let help = try await CLI.run(["populate", "--help"])
        #expect(help.status == 0, "\(help)")
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("--max-pages <n> Request at most N pages per URL source (default 10000)."), "\(help)")
        #expect(PagingOptions.defaultMaximumPages == 10_000)
    }

    @Test
    func uncountablePagesEndPaging() async throws {
        server.route("/things", .json(#"{"id": 7, "name": "seven", "a": [1, 2], "b": [3, 4]}"#))
        let result = try await populate(
            server.url("/things"), ["--paginate", "page:page", "--max-pages", "4"], entity: "Thing")
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/things?page=1"])
        #expect(try paging(result).map(\.end) == ["uncountablePage"])
        #expect(try storedIDs("Thing") == [7])
    }

    @Test
    func deleteOrphansAfterAnUncountablePageDeletesNothing() async throws {
        try await seed([99], entity: "Thing")
        server.route("/things", .json(#"{"id": 7, "name": "seven", "a": [1, 2], "b": [3, 4]}"#))
        let result = try await populate(
            server.url("/things"), ["--paginate", "offset:o:n:5", "--delete-orphans"], entity: "Thing")
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/things?o=0&n=5"])
        #expect(try paging(result).map(\.end) == ["uncountablePage"])
        #expect(try storedIDs("Thing") == [7, 99])
        #expect(try warnings(result).contains { $0.message.contains("no orphans were deleted") })
    }

    @Test func maxPagesOneIsPageLimitAfterTheFirstPage() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        let source = server.url("/p1").absoluteString
        let result = try await populate(
            [source], ["--paginate", "next-url:meta.next", "--max-pages", "1"], json: false)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1"])
        #expect(result.stdoutLines.contains("  paging: 1 page from \(source), ended: pageLimit"), "\(result)")
    }

    @Test func deleteOrphansAfterACompletePagingDeletes() async throws {
        try await seed([1, 99])
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([2], next: nil)))
        let result = try await populate(server.url("/p1"), ["--paginate", "next-url:meta.next", "--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2"])
        #expect(try Summary(result).int("Item", "deleted") == 1)
        #expect(try storedIDs() == [1, 2])
        #expect(try warnings(result).isEmpty)
    }

    @Test(arguments: ["pageLimit", "repeatedPage"])
    func deleteOrphansAfterAnIncompletePagingDeletesNothingAndWarns(end: String) async throws {
        try await seed([99])
        server.route("/p1", .json(PagingBodies.body([1], next: "/p2")))
        server.route("/p2", .json(PagingBodies.body([2], next: end == "pageLimit" ? "/p3" : "/p1")))
        let extra = end == "pageLimit" ? ["--max-pages", "2"] : []
        let result = try await populate(
            server.url("/p1"), ["--paginate", "next-url:meta.next", "--delete-orphans"] + extra)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p2"])
        #expect(try paging(result).map(\.end) == [end])
        #expect(try Summary(result).int("Item", "deleted") == 0)
        #expect(try storedIDs() == [1, 2, 99])
        #expect(
            try warnings(result).contains {
                $0.code == "invalidResponseFormat" && $0.message.contains("(\(end))")
                    && $0.message.contains("no orphans were deleted")
            }, "\(result)")
    }

    @Test func oneIncompleteSourceAmongSeveralKeepsEveryOrphan() async throws {
        try await seed([99])
        server.route("/a", [.json(PagingBodies.body([1, 2])), .json(PagingBodies.body([]))])
        other.route("/b", [.json(PagingBodies.body([4, 5])), .json(PagingBodies.body([6, 7]))])
        let a = server.url("/a").absoluteString
        let b = other.url("/b").absoluteString
        let result = try await populate(
            [a, b], ["--paginate", "offset:o:n:2", "--max-pages", "2", "--delete-orphans"])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/a?o=0&n=2", "/a?o=2&n=2"])
        #expect(PagingBodies.sent(other) == ["/b?o=0&n=2", "/b?o=2&n=2"])
        #expect(
            try paging(result) == [
                PagingLine(source: a, pages: 2, end: "emptyPage"), PagingLine(source: b, pages: 2, end: "pageLimit"),
            ])
        #expect(try Summary(result).int("Item", "deleted") == 0)
        #expect(try storedIDs() == [1, 2, 4, 5, 6, 7, 99])
        #expect(
            try warnings(result).contains {
                $0.message.contains("(emptyPage, pageLimit)") && $0.message.contains("no orphans were deleted")
            })
    }

    @Test(arguments: ["0", "-1", "ten", ""])
    func maxPagesMustBeAPositiveInteger(value: String) async throws {
        let result = try await populate(server.url("/p1"), ["--paginate", "page:page", "--max-pages", value])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("invalid --max-pages '\(value)'"), "\(result)")
        #expect(server.requests.isEmpty)
    }

    @Test func deleteOrphansAfterAnIncompleteTextRunWarnsOnStandardError() async throws {
        try await seed([99])
        server.route("/list", [.json(PagingBodies.body([1])), .json(PagingBodies.body([2]))])
        let result = try await populate(
            [server.url("/list").absoluteString], ["--paginate", "page:page", "--max-pages", "2", "--delete-orphans"],
            json: false)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/list?page=1", "/list?page=2"])
        #expect(result.stdout.contains("ended: pageLimit"), "\(result)")
        #expect(
            result.stderrLines.contains {
                $0.hasPrefix("webrecord: warning: ") && $0.contains("no orphans were deleted")
            }, "\(result)")
        #expect(try storedIDs() == [1, 2, 99])
    }

    // MARK: - Rule 5: credentials stay with their origin

    static let credentials = [
        "--header", "Authorization: token X", "--header", "Cookie: session=s1", "--header",
        "Proxy-Authorization: Basic cA==",
        "--header", "X-Api-Key: k-1", "--header", "X-Client: cli",
    ]
    static let all = ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key", "X-Client"]

    /// Which of the headers given by `credentials` a request carried.
    func carried(_ request: LoopbackRequest) -> [String] {
        Self.all.filter { request.header($0) != nil }
    }

    @Test func aNextPageOnAnotherPortIsSentWithoutCredentials() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: other.url("/p2").absoluteString)))
        other.route("/p2", .json(PagingBodies.body([2], next: "/p3")))
        other.route("/p3", .json(PagingBodies.body([3], next: server.url("/p4").absoluteString)))
        server.route("/p4", .json(PagingBodies.body([4], next: nil)))
        let result = try await populate(server.url("/p1"), ["--paginate", "next-url:meta.next"] + Self.credentials)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/p4"])
        #expect(PagingBodies.sent(other) == ["/p2", "/p3"])
        #expect(server.requests.map(carried) == [Self.all, Self.all])
        #expect(
            server.requests.allSatisfy {
                $0.header("Authorization") == "token X" && $0.header("Cookie") == "session=s1"
            })
        #expect(other.requests.map(carried) == [["X-Client"], ["X-Client"]])
        #expect(try storedIDs() == [1, 2, 3, 4])
        #expect(try paging(result).map(\.end) == ["noNextPage"])
    }

    @Test func aLinkHeaderToAnotherPortIsSentWithoutCredentials() async throws {
        server.route(
            "/items",
            .json(
                PagingBodies.body([1]),
                headers: ["Link": "<\(other.url("/items?page=2").absoluteString)>; rel=\"next\""]))
        other.route("/items", .json(PagingBodies.body([2])))
        let result = try await populate(server.url("/items"), ["--paginate", "link-header"] + Self.credentials)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/items"])
        #expect(PagingBodies.sent(other) == ["/items?page=2"])
        #expect(server.requests.map(carried) == [Self.all])
        #expect(other.requests.map(carried) == [["X-Client"]])
        #expect(try storedIDs() == [1, 2])
    }

    @Test
    func aRedirectToAnotherPortIsSentWithoutCredentials() async throws {
        server.route("/p1", .json(PagingBodies.body([1], next: "/moved")))
        server.route("/moved", .redirect(to: other.url("/p2").absoluteString))
        other.route("/p2", .json(PagingBodies.body([2], next: nil)))
        let result = try await populate(server.url("/p1"), ["--paginate", "next-url:meta.next"] + Self.credentials)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/p1", "/moved"])
        #expect(PagingBodies.sent(other) == ["/p2"])
        #expect(other.requests.map(carried) == [["X-Client"]])
    }

    @Test func sameOriginPagesKeepTheirCredentials() async throws {
        server.route("/a/p1", .json(PagingBodies.body([1], next: server.url("/b/p2").absoluteString)))
        server.route("/b/p2", .json(PagingBodies.body([2], next: "../c/p3")))
        server.route("/c/p3", .json(PagingBodies.body([3], next: nil)))
        let result = try await populate(server.url("/a/p1"), ["--paginate", "next-url:meta.next"] + Self.credentials)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/a/p1", "/b/p2", "/c/p3"])
        #expect(server.requests.map(carried) == Array(repeating: Self.all, count: 3))
        #expect(other.requests.isEmpty)
    }

    @Test func cursorPagesKeepTheirCredentialsOnEveryPage() async throws {
        server.route(
            "/feed", [.json(PagingBodies.body([1], cursor: "c1")), .json(PagingBodies.body([2], cursor: nil))])
        let result = try await populate(
            server.url("/feed"), ["--paginate", "cursor:meta.cursor:after"] + Self.credentials)
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/feed", "/feed?after=c1"])
        #expect(server.requests.map(carried) == Array(repeating: Self.all, count: 2))
    }
}
