/// Knows, from one page of a paged response, how to request the next page.
///
/// MMRecord's page manager, with its shape: a ``Server`` returns one from
/// ``Server/pageManager(for:of:)`` for each response it can page. Only the next page's URN is
/// required; the other members default to nil (not known).
///
/// For example, an API that puts the next page's URL in `meta.next`:
///
/// ```swift
/// struct NextURLPageManager: PageManager {
///     let response: ServerResponse
///     var nextPageURN: String? { response.body.value(atKeyPath: "meta.next")?.stringValue }
/// }
/// ```
public protocol PageManager: Sendable {
    /// Whether a next page can be requested. Default: ``nextPageURN`` is not nil.
    var canRequestNextPage: Bool { get }
    /// The URN of the next page, or nil when this is the last page.
    var nextPageURN: String? { get }
    /// The parameters to send with the next page's request, if any. Default nil.
    var nextPageData: JSONValue? { get }
    /// The total number of results across all pages, when the response says. Default nil.
    var totalResultsCount: Int? { get }
    /// The number of results per page, when known. Default nil.
    var resultsPerPage: Int? { get }
    /// The 0-based index of this page, when known. Default nil.
    var currentPageIndex: Int? { get }
}

extension PageManager {
    /// Whether ``nextPageURN`` is not nil.
    public var canRequestNextPage: Bool { nextPageURN != nil }
    /// Nil: no parameters for the next page.
    public var nextPageData: JSONValue? { nil }
    /// Nil: not known.
    public var totalResultsCount: Int? { nil }
    /// Nil: not known.
    public var resultsPerPage: Int? { nil }
    /// Nil: not known.
    public var currentPageIndex: Int? { nil }
}
