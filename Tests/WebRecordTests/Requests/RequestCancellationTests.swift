import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Cancelling requests by Task and by domain: `cancelled`, and the store left untouched.
@Suite(.measuresTime) struct RequestCancellationTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        store.register(recordClass: FeedPost.self)
        loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), for: FeedRecord.self)
    }

    // The slow routes would answer after ten minutes: however late a cancellation comes, it
    // comes before the answer. Stopping the server makes it answer at once (see
    // `LoopbackHTTPServer.stop()`), after the cancellation, to show that a late answer
    // populates nothing.

    @Test func cancellingTheTaskMidFlightThrowsCancelledAndLeavesTheStoreUntouched() async throws {
        loopback.route("/slow", .json(RequestSupport.postsText([1, 2]), delay: 600))
        let task = Task { _ = try await FeedPost.startRequest(urn: "slow", in: store) }
        #expect(await RequestSupport.waitUntil { !loopback.requests(to: "/slow").isEmpty })

        task.cancel()
        let failure = await RequestSupport.failure { _ = try await task.value }

        #expect(failure?.code == .cancelled)
        #expect(failure?.debugger?.primaryError?.code == .cancelled)
        #expect(loopback.answered(to: "/slow").isEmpty, "cancelled before the server answered")
        // Once the server has answered, nothing was populated.
        loopback.stop()
        #expect(await RequestSupport.waitUntil { !loopback.answered(to: "/slow").isEmpty })
        #expect(try store.count("Post") == 0)
        #expect(try store.count("User") == 0)
    }

    @Test func cancellingADomainCancelsItsRequestsOnly() async throws {
        loopback.route("/slow", .json(RequestSupport.postsText([1, 2]), delay: 600))
        loopback.route("/other", .json(RequestSupport.postsText([3]), delay: 0.5))
        let (timeline, profile) = ("timeline-\(UUID().uuidString)", "profile-\(UUID().uuidString)")
        // The tasks hand back what the test reads: records are not Sendable.
        let cancelled = Task {
            _ = try await store.startRequest(entity: "Post", urn: "slow", options: RequestOptions(domain: timeline))
        }
        let unaffected = Task {
            try await store.startRequest(entity: "Post", urn: "other", options: RequestOptions(domain: profile))
                .records.map { $0["id"] as Int? }
        }
        #expect(await RequestSupport.waitUntil { loopback.requests.count == 2 })
        #expect(RequestCancellation.shared.count(domain: timeline) == 1)

        store.cancelRequests(inDomain: timeline)
        let failure = await RequestSupport.failure { _ = try await cancelled.value }
        let other = try await unaffected.value

        #expect(failure?.code == .cancelled)
        #expect(other == [3])
        #expect(loopback.answered(to: "/slow").isEmpty, "cancelled before the server answered")
        loopback.stop()
        #expect(await RequestSupport.waitUntil { !loopback.answered(to: "/slow").isEmpty })
        #expect(try store.fetch("Post").map { $0["id"] as Int? } == [3])
        #expect(RequestCancellation.shared.count(domain: timeline) == 0, "finished requests leave the registry")
        #expect(RequestCancellation.shared.count(domain: profile) == 0)
    }

    @Test func anotherStoreCancelsByDomainThroughTheSharedRegistry() async throws {
        // MMRecord's habit: a domain is cancelled whatever the store (context) and server of its
        // requests. Both stores keep the default registry, the shared one.
        let domain = "shared-\(UUID().uuidString)"
        // Ten minutes: however late the cancellation comes, it comes during the latency.
        let files = try JSONFileServer(root: directory.url, latency: .seconds(600))
        let other = try RecordStore(path: directory.path("other.sqlite"), schema: RequestSupport.schema())
        let task = Task {
            _ = try await store.startRequest(
                entity: "Post", urn: "posts", options: RequestOptions(server: files, domain: domain))
        }
        #expect(await RequestSupport.waitUntil { RequestCancellation.shared.count(domain: domain) == 1 })
        #expect(store.cancellation === RequestCancellation.shared && other.cancellation === RequestCancellation.shared)

        other.cancelRequests(inDomain: domain)
        let failure = await RequestSupport.failure { _ = try await task.value }

        #expect(failure?.code == .cancelled)
        #expect(try store.count("Post") == 0)
        #expect(RequestCancellation.shared.count(domain: domain) == 0)
    }

    @Test func aStoreWithARegistryOfItsOwnIsCancelledOnlyThroughIt() async throws {
        let domain = "own-\(UUID().uuidString)"
        var configuration = RecordStore.Configuration()
        configuration.cancellation = RequestCancellation()
        let own = try RecordStore(
            path: directory.path("own.sqlite"), schema: RequestSupport.schema(), configuration: configuration)
        // The server notes a cancellation of the request's task as it happens: cancelling a
        // task runs its cancellation handlers before `cancel()` returns, so no sleep is needed
        // to see that one did not happen. Its latency of ten minutes outlasts any cancellation.
        let files = try JSONFileServer(root: directory.url, latency: .seconds(600))
        let (waiting, cancelled) = (Locked(false), Locked(false))
        let watched = CallbackServer { request in
            try await withTaskCancellationHandler {
                waiting.value = true
                return try await files.response(for: request)
            } onCancel: {
                cancelled.value = true
            }
        }
        let task = Task {
            _ = try await own.startRequest(
                entity: "Post", urn: "posts", options: RequestOptions(server: watched, domain: domain))
        }
        #expect(await RequestSupport.waitUntil { waiting.value })
        #expect(configuration.cancellation.count(domain: domain) == 1)
        #expect(RequestCancellation.shared.count(domain: domain) == 0, "the request is not in the shared registry")

        // A store on the shared registry does not reach it.
        store.cancelRequests(inDomain: domain)
        #expect(!cancelled.value, "the request still runs")
        #expect(configuration.cancellation.count(domain: domain) == 1)

        own.cancelRequests(inDomain: domain)
        #expect(cancelled.value, "its own registry cancelled it at once")
        let failure = await RequestSupport.failure { _ = try await task.value }

        #expect(failure?.code == .cancelled)
        #expect(try own.count("Post") == 0)
        #expect(configuration.cancellation.count(domain: domain) == 0)
    }

    @Test func aCancellationNoticedAfterTheResponseArrivesStillPopulatesNothing() async throws {
        // The server ignores cancellation: it answers anyway, after the task was cancelled.
        let gate = Gate()
        let stubborn = CallbackServer { _ in
            await gate.wait()
            return ServerResponse(body: RequestSupport.postsBody([1, 2]))
        }
        let task = Task {
            _ = try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: stubborn))
        }
        #expect(await RequestSupport.waitUntil { gate.isWaiting })

        task.cancel()
        gate.open()
        let failure = await RequestSupport.failure { _ = try await task.value }

        #expect(failure?.code == .cancelled)
        #expect(failure?.debugger?.responseObject == RequestSupport.postsBody([1, 2]))
        #expect(try store.count("Post") == 0)
    }

    @Test func aTaskCancelledBeforeItStartsNeverReachesTheServer() async throws {
        let server = CannedServer()
        server.enqueue(RequestSupport.postsBody([1]))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: server))
        }

        let failure = await RequestSupport.failure { _ = try await task.value }

        #expect(failure?.code == .cancelled)
        #expect(server.requests.isEmpty)
    }

    @Test func theCompletionHandlerFormIsCancelledByItsDomain() async throws {
        loopback.route("/slow", .json(RequestSupport.postsText([1]), delay: 600))
        let domain = "blocks-\(UUID().uuidString)"
        let queue = DispatchQueue(label: "webrecord.tests.cancel")

        let failure: WebRecordError? = await withCheckedContinuation { continuation in
            FeedPost.startRequest(
                urn: "slow", in: store, domain: domain, callbackQueue: queue,
                resultBlock: { _ in continuation.resume(returning: nil) },
                failureBlock: { continuation.resume(returning: $0) })
            Task {
                _ = await RequestSupport.waitUntil { !loopback.requests(to: "/slow").isEmpty }
                store.cancelRequests(inDomain: domain)
            }
        }

        #expect(failure?.code == .cancelled)
        #expect(try store.count("Post") == 0)
    }
}

/// A one-shot gate a server waits on, with no cancellation: it opens only when told.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiting: Bool, waiters: [CheckedContinuation<Void, Never>])>(
        (false, false, []))

    var isWaiting: Bool { state.withLock { $0.waiting } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiting = true
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
