import WebRecord
import WebRecordTesting

/// Page bodies and request logs for the paging tests of the library and of the command line.
public enum PagingBodies {
    /// `{"data": [{"id": 1, "name": "item 1"}, ...], "meta": {...}}` as JSON text.
    public static func body(_ ids: [Int], meta: JSONObject = [:]) -> String {
        var object = JSONObject()
        object["data"] = .array(ids.map { ["id": .integer(Int64($0)), "name": .string("item \($0)")] })
        object["meta"] = .object(meta)
        return JSONValue.object(object).serialized()
    }

    /// A page body whose `meta.next` is `next` (null when nil).
    public static func body(_ ids: [Int], next: String?) -> String {
        body(ids, meta: ["next": next.map { .string($0) } ?? .null])
    }

    /// A page body whose `meta.cursor` is `cursor` (null when nil: the server says there is no
    /// more; `body(ids)` leaves the cursor out).
    public static func body(_ ids: [Int], cursor: String?) -> String {
        body(ids, meta: ["cursor": cursor.map { .string($0) } ?? .null])
    }

    /// Every request a server received, as `path?query`, in order.
    public static func sent(_ server: LoopbackHTTPServer) -> [String] {
        server.requests.map { $0.path + ($0.query.map { "?" + $0 } ?? "") }
    }
}
