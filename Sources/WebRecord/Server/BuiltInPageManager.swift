import Foundation

/// The page manager the built-in ``Pagination`` kinds return.
struct BuiltInPageManager: PageManager {
    /// Why a built-in kind names no next page, when it knows better than "none was named".
    package enum End: Sendable, Hashable {
        /// The page named no next page, or the total was reached.
        case noNextPage
        /// The page held no records.
        case emptyPage
        /// A page or offset page whose records could not be counted: not taken for a full one.
        case uncountablePage
        /// A page with records where the kind found nothing saying whether more follow (an absent
        /// next link, cursor or has-more flag): not taken for the last page.
        case nextPageNotFound
    }

    /// The next page's URN, nil on the last page.
    var nextPageURN: String?
    /// The next page's parameters.
    var nextPageData: JSONValue?
    /// This page's 0-based index, when known.
    var currentPageIndex: Int?
    /// The total number of results, when the response says.
    var totalResultsCount: Int?
    /// Results per page, when known.
    var resultsPerPage: Int?
    /// Why there is no next page, when the paginator knows better than "none was named"
    /// (an empty or uncountable page, or one where nothing says whether more follow).
    package var end: End?
    /// How many records the pages up to this one listed, for ``Pagination/pageNumber(parameter:totalKeyPath:)``
    /// with a total: counted over the pages of the run, so that a short page before a fuller one
    /// is not taken for the total reached.
    var listedThrough: Int64?
    /// What was wrong with the page's next link or cursor (neither a link nor null): a paged
    /// request fails with it rather than take the page for the last one.
    var failure: WebRecordError?

    /// Creates a page manager.
    init(
        nextPageURN: String?, nextPageData: JSONValue?, currentPageIndex: Int? = nil, totalResultsCount: Int? = nil,
        resultsPerPage: Int? = nil
    ) {
        self.init(
            nextPageURN: nextPageURN, nextPageData: nextPageData, currentPageIndex: currentPageIndex,
            totalResultsCount: totalResultsCount, resultsPerPage: resultsPerPage, end: nil)
    }

    package init(
        nextPageURN: String?, nextPageData: JSONValue?, currentPageIndex: Int?, totalResultsCount: Int? = nil,
        resultsPerPage: Int?, end: End?
    ) {
        self.end = end
        self.nextPageURN = nextPageURN
        self.nextPageData = nextPageData
        self.currentPageIndex = currentPageIndex
        self.totalResultsCount = totalResultsCount
        self.resultsPerPage = resultsPerPage
    }
}
