import Foundation
import Testing

@testable import WebRecord

/// `fetch`, `count` and `fetchOne`.
@Suite struct RecordStoreFetchTests {
    /// Posts inserted out of key order, so `_id` order differs from `id` order.
    /// id: title, rating — 3: charlie 4.0, 1: alpha 2.0, 5: echo 4.0, 2: bravo 1.0, 4: delta nil
    static func makeStore() throws -> RecordStore {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        try store.write { connection in
            let ann = try connection.insertRow("User", ["_entity": "User", "id": "u1", "name": "Ann"])
            let bob = try connection.insertRow("User", ["_entity": "User", "id": "u2", "name": "Bob"])
            let rows: [(Int, String, Double?, Int64)] = [
                (3, "charlie", 4.0, ann), (1, "alpha", 2.0, bob), (5, "echo", 4.0, ann), (2, "bravo", 1.0, bob),
                (4, "delta", nil, ann),
            ]
            for (id, title, rating, author) in rows {
                try connection.insert(
                    "Post", ["_entity": "Post", "id": id, "title": title, "rating": rating, "author": author])
            }
        }
        return store
    }

    static func keys(_ records: [Record]) -> [Int] {
        records.compactMap { $0["id"] as Int? }
    }

    @Test func withoutOptionsEverythingComesInInsertionOrder() throws {
        let store = try Self.makeStore()
        #expect(Self.keys(try store.fetch("Post")) == [3, 1, 5, 2, 4])
    }

