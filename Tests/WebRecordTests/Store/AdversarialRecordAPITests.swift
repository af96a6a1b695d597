import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Record classes for the record API tests: `Link` and its sub-entity, and two classes that
/// stand for `Board` (one is never registered).
class RecordAPILinkRecord: Record {
    override class var entityName: String { "Link" }
}

final class RecordAPIInwardRecord: RecordAPILinkRecord {
    override class var entityName: String { "InwardLink" }
}

final class RecordAPIBoardRecord: Record {
    override class var entityName: String { "Board" }
}

final class RecordAPIUnregisteredBoard: Record {
    override class var entityName: String { "Board" }
}

/// Typed access, navigation, registered classes, fetching, and the debugger and logging of
/// populations, checked against the rules of Docs/Records.md and Docs/Population.md.
@Suite struct AdversarialRecordAPITests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Account": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "string" },
                "name": { "type": "string" },
                "password": { "type": "string" },
                "token": { "type": "integer" },
                "pin": { "type": "integer" },
                "price": { "type": "decimal" },
                "ratio": { "type": "double" },
                "active": { "type": "boolean" },
                "seen": { "type": "date" },
                "blob": { "type": "data" },
                "ref": { "type": "uuid" },
                "home": { "type": "url" },
                "meta": { "type": "json" },
                "code": { "type": "string" }
              },
              "relationships": {
                "boards": { "destination": "Board", "toMany": true, "inverse": "owner" },
                "profile": { "destination": "Profile", "inverse": "account" }
              }
            },
            "Profile": {
              "primaryKey": "account",
              "attributes": { "bio": { "type": "string" } },
              "relationships": { "account": { "destination": "Account", "inverse": "profile" } }
            },
            "Board": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
              "relationships": {
                "owner": { "destination": "Account", "inverse": "boards" },
                "pins": { "destination": "Pin", "toMany": true, "ordered": true, "inverse": "board" },
                "labels": { "destination": "Label", "toMany": true, "ordered": true, "inverse": "boards" },
                "links": { "destination": "Link", "toMany": true, "inverse": "board" },
                "inwards": { "destination": "InwardLink", "toMany": true, "inverse": "target" }
              }
            },
            "Pin": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "note": { "type": "string" } },
              "relationships": { "board": { "destination": "Board", "inverse": "pins" } }
            },
            "Label": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": { "boards": { "destination": "Board", "toMany": true, "inverse": "labels" } }
            },
            "Link": {
              "primaryKey": "id",
              "subentities": { "key": "kind", "map": { "inward": "InwardLink", "outward": "OutwardLink" } },
              "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" } },
              "relationships": { "board": { "destination": "Board", "inverse": "links" } }
            },
            "InwardLink": {
              "parent": "Link",
              "attributes": { "from": { "type": "string" } },
              "relationships": { "target": { "destination": "Board", "inverse": "inwards" } }
            },
            "OutwardLink": {
              "parent": "Link",
              "attributes": { "to": { "type": "string" } }
            },
            "Membership": {
              "primaryKey": ["group", "number"],
              "attributes": {
                "group": { "type": "string" },
                "number": { "type": "integer" },
                "role": { "type": "string" }
              }
            }
          }
        }
        """

    static func makeStore(log: InMemoryLogHandler? = nil, level: LogLevel? = nil) throws -> RecordStore {
        var configuration = RecordStore.Configuration()
        if let log { configuration.logging = LogSettings(handler: log, level: level) }
        return try RecordStore(
            inMemory: Schema(json: schemaJSON, fileName: "RecordAPI.json"), configuration: configuration)
    }

    @discardableResult
    static func populate(
        _ store: RecordStore, _ text: String, entity: String, options: PopulationOptions = PopulationOptions()
    ) throws -> PopulationResult {
        try store.populate(JSONReader().read(text), entity: entity, options: options)
    }

    /// A board with an owner, ordered pins, ordered labels, links of every kind of the
    /// hierarchy, and inward links.
    static let boardResponse = """
        [{"id": 1, "title": "b", "owner": {"id": "ann", "name": "Ann"},
          "pins": [{"id": 30, "note": "c"}, {"id": 10}, {"id": 20}],
          "labels": ["zeta", "alpha", "mid"],
          "links": [{"id": 5, "kind": "outward", "to": "X"}, {"id": 3, "kind": "inward", "from": "Y"}, {"id": 4}],
          "inwards": [{"id": 8, "from": "P"}, {"id": 7, "from": "Q"}]},
         {"id": 2, "title": "c"}]
        """

    // MARK: - Typed access

    @Test func integersNarrowOnlyWhenTheyFit() throws {
        let store = try Self.makeStore()
        try Self.populate(
            store,
            #"[{"id": "a", "pin": 3000000000}, {"id": "b", "pin": -2147483648}, {"id": "c", "pin": 9223372036854775807}]"#,
            entity: "Account")
        let a = try #require(try store.fetchOne("Account", primaryKey: "a"))
        #expect(a["pin"] as Int32? == nil)
        #expect(a["pin"] as Int? == 3_000_000_000)
        #expect(a["pin"] as Int64? == 3_000_000_000)
        #expect(a["pin"] as String? == "3000000000")
        let b = try #require(try store.fetchOne("Account", primaryKey: "b"))
        #expect(b["pin"] as Int32? == Int32.min)
        let c = try #require(try store.fetchOne("Account", primaryKey: "c"))
        #expect(c["pin"] as Int64? == Int64.max)
        #expect(c["pin"] as Decimal? == Decimal(Int64.max))
    }

    @Test func decimalsReadExactlyAndIntegralOnesAsIntegers() throws {
        let store = try Self.makeStore()
        try Self.populate(
            store,
            #"[{"id": "a", "price": "12345678901234567890.123456789"}, {"id": "b", "price": "1e3"}, {"id": "c", "price": "12345678901234567890"}]"#,
            entity: "Account")
        let a = try #require(try store.fetchOne("Account", primaryKey: "a"))
        #expect(a["price"] as String? == "12345678901234567890.123456789")
        #expect(
            a["price"] as Decimal?
                == Decimal(string: "12345678901234567890.123456789", locale: Locale(identifier: "en_US_POSIX")))
        #expect(a["price"] as Int? == nil)
        #expect(a["price"] as Double? == 12345678901234567890.123456789)
        let b = try #require(try store.fetchOne("Account", primaryKey: "b"))
        #expect(b["price"] as Int? == 1000)
        #expect(b["price"] as Int32? == 1000)
        let c = try #require(try store.fetchOne("Account", primaryKey: "c"))
        // Beyond Int64: no integer read, never a clamped one.
        #expect(c["price"] as Int64? == nil)
        #expect(
            c["price"] as Decimal? == Decimal(string: "12345678901234567890", locale: Locale(identifier: "en_US_POSIX"))
        )
    }

    /// "A wrong type gives nil ... Reading a string as `Int` ... nil": the text of a `string`
    /// attribute is no "decimal text", for `Decimal` as for `Int` and `Double`.
    @Test func aStringAttributeThatLooksNumericIsNoDecimal() throws {
        let store = try Self.makeStore()
        try Self.populate(store, #"[{"id": "a", "code": "12"}]"#, entity: "Account")
        let a = try #require(try store.fetchOne("Account", primaryKey: "a"))
        #expect(a["code"] as Int? == nil)
        #expect(a["code"] as Double? == nil)
        #expect(a["code"] as Decimal? == nil)
    }

    @Test func booleansDatesDataUUIDsURLsAndJSONReadAsDocumented() throws {
        let store = try Self.makeStore()
        try Self.populate(
            store,
            #"""
            [{"id": "a", "active": true, "pin": 1704110400, "ratio": 1.5,
              "seen": "2024-01-01T12:00:00.123456789Z", "blob": "AQID",
              "ref": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "home": "https://example.com/x?y=1",
              "meta": {"b": [1, null], "a": "x"}, "code": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"},
             {"id": "b", "active": false, "meta": 5}]
            """#,
            entity: "Account")
        let a = try #require(try store.fetchOne("Account", primaryKey: "a"))
        #expect(a["active"] as Bool? == true)
        #expect(a["active"] as Int? == 1)
        #expect(a["active"] as String? == nil)
        #expect(a["active"] as JSONValue? == .bool(true))
        #expect(a["active"] as Date? == nil)
        #expect(a["pin"] as Date? == Date(timeIntervalSince1970: 1_704_110_400))
        #expect(a["pin"] as Bool? == true)
        #expect(a["ratio"] as Timestamp? == Timestamp(seconds: 1, nanoseconds: 500_000_000))
        #expect(a["ratio"] as Bool? == nil)
        let stamp = try #require(a["seen"] as Timestamp?)
        #expect(stamp.seconds == 1_704_110_400)
        #expect(stamp.nanoseconds == 123_456_789)
        #expect(a["seen"] as String? == "2024-01-01T12:00:00.123456789Z")
        #expect(a["seen"] as Int? == nil)
        #expect(a["blob"] as Data? == Data([1, 2, 3]))
        #expect(a["blob"] as String? == nil)
        #expect(a["ref"] as UUID? == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(a["code"] as UUID? == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(a["home"] as URL? == URL(string: "https://example.com/x?y=1"))
        #expect(a["meta"] as JSONValue? == ["a": "x", "b": [1, nil]])
        #expect(a.jsonValue("blob") == .string("AQID"))
        #expect(a.jsonValue("nothing") == nil)
        let b = try #require(try store.fetchOne("Account", primaryKey: "b"))
        #expect(b["active"] as Bool? == false)
        #expect(b["meta"] as JSONValue? == .integer(5))
        #expect(b["seen"] as Date? == nil)
        #expect(b.jsonValue("seen") == .null)
    }

    // MARK: - Snapshots

    @Test func snapshotsDoNotChangeAfterLaterWritesButNavigationDoes() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        let before = board.storedValues
        try Self.populate(
            store, #"[{"id": 1, "title": "renamed", "owner": {"id": "bob"}, "pins": [{"id": 20}, {"id": 30}]}]"#,
            entity: "Board")
        #expect(board.storedValues == before)
        #expect(board["title"] as String? == "b")
        #expect(board.relatedRecords("pins").map(\.primaryKeyValue) == [20, 30])
        let again = try #require(try store.fetchOne("Board", primaryKey: 1))
        #expect(again["title"] as String? == "renamed")
    }

    /// "Relationships are the exception: they are read from the store each time you ask" and
    /// "Each call runs one query on the store, so it sees the latest committed state": a to-one
    /// whose key is in the record's own row follows the store, not the snapshot's key column.
    @Test func aToOneReadThroughAnOlderSnapshotSeesTheLatestCommittedState() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        #expect(board.related("owner")?.primaryKeyValue == "ann")
        try Self.populate(store, #"[{"id": 1, "owner": {"id": "bob"}}]"#, entity: "Board")
        let fresh = try #require(try store.fetchOne("Board", primaryKey: 1))
        #expect(fresh.related("owner")?.primaryKeyValue == "bob")
        // The same board, read through the snapshot taken before.
        #expect(board.related("owner")?.primaryKeyValue == "bob")
        // From the other side, the store is seen: ann lists no board any more.
        let ann = try #require(try store.fetchOne("Account", primaryKey: "ann"))
        #expect(ann.relatedRecords("boards").isEmpty)
        // Cleared: the snapshot must not still show the old owner.
        try Self.populate(store, #"[{"id": 1, "owner": null}]"#, entity: "Board")
        #expect(board.related("owner") == nil)
    }

    // MARK: - Relationships

    @Test func toManyOrderIsResponseOrderWhenOrderedAndInsertionOrderOtherwise() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        #expect(board.relatedRecords("pins").map(\.primaryKeyValue) == [30, 10, 20])
        #expect(board.relatedRecords("labels").map(\.primaryKeyValue) == ["zeta", "alpha", "mid"])
        let links = board.relatedRecords("links")
        #expect(links.map(\.rowID) == links.map(\.rowID).sorted())
        #expect(Set(links.compactMap { $0.primaryKeyValue }) == [5, 3, 4])
        #expect(
            links.sorted { $0.rowID < $1.rowID }.map(\.entity.name).count == 3)
        let byKey = Dictionary(uniqueKeysWithValues: links.map { ($0.primaryKeyValue ?? .null, $0.entity.name) })
        #expect(byKey == [5: "OutwardLink", 3: "InwardLink", 4: "Link"])
        // A later response reorders the ordered lists.
        try Self.populate(
            store, #"[{"id": 1, "pins": [{"id": 20}, {"id": 30}, {"id": 10}], "labels": ["mid", "zeta"]}]"#,
            entity: "Board")
        #expect(board.relatedRecords("pins").map(\.primaryKeyValue) == [20, 30, 10])
        #expect(board.relatedRecords("labels").map(\.primaryKeyValue) == ["mid", "zeta"])
    }

    @Test func relationshipsOfParentsAndOfSubentitiesNavigateFromEitherSide() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        // A relationship declared on Link, read through an InwardLink.
        let inward = try #require(try store.fetchOne("InwardLink", primaryKey: 3))
        #expect(inward.entity.name == "InwardLink")
        #expect(inward.related("board")?.primaryKeyValue == 1)
        // A relationship declared on InwardLink, read through a record fetched as a Link.
        let asLink = try #require(try store.fetchOne("Link", primaryKey: 8))
        #expect(asLink.entity.name == "InwardLink")
        #expect(asLink.related("target")?.primaryKeyValue == 1)
        // The inverse of a sub-entity's relationship.
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        #expect(board.relatedRecords("inwards").map(\.primaryKeyValue) == [8, 7])
        #expect(board.relatedRecords("inwards").map(\.entity.name) == ["InwardLink", "InwardLink"])
        // A one-to-one whose key is the relationship, from both sides.
        try Self.populate(store, #"[{"id": "ann", "profile": {"bio": "hi"}}]"#, entity: "Account")
        let ann = try #require(try store.fetchOne("Account", primaryKey: "ann"))
        let profile = try #require(ann.related("profile"))
        #expect(profile["bio"] as String? == "hi")
        #expect(profile.primaryKeyValue == "ann")
        #expect(profile.related("account")?.rowID == ann.rowID)
        #expect(ann.relatedRecords("boards").map(\.primaryKeyValue) == [1])
    }

    @Test func navigationOfAnUnknownRelationshipIsEmptyAndLogged() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .info)
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        log.removeAll()
        #expect(board.related("nothing") == nil)
        #expect(board.relatedRecords("nothing").isEmpty)
        let errors = log.events.filter { $0.level == .error }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.message.contains("Board(_id: 1") && $0.message.contains("nothing") })
    }

    // MARK: - Registered classes

    @Test func registeredClassesAreUsedForSubentitiesInFetchesAndNavigation() throws {
        let store = try Self.makeStore()
        store.register(recordClass: RecordAPILinkRecord.self)
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let links = try store.fetch("Link", orderBy: [.ascending("id")])
        #expect(links.map(\.primaryKeyValue) == [3, 4, 5, 7, 8])
        #expect(links.allSatisfy { type(of: $0) == RecordAPILinkRecord.self })
        store.register(recordClass: RecordAPIInwardRecord.self)
        let board = try #require(try store.fetchOne("Board", primaryKey: 1))
        let related: [RecordAPILinkRecord] = board.relatedRecords("links")
        #expect(related.count == 3)
        let classes = Dictionary(
            uniqueKeysWithValues: related.map { ($0.primaryKeyValue ?? .null, String(describing: type(of: $0))) })
        #expect(classes == [5: "RecordAPILinkRecord", 3: "RecordAPIInwardRecord", 4: "RecordAPILinkRecord"])
        let inwards: [RecordAPIInwardRecord] = board.relatedRecords("inwards")
        #expect(inwards.map(\.primaryKeyValue) == [8, 7])
        let typed: [RecordAPILinkRecord] = try store.fetch(RecordAPILinkRecord.self)
        #expect(typed.count == 5)
    }

    /// "`fetch(Post.self, ...)` fetches the entity the class is registered for (or its
    /// `entityName`) and returns `[Post]`": a class that is not registered, but stands for its
    /// entity by `entityName`, gets the records, as navigation makes them ("registered or not").
    @Test func fetchingAsAnUnregisteredClassReturnsItsEntitysRecords() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let boards = try store.fetch(RecordAPIUnregisteredBoard.self)
        #expect(boards.map(\.primaryKeyValue) == [1, 2])
        // Navigation makes the same class from the same rows.
        let pin = try #require(try store.fetchOne("Pin", primaryKey: 30))
        let viaNavigation: RecordAPIUnregisteredBoard? = pin.related("board")
        #expect(viaNavigation?.primaryKeyValue == 1)
    }

    @Test func aClassOfAnotherEntityGivesNilAndAWarningNamingIt() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .info)
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let pin = try #require(try store.fetchOne("Pin", primaryKey: 30))
        log.removeAll()
        let wrong: RecordAPILinkRecord? = pin.related("board")
        #expect(wrong == nil)
        let warnings = log.events.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("RecordAPILinkRecord") == true)
        // `Link` is an entity of the schema: registering the class for `Board` would make links
        // boards, so the warning says which class to ask for instead (Docs/Records.md).
        #expect(warnings.first?.message.contains("ask for it as the class of Board") == true)
        #expect(warnings.first?.message.contains("register") == false)
    }

    // MARK: - Fetching

    /// "arguments: the values for the `?` placeholders": a limit must never be bound to a
    /// placeholder of the condition when too few arguments are given.
    @Test func tooFewArgumentsNeverShiftTheLimitIntoTheCondition() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        // Two placeholders, one argument, limit 20: the limit must not become the second key.
        let error = webRecordError {
            try store.fetch("Pin", where: #""id" = ? OR "id" = ?"#, arguments: [10], limit: 20)
        }
        #expect(error != nil, "\(String(describing: error))")
    }

    @Test func tooFewArgumentsFailRatherThanMatchNothing() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        #expect(webRecordError { try store.fetch("Pin", where: #""id" = ? OR "id" = ?"#, arguments: [10]) } != nil)
        #expect(webRecordError { try store.count("Pin", where: #""id" = ?"#) } != nil)
    }

    @Test func tooManyArgumentsAreAStoreError() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let error = webRecordError { try store.fetch("Pin", where: #""id" = ?"#, arguments: [10, 20]) }
        #expect(error?.code == .storeError)
    }

    @Test func nullArgumentsAndInjectionAttemptsAreBoundAsValues() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let none: String? = nil
        #expect(try store.fetch("Pin", where: #""note" IS ?"#, arguments: [none]).map(\.primaryKeyValue) == [10, 20])
        #expect(try store.count("Pin", where: #""note" = ?"#, arguments: [none]) == 0)
        let injected = "c' OR '1'='1"
        #expect(try store.fetch("Pin", where: #""note" = ?"#, arguments: [injected]).isEmpty)
        let dropping = "c\"; DROP TABLE \"Pin\"; --"
        #expect(try store.count("Pin", where: #""note" = ?"#, arguments: [dropping]) == 0)
        #expect(try store.count("Pin") == 3)
        // A predicate ending with a comment still leaves the subentity filter in force.
        #expect(try store.count("InwardLink", where: "1 = 1 -- ") == 3)
    }

    @Test func countsFollowTheSameRulesAsFetches() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        #expect(try store.count("Link") == 5)
        #expect(try store.count("Link", includingSubentities: false) == 1)
        #expect(try store.count("InwardLink") == 3)
        #expect(try store.count("Link", where: #""id" > ?"#, arguments: [4]) == 3)
        #expect(try store.count("Link", where: #""board" = ?"#, arguments: [1]) == 3)
        #expect(webRecordError { try store.count("Nope") }?.code == .invalidEntityDescription)
    }

    @Test func limitsAndOffsetsAtTheirEdges() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        let keys = { (records: [Record]) in records.map(\.primaryKeyValue) }
        #expect(keys(try store.fetch("Pin", limit: 0)) == [])
        #expect(keys(try store.fetch("Pin", limit: Int.max)) == [30, 10, 20])
        #expect(keys(try store.fetch("Pin", offset: Int.max)) == [])
        #expect(keys(try store.fetch("Pin", limit: Int.max, offset: 2)) == [20])
        #expect(keys(try store.fetch("Pin", offset: 1)) == [10, 20])
        #expect(keys(try store.fetch("Pin", limit: 1, offset: 1)) == [10])
    }

    /// "limit: the most records to return": a negative limit returns no record, as navigation
    /// treats one (`LIMIT max(0, limit)`), never every record.
    @Test func aNegativeLimitReturnsNothing() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        #expect(try store.fetch("Pin", limit: -1).isEmpty)
    }

    @Test func fetchOneNormalizesKeysOfEveryKind() throws {
        let store = try Self.makeStore()
        try Self.populate(store, Self.boardResponse, entity: "Board")
        try Self.populate(store, #"[{"id": "42"}]"#, entity: "Account")
        try Self.populate(
            store, #"[{"group": "g1", "number": 2, "role": "a"}, {"group": "g2", "number": 1, "role": "b"}]"#,
            entity: "Membership")
        #expect(try store.fetchOne("Board", primaryKey: "1")?.primaryKeyValue == 1)
        #expect(try store.fetchOne("Board", primaryKey: 1.0)?.primaryKeyValue == 1)
        #expect(try store.fetchOne("Board", primaryKey: 99) == nil)
        #expect(try store.fetchOne("Account", primaryKey: 42)?.primaryKeyValue == "42")
        #expect(try store.fetchOne("Membership", primaryKey: ["g1", "2"])?["role"] as String? == "a")
        #expect(try store.fetchOne("Membership", primaryKey: ["g2", 1])?["role"] as String? == "b")
        #expect(try store.fetchOne("Membership", primaryKey: ["g2", 2]) == nil)
        #expect(try store.fetchOne("Membership", primaryKey: ["g1", 2])?.primaryKeyValue == ["g1", 2])
        // A sub-entity finds only its own records; the parent finds every one.
        #expect(try store.fetchOne("InwardLink", primaryKey: 5) == nil)
        #expect(try store.fetchOne("Link", primaryKey: "5")?.entity.name == "OutwardLink")
    }

    @Test func fetchOneRefusesValuesThatCannotBeKeys() throws {
        let store = try Self.makeStore()
        let cases: [(String, JSONValue, String?)] = [
            ("Board", "12abc", "id"), ("Board", 1.5, "id"), ("Board", nil, "id"), ("Board", [1], "id"),
            ("Membership", ["g1"], nil), ("Membership", ["g1", 2, 3], nil), ("Membership", "g1", nil),
            ("Membership", ["g1", "x"], "number"), ("Profile", "ann", nil),
        ]
        for (entity, key, property) in cases {
            let error = webRecordError { try store.fetchOne(entity, primaryKey: key) }
            #expect(error?.code == .invalidArgument, "\(entity) \(key.serialized())")
            if let property { #expect(error?.property == property, "\(entity) \(key.serialized())") }
        }
        #expect(webRecordError { try store.fetchOne("Nope", primaryKey: 1) }?.code == .invalidEntityDescription)
    }

    // MARK: - The debugger

    @Test func everyNonFatalErrorIsCollectedOnceInResponseOrderWithItsContext() throws {
        let store = try Self.makeStore()
        let result = try Self.populate(
            store,
            #"""
            [{"id": "a1", "pin": "12x"},
             {"name": "no key"},
             {"id": "a2", "active": "perhaps"},
             {"id": "a3", "seen": "2024-13-01T00:00:00Z"}]
            """#,
            entity: "Account")
        // In the order met: what building the records records (a record without its key) comes
        // before what writing them records (Population.md, "Errors in the response's order").
        let errors = result.debugger.errors
        #expect(errors.map(\.code) == [.missingPrimaryKey, .typeMismatch, .typeMismatch, .typeMismatch])
        #expect(errors.map(\.entity) == ["Account", "Account", "Account", "Account"])
        #expect(errors.map(\.property) == [nil, "pin", "active", "seen"])
        #expect(errors.map(\.keyPath) == ["id", "pin", "active", "seen"])
        #expect(errors.map(\.value) == [["name": "no key"], "12x", "perhaps", "2024-13-01T00:00:00Z"])
        #expect(errors.allSatisfy { !$0.isFatal })
        #expect(result.debugger.primaryError == nil)
        // Non-fatal errors stop nothing: the rest of each record is stored.
        #expect(result.records.map(\.primaryKeyValue) == ["a1", "a2", "a3"])
        #expect(try store.fetchOne("Account", primaryKey: "a1")?["pin"] as Int? == nil)
    }

    /// Decision 10: "every rejected value is a non-fatal `typeMismatch`". A refused value that
    /// a later occurrence of the same record replaces was rejected all the same, as one that
    /// comes after a valid value is (decision 7).
    @Test func aRefusedValueIsReportedWhetherItComesBeforeOrAfterAValidOne() throws {
        let store = try Self.makeStore()
        let after = try Self.populate(
            store, #"[{"id": "a1", "pin": 7}, {"id": "a1", "pin": "12x"}]"#, entity: "Account")
        #expect(after.debugger.errors.map(\.code) == [.typeMismatch])
        #expect(after.debugger.errors.map(\.value) == ["12x"])
        let before = try Self.populate(
            store, #"[{"id": "a2", "pin": "12x"}, {"id": "a2", "pin": 7}]"#, entity: "Account")
        #expect(before.debugger.errors.map(\.code) == [.typeMismatch])
        #expect(before.debugger.errors.map(\.value) == ["12x"])
        #expect(try store.fetchOne("Account", primaryKey: "a2")?["pin"] as Int? == 7)
    }

    @Test func aRefusedValueInARepeatedRecordIsReportedOnce() throws {
        let store = try Self.makeStore()
        let result = try Self.populate(
            store, #"[{"id": "a1", "pin": 5}, {"id": "a1", "pin": "bad"}, {"id": "a1", "name": "x"}]"#,
            entity: "Account")
        #expect(result.debugger.errors.map(\.code) == [.typeMismatch])
        #expect(result.debugger.errors.first?.value == "bad")
        #expect(try store.fetchOne("Account", primaryKey: "a1")?["pin"] as Int? == 5)
    }

    @Test func aNestedRecordsErrorsNameTheNestedEntity() throws {
        let store = try Self.makeStore()
        let result = try Self.populate(
            store, #"[{"id": 1, "pins": [{"id": 2, "note": "ok"}, {"id": "two"}], "owner": {"id": "o", "pin": "x"}}]"#,
            entity: "Board")
        // Pin "two": the refused key value (decision 10), then the record left out (decision 5).
        let errors = result.debugger.errors
        #expect(errors.map(\.code) == [.typeMismatch, .missingPrimaryKey, .typeMismatch], "\(errors)")
        #expect(errors.map(\.entity) == ["Pin", "Pin", "Account"])
        #expect(errors.map(\.property) == ["id", nil, "pin"])
        #expect(errors.first?.value == "two")
        #expect(errors.last?.value == "x")
        #expect(try store.count("Pin") == 1)
    }

    @Test func aFatalErrorRollsBackAndTheDebuggerKeepsEveryError() throws {
        let store = try Self.makeStore()
        try Self.populate(store, #"[{"id": "keep", "name": "before"}]"#, entity: "Account")
        let before = try dumpContent(store)
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let error = webRecordError {
            try Self.populate(
                store, #"[{"id": "keep", "name": "after", "pin": "bad"}, {"name": "no key"}]"#, entity: "Account",
                options: options)
        }
        #expect(error?.isFatal == true)
        #expect(error?.code == .invalidResponseFormat)
        let debugger = try #require(error?.debugger)
        // The response fails while its records are built, before any value is coerced: the
        // errors met are the unidentified record and the failure.
        #expect(debugger.errors.map(\.code) == [.missingPrimaryKey, .invalidResponseFormat])
        #expect(debugger.primaryError?.code == .invalidResponseFormat)
        #expect(debugger.warnings.count == 1)
        #expect(try dumpContent(store) == before)
    }

    // MARK: - Logging

    @Test func infoLogsEachDebuggerEntryOnceAtItsLevelAndNothingElse() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .info)
        let result = try Self.populate(
            store, #"[{"id": "a1", "pin": "12x"}, {"name": "no key"}, {"id": "a2"}]"#, entity: "Account")
        #expect(result.debugger.errors.count == 2)
        #expect(log.events.map(\.level) == [.warning, .warning])
        #expect(log.events.map(\.message) == result.debugger.errors.map(\.description))
        var options = PopulationOptions()
        options.deleteOrphans = .all
        log.removeAll()
        let error = webRecordError {
            try Self.populate(store, #"[{"id": "a1"}, {"name": "no key"}]"#, entity: "Account", options: options)
        }
        #expect(error?.debugger?.errors.count == 2)
        #expect(log.events.map(\.level) == [.warning, .error])
    }

    @Test func noneLogsNothingAndDebugLogsEachChange() throws {
        let silent = InMemoryLogHandler()
        let quiet = try Self.makeStore(log: silent, level: nil)
        try Self.populate(quiet, #"[{"id": "a1", "pin": "12x"}, {"name": "no key"}]"#, entity: "Account")
        #expect(silent.events.isEmpty)
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .debug)
        try Self.populate(store, #"[{"id": "ann", "name": "Ann"}]"#, entity: "Account")
        try Self.populate(store, #"[{"id": "ann", "name": "Anne"}]"#, entity: "Account")
        #expect(log.events.allSatisfy { $0.level >= .debug })
        #expect(log.events.contains { $0.message.contains("created Account(\"ann\")") })
        #expect(log.events.contains { $0.message.contains(#"name "Ann" -> "Anne""#) })
    }

    // MARK: - Secrets

    static let secret = "sk_live_51HzQ9example"

    /// A value refused for an attribute whose name is secret (`token`) is quoted neither in the
    /// error nor in the log.
    @Test func aRefusedSecretValueIsNeverPrinted() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .all)
        let result = try Self.populate(
            store, #"[{"id": "a1", "token": "\#(Self.secret)"}]"#, entity: "Account")
        let error = try #require(result.debugger.errors.first)
        #expect(error.code == .typeMismatch)
        #expect(!error.description.contains(Self.secret))
        #expect(!String(reflecting: error).contains(Self.secret))
        #expect(!log.events.contains { $0.description.contains(Self.secret) })
    }

    /// "a column whose name is a secret, such as `password`, shows `<redacted>`": in update
    /// lines, and in every other line of every level.
    @Test func passwordsAreRedactedAtEveryLevel() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .all)
        try Self.populate(store, #"[{"id": "ann", "password": "first-pw-value"}]"#, entity: "Account")
        try Self.populate(store, #"[{"id": "ann", "password": "second-pw-value"}]"#, entity: "Account")
        #expect(log.events.contains { $0.message.contains("password <redacted> -> <redacted>") })
        #expect(!log.events.contains { $0.description.contains("first-pw-value") })
        #expect(!log.events.contains { $0.description.contains("second-pw-value") })
    }

    /// A duplicate's conflicting secret value is logged ("'password' changes from ...") without
    /// the values.
    @Test func aConflictOverASecretValueIsLoggedWithoutIt() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .debug)
        try Self.populate(
            store, #"[{"id": "ann", "password": "third-pw-value"}, {"id": "ann", "password": "fourth-pw-value"}]"#,
            entity: "Account")
        #expect(log.events.contains { $0.message.contains("password") })
        let leaking = log.events.map(\.description).filter {
            $0.contains("third-pw-value") || $0.contains("fourth-pw-value")
        }
        #expect(leaking.isEmpty, "\(leaking)")
        #expect(!log.events.contains { $0.description.contains("third-pw-value") })
        #expect(!log.events.contains { $0.description.contains("fourth-pw-value") })
    }

    /// A record without a key quotes its dictionary, secret members redacted.
    @Test func aMissingKeyWarningRedactsSecretMembers() throws {
        let log = InMemoryLogHandler()
        let store = try Self.makeStore(log: log, level: .info)
        let result = try Self.populate(
            store, #"[{"name": "x", "password": "fifth-pw-value"}, {"id": "b"}]"#, entity: "Account")
        let error = try #require(result.debugger.errors.first)
        #expect(error.code == .missingPrimaryKey)
        #expect(!error.description.contains("fifth-pw-value"))
        #expect(!String(reflecting: error).contains("fifth-pw-value"))
        #expect(!log.events.contains { $0.description.contains("fifth-pw-value") })
    }
}
