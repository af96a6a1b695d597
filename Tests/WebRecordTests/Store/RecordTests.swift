import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Typed access to a record's attributes.
@Suite struct RecordAttributeTests {
    static let date = Date(timeIntervalSince1970: 1_353_465_222.5)
    static let token = UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!
    static let link = URL(string: "https://example.com/a?b=c&d=%20e")!

    /// A store with one row of every type (`id` 1) and one row of nulls (`id` 2).
    static func makeStore() throws -> RecordStore {
        let store = try RecordStore(inMemory: StoreSchemas.samples())
        try store.write { connection in
            try connection.insert(
                "Sample",
                [
                    "_entity": "Sample", "id": 1, "name": "Ann", "count": 42, "ratio": 2.5,
                    "price": Decimal(string: "12.345", locale: Locale(identifier: "en_US_POSIX")),
                    "flag": true, "when": date, "payload": Data([1, 2, 3]), "token": token, "link": link,
                    "extra": #"{"a":[1,true,null],"b":"x"}"#,
                ])
            try connection.insert("Sample", ["_entity": "Sample", "id": 2])
        }
        return store
    }

    @Test func everyTypeReadsBackTyped() throws {
        let store = try Self.makeStore()
        let record = try #require(try store.fetchOne("Sample", primaryKey: 1))
        #expect(record["name"] as String? == "Ann")
        #expect(record["count"] as Int? == 42)
        #expect(record["count"] as Int64? == 42)
        #expect(record["count"] as Int32? == 42)
        #expect(record["ratio"] as Double? == 2.5)
        #expect(record["price"] as Decimal? == Decimal(string: "12.345", locale: Locale(identifier: "en_US_POSIX")))
        #expect(record["flag"] as Bool? == true)
        #expect(record["when"] as Date? == Self.date)
        #expect(record["payload"] as Data? == Data([1, 2, 3]))
        #expect(record["token"] as UUID? == Self.token)
        #expect(record["link"] as URL? == Self.link)
        #expect(record["extra"] as JSONValue? == ["a": [1, true, nil], "b": "x"])
    }

    @Test func valuesAreStoredInTheDocumentedForms() throws {
        let store = try Self.makeStore()
        let row = try #require(try store.rows("SELECT * FROM \"Sample\" WHERE \"id\" = 1").first)
        let names = try store.columns(of: "Sample").map(\.name)
        let stored = Dictionary(uniqueKeysWithValues: zip(names, row))
        #expect(stored["_entity"] == .text("Sample"))
        #expect(stored["name"] == .text("Ann"))
        #expect(stored["count"] == .integer(42))
        #expect(stored["ratio"] == .real(2.5))
        #expect(stored["price"] == .text("12.345"))
        #expect(stored["flag"] == .integer(1))
        #expect(stored["when"] == .text("2012-11-21T02:33:42.500000000Z"))
        #expect(stored["payload"] == .blob(Data([1, 2, 3])))
        #expect(stored["token"] == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(stored["link"] == .text("https://example.com/a?b=c&d=%20e"))
        #expect(stored["extra"] == .text(#"{"a":[1,true,null],"b":"x"}"#))
    }

    @Test func jsonValuesUseTheExportForms() throws {
        let store = try Self.makeStore()
        let record = try #require(try store.fetchOne("Sample", primaryKey: 1))
        #expect(record.jsonValue("flag") == .bool(true))
        #expect(record.jsonValue("when") == .string("2012-11-21T02:33:42.500000000Z"))
        #expect(record.jsonValue("payload") == .string("AQID"))
        #expect(record.jsonValue("count") == .integer(42))
        #expect(record.jsonValue("ratio") == .double(2.5))
        #expect(record.jsonValue("extra") == ["a": [1, true, nil], "b": "x"])
        #expect(record.jsonValue("missing") == nil)
        #expect(record.primaryKeyValue == .integer(1))
        #expect(record.rowID == 1)
        #expect(record.entity.name == "Sample")
        #expect("\(record)" == "Sample(_id: 1, key: 1)")
    }

    @Test func nullsReadAsNil() throws {
        let store = try Self.makeStore()
        let record = try #require(try store.fetchOne("Sample", primaryKey: 2))
        #expect(record["name"] as String? == nil)
        #expect(record["count"] as Int? == nil)
        #expect(record["flag"] as Bool? == nil)
        #expect(record["when"] as Date? == nil)
        #expect(record["extra"] as JSONValue? == nil)
        #expect(record.jsonValue("name") == .null)
    }

