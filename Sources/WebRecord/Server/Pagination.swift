import Foundation

/// The built-in ways web APIs page their results, each a ``PageManager`` factory.
///
/// Use one from a ``Server`` subclass's `pageManager(for:of:)`, or give one to a paged
/// request's options, for a server that has no page manager of its own:
///
/// ```swift
/// final class ADNServer: HTTPServer {
///     override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
///         Pagination.cursor(keyPath: "meta.min_id", parameter: "before_id").pageManager(for: response, of: request)
///     }
/// }
/// ```
///
/// Every kind stops when the response names no next page. A paged request also stops at a page
/// that populated no records, and at its page limit. Page numbers and offsets are 64-bit: a kind
/// stops rather than ask for a page or offset past `Int64.max`.
public enum Pagination: Sendable, Hashable {
    /// The next page's URL (or URN) is in the body at a key path.
    case nextURL(keyPath: String)
    /// The next page's URL is in the HTTP `Link` header, `rel="next"`.
    case linkHeader
    /// A cursor in the body at a key path is sent back as a query parameter.
    /// Paging stops when the cursor is missing, null, empty or the same as the one just sent.
    case cursor(keyPath: String, parameter: String)
    /// Pages are numbered from 1 in a query parameter. Paging stops at an empty page, or at the
    /// total when `totalKeyPath` gives it.
    case pageNumber(parameter: String, totalKeyPath: String? = nil)
    /// An offset and a limit in query parameters. Paging stops at an empty or short page.
    case offset(parameter: String, limitParameter: String, limit: Int)

    /// Whether the kind follows links the server names (next URLs, `Link` headers), which go on
    /// past an empty page while the server names a next one.
    var followsLinks: Bool {
        switch self {
        case .nextURL, .linkHeader: true
        case .cursor, .pageNumber, .offset: false
        }
    }

    /// Whether the kind decides from the number of records on a page (page numbers, offsets).
    var countsRecords: Bool {
        switch self {
        case .pageNumber, .offset: true
        case .nextURL, .linkHeader, .cursor: false
        }
    }

    /// The parameters of the first page's request, merged into `data`.
    ///
    /// Page numbers start at 1 and offsets at 0 with the limit; the other kinds send nothing extra.
    func firstPageData(_ data: JSONValue?) -> JSONValue? {
        switch self {
        case .pageNumber(let parameter, _):
            return Self.merging(data, [parameter: .integer(1)])
        case .offset(let parameter, let limitParameter, let limit):
            return Self.merging(data, [parameter: .integer(0), limitParameter: .integer(Int64(limit))])
        case .nextURL, .linkHeader, .cursor:
            return data
        }
    }

    /// The page manager for one page.
    ///
    /// - Parameters:
    ///   - response: the page just fetched.
    ///   - request: the request that fetched it.
    /// - Returns: the page manager; its ``PageManager/nextPageURN`` is nil on the last page.
    public func pageManager(for response: ServerResponse, of request: ServerRequest) -> any PageManager {
        pageManager(for: response, of: request, recordCount: nil)
    }

