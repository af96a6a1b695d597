import Foundation

extension RecordStore {
    /// Fetches a response from the entity's server and populates the store with it.
    ///
    /// The steps: find the server (``RequestOptions/server``, else the registered one); send
    /// the request; compute ``RequestOptions/customResponse``; populate the response in one
    /// transaction; ask the server for a page manager.
    ///
    /// For example:
    ///
    /// ```swift
    /// let result = try await store.startRequest(entity: "Post", urn: "stream/0/posts/stream/global")
    /// for post in result.records { print(post["text"] as String?) }
    /// ```
    ///
    /// A request for an entity with no server fails at once with `undefinedServer`. A request
    /// cancelled (by its task or its domain) fails with `cancelled` and leaves the store
    /// untouched: before its population, at once; during it, the population's SQL is
    /// interrupted and its transaction rolled back. A request that fails on a store file that nothing was ever committed to (one
    /// this store created when it opened) removes the file again, as a failed first write does.
    ///
    /// - Parameters:
    ///   - entity: the entity the response's records are.
    ///   - urn: the resource to fetch.
    ///   - data: the parameters: the query for `GET`, the JSON body otherwise.
    ///   - options: population, server, domain, headers, method and custom response.
    /// - Returns: the records in response order, the debugger, the change counts and more, as
    ///   a `sending` value: the caller may hand it to another isolation domain.
    /// - Throws: ``WebRecordError`` carrying the ``Debugger``: `undefinedServer`,
    ///   `invalidEntityDescription` (an unknown entity), `serverError`,
    ///   `invalidResponseFormat`, `cancelled`, or a population error.
    public func startRequest(
        entity: String, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions()
    ) async throws(WebRecordError) -> sending RequestResult<Record> {
        try await startRequest(entity: entity, urn: urn, data: data, options: options, recordClass: nil)
    }

    /// Delivers the entity's records already in the store at once, then starts the request and
    /// delivers its result: MMRecord's fetch-first, as a stream.
    ///
    /// The stream yields exactly ``RequestUpdate/local(_:)`` then ``RequestUpdate/remote(_:)``,
    /// and finishes; a failure of the request finishes it with the ``WebRecordError``.
    /// When the entity has no server, the stream fails with `undefinedServer` before
    /// delivering anything. Stopping the iteration cancels the request. Each update is handed
    /// to the iterating task, which may be the main actor.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await update in store.startRequestFetchingFirst(entity: "Post", urn: "posts") {
    ///     switch update {
    ///     case .local(let cached): show(cached)        // at once
    ///     case .remote(let result): show(result.records) // when the server has answered
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - entity: the entity the response's records are.
    ///   - urn: the resource to fetch.
    ///   - data: the parameters.
    ///   - options: the request's options.
    ///   - localFetch: fetches the local records; by default every record of the entity, in
    ///     insertion order.
    /// - Returns: a stream of the two deliveries.
    public func startRequestFetchingFirst(
        entity: String, urn: String, data: JSONValue? = nil, options: RequestOptions = RequestOptions(),
        localFetch: (@Sendable (RecordStore) throws -> [Record])? = nil
    ) -> AsyncThrowingStream<RequestUpdate<Record>, any Error> {
        startRequestFetchingFirst(
            entity: entity, urn: urn, data: data, options: options, recordClass: nil, as: Record.self,
            localFetch: localFetch)
    }

    // MARK: - Implementation

