import Foundation

extension RecordStore {
    /// Registers a server for a Record class: requests made through the class, its
    /// subclasses, and the entities the class is registered for go to `server`.
    ///
    /// A registration on a base class covers its subclasses; a subclass registered on its own
    /// overrides it. The order in which registrations are looked up is given in
    /// ``server(forEntity:recordClass:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// store.register(recordClass: Post.self)                      // records of "Post" are Posts
    /// store.register(ADNServer(), for: ADNRecord.self) // Post, User... subclass ADNRecord
    /// let posts = try await Post.startRequest(urn: "posts/stream/global", in: store)
    /// ```
    ///
    /// - Parameters:
    ///   - server: the server.
    ///   - recordClass: the class.
    public func register(_ server: any Server, for recordClass: Record.Type) {
        servers.withLock { $0.register(server, for: recordClass) }
    }

    /// Registers a server for an entity and its sub-entities, by name.
    ///
    /// For example:
    ///
    /// ```swift
    /// store.register(try JSONFileServer(root: responses), forEntity: "Venue")
    /// let result = try await store.startRequest(entity: "Venue", urn: "venues/search")
    /// ```
    ///
    /// - Parameters:
    ///   - server: the server.
    ///   - entityName: the entity.
    public func register(_ server: any Server, forEntity entityName: String) {
        servers.withLock { $0.register(server, forEntity: entityName) }
    }

    /// The server a request on `entityName` goes to, or nil when none is registered.
    ///
    /// - Parameters:
    ///   - entityName: the entity.
    ///   - recordClass: the class the request is made through; by default the class registered
    ///     for the entity (or ``Record``).
    /// - Returns: the most specific registered server.
    public func server(forEntity entityName: String, recordClass: Record.Type? = nil) -> (any Server)? {
        let recordClass = recordClass ?? self.recordClass(for: entityName)
        return servers.withLock { $0.server(forEntity: entityName, recordClass: recordClass, schema: schema) }
    }

    /// Cancels every request in flight that was started with ``RequestOptions/domain`` equal to
    /// `domain`, in the store's ``Configuration/cancellation`` registry: by default the shared
    /// one, so the domain's requests on every store that keeps the default are cancelled too, as
    /// MMRecord's `cancelRequestsWithDomain:` cancelled them whatever their context. Each fails
    /// with `cancelled` and leaves its store untouched; requests in other domains go on.
    ///
    /// This is WebRecord's one way to cancel by domain. To cancel one request, cancel its task.
    ///
    /// For example:
    ///
    /// ```swift
    /// let task = Task { try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(domain: "timeline")) }
    /// store.cancelRequests(inDomain: "timeline")   // the task's request fails with `cancelled`
    /// ```
    ///
    /// - Parameter domain: the domain.
    public func cancelRequests(inDomain domain: String) {
        cancellation.cancel(domain: domain)
    }
}
