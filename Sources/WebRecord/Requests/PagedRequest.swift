import Foundation

/// Options of a paged request: the request's options, how far to page, and progress.
public struct PagingOptions: Sendable {
    /// The options of each page's request. Orphan deletion set here (``PopulationOptions/deleteOrphans``
    /// or ``PopulationOptions/orphanDeletion``) runs once, after the last page, with every page's records.
    public var request: RequestOptions
    /// How the server's responses page, when the server gives no page manager of its own.
    /// Nil (the default) follows a `Link: <…>; rel="next"` header when a response has one, and
    /// takes a response without one for the last page.
    public var pagination: Pagination?
    /// The most pages to request. Nil: ``defaultMaximumPages``, so that no run is unbounded by
    /// accident (pass `Int.max` to page until the server stops). A value below 1 requests the
    /// first page only. Paging that stops at the limit while a next page was named ends with
    /// ``PagingEnd/pageLimit``, and orphans are not deleted after it.
    public var maximumPages: Int?
    /// The page limit when ``maximumPages`` is nil: 10,000 pages.
    public static let defaultMaximumPages = 10_000
    /// Updated as pages arrive: `completedUnitCount` counts records populated, and
    /// `totalUnitCount` is the total once a page manager knows it (-1 until then).
    public var progress: Progress?
    /// Called after each page with the counts so far. Within a page, ``RequestOptions/progress``
    /// of ``request`` hears the page's download and population, as a single request's.
    public var onProgress: (@Sendable (PagingProgress) -> Void)?

    /// Creates paging options.
    public init(
        request: RequestOptions = RequestOptions(), pagination: Pagination? = nil, maximumPages: Int? = nil,
        progress: Progress? = nil, onProgress: (@Sendable (PagingProgress) -> Void)? = nil
    ) {
        self.request = request
        self.pagination = pagination
        self.maximumPages = maximumPages
        self.progress = progress
        self.onProgress = onProgress
    }
}

/// How far a paged request has come.
public struct PagingProgress: Sendable, Hashable {
    /// Pages fetched and populated so far.
    public var pagesFetched: Int
    /// Top-level records populated so far.
    public var recordsPopulated: Int
    /// The total number of records, when a page manager knows it.
    public var totalRecords: Int?
    /// Seconds since the request started.
    public var elapsed: TimeInterval

    /// Creates progress counts.
    package init(pagesFetched: Int, recordsPopulated: Int, totalRecords: Int? = nil, elapsed: TimeInterval) {
        self.pagesFetched = pagesFetched
        self.recordsPopulated = recordsPopulated
        self.totalRecords = totalRecords
        self.elapsed = elapsed
    }
}

/// Why a paged request stopped after its last page.
///
/// The first three are the server saying it has no more (``isComplete``); the others stop a run
/// that might not have ended by itself, and leave orphans undeleted (a page that failed throws
/// instead of ending).
public enum PagingEnd: String, Sendable, Hashable, CaseIterable {
    /// The page stated that it is the last: a next link or cursor given as null or empty, a
    /// `Link` header naming no next page, a has-more flag that is false, the same cursor as the
    /// one just sent, or the stated total reached.
    case noNextPage
    /// The page held no records.
    case emptyPage
    /// Not produced any more: an offset page shorter than the limit is followed, since servers
    /// return fewer records than asked (``Pagination/offset(parameter:limitParameter:limit:totalKeyPath:)``).
    /// Kept so that code naming it still compiles.
    case shortPage
    /// A page or offset page whose records could not be counted: not taken for a full one.
    case uncountablePage
    /// The next page was one already requested in this run (any earlier page, not only the
    /// last): the server is looping. A non-fatal `invalidResponseFormat` says which.
    case repeatedPage
    /// The page limit (``PagingOptions/maximumPages``) was reached while a next page was named.
    case pageLimit
    /// The page held records, but what names the next page was not where the paginator looks
    /// (a next link, cursor or has-more flag absent, a later page without a `Link` header): it
    /// cannot tell "no more" from "not there". A non-fatal `invalidResponseFormat` says so.
    case nextPageNotFound
    /// The list moved while it was paged: a page held some of the records earlier pages held,
    /// or the stated total changed between pages. Records may have been skipped, so none is an
    /// orphan. A non-fatal `invalidResponseFormat` names the sign.
    case listMoved

