import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Each `--paginate` spelling selects its kind of paging, with the key paths and parameters it
/// names: one first page carries a next URL, a `Link` header and a cursor, and only the
/// spelled kind follows its own.
extension PagingRulesCommandTests {
    @Test(arguments: [
        ("next-url:meta.next", ["/start", "/by-next-url"]),
        ("link-header", ["/start", "/by-link"]),
        ("cursor:meta.min_id:before_id", ["/start", "/start?before_id=c1"]),
        ("page:p", ["/start?p=1", "/start?p=2"]),
        // The first page holds one record of the 25 asked: the next offset is 1, and the page that
        // answers it repeats the first.
        ("offset:o:l:25", ["/start?o=0&l=25", "/start?o=1&l=25"]),
        ("has-more:meta.more:id:after", ["/start", "/start?after=1"]),
    ])
    func eachPaginateSpellingFollowsItsKind(spelling: String, sent: [String]) async throws {
        let first = PagingBodies.body(
            [1], meta: ["next": .string(server.url("/by-next-url").absoluteString), "min_id": "c1", "more": true])
        server.route(
            "/start", .json(first, headers: ["Link": "<\(server.url("/by-link").absoluteString)>; rel=\"next\""]))
        server.route("/by-next-url", .json(PagingBodies.body([2])))
        server.route("/by-link", .json(PagingBodies.body([3])))
        let result = try await populate(server.url("/start"), ["--paginate", spelling])
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == sent)
    }
}
