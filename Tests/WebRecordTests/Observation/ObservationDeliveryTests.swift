import Foundation
import Observation
import TestSupport
import Testing

@testable import WebRecord

/// The three ways to consume an observation (async sequence, callback token, `@Observable`
/// object), coalescing under a slow consumer, and changes made by another process.
@Suite struct ObservationDeliveryTests {
    let observed: ObservedStore
    var directory: TemporaryDirectory { observed.directory }
    var store: RecordStore { observed.store }

    init() throws {
        observed = try ObservedStore()
    }

    typealias S = ObservationSupport

    func populate(_ posts: [JSONValue]) async throws {
        try await observed.populate(posts)
    }

    /// Waits for `condition`, checking after each turn of the run loop, for at most `seconds`.
    ///
    /// ``MachineLoad/hangTimeout`` by default: an observation starts on a task, and in a full
    /// test run on two cores the task pool's threads can all be held by other tests' blocking
    /// work for tens of seconds. A condition that holds ends the wait at once.
    func eventually(seconds: Double = MachineLoad.hangTimeout, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// ``eventually(seconds:_:)`` on the main actor, for main-actor state.
    @MainActor
    func eventuallyOnMain(seconds: Double = MachineLoad.hangTimeout, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    // MARK: - Callback and token

    @Test func aTokenDeliversOnItsQueueUntilInvalidated() async throws {
        try await populate([S.post(1)])
        let queue = DispatchQueue(label: "observation-callbacks")
        let seen = Locked<[[Int64]]>([])
        let token = store.observe("Post", orderBy: [.ascending("id")]).start(on: queue) { results in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.withLock { $0.append(S.ids(results.records)) }
        }
        #expect(await eventually { seen.withLock { $0.count } == 1 })
        try await populate([S.post(2)])
        #expect(await eventually { seen.withLock { $0.count } == 2 })
        #expect(seen.withLock { $0 } == [[1], [1, 2]])

        token.invalidate()
        #expect(await eventually { !store.sqlite!.changes.hasSubscribers }, "the observation was released")
        try await populate([S.post(3)])
        #expect(seen.withLock { $0 } == [[1], [1, 2]])
    }

    @Test func releasingTheTokenStopsTheObservation() async throws {
        try await populate([S.post(1)])
        let seen = Locked(0)
        var token: ObservationToken? = store.observe("Post").start(on: DispatchQueue(label: "callbacks")) { _ in
            seen.withLock { $0 += 1 }
        }
        #expect(await eventually { seen.withLock { $0 } == 1 })
        weak let released = token
        token = nil
        #expect(released == nil)
        #expect(await eventually { !store.sqlite!.changes.hasSubscribers }, "the observation was released")
        try await populate([S.post(2)])
        #expect(seen.withLock { $0 } == 1)
    }

    @Test func aFailureReachesTheErrorBlockOnce() async throws {
        let failures = Locked<[WebRecordError.Code]>([])
        let token = store.observe("Nope").start(on: DispatchQueue(label: "callbacks")) { _ in
            Issue.record("nothing should be delivered")
        } onError: { error in
            failures.withLock { $0.append(error.code) }
        }
        #expect(await eventually { !failures.withLock { $0 }.isEmpty })
        #expect(failures.withLock { $0 } == [.invalidEntityDescription])
        token.invalidate()
    }

    // MARK: - @Observable

    @MainActor
    @Test func theObservableObjectChangesOncePerDelivery() async throws {
        try await populate([S.post(1)])
        weak var released: ObservedRecords<Record>?
        do {
            let observed = ObservedRecords(store.observe("Post", orderBy: [.ascending("id")]))
            released = observed
            #expect(await eventuallyOnMain { observed.deliveries == 1 })
            #expect(S.ids(observed.records) == [1])

            let fired = Locked(0)
            withObservationTracking {
                _ = observed.records
            } onChange: {
                fired.withLock { $0 += 1 }
            }
            try await populate([S.post(2), S.post(3)])
            #expect(await eventuallyOnMain { observed.deliveries == 2 })
            #expect(fired.withLock { $0 } == 1, "one change tracking per delivery")
            #expect(S.ids(observed.records) == [1, 2, 3])
            #expect(observed.changes?.insertions == [1, 2])
        }
        #expect(released == nil, "nothing else holds the object")
        #expect(await eventually { !store.sqlite!.changes.hasSubscribers }, "the observation was released")
    }

    // MARK: - Coalescing

    @Test func commitsDuringASlowConsumerAreCoalescedAndTheFinalStateArrives() async throws {
        var iterator = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.records.isEmpty)
        // The consumer is busy until all 100 commits are made: they come while it does not
        // read, by the order of events rather than by a sleep of its own, which a loaded
        // machine can make shorter than the writer's commits.
        for id in 1...100 { try await populate([S.post(id)]) }
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == Array(1...100))
        // One delivery, whose change set goes from the empty results to all 100.
        #expect(next.changes?.insertions == Array(0..<100), "\(String(describing: next.changes))")
    }

    // MARK: - Another process

    @Test func anotherProcessPopulatingTheFileReachesTheObservation() async throws {
        try await populate([S.post(1)])
        var iterator = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        let schema = try directory.write("schema.json", S.schemaJSON)
        let response = try directory.write("posts.json", JSONValue.array([S.post(2), S.post(3)]).serialized())
        let populate = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord", besides: Bundle.module),
            ["populate", "--schema", schema, "--db", directory.path("observed.sqlite"), "--entity", "Post", response])
        #expect(populate.status == 0, "\(populate)")
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == [1, 2, 3])
        #expect(next.changes?.insertions == [1, 2])
    }
}
