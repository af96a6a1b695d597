import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Server`` for a JSON web API, on URLSession: subclass it for your API.
///
/// It resolves a request's URN against ``baseURL``, sends the parameters in the query (for
/// `GET`) or as a JSON body (otherwise), adds the default and per-request headers, and parses
/// the JSON response. For example, a server for an App.net-style API that pages through a
/// `meta.min_id` cursor:
///
/// ```swift
/// final class ADNServer: HTTPServer, @unchecked Sendable {
///     init(token: String) {
///         super.init(baseURL: URL(string: "https://api.app.net/")!,
///                    headers: ["Authorization": "Bearer \(token)"])
///     }
///     override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
///         ADNPageManager(response: response, request: request)
///     }
/// }
/// ```
///
/// Behaviour:
/// - **URNs.** A URN that is a full `http` or `https` URL is used as is. Any other URN is a
///   path below ``baseURL``: the base is treated as a directory (a missing trailing `/` is
///   added) and leading slashes of the URN are dropped, so `posts`, `/posts` and
///   `https://api.example.com/v1` give `https://api.example.com/v1/posts`. A URN may carry
///   its own query; `GET` parameters are appended to it.
/// - **Headers.** `Accept: application/json`, then ``defaultHeaders``, then the request's own
///   headers, each overriding the one before. **Credentials stay with their host:** a request
///   whose URL has another origin (scheme, host or port) than ``baseURL`` — an absolute URN, a
///   next page on another host — is sent without `Authorization`, `Proxy-Authorization`,
///   `Cookie` or any header named in ``Redaction/secretNames``; override
///   ``urlRequest(for:)`` to send them elsewhere on purpose. A header that cannot be sent as given (a name
///   that is not an HTTP token, a value with a carriage return, line feed or other control
///   character) fails the request with `invalidArgument` naming the header, rather than being
///   dropped.
/// - **Timeouts.** One attempt, from sending to the last byte of the body, may take at most
///   the request's ``ServerRequest/timeout`` or ``timeout``; then it fails with `serverError`.
///   A timeout longer than ``maximumTimeout`` (one day) is clamped to it; one that is zero,
///   negative or NaN fails the request with `invalidArgument`.
/// - **Status.** A status outside 200–299 after redirects is a `serverError` whose
///   ``WebRecordError/httpStatus`` is the status and whose message ends with an excerpt of the
///   body (at most 200 characters).
/// - **Retries.** A `GET` (or `HEAD`) answered 429 or 503 is retried up to ``maxRetries``
///   times. The wait is the response's `Retry-After` (seconds or an HTTP date) when it has
///   one, else ``retryDelay`` doubled on each retry; either is capped at ``maximumRetryDelay``
///   (itself at most ``maximumTimeout``). A `Retry-After` too large to represent waits the cap.
///   Other methods are never retried: they may not be idempotent.
/// - **Content type.** A `Content-Type` of `application/json` or any `+json` type (such as
///   `application/vnd.api+json`) is parsed; any other type is an `invalidResponseFormat`. A
///   response with no `Content-Type` at all is accepted when its body parses as JSON. A 204 or
///   205 status has body ``JSONValue/null``.
/// - **Bodies.** Parsed with ``JSONReader``. A body that is not valid JSON, or that ended
///   before its `Content-Length`, is an `invalidResponseFormat`; the parse error gives the
///   line and column. A body is read as it arrives, and one larger than ``maximumBodySize``
///   once its `Content-Encoding` (gzip, deflate, br, zstd) is decoded is an
///   `invalidResponseFormat` naming the limit, the transfer cancelled as soon as the limit is
///   passed: of a small compressed body that inflates without end (a "zip bomb") at most the
///   limit is kept (on Linux the transport may still inflate ahead of the count).
/// - **Only `http` and `https`.** A URN, a next page or a redirect of any other scheme
///   (`file:`, `javascript:`, `ftp:`) fails the request with `invalidArgument` naming the URL,
///   before it is requested.
/// - **Redirects** are followed (URLSession's default); one to another origin drops the
///   credential headers, as above. One from `https` to `http` is followed, with a non-fatal
///   warning in ``ServerResponse/warnings``: the rest of the exchange is not encrypted.
/// - **TLS** is verified by URLSession as configured by the system. `HTTPServer`'s session
///   delegate handles no authentication challenge, so an invalid certificate is never accepted.
/// - **Transport errors** (connection refused, DNS failure, reset) are a `serverError` whose
///   ``WebRecordError/cause`` is a ``TransportError``.
/// - **Cancellation** of the calling task cancels the transfer, and the request fails with
///   `cancelled`.
/// - **Progress.** When a request asks for it (``RequestOptions/progress``), the body's bytes
///   are reported as they arrive, against the `Content-Length` when there is one, and then
///   its parse (``ResponseProgress/Phase-swift.enum/reading``).
/// - **Logging.** At ``Record/loggingLevel`` `.all` every request and response is logged
///   at `.trace`, with `Authorization`, `Cookie` and the ``Redaction/secretNames`` redacted
///   from headers, query and JSON body.
/// - **Secrets in errors.** Error messages name URLs with their secrets redacted, and the
///   values of the request's secret headers and parameters are taken out of an error's body
///   excerpt, in case the server echoes them. `description` and `dump` of a server show its
///   headers with their secrets redacted.
///
/// Subclasses override ``urlRequest(for:)`` to build requests differently (signing, another
/// encoding), ``decodeResponse(data:response:request:)`` to read responses differently (an
/// error envelope, another format), and ``pageManager(for:of:)`` to page.
///
/// `@unchecked Sendable` is safe: every stored property is an immutable `let` of a `Sendable`
/// type, of `URLSession` (thread-safe) or of its delegate (whose state is behind a mutex).
/// Subclasses must keep to immutable state.
open class HTTPServer: Server, CustomStringConvertible, CustomReflectable, @unchecked Sendable {
    /// The URL that URNs are resolved against.
    public let baseURL: URL
    /// Headers sent with every request (authentication, API keys, a user agent).
    public let defaultHeaders: [String: String]
    /// The longest one attempt may take, in seconds, when the request does not say. Default 60.
    public let timeout: TimeInterval
    /// How many times a `GET` answered 429 or 503 is retried. Default 2.
    public let maxRetries: Int
    /// The first retry's wait when the response has no `Retry-After`, doubled on each retry.
    /// Default 0.5 seconds.
    public let retryDelay: TimeInterval
    /// The longest wait before a retry, whatever `Retry-After` says. Default 30 seconds.
    public let maximumRetryDelay: TimeInterval
    /// The most bytes one response body may hold once its `Content-Encoding` is decoded.
    /// Default ``defaultMaximumBodySize`` (256 MiB).
    ///
    /// The body is counted as it arrives; a larger one fails the request with
    /// `invalidResponseFormat` naming the limit, and its transfer is cancelled at once.
    public let maximumBodySize: Int
    /// The session requests are sent with.
    public let session: URLSession
    /// Routes the session's events to the transfer they belong to.
    let sessionDelegate: HTTPSessionDelegate

