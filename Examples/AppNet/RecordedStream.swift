import Foundation
import WebRecord
import WebRecordTesting

/// The recorded global stream (posts.json), served the way App.net served it.
///
/// App.net answered `GET stream/0/posts/stream/global` with the newest posts, and
/// `GET …?before_id=ID` with the newest posts older than `ID`. Each answer's `meta` gave the
/// page's `min_id` and `max_id`, and `more`: whether older posts remained.
struct RecordedStream {
    /// The recorded posts, newest first.
    let posts: [JSONValue]
    /// Posts per page.
    let pageSize: Int

    init(contentsOf url: URL, pageSize: Int) throws {
        let response = try JSONReader().read(Data(contentsOf: url))
        posts = (response["data"]?.arrayValue ?? []).sorted { Self.id(of: $0) > Self.id(of: $1) }
        self.pageSize = pageSize
    }

    /// The `before_id` of each page in turn: none for the first, then the `min_id` of the page
    /// before.
    var cursors: [Int64?] {
        stride(from: 0, to: posts.count, by: pageSize).map { $0 == 0 ? nil : Self.id(of: posts[$0 - 1]) }
    }

    /// App.net's answer to a request with `before_id` (nil: the newest posts).
    func page(before beforeID: Int64?) -> JSONValue {
        let older = posts.filter { post in beforeID.map { Self.id(of: post) < $0 } ?? true }
        let page = Array(older.prefix(pageSize))
        var meta: JSONObject = ["code": 200]
        if let newest = page.first, let oldest = page.last {
            meta["max_id"] = .integer(Self.id(of: newest))
            meta["min_id"] = .integer(Self.id(of: oldest))
        }
        meta["more"] = .bool(older.count > page.count)
        return ["data": .array(page), "meta": .object(meta)]
    }

    /// Answers `path` on `loopback` with the pages for `cursors`, one request after another.
    ///
    /// `LoopbackHTTPServer` answers a path with a list of responses in turn, whatever the query,
    /// so the pages are queued in the order they will be asked for; ``cursor(of:)`` reads what
    /// each request did ask for, to check afterwards.
    func serve(_ cursors: [Int64?], on loopback: LoopbackHTTPServer, at path: String) {
        loopback.route(path, cursors.map { .json(page(before: $0).serialized()) })
    }

    /// The `before_id` a request asked for, nil when it asked for none.
    static func cursor(of request: LoopbackRequest) -> Int64? {
        request.queryItems.first { $0.name == "before_id" }.flatMap { Int64($0.value) }
    }

    private static func id(of post: JSONValue) -> Int64 {
        post["id"]?.stringValue.flatMap { Int64($0) } ?? 0
    }
}
