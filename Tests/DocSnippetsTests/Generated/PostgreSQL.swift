// Generated from Docs/PostgreSQL.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord
import WebRecordPostgreSQL

// Docs/PostgreSQL.md, block 1
extension DocSnippetContext {
    func postgreSQL1() async throws {
        func openMirror(schema: Schema) async throws {
            let store = try RecordStore(postgreSQL: "postgresql://ingest@db.internal/mirror", schema: schema)
            defer { store.close() }
            let result = try await store.populate(
                contentsOf: URL(fileURLWithPath: "posts.json"), entity: "Post")
            print(result.changes.inserted, try store.count("Post"))
        }
    }
}

// Docs/PostgreSQL.md, block 2
extension DocSnippetContext {
    func postgreSQL2() throws {
        func openWorker(schema: Schema) throws -> RecordStore {
            var settings = PostgreSQLConfiguration()
            settings.namespace = "mirror"                  // the schema that holds the tables
            settings.statementTimeout = .seconds(30)       // the server cancels a longer statement
            settings.applicationName = "ingest-worker"     // shown in pg_stat_activity
            settings.conflictRetries = 8                   // see "Many workers"
            return try RecordStore(postgreSQL: "postgresql:///warehouse", schema: schema, postgreSQL: settings)
        }
    }
}

// Docs/PostgreSQL.md, block 3
extension DocSnippetContext {
    func postgreSQL3() async throws {
        func populateThread(_ store: RecordStore, response: JSONValue, threadID: String) async throws {
            var options = PopulationOptions()
            options.deleteOrphans = .matching("thread_id = ?", [threadID])   // this worker's share only
            _ = try await store.populate(response, entity: "Post", options: options)
        }
    }
}
