import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPServer {
    /// Sends one request and waits for the whole response, at most `timeout` seconds.
    ///
    /// The body's bytes are reported as they arrive to the request's ``ProgressReporter``, when
    /// its caller asked for progress.
    ///
    /// - Throws: ``WebRecordError``: `cancelled` when the calling task is cancelled,
    ///   `serverError` for a timeout or a transport failure, `invalidResponseFormat` when the
    ///   body was cut short or the response is not HTTP.
    func send(_ urlRequest: URLRequest, timeout: TimeInterval, entity: String?) async throws(WebRecordError)
        -> (Data, HTTPURLResponse)
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
        let transfer = HTTPTransfer(url: url, entity: entity, timeout: timeout, progress: ProgressReporter.current)
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
        case .success(let (data, response)):
            if logger.isEnabled(.trace) {
                logger.log(
                    .trace, "HTTP \(response.statusCode) response", entity: entity,
                    metadata: [
                        "url": Redaction.url(response.url ?? url),
                        "headers": Redaction.headerLine(Self.headers(of: response)),
                        "bytes": String(data.count),
                        "seconds": String(format: "%.3f", Date().timeIntervalSince(started)),
                    ])
            }
            return (data, response)
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
/// another origin does.
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
        completionHandler(Self.redirect(request, from: task.currentRequest?.url ?? task.originalRequest?.url))
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
    typealias Outcome = Result<(Data, HTTPURLResponse), WebRecordError>

    private enum Ending: Sendable {
        case none, cancelled, timedOut
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
    }

    private let url: URL?
    private let entity: String?
    private let timeout: TimeInterval
    /// Where the body's bytes are reported as they arrive, if anywhere.
    private let progress: ProgressReporter?
    private let state = Locked(State())

    init(url: URL?, entity: String?, timeout: TimeInterval, progress: ProgressReporter? = nil) {
        self.url = url
        self.entity = entity
        self.timeout = timeout
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

    /// Adds body bytes, and reports the body's length so far against `expectedLength` (the
    /// response's `Content-Length`; -1 or nil when unknown).
    func append(_ data: Data, expectedLength: Int64? = nil) {
        let length = state.withLock { state in
            state.body.append(data)
            return state.body.count
        }
        progress?.downloaded(length, expected: expectedLength.map { Int(clamping: $0) })
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
        let (ending, continuation, body) = state.withLock { state in
            state.watchdog?.cancel()
            // Nothing of a finished request is kept: memory stays flat across pages and sources.
            state.watchdog = nil
            state.task = nil
            let continuation = state.continuation
            state.continuation = nil
            return (state.ending, continuation, state.body)
        }
        continuation?.resume(returning: outcome(ending: ending, response: response, body: body, error: error))
    }

    private func outcome(ending: Ending, response: URLResponse?, body: Data, error: (any Error)?) -> Outcome {
        switch ending {
        case .cancelled:
            return .failure(.cancelled(entity: entity))
        case .timedOut:
            return .failure(.timedOut(url: url, after: timeout))
        case .none:
            break
        }
        let http = response as? HTTPURLResponse
        if let error {
            let code = (error as? URLError)?.code
            if code == .cancelled { return .failure(.cancelled(entity: entity)) }
            if code == .timedOut { return .failure(.timedOut(url: url, after: timeout)) }
            if let http, (200..<300).contains(http.statusCode) {
                let length = HTTPServer.headers(of: http).first {
                    $0.key.caseInsensitiveCompare("Content-Length") == .orderedSame
                }?.value
                return .failure(
                    .truncatedBody(url: http.url ?? url, received: body.count, expectedLength: length, cause: error))
            }
            return .failure(.transportFailure(error, url: url))
        }
        guard let http else {
            return .failure(
                WebRecordError(.invalidResponseFormat, "the response from \(Redaction.url(url)) is not HTTP"))
        }
        return .success((body, http))
    }
}
