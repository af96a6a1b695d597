// The JSON:API example: a blog whose pages are compound documents (articles at `data`, the
// people and comments they refer to in `included`), populated one page per transaction by a
// paged request that follows JSON:API's link objects. The schema declares the routing; the
// record classes are generated from it.
//
//     swift run jsonapi-example [--db PATH]

import Foundation
import WebRecord
import WebRecordTesting

let exampleDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

func run(storePath: String) async throws {
    // 1. The store, with the classes `webrecord generate-swift Blog.json` wrote.
    let schema = try Schema(contentsOf: exampleDirectory.appendingPathComponent("Blog.json"))
    let store = try RecordStore(path: storePath, schema: schema)
    BlogRecords.register(on: store)

    // 2. The blog's two pages, over HTTP on 127.0.0.1. The first names the second with a link
    //    object ({"href": "/articles/page/2"}); the second's next link is null.
    let loopback = try LoopbackHTTPServer()
    for (path, file) in [("/articles", "articles-1.json"), ("/articles/page/2", "articles-2.json")] {
        let body = try Data(contentsOf: exampleDirectory.appendingPathComponent(file))
        loopback.route(path, LoopbackResponse(headers: ["Content-Type": "application/vnd.api+json"], body: Array(body)))
    }
    store.register(HTTPServer(baseURL: loopback.baseURL), for: Article.self)

    // 3. Every page: its articles, and the people and comments it includes, in one transaction.
    let options = PagingOptions(pagination: .nextURL(keyPath: "links.next"))
    print("Pages:")
    for try await page in Article.pages(urn: "articles", in: store, options: options) {
        let changes = page.result.changesByEntity
        print(
            "  page \(page.index + 1): \(page.records.map(\.id).joined(separator: ", ")); "
                + ["Article", "Person", "Comment"].map { "\($0) +\(changes[$0]?.inserted ?? 0)" }.joined(
                    separator: ", "))
    }

    // 4. The graph, read back: each article with its author and comments.
    print("\nArticles:")
    for article in try store.fetch(Article.self, orderBy: [.ascending("id")]) {
        let comments = article.comments.map { "\"\($0.body ?? "")\" by \($0.author?.name ?? "nobody")" }
        print(
            "  \(article.id) \(article.title ?? "?") — by \(article.author?.name ?? "no author") — "
                + (comments.isEmpty ? "no comments" : comments.joined(separator: "; ")))
    }
    for person in try store.fetch(Person.self, orderBy: [.ascending("id")]) {
        print("  \(person.name ?? "?") wrote \(person.articles.count) article(s)")
    }

    // 5. The same pages again: nothing changed, so nothing is written.
    var again = ChangeCountsTotal()
    for try await page in Article.pages(urn: "articles", in: store, options: options) {
        again.add(page.result.changes)
    }
    print("\nAgain: \(again.inserted) inserted, \(again.updated) updated, \(again.unchanged) unchanged")
}

/// Change counts summed over pages.
struct ChangeCountsTotal {
    var inserted = 0
    var updated = 0
    var unchanged = 0

    mutating func add(_ counts: ChangeCounts) {
        inserted += counts.inserted
        updated += counts.updated
        unchanged += counts.unchanged
    }
}

// MARK: - Command line

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.isEmpty || (arguments.count == 2 && arguments[0] == "--db") else {
    FileHandle.standardError.write(Data("usage: jsonapi-example [--db PATH]\n".utf8))
    exit(2)
}
do {
    if let path = arguments.last {
        try await run(storePath: path)
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-example-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await run(storePath: directory.appendingPathComponent("blog.sqlite").path)
    }
} catch {
    FileHandle.standardError.write(Data("jsonapi-example: \(error)\n".utf8))
    exit(1)
}