    /// The fetch-first stream, its records made instances of `Element`.
    func startRequestFetchingFirst<Element: Record>(
        entity: String, urn: String, data: JSONValue?, options: RequestOptions, recordClass: Record.Type?,
        as elementType: Element.Type, localFetch: (@Sendable (RecordStore) throws -> [Record])?
    ) -> AsyncThrowingStream<RequestUpdate<Element>, any Error> {
        let (stream, continuation) = AsyncThrowingStream<RequestUpdate<Element>, any Error>.makeStream()
        let task = Task { [self] in
            do throws(WebRecordError) {
                let prepared = try prepareRequest(
                    entity: entity, urn: urn, data: data, options: options, recordClass: recordClass)
                let local: [Record]
                do {
                    local = try localFetch?(self) ?? fetch(entity)
                } catch {
                    throw WebRecordError(
                        error as? WebRecordError
                            ?? WebRecordError(
                                .closureFailed, "the local fetch failed: \(error)", entity: entity, cause: error),
                        debugger: prepared.debugger)
                }
                continuation.yield(.local(local.map(Element.typed)))
                let result = try await run(prepared, options: options)
                continuation.yield(.remote(result.typed(as: Element.self)))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func startRequest(
        entity: String, urn: String, data: JSONValue?, options: RequestOptions, recordClass: Record.Type?
    ) async throws(WebRecordError) -> sending RequestResult<Record> {
        let prepared = try prepareRequest(
            entity: entity, urn: urn, data: data, options: options, recordClass: recordClass)
        let result = try await run(prepared, options: options)
        if result.pageManager == nil { logPagingHint(for: result.response, entity: entity) }
        return result
    }

    /// At debug level, when a response that no page manager pages looks paged (a `Link` next,
    /// a `next`, `next_url` or `cursor` member), a line that says how to follow it.
    func logPagingHint(for response: ServerResponse, entity: String) {
        guard database.logger.isEnabled(.debug), let (sign, pagination) = Pagination.suggestion(for: response) else {
            return
        }
        database.logger.log(
            .debug,
            "the response looks paged (\(sign)); a paged request (pages(...)) follows it with "
                + "PagingOptions(pagination: \(pagination))", entity: entity)
    }

    /// A request ready to send: its server, its ``ServerRequest`` and its debugger.
    struct PreparedRequest: Sendable {
        let server: any Server
        let request: ServerRequest
        let debugger: Debugger
    }

    /// Finds the server and builds the request; fails at once when either is impossible.
    func prepareRequest(
        entity: String, urn: String, data: JSONValue?, options: RequestOptions, recordClass: Record.Type?
    ) throws(WebRecordError) -> PreparedRequest {
        let debugger = Debugger(initialEntity: entity, logger: database.logger)
        guard schema.entity(named: entity) != nil else {
            throw WebRecordError(.unknownEntity(entity), debugger: debugger)
        }
        guard let server = options.server ?? self.server(forEntity: entity, recordClass: recordClass) else {
            throw WebRecordError(.undefinedServer(entity: entity), debugger: debugger)
        }
        let request = ServerRequest(
            urn: urn, data: data, method: options.method, headers: options.headers, domain: options.domain,
            timeout: options.timeout, entityName: entity)
        return PreparedRequest(server: server, request: request, debugger: debugger)
    }

    /// Runs a prepared request, registered under its domain.
    ///
    /// A request that fails writes nothing, so a store file it would have been the first to
    /// write goes, as it does when a first population fails.
    ///
    /// The result is made in the task the request runs in (its domain's, when it has one) and
    /// handed to the caller.
    func run(_ prepared: PreparedRequest, options: RequestOptions) async throws(WebRecordError)
        -> sending RequestResult<Record>
    {
        let failure: WebRecordError
        do {
            return try await cancellation.run(domain: options.domain) { [self] in
                HandOver(try await perform(prepared, options: options))
            }.value
        } catch let error as WebRecordError {
            failure = error
        } catch {
            failure = WebRecordError(.cancelled(entity: prepared.request.entityName), debugger: prepared.debugger)
        }
        await database.discardIfNeverWritten()
        throw failure
    }

    private func perform(
        _ prepared: PreparedRequest, options: RequestOptions
    ) async throws(WebRecordError) -> sending RequestResult<Record> {
        let (server, request, debugger) = (prepared.server, prepared.request, prepared.debugger)
        let entity = request.entityName
        database.logger.log(.debug, "request \(request.method) '\(Redaction.urn(request.urn))'", entity: entity)
        if Task.isCancelled { throw WebRecordError(.cancelled(entity: entity), debugger: debugger) }

        // The servers that can (HTTPServer, JSONFileServer) report their download and reading
        // to the request's reporter, which they find as a task-local value.
        let progress = ProgressReporter.make(
            interval: options.population.progressInterval, phase: .downloading,
            callbacks: [options.progress, options.population.progress])
        let response: ServerResponse
        do {
            response = try await ProgressReporter.$current.withValue(progress) {
                try await server.response(for: request)
            }
        } catch {
            throw Self.failure(for: error, request: request, debugger: debugger)
        }
        debugger.hideSecrets(response.secrets)
        debugger.setResponseObject(response.body)
        for warning in response.warnings { debugger.record(warning) }

        var customResponse: (any Sendable)?
        if let closure = options.customResponse {
            do {
                customResponse = try closure(response.body)
            } catch let error as WebRecordError {
                throw WebRecordError(error, debugger: debugger)
            } catch {
                throw WebRecordError(
                    WebRecordError(
                        .closureFailed, "the custom-response closure failed: \(error)", entity: entity, cause: error),
                    debugger: debugger)
            }
        }

        let pageManager = server.pageManager(for: response, of: request)
        var populationOptions = options.population
        if populationOptions.deleteOrphans != nil || populationOptions.orphanDeletion != nil,
            let sign = Self.nextPageSign(of: response, pageManager: pageManager)
        {
            // One page of a longer list: the records of the other pages are no orphans. The
            // response is still held to orphan deletion's rules (DESIGN §3.5).
            populationOptions.deleteOrphans = nil
            populationOptions.orphanDeletion = nil
            populationOptions.orphanDeletionFollows = true
            debugger.record(.unpagedOrphans(entity: entity, sign: sign))
        }

        // The last point where cancelling leaves the store untouched without a rollback.
        if Task.isCancelled { throw WebRecordError(.cancelled(entity: entity), debugger: debugger) }
        let population: PopulationResult
        do {
            population = try await database.populate(
                response.body, entity: entity, options: populationOptions, progress: progress, debugger: debugger)
        } catch {
            // The population rolled back; a cancellation noticed inside it is still a cancellation.
            if error.code == .cancelled || error.cause is CancellationError {
                let cancelled = WebRecordError.cancelled(entity: entity)
                if !debugger.contains(.cancelled) { debugger.record(cancelled) }
                throw WebRecordError(cancelled, debugger: debugger)
            }
            throw error
        }
        database.logger.log(
            .debug, "request '\(Redaction.urn(request.urn))' populated \(population.records.count) record(s)",
            entity: entity)
        return RequestResult(
            population: population, customResponse: customResponse, response: response, request: request,
            pageManager: pageManager)
    }

    /// What says that a response a single request fetched is not the last page of its list:
    /// the server's page manager naming a next page, else a `Link` next or a next-page or
    /// cursor member (``Pagination/suggestion(for:)``); nil when nothing does.
    static func nextPageSign(of response: ServerResponse, pageManager: (any PageManager)?) -> String? {
        if let pageManager, pageManager.canRequestNextPage, let next = pageManager.nextPageURN {
            return "the server's page manager names the page '\(Redaction.urn(next))'"
        }
        return Pagination.suggestion(for: response).map { "\($0.sign), which \($0.pagination) follows" }
    }

    /// The failure for an error a server threw.
    private static func failure(for error: any Error, request: ServerRequest, debugger: Debugger) -> WebRecordError {
        let entity = request.entityName
        if Task.isCancelled || error is CancellationError {
            return WebRecordError(.cancelled(entity: entity), debugger: debugger)
        }
        if var error = error as? WebRecordError {
            if error.debugger === debugger { return error }
            if error.entity == nil { error.entity = entity }
            return WebRecordError(error, debugger: debugger)
        }
        return WebRecordError(
            WebRecordError(
                .serverError,
                "the server failed for URN '\(Redaction.urn(request.urn))': \(Redaction.text("\(error)"))",
                entity: entity,
                cause: error),
            debugger: debugger)
    }
}
