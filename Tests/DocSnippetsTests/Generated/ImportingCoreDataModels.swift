// Generated from Docs/ImportingCoreDataModels.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord
import WebRecordModelImport

// Docs/ImportingCoreDataModels.md, block 1
extension DocSnippetContext {
    func importingCoreDataModels1() throws {
        let json = try CoreDataModelImporter.schemaJSON(contentsOf: URL(fileURLWithPath: "AppNet.xcdatamodel"))
        // Every name the block declares is used, as a reader would go on to use it.
        _ = json
    }
}
