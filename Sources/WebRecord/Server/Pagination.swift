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
/// Every kind stops when the response states that it has no more: a next link, cursor or
/// has-more flag given as null or false, a page with no records, or the stated total reached.
/// A page that holds records but where the kind finds nothing saying whether more follow (its
/// next link, cursor or flag is absent) ends paging too, as ``PagingEnd/nextPageNotFound``, which
/// is not taken for the server's last page. A paged request also stops at its page limit. Page
/// numbers and offsets are 64-bit: a kind stops rather than ask for a page or offset past
/// `Int64.max`.
public enum Pagination: Sendable, Hashable {
    /// The next page's URL (or URN) is in the body at a key path.
    ///
    /// Null or an empty string there is the last page. A key path that is absent from a page
    /// holding records ends paging as ``PagingEnd/nextPageNotFound``. With `totalKeyPath`, where
    /// each page states the list's total, a total that changes between pages, or that the pages
    /// did not list when the last one comes, ends paging as ``PagingEnd/listMoved``: a record
    /// deleted while the run goes shifts one the run never sees onto a page already fetched.
    case nextURL(keyPath: String, totalKeyPath: String? = nil)
    /// The next page's URL is in the HTTP `Link` header, `rel="next"`.
    ///
    /// A `Link` header that names no next page is the last page, and so is a first page with no
    /// `Link` header at all (a list that fits one page). A later page with no `Link` header ends
    /// paging as ``PagingEnd/nextPageNotFound``.
    case linkHeader
    /// A cursor in the body at a key path is sent back as a query parameter.
    ///
    /// Paging stops when the cursor is null, empty or the same as the one just sent. A cursor
    /// absent from a page holding records ends paging as ``PagingEnd/nextPageNotFound``.
    /// `totalKeyPath` is read as ``nextURL(keyPath:totalKeyPath:)`` reads it.
    case cursor(keyPath: String, parameter: String, totalKeyPath: String? = nil)
    /// Pages are numbered from 1 in a query parameter. Paging stops at an empty page, or at the
    /// total when `totalKeyPath` gives it.
    case pageNumber(parameter: String, totalKeyPath: String? = nil)
    /// An offset and a limit in query parameters.
    ///
    /// The offset advances by the records each page returned, not by the limit asked (a server
    /// may return fewer than it was asked for, as Jira caps `maxResults`), so a page shorter than
    /// the limit is not the last one. Paging stops at an empty page, or when the offset reaches
    /// the total that `totalKeyPath` gives.
    case offset(parameter: String, limitParameter: String, limit: Int, totalKeyPath: String? = nil)
    /// The key of a page's last record is sent as a query parameter while a flag in the body says
    /// there is more (Stripe: `has_more` and `starting_after`; others `hasMore` and `after`).
    ///
    /// For example, Stripe's lists:
    ///
    /// ```swift
    /// let stripe = Pagination.hasMore(flagKeyPath: "has_more", lastKeyPath: "id", parameter: "starting_after")
    /// ```
    ///
    /// `flagKeyPath` is read in the body and must hold a boolean; `lastKeyPath` is read in the
    /// last record of the page's list (a string or an integer). A flag of `false` is the last
    /// page. A flag that is absent or null from a page holding records ends paging as
    /// ``PagingEnd/nextPageNotFound``. A flag of `true` on a page whose last record has no key
    /// there (or on a page with no records) fails the paged request. `totalKeyPath` is read as
    /// ``nextURL(keyPath:totalKeyPath:)`` reads it.
    case hasMore(flagKeyPath: String, lastKeyPath: String, parameter: String, totalKeyPath: String? = nil)

    /// The total a page states at `keyPath` (an integer that fits an `Int`), when one is given.
    static func total(at keyPath: String?, in body: JSONValue) -> Int? {
        keyPath.flatMap { body.value(atKeyPath: $0)?.int64Value }.flatMap { Int(exactly: $0) }
    }

    /// Whether the kind goes on past an empty page while the server names a next one: a next
    /// URL, a `Link` header, or a cursor other than the one sent. (A page number or an offset
    /// names no next page of the server's own, and a has-more flag needs the page's last record.)
    var followsNamedPages: Bool {
        switch self {
        case .nextURL, .linkHeader, .cursor: true
        case .pageNumber, .offset, .hasMore: false
        }
    }

    /// Whether the kind decides from the number of records on a page (page numbers, offsets).
    var countsRecords: Bool {
        switch self {
        case .pageNumber, .offset: true
        case .nextURL, .linkHeader, .cursor, .hasMore: false
        }
    }