    struct WrongType: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let read: @Sendable (Record) -> Bool  // true when the read gave nil
    }

    static let wrongTypes: [WrongType] = [
        WrongType(testDescription: "string as Int") { ($0["name"] as Int?) == nil },
        WrongType(testDescription: "string as Double") { ($0["name"] as Double?) == nil },
        WrongType(testDescription: "string as Decimal") { ($0["name"] as Decimal?) == nil },
        WrongType(testDescription: "string as Bool") { ($0["name"] as Bool?) == nil },
        WrongType(testDescription: "string as Date") { ($0["name"] as Date?) == nil },
        WrongType(testDescription: "string as UUID") { ($0["name"] as UUID?) == nil },
        WrongType(testDescription: "integer as UUID") { ($0["count"] as UUID?) == nil },
        WrongType(testDescription: "integer as URL") { ($0["count"] as URL?) == nil },
        WrongType(testDescription: "integer as Data") { ($0["count"] as Data?) == nil },
        WrongType(testDescription: "non-integral double as Int") { ($0["ratio"] as Int?) == nil },
        WrongType(testDescription: "boolean as Date") { ($0["flag"] as Date?) == nil },
        WrongType(testDescription: "boolean as String") { ($0["flag"] as String?) == nil },
        WrongType(testDescription: "date as Int") { ($0["when"] as Int?) == nil },
        WrongType(testDescription: "date as Bool") { ($0["when"] as Bool?) == nil },
        WrongType(testDescription: "data as String") { ($0["payload"] as String?) == nil },
        WrongType(testDescription: "data as Int") { ($0["payload"] as Int?) == nil },
        WrongType(testDescription: "json as Int") { ($0["extra"] as Int?) == nil },
        WrongType(testDescription: "decimal with a fraction as Int") { ($0["price"] as Int?) == nil },
        WrongType(testDescription: "unknown attribute") { ($0["nothing"] as String?) == nil },
        WrongType(testDescription: "system column") { ($0["_entity"] as String?) == nil },
    ]

    @Test(arguments: wrongTypes)
    func aWrongTypeReadsAsNil(_ wrong: WrongType) throws {
        let store = try Self.makeStore()
        let record = try #require(try store.fetchOne("Sample", primaryKey: 1))
        #expect(wrong.read(record))
    }

    @Test func numericConversionsThatFitSucceed() throws {
        let store = try Self.makeStore()
        try store.write {
            try $0.insert(
                "Sample", ["_entity": "Sample", "id": 3, "count": 5_000_000_000, "ratio": 4.0, "price": "12"])
        }
        let record = try #require(try store.fetchOne("Sample", primaryKey: 3))
        #expect(record["count"] as Int32? == nil)  // does not fit
        #expect(record["count"] as Int64? == 5_000_000_000)
        #expect(record["count"] as Double? == 5e9)
        #expect(record["ratio"] as Int? == 4)
        #expect(record["price"] as Int? == 12)
        #expect(record["price"] as Double? == 12)
        #expect(record["count"] as String? == "5000000000")
    }

    @Test func anInvalidJSONColumnReadsAsNil() throws {
        let store = try Self.makeStore()
        try store.write { try $0.insert("Sample", ["_entity": "Sample", "id": 3, "extra": "{not json"]) }
        let record = try #require(try store.fetchOne("Sample", primaryKey: 3))
        #expect(record["extra"] as JSONValue? == nil)
        #expect(record["extra"] as String? == "{not json")
    }
}

