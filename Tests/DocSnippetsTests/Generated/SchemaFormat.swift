// Generated from Docs/SchemaFormat.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord

// Docs/SchemaFormat.md, block 1
extension DocSnippetContext {
    func schemaFormat1() throws {
        let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
        // Every name the block declares is used, as a reader would go on to use it.
        _ = schema
    }
}

// Docs/SchemaFormat.md, block 2
extension DocSnippetContext {
    func schemaFormat2() throws {
        let schema = try Schema(contentsOf: [
            URL(fileURLWithPath: "Schemas/Accounts.json"),
            URL(fileURLWithPath: "Schemas/Content.json"),
        ])
        // Every name the block declares is used, as a reader would go on to use it.
        _ = schema
    }
}