    /// The page manager for one page, knowing how many records the page's key path held
    /// (what a paged request counts when the body alone cannot say).
    ///
    /// Next links are resolved against the URL of the page that named them (RFC 3986, see
    /// ``URLReference``). A page or offset kind that cannot count a page's records stops
    /// rather than assume there is more.
    func pageManager(for response: ServerResponse, of request: ServerRequest, recordCount: Int?) -> BuiltInPageManager {
        let index = request.page?.index ?? 0
        switch self {
        case .nextURL(let keyPath):
            let (next, failure) = Self.link(at: keyPath, in: response.body)
            var manager = BuiltInPageManager(
                nextPageURN: next.map { Self.resolved($0, against: response.url) }, nextPageData: nil,
                currentPageIndex: index)
            manager.failure = failure
            return manager
        case .linkHeader:
            let next = response.header("Link").flatMap { LinkHeader($0).target(relation: "next") }
            return BuiltInPageManager(
                nextPageURN: next.map { Self.resolved($0, against: response.url) }, nextPageData: nil,
                currentPageIndex: index)
        case .cursor(let keyPath, let parameter):
            var cursor: JSONValue?
            var failure: WebRecordError?
            switch response.body.value(atKeyPath: keyPath) {
            case .string(let text)? where !text.isEmpty: cursor = .string(text)
            case .integer(let number)?: cursor = .integer(number)
            case nil, .null?, .string?: cursor = nil
            case let other?:
                failure = Self.unreadable(other, at: keyPath, expected: "a string or an integer cursor, or null")
            }
            // The cursor just sent: in the request's parameters, else in its URN's query.
            let sent =
                request.data?[parameter].map(HTTPRequestEncoding.text(of:))
                ?? Self.queryValue(named: parameter, in: request.urn)
            if let value = cursor, let sent, sent == HTTPRequestEncoding.text(of: value) { cursor = nil }
            var manager = BuiltInPageManager(
                nextPageURN: cursor == nil ? nil : request.urn,
                nextPageData: cursor.map { Self.merging(request.data, [parameter: $0]) } ?? nil,
                currentPageIndex: index)
            manager.failure = failure
            return manager
        case .pageNumber(let parameter, let totalKeyPath):
            // The page number comes from the request's data and the total from the server: any
            // arithmetic on them is checked, and a page past Int64.max is never requested.
            let current = request.data?[parameter]?.int64Value ?? Int64(index) + 1
            let total = totalKeyPath.flatMap { response.body.value(atKeyPath: $0)?.int64Value }
            let perPage = recordCount ?? Self.count(in: response.body)
            let next = current.addingReportingOverflow(1)
            // A page whose records cannot be counted is not taken for a full one.
            var more = (perPage ?? 0) != 0 && !next.overflow
            var end: BuiltInPageManager.End? = perPage == 0 ? .emptyPage : nil
            if let total, let perPage, perPage > 0 {
                let seen = current.multipliedReportingOverflow(by: Int64(perPage))
                if seen.overflow || seen.partialValue >= total {
                    more = false
                    end = .noNextPage
                }
            }
            if perPage == nil { end = .uncountablePage }
            let previous = current.subtractingReportingOverflow(1)
            return BuiltInPageManager(
                nextPageURN: more ? request.urn : nil,
                nextPageData: next.overflow
                    ? JSONValue?.none : Self.merging(request.data, [parameter: .integer(next.partialValue)]),
                currentPageIndex: previous.overflow ? nil : Int(exactly: previous.partialValue),
                totalResultsCount: total.flatMap { Int(exactly: $0) }, resultsPerPage: perPage, end: more ? nil : end)
        case .offset(let parameter, let limitParameter, let limit):
            let current = request.data?[parameter]?.int64Value ?? 0
            let count = recordCount ?? Self.count(in: response.body)
            let next = current.addingReportingOverflow(Int64(limit))
            // A page whose records cannot be counted is not taken for a full one.
            let more = (count.map { $0 >= limit } ?? false) && !next.overflow
            let end: BuiltInPageManager.End? =
                more
                ? nil
                : count == nil
                    ? .uncountablePage
                    : count == 0 ? .emptyPage : count.map { $0 < limit } == true ? .shortPage : .noNextPage
            return BuiltInPageManager(
                nextPageURN: more ? request.urn : nil,
                nextPageData: next.overflow
                    ? JSONValue?.none
                    : Self.merging(
                        request.data, [parameter: .integer(next.partialValue), limitParameter: .integer(Int64(limit))]),
                currentPageIndex: Int(exactly: current / Int64(limit)), resultsPerPage: limit, end: end)
        }
    }

    // MARK: - Helpers

