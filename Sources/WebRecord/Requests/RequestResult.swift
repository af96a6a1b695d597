import Foundation

/// What a request produced: its records, typed by the request's class, its population's
/// result (the debugger, the change counts), and the request, the response and what the server
/// said about paging.
///
/// A request made from a record class gives that class's records with no cast
/// (`Post.startRequestForResult` gives a `RequestResult<Post>`); a request by entity name
/// gives a `RequestResult<Record>`. The population's members read as the result's own
/// (`result.changes`, `result.debugger`) through dynamic member lookup.
///
/// For example:
///
/// ```swift
/// let result = try await Post.startRequestForResult(urn: "posts/stream/global", in: store)
/// print(result.records.first?.text ?? "", result.changes.inserted, result.debugger.warnings)
/// ```
///
/// Not `Sendable`, as the records it holds are not: requests return it as a `sending` value,
/// which the caller may hand to another isolation domain, such as the main actor
/// (Docs/Records.md, "Records and concurrency").
@dynamicMemberLookup
public struct RequestResult<Element: Record> {
    /// The top-level records, in response order, as instances of `Element`: the same records as
    /// the population's.
    public var records: [Element]
    /// What the population of the response gave: the top-level records in response order, every
    /// error met (on a success, only non-fatal ones), and the change counts per entity.
    public var population: PopulationResult
    /// The value ``RequestOptions/customResponse`` computed, if it was set.
    public var customResponse: (any Sendable)?
    /// The server's response.
    public var response: ServerResponse
    /// The request that was sent.
    public var request: ServerRequest
    /// The server's page manager for this response (``Server/pageManager(for:of:)``): nil when
    /// the server gives none, as a plain ``HTTPServer`` and ``JSONFileServer`` do, even if the
    /// response names a next page. A paged request's built-in pagination is ``Page/pageManager``.
    public var pageManager: (any PageManager)?
    /// For the last page of a paged request, why paging stopped; nil otherwise.
    public var pagingEnd: PagingEnd?

    /// A result of `population` for `request` and `response`, its records made instances of
    /// `Element`.
    init(
        population: PopulationResult, customResponse: (any Sendable)? = nil, response: ServerResponse,
        request: ServerRequest,
        pageManager: (any PageManager)? = nil
    ) {
        let records = population.records.map(Element.typed)
        self.records = records
        var population = population
        population.records = records
        self.population = population
        self.customResponse = customResponse
        self.response = response
        self.request = request
        self.pageManager = pageManager
    }

    /// The same result, its records made instances of `T`.
    func typed<T: Record>(as type: T.Type) -> RequestResult<T> {
        var result = RequestResult<T>(
            population: population, customResponse: customResponse, response: response, request: request,
            pageManager: pageManager)
        result.pagingEnd = pagingEnd
        return result
    }

    /// A member of the ``population``: `debugger`, `changesByEntity`, `changes`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PopulationResult, Value>) -> Value {
        get { population[keyPath: keyPath] }
        set { population[keyPath: keyPath] = newValue }
    }

    /// A read-only member of the ``population``, such as `changes`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<PopulationResult, Value>) -> Value {
        population[keyPath: keyPath]
    }
}

/// One delivery of a fetch-first request: the local records, then the server's, as instances
/// of the request's class (`Record` for a request by entity name).
///
/// See ``RecordStore/startRequestFetchingFirst(entity:urn:data:options:localFetch:)``.
///
/// Not `Sendable`, as the records it holds are not: the stream delivers each update as a
/// `sending` value, to the task iterating it.
public enum RequestUpdate<Element: Record> {
    /// The records already in the store, delivered first, before the server answers.
    case local([Element])
    /// The server's response, populated: delivered last.
    case remote(RequestResult<Element>)

    /// The records of either delivery.
    public var records: [Element] {
        switch self {
        case .local(let records): records
        case .remote(let result): result.records
        }
    }
}