    /// The parameters of the first page's request, merged into `data`.
    ///
    /// Page numbers start at 1 and offsets at 0 with the limit; the other kinds send nothing extra.
    func firstPageData(_ data: JSONValue?) -> JSONValue? {
        switch self {
        case .pageNumber(let parameter, _):
            return Self.merging(data, [parameter: .integer(1)])
        case .offset(let parameter, let limitParameter, let limit, _):
            return Self.merging(data, [parameter: .integer(0), limitParameter: .integer(Int64(limit))])
        case .nextURL, .linkHeader, .cursor, .hasMore:
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
        pageManager(for: response, of: request, recordCount: nil, lastRecord: Self.list(in: response.body)?.last)
    }

    /// The page manager for one page, knowing how many records the page's key path held
    /// (what a paged request counts when the body alone cannot say).
    ///
    /// Next links are resolved against the URL of the page that named them (RFC 3986, see
    /// ``URLReference``) when it is an http or https URL; a link on another page (a file's) is
    /// the next URN as written. A page or offset kind that cannot count a page's records stops
    /// rather than assume there is more. `lastRecord` is the last value of the page's list, whose
    /// key ``hasMore(flagKeyPath:lastKeyPath:parameter:)`` sends on.
    func pageManager(
        for response: ServerResponse, of request: ServerRequest, recordCount: Int?, lastRecord: JSONValue?
    ) -> BuiltInPageManager {
        let index = request.page?.index ?? 0
        switch self {
        case .nextURL(let keyPath, let totalKeyPath):
            let (next, failure) = Self.link(at: keyPath, in: response.body)
            var manager = BuiltInPageManager(
                nextPageURN: next.map { Self.resolved($0, against: response.url) }, nextPageData: nil,
                currentPageIndex: index, totalResultsCount: Self.total(at: totalKeyPath, in: response.body))
            manager.failure = failure
            // Absent is not null: the server did not say this is the last page.
            if next == nil, failure == nil, response.body.value(atKeyPath: keyPath) == nil {
                manager.end = .nextPageNotFound
            }
            return manager
        case .linkHeader:
            let header = response.header("Link")
            let next = header.flatMap { LinkHeader($0).target(relation: "next") }
            var manager = BuiltInPageManager(
                nextPageURN: next.map { Self.resolved($0, against: response.url) }, nextPageData: nil,
                currentPageIndex: index)
            // A first page without the header is a list that fits one page; a later one without
            // it says nothing, where the earlier pages named their next.
            if header == nil, index > 0 { manager.end = .nextPageNotFound }
            return manager
        case .cursor(let keyPath, let parameter, let totalKeyPath):
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
                currentPageIndex: index, totalResultsCount: Self.total(at: totalKeyPath, in: response.body))
            manager.failure = failure
            // Absent is not null: the server did not say this is the last page.
            if cursor == nil, failure == nil, response.body.value(atKeyPath: keyPath) == nil {
                manager.end = .nextPageNotFound
            }
            return manager
        case .hasMore(let flagKeyPath, let lastKeyPath, let parameter, let totalKeyPath):
            var manager = Self.hasMorePageManager(
                flagKeyPath: flagKeyPath, lastKeyPath: lastKeyPath, parameter: parameter, response: response,
                request: request, lastRecord: lastRecord)
            manager.totalResultsCount = Self.total(at: totalKeyPath, in: response.body)
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
            // The records the pages up to this one listed: those the run's earlier pages listed,
            // counted; for pages before the run's first, an estimate (below).
            var listedThrough: Int64?
            if let total, let perPage, perPage > 0 {
                let earlier = current.subtractingReportingOverflow(1)
                let before: (partialValue: Int64, overflow: Bool)
                if let counted = (request.page?.previousPageManager as? BuiltInPageManager)?.listedThrough {
                    before = (counted, false)
                } else {
                    // The pages before the run's first were full (the size of this one): a last
                    // page shorter than the others still reaches the total.
                    before = earlier.partialValue.multipliedReportingOverflow(by: Int64(perPage))
                }
                let seen = before.partialValue.addingReportingOverflow(Int64(perPage))
                if !before.overflow, !seen.overflow { listedThrough = seen.partialValue }
                if !earlier.overflow, before.overflow || seen.overflow || seen.partialValue >= total {
                    more = false
                    end = .noNextPage
                }
            }
            if perPage == nil { end = .uncountablePage }
            let previous = current.subtractingReportingOverflow(1)
            var manager = BuiltInPageManager(
                nextPageURN: more ? request.urn : nil,
                nextPageData: next.overflow
                    ? JSONValue?.none : Self.merging(request.data, [parameter: .integer(next.partialValue)]),
                currentPageIndex: previous.overflow ? nil : Int(exactly: previous.partialValue),
                totalResultsCount: total.flatMap { Int(exactly: $0) }, resultsPerPage: perPage, end: more ? nil : end)
            manager.listedThrough = listedThrough
            return manager
        case .offset(let parameter, let limitParameter, let limit, let totalKeyPath):
            // The offset advances by the records the page returned: a server may return fewer than
            // the limit asked (Jira caps maxResults), and a short page is not the last one.
            let current = request.data?[parameter]?.int64Value ?? 0
            let count = recordCount ?? Self.count(in: response.body)
            let total = totalKeyPath.flatMap { response.body.value(atKeyPath: $0)?.int64Value }
            let next = current.addingReportingOverflow(Int64(count ?? 0))
            var end: BuiltInPageManager.End?
            if count == nil {
                // A page whose records cannot be counted is not taken for a full one.
                end = .uncountablePage
            } else if count == 0 {
                end = .emptyPage
            } else if next.overflow {
                end = .noNextPage
            } else if let total, next.partialValue >= total {
                end = .noNextPage
            }
            return BuiltInPageManager(
                nextPageURN: end == nil ? request.urn : nil,
                nextPageData: next.overflow
                    ? JSONValue?.none
                    : Self.merging(
                        request.data, [parameter: .integer(next.partialValue), limitParameter: .integer(Int64(limit))]),
                currentPageIndex: Int(exactly: current / Int64(limit)),
                totalResultsCount: total.flatMap { Int(exactly: $0) },
                resultsPerPage: limit, end: end)
        }
    }

