import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// JSONFileServer: URN to file mapping, refusing paths out of its root, latency.
@Suite struct JSONFileServerTests {
    let directory: TemporaryDirectory
    let root: URL

    init() throws {
        directory = try TemporaryDirectory()
        root = directory.url.appendingPathComponent("responses", isDirectory: true)
        try directory.write("responses/stream/0/posts/stream/global.json", #"{"data": [{"id": 1}]}"#)
        try directory.write("responses/venues.txt", #"{"name": "plain"}"#)
        try directory.write("responses/broken.json", "{\n  \"broken\": tru\n}")
        try directory.write("outside.json", #"{"secret": true}"#)
        try directory.write("responses/pages/2.json", #"{"page": 2}"#)
    }

    func request(_ urn: String) -> ServerRequest {
        ServerRequest(urn: urn, entityName: "Post")
    }

    @Test func aURNWithoutExtensionIsTheJSONFileBelowTheRoot() async throws {
        let server = try JSONFileServer(root: root)

        let response = try await server.response(for: request("stream/0/posts/stream/global"))

        #expect(response.body == ["data": [["id": 1]]])
        #expect(response.url?.lastPathComponent == "global.json")
        #expect(response.statusCode == nil)
    }

    @Test func aURNWithAnExtensionIsUsedAsIs() async throws {
        let response = try await JSONFileServer(root: root).response(for: request("venues.txt"))
        #expect(response.body == ["name": "plain"])
    }

    @Test func theQueryIsIgnored() async throws {
        let response = try await JSONFileServer(root: root).response(
            for: request("stream/0/posts/stream/global?count=20"))
        #expect(response.body.value(atKeyPath: "data.0.id") == .integer(1))
    }

    @Test(arguments: ["../outside", "..", "stream/../../outside", "./../outside.json"])
    func aPathWithDotDotIsRefused(urn: String) async throws {
        let error = await RequestSupport.error { _ = try await JSONFileServer(root: root).response(for: request(urn)) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("URN '\(urn)'") == true)
        #expect(error?.message.contains("..") == true)
    }

    @Test func anAbsolutePathIsRefused() async throws {
        let absolute = directory.path("outside.json")
        let error = await RequestSupport.error {
            _ = try await JSONFileServer(root: root).response(for: request(absolute))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("absolute") == true)
    }

    @Test func aSymbolicLinkOutOfTheRootIsRefused() async throws {
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("escape.json").path, withDestinationPath: directory.path("outside.json")
        )
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("up").path, withDestinationPath: directory.url.path)

        let server = try JSONFileServer(root: root)
        let viaFile = await RequestSupport.error { _ = try await server.response(for: request("escape")) }
        let viaDirectory = await RequestSupport.error { _ = try await server.response(for: request("up/outside")) }

        #expect(viaFile?.code == .invalidArgument)
        #expect(viaFile?.message.contains("outside the server's root") == true)
        #expect(viaDirectory?.code == .invalidArgument)
    }

    @Test func aSymbolicLinkInsideTheRootIsFollowed() async throws {
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("latest.json").path,
            withDestinationPath: root.appendingPathComponent("pages/2.json").path)

        let response = try await JSONFileServer(root: root).response(for: request("latest"))

        #expect(response.body == ["page": 2])
    }

    @Test func aRootReachedThroughASymbolicLinkStillWorks() async throws {
        let link = directory.url.appendingPathComponent("linked-root")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: root.path)

        let response = try await JSONFileServer(root: link).response(for: request("pages/2"))

        #expect(response.body == ["page": 2])
    }

    @Test func aMissingFileIsNotFoundAndNamesTheURN() async throws {
        let error = await RequestSupport.error {
            _ = try await JSONFileServer(root: root).response(for: request("nope/never"))
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("URN 'nope/never'") == true)
        #expect(error?.message.contains("never.json") == true)
    }

    @Test func aFileThatIsNotJSONGivesTheURNLineAndColumn() async throws {
        let error = await RequestSupport.error {
            _ = try await JSONFileServer(root: root).response(for: request("broken"))
        }
        #expect(error?.code == .invalidResponseFormat)
        #expect(error?.message.contains("URN 'broken'") == true)
        #expect(error?.line == 2)
        #expect(error?.location?.hasPrefix("line 2, column ") == true)
    }

    @Test func aRootThatIsNotADirectoryIsRefused() throws {
        #expect(throws: WebRecordError.self) { try JSONFileServer(root: directory.url.appendingPathComponent("none")) }
        #expect(throws: WebRecordError.self) {
            try JSONFileServer(root: directory.url.appendingPathComponent("outside.json"))
        }
    }

    @Test func aFileNameClosureMapsRequestsAndIsCheckedToo() async throws {
        let server = try JSONFileServer(root: root) { request in
            request.data?["page"]?.int64Value.map { "pages/\($0).json" }
        }

        let page = try await server.response(for: ServerRequest(urn: "posts", data: ["page": 2], entityName: "Post"))
        let escape = await RequestSupport.error {
            _ = try await JSONFileServer(root: root) { _ in "../outside.json" }.response(for: request("posts"))
        }

        #expect(page.body == ["page": 2])
        #expect(escape?.code == .invalidArgument)
    }

    /// Recorded pages name the next page's file by its URN: the link is not resolved against the
    /// page's file URL, which made it a `file:` URL below no root, and failed the second page.
    @Test func recordedPagesNameTheNextFileByItsURN() async throws {
        try directory.write("responses/feed/1.json", #"{"data": [{"id": 1}, {"id": 2}], "meta": {"next": "feed/2"}}"#)
        try directory.write("responses/feed/2.json", #"{"data": [{"id": 3}], "meta": {"next": null}}"#)
        let schema = try Schema(
            json: #"""
                {"entities": {"Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
                  "attributes": {"id": {"type": "integer"}}}}}
                """#)
        let store = try RecordStore(path: directory.path("pages.sqlite"), schema: schema)
        defer { store.close() }
        store.register(try JSONFileServer(root: root), forEntity: "Post")
        // A post no page holds: deleted once the last page is reached.
        _ = try await store.populate(["data": [["id": 9]]], entity: "Post")
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all

        var pages: [[Int64]] = []
        var urns: [String] = []
        var end: PagingEnd?
        for try await page in store.pages(entity: "Post", urn: "feed/1", options: options) {
            pages.append(page.records.compactMap { $0["id"] as Int64? })
            urns.append(page.result.request.urn)
            end = page.end
        }
        #expect(pages == [[1, 2], [3]])
        #expect(urns == ["feed/1", "feed/2"])
        #expect(end == .noNextPage)
        #expect(try store.fetch("Post", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int64? } == [1, 2, 3])
    }

    @Test func latencyDelaysTheResponse() async throws {
        let server = try JSONFileServer(root: root, latency: .milliseconds(300))
        let started = Date()

        _ = try await server.response(for: request("pages/2"))

        #expect(Date().timeIntervalSince(started) >= 0.29)
    }

    @Test func cancellingDuringTheLatencyIsCancelled() async throws {
        // Ten minutes: however late the cancellation comes, it comes during the latency.
        let server = try JSONFileServer(root: root, latency: .seconds(600))
        let started = Locked(false)
        let task = Task {
            started.value = true
            return try await server.response(for: request("pages/2"))
        }
        #expect(await RequestSupport.waitUntil { started.value })

        task.cancel()
        let error = await RequestSupport.error { _ = try await task.value }

        #expect(error?.code == .cancelled)
    }
}
