import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// startRequest: records, results, failures with their debugger, custom responses, details.
@Suite struct RequestTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let server = CannedServer()

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        store.register(recordClass: FeedPost.self)
        store.register(recordClass: FeedUser.self)
        store.register(server, for: FeedRecord.self)
    }

    @Test func aRecordClassRequestReturnsTypedRecordsInResponseOrder() async throws {
        server.enqueue(RequestSupport.postsBody([3, 1, 2]))

        let posts = try await FeedPost.startRequest(urn: "stream/0/posts/stream/global", in: store)

        #expect(posts.map(\.id) == [3, 1, 2])
        #expect(posts.map(\.text) == ["post 3", "post 1", "post 2"])
        #expect(posts.first?.user?.name == "User 0")
        #expect(try store.count("Post") == 3)
        #expect(server.requests.map(\.urn) == ["stream/0/posts/stream/global"])
        #expect(server.requests.first?.entityName == "Post")
    }

    @Test func aClassNotRegisteredOnTheStoreStillGetsInstancesOfItself() async throws {
        let (plain, plainDirectory) = try RequestSupport.makeStore()
        plain.register(server, forEntity: "Post")
        server.enqueue(RequestSupport.postsBody([7]))

        let posts = try await FeedPost.startRequest(urn: "posts", in: plain)

        #expect(posts.map(\.id) == [7])
        #expect(posts.first?.text == "post 7")
        _ = plainDirectory
    }

    @Test func aStoreRequestReturnsTheResultWithCountsAndDebugger() async throws {
        server.enqueue(RequestSupport.postsBody([1, 2], users: 1))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        server.enqueue(RequestSupport.postsBody([2, 3], users: 1, prefix: "edited"))

        let result = try await store.startRequest(entity: "Post", urn: "posts")

        #expect(result.records.map { $0["id"] as Int? } == [2, 3])
        #expect(result.records.first is FeedPost)
        #expect(result.changesByEntity["Post"]?.inserted == 1)
        #expect(result.changesByEntity["Post"]?.updated == 1)
        #expect(result.changes.inserted == 1)
        #expect(result.debugger.initialEntity == "Post")
        #expect(result.debugger.primaryError == nil)
        #expect(result.response.body == RequestSupport.postsBody([2, 3], users: 1, prefix: "edited"))
        #expect(result.request.urn == "posts")
        #expect(result.pageManager == nil)
    }

    /// A single request with orphan rules, whose response names a next page, fetched one page
    /// of a longer list: the records of the other pages are no orphans. It deletes none, and its
    /// debugger says why; the last page (its next link null) deletes them.
    @Test(arguments: ["body", "header"])
    func aSingleRequestForOnePageOfALongerListDeletesNoOrphans(sign: String) async throws {
        server.enqueue(RequestSupport.postsBody([1, 2, 3]))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        let records = RequestSupport.postsBody([1])["data"] ?? .null
        if sign == "body" {
            server.enqueue(JSONValue.object(["data": records, "meta": ["next": "posts?page=2"]]))
        } else {
            server.enqueue(
                ServerResponse(body: ["data": records], headers: ["Link": #"<posts?page=2>; rel="next""#]))
        }
        var options = RequestOptions()
        options.population.deleteOrphans = .all

        let result = try await store.startRequest(entity: "Post", urn: "posts", options: options)

        #expect(result.changes.deleted == 0)
        #expect(try store.count("Post") == 3)
        let warning = try #require(result.debugger.warnings.first { $0.message.contains("names a next page") })
        #expect(warning.code == .invalidResponseFormat)
        #expect(warning.message.contains(sign == "body" ? "'meta.next'" : #"Link: rel="next""#), "\(warning)")
        #expect(warning.message.contains("no orphans were deleted"), "\(warning)")

        // The last page says it is the last: its orphans go.
        server.enqueue(JSONValue.object(["data": records, "meta": ["next": .null]]))
        let last = try await store.startRequest(entity: "Post", urn: "posts", options: options)
        #expect(last.changesByEntity["Post"]?.deleted == 2)
        #expect(try store.count("Post") == 1)
    }

    @Test func anEmptyResultIsASuccessWithAWarning() async throws {
        server.enqueue(["data": []])

        let result = try await store.startRequest(entity: "Post", urn: "posts")

        #expect(result.records.isEmpty)
        #expect(result.debugger.contains(.emptyResultSet))
    }

    @Test func optionsAndDataReachTheServer() async throws {
        server.enqueue(RequestSupport.postsBody([1]))
        var options = RequestOptions(
            domain: "feed", headers: ["Authorization": "Bearer t"], method: "POST", timeout: 12)
        options.population.keyPath = "data"

        _ = try await store.startRequest(entity: "Post", urn: "posts", data: ["text": "hi"], options: options)

        let sent = try #require(server.requests.first)
        #expect(sent.data == ["text": "hi"])
        #expect(sent.method == "POST")
        #expect(sent.headers == ["Authorization": "Bearer t"])
        #expect(sent.domain == "feed")
        #expect(sent.timeout == 12)
        #expect(sent.page == nil)
    }

    @Test func anEntityWithNoServerFailsAtOnceWithTheDebugger() async throws {
        let (bare, bareDirectory) = try RequestSupport.makeStore()

        let failure = await RequestSupport.failure { _ = try await bare.startRequest(entity: "Post", urn: "posts") }
        let typed = await RequestSupport.failure { _ = try await FeedPost.startRequest(urn: "posts", in: bare) }

        #expect(failure?.code == .undefinedServer)
        #expect(failure?.debugger?.initialEntity == "Post")
        #expect(failure?.debugger?.primaryError?.code == .undefinedServer)
        #expect(failure?.message.contains("'Post'") == true)
        #expect(typed?.code == .undefinedServer)
        // At once: before a request is made, so nothing was answered and nothing retried. (No
        // elapsed time is compared: a loaded machine stretches any.)
        #expect(failure?.debugger?.responseObject == nil, "no network")
        #expect(failure?.debugger?.retries.isEmpty == true, "no waiting")
        #expect(failure?.debugger?.errors.map(\.code) == [.undefinedServer])
        _ = bareDirectory
    }

    @Test func anUnknownEntityIsAnInvalidEntityDescription() async throws {
        let failure = await RequestSupport.failure { _ = try await store.startRequest(entity: "Comment", urn: "x") }
        #expect(failure?.code == .invalidEntityDescription)
        #expect(server.requests.isEmpty)
    }

    @Test func aServerErrorFailsWithTheDebuggerAndLeavesTheStoreUntouched() async throws {
        server.enqueue(WebRecordError(.serverError, "HTTP 500 from the API"))

        let failure = await RequestSupport.failure { _ = try await store.startRequest(entity: "Post", urn: "posts") }

        #expect(failure?.code == .serverError)
        #expect(failure?.entity == "Post")
        #expect(failure?.debugger?.primaryError?.message == "HTTP 500 from the API")
        #expect(try store.count("Post") == 0)
    }

    @Test func aFailedRequestRemovesTheNewStoreFileNothingWasCommittedTo() async throws {
        let path = directory.path("new.sqlite")
        let fresh = try RecordStore(path: path, schema: RequestSupport.schema())
        fresh.register(server, forEntity: "Post")
        #expect(FileManager.default.fileExists(atPath: path), "opening made the file")
        server.enqueue(WebRecordError(.serverError, "HTTP 500 from the API"))

        let failure = await RequestSupport.failure { _ = try await fresh.startRequest(entity: "Post", urn: "posts") }

        #expect(failure?.code == .serverError)
        #expect(!FileManager.default.fileExists(atPath: path), "a failed first request leaves no file")
        // The store goes on: the next request makes the file again.
        server.enqueue(RequestSupport.postsBody([1]))
        _ = try await fresh.startRequest(entity: "Post", urn: "posts")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try fresh.count("Post") == 1)
    }

    @Test func aFailedRequestKeepsAStoreFileWithCommittedRecords() async throws {
        server.enqueue(RequestSupport.postsBody([1, 2]))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        server.enqueue(WebRecordError(.serverError, "HTTP 500 from the API"))

        let failure = await RequestSupport.failure { _ = try await store.startRequest(entity: "Post", urn: "posts") }

        #expect(failure?.code == .serverError)
        #expect(FileManager.default.fileExists(atPath: try #require(store.path)))
        #expect(try store.count("Post") == 2)
    }

    @Test func anErrorThatIsNotAWebRecordErrorIsAServerErrorWithItsCause() async throws {
        struct Oops: Error {}
        let failing = CallbackServer { _ in throw Oops() }

        let failure = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: failing))
        }

        #expect(failure?.code == .serverError)
        #expect(failure?.cause is Oops)
        #expect(failure?.message.contains("URN 'posts'") == true)
    }

    @Test func aPopulationFailureCarriesTheResponseAndLeavesTheStoreUntouched() async throws {
        server.enqueue(RequestSupport.postsBody([1]))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        server.enqueue(["data": "not records"])
        let tooDeep = RequestSupport.postsBody([1, 2, 3], prefix: "changed")
        server.enqueue(tooDeep)
        var shallow = RequestOptions()
        shallow.population.maximumRecordDepth = 1

        let wrongShape = await RequestSupport.failure { _ = try await store.startRequest(entity: "Post", urn: "a") }
        let nested = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Post", urn: "b", options: shallow)
        }

        #expect(wrongShape?.code == .invalidResponseFormat)
        #expect(wrongShape?.debugger?.responseObject == ["data": "not records"])
        #expect(nested?.code == .invalidResponseFormat)
        #expect(nested?.debugger?.responseObject == tooDeep)
        #expect(try store.fetch("Post").map { $0["text"] as String? } == ["post 1"])
    }

    @Test func theCustomResponseValueIsReturnedWithTheRecords() async throws {
        var body = RequestSupport.postsBody([1, 2])
        if case .object(var object) = body {
            object["meta"] = ["max_id": "99", "more": true]
            body = .object(object)
        }
        server.enqueue(body)
        let options = RequestOptions(customResponse: { response in
            response.value(atKeyPath: "meta.max_id")?.stringValue
        })

        let result = try await store.startRequest(entity: "Post", urn: "posts", options: options)

        #expect(result.customResponse as? String == "99")
        #expect(result.records.count == 2)
    }

    @Test func aCustomResponseClosureThatThrowsFailsBeforePopulating() async throws {
        struct NoCursor: Error {}
        server.enqueue(RequestSupport.postsBody([1, 2]))
        let options = RequestOptions(customResponse: { _ in throw NoCursor() })

        let failure = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Post", urn: "posts", options: options)
        }

        #expect(failure?.code == .closureFailed)
        #expect(failure?.cause is NoCursor)
        #expect(try store.count("Post") == 0)
    }

    @Test func aDetailRequestRefreshesOneRecordFromItsDetailURN() async throws {
        server.enqueue(RequestSupport.postsBody([4, 5]))
        let posts = try await FeedPost.startRequest(urn: "posts", in: store)
        let post = try #require(posts.first)
        server.enqueue(["data": ["id": 4, "text": "edited 4"]], for: "posts/4")

        let fresh = try await post.refresh(in: store)

        #expect(fresh.text == "edited 4")
        #expect(fresh.rowID == post.rowID)
        #expect(post.text == "post 4", "the old snapshot is unchanged")
        #expect(server.requests.last?.urn == "posts/4")
        #expect(try store.count("Post") == 2)
    }

    @Test func aDetailRequestReturnsTheResult() async throws {
        server.enqueue(RequestSupport.postsBody([4]))
        let post = try #require(try await FeedPost.startRequest(urn: "posts", in: store).first)
        server.enqueue(["data": ["id": 4, "text": "again"]], for: "posts/4")

        let result = try await post.startDetailRequest(in: store)

        #expect(result.records.count == 1)
        #expect(result.changesByEntity["Post"]?.updated == 1)
    }

    @Test func aRecordWithoutADetailURNCannotBeRefreshed() async throws {
        server.enqueue(RequestSupport.postsBody([1]))
        let post = try #require(try await FeedPost.startRequest(urn: "posts", in: store).first)
        let user = try #require(post.user)

        let failure = await RequestSupport.failure { _ = try await user.refresh(in: store) }

        #expect(failure?.code == .invalidArgument)
        #expect(failure?.message.contains("recordDetailURN") == true)
    }

    @Test func aCannedServerThatRunsOutFailsLoudlyNamingTheURN() async throws {
        let failure = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Post", urn: "one/too/many")
        }
        #expect(failure?.code == .serverError)
        #expect(failure?.message.contains("no response left for URN 'one/too/many'") == true)
    }

    @Test func requestsAreLoggedWithSecretQueryValuesRedacted() async throws {
        let marker = "m\(UUID().uuidString.prefix(8))"
        server.enqueue(RequestSupport.postsBody([1]))

        let (_, events) = try await InMemoryLogHandler.capture(level: .all) {
            try await store.startRequest(entity: "Post", urn: "posts?who=\(marker)&access_token=SECRET-VALUE")
        }

        let mine = events.filter { $0.message.contains(marker) }
        #expect(
            mine.contains {
                $0.level == .debug && $0.message == "request GET 'posts?who=\(marker)&access_token=<redacted>'"
            })
        #expect(mine.contains { $0.message.hasSuffix("populated 1 record(s)") })
        #expect(!events.contains { $0.description.contains("SECRET-VALUE") })
    }

    @Test func aJSONFileServerFeedsRequests() async throws {
        try directory.write("responses/stream/global.json", RequestSupport.postsText([10, 11]))
        let files = try JSONFileServer(root: directory.url.appendingPathComponent("responses"))
        store.register(files, for: FeedPost.self)

        let posts = try await FeedPost.startRequest(urn: "stream/global", in: store)

        #expect(posts.map(\.id) == [10, 11])
    }
}
