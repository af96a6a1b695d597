import Foundation

/// Options of one request: how to populate, which server, and what to send.
///
/// For example:
///
/// ```swift
/// var options = RequestOptions()
/// options.domain = "timeline"                     // cancel with store.cancelRequests(inDomain:)
/// options.headers["Authorization"] = "Bearer \(token)"
/// options.population.deleteOrphans = .all
/// options.customResponse = { response in response.value(atKeyPath: "meta.max_id")?.stringValue }
/// let result = try await store.startRequest(entity: "Post", urn: "posts/stream", options: options)
/// let maxID = result.customResponse as? String
/// ```
public struct RequestOptions: Sendable {
    /// How the response populates the store: key path, key injection, orphans.
    public var population: PopulationOptions
    /// The server for this request, overriding the registered one.
    public var server: (any Server)?
    /// A cancellation domain: ``RecordStore/cancelRequests(inDomain:)`` cancels every request
    /// started with it (in the store's ``RecordStore/Configuration/cancellation`` registry).
    public var domain: String?
    /// Headers for this request, added to (and overriding) the server's.
    public var headers: [String: String]
    /// The HTTP method. Default `GET`.
    public var method: String
    /// The longest one attempt may take, in seconds; nil for the server's default.
    ///
    /// ``HTTPServer`` refuses a timeout that is zero, negative or NaN (`invalidArgument`) and
    /// clamps a longer one than ``HTTPServer/maximumTimeout`` (a day) to it.
    public var timeout: TimeInterval?
    /// Computes an extra value from the raw response, returned as
    /// ``RequestResult/customResponse`` (MMRecord's custom response block).
    ///
    /// It runs before the response populates the store; an error it throws fails the request
    /// (with the error as the cause of an `invalidResponseFormat`, unless it throws a
    /// ``WebRecordError``) and nothing is populated.
    public var customResponse: (@Sendable (JSONValue) throws -> (any Sendable)?)?
    /// Called while the request runs, with how far its response has come: downloaded
    /// (``HTTPServer``) or read (``JSONFileServer``), parsed, populated, written, and a last
    /// call once it is committed (``ResponseProgress``).
    ///
    /// Called with the latest progress at most ten times a second, none in the first tenth of
    /// a second, and once more at the end: a quick request gets the last call only, a failed
    /// one no last call. It is called on the thread doing the work (the session's while
    /// downloading) or on a dispatch queue's, never twice at once: keep it short, and hop to
    /// the main actor for a user interface. A paged request calls it for each page's response
    /// (``PagingOptions/request``). ``PopulationOptions/progress``, when set too, is called
    /// with the same values.
    public var progress: (@Sendable (ResponseProgress) -> Void)?

    /// Creates options.
    ///
    /// - Parameters:
    ///   - population: how the response populates the store.
    ///   - server: a server overriding the registered one.
    ///   - domain: a cancellation domain.
    ///   - headers: headers for this request.
    ///   - method: the HTTP method; default `GET`.
    ///   - timeout: the longest one attempt may take, in seconds.
    ///   - customResponse: computes an extra value from the raw response.
    ///   - progress: called with how far the response has come.
    public init(
        population: PopulationOptions = PopulationOptions(), server: (any Server)? = nil, domain: String? = nil,
        headers: [String: String] = [:], method: String = "GET", timeout: TimeInterval? = nil,
        customResponse: (@Sendable (JSONValue) throws -> (any Sendable)?)? = nil,
        progress: (@Sendable (ResponseProgress) -> Void)? = nil
    ) {
        self.population = population
        self.server = server
        self.domain = domain
        self.headers = headers
        self.method = method
        self.timeout = timeout
        self.customResponse = customResponse
        self.progress = progress
    }
}
