// The App.net example: a Server subclass for App.net's API, record classes with typed
// accessors, one request and then a paged one through the global stream. "App.net" is the
// recorded stream, served over HTTP on 127.0.0.1.
//
//     swift run appnet-example [--db PATH]

import Foundation
import WebRecord
import WebRecordTesting

let exampleDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let packageRoot = exampleDirectory.deletingLastPathComponent().deletingLastPathComponent()
let streamURN = "stream/0/posts/stream/global"

func run(storePath: String) async throws {
    // 1. A store for the App.net schema, with the record class generated for each entity.
    let schema = try Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/AppNet.json"))
    let store = try RecordStore(path: storePath, schema: schema)
    AppNetRecords.register(on: store)

    // 2. "App.net": the 20 recorded posts, 5 a page, over HTTP on 127.0.0.1. It will be asked
    //    for the first page alone, then for every page from the first.
    let stream = try RecordedStream(contentsOf: exampleDirectory.appendingPathComponent("posts.json"), pageSize: 5)
    let loopback = try LoopbackHTTPServer()
    let expectedCursors = [nil] + stream.cursors
    stream.serve(expectedCursors, on: loopback, at: "/" + streamURN)
    print("Serving \(stream.posts.count) recorded posts, \(stream.pageSize) a page, at \(loopback.url(streamURN))")

    // 3. The server, registered for the base class: it serves Post, User and Counts.
    store.register(ADNServer(baseURL: loopback.baseURL, token: "dummy-token"), for: ADNRecord.self)

    // 4. One request: the first page, as Post instances in response order.
    print("\nThe first page, with Post.startRequest:")
    let posts = try await Post.startRequest(urn: streamURN, in: store)
    for post in posts {
        print("  \(post.id)  \(post.user?.name ?? "?"): \(excerpt(post.text))")
    }

    // 5. The whole stream, a page at a time, following meta.min_id while meta.more is true.
    print("\nEvery page, with Post.pages:")
    var pageCount = 0
    var postCount = 0
    for try await page in Post.pages(urn: streamURN, in: store) {
        let ids = page.records.map(\.id)
        let changes = page.result.changes
        let next = page.pageManager?.nextPageData?["before_id"].map { "next: before_id=\($0)" } ?? "the last page"
        print(
            "  page \(page.index + 1): posts \(ids.first ?? "")…\(ids.last ?? ""); records \(changes.inserted) new, "
                + "\(changes.updated) updated, \(changes.unchanged) unchanged; \(next)")
        pageCount += 1
        postCount += page.records.count
    }
    print("\(pageCount) pages, \(postCount) posts")

    // 6. What the server was asked: the token on every request, before_id walking back.
    print("\nRequests the server answered:")
    let requests = loopback.requests(to: "/" + streamURN)
    for request in requests {
        print(
            "  GET \(request.path)\(request.query.map { "?" + $0 } ?? "")  [\(request.header("Authorization") ?? "no token")]"
        )
    }
    let askedCursors = requests.map(RecordedStream.cursor(of:))
    guard askedCursors == expectedCursors else {
        throw ExampleFailure("expected before_id \(expectedCursors), got \(askedCursors)")
    }

    // 7. The object graph, read back from the store: posts, their users and counts.
    print("\nThe store, newest first:")
    for post in try store.fetch(Post.self, orderBy: [.descending("date")]) {
        let user = post.user
        let followers = user?.counts?.followers.map { "\($0) followers" } ?? "no counts"
        print("  \(post.id)  \(user?.name ?? "?") (\(followers)): \(excerpt(post.text))")
    }
    let users = try store.fetch(User.self, orderBy: [.ascending("name")])
    let regulars = users.compactMap { user in
        let count = user.posts.count
        return count > 1 ? "\(user.name ?? "?") (\(count) posts)" : nil
    }
    print("More than one post: \(regulars.isEmpty ? "nobody" : regulars.joined(separator: ", "))")
    print("In the store: \(try store.count("Post")) posts, \(users.count) users, \(try store.count("Counts")) counts")
}

/// A post's text on one line, cut to fit.
func excerpt(_ text: String?, length: Int = 48) -> String {
    let line = (text ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    guard line.count > length else { return line }
    return line.prefix(length - 1).trimmingCharacters(in: .whitespaces) + "…"
}

/// A failure of the example itself.
struct ExampleFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Command line

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.isEmpty || (arguments.count == 2 && arguments[0] == "--db") else {
    FileHandle.standardError.write(Data("usage: appnet-example [--db PATH]\n".utf8))
    exit(2)
}
do {
    if let path = arguments.last {
        print("Store: \(path)")
        try await run(storePath: path)
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appnet-example-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("Store: a temporary file (--db PATH keeps one)")
        try await run(storePath: directory.appendingPathComponent("appnet.sqlite").path)
    }
} catch {
    FileHandle.standardError.write(Data("appnet-example: \(error)\n".utf8))
    exit(1)
}