    /// The page manager of ``hasMore(flagKeyPath:lastKeyPath:parameter:)``: the next page sends
    /// the last record's key while the flag is true.
    private static func hasMorePageManager(
        flagKeyPath: String, lastKeyPath: String, parameter: String, response: ServerResponse,
        request: ServerRequest, lastRecord: JSONValue?
    ) -> BuiltInPageManager {
        var manager = BuiltInPageManager(
            nextPageURN: nil, nextPageData: nil, currentPageIndex: request.page?.index ?? 0)
        switch response.body.value(atKeyPath: flagKeyPath) {
        case .bool(false)?:
            manager.end = .noNextPage
        case nil, .null?:
            // The server did not say whether there is more.
            manager.end = .nextPageNotFound
        case .bool(true)?:
            guard let lastRecord else {
                manager.failure = WebRecordError(
                    .invalidResponseFormat,
                    "'\(flagKeyPath)' is true but the page holds no record whose '\(lastKeyPath)' could name the next page",
                    keyPath: flagKeyPath)
                return manager
            }
            switch lastRecord.value(atKeyPath: lastKeyPath) {
            case .string(let text)? where !text.isEmpty:
                manager.nextPageURN = request.urn
                manager.nextPageData = merging(request.data, [parameter: .string(text)])
            case .integer(let number)?:
                manager.nextPageURN = request.urn
                manager.nextPageData = merging(request.data, [parameter: .integer(number)])
            case let other:
                manager.failure = WebRecordError(
                    .invalidResponseFormat,
                    "'\(flagKeyPath)' is true but the page's last record has \(other.map { "\($0.typeName) at '\(lastKeyPath)'" } ?? "no '\(lastKeyPath)'"); expected a string or an integer key to send as '\(parameter)'",
                    keyPath: lastKeyPath, value: other)
            }
        case let other?:
            manager.failure = unreadable(other, at: flagKeyPath, expected: "a boolean has-more flag, or null")
        }
        return manager
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

    /// Whether the response's `Link` header names a `rel="next"` page.
    static func namesNextLink(_ response: ServerResponse) -> Bool {
        response.header("Link").flatMap { LinkHeader($0).target(relation: "next") } != nil
    }

    /// Where a response no page manager pages says it has a next page, and the pagination
    /// that would follow it, in Swift: a `Link` next, else the first of the usual next-page
    /// and cursor members (`next`, `next_url`, `cursor`, ... at the top, or under `meta`,
    /// `pagination`, `paging` or `links`) that holds a string.
    package static func suggestion(for response: ServerResponse) -> (sign: String, pagination: String)? {
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

    /// The number of records in a page body when it is an array, or an object with one array
    /// member (the usual `{"data": [...], "meta": {...}}` shape); nil when unknown.
    static func count(in body: JSONValue) -> Int? {
        list(in: body)?.count
    }

    /// The list of records in a page body when it is an array, or an object with one array
    /// member; nil when unknown.
    static func list(in body: JSONValue) -> [JSONValue]? {
        if let array = body.arrayValue { return array }
        guard let object = body.objectValue else { return nil }
        let arrays = object.compactMap { $0.value.arrayValue }
        return arrays.count == 1 ? arrays[0] : nil
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
    /// it when that is an http or https URL, as written otherwise. A file's page (from
    /// ``JSONFileServer``) names the next page's URN: resolved against the file's URL, it would
    /// become a `file:` URL, which no URN rule reads.
    static func resolved(_ reference: String, against base: URL?) -> String {
        guard let base, let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let url = URLReference.resolve(reference, against: base)
        else { return reference }
        return url.absoluteString
    }
}