    /// Whether the server said it had no more: only then may orphans be deleted.
    public var isComplete: Bool {
        switch self {
        case .noNextPage, .emptyPage, .shortPage: true
        case .uncountablePage, .repeatedPage, .pageLimit, .nextPageNotFound, .listMoved: false
        }
    }
}

extension PagingEnd {
    /// Why a built-in page manager named no next page, as why paging ended.
    init(_ end: BuiltInPageManager.End) {
        switch end {
        case .noNextPage: self = .noNextPage
        case .emptyPage: self = .emptyPage
        case .uncountablePage: self = .uncountablePage
        case .nextPageNotFound: self = .nextPageNotFound
        }
    }
}

/// One page of a paged request: its records, its page manager and the counts so far.
///
/// Not `Sendable`, as the records it holds are not: ``PageSequence`` hands each page to the
/// task iterating it, which may be the main actor (Docs/Records.md, "Records and concurrency").
///
/// A paged request made from a record class (`Post.pages(...)`) yields `Page<Post>`, whose
/// ``records`` are `Post`s; one made by entity name yields `Page<Record>`.
public struct Page<Element: Record> {
    /// The 0-based index of the page.
    public var index: Int
    /// The page's top-level records, in response order, as instances of the request's class.
    public var records: [Element]
    /// The page's full result: the same records, debugger, change counts, response.
    public var result: RequestResult<Element>
    /// The page manager that knows the next page: the server's, else the pagination's (the
    /// options', or the `Link` header's when none is set); nil when neither pages.
    public var pageManager: (any PageManager)?
    /// The counts so far, this page included.
    public var progress: PagingProgress
    /// Whether this is the last page: no next page, or the page limit reached.
    public var isLast: Bool
    /// Why paging stopped after this page; nil on every page but the last.
    public var end: PagingEnd?
    /// Deleted counts by entity from orphan deletion across all pages; set on the last page only.
    public var orphansDeleted: [String: Int]
}

/// The pages of a paged request, as an `AsyncSequence`.
///
/// Each page is populated in its own transaction and handed over to the task iterating the
/// sequence, as a `sending` value: a `for try await` loop on the main actor gets pages it can
/// keep there. Pages already delivered are not kept, so memory stays bounded by one page, apart
/// from a hash of each page's request and the `_id` of each record (repeat detection and orphan
/// deletion).
/// Orphan deletion waits for the last page and uses the union of every page's records; if any
/// page fails, the sequence throws ``WebRecordError`` and nothing is deleted (earlier pages
/// stay populated).
///
/// For example:
///
/// ```swift
/// for try await page in Post.pages(urn: "stream/0/posts", in: store) {
///     print("page \(page.index): \(page.records.count) posts")
/// }
/// ```
public struct PageSequence<RecordClass: Record>: AsyncSequence, Sendable {
    public typealias Element = Page<RecordClass>
    public typealias Failure = WebRecordError

    let store: RecordStore
    let entity: String
    let urn: String
    let data: JSONValue?
    let options: PagingOptions
    let recordClass: Record.Type?

    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Requests pages one at a time as they are asked for.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: PageSequence<RecordClass>
        private var state = PagingState()

        init(sequence: PageSequence<RecordClass>) {
            self.sequence = sequence
        }

        public mutating func next() async throws(WebRecordError) -> Page<RecordClass>? {
            try await sequence.store.nextPage(of: sequence, state: &state)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(WebRecordError)
            -> Page<RecordClass>?
        {
            try await sequence.store.nextPage(of: sequence, state: &state)
        }
    }
}