/// Navigating relationships, loaded from the store.
@Suite struct RecordRelationshipTests {
    /// u1 (Ann) wrote posts 1 and 2; u2 (Bob) wrote nothing; post 3 has no author.
    /// Post 1 has comments c10, c11, c12 stored in the order c12, c10, c11, and tags swift, sql.
    static func makeStore(configuration: RecordStore.Configuration = RecordStore.Configuration()) throws -> RecordStore
    {
        let store = try RecordStore(inMemory: StoreSchemas.blog(), configuration: configuration)
        try store.write { connection in
            let ann = try connection.insertRow("User", ["_entity": "User", "id": "u1", "name": "Ann"])
            try connection.insert("User", ["_entity": "User", "id": "u2", "name": "Bob"])
            let first = try connection.insertRow("Post", ["_entity": "Post", "id": 1, "title": "First", "author": ann])
            try connection.insert("Post", ["_entity": "Post", "id": 2, "title": "Second", "author": ann])
            try connection.insert("Post", ["_entity": "Post", "id": 3, "title": "Orphan"])
            try connection.insert(
                "Comment", ["_entity": "Comment", "id": 10, "body": "b", "post": first, "_position_post": 1])
            try connection.insert(
                "Comment", ["_entity": "Comment", "id": 11, "body": "c", "post": first, "_position_post": 2])
            try connection.insert(
                "Comment", ["_entity": "Comment", "id": 12, "body": "a", "post": first, "_position_post": 0])
            let swift = try connection.insertRow("Tag", ["_entity": "Tag", "name": "swift"])
            let sql = try connection.insertRow("Tag", ["_entity": "Tag", "name": "sql"])
            try connection.insert("_Post_tags", ["owner": first, "target": sql])
            try connection.insert("_Post_tags", ["owner": first, "target": swift])
            try connection.insert("Profile", ["_entity": "Profile", "bio": "Writes", "user": ann])
            try connection.insert("Passport", ["_entity": "Passport", "number": "P-1", "holder": ann])
        }
        return store
    }

    @Test func toOneFollowsTheForeignKey() throws {
        let store = try Self.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        let author = try #require(post.related("author") as Record?)
        #expect(author.entity.name == "User")
        #expect(author["name"] as String? == "Ann")
        #expect(try store.fetchOne("Post", primaryKey: 3)?.related("author") as Record? == nil)
    }

    @Test func toManyListsTheRecordsPointingBack() throws {
        let store = try Self.makeStore()
        let ann = try #require(try store.fetchOne("User", primaryKey: "u1"))
        #expect(ann.relatedRecords("posts").map { $0["title"] as String? } == ["First", "Second"])
        let bob = try #require(try store.fetchOne("User", primaryKey: "u2"))
        #expect(bob.relatedRecords("posts").isEmpty)
    }

    @Test func orderedToManyComesInStoredOrder() throws {
        let store = try Self.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        let comments = post.relatedRecords("comments")
        #expect(comments.map(\.primaryKeyValue) == [12, 10, 11])
        #expect(comments.map { $0["body"] as String? } == ["a", "b", "c"])
        #expect(comments.first?.related("post")?.primaryKeyValue == 1)
    }

    @Test func manyToManyGoesThroughTheJoinTableFromBothSides() throws {
        let store = try Self.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        // Unordered: by the destination's `_id` (swift was stored first).
        #expect(post.relatedRecords("tags").map(\.primaryKeyValue) == ["swift", "sql"])
        let sql = try #require(try store.fetchOne("Tag", primaryKey: "sql"))
        #expect(sql.relatedRecords("posts").map(\.primaryKeyValue) == [1])
        let second = try #require(try store.fetchOne("Post", primaryKey: 2))
        #expect(second.relatedRecords("tags").isEmpty)
    }

    @Test func orderedManyToManyComesInPositionOrderFromEachSide() throws {
        let schema = try Schema(
            json: """
                {
                  "entities": {
                    "Playlist": {
                      "primaryKey": "id", "attributes": { "id": { "type": "integer" } },
                      "relationships": { "songs": { "destination": "Song", "toMany": true, "ordered": true, "inverse": "playlists" } }
                    },
                    "Song": {
                      "primaryKey": "id", "attributes": { "id": { "type": "integer" } },
                      "relationships": { "playlists": { "destination": "Playlist", "toMany": true, "ordered": true, "inverse": "songs" } }
                    }
                  }
                }
                """)
        let store = try RecordStore(inMemory: schema)
        try store.write { connection in
            let a = try connection.insertRow("Playlist", ["_entity": "Playlist", "id": 1])
            let b = try connection.insertRow("Playlist", ["_entity": "Playlist", "id": 2])
            let s1 = try connection.insertRow("Song", ["_entity": "Song", "id": 101])
            let s2 = try connection.insertRow("Song", ["_entity": "Song", "id": 102])
            let s3 = try connection.insertRow("Song", ["_entity": "Song", "id": 103])
            try connection.insert("_Playlist_songs", ["owner": a, "target": s1, "position": 2, "inverse_position": 1])
            try connection.insert("_Playlist_songs", ["owner": a, "target": s2, "position": 0, "inverse_position": 0])
            try connection.insert("_Playlist_songs", ["owner": a, "target": s3, "position": 1, "inverse_position": 0])
            try connection.insert("_Playlist_songs", ["owner": b, "target": s1, "position": 0, "inverse_position": 0])
        }
        let first = try #require(try store.fetchOne("Playlist", primaryKey: 1))
        #expect(first.relatedRecords("songs").map(\.primaryKeyValue) == [102, 103, 101])
        let song = try #require(try store.fetchOne("Song", primaryKey: 101))
        #expect(song.relatedRecords("playlists").map(\.primaryKeyValue) == [2, 1])
    }

