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

        let (resultQueue, lines, consumerQueue): (String?, [String], String?) = await withCheckedContinuation {
            continuation in
            Post.startRequest(
                urn: AppNetFixture.urn, in: fixture.store, callbackQueue: queue,
                resultBlock: { posts in
                    let resultQueue = DispatchQueue.getSpecific(key: Self.queueKey)
                    DispatchQueue.main.async {
                        model.show(posts)
                        continuation.resume(
                            returning: (resultQueue, model.lines, DispatchQueue.getSpecific(key: Self.mainQueueKey)))
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
        #expect(await model.texts == fixture.textsInResponse)
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
                            returning: (authorNames(of: model.posts), DispatchQueue.getSpecific(key: Self.mainQueueKey))
                        )
                    }
                },
                failureBlock: { _ in continuation.resume(returning: ([], nil)) })
        }

        #expect(resultQueue == "main")
        #expect(names == fixture.authorsInResponse.compactMap { $0 })
        #expect(names.count == 20)
        #expect(await model.updates == 1)
    }

    @Test func recordsDeliveredOnAQueueAreUsedThereAndMovedToTheWaitingTask() async throws {
        let fixture = registered(try AppNetFixture())
        let results = DispatchQueue(label: "webrecord.tests.sendability.delivery")
        results.setSpecific(key: Self.queueKey, value: "delivery")

        let (posts, textsOnQueue, resultQueue): ([Post], [String?], String?) = await withCheckedContinuation {
            continuation in
            Post.startRequest(
                urn: AppNetFixture.urn, in: fixture.store, callbackQueue: results,
                resultBlock: { posts in
                    // The block owns the records: it reads them on its queue, then hands them on.
                    let texts = posts.map(\.text)
                    continuation.resume(returning: (posts, texts, DispatchQueue.getSpecific(key: Self.queueKey)))
                },
                failureBlock: { _ in continuation.resume(returning: ([], [], nil)) })
        }

        #expect(resultQueue == "delivery")
        #expect(textsOnQueue == fixture.textsInResponse)
        #expect(posts.count == 20)
        #expect(posts.map(\.text) == fixture.textsInResponse)
        #expect(posts.map { $0.user?.name } == fixture.authorsInResponse)
    }

    @Test @MainActor func aMainActorControllerShowsTheRecordsOfItsBlock() async throws {
        let fixture = registered(try AppNetFixture())
        let controller = TimelineController()

        await withCheckedContinuation { continuation in
            controller.load(from: fixture.store) { continuation.resume() }
        }

        #expect(controller.model.posts.map(\.text) == fixture.textsInResponse)
        #expect(controller.model.updates == 1)
        #expect(controller.failure == nil)
    }

    @Test func pagesAndBatchResultsAreHandedToTheirBlocks() async throws {
        let fixture = registered(try AppNetFixture())
        let model = TimelineModel()

        let pages: Int = await withCheckedContinuation { continuation in
            fixture.store.startPagedRequest(
                entity: "Post", urn: AppNetFixture.urn,
                pageBlock: { page in
                    MainActor.assumeIsolated { model.show(page.records.compactMap { $0 as? Post }) }
                    return true
                },
                completion: { result in continuation.resume(returning: (try? result.get()) ?? -1) })
        }
        let batchTexts: [String?] = await withCheckedContinuation { continuation in
            fixture.store.startBatch([BatchRequest(entity: "Post", urn: AppNetFixture.urn)]) { results in
                let records = results.compactMap { try? $0.get() }.flatMap(\.records)
                continuation.resume(returning: records.map { $0["text"] as String? })
            }
        }

        #expect(pages == 1)
        #expect(await model.texts == fixture.textsInResponse)
        #expect(batchTexts == fixture.textsInResponse)
    }
}

/// A main-actor controller in MMRecord's style: it starts a request and shows the records the
/// result block hands it. The default callback queue is the main queue, where the block runs
/// on the main actor.
@MainActor final class TimelineController {
    let model = TimelineModel()
    private(set) var failure: WebRecordError?

    /// Requests the posts and shows them; `done` runs once they are shown, or on failure.
    func load(from store: RecordStore, done: @escaping @MainActor @Sendable () -> Void) {
        Post.startRequest(
            urn: AppNetFixture.urn, in: store,
            resultBlock: { posts in
                MainActor.assumeIsolated {
                    self.model.show(posts)
                    done()
                }
            },
            failureBlock: { error in
                MainActor.assumeIsolated {
                    self.failure = error
                    done()
                }
            })
    }
}
