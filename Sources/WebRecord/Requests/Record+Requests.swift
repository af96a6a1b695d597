import Foundation

/// The requests a ``Record`` class can start, returning instances of itself.
///
/// Every ``Record`` conforms. The methods live in a protocol extension only so that they can
/// return `[Self]` (`Post.startRequest` returns `[Post]`); there is nothing to implement.
public protocol RecordRequesting: Record {}

extension Record: RecordRequesting {}

extension RecordRequesting {
    /// Fetches a response for this class's entity and populates the store with it,
    /// MMRecord-style.
    ///
    /// The entity is the one the class is registered for on the store
    /// (`store.register(recordClass: Post.self)`), else the class's ``Record/entityName``.
    /// The server is looked up through the class chain (see ``RecordStore/register(_:for:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
    /// print(posts.first?.text ?? "")
    /// ```
    ///
    /// - Parameters:
    ///   - urn: the resource to fetch.
    ///   - data: the parameters: the query for `GET`, the JSON body otherwise.
    ///   - store: the store to populate.
    ///   - options: the request's options.
    /// - Returns: the top-level records, in response order, as instances of this class: a
    ///   `sending` value, which the caller may hand to another isolation domain. A caller on
    ///   the main actor keeps them there.
    /// - Throws: ``WebRecordError`` carrying the ``Debugger`` (see
    ///   ``RecordStore/startRequest(entity:urn:data:options:)``).
    public static func startRequest(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: RequestOptions = RequestOptions()
    ) async throws(WebRecordError) -> sending [Self] {
        try await startRequestForResult(urn: urn, data: data, in: store, options: options).records
    }

    /// Like ``startRequest(urn:data:in:options:)`` but returns the whole ``RequestResult``:
    /// debugger, change counts, custom response and page manager.
    ///
    /// - Parameters:
    ///   - urn: the resource to fetch.
    ///   - data: the parameters.
    ///   - store: the store to populate.
    ///   - options: the request's options.
    /// - Returns: the result, as a `sending` value; its records are instances of this class.
    /// - Throws: ``WebRecordError`` carrying the ``Debugger``.
    public static func startRequestForResult(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: RequestOptions = RequestOptions()
    ) async throws(WebRecordError) -> sending RequestResult<Self> {
        try await store.startRequest(
            entity: requestEntityName(in: store), urn: urn, data: data, options: options, recordClass: self
        ).typed(as: Self.self)
    }

    /// Delivers this class's records already in the store at once, then the request's result,
    /// both as instances of this class.
    ///
    /// See ``RecordStore/startRequestFetchingFirst(entity:urn:data:options:localFetch:)``.
    ///
    /// - Parameters:
    ///   - urn: the resource to fetch.
    ///   - data: the parameters.
    ///   - store: the store to populate.
    ///   - options: the request's options.
    ///   - localFetch: fetches the local records; by default every record of the entity.
    /// - Returns: a stream of ``RequestUpdate/local(_:)`` then ``RequestUpdate/remote(_:)``.
    public static func startRequestFetchingFirst(
        urn: String, data: JSONValue? = nil, in store: RecordStore, options: RequestOptions = RequestOptions(),
        localFetch: (@Sendable (RecordStore) throws -> [Record])? = nil
    ) -> AsyncThrowingStream<RequestUpdate<Self>, any Error> {
        store.startRequestFetchingFirst(
            entity: requestEntityName(in: store), urn: urn, data: data, options: options, recordClass: self,
            as: Self.self, localFetch: localFetch)
    }