    @Test func oneToOneWorksFromTheSideWithoutTheKey() throws {
        let store = try Self.makeStore()
        let ann = try #require(try store.fetchOne("User", primaryKey: "u1"))
        let profile = try #require(ann.related("profile") as Record?)
        #expect(profile["bio"] as String? == "Writes")
        #expect(profile.related("user")?.primaryKeyValue == "u1")
        // A relationship primary key is the owner's key.
        #expect(profile.primaryKeyValue == "u1")
        let passport = try #require(ann.related("passport") as Record?)
        #expect(passport.primaryKeyValue == "P-1")
        #expect(passport.related("holder")?.primaryKeyValue == "u1")
        let bob = try #require(try store.fetchOne("User", primaryKey: "u2"))
        #expect(bob.related("profile") as Record? == nil)
    }

    @Test func relationshipsAreReadFreshFromTheStore() throws {
        let store = try Self.makeStore()
        let bob = try #require(try store.fetchOne("User", primaryKey: "u2"))
        #expect(bob.relatedRecords("posts").isEmpty)
        try store.write { try $0.execute("UPDATE \"Post\" SET \"author\" = ? WHERE \"id\" = 3", [.integer(bob.rowID)]) }
        #expect(bob.relatedRecords("posts").map(\.primaryKeyValue) == [3])
    }

    @Test func anUnknownRelationshipIsEmptyAndLogged() throws {
        let handler = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: handler, level: .info)
        let store = try Self.makeStore(configuration: configuration)
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        #expect(post.relatedRecords("nothing").isEmpty)
        #expect(post.related("nothing") as Record? == nil)
        let errors = handler.events.filter { $0.level == .error }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.message.contains("nothing") && $0.message.contains("Post") })
        #expect(post.relatedRecords("tags").count == 2)
    }
}

/// Record subclasses registered per entity.
@Suite struct RecordSubclassTests {
    // Subclasses add computed accessors over the immutable snapshot.
    final class Post: Record {
        var title: String? { self["title"] }
        var author: User? { related("author") }
    }

    final class User: Record {
        var name: String? { self["name"] }
        var posts: [Post] { relatedRecords("posts") }
    }

    final class Article: Record {}

    class LinkRecord: Record {
        var issueID: Int? { self["id"] }
    }

    final class InwardLinkRecord: LinkRecord {}

    @Test func registeredSubclassesAreWhatFetchesReturn() throws {
        let store = try RecordRelationshipTests.makeStore()
        store.register(recordClass: Post.self)
        store.register(recordClass: User.self)
        #expect(Post.entityName == "Post")

        let posts = try store.fetch("Post", orderBy: [.ascending("id")])
        #expect(posts.allSatisfy { $0 is Post })
        let first = try #require(posts.first as? Post)
        #expect(first.title == "First")
        #expect(first.author?.name == "Ann")
        #expect(first.author?.posts.compactMap(\.title) == ["First", "Second"])
        // Entities with no registered class give plain records.
        let tag = try #require(try store.fetch("Tag").first)
        #expect(type(of: tag) == Record.self)
    }

    // Stands for "Writer", which the blog schema does not have: never the class of a post's
    // author.
    final class Writer: Record {}

    final class TitledPost: Record {
        override class var entityName: String { "Post" }
        /// An accessor named like CustomStringConvertible's requirement: Record describes
        /// itself through debugDescription, so this compiles and reads the attribute.
        var description: String? { self["title"] }
    }

