// Generated from Docs/Population.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord
import Logging

// Docs/Population.md, block 1
extension DocSnippetContext {
    func population1() throws {
        let response = try JSONReader().read(data)
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let result = try store.populate(response, entity: "Post", options: options)
        print(result.records.count, result.changes)            // top-level records, in response order
        for warning in result.debugger.warnings { print(warning) }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = response
        _ = options
        _ = result
    }
}

// Docs/Population.md, block 2
extension DocSnippetContext {
    func population2() async throws {
        var options = PopulationOptions()
        options.returnsRecords = false  // a bulk import: the counts are enough
        let result = try await store.populate(
            contentsOf: URL(fileURLWithPath: "posts.json"), entity: "Post", options: options)
        print(result.changes.inserted, result.changes.updated)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = options
        _ = result
    }
}

// Docs/Population.md, block 3
extension DocSnippetContext {
    func population3() throws {
        struct SwiftLogBridge: WebRecord.LogHandler {
            let logger: Logging.Logger
            func log(event: LogEvent) {
                let level = Logging.Logger.Level(rawValue: event.level.rawValue) ?? .critical
                logger.log(level: level, "\(event.description)")
            }
        }
        Record.logHandler = SwiftLogBridge(logger: Logging.Logger(label: "webrecord"))
        Record.loggingLevel = .debug
    }
}
