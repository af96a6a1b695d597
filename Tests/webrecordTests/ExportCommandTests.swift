import Foundation
import TestSupport
import Testing
import WebRecord

/// `webrecord export`
@Suite struct ExportCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    var db: String { directory.path("store.sqlite") }

    func export(_ entity: String, schema: String) async throws -> CLIResult {
        try await CLI.run(["export", "--schema", schema, "--db", db, "--entity", entity], in: directory.url)
    }

    // MARK: - The shop fixture: every value type, sub-entities, composite and decimal keys

    func populateShop() async throws -> String {
        let schema = try CLI.fixture("shop-schema.json").path
        let shelves = try await CLI.run(
            [
                "populate", "--schema", schema, "--db", db, "--entity", "Shelf", "--quiet",
                try CLI.fixture("shop-shelves.json").path,
            ])
        #expect(shelves.status == 0, "\(shelves)")
        let rates = try await CLI.run(
            [
                "populate", "--schema", schema, "--db", db, "--entity", "Rate", "--quiet",
                try CLI.fixture("shop-rates.json").path,
            ])
        #expect(rates.status == 0, "\(rates)")
        return schema
    }

    /// Shelves sort by integer code numerically (9, 10, 100, not 10, 100, 9); an unordered
    /// to-many is ascending by key, an ordered one keeps response order; a composite key is an
    /// array and sorts part by part; a decimal is its canonical text.
    static let shelves = """
        [
          {
            "code": 9,
            "label": "Nine",
            "width": "3",
            "items": [
              "c-3"
            ],
            "picks": [
              "c-3",
              "a-1"
            ],
            "bins": []
          },
          {
            "code": 10,
            "label": "Ten",
            "width": "12.5",
            "items": [
              "a-1",
              "b-2"
            ],
            "picks": [
              "b-2",
              "a-1"
            ],
            "bins": [
              [
                9,
                "z"
              ],
              [
                10,
                "a"
              ],
              [
                10,
                "b"
              ]
            ]
          },
          {
            "code": 100,
            "label": null,
            "width": null,
            "items": [],
            "picks": [],
            "bins": []
          }
        ]

        """

    /// An entity with sub-entities carries `_entity`; a sub-entity's own attributes follow the
    /// inherited ones; dates are ISO-8601 UTC, data base64, booleans true/false, json as JSON.
    static let items = """
        [
          {
            "_entity": "Item",
            "sku": "a-1",
            "price": "100",
            "added": null,
            "inStock": false,
            "thumb": null,
            "extra": null,
            "shelf": 10,
            "pickedFor": [
              9,
              10
            ]
          },
          {
            "_entity": "Book",
            "sku": "b-2",
            "price": "9.99",
            "added": "2024-01-02T03:04:05.000000000Z",
            "inStock": true,
            "thumb": "AAEC",
            "extra": {
              "a": [
                1,
                2
              ]
            },
            "isbn": "978-0",
            "shelf": 10,
            "pickedFor": [
              10
            ]
          },
          {
            "_entity": "Item",
            "sku": "c-3",
            "price": "10",
            "added": null,
            "inStock": null,
            "thumb": null,
            "extra": null,
            "shelf": 9,
            "pickedFor": [
              9
            ]
          }
        ]

        """

    /// A leaf sub-entity has no `_entity`.
    static let books = """
        [
          {
            "sku": "b-2",
            "price": "9.99",
            "added": "2024-01-02T03:04:05.000000000Z",
            "inStock": true,
            "thumb": "AAEC",
            "extra": {
              "a": [
                1,
                2
              ]
            },
            "isbn": "978-0",
            "shelf": 10,
            "pickedFor": [
              10
            ]
          }
        ]

        """

    static let bins = """
        [
          {
            "aisle": 9,
            "slot": "z",
            "shelf": 10
          },
          {
            "aisle": 10,
            "slot": "a",
            "shelf": 10
          },
          {
            "aisle": 10,
            "slot": "b",
            "shelf": 10
          }
        ]

        """

    /// Decimal keys sort numerically: 9.5, 10, 100.25.
    static let rates = """
        [
          {
            "value": "9.5",
            "note": "nine and a half"
          },
          {
            "value": "10",
            "note": "ten"
          },
          {
            "value": "100.25",
            "note": "a hundred"
          }
        ]

        """

    @Test(arguments: [
        ("Shelf", Self.shelves), ("Item", Self.items), ("Book", Self.books), ("Bin", Self.bins), ("Rate", Self.rates),
    ])
    func shopExportIsExact(entity: String, expected: String) async throws {
        let schema = try await populateShop()
        let result = try await export(entity, schema: schema)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(result.stdout == expected)
    }

    // MARK: - The App.net fixture

    func populateAppNet() async throws -> String {
        let schema = try CLI.fixture("appnet-schema.json").path
        let result = try await CLI.run(
            [
                "populate", "--schema", schema, "--db", db, "--entity", "Post", "--quiet",
                try CLI.fixture("appnet-posts.json").path,
            ])
        #expect(result.status == 0, "\(result)")
        return schema
    }

    @Test func postsAreSortedAndShaped() async throws {
        let fixture = try AppNetFixture()
        let schema = try await populateAppNet()
        let result = try await export("Post", schema: schema)
        #expect(result.status == 0, "\(result)")
        let posts = try #require(try JSONReader().read(result.stdoutData).arrayValue)
        #expect(posts.count == fixture.posts.count)

        // Text keys sort by their bytes.
        let ids = posts.compactMap { $0["id"]?.stringValue }
        #expect(ids.count == posts.count)
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

        let parser = ISO8601DateFormatter()
        let output = ISO8601DateFormatter()
        output.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        output.timeZone = TimeZone(identifier: "UTC")
        for source in fixture.posts {
            let id = try #require(source["id"] as? String)
            let post = try #require(posts.first { $0["id"]?.stringValue == id }?.objectValue)
            #expect(post.keys == ["id", "date", "text", "threadID", "numStars", "machineOnly", "user", "source"])
            #expect(post["text"]?.stringValue == source["text"] as? String)
            #expect(post["threadID"]?.stringValue == source["thread_id"] as? String)
            #expect(post["numStars"]?.int64Value == (source["num_stars"] as? NSNumber)?.int64Value)
            #expect(post["machineOnly"] == .bool(false))
            let createdAt = try #require(source["created_at"] as? String)
            let date = try #require(parser.date(from: createdAt))
            #expect(post["date"]?.stringValue == output.string(from: date).dropLast() + "000000Z")
            // A to-one is the destination's key: User's integer id, Source's key is its post.
            let user = try #require(source["user"] as? [String: Any])
            let userID = try #require(user["id"] as? String)
            #expect(post["user"]?.int64Value == Int64(userID))
            #expect(post["source"]?.stringValue == id)
        }
    }

    @Test func usersSortNumericallyWithAscendingPosts() async throws {
        let fixture = try AppNetFixture()
        let schema = try await populateAppNet()
        let result = try await export("User", schema: schema)
        #expect(result.status == 0, "\(result)")
        let users = try #require(try JSONReader().read(result.stdoutData).arrayValue)
        let ids = users.compactMap { $0["id"]?.int64Value }
        #expect(ids.count == fixture.userIDs.count)
        #expect(ids == fixture.userIDs.compactMap { Int64($0) }.sorted())

        for user in users {
            let id = try #require(user["id"]?.int64Value)
            let expectedPosts = fixture.posts.filter {
                (($0["user"] as? [String: Any])?["id"] as? String) == String(id)
            }
            .compactMap { $0["id"] as? String }.sorted()
            #expect(user["posts"]?.arrayValue?.compactMap(\.stringValue) == expectedPosts)
            // Counts is keyed by its user: its key is the user's.
            #expect(user["counts"]?.int64Value == id)
            // CoverImage has no primary key, so a reference to it is null.
            #expect(user["coverImage"] == .null)
        }
    }

    @Test func relationshipKeysSortByTheOwnersKey() async throws {
        let schema = try await populateAppNet()
        let result = try await export("Counts", schema: schema)
        #expect(result.status == 0, "\(result)")
        let counts = try #require(try JSONReader().read(result.stdoutData).arrayValue)
        let owners = counts.compactMap { $0["user"]?.int64Value }
        #expect(owners.count == counts.count)
        #expect(!owners.isEmpty)
        #expect(owners == owners.sorted())
    }

    @Test func emptyStoreExportsAnEmptyArray() async throws {
        let schema = try CLI.fixture("appnet-schema.json").path
        let empty = try directory.write("empty.json", #"{"data": []}"#)
        let populate = try await CLI.run([
            "populate", "--schema", schema, "--db", db, "--entity", "Post", "--quiet", empty,
        ])
        #expect(populate.status == 0, "\(populate)")
        let result = try await export("Post", schema: schema)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "[]\n")
    }

    // MARK: - Failures

    @Test func missingStoreIsNotCreated() async throws {
        let schema = try CLI.fixture("appnet-schema.json").path
        let result = try await export("Post", schema: schema)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "webrecord: error: \(db): no such store\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func unknownEntity() async throws {
        let schema = try await populateAppNet()
        let result = try await export("Usr", schema: schema)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "webrecord: error: the schema has no entity 'Usr'. Did you mean 'User'?\n")
    }

    @Test func notAStore() async throws {
        let schema = try CLI.fixture("appnet-schema.json").path
        try directory.write("store.sqlite", "this is not a database")
        let result = try await export("Post", schema: schema)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("webrecord: error: \(db): storeError: ") == true, "\(result)")
    }
}
