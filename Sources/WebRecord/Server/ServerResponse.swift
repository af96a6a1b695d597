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
    /// Non-fatal problems met while fetching it, such as an `https` request redirected to
    /// `http`. A request records them on its ``Debugger`` as warnings.
    public var warnings: [WebRecordError] = []
    /// The values of the credentials the request carried (set by ``HTTPServer``): the population
    /// of the response takes them out of every warning it records, should the server echo one.
    package var secrets: [String] = []

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
    /// Header names are case-insensitive in HTTP, so lines whose names differ only in case
    /// (`Link` and `link`, which some clients keep apart) are one field: their values are joined
    /// with `, `, as HTTP joins a field's repeated lines, the name as asked for first and the
    /// others in order of name. A `Link` given on two such lines thus keeps both links.
    ///
    /// - Parameter name: the header name, such as `Link` or `content-type`.
    /// - Returns: the value, or nil when the response has no such header.
    public func header(_ name: String) -> String? {
        let matching = headers.filter { $0.key.caseInsensitiveCompare(name) == .orderedSame }
        guard matching.count > 1 else { return matching.first?.value }
        return matching.sorted { ($0.key == name ? 0 : 1, $0.key) < ($1.key == name ? 0 : 1, $1.key) }
            .map(\.value).joined(separator: ", ")
    }
}
