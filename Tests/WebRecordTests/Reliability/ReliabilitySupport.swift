import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Shared helpers of the reliability suites: the App.net schema, store dumps, the built
/// `webrecord` and generated App.net-shaped responses.
enum Reliability {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shipped App.net schema file.
    static var appNetSchemaURL: URL {
        packageRoot.appendingPathComponent("Schemas").appendingPathComponent("AppNet.json")
    }

    /// The shipped App.net schema.
    static func appNetSchema() throws -> Schema {
        try Schema(contentsOf: appNetSchemaURL)
    }

    /// The entities of the App.net schema.
    static let appNetEntities = ["Post", "User", "Counts", "Source", "CoverImage"]

    // MARK: - Store content

    /// Every row of every table (WebRecord's metadata included), as text, in a fixed order.
    static func dump(_ store: RecordStore) throws -> [String] {
        try store.read { connection in
            let tables = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            var lines: [String] = []
            for case .text(let table)? in tables.map(\.first) {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let columns = try connection.rows("PRAGMA table_info(\(quoted))").count
                let order = (1...max(1, columns)).map(String.init).joined(separator: ", ")
                for row in try connection.rows("SELECT * FROM \(quoted) ORDER BY \(order)") {
                    lines.append(table + ": " + row.map(\.description).joined(separator: " | "))
                }
            }
            return lines
        }
    }

    /// The result of `PRAGMA integrity_check` and `PRAGMA foreign_key_check`: `["ok"]` when sound.
    static func integrity(_ store: RecordStore) throws -> [String] {
        try store.read { connection in
            let integrity = try connection.rows("PRAGMA integrity_check").map {
                $0.map(\.description).joined(separator: " ")
            }
            let foreignKeys = try connection.rows("PRAGMA foreign_key_check").map {
                "foreign key: " + $0.map(\.description).joined(separator: " ")
            }
            return integrity.map { $0 == "'ok'" ? "ok" : $0 } + foreignKeys
        }
    }

    /// Every record of every App.net entity, as `webrecord export` prints them: the content
    /// independent of row ids.
    static func export(_ store: RecordStore) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for entity in appNetEntities {
            result[entity] = try store.exportJSON(entity: entity)
        }
        return result
    }

    // MARK: - Memory

    /// Whether this process runs under a sanitizer (`swift test --sanitize=thread` or
    /// `address`), which multiplies memory use and slows everything down: the built `webrecord`
    /// is then instrumented too.
    static var isSanitized: Bool { Sanitizer.isActive }
}

// MARK: - Child processes

extension ChildProcess {
    /// The built `webrecord`, found the way the command-line tests find it.
    static func webrecord() throws -> URL {
        try BuiltExecutables.executable("webrecord", besides: Bundle.module)
    }
}

// MARK: - Generated responses

/// App.net-shaped stream responses (`{"data": [post...], "meta": {...}}`), generated from a seed.
enum AppNetResponses {
    /// One post object, with its user (avatar, cover image, counts) and source.
    static func post(id: Int, userID: Int, text: String, version: Int = 0) -> JSONValue {
        post(id: id, userID: userID, text: text, version: version, formatter: ISO8601DateFormatter())
    }

    private static func post(id: Int, userID: Int, text: String, version: Int, formatter: ISO8601DateFormatter)
        -> JSONValue
    {
        let user: JSONValue = [
            "id": .string(String(userID)),
            "name": .string("user \(userID) v\(version)"),
            "username": .string("user\(userID)"),
            "avatar_image": ["url": .string("https://example.com/avatar/\(userID).png"), "width": 200, "height": 200],
            "cover_image": [
                "url": .string("https://example.com/cover/\(userID).png"), "width": .integer(Int64(960 + userID % 64)),
                "height": 362,
            ],
            "counts": [
                "followers": .integer(Int64(userID * 3 + version)), "following": .integer(Int64(userID % 97)),
                "posts": .integer(Int64(userID * 11)), "stars": .integer(Int64(version)),
            ],
        ]
        return [
            "id": .string(String(id)),
            "created_at": .string(
                formatter.string(from: Date(timeIntervalSince1970: TimeInterval(1_353_465_222 + id * 37)))),
            "text": .string(text),
            "thread_id": .string(String(id - id % 5)),
            "source": ["client_id": .string("client-\(id % 7)"), "link": "https://alpha.app.net", "name": "Alpha"],
            "user": user,
        ]
    }

    /// `count` posts numbered from `firstID`, with one user for every 20 posts, as a response.
    static func response(posts count: Int, firstID: Int = 1, seed: UInt64, version: Int = 0) -> JSONValue {
        var random = SeededRandom(seed: seed)
        let formatter = ISO8601DateFormatter()
        let users = max(1, count / 20)
        var data: [JSONValue] = []
        data.reserveCapacity(count)
        for index in 0..<count {
            let id = firstID + index
            let words = (0..<(3 + random.next(below: 12))).map { _ in vocabulary[random.next(below: vocabulary.count)] }
            data.append(
                post(
                    id: id, userID: 1 + random.next(below: users), text: words.joined(separator: " "), version: version,
                    formatter: formatter))
        }
        return ["data": .array(data), "meta": ["code": 200, "more": false]]
    }

    /// A response's bytes, as a server would send them.
    static func bytes(_ response: JSONValue) -> Data {
        Data(response.serialized().utf8)
    }

    private static let vocabulary = [
        "app", "net", "stream", "post", "reply", "star", "repost", "thread", "client", "alpha", "hello", "world",
        "swift", "record", "store", "sqlite", "json", "café", "日本", "😀", "\"quoted\"", "back\\slash",
    ]
}