/// What a paged request carries from page to page: keys seen, counts, where to go next.
///
/// Its size grows with the run only by what orphan deletion and repeat detection need: a hash
/// of each page's request, and the `_id` of each record. Nothing else of a page is kept.
struct PagingState {
    var index = 0
    var finished = false
    var nextURN: String?
    var nextData: JSONValue?
    var previousPageManager: (any PageManager)?
    var keep = ContainedRows()
    /// The hashes of the pages requested so far (URN and parameters), to end paging on a
    /// repeat. Two pages whose hashes collide end the run as incomplete, never as complete.
    var requested = Set<Int>()
    /// The top-level records of the pages so far, to end paging when a page brings none new.
    var seenTopLevel = Set<Int64>()
    var records = 0
    /// The failure of a run whose last page was saved but could not name the next one: thrown
    /// when the next page is asked for, after that page is delivered.
    var pendingFailure: WebRecordError?
    /// How many records the pages listed (their key paths' values), stored or not.
    var listed = 0
    var total: Int?
    /// The total the first page that stated one gave, and that page (counted from 1): a later
    /// page stating another shows that the list moved.
    var statedTotal: (count: Int, page: Int)?
    /// Whether the pages so far were followed by their `Link` headers with no pagination set:
    /// a later page without one is then not taken for the last.
    var followsLinkHeaders = false
    let started = Date()
}

extension RecordStore {
    /// The pages of a request for `entity`, as an `AsyncSequence`.
    ///
    /// - Parameters:
    ///   - entity: the entity requested.
    ///   - urn: the first page's URN.
    ///   - data: the first page's parameters.
    ///   - options: request options, pagination, page limit and progress.
    /// - Returns: the pages; iterating requests them.
    public func pages(entity: String, urn: String, data: JSONValue? = nil, options: PagingOptions = PagingOptions())
        -> PageSequence<Record>
    {
        PageSequence(store: self, entity: entity, urn: urn, data: data, options: options, recordClass: nil)
    }

    /// Requests pages for `entity`, MMRecord-style: `pageBlock` gets each page and returns
    /// whether to request the next one; `completion` fires once, after the last page or the
    /// first failure, on `callbackQueue`.
    ///
    /// Each page is handed to `pageBlock` as a `sending` value: the block owns it, and may pass
    /// it on to the main actor, a task or a continuation.
    ///
    /// A thin wrapper over ``pages(entity:urn:data:options:)``.
    ///
    /// - Returns: the task running the request, for cancellation.
    @discardableResult
    public func startPagedRequest(
        entity: String, urn: String, data: JSONValue? = nil, options: PagingOptions = PagingOptions(),
        callbackQueue: DispatchQueue = .main,
        pageBlock: @escaping @Sendable (sending Page<Record>) -> Bool,
        completion: @escaping @Sendable (Result<Int, WebRecordError>) -> Void
    ) -> Task<Void, Never> {
        pages(entity: entity, urn: urn, data: data, options: options)
            .deliver(on: callbackQueue, pageBlock: pageBlock, completion: completion)
    }

