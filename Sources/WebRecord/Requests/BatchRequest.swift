import Foundation

/// One request of a batch.
public struct BatchRequest: Sendable {
    /// The entity requested.
    public var entity: String
    /// The URN.
    public var urn: String
    /// The parameters.
    public var data: JSONValue?
    /// The request's options.
    public var options: RequestOptions

    /// Creates a batch member.
    public init(entity: String, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions()) {
        self.entity = entity
        self.urn = urn
        self.data = data
        self.options = options
    }
}

extension RecordStore {
    /// Runs several requests, at most `maximumConcurrentRequests` at a time, and returns once
    /// every one has delivered, success or failure: one result per request, in the order given.
    ///
    /// An empty batch returns at once. Each request is its own transaction; one failing does
    /// not stop the others. The results are `sending`: the caller may hand them to another
    /// isolation domain, such as the main actor.
    ///
    /// For example:
    ///
    /// ```swift
    /// let results = await store.startBatch([
    ///     BatchRequest(entity: "Post", urn: "posts/1"),
    ///     BatchRequest(entity: "User", urn: "users/2"),
    /// ])
    /// ```
    public func startBatch(
        _ requests: [BatchRequest], maximumConcurrentRequests: Int = 4
    ) async -> sending [Result<RequestResult, WebRecordError>] {
        guard !requests.isEmpty else { return [] }
        let limit = max(1, maximumConcurrentRequests)
        // Each child task hands its result, records included, to this task, which alone uses it.
        return await withTaskGroup(of: (Int, HandOver<Result<RequestResult, WebRecordError>>).self) { group in
            var results = [Result<RequestResult, WebRecordError>?](repeating: nil, count: requests.count)
            var next = 0
            func launch(_ index: Int) {
                let request = requests[index]
                group.addTask { (index, HandOver(await self.result(of: request))) }
            }
            while next < min(limit, requests.count) {
                launch(next)
                next += 1
            }
            for await (index, result) in group {
                results[index] = result.value
                if next < requests.count {
                    launch(next)
                    next += 1
                }
            }
            return results.enumerated().map { index, result in
                result
                    ?? .failure(
                        WebRecordError(
                            .cancelled(entity: requests[index].entity),
                            debugger: Debugger(initialEntity: requests[index].entity)))
            }
        }
    }

    private func result(of request: BatchRequest) async -> Result<RequestResult, WebRecordError> {
        do throws(WebRecordError) {
            return .success(
                try await startRequest(
                    entity: request.entity, urn: request.urn, data: request.data, options: request.options))
        } catch {
            return .failure(error)
        }
    }

    /// Runs a batch MMRecord-style: `completion` fires once, on `callbackQueue`, after every
    /// request has delivered. A thin wrapper over ``startBatch(_:maximumConcurrentRequests:)``.
    ///
    /// The results are handed to `completion` as a `sending` value: the block may pass them on
    /// to the main actor, a task or a continuation.
    ///
    /// - Returns: the task running the batch.
    @discardableResult
    public func startBatch(
        _ requests: [BatchRequest], maximumConcurrentRequests: Int = 4, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (sending [Result<RequestResult, WebRecordError>]) -> Void
    ) -> Task<Void, Never> {
        Task {
            // Handed to the queue: this task does not use the results again.
            let results = HandOver(await startBatch(requests, maximumConcurrentRequests: maximumConcurrentRequests))
            callbackQueue.async { completion(results.value) }
        }
    }
}
