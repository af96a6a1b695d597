import Foundation
import WebRecord

/// A ``Server`` that answers with responses queued in advance, and fails loudly when it has
/// none left.
///
/// Each queued outcome (a response or an error) answers one request, in order; an outcome
/// queued for a URN answers only a request for that URN. A request with nothing queued for
/// it fails with a `serverError` naming the URN and entity, so a test that makes one request
/// too many cannot pass by accident. Every request received is kept in ``requests``.
///
/// For example:
///
/// ```swift
/// let server = CannedServer()
/// server.enqueue(["data": [["id": "1", "text": "hello"]]])
/// server.enqueue(WebRecordError(.serverError, "HTTP 500"), for: "posts/2")
/// store.register(server, forEntity: "Post")
/// let result = try await store.startRequest(entity: "Post", urn: "posts")
/// #expect(server.requests.map(\.urn) == ["posts"])
/// ```
public final class CannedServer: Server {
    private struct Entry {
        var urn: String?
        var outcome: Result<ServerResponse, WebRecordError>
        var delay: Duration
    }

    private struct State {
        var queue: [Entry] = []
        var requests: [ServerRequest] = []
    }

    private let state = Locked(State())

    /// Creates a server with nothing queued.
    public init() {}

    /// Queues a response body.
    ///
    /// - Parameters:
    ///   - body: the response body.
    ///   - urn: answer only a request for this URN; nil for any.
    ///   - delay: how long to wait before answering.
    public func enqueue(_ body: JSONValue, for urn: String? = nil, delay: Duration = .zero) {
        enqueue(ServerResponse(body: body, statusCode: 200), for: urn, delay: delay)
    }

    /// Queues a whole response.
    ///
    /// - Parameters:
    ///   - response: the response.
    ///   - urn: answer only a request for this URN; nil for any.
    ///   - delay: how long to wait before answering.
    public func enqueue(_ response: ServerResponse, for urn: String? = nil, delay: Duration = .zero) {
        state.withLock { $0.queue.append(Entry(urn: urn, outcome: .success(response), delay: delay)) }
    }

    /// Queues an error, thrown in place of a response.
    ///
    /// - Parameters:
    ///   - error: the error.
    ///   - urn: answer only a request for this URN; nil for any.
    ///   - delay: how long to wait before failing.
    public func enqueue(_ error: WebRecordError, for urn: String? = nil, delay: Duration = .zero) {
        state.withLock { $0.queue.append(Entry(urn: urn, outcome: .failure(error), delay: delay)) }
    }

    /// Every request received, in order.
    public var requests: [ServerRequest] { state.withLock { $0.requests } }

    /// How many queued outcomes have not been used.
    public var remainingCount: Int { state.withLock { $0.queue.count } }

    /// Answers with the first outcome queued for the request's URN (or for any URN).
    ///
    /// - Parameter request: the request.
    /// - Returns: the queued response.
    /// - Throws: the queued error; a `serverError` naming the URN when nothing is queued for
    ///   it; `cancelled` when cancelled during the delay.
    public func response(for request: ServerRequest) async throws -> ServerResponse {
        let entry = state.withLock { state -> Entry? in
            state.requests.append(request)
            guard let index = state.queue.firstIndex(where: { $0.urn == nil || $0.urn == request.urn }) else {
                return nil
            }
            return state.queue.remove(at: index)
        }
        guard let entry else {
            throw WebRecordError(
                .serverError,
                "CannedServer has no response left for URN '\(request.urn)' (entity \(request.entityName)); queue one with enqueue(_:for:)",
                entity: request.entityName)
        }
        if entry.delay > .zero {
            do {
                try await Task.sleep(for: entry.delay)
            } catch {
                throw WebRecordError(.cancelled, "the request was cancelled", entity: request.entityName)
            }
        }
        return try entry.outcome.get()
    }
}

/// A ``Server`` that answers each request by calling a closure.
///
/// For example:
///
/// ```swift
/// let server = CallbackServer { request in
///     ServerResponse(body: ["data": [["id": .string(request.urn)]]])
/// }
/// ```
public struct CallbackServer: Server {
    /// Answers one request.
    public let handler: @Sendable (ServerRequest) async throws -> ServerResponse

    /// Creates a server that answers with `handler`.
    ///
    /// - Parameter handler: answers one request.
    public init(_ handler: @escaping @Sendable (ServerRequest) async throws -> ServerResponse) {
        self.handler = handler
    }

    /// Calls the handler.
    ///
    /// - Parameter request: the request.
    /// - Returns: what the handler returns.
    /// - Throws: what the handler throws.
    public func response(for request: ServerRequest) async throws -> ServerResponse {
        try await handler(request)
    }
}
