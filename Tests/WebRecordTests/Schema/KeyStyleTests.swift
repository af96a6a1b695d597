import Foundation
import Testing

@testable import WebRecord

/// A schema file's `keyStyle`: property names converted to the responses' key style, tried
/// where the bare name is tried, and lint for two names that convert to one key.
@Suite struct KeyStyleTests {
    static func schema(style: String?, _ entities: String, file: String = "Blog.json") throws -> Schema {
        let style = style.map { #""keyStyle": "\#($0)", "# } ?? ""
        return try Schema(json: #"{ "version": 1, \#(style)"entities": { \#(entities) } }"#, fileName: file)
    }

    static let post = #"""
        "Post": {
          "primaryKey": "postID",
          "attributes": {
            "postID": { "type": "string" },
            "createdAt": { "type": "date" },
            "avatarURL": { "type": "url" },
            "title": { "type": "string" },
            "editedAt": { "type": "date", "key": "timestamp" },
            "likeCount": { "type": "integer", "key": "like_count" }
          },
          "relationships": { "authorProfile": { "destination": "Author" } }
        },
        "Author": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }
        """#

    @Test(arguments: [
        ("createdAt", "created_at"), ("avatarURL", "avatar_url"), ("URLString", "url_string"),
        ("HTTPStatus", "http_status"), ("userID2", "user_id2"), ("imageURL2x", "image_url2x"), ("a1B", "a1_b"),
        ("id", "id"), ("title", "title"), ("created_at", "created_at"), ("already_Snake", "already_snake"),
    ])
    func namesConvertToSnakeCase(_ name: String, _ key: String) {
        #expect(KeyStyle.snakeCase.key(for: name) == key)
        #expect(KeyStyle.asIs.key(for: name) == name)
    }

    @Test func theConvertedNameIsTriedJustBeforeTheBareName() throws {
        let schema = try Self.schema(style: "snake_case", Self.post)
        let post = try #require(schema.entity(named: "Post"))
        #expect(post.attribute(named: "createdAt")?.keyPaths == ["created_at", "createdAt"])
        #expect(post.attribute(named: "avatarURL")?.keyPaths == ["avatar_url", "avatarURL"])
        #expect(post.attribute(named: "title")?.keyPaths == ["title"])
        // An explicit key still comes first, and a key that is the converted name is not repeated.
        #expect(post.attribute(named: "editedAt")?.keyPaths == ["timestamp", "edited_at", "editedAt"])
        #expect(post.attribute(named: "likeCount")?.keyPaths == ["like_count", "likeCount"])
        #expect(post.relationship(named: "authorProfile")?.keyPaths == ["author_profile", "authorProfile"])
    }

    @Test func withoutAStyleOrAsIsOnlyTheNameIsTried() throws {
        for style in [nil, "as-is"] {
            let post = try #require(try Self.schema(style: style, Self.post).entity(named: "Post"))
            #expect(post.attribute(named: "createdAt")?.keyPaths == ["createdAt"])
            #expect(post.attribute(named: "editedAt")?.keyPaths == ["timestamp", "editedAt"])
        }
    }

    @Test func theStyleAppliesToTheEntitiesOfItsOwnFile() throws {
        let styled =
            #"{ "keyStyle": "snake_case", "entities": { "Post": { "attributes": { "createdAt": { "type": "date" } } } } }"#
        let plain = #"{ "entities": { "Note": { "attributes": { "createdAt": { "type": "date" } } } } }"#
        let schema = try Schema(contentsOf: [
            try Self.write(styled, named: "Styled.json"), try Self.write(plain, named: "Plain.json"),
        ])
        #expect(schema.entity(named: "Post")?.attribute(named: "createdAt")?.keyPaths == ["created_at", "createdAt"])
        #expect(schema.entity(named: "Note")?.attribute(named: "createdAt")?.keyPaths == ["createdAt"])
    }

    @Test func aSnakeCaseResponsePopulatesCamelCaseProperties() throws {
        let store = try RecordStore(inMemory: try Self.schema(style: "snake_case", Self.post))
        let response: JSONValue = [
            [
                "post_id": "1", "created_at": "2012-11-21T02:33:42Z", "avatar_url": "https://example.com/a.png",
                "title": "First", "timestamp": "2012-11-22T00:00:00Z", "like_count": 3,
                "author_profile": ["name": "ann"],
            ],
            // A response in the names' own style is still read.
            ["postID": "2", "createdAt": "2013-01-01T00:00:00Z", "likeCount": 5],
        ]
        let result = try store.populate(response, entity: "Post")
        #expect(result.records.count == 2)
        let first = try #require(try store.fetchOne("Post", primaryKey: "1"))
        #expect(first.jsonValue("createdAt") == "2012-11-21T02:33:42.000000000Z")
        #expect(first.jsonValue("avatarURL") == "https://example.com/a.png")
        #expect(first.jsonValue("editedAt") == "2012-11-22T00:00:00.000000000Z")
        #expect(first.jsonValue("likeCount") == 3)
        #expect(first.related("authorProfile", as: Record.self)?.primaryKeyValue == "ann")
        let second = try #require(try store.fetchOne("Post", primaryKey: "2"))
        #expect(second.jsonValue("createdAt") == "2013-01-01T00:00:00.000000000Z")
        #expect(second.jsonValue("likeCount") == 5)
    }

    @Test func twoNamesThatConvertToOneKeyAreAProblem() throws {
        let entities = #"""
            "Post": { "attributes": {
              "avatarURL": { "type": "url" }, "avatarUrl": { "type": "url" },
              "createdAt": { "type": "date" }, "created_at": { "type": "date" }
            } }
            """#
        let error = try #require(throws: WebRecordError.self) { try Self.schema(style: "snake_case", entities) }
        #expect(
            error.problems.map(\.locatedMessage) == [
                "Blog.json: Post.avatarUrl: its snake_case key 'avatar_url' is also Post.avatarURL's; give one of them a 'key'",
                "Blog.json: Post.created_at: its snake_case key 'created_at' is also Post.createdAt's; give one of them a 'key'",
                // (These two also clash as columns, whatever the style.)
                "Blog.json: Post.avatarUrl: duplicate property name; also declared as attribute 'avatarURL' (names are case-insensitive in SQLite)",
            ])
        // Without the style, createdAt and created_at read two different keys.
        let apart = #""Post": { "attributes": { "createdAt": { "type": "date" }, "created_at": { "type": "date" } } }"#
        #expect(try Self.schema(style: nil, apart).entity(named: "Post")?.attributes.count == 2)
        #expect(throws: WebRecordError.self) { try Self.schema(style: "snake_case", apart) }
    }

    @Test(arguments: [(#""camel""#, "'camel'"), ("1", "a number"), (#""SNAKE_CASE""#, "'SNAKE_CASE'")])
    func anUnknownStyleIsAProblem(_ value: String, _ named: String) throws {
        let error = try #require(throws: WebRecordError.self) {
            try Schema(json: #"{ "keyStyle": \#(value), "entities": {} }"#, fileName: "Blog.json")
        }
        #expect(
            error.problems.map(\.locatedMessage) == ["Blog.json: 'keyStyle' must be as-is or snake_case, not \(named)"])
    }

    static func write(_ text: String, named name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "KeyStyleTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}
