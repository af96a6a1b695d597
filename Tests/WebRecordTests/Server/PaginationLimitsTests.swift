import Foundation
import Testing

@testable import WebRecord

/// The built-in page managers do checked arithmetic on page numbers and offsets, which come
/// from the request's data and the server's totals: at the edge of Int64 they stop, never trap.
@Suite struct PaginationLimitsTests {
    func request(_ data: JSONValue?) -> ServerRequest {
        ServerRequest(urn: "posts", data: data, entityName: "Post")
    }

    let fullPage = ServerResponse(body: ["data": [["id": 1], ["id": 2]], "total": .integer(Int64.max)])

    @Test func aPageNumberAtInt64MaxIsTheLast() {
        let manager = Pagination.pageNumber(parameter: "page").pageManager(
            for: fullPage, of: request(["page": .integer(Int64.max)]))
        #expect(manager.nextPageURN == nil)
        #expect(manager.nextPageData == nil)
        #expect(manager.currentPageIndex == Int(Int64.max - 1))
    }

    @Test func aPageNumberAtInt64MinHasNoIndex() {
        let manager = Pagination.pageNumber(parameter: "page").pageManager(
            for: fullPage, of: request(["page": .integer(Int64.min)]))
        #expect(manager.currentPageIndex == nil)
        #expect(manager.nextPageURN == "posts")
    }

    @Test func aPageNumberAtInt64MinWithATotalGoesOnWithoutOverflowing() {
        let manager = Pagination.pageNumber(parameter: "page", totalKeyPath: "total").pageManager(
            for: fullPage, of: request(["page": .integer(Int64.min)]))
        #expect(manager.nextPageURN == "posts")
        #expect(manager.nextPageData?["page"] == .integer(Int64.min + 1))
    }

    @Test func pagesTimesPageSizePastInt64MaxStops() {
        let pagination = Pagination.pageNumber(parameter: "page", totalKeyPath: "total")
        let manager = pagination.pageManager(for: fullPage, of: request(["page": .integer(Int64.max / 2 + 1)]))
        #expect(manager.nextPageURN == nil)
        #expect(manager.totalResultsCount == Int(Int64.max))
    }

    @Test func anOffsetPastInt64MaxIsTheLast() {
        let pagination = Pagination.offset(parameter: "offset", limitParameter: "limit", limit: Int.max)
        let manager = pagination.pageManager(
            for: ServerResponse(body: .array(Array(repeating: ["id": 1], count: 3))),
            of: request(["offset": .integer(Int64.max - 1)]))
        #expect(manager.nextPageURN == nil)
        #expect(manager.nextPageData == nil)
    }

    @Test func anOffsetWithRoomGoesOn() {
        let pagination = Pagination.offset(parameter: "offset", limitParameter: "limit", limit: 2)
        let manager = pagination.pageManager(for: fullPage, of: request(["offset": .integer(Int64.max - 2)]))
        #expect(manager.nextPageURN == "posts")
        #expect(manager.nextPageData?["offset"] == .integer(Int64.max))
        #expect(manager.currentPageIndex == Int((Int64.max - 2) / 2))
    }
}

extension PagingTests {
    @Test(arguments: [0, -1, Int.min])
    func aPageLimitBelowOneRequestsTheFirstPageOnly(maximumPages: Int) async throws {
        loopback.route("/list", .json(page([1])))
        let pages = try await collect(
            store.pages(
                entity: "Post", urn: "list",
                options: PagingOptions(pagination: .pageNumber(parameter: "page"), maximumPages: maximumPages)))
        #expect(pages.count == 1)
        #expect(pages.first?.isLast == true)
        #expect(loopback.requests(to: "/list").count == 1)
    }
}
