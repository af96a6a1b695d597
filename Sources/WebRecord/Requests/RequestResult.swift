import Foundation

/// What a request produced: the records, the debugger, the change counts, and more.
///
/// For example:
///
/// ```swift
/// let result = try await store.startRequest(entity: "Post", urn: "posts/stream/global")
/// print(result.records.count, result.changes.inserted, result.debugger.warnings)
/// ```
public struct RequestResult: Sendable {
    /// The top-level records, in response order.
    public var records: [Record]
    /// Every error met; on a success, only non-fatal ones.
    public var debugger: Debugger
    /// What the population changed, per entity.
    public var changesByEntity: [String: ChangeCounts]
    /// The value ``RequestOptions/customResponse`` computed, if it was set.
    public var customResponse: (any Sendable)?
    /// The server's response.
    public var response: ServerResponse
    /// The request that was sent.
    public var request: ServerRequest
    /// The server's page manager for this response; nil when it is the only page.
    public var pageManager: (any PageManager)?
    /// The `_id` of every record of the requested entity that the response named, at any
    /// depth: what orphan deletion after the last page keeps (DESIGN §3.14).
    package var containedRowIDs: Set<Int64> = []
    /// How many values the list at the response's key path held (top-level records, before
    /// merging); nil when the response was a single object rather than a list.
    package var responseRecordCount: Int?
    /// For the last page of a paged request, why paging stopped; nil otherwise.
    public var pagingEnd: PagingEnd?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - records: the top-level records.
    ///   - debugger: the debugger.
    ///   - changesByEntity: the change counts per entity.
    ///   - customResponse: the custom-response value.
    ///   - response: the server's response.
    ///   - request: the request sent.
    ///   - pageManager: the page manager.
    public init(
        records: [Record], debugger: Debugger, changesByEntity: [String: ChangeCounts],
        customResponse: (any Sendable)? = nil, response: ServerResponse, request: ServerRequest,
        pageManager: (any PageManager)? = nil
    ) {
        self.records = records
        self.debugger = debugger
        self.changesByEntity = changesByEntity
        self.customResponse = customResponse
        self.response = response
        self.request = request
        self.pageManager = pageManager
    }

    /// The counts over all entities.
    public var changes: ChangeCounts {
        changesByEntity.values.reduce(into: ChangeCounts()) { sum, counts in
            sum.inserted += counts.inserted
            sum.updated += counts.updated
            sum.unchanged += counts.unchanged
            sum.deleted += counts.deleted
        }
    }
}

/// One delivery of a fetch-first request: the local records, then the server's.
///
/// See ``RecordStore/startRequestFetchingFirst(entity:urn:data:options:localFetch:)``.
public enum RequestUpdate: Sendable {
    /// The records already in the store, delivered first, before the server answers.
    case local([Record])
    /// The server's response, populated: delivered last.
    case remote(RequestResult)

    /// The records of either delivery.
    public var records: [Record] {
        switch self {
        case .local(let records): records
        case .remote(let result): result.records
        }
    }
}
