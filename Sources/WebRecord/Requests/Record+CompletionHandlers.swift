import Dispatch
import Foundation

extension RecordRequesting {
    /// Starts a request and calls back on a queue, for code written in MMRecord's style.
    ///
    /// A thin wrapper over ``startRequest(urn:data:in:options:)``: it runs the request in a
    /// `Task` and calls exactly one of the blocks on `callbackQueue`.
    ///
    /// The records are handed to `resultBlock` as a `sending` value: the block owns them, and
    /// may pass them on to the main actor, a task or a continuation. On the main queue (the
    /// default), the block runs on the main actor:
    ///
    /// ```swift
    /// Post.startRequest(urn: "stream/0/posts/stream/global", in: store, domain: "timeline",
    ///                   resultBlock: { posts in MainActor.assumeIsolated { self.show(posts) } },
    ///                   failureBlock: { failure in print(failure.debugger) })
    /// // later: store.cancelRequests(inDomain: "timeline")
    /// ```
    ///
    /// - Parameters:
    ///   - urn: the resource to fetch.
    ///   - data: the parameters.
    ///   - store: the store to populate.
    ///   - options: the request's options.
    ///   - domain: a cancellation domain; overrides ``RequestOptions/domain`` when not nil.
    ///   - callbackQueue: where the blocks are called; default the main queue.
    ///   - resultBlock: called with the records on success, which it owns.
    ///   - failureBlock: called with the failure (and its debugger); a cancelled request's
    ///     failure has code `cancelled`.
    /// - Returns: the task running the request; cancelling it cancels the request.
    @discardableResult
    public static func startRequest(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: RequestOptions = RequestOptions(),
        domain: String? = nil, callbackQueue: DispatchQueue = .main,
        resultBlock: @escaping @Sendable (sending [Self]) -> Void,
        failureBlock: (@Sendable (WebRecordError) -> Void)? = nil
    ) -> Task<Void, Never> {
        completionTask(
            options: options, domain: domain, callbackQueue: callbackQueue, resultBlock: resultBlock,
            failureBlock: failureBlock
        ) { options throws(WebRecordError) in
            try await startRequest(urn: urn, data: data, in: store, options: options)
        }
    }
}

extension RecordStore {
    /// Starts a request by entity name and calls back on a queue, for code written in
    /// MMRecord's style.
    ///
    /// A thin wrapper over ``startRequest(entity:urn:data:options:)``.
    ///
    /// - Parameters:
    ///   - entity: the entity the response's records are.
    ///   - urn: the resource to fetch.
    ///   - data: the parameters.
    ///   - options: the request's options.
    ///   - domain: a cancellation domain; overrides ``RequestOptions/domain`` when not nil.
    ///   - callbackQueue: where the blocks are called; default the main queue.
    ///   - resultBlock: called with the result on success, which it owns.
    ///   - failureBlock: called with the failure (and its debugger).
    /// - Returns: the task running the request; cancelling it cancels the request.
    @discardableResult
    public func startRequest(
        entity: String, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions(),
        domain: String? = nil, callbackQueue: DispatchQueue = .main,
        resultBlock: @escaping @Sendable (sending RequestResult<Record>) -> Void,
        failureBlock: (@Sendable (WebRecordError) -> Void)? = nil
    ) -> Task<Void, Never> {
        completionTask(
            options: options, domain: domain, callbackQueue: callbackQueue, resultBlock: resultBlock,
            failureBlock: failureBlock
        ) { options throws(WebRecordError) in
            try await self.startRequest(entity: entity, urn: urn, data: data, options: options)
        }
    }
}

/// Runs `request` in a task, with `domain` (when not nil) as the options' domain, and calls
/// exactly one of the blocks on `callbackQueue`: the completion-handler forms' shared body.
///
/// The value is handed to `resultBlock`: the task does not use it again.
private func completionTask<Value>(
    options: RequestOptions, domain: String?, callbackQueue: DispatchQueue,
    resultBlock: @escaping @Sendable (sending Value) -> Void, failureBlock: (@Sendable (WebRecordError) -> Void)?,
    _ request: @escaping @Sendable (RequestOptions) async throws(WebRecordError) -> sending Value
) -> Task<Void, Never> {
    var options = options
    if let domain { options.domain = domain }
    return Task { [options] in
        do throws(WebRecordError) {
            let value = HandOver(try await request(options))
            callbackQueue.async { resultBlock(value.value) }
        } catch {
            callbackQueue.async { failureBlock?(error) }
        }
    }
}
