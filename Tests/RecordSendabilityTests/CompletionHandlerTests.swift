import Dispatch
import Foundation
import Testing
import WebRecord

/// The completion-handler forms: records delivered on a queue, then handed to the main queue
/// as code written in MMRecord's style does.
@Suite struct CompletionHandlerTests {
    static let queueKey = DispatchSpecificKey<String>()

    /// Tells the main queue apart: on Linux, blocks of the main queue need not run on the
    /// process's main thread.
    static let mainQueueKey: DispatchSpecificKey<String> = {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        return key
    }()

    func registered(_ fixture: AppNetFixture) -> AppNetFixture {
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        return fixture
    }

    @Test func recordsDeliveredOnAQueueAreHandedToTheMainQueue() async throws {
        let fixture = registered(try AppNetFixture())
        _ = Self.mainQueueKey
        let queue = DispatchQueue(label: "webrecord.tests.sendability.results")
        queue.setSpecific(key: Self.queueKey, value: "results")
        let model = TimelineModel()

        let (resultQueue, lines, consumerQueue): (String?, [String], String?) = await withCheckedContinuation { continuation in
            Post.startRequest(
                urn: AppNetFixture.urn, in: fixture.store, callbackQueue: queue,
                resultBlock: { posts in
                    let resultQueue = DispatchQueue.getSpecific(key: Self.queueKey)
                    DispatchQueue.main.async {
                        model.show(posts)
                        continuation.resume(returning: (resultQueue, model.lines, DispatchQueue.getSpecific(key: Self.mainQueueKey)))
                    }
                },
                failureBlock: { error in
                    continuation.resume(returning: ("failed: \(error)", [], nil))
                })
        }

        #expect(resultQueue == "results")
        #expect(consumerQueue == "main")
        #expect(lines.count == 20)
        #expect(lines.first?.hasPrefix("sensei: ") == true)
        #expect(await model.posts.map(\.text) == fixture.textsInResponse)
    }

    @Test func recordsDeliveredOnTheMainQueueReachTheMainActor() async throws {
        let fixture = registered(try AppNetFixture())
        _ = Self.mainQueueKey
        let model = TimelineModel()

        let (names, resultQueue): ([String], String?) = await withCheckedContinuation { continuation in
            Post.startRequest(
                urn: AppNetFixture.urn, in: fixture.store,
                resultBlock: { posts in
                    // The default callback queue is the main queue: the block runs on the main actor.
                    MainActor.assumeIsolated {
                        model.show(posts)
                        continuation.resume(
                            returning: (authorNames(of: model.posts), DispatchQueue.getSpecific(key: Self.mainQueueKey)))
                    }
                },
                failureBlock: { _ in continuation.resume(returning: ([], nil)) })
        }

        #expect(resultQueue == "main")
        #expect(names == fixture.authorsInResponse.compactMap { $0 })
        #expect(names.count == 20)
        #expect(await model.updates == 1)
    }

    @Test func recordsDeliveredOnAQueueAreHandedToAnotherQueue() async throws {
        let fixture = registered(try AppNetFixture())
        let results = DispatchQueue(label: "webrecord.tests.sendability.delivery")
        let consumer = DispatchQueue(label: "webrecord.tests.sendability.consumer")
        consumer.setSpecific(key: Self.queueKey, value: "consumer")

        let (texts, consumerQueue): ([String?], String?) = await withCheckedContinuation { continuation in
            Post.startRequest(
                urn: AppNetFixture.urn, in: fixture.store, callbackQueue: results,
                resultBlock: { posts in
                    consumer.async {
                        continuation.resume(returning: (posts.map(\.text), DispatchQueue.getSpecific(key: Self.queueKey)))
                    }
                },
                failureBlock: { _ in continuation.resume(returning: ([], nil)) })
        }

        #expect(texts == fixture.textsInResponse)
        #expect(texts.count == 20)
        #expect(consumerQueue == "consumer")
    }
}
