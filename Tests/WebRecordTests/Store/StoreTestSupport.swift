import Foundation
import Testing

@testable import WebRecord

/// Schemas shared by the store tests, written inline in the schema-file format.
enum StoreSchemas {
    /// A small blog: every kind of relationship storage.
    ///
    /// - `Post.author` / `User.posts`: one-to-many, the key in `Post`.
    /// - `Post.comments` / `Comment.post`: ordered one-to-many, key and position in `Comment`.
    /// - `Post.tags` / `Tag.posts`: many-to-many, join table `_Post_tags`.
    /// - `User.profile` / `Profile.user`: one-to-one, `Profile`'s primary key is the relationship.
    /// - `Passport.holder` / `User.passport`: one-to-one, neither is a key; `Passport.holder` sorts first.
    static let blogJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "integer" },
                "title": { "type": "string", "indexed": true },
                "date": { "type": "date" },
                "rating": { "type": "double" }
              },
              "relationships": {
                "author": { "destination": "User", "inverse": "posts" },
                "comments": { "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post" },
                "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "string" },
                "name": { "type": "string" }
              },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "author" },
                "profile": { "destination": "Profile", "inverse": "user" },
                "passport": { "destination": "Passport", "inverse": "holder" }
              }
            },
            "Profile": {
              "primaryKey": "user",
              "attributes": { "bio": { "type": "string" } },
              "relationships": { "user": { "destination": "User", "inverse": "profile" } }
            },
            "Passport": {
              "primaryKey": "number",
              "attributes": { "number": { "type": "string" } },
              "relationships": { "holder": { "destination": "User", "inverse": "passport" } }
            },
            "Comment": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "integer" },
                "body": { "type": "string" }
              },
              "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
            },
            "Tag": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } }
            }
          }
        }
        """

    /// A Jira-style hierarchy: `Link` with sub-entities `InwardLink` and `OutwardLink`.
    static let linksJSON = """
        {
          "entities": {
            "Link": {
              "primaryKey": "id",
              "subentities": { "key": "kind", "map": { "inward": "InwardLink", "outward": "OutwardLink" } },
              "attributes": {
                "id": { "type": "integer" },
                "kind": { "type": "string" }
              }
            },
            "InwardLink": {
              "parent": "Link",
              "attributes": { "inwardIssue": { "type": "string" } }
            },
            "OutwardLink": {
              "parent": "Link",
              "attributes": { "outwardIssue": { "type": "string" } }
            }
          }
        }
        """

    /// One entity with an attribute of every type.
    static let samplesJSON = """
        {
          "entities": {
            "Sample": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "integer" },
                "name": { "type": "string" },
                "count": { "type": "integer" },
                "ratio": { "type": "double" },
                "price": { "type": "decimal" },
                "flag": { "type": "boolean" },
                "when": { "type": "date" },
                "payload": { "type": "data" },
                "token": { "type": "uuid" },
                "link": { "type": "url" },
                "extra": { "type": "json" }
              }
            }
          }
        }
        """

    static func blog() throws -> Schema { try Schema(json: blogJSON, fileName: "Blog.json") }
    static func links() throws -> Schema { try Schema(json: linksJSON, fileName: "Links.json") }
    static func samples() throws -> Schema { try Schema(json: samplesJSON, fileName: "Samples.json") }
}

// MARK: - Reading a store with SQL

extension RecordStore {
    /// The rows of a query run on the reader connection.
    func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        try read { try $0.rows(sql, arguments) }
    }

    /// The first column of the first row of a query.
    func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try read { try $0.scalar(sql, arguments) }
    }

    /// `PRAGMA table_info`: each column's name and declared type, in order.
    func columns(of table: String) throws -> [(name: String, type: String)] {
        try rows("PRAGMA table_info(\(quote(table)))").map { row in
            (name: row[1].text ?? "", type: row[2].text ?? "")
        }
    }

    /// The names of the tables (not SQLite's own), sorted.
    func tableNames() throws -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0.first?.text }
    }

    /// The names of the indexes on a table that WebRecord made (not SQLite's automatic ones), sorted.
    func indexNames(on table: String) throws -> [String] {
        try rows(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
            [.text(table)]
        ).compactMap { $0.first?.text }
    }

    /// The column names an index covers, in order.
    func indexedColumns(_ index: String) throws -> [String] {
        try rows("PRAGMA index_info(\(quote(index)))").compactMap { $0[2].text }
    }

    /// Every row of a table, in `_id` order (or the given order), for before/after comparisons.
    func dump(_ table: String, orderBy: String = "\"_id\"") throws -> [[DatabaseValue]] {
        try rows("SELECT * FROM \(quote(table)) ORDER BY \(orderBy)")
    }
}

extension DatabaseValue {
    /// The text, when the value is text.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The integer, when the value is an integer.
    var integer: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }
}

// MARK: - Writing rows directly

extension Connection {
    /// Inserts a row into a table from column/value pairs.
    func insert(_ table: String, _ values: KeyValuePairs<String, any DatabaseValueConvertible>) throws {
        _ = try insertRow(table, values)
    }

    /// Inserts a row into a table from column/value pairs, and returns its `_id`.
    func insertRow(_ table: String, _ values: KeyValuePairs<String, any DatabaseValueConvertible>) throws -> Int64 {
        let names = values.map { quote($0.key) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try execute("INSERT INTO \(quote(table)) (\(names)) VALUES (\(marks))", values.map(\.value.databaseValue))
        return lastInsertedRowID
    }
}

// MARK: - Files

/// A file's bytes and modification date, to show a failed open left it untouched.
struct FileSnapshot: Equatable {
    let bytes: Data
    let modified: Date?
    let size: Int?

    init(path: String) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        modified = attributes[.modificationDate] as? Date
        size = (attributes[.size] as? NSNumber)?.intValue
    }
}

/// The error a throwing expression threw, as a ``WebRecordError``, or nil when it threw none
/// or another type.
func webRecordError<T>(_ body: () throws -> T) -> WebRecordError? {
    do {
        _ = try body()
        return nil
    } catch let error as WebRecordError {
        return error
    } catch {
        return nil
    }
}

/// Expects `body` to throw a `closureFailed` ``WebRecordError`` whose cause is an `E`: what a
/// store's `read` or `write` throws when its closure throws an error of its own.
func expectClosureFailure<E: Error, R>(
    causedBy type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) {
    let error = #expect(throws: WebRecordError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == .closureFailed, sourceLocation: sourceLocation)
    #expect(error?.cause is E, "\(String(describing: error))", sourceLocation: sourceLocation)
}
