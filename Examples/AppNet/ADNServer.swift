import Foundation
import WebRecord

/// A server for App.net's API: where it is, how to authenticate, and how it pages.
///
/// App.net (`https://alpha-api.app.net/`) took an OAuth token in an `Authorization: Bearer`
/// header, and paged a stream backwards in time: each response's `meta` gave `min_id`, the
/// oldest post on the page, and `more`, whether older posts remained. The next page was the
/// same URN with `before_id=<min_id>`.
///
/// `@unchecked Sendable`, as `HTTPServer` itself: the subclass adds no state.
final class ADNServer: HTTPServer, @unchecked Sendable {
    init(baseURL: URL, token: String) {
        super.init(baseURL: baseURL, headers: ["Authorization": "Bearer \(token)"])
    }

    override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
        guard response.body.value(atKeyPath: "meta.more") == .bool(true) else { return nil }
        return Pagination.cursor(keyPath: "meta.min_id", parameter: "before_id").pageManager(for: response, of: request)
    }
}
