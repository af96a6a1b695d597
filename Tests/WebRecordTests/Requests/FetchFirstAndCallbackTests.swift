import Dispatch
import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Fetch-first streams and the completion-handler wrappers.
@Suite(.measuresTime) struct FetchFirstAndCallbackTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let server = CannedServer()

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        store.register(recordClass: FeedPost.self)
        store.register(server, for: FeedRecord.self)
    }

    // MARK: - Fetch first

    @Test func localRecordsArriveFirstThenTheServersResult() async throws {
        server.enqueue(RequestSupport.postsBody([1]))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        // The server answers only once the local records have been delivered (or after 5 s).
        let localDelivered = Locked(false)
        let answeredAfterLocal = Locked(false)
        let waiting = CallbackServer { _ in
            let delivered = await RequestSupport.waitUntil { localDelivered.value }
            answeredAfterLocal.value = delivered
            return ServerResponse(body: RequestSupport.postsBody([2, 1], prefix: "fresh"))
        }

        var updates: [RequestUpdate] = []
        for try await update in store.startRequestFetchingFirst(
            entity: "Post", urn: "posts", options: RequestOptions(server: waiting))
        {
            if case .local = update { localDelivered.value = true }
            updates.append(update)
        }

        #expect(answeredAfterLocal.value)
        guard updates.count == 2, case .local(let local) = updates[0], case .remote(let remote) = updates[1] else {
            Issue.record("expected .local then .remote, got \(updates)")
            return
        }
        #expect(local.map { $0["text"] as String? } == ["post 1"])
        #expect(remote.records.map { $0["text"] as String? } == ["fresh 2", "fresh 1"])
        #expect(try store.count("Post") == 2)
    }

    @Test func aTypedFetchFirstUsesTheClassAndACustomLocalFetch() async throws {
        server.enqueue(RequestSupport.postsBody([1, 2, 3]))
        _ = try await FeedPost.startRequest(urn: "posts", in: store)
        server.enqueue(RequestSupport.postsBody([4]))

        var deliveries: [[Int?]] = []
        let stream = FeedPost.startRequestFetchingFirst(urn: "posts", in: store) { store in
            try store.fetch("Post", where: "id >= ?", arguments: [2], orderBy: [.descending("id")])
        }
        for try await update in stream {
            deliveries.append(update.records.map(\.id))  // FeedPosts, typed by the request's class
        }

        #expect(deliveries == [[3, 2], [4]])
    }

    @Test func fetchFirstWithNoServerFailsBeforeDeliveringAnything() async throws {
        let (bare, bareDirectory) = try RequestSupport.makeStore()
        var delivered = 0
        var failure: WebRecordError?

        do {
            for try await _ in bare.startRequestFetchingFirst(entity: "Post", urn: "posts") { delivered += 1 }
        } catch {
            failure = error as? WebRecordError
        }

        #expect(delivered == 0)
        #expect(failure?.code == .undefinedServer)
        _ = bareDirectory
    }

    @Test func aFailingRequestEndsTheStreamAfterTheLocalDelivery() async throws {
        server.enqueue(WebRecordError(.serverError, "HTTP 502"))
        var kinds: [String] = []
        var failure: WebRecordError?

        do {
            for try await update in store.startRequestFetchingFirst(entity: "Post", urn: "posts") {
                if case .local = update { kinds.append("local") } else { kinds.append("remote") }
            }
        } catch {
            failure = error as? WebRecordError
        }

        #expect(kinds == ["local"])
        #expect(failure?.code == .serverError)
    }

    // MARK: - Completion handlers

    static let queueKey = DispatchSpecificKey<String>()

    func labelledQueue(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.queueKey, value: label)
        return queue
    }

    @Test func theResultBlockIsCalledOnTheCallbackQueueWithTypedRecords() async throws {
        server.enqueue(RequestSupport.postsBody([5, 6]))
        let queue = labelledQueue("webrecord.tests.results")

        let (ids, label): ([Int?], String?) = await withCheckedContinuation { continuation in
            FeedPost.startRequest(
                urn: "posts", in: store, callbackQueue: queue,
                resultBlock: { posts in
                    continuation.resume(returning: (posts.map(\.id), DispatchQueue.getSpecific(key: Self.queueKey)))
                },
                failureBlock: { failure in continuation.resume(returning: ([], "failed: \(failure)")) })
        }

        #expect(ids == [5, 6])
        #expect(label == "webrecord.tests.results")
    }

    @Test func theFailureBlockIsCalledOnTheCallbackQueueWithTheDebugger() async throws {
        let (bare, bareDirectory) = try RequestSupport.makeStore()
        let queue = labelledQueue("webrecord.tests.failures")

        let (failure, label): (WebRecordError?, String?) = await withCheckedContinuation { continuation in
            FeedPost.startRequest(
                urn: "posts", in: bare, callbackQueue: queue,
                resultBlock: { _ in continuation.resume(returning: (nil, "succeeded")) },
                failureBlock: { failure in
                    continuation.resume(returning: (failure, DispatchQueue.getSpecific(key: Self.queueKey)))
                })
        }

        #expect(failure?.code == .undefinedServer)
        #expect(failure?.debugger?.initialEntity == "Post")
        #expect(label == "webrecord.tests.failures")
        _ = bareDirectory
    }

    @Test func theStoreFormDeliversTheWholeResultAndItsDomainReachesTheServer() async throws {
        server.enqueue(RequestSupport.postsBody([8]))
        let queue = labelledQueue("webrecord.tests.store")

        let (result, label): (RequestResult?, String?) = await withCheckedContinuation { continuation in
            store.startRequest(
                entity: "Post", urn: "posts", domain: "store-form", callbackQueue: queue,
                resultBlock: { result in
                    continuation.resume(returning: (result, DispatchQueue.getSpecific(key: Self.queueKey)))
                },
                failureBlock: { _ in continuation.resume(returning: (nil, nil)) })
        }

        #expect(result?.records.map { $0["id"] as Int? } == [8])
        #expect(result?.changesByEntity["Post"]?.inserted == 1)
        #expect(label == "webrecord.tests.store")
        #expect(server.requests.first?.domain == "store-form")
    }

    @Test func cancellingTheReturnedTaskCallsTheFailureBlockWithCancelled() async throws {
        // Ten minutes: however late the cancellation comes, it comes before the answer.
        server.enqueue(RequestSupport.postsBody([1]), delay: .seconds(600))
        let queue = labelledQueue("webrecord.tests.task")

        let failure: WebRecordError? = await withCheckedContinuation { continuation in
            let task = FeedPost.startRequest(
                urn: "posts", in: store, callbackQueue: queue,
                resultBlock: { _ in continuation.resume(returning: nil) },
                failureBlock: { continuation.resume(returning: $0) })
            Task {
                _ = await RequestSupport.waitUntil { !server.requests.isEmpty }
                task.cancel()
            }
        }

        #expect(failure?.code == .cancelled)
        #expect(try store.count("Post") == 0)
    }
}
