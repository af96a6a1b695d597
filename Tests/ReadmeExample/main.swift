// Generated from README.md (its first swift block) by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
import WebRecord

let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
let store = try RecordStore(path: "appnet.sqlite", schema: schema)   // or RecordStore(inMemory: schema)

// Typed record classes, MMRecord-style, generated from the schema (Docs/Records.md):
//     webrecord generate-swift Schemas/AppNet.json --output Generated
// writes Post (text, date, user...), User, Counts, Source, CoverImage and AppNetRecords.
AppNetRecords.register(on: store)

// One Server per API: an HTTPServer subclass for a web service (Docs/Servers.md); here,
// recorded App.net responses, one JSON file per URN.
let server = try JSONFileServer(root: URL(fileURLWithPath: "Examples/AppNet"))
store.register(server, for: Post.self)              // a registration covers subclasses too
Record.loggingLevel = .info                          // none (default) | info | debug | all

let posts = try await Post.startRequest(urn: "posts", in: store)   // Examples/AppNet/posts.json
print("\(posts.count) posts, the first by \(posts.first?.user?.name ?? "?")")

// Observe them: the initial results, then, after each commit that changes them, the new
// results with deletions, insertions, moves and modifications (Docs/Observation.md).
for try await results in Post.observe(in: store, orderBy: [.descending("date")]) {
    print("observing \(results.records.count) posts, the newest by \(results.records.first?.user?.name ?? "?")")
    break                                            // an app keeps iterating: one delivery per change
}
store.close()                                        // checkpoints the WAL into appnet.sqlite
