import Foundation

/// What a ``Server`` fetched: the parsed JSON body and, for HTTP, its status, headers and URL.
///
/// For example:
///
/// ```swift
/// let response = try await server.response(for: request)
/// response.body["meta"]?["code"]           // .integer(200)
/// response.header("Link")                  // case-insensitive lookup
/// ```
public struct ServerResponse: Sendable {
    /// The parsed body.
    public var body: JSONValue
    /// The response headers (names as the server sent them; look them up with ``header(_:)``).
    public var headers: [String: String]
    /// The HTTP status code, or nil when the response did not come over HTTP.
    public var statusCode: Int?
    /// Where the response came from: the final URL after redirects, or a file URL.
    public var url: URL?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - body: the parsed body.
    ///   - headers: the response headers.
    ///   - statusCode: the HTTP status code.
    ///   - url: where the response came from.
    public init(body: JSONValue, headers: [String: String] = [:], statusCode: Int? = nil, url: URL? = nil) {
        self.body = body
        self.headers = headers
        self.statusCode = statusCode
        self.url = url
    }

    /// The value of a header, by case-insensitive name.
    ///
    /// - Parameter name: the header name, such as `Link` or `content-type`.
    /// - Returns: the value, or nil when the response has no such header.
    public func header(_ name: String) -> String? {
        if let exact = headers[name] { return exact }
        return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
