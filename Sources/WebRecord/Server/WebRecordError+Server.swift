import Foundation

// MARK: - Factories for servers and requests

extension WebRecordError {
    /// The longest body excerpt an HTTP error carries.
    static let bodyExcerptLimit = 200

    /// A non-2xx HTTP status.
    static func httpStatus(_ status: Int, url: URL?, body: Data) -> WebRecordError {
        var message = "HTTP \(status) from \(redacted(url))"
        let excerpt = bodyExcerpt(body)
        if !excerpt.isEmpty { message += ": \(excerpt)" }
        var error = WebRecordError(.serverError, message)
        error.httpStatus = status
        return error
    }

    /// The service could not be reached, or the transfer failed before a response arrived.
    static func transportFailure(_ cause: any Error, url: URL?) -> WebRecordError {
        WebRecordError(
            .serverError, "could not reach \(redacted(url)): \(describe(cause))",
            cause: TransportError(cause))
    }

    /// An attempt took longer than its timeout.
    static func timedOut(url: URL?, after seconds: TimeInterval) -> WebRecordError {
        WebRecordError(
            .serverError, "no complete response from \(redacted(url)) within \(formatSeconds(seconds))",
            cause: TransportError(code: -1001, description: "timed out"))
    }

    /// The body ended before the length the response announced.
    static func truncatedBody(url: URL?, received: Int, expectedLength: String?, cause: any Error) -> WebRecordError {
        var message = "the response body from \(redacted(url)) was cut short after \(received) bytes"
        if let expectedLength { message += " of \(expectedLength) (Content-Length)" }
        message += ": \(describe(cause))"
        return WebRecordError(.invalidResponseFormat, message, cause: TransportError(cause))
    }

    /// The response's content type is not JSON.
    static func notJSON(contentType: String, url: URL?, body: Data) -> WebRecordError {
        var message = "expected a JSON response from \(redacted(url)), got Content-Type '\(contentType)'"
        let excerpt = bodyExcerpt(body)
        if !excerpt.isEmpty { message += ": \(excerpt)" }
        return WebRecordError(.invalidResponseFormat, message)
    }

    /// The body is not valid JSON; the reader's message gives the line and column.
    static func invalidJSON(_ error: JSONReaderError, source: String) -> WebRecordError {
        WebRecordError(.invalidResponseFormat, "the response from \(source) is not valid JSON: \(error.message)", cause: error)
    }

    /// A request that cannot be built.
    static func invalidRequest(_ message: String, urn: String) -> WebRecordError {
        WebRecordError(.invalidArgument, "URN '\(HTTPRedaction.redactedURN(urn))': \(message)")
    }

    // MARK: Helpers

    /// The body as one line of at most ``bodyExcerptLimit`` characters.
    static func bodyExcerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(4 * bodyExcerptLimit), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if text.count <= bodyExcerptLimit { return text }
        return String(text.prefix(bodyExcerptLimit - 3)) + "..."
    }

    /// A URL for messages and logs: secret query parameters and any password redacted.
    static func redacted(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        return HTTPRedaction.redactedURL(url)
    }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return (urlError as NSError).localizedDescription == "(null)"
                ? "URLError \(urlError.code.rawValue)" : (urlError as NSError).localizedDescription
        }
        return "\(error)"
    }

    private static func formatSeconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.2f s", seconds)
    }
}

/// A transport failure, as a `Sendable` cause: the URL error's code and description.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The `URLError` code (`NSURLErrorDomain`), such as -1004 for a refused connection.
    public var code: Int
    /// The underlying error's description.
    public var description: String

    /// Creates a transport error.
    ///
    /// - Parameters:
    ///   - code: the `URLError` code.
    ///   - description: what happened.
    public init(code: Int, description: String) {
        self.code = code
        self.description = description
    }

    init(_ error: any Error) {
        let nsError = error as NSError
        self.init(code: (error as? URLError)?.code.rawValue ?? nsError.code, description: nsError.localizedDescription)
    }
}
