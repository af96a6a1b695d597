// peer-handwritten-swift: a peer of WebRecord's benchmark, the hand-written Swift importer.
//
//     peer-handwritten-swift RESPONSE.json STORE.sqlite
//
// Imports an App.net stream response (`{"data": [post, ...]}`) the way a Swift developer
// writes it without a framework, plain and not tuned: Foundation's `JSONSerialization` reads
// the whole file into dictionaries and arrays; SQLite, through its C API, gets one table per
// entity keyed by the entity's natural key and one prepared `INSERT … ON CONFLICT … DO UPDATE`
// per table; then every post, with its user, is upserted record by record in one transaction,
// in WAL mode. The tables, columns, keys and values are those of Scripts/reference_import.py:
//
//     User        id, name, avatarImagePath, coverImagePath   (key: id)
//     Counts      user, followers, following, posts, stars    (key: the user's id)
//     CoverImage  user, url, width, height                     (key: the user's id)
//     Post        id, date, text, thread_id, user              (key: id)
//     Source      post, clientID, link, name                   (key: the post's id)
//
// Dates stay the response's text. Running it again on the same response updates every row in
// place. It prints one line, `RESULT seconds=S records=N`: S is the time from reading the file
// to the commit, N the rows the five tables hold afterwards.

import Foundation
import WebRecordSQLite

let tables = """
    CREATE TABLE IF NOT EXISTS User (
        id TEXT PRIMARY KEY, name TEXT, avatarImagePath TEXT, coverImagePath TEXT);
    CREATE TABLE IF NOT EXISTS Counts (
        user TEXT PRIMARY KEY, followers INTEGER, following INTEGER, posts INTEGER, stars INTEGER);
    CREATE TABLE IF NOT EXISTS CoverImage (
        user TEXT PRIMARY KEY, url TEXT, width INTEGER, height INTEGER);
    CREATE TABLE IF NOT EXISTS Post (
        id TEXT PRIMARY KEY, date TEXT, text TEXT, thread_id TEXT, user TEXT);
    CREATE TABLE IF NOT EXISTS Source (
        post TEXT PRIMARY KEY, clientID TEXT, link TEXT, name TEXT);
    """

let upsertUser = """
    INSERT INTO User (id, name, avatarImagePath, coverImagePath) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, avatarImagePath = excluded.avatarImagePath,
        coverImagePath = excluded.coverImagePath
    """
let upsertCounts = """
    INSERT INTO Counts (user, followers, following, posts, stars) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (user) DO UPDATE SET followers = excluded.followers, following = excluded.following,
        posts = excluded.posts, stars = excluded.stars
    """
let upsertCoverImage = """
    INSERT INTO CoverImage (user, url, width, height) VALUES (?, ?, ?, ?)
    ON CONFLICT (user) DO UPDATE SET url = excluded.url, width = excluded.width, height = excluded.height
    """
let upsertPost = """
    INSERT INTO Post (id, date, text, thread_id, user) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET date = excluded.date, text = excluded.text,
        thread_id = excluded.thread_id, user = excluded.user
    """
let upsertSource = """
    INSERT INTO Source (post, clientID, link, name) VALUES (?, ?, ?, ?)
    ON CONFLICT (post) DO UPDATE SET clientID = excluded.clientID, link = excluded.link, name = excluded.name
    """

/// A failure, with its message.
struct ImportError: Error, CustomStringConvertible {
    let description: String
}

/// A SQLite connection, just enough for the import.
final class Database {
    private var handle: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open(path, &handle) == SQLITE_OK else {
            throw ImportError(description: "cannot open \(path)")
        }
    }

    deinit {
        sqlite3_close(handle)
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error()
        }
        return Statement(database: self, handle: statement)
    }

    func count(_ table: String) throws -> Int {
        let statement = try prepare("SELECT COUNT(*) FROM \(table)")
        guard sqlite3_step(statement.handle) == SQLITE_ROW else { throw error() }
        return Int(sqlite3_column_int64(statement.handle, 0))
    }

    func error() -> ImportError {
        ImportError(description: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A prepared statement, run again and again with new values.
final class Statement {
    let database: Database
    let handle: OpaquePointer

    init(database: Database, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds the values (text, integers, or NULL for anything else) and runs the statement.
    func run(_ values: [Any?]) throws {
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case let text as String:
                sqlite3_bind_text(handle, index, text, -1, webrecord_sqlite3_transient())
            case let number as NSNumber:
                sqlite3_bind_int64(handle, index, number.int64Value)
            default:
                sqlite3_bind_null(handle, index)
            }
        }
        guard sqlite3_step(handle) == SQLITE_DONE else { throw database.error() }
    }
}

func importResponse(at responsePath: String, into storePath: String) throws {
    let database = try Database(path: storePath)
    try database.execute("PRAGMA journal_mode = WAL")
    try database.execute(tables)
    let users = try database.prepare(upsertUser)
    let counts = try database.prepare(upsertCounts)
    let coverImages = try database.prepare(upsertCoverImage)
    let posts = try database.prepare(upsertPost)
    let sources = try database.prepare(upsertSource)

    let start = Date()
    let data = try Data(contentsOf: URL(fileURLWithPath: responsePath))
    guard let response = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let items = response["data"] as? [[String: Any]]
    else {
        throw ImportError(description: "\(responsePath) is not an object with a \"data\" array of posts")
    }
    try database.execute("BEGIN")
    for post in items {
        guard let postID = post["id"] as? String else { continue }
        let user = post["user"] as? [String: Any]
        let userID = user?["id"] as? String
        if let user, let userID {
            let avatar = user["avatar_image"] as? [String: Any] ?? [:]
            let cover = user["cover_image"] as? [String: Any] ?? [:]
            let userCounts = user["counts"] as? [String: Any] ?? [:]
            try users.run([userID, user["name"], avatar["url"], cover["url"]])
            if !userCounts.isEmpty {
                try counts.run([
                    userID, userCounts["followers"] ?? 0, userCounts["following"] ?? 0, userCounts["posts"] ?? 0,
                    userCounts["stars"] ?? 0,
                ])
            }
            if !cover.isEmpty {
                try coverImages.run([userID, cover["url"], cover["width"] ?? 0, cover["height"] ?? 0])
            }
        }
        try posts.run([postID, post["created_at"], post["text"], post["thread_id"], userID])
        if let source = post["source"] as? [String: Any], !source.isEmpty {
            try sources.run([postID, source["client_id"], source["link"], source["name"]])
        }
    }
    try database.execute("COMMIT")
    let seconds = Date().timeIntervalSince(start)

    var records = 0
    for table in ["User", "Counts", "CoverImage", "Post", "Source"] {
        records += try database.count(table)
    }
    print("RESULT seconds=\(String(format: "%.6f", seconds)) records=\(records)")
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: peer-handwritten-swift RESPONSE.json STORE.sqlite\n".utf8))
    exit(2)
}
do {
    try importResponse(at: arguments[1], into: arguments[2])
} catch {
    FileHandle.standardError.write(Data("peer-handwritten-swift: \(error)\n".utf8))
    exit(1)
}