    /// Fetches, populates and returns the next page, or nil after the last, handed to the
    /// iterating task.
    func nextPage<RecordClass>(
        of sequence: PageSequence<RecordClass>, state: inout PagingState
    ) async throws(WebRecordError) -> sending Page<RecordClass>? {
        guard !state.finished else { return nil }
        if let failure = state.pendingFailure {
            state.finished = true
            throw failure
        }
        var requestOptions = sequence.options.request
        let orphanOptions = requestOptions.population
        requestOptions.population.deleteOrphans = nil
        requestOptions.population.orphanDeletion = nil
        // Each page is held to orphan deletion's rules (DESIGN §3.5): an unidentified record or a
        // missing key path fails the page, so the deletion after the last one never runs.
        requestOptions.population.orphanDeletionFollows = orphanOptions.deletesOrphans
        // A delete a page's links start spares what earlier pages contained, as the orphan pass
        // at the end does.
        requestOptions.population.sparedByTheRun.formUnion(state.keep)

        let isFirst = state.index == 0
        let urn = isFirst ? sequence.urn : (state.nextURN ?? sequence.urn)
        let data =
            isFirst ? (sequence.options.pagination?.firstPageData(sequence.data) ?? sequence.data) : state.nextData
        let prepared = try prepareRequest(
            entity: sequence.entity, urn: urn, data: data, options: requestOptions, recordClass: sequence.recordClass)
        var request = prepared.request
        request.page = PageInformation(index: state.index, previousPageManager: state.previousPageManager)
        state.requested.insert(Self.identity(urn: request.urn, data: request.data))
        var result: RequestResult<Record>
        do {
            result = try await run(
                PreparedRequest(server: prepared.server, request: request, debugger: prepared.debugger),
                options: requestOptions)
        } catch {
            throw Self.naming(
                page: state.index, urn: request.urn, data: request.data, in: error, pageSaved: false,
                deletesOrphans: orphanOptions.deletesOrphans)
        }

        // The page as fetched (its full URL, after redirects) is requested too: a next link
        // names pages by URL.
        if let url = result.response.url { state.requested.insert(Self.identity(urn: url.absoluteString, data: nil)) }
        // With no pagination configured, a standard `Link: <…>; rel="next"` is followed: the
        // server says how it pages. Anything else that looks like paging only gets a hint.
        let pagination =
            sequence.options.pagination
            ?? (result.pageManager == nil && (state.followsLinkHeaders || Pagination.namesNextLink(result.response))
                ? .linkHeader : nil)
        if sequence.options.pagination == nil, pagination == .linkHeader { state.followsLinkHeaders = true }
        if pagination == nil, result.pageManager == nil {
            logPagingHint(for: result.response, entity: sequence.entity)
        }
        let builtIn =
            result.pageManager == nil
            ? pagination?.pageManager(
                for: result.response, of: request, recordCount: result.responseRecordCount,
                lastRecord: lastRecord(in: result.response.body, entity: sequence.entity, options: requestOptions))
            : nil
        if var failure = builtIn?.failure {
            // The page is populated; what names the next one cannot be read, and is not taken
            // for "no next page": the page is delivered, as it was saved, and paging stops with
            // the error when the next page is asked for. No orphan is deleted.
            failure.entity = sequence.entity
            state.pendingFailure = Self.naming(
                page: state.index, urn: request.urn, data: request.data,
                in: WebRecordError(failure, debugger: result.debugger), pageSaved: true,
                deletesOrphans: orphanOptions.deletesOrphans)
            state.records += result.population.storedRecordCount
            let index = state.index
            state.index += 1
            let progress = PagingProgress(
                pagesFetched: state.index, recordsPopulated: state.records, totalRecords: state.total,
                elapsed: Date().timeIntervalSince(state.started))
            sequence.options.onProgress?(progress)
            let typed = result.typed(as: RecordClass.self)
            return Page(
                index: index, records: typed.records, result: typed, pageManager: builtIn, progress: progress,
                isLast: false, end: nil, orphansDeleted: [:])
        }
        let pageManager = result.pageManager ?? builtIn
        state.keep.formUnion(result.containedRowIDs)
        state.records += result.population.storedRecordCount
        let statedTotal = pageManager?.totalResultsCount
        if let total = statedTotal { state.total = total }
        let index = state.index
        state.index += 1
        state.previousPageManager = pageManager
        state.nextURN = pageManager?.nextPageURN
        state.nextData = pageManager?.nextPageData
        let limit = sequence.options.maximumPages ?? PagingOptions.defaultMaximumPages
        let named = pageManager?.canRequestNextPage == true && state.nextURN != nil
        // By `_id`, from the population: there whether or not the options asked for the records.
        let pageRecords = result.population.topLevelRowIDs
        var end: PagingEnd?
        let followsNamedPages = builtIn != nil && pagination?.followsNamedPages == true
        let listedBefore = state.listed
        state.listed += result.responseRecordCount ?? 0
        if index > 0, let statedTotal, let first = state.statedTotal, statedTotal != first.count {
            // The server counts another list than it did: records were added or removed while it
            // was paged, and an offset or page number now points elsewhere.
            end = .listMoved
            result.debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "the list moved while it was paged: its total was \(first.count) on page \(first.page) and is \(statedTotal) on page \(index + 1); paging ends there, and records may have been skipped",
                    isFatal: false, entity: sequence.entity))
        } else if result.responseRecordCount == 0, result.population.includedRecordCount == 0,
            !(named && followsNamedPages)
        {
            // (A next URL, Link or new cursor still named after an empty page is followed: the
            // server says there is more, and repeats and the page limit still end the run.)
            if let total = state.total, listedBefore < total {
                // The server said it has more than the pages listed: its list shrank under the
                // run, or the page was cut short. Not its end: nothing is an orphan.
                end = .listMoved
                result.debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "page \(index + 1) is empty, but the server stated a total of \(total) and the pages listed \(listedBefore); paging ends there, and records may have been skipped",
                        isFatal: false, entity: sequence.entity))
            } else {
                end = .emptyPage
            }
        } else if builtIn != nil, result.responseRecordCount == nil, pagination?.countsRecords == true {
            // A single object, not a list: a page or offset paginator cannot take it for a page.
            end = .uncountablePage
        } else if index > 0, !pageRecords.isEmpty, pageRecords.isSubset(of: state.seenTopLevel) {
            // Another request, the same records: the server is not advancing (it clamps offsets
            // past the end, or ignores the cursor or page it is sent). Judged before whether a
            // next page is named: a cursor that ignores its parameter answers with the cursor it
            // was sent, which would otherwise read as the last page, and delete as orphans every
            // record the run never reached.
            end = .repeatedPage
            result.debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "page \(index + 1) holds only records that earlier pages held; the server is not advancing, and paging ends there",
                    isFatal: false, entity: sequence.entity))
        } else if index > 0, !pageRecords.isDisjoint(with: state.seenTopLevel) {
            // Some records again, some new: the list shifted under the run (a record added before
            // the offset pushes the last ones onto the next page), so others were pushed past it
            // or skipped.
            let again = pageRecords.intersection(state.seenTopLevel).count
            end = .listMoved
            result.debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "the list moved while it was paged: page \(index + 1) holds \(again) of its \(pageRecords.count) records that earlier pages held; paging ends there, and records may have been skipped",
                    isFatal: false, entity: sequence.entity))
        } else if !named {
            end = builtIn?.end.map(PagingEnd.init) ?? .noNextPage
            if end == .nextPageNotFound {
                result.debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "page \(index + 1) holds records but does not say whether more follow (\(pagination.map(Self.whatNamesTheNextPage) ?? "no next page named")); paging ends there, not at a last page the server stated",
                        isFatal: false, entity: sequence.entity))
            }
        } else if let urn = state.nextURN, state.requested.contains(Self.identity(urn: urn, data: state.nextData)) {
            end = .repeatedPage
            result.debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "page \(state.index) names a page already requested in this run (\(Redaction.urn(urn))); paging ends there",
                    isFatal: false, entity: sequence.entity))
        } else if state.index >= limit {
            end = .pageLimit
        }
        if let stated = end, stated.isComplete, let total = state.total, state.listed < total {
            // The server says it has no more, but stated more than the pages listed: a record
            // deleted while the run went shifted others onto pages already fetched (a next link
            // or cursor that counts by offset), so some were never seen. None is an orphan.
            end = .listMoved
            result.debugger.record(
                WebRecordError(
                    .invalidResponseFormat,
                    "page \(index + 1) is the last, but the server stated a total of \(total) and the pages listed \(state.listed); records may have been skipped",
                    isFatal: false, entity: sequence.entity))
        }
        if state.statedTotal == nil, let statedTotal { state.statedTotal = (statedTotal, index + 1) }
        state.seenTopLevel.formUnion(pageRecords)
        let isLast = end != nil
        result.pagingEnd = end
        let progress = PagingProgress(
            pagesFetched: state.index, recordsPopulated: state.records, totalRecords: state.total,
            elapsed: Date().timeIntervalSince(state.started))
        if let foundation = sequence.options.progress {
            foundation.totalUnitCount = Int64(state.total ?? -1)
            foundation.completedUnitCount = Int64(state.records)
        }
        sequence.options.onProgress?(progress)

        var deleted: [String: Int] = [:]
        if isLast {
            state.finished = true
            if orphanOptions.deleteOrphans != nil || orphanOptions.orphanDeletion != nil, let end, !end.isComplete {
                // The server did not say it had no more: what the pages missed is not an orphan.
                result.debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "paging ended with \(end.rawValue), not at the server's last page; no orphans were deleted",
                        isFatal: false, entity: sequence.entity))
            } else if orphanOptions.deleteOrphans != nil || orphanOptions.orphanDeletion != nil {
                if Task.isCancelled {
                    throw WebRecordError(.cancelled(entity: sequence.entity), debugger: result.debugger)
                }
                deleted = try await database.deleteOrphans(
                    of: sequence.entity, keeping: state.keep, results: result.records, response: result.response.body,
                    options: orphanOptions, debugger: result.debugger)
                // The last page's counts include them, as a single request's do.
                for (entity, count) in deleted {
                    result.population.changesByEntity[entity, default: ChangeCounts()].deleted += count
                }
            }
        }
        let typed = result.typed(as: RecordClass.self)
        return Page(
            index: index, records: typed.records, result: typed, pageManager: pageManager, progress: progress,
            isLast: isLast, end: end, orphansDeleted: deleted)
    }

    /// `error`, with the page it came from (counted from 1) and what that page's request sent
    /// (its URN and, when the parameters travel apart from it, a page number, an offset, a
    /// cursor, those too, secrets redacted), and what the run kept: "pages 1-2 were saved;
    /// page 3 failed; no orphans were deleted". The first page's own failure names no page.
    ///
    /// - Parameters:
    ///   - pageSaved: whether the page itself was populated (its next page could not be read).
    ///   - deletesOrphans: whether the run was to delete orphans after its last page.
    private static func naming(
        page index: Int, urn: String, data: JSONValue?, in error: WebRecordError, pageSaved: Bool,
        deletesOrphans: Bool
    ) -> WebRecordError {
        var named = error
        if index > 0 || pageSaved {
            let parameters = data.map { " with \(WebRecordError.bodyExcerpt(of: $0, sortedKeys: true))" } ?? ""
            named.message += " (page \(index + 1), \(Redaction.urn(urn))\(parameters))"
        }
        let saved = pageSaved ? index + 1 : index
        var kept: [String] = []
        switch saved {
        case 0: break
        case 1: kept.append("page 1 was saved")
        default: kept.append("pages 1-\(saved) were saved")
        }
        if index > 0 || pageSaved {
            kept.append(pageSaved ? "the page after page \(index + 1) could not be named" : "page \(index + 1) failed")
        }
        if deletesOrphans { kept.append("no orphans were deleted") }
        if !kept.isEmpty { named.message += "; " + kept.joined(separator: "; ") }
        return named
    }

    /// What a pagination reads to name the next page, for a message.
    private static func whatNamesTheNextPage(_ pagination: Pagination) -> String {
        switch pagination {
        case .nextURL(let keyPath, _): "no '\(keyPath)'"
        case .linkHeader: "no Link header"
        case .cursor(let keyPath, _, _): "no '\(keyPath)'"
        case .hasMore(let flagKeyPath, _, _, _): "no '\(flagKeyPath)'"
        case .pageNumber, .offset: "no next page named"
        }
    }

    /// The last value of the list at the key path `entity`'s records are read from, whose key
    /// ``Pagination/hasMore(flagKeyPath:lastKeyPath:parameter:)`` sends on.
    private func lastRecord(in body: JSONValue, entity: String, options: RequestOptions) -> JSONValue? {
        if let array = body.arrayValue { return array.last }
        let keyPath =
            options.population.keyPath ?? recordClass(for: entity).keyPathForResponseObject
            ?? schema.entity(named: entity)?.keyPathForResponseObject
        guard let keyPath, !keyPath.isEmpty else { return Pagination.list(in: body)?.last }
        return body.value(atKeyPath: keyPath)?.arrayValue?.last
    }

    /// What identifies one page's request: a hash of its URN and its parameters, so that a run
    /// keeps a few bytes per page rather than each page's URL.
    private static func identity(urn: String, data: JSONValue?) -> Int {
        // A fragment is never sent: `page#more` is the page itself.
        let sent = urn.firstIndex(of: "#").map { urn[..<$0] } ?? urn[...]
        var hasher = Hasher()
        hasher.combine(sent)
        hasher.combine(data?.serialized(sortedKeys: true) ?? "")
        return hasher.finalize()
    }
}

