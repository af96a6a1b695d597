import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A paged request with no pagination configured follows a standard `Link: <…>; rel="next"`,
/// as the server says how it pages; other signs of paging get a debug-level hint that says
/// how to configure it.
@Suite(.measuresTime) struct PagingByDefaultTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory, loopback) = try PagingRules.makeLoopbackStore()
    }

    func storedIDs() throws -> [Int] { try PagingRules.storedIDs(in: store) }

    @Test func aLinkNextIsFollowedWithoutAPaginationOption() async throws {
        let second = loopback.url("/second").absoluteString
        loopback.route("/first", .json(PagingBodies.body([1, 2]), headers: ["Link": #"<\#(second)>; rel="next""#]))
        loopback.route("/second", .json(PagingBodies.body([3]), headers: ["Link": #"</first>; rel="prev""#]))
        let pages = try await PagingRules.collect(store.pages(entity: "Item", urn: "first"))
        #expect(PagingBodies.sent(loopback) == ["/first", "/second"])
        #expect(pages.map(\.index) == [0, 1], "page indexes start at 0")
        #expect(pages.last?.end == .noNextPage)
    }

    @Test func aLaterPageWithoutALinkHeaderIsNotTheLastOneWithoutAPaginationOption() async throws {
        let second = loopback.url("/second").absoluteString
        loopback.route("/first", .json(PagingBodies.body([1, 2]), headers: ["Link": #"<\#(second)>; rel="next""#]))
        loopback.route("/second", .json(PagingBodies.body([3])))
        let pages = try await PagingRules.collect(store.pages(entity: "Item", urn: "first"))
        #expect(PagingBodies.sent(loopback) == ["/first", "/second"])
        #expect(pages.last?.end == .nextPageNotFound)
        #expect(try storedIDs() == [1, 2, 3])
    }

    @Test func aSingleRequestFetchesOnePageEvenWithALinkNext() async throws {
        loopback.route(
            "/first", .json(PagingBodies.body([1]), headers: ["Link": #"<\#(loopback.url("/second"))>; rel="next""#]))
        loopback.route("/second", .json(PagingBodies.body([2])))
        let result = try await store.startRequest(entity: "Item", urn: "first")
        #expect(result.records.count == 1)
        #expect(result.pageManager == nil, "the server gives no page manager")
        #expect(PagingBodies.sent(loopback) == ["/first"])
    }

    @Test func withoutALinkNextOnePageIsAll() async throws {
        loopback.route("/first", .json(#"{"data": [{"id": 1}], "meta": {"next": "/second"}}"#))
        let pages = try await PagingRules.collect(store.pages(entity: "Item", urn: "first"))
        #expect(pages.count == 1)
        #expect(pages.last?.end == .noNextPage)
        #expect(PagingBodies.sent(loopback) == ["/first"])
    }

    @Test(arguments: [
        (
            #"{"data": [], "meta": {"next": "/p2"}}"#, [String: String](), "'meta.next'",
            #".nextURL(keyPath: "meta.next")"#
        ),
        (#"{"data": [], "next_url": "/p2"}"#, [:], "'next_url'", #".nextURL(keyPath: "next_url")"#),
        (
            #"{"data": [], "paging": {"cursor": "abc"}}"#, [:], "'paging.cursor'",
            #".cursor(keyPath: "paging.cursor", parameter: "cursor")"#
        ),
        (#"{"data": []}"#, ["Link": #"</p2>; rel="next""#], #"Link: rel="next""#, ".linkHeader"),
    ])
    func aResponseThatLooksPagedIsNamedWithItsPagination(
        _ body: String, _ headers: [String: String], _ sign: String, _ pagination: String
    ) throws {
        let response = ServerResponse(body: try JSONReader().read(body), headers: headers)
        let suggestion = try #require(Pagination.suggestion(for: response))
        #expect(suggestion.sign == sign)
        #expect(suggestion.pagination == pagination)
    }

    @Test(arguments: [#"{"data": [{"id": 1}]}"#, #"{"data": [], "meta": {"next": ""}}"#, #"[{"next": "x"}]"#])
    func aResponseThatDoesNotLookPagedGetsNoHint(_ body: String) throws {
        #expect(Pagination.suggestion(for: ServerResponse(body: try JSONReader().read(body))) == nil)
    }

    @Test func theHintIsLoggedAtDebugLevel() async throws {
        loopback.route("/first", .json(#"{"data": [{"id": 1}], "meta": {"next": "/second"}}"#))
        let store = self.store
        let (_, events) = try await InMemoryLogHandler.capture(level: .debug) {
            _ = try await store.startRequest(entity: "Item", urn: "first")
        }
        // (Other suites' requests may log while the level is raised: look for this one's line.)
        let expected =
            "the response looks paged ('meta.next'); a paged request (pages(...)) follows it with "
            + #"PagingOptions(pagination: .nextURL(keyPath: "meta.next"))"#
        #expect(events.map(\.message).contains(expected), "\(events.map(\.message))")
    }
}
