import Foundation

/// One request of a batch, for the records of `Element`.
///
/// Made from a record class (`BatchRequest(Post.self, urn: "posts/1")`), its result's records
/// are instances of that class; made by entity name, a `BatchRequest<Record>`.
public struct BatchRequest<Element: Record>: Sendable {
    /// The entity requested: the one the class is registered for on the store, else the name given.
    public var entity: String
    /// The URN.
    public var urn: String
    /// The parameters.
    public var data: JSONValue?
    /// The request's options.
    public var options: RequestOptions
    /// Whether the entity comes from the class (the store's registration for it, at the start).
    private let fromClass: Bool

    /// A request for the records of `recordClass`, whose entity is the one the class is
    /// registered for on the store, else its ``Record/entityName``.
    public init(
        _ recordClass: Element.Type, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions()
    ) {
        self.entity = recordClass.entityName
        self.urn = urn
        self.data = data
        self.options = options
        self.fromClass = true
    }

    /// The entity this request populates on `store`.
    func entityName(in store: RecordStore) -> String {
        fromClass ? Element.requestEntityName(in: store) : entity
    }

    /// The class registrations look servers up through: the request's class, or nil by entity name.
    var recordClass: Record.Type? { fromClass ? Element.self : nil }
}

extension BatchRequest where Element == Record {
    /// A request by entity name.
    public init(entity: String, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions()) {
        self.entity = entity
        self.urn = urn
        self.data = data
        self.options = options
        self.fromClass = false
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
    ///
    /// Requests made from record classes, passed one by one rather than in an array, give
    /// results typed by their classes.
    public func startBatch(
        _ requests: [BatchRequest<Record>], maximumConcurrentRequests: Int = 4
    ) async -> sending [Result<RequestResult<Record>, WebRecordError>] {
        await run(requests.map(\.untyped), maximumConcurrentRequests: maximumConcurrentRequests)
    }

    /// Runs requests made from record classes, as a batch in an array does, and returns one
    /// result per request, in the order given, each typed by its request's class.
    ///
    /// For example:
    ///
    /// ```swift
    /// let (posts, user) = await store.startBatch(
    ///     BatchRequest(Post.self, urn: "posts/1"), BatchRequest(User.self, urn: "users/2"))
    /// let text = try posts.get().records.first?.text    // a Post, no cast
    /// ```
    public func startBatch<each Element: Record>(
        _ requests: repeat BatchRequest<each Element>, maximumConcurrentRequests: Int = 4
    ) async -> sending (repeat Result<RequestResult<each Element>, WebRecordError>) {
        var untyped: [UntypedBatchRequest] = []
        for request in repeat each requests { untyped.append(request.untyped) }
        let results = await run(untyped, maximumConcurrentRequests: maximumConcurrentRequests)
        var index = 0
        func next<T: Record>(_ request: BatchRequest<T>) -> Result<RequestResult<T>, WebRecordError> {
            defer { index += 1 }
            return results[index].map { $0.typed(as: T.self) }
        }
        return (repeat next(each requests))
    }

    /// Runs a batch: at most `maximumConcurrentRequests` at a time, results in the order given.
    private func run(
        _ requests: [UntypedBatchRequest], maximumConcurrentRequests: Int
    ) async -> sending [Result<RequestResult<Record>, WebRecordError>] {
        guard !requests.isEmpty else { return [] }
        let limit = max(1, maximumConcurrentRequests)
        // Each child task hands its result, records included, to this task, which alone uses it.
        return await withTaskGroup(of: (Int, HandOver<Result<RequestResult<Record>, WebRecordError>>).self) { group in
            var results = [Result<RequestResult<Record>, WebRecordError>?](repeating: nil, count: requests.count)
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

    private func result(of request: UntypedBatchRequest) async -> Result<RequestResult<Record>, WebRecordError> {
        do throws(WebRecordError) {
            return .success(
                try await startRequest(
                    entity: request.entityName(self), urn: request.urn, data: request.data, options: request.options,
                    recordClass: request.recordClass))
        } catch {
            return .failure(error)
        }
    }

    /// Runs a batch MMRecord-style: `completion` fires once, on `callbackQueue`, after every
    /// request has delivered. A thin wrapper over the async `startBatch(_:maximumConcurrentRequests:)` of an array.
    ///
    /// The results are handed to `completion` as a `sending` value: the block may pass them on
    /// to the main actor, a task or a continuation.
    ///
    /// - Returns: the task running the batch.
    @discardableResult
    public func startBatch(
        _ requests: [BatchRequest<Record>], maximumConcurrentRequests: Int = 4, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (sending [Result<RequestResult<Record>, WebRecordError>]) -> Void
    ) -> Task<Void, Never> {
        Task {
            // Handed to the queue: this task does not use the results again.
            let results = HandOver(await startBatch(requests, maximumConcurrentRequests: maximumConcurrentRequests))
            callbackQueue.async { completion(results.value) }
        }
    }
}

/// A batch member with its class erased, as the batch runs it.
private struct UntypedBatchRequest: Sendable {
    /// The entity name given, or the class's: what a cancelled request that never started names.
    let entity: String
    let entityName: @Sendable (RecordStore) -> String
    let urn: String
    let data: JSONValue?
    let options: RequestOptions
    let recordClass: Record.Type?
}

extension BatchRequest {
    fileprivate var untyped: UntypedBatchRequest {
        let request = self
        return UntypedBatchRequest(
            entity: entity, entityName: { request.entityName(in: $0) }, urn: urn, data: data, options: options,
            recordClass: recordClass)
    }
}
