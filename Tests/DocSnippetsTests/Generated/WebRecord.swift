// Generated from Sources/WebRecord/WebRecord.docc/WebRecord.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord

// Sources/WebRecord/WebRecord.docc/WebRecord.md, block 1
extension DocSnippetContext {
    func webRecord1() async throws {
        let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
        let store = try RecordStore(path: "appnet.sqlite", schema: schema)
        store.register(try JSONFileServer(root: URL(fileURLWithPath: "Examples/AppNet")), forEntity: "Post")
        let posts = try await store.startRequest(entity: "Post", urn: "posts").records
        // Every name the block declares is used, as a reader would go on to use it.
        _ = schema
        _ = store
        _ = posts
    }
}