    @Test func aPredicateBindsItsArguments() throws {
        let store = try Self.makeStore()
        #expect(Self.keys(try store.fetch("Post", where: "rating > ?", arguments: [1.5])) == [3, 1, 5])
        #expect(
            Self.keys(try store.fetch("Post", where: "title LIKE ? AND id <> ?", arguments: ["%a%", 4])) == [3, 1, 2])
        #expect(Self.keys(try store.fetch("Post", where: "rating IS NULL")) == [4])
        #expect(try store.fetch("Post", where: "title = ?", arguments: ["alpha' OR '1'='1"]).isEmpty)
    }

    @Test func aPredicateMayUseARelationshipColumn() throws {
        let store = try Self.makeStore()
        let ann = try #require(try store.fetchOne("User", primaryKey: "u1"))
        #expect(Self.keys(try store.fetch("Post", where: "author = ?", arguments: [ann.rowID])) == [3, 5, 4])
    }

    @Test func sortsAscendingAndDescendingWithInsertionOrderBreakingTies() throws {
        let store = try Self.makeStore()
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("id")])) == [1, 2, 3, 4, 5])
        #expect(Self.keys(try store.fetch("Post", orderBy: [.descending("title")])) == [5, 4, 3, 2, 1])
        // 3 and 5 tie on 4.0; 3 was inserted first. NULL sorts first ascending in SQLite.
        #expect(Self.keys(try store.fetch("Post", orderBy: [.descending("rating")])) == [3, 5, 1, 2, 4])
        #expect(
            Self.keys(try store.fetch("Post", orderBy: [.descending("rating"), .descending("id")])) == [5, 3, 1, 2, 4])
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("rating")])) == [4, 2, 1, 3, 5])
    }

    @Test func sortsByAToOneRelationshipKeptInTheTable() throws {
        let store = try Self.makeStore()
        #expect(
            Self.keys(try store.fetch("Post", orderBy: [.descending("author"), .ascending("id")])) == [1, 2, 3, 4, 5])
    }

    @Test func limitAndOffsetPage() throws {
        let store = try Self.makeStore()
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("id")], limit: 2)) == [1, 2])
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("id")], limit: 2, offset: 2)) == [3, 4])
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("id")], limit: 2, offset: 4)) == [5])
        #expect(Self.keys(try store.fetch("Post", orderBy: [.ascending("id")], offset: 3)) == [4, 5])
        #expect(try store.fetch("Post", limit: 0).isEmpty)
    }

    @Test func countsWithAndWithoutAPredicate() throws {
        let store = try Self.makeStore()
        #expect(try store.count("Post") == 5)
        #expect(try store.count("Post", where: "rating >= ?", arguments: [2]) == 3)
        #expect(try store.count("Post", where: "title = ?", arguments: ["nothing"]) == 0)
        #expect(try store.count("Tag") == 0)
    }

    @Test func subEntitiesAreIncludedUnlessExcluded() throws {
        let store = try RecordStore(inMemory: StoreSchemas.links())
        try store.write { connection in
            try connection.insert("Link", ["_entity": "InwardLink", "id": 1, "inwardIssue": "B"])
            try connection.insert("Link", ["_entity": "OutwardLink", "id": 2, "outwardIssue": "C"])
            try connection.insert("Link", ["_entity": "Link", "id": 3])
            try connection.insert("Link", ["_entity": "InwardLink", "id": 4, "inwardIssue": "A"])
        }
        #expect(Self.keys(try store.fetch("Link")) == [1, 2, 3, 4])
        #expect(Self.keys(try store.fetch("Link", includingSubentities: false)) == [3])
        #expect(Self.keys(try store.fetch("InwardLink")) == [1, 4])
        #expect(Self.keys(try store.fetch("InwardLink", orderBy: [.ascending("inwardIssue")])) == [4, 1])
        #expect(Self.keys(try store.fetch("OutwardLink", where: "id > ?", arguments: [0])) == [2])
        #expect(try store.count("Link") == 4)
        #expect(try store.count("Link", includingSubentities: false) == 1)
        #expect(try store.count("InwardLink", where: "inwardIssue = ?", arguments: ["A"]) == 1)
        // The records are of their concrete entities.
        #expect(try store.fetch("Link").map(\.entity.name) == ["InwardLink", "OutwardLink", "Link", "InwardLink"])
        #expect(try store.fetchOne("Link", primaryKey: 2)?.entity.name == "OutwardLink")
        #expect(try store.fetchOne("InwardLink", primaryKey: 2) == nil)
    }

    // MARK: - fetchOne

    @Test(arguments: [JSONValue.integer(5), .string("5"), .double(5.0), .string("+5")])
    func fetchOneNormalizesTheKey(key: JSONValue) throws {
        let store = try Self.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: key))
        #expect(post["title"] as String? == "echo")
    }

    @Test func fetchOneWithAStringKey() throws {
        let store = try Self.makeStore()
        #expect(try store.fetchOne("User", primaryKey: "u2")?["name"] as String? == "Bob")
        // A number finds the string key written the same way.
        try store.write { try $0.insert("User", ["_entity": "User", "id": "42", "name": "Numeric"]) }
        #expect(try store.fetchOne("User", primaryKey: 42)?["name"] as String? == "Numeric")
        #expect(try store.fetchOne("User", primaryKey: "u9") == nil)
    }

    @Test func fetchOneRejectsAKeyThatDoesNotFit() throws {
        let store = try Self.makeStore()
        let error = #expect(throws: WebRecordError.self) { try store.fetchOne("Post", primaryKey: "12abc") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.entity == "Post")
        #expect(error?.property == "id")
    }

    @Test func fetchOneWithACompositeKey() throws {
        let schema = try Schema(
            json: """
                { "entities": { "Membership": {
                    "primaryKey": ["group", "member"],
                    "attributes": {
                      "group": { "type": "string" }, "member": { "type": "integer" }, "role": { "type": "string" }
                    }
                } } }
                """)
        let store = try RecordStore(inMemory: schema)
        try store.write { connection in
            try connection.insert("Membership", ["_entity": "Membership", "group": "g1", "member": 1, "role": "owner"])
            try connection.insert(
                "Membership", ["_entity": "Membership", "group": "g1", "member": 2, "role": "reader"])
            try connection.insert(
                "Membership", ["_entity": "Membership", "group": "g2", "member": 1, "role": "writer"])
        }
        #expect(try store.indexedColumns("_pk_Membership") == ["group", "member"])
        #expect(try store.fetchOne("Membership", primaryKey: ["g1", "2"])?["role"] as String? == "reader")
        #expect(try store.fetchOne("Membership", primaryKey: ["g2", 1])?["role"] as String? == "writer")
        #expect(try store.fetchOne("Membership", primaryKey: ["g2", 2]) == nil)
        let record = try #require(try store.fetchOne("Membership", primaryKey: ["g1", 1]))
        #expect(record.primaryKeyValue == ["g1", 1])

        let wrongCount = #expect(throws: WebRecordError.self) { try store.fetchOne("Membership", primaryKey: ["g1"]) }
        #expect(wrongCount?.code == .invalidArgument)
        let notArray = #expect(throws: WebRecordError.self) { try store.fetchOne("Membership", primaryKey: "g1") }
        #expect(notArray?.code == .invalidArgument)
    }

    @Test func fetchOneNeedsAnAttributeKey() throws {
        let store = try Self.makeStore()
        let error = #expect(throws: WebRecordError.self) { try store.fetchOne("Profile", primaryKey: "u1") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.entity == "Profile")
    }

    // MARK: - Errors

    @Test func anUnknownSortNameIsAnInvalidArgument() throws {
        let store = try Self.makeStore()
        let error = #expect(throws: WebRecordError.self) { try store.fetch("Post", orderBy: [.ascending("titel")]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.entity == "Post")
        #expect(error?.property == "titel")
        // A to-many cannot be sorted by.
        let toMany = #expect(throws: WebRecordError.self) { try store.fetch("Post", orderBy: [.ascending("tags")]) }
        #expect(toMany?.code == .invalidArgument)
    }

    @Test func sortingByAToOneKeptInTheOtherTableIsAnInvalidArgument() throws {
        // User.profile's key lives in Profile: there is no "profile" column to sort by.
        let store = try Self.makeStore()
        let error = #expect(throws: WebRecordError.self) { try store.fetch("User", orderBy: [.ascending("profile")]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.property == "profile")
    }

    @Test func anUnknownEntityIsAnInvalidEntityDescription() throws {
        let store = try Self.makeStore()
        let fetchError = #expect(throws: WebRecordError.self) { try store.fetch("Posts") }
        #expect(fetchError?.code == .invalidEntityDescription)
        #expect(fetchError?.entity == "Posts")
        let countError = #expect(throws: WebRecordError.self) { try store.count("Posts") }
        #expect(countError?.code == .invalidEntityDescription)
        let oneError = #expect(throws: WebRecordError.self) { try store.fetchOne("Posts", primaryKey: 1) }
        #expect(oneError?.code == .invalidEntityDescription)
    }

    @Test func aBrokenPredicateIsAStoreError() throws {
        let store = try Self.makeStore()
        let error = #expect(throws: WebRecordError.self) {
            try store.fetch("Post", where: "rating >>> ?", arguments: [1])
        }
        #expect(error?.code == .storeError)
        #expect(error?.sql?.contains("rating >>> ?") == true)
        #expect(error?.sqliteCode != nil)
    }

    @Test func recordsAreSnapshots() throws {
        let store = try Self.makeStore()
        let post = try #require(try store.fetchOne("Post", primaryKey: 1))
        try store.write { try $0.execute("UPDATE \"Post\" SET \"title\" = ? WHERE \"id\" = 1", [.text("changed")]) }
        #expect(post["title"] as String? == "alpha")
        #expect(try store.fetchOne("Post", primaryKey: 1)?["title"] as String? == "changed")
    }
}