    /// Creates a server for the API at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: the URL URNs are resolved against.
    ///   - configuration: the session configuration; by default an ephemeral one (no disk
    ///     cache, no persistent cookies).
    ///   - headers: headers sent with every request.
    ///   - timeout: the longest one attempt may take, in seconds; default 60.
    ///   - maxRetries: how many times a `GET` answered 429 or 503 is retried; default 2.
    ///   - retryDelay: the first retry's wait without `Retry-After`; default 0.5 seconds.
    ///   - maximumRetryDelay: the cap on any wait before a retry; default 30 seconds, at most
    ///     ``maximumTimeout``.
    ///   - maximumBodySize: the most bytes one response body may hold once decoded; default
    ///     ``defaultMaximumBodySize`` (256 MiB). A value below 1 is 1.
    public init(
        baseURL: URL, configuration: URLSessionConfiguration = .ephemeral, headers: [String: String] = [:],
        timeout: TimeInterval = 60, maxRetries: Int = 2, retryDelay: TimeInterval = 0.5,
        maximumRetryDelay: TimeInterval = 30, maximumBodySize: Int = HTTPServer.defaultMaximumBodySize
    ) {
        self.baseURL = baseURL
        self.defaultHeaders = headers
        self.timeout = timeout
        self.maxRetries = max(0, maxRetries)
        self.retryDelay = max(0, retryDelay)
        self.maximumRetryDelay = min(max(0, maximumRetryDelay), Self.maximumTimeout)
        self.maximumBodySize = max(1, maximumBodySize)
        let sessionDelegate = HTTPSessionDelegate()
        self.sessionDelegate = sessionDelegate
        self.session = URLSession(configuration: configuration, delegate: sessionDelegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    // MARK: - Description

    /// `HTTPServer(baseURL: ..., defaultHeaders: [...], timeout: 60.0)`, secrets redacted.
    open var description: String {
        "\(type(of: self))(baseURL: \(Redaction.url(baseURL)), defaultHeaders: \(Redaction.headers(defaultHeaders)), timeout: \(timeout))"
    }

    /// The server's settings for `dump`, with the secrets of its base URL and headers redacted.
    open var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": Redaction.url(baseURL), "defaultHeaders": Redaction.headers(defaultHeaders),
                "timeout": timeout,
                "maxRetries": maxRetries, "retryDelay": retryDelay, "maximumRetryDelay": maximumRetryDelay,
                "maximumBodySize": maximumBodySize,
            ],
            displayStyle: .class)
    }

    // MARK: - Server

    /// Fetches the response for `request`, retrying a `GET` answered 429 or 503.
    ///
    /// - Parameter request: the request.
    /// - Returns: the decoded response.
    /// - Throws: ``WebRecordError``: `serverError`, `invalidResponseFormat`, `invalidArgument`
    ///   (a URN or parameters that cannot be sent) or `cancelled`.
    open func response(for request: ServerRequest) async throws -> ServerResponse {
        let urlRequest = try urlRequest(for: request)
        let method = (urlRequest.httpMethod ?? "GET").uppercased()
        let limit = try effectiveTimeout(for: request)
        // A server may echo what it was sent; its answer must not carry the request's secrets.
        let secrets = Redaction.secretValues(headers: urlRequest.allHTTPHeaderFields ?? [:], url: urlRequest.url)
        var attempt = 0
        while true {
            if Task.isCancelled { throw WebRecordError.cancelled(entity: request.entityName) }
            let data: Data
            let response: HTTPURLResponse
            let warnings: [WebRecordError]
            do {
                (data, response, warnings) = try await send(urlRequest, timeout: limit, entity: request.entityName)
            } catch {
                throw error.scrubbing(secrets)
            }
            if attempt < maxRetries, ["GET", "HEAD"].contains(method), [429, 503].contains(response.statusCode) {
                let delay = retryWait(for: response, attempt: attempt)
                Logger.global.log(
                    .debug, "HTTP \(response.statusCode); retry \(attempt + 1) of \(maxRetries) in \(delay) s",
                    entity: request.entityName, metadata: ["url": Redaction.url(urlRequest.url)])
                do {
                    try await Task.sleep(nanoseconds: Self.nanoseconds(delay))
                } catch {
                    throw WebRecordError.cancelled(entity: request.entityName)
                }
                attempt += 1
                continue
            }
            ProgressReporter.current?.reading(data.count)
            do {
                var decoded = try decodeResponse(data: data, response: response, request: request)
                decoded.warnings += warnings
                decoded.secrets = secrets
                return decoded
            } catch let error as WebRecordError {
                throw error.scrubbing(secrets)
            }
        }
    }

    /// Returns nil: override to page.
    ///
    /// - Parameters:
    ///   - response: the response just fetched.
    ///   - request: the request that fetched it.
    /// - Returns: a page manager, or nil when the response is not paged.
    open func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
        nil
    }

    // MARK: - Hooks

    /// The URL a URN stands for (see the type's documentation for the rules).
    ///
    /// - Parameter urn: the URN.
    /// - Returns: the absolute URL, without the request's parameters.
    /// - Throws: ``WebRecordError`` `invalidArgument` when the URN does not make a URL, or is a
    ///   URL of another scheme than `http` or `https` (`file:///etc/passwd`, `javascript:...`).
    open func url(for urn: String) throws -> URL {
        if let scheme = Self.scheme(of: urn), !Self.followedSchemes.contains(scheme) {
            throw WebRecordError.unfollowedScheme(urn: urn, scheme: scheme)
        }
        let lowercased = urn.lowercased()
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            // Schemes are case-insensitive (`HTTP://` is `http://`), and URLSession wants them lower-case.
            let normalized = urn.prefix { $0 != ":" }.lowercased() + urn.drop { $0 != ":" }
            guard let url = URL(string: normalized), url.host != nil else {
                throw WebRecordError.invalidRequest("not a valid URL", urn: urn)
            }
            return url
        }
        var base = baseURL.absoluteString
        if let queryStart = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = String(base[..<queryStart]) }
        if !base.hasSuffix("/") { base += "/" }
        let path = String(urn.drop { $0 == "/" })
        guard let url = URL(string: base + path) else {
            throw WebRecordError.invalidRequest("does not make a valid URL below \(base)", urn: urn)
        }
        return url
    }

    /// Builds the URLRequest for a request: URL, method, headers, parameters and timeout.
    ///
    /// Override to sign requests or encode parameters differently; call `super` to start from
    /// the default.
    ///
    /// - Parameter request: the request.
    /// - Returns: the URLRequest to send.
    /// - Throws: ``WebRecordError`` `invalidArgument` when the URN or parameters cannot be sent.
    open func urlRequest(for request: ServerRequest) throws -> URLRequest {
        let method = request.method.uppercased()
        var url = try url(for: request.urn)
        var body: Data?
        if method == "GET" || method == "HEAD" {
            url = try HTTPRequestEncoding.url(
                url, appending: try HTTPRequestEncoding.queryItems(request.data, urn: request.urn), urn: request.urn)
        } else if let data = request.data {
            body = Data(data.serializedBytes())
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method
        let limit = try effectiveTimeout(for: request)
        // URLSession's own (idle) timeout is a backstop; ``send`` enforces `limit` precisely.
        urlRequest.timeoutInterval = max(1, limit.rounded(.up)) + 1
        var headers = ["Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        // Later sources override earlier ones whatever the case of the names.
        for source in [defaultHeaders, request.headers] {
            for (name, value) in source {
                if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                    headers[existing] = nil
                }
                headers[name] = value
            }
        }
        // Credentials stay with their host: a URL of another origin than the base URL (a next
        // page on another host, scheme or port) gets no Authorization, Cookie or configured
        // secret header, as browsers, curl and URLSession do on redirects.
        if URLReference.origin(of: url) != URLReference.origin(of: baseURL) {
            for name in headers.keys where Redaction.isSecret(name) { headers[name] = nil }
        }
        for (name, value) in headers {
            if let problem = Self.headerProblem(name: name, value: value) {
                throw WebRecordError.invalidHeader(problem)
            }
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = body
        return urlRequest
    }

    /// Turns a complete HTTP response into a ``ServerResponse``: checks the status and the
    /// content type, then parses the body.
    ///
    /// Override to read an API's error envelope or another format; call `super` for the
    /// default checks.
    ///
    /// - Parameters:
    ///   - data: the body.
    ///   - response: the HTTP response (after redirects).
    ///   - request: the request it answers.
    /// - Returns: the response.
    /// - Throws: ``WebRecordError``: `serverError` for a status outside 200–299,
    ///   `invalidResponseFormat` for a content type that is not JSON or a body that does not
    ///   parse.
    open func decodeResponse(data: Data, response: HTTPURLResponse, request: ServerRequest) throws -> ServerResponse {
        let url = response.url
        let headers = Self.headers(of: response)
        let status = response.statusCode
        guard (200..<300).contains(status) else {
            throw WebRecordError.httpStatus(status, url: url, body: data)
        }
        if status == 204 || status == 205 || request.method.uppercased() == "HEAD" {
            return ServerResponse(body: .null, headers: headers, statusCode: status, url: url)
        }
        let contentType = headers.first { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value
            .trimmingCharacters(in: .whitespaces)
        if let contentType, !contentType.isEmpty, !Self.isJSONContentType(contentType) {
            throw WebRecordError.notJSON(contentType: contentType, url: url, body: data)
        }
        do {
            let body = try JSONReader().read(data)
            return ServerResponse(body: body, headers: headers, statusCode: status, url: url)
        } catch {
            var failure = WebRecordError.invalidJSON(error, source: Redaction.url(url))
            // A body with no Content-Length (chunked, or ended by the close) that ends inside its
            // JSON was most likely cut short: the transport cannot always tell.
            let hasLength = headers.keys.contains { $0.caseInsensitiveCompare("Content-Length") == .orderedSame }
            if !hasLength, error.message.contains("unexpected end of input") {
                failure.message += "; the body, sent without a Content-Length, was likely cut short"
            }
            throw failure
        }
    }

    // MARK: - Helpers for subclasses

    /// Whether a `Content-Type` value names JSON: `application/json` or any `+json` type,
    /// parameters such as `charset` ignored.
    ///
    /// - Parameter contentType: the header's value.
    /// - Returns: true for a JSON type.
    static func isJSONContentType(_ contentType: String) -> Bool {
        let mime = (contentType.split(separator: ";").first.map(String.init) ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
        let parts = mime.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        return mime == "application/json" || parts[1].hasSuffix("+json")
    }

    /// The response's headers as `[String: String]`.
    ///
    /// - Parameter response: the HTTP response.
    /// - Returns: its headers.
    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return headers
    }

    /// How long to wait before retry number `attempt + 1`.
    func retryWait(for response: HTTPURLResponse, attempt: Int) -> TimeInterval {
        let headers = Self.headers(of: response)
        let retryAfter = headers.first { $0.key.caseInsensitiveCompare("Retry-After") == .orderedSame }?.value
        if let retryAfter, let seconds = Self.retryAfterSeconds(retryAfter, now: Date()) {
            return min(seconds, maximumRetryDelay)
        }
        return min(retryDelay * pow(2, Double(attempt)), maximumRetryDelay)
    }

    /// A `Retry-After` value in seconds: a number of seconds, or an HTTP date from now.
    ///
    /// A number too large for an `Int` is ``maximumTimeout``; a date in the past is 0. The caller
    /// clamps the result to ``maximumRetryDelay``.
    static func retryAfterSeconds(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (48...57).contains($0) }) {
            return Int(trimmed).map { min(TimeInterval($0), maximumTimeout) } ?? maximumTimeout
        }
        if let seconds = Int(trimmed) { return TimeInterval(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
