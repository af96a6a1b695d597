import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// The walk-through of Docs/Servers.md, end to end: a Server subclass for an App.net-style API
/// in a few lines, typed records back, over real HTTP with the recorded App.net response.
@Suite(.measuresTime) struct WalkthroughTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "string" },
                "text": { "type": "string" },
                "date": { "type": "date", "key": "created_at" }
              },
              "relationships": { "user": { "destination": "User", "inverse": "posts" } }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "username": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "user" } }
            }
          }
        }
        """

    /// App.net pages backwards: the next page is the posts before `meta.min_id`.
    struct ADNPageManager: PageManager {
        let meta: JSONValue?
        let urn: String

        var nextPageURN: String? {
            guard meta?["more"] == .bool(true), let minID = meta?["min_id"]?.int64Value else { return nil }
            return "\(urn)?before_id=\(minID)"
        }
        var resultsPerPage: Int? { 20 }
    }

    final class ADNServer: HTTPServer, @unchecked Sendable {
        init(baseURL: URL, token: String) {
            super.init(baseURL: baseURL, headers: ["Authorization": "Bearer \(token)"])
        }

        override func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)? {
            ADNPageManager(meta: response.body["meta"], urn: request.urn)
        }
    }

    // Records add computed accessors only.
    class ADNRecord: Record {}

    final class Post: ADNRecord {
        var text: String? { self["text"] }
        var user: User? { related("user") }
    }

    final class User: ADNRecord {
        var username: String? { self["username"] }
    }

    @Test func aServerSubclassAndTypedRecordsInAFewLines() async throws {
        let fixture = try #require(
            Bundle.module.url(forResource: "appnet-posts", withExtension: "json", subdirectory: "Fixtures/mmrecord"))
        let body = try Data(contentsOf: fixture)
        let expected = try JSONReader().read(body)
        let loopback = try LoopbackHTTPServer()
        loopback.route(
            "/stream/0/posts/stream/global",
            LoopbackResponse(headers: ["Content-Type": "application/json; charset=utf-8"], body: Array(body)))
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("appnet.sqlite"), schema: Schema(json: Self.schemaJSON))

        store.register(recordClass: Post.self)
        store.register(recordClass: User.self)
        store.register(ADNServer(baseURL: loopback.baseURL, token: "t0ken"), for: ADNRecord.self)
        let result = try await Post.startRequestForResult(urn: "stream/0/posts/stream/global", in: store)
        let posts = result.records  // Posts, typed by the request's class

        let expectedIDs = (expected["data"]?.arrayValue ?? []).map { $0["id"]?.stringValue }
        #expect(posts.count == 20)
        #expect(posts.map { $0["id"] as String? } == expectedIDs)
        #expect(posts.first?.text == expected.value(atKeyPath: "data.0.text")?.stringValue)
        #expect(posts.first?.user?.username == expected.value(atKeyPath: "data.0.user.username")?.stringValue)
        #expect(loopback.requests.first?.header("Authorization") == "Bearer t0ken")
        #expect(result.pageManager?.nextPageURN == "stream/0/posts/stream/global?before_id=1644485")
        #expect(result.pageManager?.resultsPerPage == 20)
        let stored = try store.count("Post") + store.count("User")
        #expect(result.changes.inserted == stored)
        #expect(stored > 20, "posts and their users")
    }
}