    /// Requests this record alone from its ``Record/recordDetailURN`` and populates the
    /// response.
    ///
    /// The server is the one for the record's class and entity. The result's records are
    /// instances of this record's class.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class Venue: Record {
    ///     override var recordDetailURN: String? { (self["id"] as String?).map { "venues/\($0)" } }
    /// }
    /// let result = try await venue.startDetailRequest(in: store)
    /// ```
    ///
    /// The method runs in the caller's isolation (`isolation`, which the caller does not
    /// pass): a record kept on the main actor asks for its details there.
    ///
    /// - Parameters:
    ///   - store: the store the record was read from, which the response populates.
    ///   - options: the request's options.
    ///   - isolation: the caller's actor, by default.
    /// - Returns: the request's result.
    /// The record is read at the entity's `keyPathForDetailResponse` when the schema declares
    /// one (`""`: the response is the record itself), unless `options.population.keyPath` says
    /// otherwise; else where the entity's lists are (`keyPathForResponseObject`).
    ///
    /// - Throws: ``WebRecordError``: `invalidArgument` when the record has no detail URN;
    ///   `notFound` when the response does not hold this record (it holds none, or only others,
    ///   which are stored all the same); `invalidResponseFormat` when the key path is missing
    ///   from the response; else as for ``RecordStore/startRequest(entity:urn:data:options:)``.
    public func startDetailRequest(
        in store: RecordStore, options: RequestOptions = RequestOptions(),
        isolation: isolated (any Actor)? = #isolation
    ) async throws(WebRecordError) -> RequestResult<Self> {
        guard let urn = recordDetailURN else {
            throw WebRecordError(
                WebRecordError(
                    .invalidArgument, "\(type(of: self)) gives no recordDetailURN for \(self)", entity: entity.name),
                debugger: Debugger(initialEntity: entity.name))
        }
        var options = options
        if options.population.keyPath == nil, let detailKeyPath = entity.keyPathForDetailResponse {
            options.population.keyPath = detailKeyPath
        }
        let result = try await store.startRequest(
            entity: entity.name, urn: urn, data: nil, options: options, recordClass: type(of: self))
        // A detail response that does not hold this record (an empty result, another record)
        // never passes for one that refreshed it: the caller would keep stale values.
        guard result.records.contains(where: { $0.rowID == rowID }) else {
            let held = result.records.prefix(3).map { $0.primaryKeyValue.map(WebRecordError.excerpt(of:)) ?? "?" }
            let holds =
                held.isEmpty
                ? "no record" : "only \(result.records.count) other record(s) (\(held.joined(separator: ", ")))"
            throw WebRecordError(
                WebRecordError(
                    .notFound,
                    "the detail response of \(self) from '\(Redaction.urn(urn))' holds \(holds); "
                        + "the record was not refreshed (declare where a detail response holds it with the schema's "
                        + "keyPathForDetailResponse, or PopulationOptions.keyPath)",
                    entity: entity.name),
                debugger: result.debugger)
        }
        return result.typed(as: Self.self)
    }
}

extension Record {
    /// Refreshes this record from its ``recordDetailURN`` and returns its new snapshot.
    ///
    /// A record is an immutable snapshot; the returned one holds the values the detail
    /// response stored. Like ``startDetailRequest(in:options:isolation:)``, the method runs in
    /// the caller's isolation: a record kept on the main actor is refreshed there.
    ///
    /// For example:
    ///
    /// ```swift
    /// let fresh = try await venue.refresh(in: store)
    /// ```
    ///
    /// - Parameters:
    ///   - store: the store the record was read from, which the response populates.
    ///   - options: the request's options.
    ///   - isolation: the caller's actor, by default.
    /// - Returns: the record as stored after the request.
    /// - Throws: ``WebRecordError``: as for ``startDetailRequest(in:options:isolation:)`` (a
    ///   response that does not hold this record fails with `notFound`: the old snapshot is
    ///   never returned as if refreshed), or `notFound` when the record is no longer in the
    ///   store afterwards.
    public func refresh(
        in store: RecordStore, options: RequestOptions = RequestOptions(), isolation: isolated (any Actor)? = #isolation
    ) async throws(WebRecordError) -> Self {
        let result = try await startDetailRequest(in: store, options: options, isolation: isolation)
        let fetched: [Record]
        do {
            fetched = try store.fetch(entity.name, where: "\"_id\" = ?", arguments: [rowID], limit: 1)
        } catch {
            throw WebRecordError(error, debugger: result.debugger)
        }
        guard let record = fetched.first else {
            throw WebRecordError(
                WebRecordError(
                    .notFound, "\(self) is no longer in the store after its detail request", entity: entity.name),
                debugger: result.debugger)
        }
        return Self.typed(record)
    }

    // MARK: - Helpers

    /// The entity a request through this class populates.
    static func requestEntityName(in store: RecordStore) -> String {
        store.entityName(registeredFor: self) ?? entityName
    }

    /// `record` as an instance of this class: itself when it is one, else a copy of its row.
    static func typed(_ record: Record) -> Self {
        if let typed = record as? Self { return typed }
        return Self(row: record.storedRow)
    }
}
