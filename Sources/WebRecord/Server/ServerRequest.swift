import Foundation

/// What a ``Server`` is asked to fetch.
///
/// Built by ``RecordStore/startRequest(entity:urn:data:options:)`` from its arguments and
/// ``RequestOptions``; build one yourself to call a server directly.
///
/// For example:
///
/// ```swift
/// var request = ServerRequest(urn: "posts/search", entityName: "Post")
/// request.data = ["q": "swift", "count": 20]
/// request.headers["Authorization"] = "Bearer \(token)"
/// let response = try await server.response(for: request)
/// ```
public struct ServerRequest: Sendable {
    /// The resource to fetch: a path relative to the server's base (for ``HTTPServer``), a
    /// file name (for ``JSONFileServer``), or a full `http(s)` URL.
    public var urn: String
    /// The parameters: encoded into the query for `GET`, sent as a JSON body otherwise.
    public var data: JSONValue?
    /// The HTTP method. Default `GET`.
    public var method: String
    /// Headers for this request only, added to (and overriding) the server's own.
    public var headers: [String: String]
    /// The cancellation domain the request was started with, if any.
    public var domain: String?
    /// The longest one attempt may take, in seconds; nil for the server's default.
    ///
    /// ``HTTPServer`` refuses a timeout that is zero, negative or NaN (`invalidArgument`) and
    /// clamps a longer one than ``HTTPServer/maximumTimeout`` (a day) to it.
    public var timeout: TimeInterval?
    /// The entity the response will populate.
    public var entityName: String
    /// Where this request is in a paged sequence; nil for a request that is not a page.
    public var page: PageInformation?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - urn: the resource to fetch.
    ///   - data: the parameters, if any.
    ///   - method: the HTTP method; default `GET`.
    ///   - headers: headers for this request only.
    ///   - domain: a cancellation domain.
    ///   - timeout: the longest one attempt may take, in seconds.
    ///   - entityName: the entity the response will populate.
    ///   - page: the page information, for a paged request.
    public init(
        urn: String, data: JSONValue? = nil, method: String = "GET", headers: [String: String] = [:],
        domain: String? = nil, timeout: TimeInterval? = nil, entityName: String, page: PageInformation? = nil
    ) {
        self.urn = urn
        self.data = data
        self.method = method
        self.headers = headers
        self.domain = domain
        self.timeout = timeout
        self.entityName = entityName
        self.page = page
    }
}

/// Where a request is in a paged sequence.
///
/// The first page of a request has index 0 and no previous page manager; each later page
/// carries the page manager of the page before it, which built its URN and data.
public struct PageInformation: Sendable {
    /// The 0-based index of the page being requested.
    public var index: Int
    /// The page manager of the previous page, nil for the first page.
    public var previousPageManager: (any PageManager)?

    /// Creates page information.
    ///
    /// - Parameters:
    ///   - index: the 0-based page index.
    ///   - previousPageManager: the previous page's page manager.
    public init(index: Int, previousPageManager: (any PageManager)? = nil) {
        self.index = index
        self.previousPageManager = previousPageManager
    }
}
