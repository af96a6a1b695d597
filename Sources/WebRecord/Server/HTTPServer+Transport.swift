import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPServer {
    /// Sends one request and waits for the whole response, at most `timeout` seconds.
    ///
    /// The body's bytes are reported as they arrive to the request's ``ProgressReporter``, when
    /// its caller asked for progress. They are counted once decoded, and the transfer is
    /// cancelled as soon as they pass ``maximumBodySize``.
    ///
    /// - Returns: the body, the response, and the warnings met on the way (an `https` request
    ///   redirected to `http`).
    /// - Throws: ``WebRecordError``: `cancelled` when the calling task is cancelled,
    ///   `serverError` for a timeout or a transport failure, `invalidResponseFormat` when the
    ///   body was cut short or is larger than ``maximumBodySize``, or the response is not HTTP,
    ///   `invalidArgument` for a redirect to another scheme than `http` or `https`.
    func send(_ urlRequest: URLRequest, timeout: TimeInterval, entity: String?) async throws(WebRecordError)
        -> (Data, HTTPURLResponse, [WebRecordError])
    {
        let url = urlRequest.url
        let logger = Logger.global
        if logger.isEnabled(.trace) {
            var metadata = [
                "url": Redaction.url(url),
                "headers": Redaction.headerLine(urlRequest.allHTTPHeaderFields ?? [:]),
            ]
            metadata["body"] = Redaction.bodyLine(urlRequest.httpBody)
            logger.log(.trace, "HTTP \(urlRequest.httpMethod ?? "GET") request", entity: entity, metadata: metadata)
        }
        let started = Date()
        let transfer = HTTPTransfer(
            url: url, entity: entity, timeout: timeout, maximumBodySize: maximumBodySize,
            progress: ProgressReporter.current)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: urlRequest)
                if transfer.start(task, continuation: continuation) {
                    sessionDelegate.register(transfer, for: task)
                    task.resume()
                }
            }
        } onCancel: {
            transfer.cancel()
        }
        switch outcome {
        case .success(let (data, response, warnings)):
            if logger.isEnabled(.trace) {
                logger.log(
                    .trace, "HTTP \(response.statusCode) response", entity: entity,
                    metadata: [
                        "url": Redaction.url(response.url ?? url),
                        // A server may echo a secret under another header's name.
                        "headers": Redaction.scrubbing(
                            Redaction.headerLine(Self.headers(of: response)),
                            secrets: Redaction.secretValues(
                                headers: urlRequest.allHTTPHeaderFields ?? [:], url: urlRequest.url)),
                        "bytes": String(data.count),
                        "seconds": String(format: "%.3f", Date().timeIntervalSince(started)),
                    ])
            }
            return (data, response, warnings)
        case .failure(let error):
            logger.log(.trace, "HTTP request failed: \(error.message)", entity: entity)
            throw error
        }
    }
}