extension PageSequence {
    /// Iterates the sequence in a task, handing each page to `pageBlock` on `callbackQueue`
    /// until it returns false, then calls `completion` there once: the block forms' shared body.
    fileprivate func deliver(
        on callbackQueue: DispatchQueue, pageBlock: @escaping @Sendable (sending Page<RecordClass>) -> Bool,
        completion: @escaping @Sendable (Result<Int, WebRecordError>) -> Void
    ) -> Task<Void, Never> {
        Task {
            var count = 0
            var iterator = makeAsyncIterator()
            do throws(WebRecordError) {
                while let page = try await iterator.next() {
                    count += 1
                    // Handed to the queue: this task does not use the page again.
                    let handOver = HandOver(page)
                    let wantsMore = await withCheckedContinuation { continuation in
                        callbackQueue.async { continuation.resume(returning: pageBlock(handOver.value)) }
                    }
                    if !wantsMore { break }
                }
                let pages = count
                callbackQueue.async { completion(.success(pages)) }
            } catch {
                callbackQueue.async { completion(.failure(error)) }
            }
        }
    }
}

extension RecordRequesting {
    /// Requests pages for this class's entity, MMRecord-style, as
    /// ``RecordStore/startPagedRequest(entity:urn:data:options:callbackQueue:pageBlock:completion:)``
    /// does, with pages whose records are instances of this class.
    ///
    /// For example:
    ///
    /// ```swift
    /// Post.startPagedRequest(urn: "stream/0/posts", in: store, pageBlock: { page in
    ///     print(page.records.first?.text ?? "")   // Posts, no cast
    ///     return page.index < 4                   // request the next page?
    /// }, completion: { result in print(result) })
    /// ```
    ///
    /// - Returns: the task running the request, for cancellation.
    @discardableResult
    public static func startPagedRequest(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: PagingOptions = PagingOptions(),
        callbackQueue: DispatchQueue = .main,
        pageBlock: @escaping @Sendable (sending Page<Self>) -> Bool,
        completion: @escaping @Sendable (Result<Int, WebRecordError>) -> Void
    ) -> Task<Void, Never> {
        pages(urn: urn, data: data, in: store, options: options)
            .deliver(on: callbackQueue, pageBlock: pageBlock, completion: completion)
    }

    /// The pages of a request for this class's entity, as an `AsyncSequence` of pages whose
    /// records are instances of this class.
    ///
    /// For example:
    ///
    /// ```swift
    /// var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
    /// options.request.population.deleteOrphans = .all     // after the last page, across all pages
    /// for try await page in Post.pages(urn: "posts", in: store, options: options) {
    ///     render(page.records)
    /// }
    /// ```
    public static func pages(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: PagingOptions = PagingOptions()
    ) -> PageSequence<Self> {
        PageSequence(
            store: store, entity: requestEntityName(in: store), urn: urn, data: data, options: options,
            recordClass: self)
    }
}
