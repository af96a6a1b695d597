import Foundation

/// Fetches the response for a request: the one thing WebRecord needs from a web service.
///
/// A server only has to say how to fetch a response. Paging has a default:
/// ``pageManager(for:of:)`` returns nil (the response is one page). Cancellation needs nothing
/// from a server: a request is cancelled through its task, which cancels the server's
/// `response(for:)` call (check `Task.isCancelled`, or await something cancellable).
///
/// Most APIs subclass ``HTTPServer`` instead of writing a server from scratch; tests and
/// examples use ``JSONFileServer``. A minimal server of your own:
///
/// ```swift
/// struct BundledServer: Server {
///     func response(for request: ServerRequest) async throws -> ServerResponse {
///         let url = Bundle.main.url(forResource: request.urn, withExtension: "json")!
///         return ServerResponse(body: try JSONReader().read(Data(contentsOf: url)))
///     }
/// }
/// store.register(BundledServer(), for: Post.self)
/// ```
///
/// A server is shared by concurrent requests, so it must be `Sendable`.
public protocol Server: Sendable {
    /// Fetches the response for `request`.
    ///
    /// - Parameter request: what to fetch: the URN, parameters, method and headers.
    /// - Returns: the parsed response.
    /// - Throws: a ``WebRecordError``, preferably: `serverError` when the service failed or
    ///   could not be reached, `invalidResponseFormat` when its answer is not JSON, `cancelled`
    ///   when the task was cancelled. Any other error is reported as a `serverError` with the
    ///   error as its cause.
    func response(for request: ServerRequest) async throws -> ServerResponse

    /// The page manager for a response, which knows how to request the next page.
    ///
    /// The default returns nil: the response is the only page.
    ///
    /// - Parameters:
    ///   - response: the response just fetched.
    ///   - request: the request that fetched it.
    /// - Returns: a page manager, or nil when the response is not paged.
    func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)?
}

extension Server {
    /// Returns nil: by default, a response is one page.
    public func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
        nil
    }
}