/// The delegate of an ``HTTPServer``'s session: hands each task's body bytes and completion
/// to its ``HTTPTransfer``.
///
/// It implements no authentication-challenge method, so URLSession verifies TLS by its
/// defaults. Redirects are followed, but one to another origin (scheme, host or port) drops
/// the credential headers (`Authorization`, `Cookie`, configured secrets), as a next page on
/// another origin does; one to another scheme than `http` or `https` ends the transfer with
/// an error before it is requested, and one from `https` to `http` gives a warning.
///
/// `@unchecked Sendable` is safe: its only state, the transfers by task, is behind a mutex.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let transfers = Locked<[Int: HTTPTransfer]>([:])

    /// Routes `task`'s events to `transfer` until it completes.
    func register(_ transfer: HTTPTransfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let transfer = transfers.withLock { $0[dataTask.taskIdentifier] }
        transfer?.append(data, expectedLength: dataTask.response?.expectedContentLength)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let transfer = transfers.withLock { $0[task.taskIdentifier] }
        let location = HTTPServer.headers(of: response).first {
            $0.key.caseInsensitiveCompare("Location") == .orderedSame
        }?.value
        let previous = task.currentRequest?.url ?? task.originalRequest?.url
        switch Self.decide(request, location: location, from: response.url ?? previous) {
        case .follow(let next, let warning):
            if let warning { transfer?.warn(warning) }
            completionHandler(next)
        case .refuse(let error):
            transfer?.refuseRedirect(error)
            completionHandler(nil)
        }
    }

    /// What a redirect does.
    enum RedirectDecision {
        /// Send this request, with this warning if any.
        case follow(URLRequest, warning: WebRecordError?)
        /// Send nothing: the transfer ends with this error.
        case refuse(WebRecordError)
    }

    /// Whether a redirect from `previous` to `location` (its `Location` header) is followed,
    /// and how: `request` is the transport's own next request.
    ///
    /// WebRecord reads the `Location` itself, resolved against the redirecting URL as RFC 3986
    /// says, rather than trusting the transport's request: FoundationNetworking takes
    /// `file:///etc/passwd` for a path on the same host. Only `http` and `https` are followed;
    /// `https` to `http` is followed with a warning, without the credential headers (another
    /// origin).
    static func decide(_ request: URLRequest, location: String?, from previous: URL?) -> RedirectDecision {
        let target: URL?
        if let location = location?.trimmingCharacters(in: .whitespaces), let previous {
            target = URLReference.resolve(location, against: previous)
        } else {
            target = request.url
        }
        let scheme = (location.flatMap { HTTPServer.scheme(of: $0) }) ?? target?.scheme?.lowercased()
        guard let target, let scheme, HTTPServer.followedSchemes.contains(scheme), target.host != nil else {
            let shown = target.map { Redaction.url($0) } ?? location.map { Redaction.text($0) } ?? "(no URL)"
            let refused = scheme.flatMap { HTTPServer.followedSchemes.contains($0) ? nil : $0 }
            return .refuse(WebRecordError.unfollowedRedirect(from: previous, to: shown, scheme: refused))
        }
        var next = request
        next.url = target
        let downgrade = scheme == "http" && previous?.scheme?.lowercased() == "https"
        return .follow(
            redirect(next, from: previous),
            warning: downgrade ? WebRecordError.insecureRedirect(from: previous, to: target) : nil)
    }

    /// The request a redirect sends: without credential headers when it leaves the origin of
    /// the request it redirects.
    static func redirect(_ request: URLRequest, from previous: URL?) -> URLRequest {
        guard let previous, let next = request.url, URLReference.origin(of: next) != URLReference.origin(of: previous)
        else {
            return request
        }
        var stripped = request
        for name in (request.allHTTPHeaderFields ?? [:]).keys where Redaction.isSecret(name) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        return stripped
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(response: task.response, error: error)
    }
}

/// One URLSession data task in flight: its body so far, and how it ends (completed,
/// cancelled, timed out). The continuation is resumed exactly once.
final class HTTPTransfer: Sendable {
    typealias Outcome = Result<(Data, HTTPURLResponse, [WebRecordError]), WebRecordError>

    private enum Ending: Sendable {
        case none, cancelled, timedOut
        /// The body passed the limit; the number is the bytes received, decoded, when it did.
        case tooLarge(Int)
        /// A redirect that is not followed, with the error that says why.
        case refused(WebRecordError)
    }

    private struct State: @unchecked Sendable {
        // URLSessionDataTask is thread-safe (its methods may be called from any thread); it is
        // only reached through the mutex here.
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<Outcome, Never>?
        var ending: Ending = .none
        /// Ends the transfer as timed out when it fires. A dispatch timer, not a task: it fires on
        /// time even while every thread of Swift's cooperative pool is busy or blocked.
        var watchdog: DispatchWorkItem?
        var body = Data()
        var warnings: [WebRecordError] = []
    }

    private let url: URL?
    private let entity: String?
    private let timeout: TimeInterval
    /// The most bytes the body may hold, decoded.
    private let maximumBodySize: Int
    /// Where the body's bytes are reported as they arrive, if anywhere.
    private let progress: ProgressReporter?
    private let state = Locked(State())

    init(
        url: URL?, entity: String?, timeout: TimeInterval, maximumBodySize: Int = HTTPServer.defaultMaximumBodySize,
        progress: ProgressReporter? = nil
    ) {
        self.url = url
        self.entity = entity
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        self.progress = progress
    }

