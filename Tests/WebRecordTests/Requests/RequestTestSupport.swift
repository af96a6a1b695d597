import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Helpers shared by the server and request suites.
enum RequestSupport {
    /// A feed: posts (at `data`) with their users, photos in a three-level hierarchy.
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "integer" },
                "text": { "type": "string" }
              },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "string" },
                "name": { "type": "string" }
              },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user" }
              }
            },
            "Media": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" } },
              "subentities": { "key": "kind", "map": { "photo": "Photo", "panorama": "Panorama" } }
            },
            "Photo": {
              "parent": "Media",
              "attributes": { "width": { "type": "integer" } }
            },
            "Panorama": {
              "parent": "Photo",
              "attributes": { "angle": { "type": "integer" } }
            }
          }
        }
        """

    static func schema() throws -> Schema {
        try Schema(json: schemaJSON, fileName: "Feed.json")
    }

    /// A store in a fresh temporary directory, removed when the returned owner is released.
    static func makeStore() throws -> (RecordStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("feed.sqlite"), schema: schema())
        return (store, directory)
    }

    /// A `{"data": [...]}` body with one post per id, each by user `u<id % users>`.
    static func postsBody(_ ids: [Int], users: Int = 3, prefix: String = "post") -> JSONValue {
        .object([
            "data": .array(
                ids.map { id in
                    [
                        "id": .integer(Int64(id)),
                        "text": .string("\(prefix) \(id)"),
                        "user": ["id": .string("u\(id % users)"), "name": .string("User \(id % users)")],
                    ]
                })
        ])
    }

    /// The same body as JSON text.
    static func postsText(_ ids: [Int], users: Int = 3, prefix: String = "post") -> String {
        postsBody(ids, users: users, prefix: prefix).serialized()
    }

    /// Runs `body` and returns the WebRecordError it throws (unwrapping a WebRecordError).
    static func error(_ body: () async throws -> Void) async -> WebRecordError? {
        do {
            try await body()
            return nil
        } catch let error as WebRecordError {
            return error
        } catch {
            return WebRecordError(.invalidArgument, "unexpected error type: \(error)")
        }
    }

    /// Runs `body` and returns the WebRecordError it throws.
    static func failure(_ body: () async throws -> Void) async -> WebRecordError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? WebRecordError
        }
    }

    /// Waits until `condition` holds, checking every 10 ms, for at most `seconds`: by default
    /// ``MachineLoad/hangTimeout``, as a request's task can wait tens of seconds for one of the
    /// task pool's threads in a full test run on two cores. A condition that holds ends the
    /// wait at once.
    static func waitUntil(seconds: Double = MachineLoad.hangTimeout, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition()
    }
}

// MARK: - Record classes for the registration and request tests
//
// They add computed accessors over Record's immutable snapshot.

/// The base class of an API's records, as an app would write it.
class FeedRecord: Record {}

/// Posts, with typed accessors.
final class FeedPost: FeedRecord {
    override class var entityName: String { "Post" }
    var id: Int? { self["id"] }
    var text: String? { self["text"] }
    var user: FeedUser? { related("user") }
    override var recordDetailURN: String? { id.map { "posts/\($0)" } }
}

/// Users.
final class FeedUser: FeedRecord {
    override class var entityName: String { "User" }
    var name: String? { self["name"] }
}

/// Media, a class of its own outside the FeedRecord family.
class FeedMedia: Record {
    override class var entityName: String { "Media" }
}

/// Photos, a subclass of media.
final class FeedPhoto: FeedMedia {
    override class var entityName: String { "Photo" }
}

/// A server that says which one it is, for lookup tests.
struct NamedServer: Server {
    let name: String

    func response(for request: ServerRequest) async throws -> ServerResponse {
        ServerResponse(body: ["data": []])
    }
}

extension RecordStore {
    /// The name of the ``NamedServer`` a lookup finds, or nil.
    func namedServer(forEntity entity: String, recordClass: Record.Type? = nil) -> String? {
        (server(forEntity: entity, recordClass: recordClass) as? NamedServer)?.name
    }
}
