import Foundation
import Testing
import WebRecord
import WebRecordTesting

/// A small schema exercising every kind of key and relationship, for the decision tests.
let decisionSchemaJSON = """
    {
      "version": 1,
      "dateFormats": ["dd/MM/yyyy"],
      "entities": {
        "Post": {
          "primaryKey": "id",
          "keyPathForResponseObject": "data",
          "attributes": {
            "id": { "type": "integer" },
            "text": { "type": "string" },
            "title": { "type": "string", "optional": false },
            "date": { "type": "date", "key": ["created_at", "date"] },
            "score": { "type": "double" },
            "flag": { "type": "boolean" },
            "views": { "type": "integer", "default": 7 }
          },
          "relationships": {
            "user": { "destination": "User", "inverse": "posts" },
            "tags": { "destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts" },
            "comments": { "destination": "Comment", "toMany": true, "inverse": "post", "merge": "replace", "deleteRule": "cascade" },
            "attachment": { "destination": "Attachment", "inverse": "post" }
          }
        },
        "User": {
          "primaryKey": "id",
          "attributes": {
            "id": { "type": "string" },
            "name": { "type": "string" },
            "avatar": { "type": "url", "key": "avatar_image.url" }
          },
          "relationships": {
            "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
            "counts": { "destination": "Counts", "inverse": "user" }
          }
        },
        "Counts": {
          "primaryKey": "user",
          "attributes": { "followers": { "type": "integer" } },
          "relationships": { "user": { "destination": "User", "inverse": "counts" } }
        },
        "Tag": {
          "primaryKey": "name",
          "attributes": { "name": { "type": "string" } },
          "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } }
        },
        "Comment": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "body": { "type": "string" } },
          "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
        },
        "Attachment": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "url": { "type": "string" } },
          "relationships": { "post": { "destination": "Post", "inverse": "attachment" } }
        },
        "Event": {
          "primaryKey": ["source", "number"],
          "attributes": { "source": { "type": "string" }, "number": { "type": "integer" }, "label": { "type": "string" } }
        },
        "Shape": {
          "primaryKey": "id",
          "abstract": true,
          "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
          "attributes": { "id": { "type": "integer" } }
        },
        "Circle": { "parent": "Shape", "attributes": { "radius": { "type": "double" } } },
        "Square": { "parent": "Shape", "attributes": { "side": { "type": "double" } } }
      }
    }
    """

/// A fresh file store for the decision schema, recording its SQL.
func makeDecisionStore() throws -> RecordingStore {
    try RecordingStore(schema: Schema(json: decisionSchemaJSON, fileName: "Decisions.json"))
}

/// Parses JSON text in tests.
func json(_ text: String) throws -> JSONValue {
    try JSONReader().read(text)
}

/// Every row of every table, as text, for comparing a whole store's content.
func dumpContent(_ store: RecordStore) throws -> [String] {
    try store.read { connection in
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var lines: [String] = []
        for case .text(let table)? in tables.map(\.first) {
            for row in try connection.rows("SELECT * FROM \"\(table)\" ORDER BY 1, 2") {
                lines.append("\(table): " + row.map(\.description).joined(separator: " | "))
            }
        }
        return lines
    }
}

/// The path of a fixture file shipped with the tests.
func fixtureURL(_ path: String) throws -> URL {
    let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    return base.appendingPathComponent(path)
}

/// The package's root folder (for Schemas/ and Examples/).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `body` with a logging level installed and returns what it logged, one line per event.
///
/// It goes through `InMemoryLogHandler.capture`, which serializes every test that changes the
/// global logging settings.
func withLogging<T>(
    _ level: LogLevel?, _ body: @Sendable () throws -> sending T
) async throws -> sending (value: T, messages: [String]) {
    let (value, events) = try await InMemoryLogHandler.capture(level: level) { try body() }
    return (value, events.map(\.description))
}
