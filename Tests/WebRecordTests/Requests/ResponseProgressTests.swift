import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `RequestOptions.progress` and `PopulationOptions.progress`: records counted from inside one
/// population, bytes as a download arrives, the phases in order, the bounded rate.
@Suite(.measuresTime) struct ResponseProgressTests {
    let store: RecordStore
    let directory: TemporaryDirectory

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
    }

    /// Collects the calls a callback gets, each with whether the population had returned.
    final class Calls: Sendable {
        private let calls = Locked<[ResponseProgress]>([])

        var all: [ResponseProgress] { calls.withLock { $0 } }

        var callback: @Sendable (ResponseProgress) -> Void {
            { progress in self.calls.withLock { $0.append(progress) } }
        }

        func phase(_ phase: ResponseProgress.Phase) -> [ResponseProgress] { all.filter { $0.phase == phase } }
    }

    /// Whether the phases come in their order, never going back.
    func inOrder(_ calls: [ResponseProgress]) -> Bool {
        let order = ResponseProgress.Phase.allCases
        let positions = calls.compactMap { order.firstIndex(of: $0.phase) }
        return zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 }
    }

    // MARK: - One population

    @Test func recordsAreCountedWhileOneResponsePopulates() async throws {
        let count = 1_500
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        options.progressInterval = .zero

        let result = try await store.populate(
            RequestSupport.postsBody(Array(1...count), users: 50), entity: "Post", options: options)

        #expect(result.records.count == count)
        let populating = calls.phase(.populating)
        // Every 64 records from inside the population, not only once it has ended.
        #expect(populating.count >= count / 64 - 1, "\(calls.all.map(\.phase))")
        #expect(populating.contains { $0.recordsPopulated > 0 && $0.recordsPopulated < count })
        let counts = populating.map(\.recordsPopulated)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "\(counts)")
        #expect(populating.allSatisfy { $0.bytesRead == 0 })
        // (A call at the very start, before the records are found, knows no total yet.)
        #expect(populating.filter { $0.recordsPopulated > 0 }.allSatisfy { $0.totalRecords == count })
        #expect(calls.phase(.writing).first?.recordsPopulated == count)
        #expect(calls.all.last?.phase == .finished)
        #expect(calls.all.last?.recordsPopulated == count)
        #expect(calls.phase(.finished).count == 1)
        #expect(inOrder(calls.all))
        let elapsed = calls.all.map(\.elapsed)
        #expect(zip(elapsed, elapsed.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func theSynchronousPopulationReportsToo() throws {
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        options.progressInterval = .zero

        let result = try store.populate(RequestSupport.postsBody(Array(1...500)), entity: "Post", options: options)

        #expect(result.records.count == 500)
        #expect(calls.phase(.populating).contains { $0.recordsPopulated > 0 && $0.recordsPopulated < 500 })
        #expect(calls.all.last == calls.phase(.finished).first)
        #expect(calls.all.last?.recordsPopulated == 500)
    }

    @Test func aQuickPopulationGetsOnlyTheLastCall() async throws {
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        let started = ContinuousClock.now

        _ = try await store.populate(RequestSupport.postsBody([1, 2, 3]), entity: "Post", options: options)

        let took = ContinuousClock.now - started
        #expect(calls.all.last?.phase == .finished)
        #expect(calls.all.last?.recordsPopulated == 3)
        #expect(calls.all.dropLast().allSatisfy { $0.elapsed >= 0.1 }, "\(calls.all)")
        if took < .milliseconds(100) {
            #expect(calls.all.count == 1, "\(calls.all)")
        }
    }

    @Test func callsWithinAPhaseComeAtMostOnceAnInterval() async throws {
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        options.progressInterval = .milliseconds(20)

        _ = try await store.populate(
            RequestSupport.postsBody(Array(1...2_000), users: 50), entity: "Post", options: options)

        let all = calls.all
        #expect(all.last?.phase == .finished)
        // The quiet start: nothing before the first interval has passed.
        #expect(all.dropLast().allSatisfy { $0.elapsed >= 0.02 }, "\(all)")
        for (earlier, later) in zip(all, all.dropFirst()) where earlier.phase == later.phase {
            #expect(later.elapsed - earlier.elapsed >= 0.0199, "\(earlier) then \(later)")
        }
    }

    @Test func aFailedPopulationGetsNoLastCall() async throws {
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        options.progressInterval = .zero

        await #expect(throws: WebRecordError.self) {
            _ = try await store.populate(["data": [["text": "no key"]]], entity: "Post", options: options)
        }
        #expect(calls.phase(.finished).isEmpty)
    }

    // MARK: - Requests

    @Test func bytesAreReportedAsAnHTTPBodyArrives() async throws {
        let loopback = try LoopbackHTTPServer()
        // About 4 MB, which arrives over loopback in many reads.
        let body = RequestSupport.postsText(
            Array(1...1_000), users: 20, prefix: String(repeating: "long text ", count: 400))
        loopback.route("/posts", .json(body))
        let calls = Calls()
        var options = RequestOptions(server: HTTPServer(baseURL: loopback.baseURL))
        options.progress = calls.callback
        options.population.progressInterval = .zero

        let result = try await store.startRequest(entity: "Post", urn: "posts", options: options)

        #expect(result.records.count == 1_000)
        let total = body.utf8.count
        let downloading = calls.phase(.downloading)
        #expect(downloading.count >= 2, "\(downloading)")
        #expect(downloading.contains { $0.bytesRead > 0 && $0.bytesRead < total })
        let bytes = downloading.map(\.bytesRead)
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0 < $1 }, "\(bytes)")
        #expect(downloading.allSatisfy { $0.recordsPopulated == 0 })
        // (A call at the very start, before the first byte, knows no length yet.)
        #expect(downloading.filter { $0.bytesRead > 0 }.allSatisfy { $0.expectedBytes == total })
        #expect(calls.phase(.reading).map(\.bytesRead) == [total])
        #expect(calls.phase(.populating).contains { $0.recordsPopulated > 0 && $0.recordsPopulated < 1_000 })
        #expect(calls.all.last?.phase == .finished)
        #expect(calls.all.last?.recordsPopulated == 1_000)
        #expect(calls.all.last?.bytesRead == total)
        #expect(inOrder(calls.all))
    }

    @Test func aFileServerReportsTheFileItRead() async throws {
        let text = RequestSupport.postsText(Array(1...200))
        _ = try directory.write("posts.json", text)
        let calls = Calls()
        var options = RequestOptions(server: try JSONFileServer(root: directory.url))
        options.progress = calls.callback
        options.population.progressInterval = .zero

        _ = try await store.startRequest(entity: "Post", urn: "posts", options: options)

        #expect(calls.phase(.reading).map(\.bytesRead) == [text.utf8.count])
        #expect(calls.phase(.reading).first?.expectedBytes == text.utf8.count)
        #expect(calls.all.last?.phase == .finished)
        #expect(calls.all.last?.recordsPopulated == 200)
    }

    /// A file populated as a stream reports the bytes read toward the file's size, as
    /// `webrecord populate` shows them ("3.1 of 19.7 MB").
    @Test func aStreamedFileReportsItsSize() async throws {
        let text = RequestSupport.postsText(Array(1...200))
        let file = URL(fileURLWithPath: try directory.write("streamed.json", text))
        let calls = Calls()
        var options = PopulationOptions()
        options.progress = calls.callback
        options.progressInterval = .zero

        let result = try await store.populate(contentsOf: file, entity: "Post", options: options)

        #expect(result.changes.inserted > 0)
        let size = text.utf8.count
        #expect(calls.all.last?.phase == .finished)
        #expect(calls.all.last?.bytesRead == size)
        #expect(calls.all.last?.expectedBytes == size, "\(calls.all.map(\.expectedBytes))")
        #expect(calls.all.filter { $0.bytesRead > 0 }.allSatisfy { $0.expectedBytes == size })
    }

    @Test func theRequestsAndThePopulationsCallbacksHearTheSame() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", .json(RequestSupport.postsText(Array(1...300))))
        let request = Calls()
        let population = Calls()
        var options = RequestOptions(server: HTTPServer(baseURL: loopback.baseURL), progress: request.callback)
        options.population.progress = population.callback
        options.population.progressInterval = .zero

        _ = try await store.startRequest(entity: "Post", urn: "posts", options: options)

        #expect(request.all.count > 2)
        #expect(request.all == population.all)
    }

    @Test func aFailedRequestGetsNoLastCall() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", .status(500))
        let calls = Calls()
        var options = RequestOptions(server: HTTPServer(baseURL: loopback.baseURL, maxRetries: 0))
        options.progress = calls.callback
        options.population.progressInterval = .zero

        await #expect(throws: WebRecordError.self) {
            _ = try await store.startRequest(entity: "Post", urn: "posts", options: options)
        }
        #expect(!calls.all.isEmpty)
        #expect(calls.phase(.finished).isEmpty)
    }

    @Test func eachPageOfAPagedRequestReportsItsOwnResponse() async throws {
        let loopback = try LoopbackHTTPServer()
        func page(_ ids: [Int], next: String?) -> String {
            var body = RequestSupport.postsBody(ids).objectValue ?? JSONObject()
            body["meta"] = ["next": next.map { .string(loopback.url($0).absoluteString) } ?? .null]
            return JSONValue.object(body).serialized()
        }
        loopback.route("/p1", .json(page(Array(1...100), next: "/p2")))
        loopback.route("/p2", .json(page(Array(101...250), next: nil)))
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Post")
        let calls = Calls()
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.progress = calls.callback
        options.request.population.progressInterval = .zero

        var pages = 0
        for try await _ in store.pages(entity: "Post", urn: "p1", options: options) { pages += 1 }

        #expect(pages == 2)
        #expect(calls.phase(.finished).map(\.recordsPopulated) == [100, 150])
        #expect(calls.phase(.populating).contains { $0.totalRecords == 150 && $0.recordsPopulated < 150 })
    }
}
