import Foundation

// MARK: - Factories for servers and requests

extension WebRecordError {
    /// The longest body excerpt an HTTP error carries.
    static let bodyExcerptLimit = 200

    /// A single request with orphan rules fetched one page of a longer list: `sign` says what
    /// names the next page. Non-fatal: the page is populated, and no orphan deleted.
    static func unpagedOrphans(entity: String, sign: String) -> WebRecordError {
        WebRecordError(
            .invalidResponseFormat,
            "the response names a next page (\(sign)): it is one page of a longer list, so no orphans were "
                + "deleted; a paged request (pages(...)) deletes the orphans of the whole list",
            isFatal: false, entity: entity)
    }

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
            .serverError, "could not reach \(redacted(url)): \(Redaction.text(describe(cause)))",
            cause: TransportError(cause))
    }

    /// The longest response header line the transport reads, in bytes: libcurl's
    /// `CURL_MAX_HTTP_HEADER`, under FoundationNetworking, which cannot raise it.
    static let headerLimit = 102_400

    /// The response's headers passed the transport's limit (libcurl reports it as running out
    /// of memory, or, from 8.6, as a field too large).
    static func headersTooLarge(_ cause: any Error, url: URL?) -> WebRecordError {
        WebRecordError(
            .serverError,
            "the response from \(redacted(url)) has a header larger than the limit of \(byteCount(headerLimit)) "
                + "(libcurl's CURL_MAX_HTTP_HEADER, which URLSession cannot raise); nothing of it was read",
            cause: TransportError(cause))
    }

    /// Whether a transport failure is libcurl refusing a header past ``headerLimit``.
    static func isHeaderLimit(_ error: any Error) -> Bool {
        #if canImport(FoundationNetworking)
            let description = (error as NSError).localizedDescription
            return description == "Out of memory" || description.hasPrefix("A value or data field grew larger")
        #else
            return false
        #endif
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
        // The server's own text: shown only when it is a plain number.
        if let expectedLength, let length = UInt64(expectedLength.trimmingCharacters(in: .whitespaces)) {
            message += " of \(length) (Content-Length)"
        }
        message += ": \(Redaction.text(describe(cause)))"
        return WebRecordError(.invalidResponseFormat, message, cause: TransportError(cause))
    }

    /// The body did not decode as its `Content-Encoding` says (`gzip` over plain text, a
    /// corrupt stream).
    static func undecodableBody(url: URL?, encoding: String, cause: any Error) -> WebRecordError {
        WebRecordError(
            .invalidResponseFormat,
            "the response body from \(redacted(url)) does not decode as its Content-Encoding '\(encoding.prefix(40))' says: \(Redaction.text(describe(cause)))",
            cause: TransportError(cause))
    }

    /// Whether `error` is the transport's failure to decode a body's content encoding.
    static func isDecodingFailure(_ error: any Error) -> Bool {
        if let code = (error as? URLError)?.code, code == .cannotDecodeContentData || code == .cannotDecodeRawData {
            return true
        }
        let text = "\(error)".lowercased()
        return text.contains("unencoding") || text.contains("content encoding")
    }

    /// The response's content type is not JSON.
    static func notJSON(contentType: String, url: URL?, body: Data) -> WebRecordError {
        var message = "expected a JSON response from \(redacted(url)), got Content-Type '\(contentType)'"
        let excerpt = bodyExcerpt(body)
        if !excerpt.isEmpty { message += ": \(excerpt)" }
        return WebRecordError(.invalidResponseFormat, message)
    }

    /// The body is not valid JSON: the reader's error, as a response format error of `source`
    /// that keeps the reader's line, column and syntax.
    static func invalidJSON(_ error: WebRecordError, source: String) -> WebRecordError {
        var failure = error
        failure.code = .invalidResponseFormat
        failure.message = "the response from \(source) is not valid JSON: \(error.message)"
        return failure
    }

    /// A header that cannot be sent as given; the value is never repeated, as it may be a secret.
    static func invalidHeader(_ problem: String) -> WebRecordError {
        WebRecordError(.invalidArgument, problem)
    }

    /// A timeout that is not a positive number of seconds.
    static func invalidTimeout(_ seconds: TimeInterval) -> WebRecordError {
        WebRecordError(.invalidArgument, "the timeout must be a positive number of seconds, not \(seconds)")
    }

    /// A body larger, once decoded, than the server's ``HTTPServer/maximumBodySize``.
    static func bodyTooLarge(url: URL?, limit: Int, received: Int) -> WebRecordError {
        WebRecordError(
            .invalidResponseFormat,
            "the response body from \(redacted(url)) is larger than the limit of \(byteCount(limit)) once decoded "
                + "(HTTPServer.maximumBodySize; webrecord populate --max-body-size): the transfer was stopped at "
                + "\(received) bytes")
    }

    /// A URN or URL of another scheme than `http` or `https`, refused before it is requested.
    static func unfollowedScheme(urn: String, scheme: String) -> WebRecordError {
        invalidRequest(
            "the scheme '\(scheme)' is not requested: WebRecord follows only http and https URLs", urn: urn)
    }

    /// A redirect to another scheme than `http` or `https`, refused before it is requested.
    static func unfollowedRedirect(from previous: URL?, to next: String, scheme: String?) -> WebRecordError {
        WebRecordError(
            .serverError,
            "refused the redirect from \(redacted(previous)) to \(next): "
                + "\(scheme.map { "the scheme '\($0)' is not requested" } ?? "it is not a URL with a host"); "
                + "WebRecord follows only http and https URLs")
    }

    /// An `https` request redirected to `http`: followed, as a non-fatal warning.
    static func insecureRedirect(from previous: URL?, to next: URL) -> WebRecordError {
        WebRecordError(
            .serverError,
            "the https request to \(redacted(previous)) was redirected to \(redacted(next)): the rest of the "
                + "exchange is not encrypted (credential headers are not sent to it)",
            isFatal: false)
    }

    /// A request that cannot be built.
    static func invalidRequest(_ message: String, urn: String) -> WebRecordError {
        WebRecordError(.invalidArgument, "URN '\(Redaction.urn(urn))': \(Redaction.text(message))")
    }

    // MARK: Helpers

    /// The error with each of `secrets` (see ``Redaction/secretValues(headers:url:)``) taken out
    /// of its message, its value and its problems (``hidingSecrets(_:)``) and of its transport
    /// cause's description.
    func scrubbing(_ secrets: [String]) -> WebRecordError {
        guard !secrets.isEmpty else { return self }
        var error = hidingSecrets(secrets)
        if let cause = cause as? TransportError {
            error.cause = TransportError(
                code: cause.code, description: Redaction.scrubbing(cause.description, secrets: secrets))
        }
        return error
    }

    /// The body as one line of at most ``bodyExcerptLimit`` characters: a JSON body with the
    /// members whose names are secret redacted, any other body with its `name=value` secrets
    /// redacted.
    static func bodyExcerpt(_ body: Data) -> String {
        // A JSON body is shown as sent unless it has secret members; then it is re-serialized without them.
        let whole = body.count <= 64 * bodyExcerptLimit ? (try? JSONReader().read(body)) : nil
        let redacted = whole.map { Redaction.json($0) }
        let raw =
            redacted.flatMap { $0 == whole ? nil : $0.serialized() }
            ?? Redaction.text(String(decoding: body.prefix(4 * bodyExcerptLimit), as: UTF8.self))
        let text = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if text.count <= bodyExcerptLimit { return text }
        return String(text.prefix(bodyExcerptLimit - 3)) + "..."
    }

    /// A URL for messages: secret query parameters and any password redacted.
    static func redacted(_ url: URL?) -> String {
        Redaction.url(url)
    }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return (urlError as NSError).localizedDescription == "(null)"
                ? "URLError \(urlError.code.rawValue)" : (urlError as NSError).localizedDescription
        }
        return "\(error)"
    }

    /// `268435456 bytes (256 MiB)`, `1000 bytes`: a byte count with its binary unit when it is
    /// a whole number of KiB, MiB or GiB.
    static func byteCount(_ bytes: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")]
        where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes) bytes (\(bytes >> shift) \(unit))"
        }
        return "\(bytes) bytes"
    }

    /// `5 s`, `0.25 s`, `0.001 s`; never traps, whatever the value.
    static func formatSeconds(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds) s" }
        if seconds == seconds.rounded() { return "\(Int64(seconds)) s" }
        // Below a hundredth, two decimals would read 0.00 s: give the value's own digits.
        return abs(seconds) < 0.01 ? String(format: "%g s", seconds) : String(format: "%.2f s", seconds)
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
        self.init(
            code: (error as? URLError)?.code.rawValue ?? nsError.code,
            description: Redaction.text(nsError.localizedDescription))
    }
}