    /// Records the task and the continuation and arms the timeout.
    ///
    /// - Returns: false when the transfer was cancelled already: the continuation has then
    ///   been resumed and the task must not be started.
    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Outcome, Never>) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            if case .cancelled = state.ending { return true }
            state.task = task
            state.continuation = continuation
            let timeout = self.timeout
            // Weakly: a cancelled work item stays queued until its deadline, and would keep the
            // transfer (its task, session, response and body) alive that long; held strongly in
            // the state too, it would keep it for ever.
            let watchdog = DispatchWorkItem { [weak self] in self?.end(.timedOut) }
            state.watchdog = watchdog
            DispatchQueue.global().asyncAfter(
                deadline: .now() + .nanoseconds(Int(clamping: HTTPServer.nanoseconds(timeout))), execute: watchdog)
            return false
        }
        if cancelled { continuation.resume(returning: .failure(.cancelled(entity: entity))) }
        return !cancelled
    }

    /// Cancels the transfer because the calling task was cancelled.
    func cancel() {
        end(.cancelled)
    }

    /// Adds body bytes (decoded: URLSession hands them over after undoing any
    /// `Content-Encoding`), and reports the body's length so far against `expectedLength` (the
    /// response's `Content-Length`; -1 or nil when unknown). Bytes that would take the body past
    /// ``maximumBodySize`` are dropped and end the transfer.
    func append(_ data: Data, expectedLength: Int64? = nil) {
        let counted = state.withLock { state -> (length: Int, isOver: Bool)? in
            guard case .none = state.ending else { return nil }
            let (total, overflow) = state.body.count.addingReportingOverflow(data.count)
            guard !overflow, total <= maximumBodySize else { return (overflow ? Int.max : total, true) }
            state.body.append(data)
            return (total, false)
        }
        guard let counted else { return }
        if counted.isOver {
            end(.tooLarge(counted.length))
            return
        }
        progress?.downloaded(counted.length, expected: expectedLength.map { Int(clamping: $0) })
    }

    /// Makes `error` the transfer's outcome: a redirect it does not follow. The task is not
    /// cancelled (FoundationNetworking traps on a cancel while it waits for the redirect's
    /// answer); it ends with the redirect's own short response, which is set aside.
    func refuseRedirect(_ error: WebRecordError) {
        state.withLock { state in
            if case .none = state.ending { state.ending = .refused(error) }
        }
    }

    /// Adds a warning to the outcome.
    func warn(_ warning: WebRecordError) {
        state.withLock { $0.warnings.append(warning) }
    }

    private func end(_ ending: Ending) {
        let task = state.withLock { state -> URLSessionDataTask? in
            guard case .none = state.ending else { return nil }
            state.ending = ending
            return state.task
        }
        task?.cancel()
    }

    /// Classifies how the task completed and resumes the continuation.
    func complete(response: URLResponse?, error: (any Error)?) {
        let (ending, continuation, body, warnings) = state.withLock { state in
            state.watchdog?.cancel()
            // Nothing of a finished request is kept: memory stays flat across pages and sources.
            state.watchdog = nil
            state.task = nil
            let continuation = state.continuation
            state.continuation = nil
            return (state.ending, continuation, state.body, state.warnings)
        }
        continuation?.resume(
            returning: outcome(ending: ending, response: response, body: body, error: error).map {
                ($0.0, $0.1, warnings)
            })
    }

    private func outcome(ending: Ending, response: URLResponse?, body: Data, error: (any Error)?) -> Result<
        (Data, HTTPURLResponse), WebRecordError
    > {
        switch ending {
        case .cancelled:
            return .failure(.cancelled(entity: entity))
        case .timedOut:
            return .failure(.timedOut(url: url, after: timeout))
        case .tooLarge(let received):
            return .failure(
                .bodyTooLarge(
                    url: (response as? HTTPURLResponse)?.url ?? url, limit: maximumBodySize, received: received))
        case .refused(let error):
            return .failure(error)
        case .none:
            break
        }
        let http = response as? HTTPURLResponse
        if let error {
            let code = (error as? URLError)?.code
            if code == .cancelled { return .failure(.cancelled(entity: entity)) }
            if code == .timedOut { return .failure(.timedOut(url: url, after: timeout)) }
            if let http, (200..<300).contains(http.statusCode) {
                let headers = HTTPServer.headers(of: http)
                func header(_ name: String) -> String? {
                    headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
                }
                // A body whose Content-Encoding does not decode arrived whole, or may have: it is
                // not said to be cut short.
                if let encoding = header("Content-Encoding"), WebRecordError.isDecodingFailure(error) {
                    return .failure(.undecodableBody(url: http.url ?? url, encoding: encoding, cause: error))
                }
                return .failure(
                    .truncatedBody(
                        url: http.url ?? url, received: body.count, expectedLength: header("Content-Length"),
                        cause: error))
            }
            if http == nil, WebRecordError.isHeaderLimit(error) { return .failure(.headersTooLarge(error, url: url)) }
            return .failure(.transportFailure(error, url: url))
        }
        guard let http else {
            return .failure(
                WebRecordError(.invalidResponseFormat, "the response from \(Redaction.url(url)) is not HTTP"))
        }
        // A redirect the transport did not follow (a `Location` it cannot read as a URL) is
        // refused as one it would have followed to another scheme.
        if (300..<400).contains(http.statusCode),
            let location = HTTPServer.headers(of: http).first(where: {
                $0.key.caseInsensitiveCompare("Location") == .orderedSame
            })?.value, let from = http.url ?? url,
            case .refuse(let error) = HTTPSessionDelegate.decide(URLRequest(url: from), location: location, from: from)
        {
            return .failure(error)
        }
        return .success((body, http))
    }
}