    @Test("A relationship asked for as an unregistered class named like the entity gives an instance of it")
    func anUnregisteredClassStandingForTheEntityIsMade() throws {
        let store = try RecordRelationshipTests.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        let author: User? = post.related("author")
        #expect(author?.name == "Ann")
        let user = try #require(try store.fetchOne("User", primaryKey: "u1"))
        #expect(user.relatedRecords("posts", as: Post.self).compactMap(\.title) == ["First", "Second"])
    }

    @Test("A relationship asked for as a class that stands for another entity is nil, with a warning naming the class")
    func aClassOfAnotherEntityIsAWarningNotASilentNil() throws {
        let handler = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: handler, level: .info)
        let store = try RecordRelationshipTests.makeStore(configuration: configuration)
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))

        #expect(post.related("author") as Writer? == nil)
        let warning = try #require(handler.events.first { $0.level == .warning })
        #expect(warning.message.contains("Writer"))
        #expect(
            warning.message.contains("store.register(recordClass: Writer.self, forEntity: \"User\")"),
            "\(warning.message)")

        // Registered for the entity, the same class is what the relationship gives.
        store.register(recordClass: Writer.self, forEntity: "User")
        #expect((post.related("author") as Writer?)?.primaryKeyValue == "u1")
    }

    @Test(
        "A relationship asked for as the class of another entity of the schema is nil, and the warning does not advise registering it"
    )
    func aClassOfAnotherSchemaEntityIsNotAdvisedForRegistration() throws {
        let handler = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: handler, level: .info)
        let store = try RecordRelationshipTests.makeStore(configuration: configuration)
        store.register(recordClass: Post.self)
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))

        // The author is a User; Post stands for the schema's Post.
        #expect(post.related("author") as Post? == nil)
        let warning = try #require(handler.events.first { $0.level == .warning })
        #expect(warning.message.contains("is a User, and Post stands for Post"), "\(warning.message)")
        #expect(warning.message.contains("ask for it as the class of User, or as Record"), "\(warning.message)")
        // Registering Post for User would make every user a Post.
        #expect(!warning.message.contains("store.register"), "\(warning.message)")
    }

    @Test("A typed accessor named description reads its attribute, and the record still describes itself")
    func aDescriptionAccessorDoesNotCollide() throws {
        let store = try RecordRelationshipTests.makeStore()
        store.register(recordClass: TitledPost.self)
        let post = try #require(try store.fetchOne("Post", primaryKey: 1) as? TitledPost)
        #expect(post.description == "First")
        #expect("\(post)" == "Post(_id: 1, key: 1)")
        #expect(String(describing: post) == post.debugDescription)
    }

    @Test func fetchByClassUsesTheRegisteredEntity() throws {
        let store = try RecordRelationshipTests.makeStore()
        store.register(recordClass: Article.self, forEntity: "Post")
        let articles: [Article] = try store.fetch(
            Article.self, where: "\"id\" > ?", arguments: [1], orderBy: [.descending("id")])
        #expect(articles.map(\.primaryKeyValue) == [3, 2])
        #expect(try store.fetch(Article.self, limit: 1, offset: 2).map(\.primaryKeyValue) == [3])
    }

    @Test func fetchByClassDefaultsToTheClassName() throws {
        let store = try RecordRelationshipTests.makeStore()
        store.register(recordClass: Post.self)
        #expect(try store.fetch(Post.self).count == 3)
    }

    @Test func aBaseEntityRegistrationCoversItsSubEntities() throws {
        let store = try RecordStore(inMemory: StoreSchemas.links())
        try store.write { connection in
            try connection.insert("Link", ["_entity": "InwardLink", "id": 1])
            try connection.insert("Link", ["_entity": "OutwardLink", "id": 2])
            try connection.insert("Link", ["_entity": "Link", "id": 3])
        }
        store.register(recordClass: LinkRecord.self, forEntity: "Link")
        let links = try store.fetch("Link", orderBy: [.ascending("id")])
        #expect(links.map { String(describing: type(of: $0)) } == ["LinkRecord", "LinkRecord", "LinkRecord"])
        #expect(links.compactMap { ($0 as? LinkRecord)?.issueID } == [1, 2, 3])

        // A more specific registration wins for its entity only.
        store.register(recordClass: InwardLinkRecord.self, forEntity: "InwardLink")
        let again = try store.fetch("Link", orderBy: [.ascending("id")])
        #expect(again.map { String(describing: type(of: $0)) } == ["InwardLinkRecord", "LinkRecord", "LinkRecord"])
        #expect(try store.fetch(InwardLinkRecord.self).map(\.primaryKeyValue) == [1])
    }
}