    /// The next link at `keyPath`: a string, or a JSON:API link object's `href`; nil (the last
    /// page) for null, an absent member or an empty string. Anything else is a failure that
    /// names the key path and what it holds, never a silent last page.
    static func link(at keyPath: String, in body: JSONValue) -> (String?, WebRecordError?) {
        switch body.value(atKeyPath: keyPath) {
        case nil, .null?:
            return (nil, nil)
        case .string(let text)?:
            return (text.isEmpty ? nil : text, nil)
        case .object(let object)? where object["href"] != nil:
            switch object["href"] {
            case .string(let text)?: return (text.isEmpty ? nil : text, nil)
            case .null?: return (nil, nil)
            default:
                return (nil, unreadable(.object(object), at: keyPath, expected: "a link object whose href is a string"))
            }
        case let other?:
            return (
                nil,
                unreadable(
                    other, at: keyPath, expected: "a next link (a string or a link object with an href), or null")
            )
        }
    }

    /// The failure of a next link or cursor that is not one.
    static func unreadable(_ value: JSONValue, at keyPath: String, expected: String) -> WebRecordError {
        WebRecordError(
            .invalidResponseFormat, "the next page at '\(keyPath)' is \(value.typeName); expected \(expected)",
            keyPath: keyPath, value: value)
    }

    /// The number of records in a page body when it is an array, or an object with one array
    /// member (the usual `{"data": [...], "meta": {...}}` shape); nil when unknown.
    /// Whether the response's `Link` header names a `rel="next"` page.
    static func namesNextLink(_ response: ServerResponse) -> Bool {
        response.header("Link").flatMap { LinkHeader($0).target(relation: "next") } != nil
    }

    /// Where a response no page manager pages says it has a next page, and the pagination
    /// that would follow it, in Swift: a `Link` next, else the first of the usual next-page
    /// and cursor members (`next`, `next_url`, `cursor`, ... at the top, or under `meta`,
    /// `pagination`, `paging` or `links`) that holds a string.
    static func suggestion(for response: ServerResponse) -> (sign: String, pagination: String)? {
        if namesNextLink(response) { return (#"Link: rel="next""#, ".linkHeader") }
        for parent in ["", "meta.", "pagination.", "paging.", "links."] {
            for member in ["next", "next_url", "nextUrl", "next_page_url", "nextPageUrl"] {
                let keyPath = parent + member
                if let next = response.body.value(atKeyPath: keyPath)?.stringValue, !next.isEmpty {
                    return ("'\(keyPath)'", ".nextURL(keyPath: \"\(keyPath)\")")
                }
            }
            for member in ["cursor", "next_cursor", "nextCursor"] {
                let keyPath = parent + member
                if let cursor = response.body.value(atKeyPath: keyPath), cursor.stringValue?.isEmpty == false {
                    return ("'\(keyPath)'", ".cursor(keyPath: \"\(keyPath)\", parameter: \"cursor\")")
                }
            }
        }
        return nil
    }

    static func count(in body: JSONValue) -> Int? {
        if let array = body.arrayValue { return array.count }
        guard let object = body.objectValue else { return nil }
        let arrays = object.compactMap { $0.value.arrayValue }
        return arrays.count == 1 ? arrays[0].count : nil
    }

    static func merging(_ data: JSONValue?, _ extra: JSONObject) -> JSONValue {
        var object = data?.objectValue ?? JSONObject()
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    /// The value of the first query item named `name` in `urn`'s query, percent-decoded.
    static func queryValue(named name: String, in urn: String) -> String? {
        guard let question = urn.firstIndex(of: "?") else { return nil }
        let query = urn[urn.index(after: question)...].prefix { $0 != "#" }
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let itemName = String(pair[0]).removingPercentEncoding ?? String(pair[0])
            guard itemName == name else { continue }
            let value = pair.count > 1 ? String(pair[1]) : ""
            return value.removingPercentEncoding ?? value
        }
        return nil
    }

    /// A next link as the next request's URN: resolved against the URL of the page that named
    /// it when there is one (an HTTP response), as written otherwise.
    static func resolved(_ reference: String, against base: URL?) -> String {
        guard let base, let url = URLReference.resolve(reference, against: base) else { return reference }
        return url.absoluteString
    }
}