/// Decoding a record into a Decodable type.
@Suite struct RecordDecodeTests {
    struct PostSummary: Decodable, Equatable {
        var id: Int
        var title: String
        var date: Date
        var rating: Double?
        var author: String?
    }

    @Test func decodesAttributesDatesOptionalsAndToOneKeys() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        let date = Date(timeIntervalSince1970: 1_353_465_222.123)
        try store.write { connection in
            let user = try connection.insertRow("User", ["_entity": "User", "id": "u1"])
            try connection.insert("Post", ["_entity": "Post", "id": 1, "title": "Hello", "date": date, "author": user])
            try connection.insert("Post", ["_entity": "Post", "id": 2, "title": "Rated", "date": date, "rating": 4.5])
        }
        let first = try #require(try store.fetchOne("Post", primaryKey: 1)).decode(PostSummary.self)
        #expect(first.id == 1)
        #expect(first.title == "Hello")
        #expect(DateCoding.string(from: first.date) == "2012-11-21T02:33:42.123000000Z")
        #expect(first.rating == nil)
        #expect(first.author == "u1")
        let second = try #require(try store.fetchOne("Post", primaryKey: 2)).decode(PostSummary.self)
        #expect(second.rating == 4.5)
        #expect(second.author == nil)
        #expect(abs(second.date.timeIntervalSince(date)) < 0.0005)
    }

    struct Sample: Decodable {
        var name: String
        var price: Decimal
        var ratio: Double
        var flag: Bool
        var when: Date
        var payload: Data
        var token: UUID
        var link: URL
        var extra: [String: [Int?]]?
        var count: Int?
    }

    @Test func decodesEveryAttributeType() throws {
        let store = try RecordStore(inMemory: StoreSchemas.samples())
        let precise = try #require(
            Decimal(string: "12345678901234567890.123456789", locale: Locale(identifier: "en_US_POSIX")))
        try store.write { connection in
            try connection.insert(
                "Sample",
                [
                    "_entity": "Sample", "id": 1, "name": "Ann", "price": precise, "ratio": 0.25, "flag": false,
                    "when": "2012-11-21T02:33:42.500000000Z", "payload": Data([0, 255]),
                    "token": RecordAttributeTests.token, "link": RecordAttributeTests.link, "extra": #"{"a":[1,null]}"#,
                ])
        }
        let sample = try #require(try store.fetchOne("Sample", primaryKey: 1)).decode(Sample.self)
        #expect(sample.name == "Ann")
        #expect(sample.price == precise)
        #expect(sample.ratio == 0.25)
        #expect(sample.flag == false)
        #expect(DateCoding.string(from: sample.when) == "2012-11-21T02:33:42.500000000Z")
        #expect(sample.payload == Data([0, 255]))
        #expect(sample.token == RecordAttributeTests.token)
        #expect(sample.link == RecordAttributeTests.link)
        #expect(sample.extra == ["a": [1, nil]])
        #expect(sample.count == nil)
    }

    @Test func aNumericAttributeDecodesIntoADateAsUnixSeconds() throws {
        struct Stamp: Decodable { var count: Date }
        let store = try RecordStore(inMemory: StoreSchemas.samples())
        try store.write { try $0.insert("Sample", ["_entity": "Sample", "id": 1, "count": 1_353_465_222]) }
        let stamp = try #require(try store.fetchOne("Sample", primaryKey: 1)).decode(Stamp.self)
        #expect(DateCoding.string(from: stamp.count) == "2012-11-21T02:33:42.000000000Z")
    }

    @Test func aMissingRequiredValueIsADecodingError() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        try store.write { try $0.insert("Post", ["_entity": "Post", "id": 1]) }
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        let error = try #require(throws: WebRecordError.self) { try post.decode(PostSummary.self) }
        #expect(error.code == .typeMismatch)
        #expect(error.cause is DecodingError, "\(error)")
    }
}
