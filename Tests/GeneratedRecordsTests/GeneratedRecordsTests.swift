import AtlassianRecords
import Foundation
import GeneratedClashRecords
import Testing
import WebRecord

/// Classes that `webrecord generate-swift` wrote, used as a user's code uses them: the
/// Atlassian example's (sub-entities as subclasses) and those of a schema whose names Swift or
/// `Record` already uses (Tests/GeneratedRecordsTests/Clashes.json). Both targets are built with
/// warnings as errors; GenerateSwiftCommandTests checks that they are what the generator writes.
@Suite struct GeneratedRecordsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func response(_ name: String) throws -> JSONValue {
        try JSONReader().read(
            Data(contentsOf: packageRoot.appendingPathComponent("Tests/WebRecordTests/Fixtures/mmrecord/\(name)")))
    }

    // MARK: - Atlassian

    func atlassianStore() throws -> RecordStore {
        let store = try RecordStore(
            inMemory: Schema(contentsOf: Self.packageRoot.appendingPathComponent("Schemas/Atlassian.json")))
        AtlassianRecords.register(on: store)
        return store
    }

    @Test func subEntitiesAreSubclassesOfTheirParentsClass() throws {
        let store = try atlassianStore()
        _ = try store.populate(Self.response("atlassian-issue.json"), entity: "Issue")
        let issue = try #require(try store.fetch(Issue.self).first)
        #expect(issue.primaryKey == "EX-1")
        let links: [Link] = issue.issueLinks
        #expect(links.map(\.key) == ["PRJ-2", "PRJ-3"])
        #expect(links.first is OutwardLink)
        #expect(links.last is InwardLink)
        #expect(links.map { $0.issue?.primaryKey } == ["EX-1", "EX-1"])
        #expect(try store.fetch(InwardLink.self).map(\.id) == [links[1].id])
    }

    @Test func theNamespaceListsAndRegistersEveryClass() throws {
        #expect(
            AtlassianRecords.classes.map(\.entityName) == ["Issue", "Link", "InwardLink", "OutwardLink", "Plan"])
        let store = try atlassianStore()
        let plans = try store.populate(Self.response("atlassian-plans.json"), entity: "Plan").records
        // Registered, the store makes its records of the generated classes.
        #expect(plans.allSatisfy { $0 is Plan })
        #expect(try store.fetch(Plan.self).map(\.id) == ["MYPLAN1", "MYPLAN2", "MYPLAN3"])
        #expect(try store.fetch(Plan.self).first?.name == "My Plan 1")
    }

    // MARK: - Awkward names

    func clashStore() throws -> RecordStore {
        let url = try #require(Bundle.module.url(forResource: "Clashes", withExtension: "json"))
        let store = try RecordStore(inMemory: Schema(contentsOf: url))
        ClashesRecords.register(on: store)
        return store
    }

    static let typeResponse: JSONValue = [
        "id": 7, "class": "first", "default": true, "self": "me", "init": 2.5, "entity": "not the entity",
        "rowID": 99, "description": "described", "hash": 12, "Type": "kind", "thread_id": "t-1", "threadID": "t-2",
        "avatar_URL": "https://example.com/a.png", "is_2fa": true, "created": "2012-11-21T02:33:42.000000000Z",
        "extra": ["a": [1, true]], "price": "12.345", "token": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
        "bytes": "AQID",
        "related": ["day": "2013-01-02T00:00:00.000000000Z"],
        "store": [["name": "swift", "version": 6, "repeat": "again", "self": ["id": 7]]],
    ]

    @Test func renamedAndEscapedAccessorsReadTheirAttributes() throws {
        let store = try clashStore()
        _ = try store.populate(Self.typeResponse, entity: "Type")
        let record = try #require(try store.fetch(TypeRecord.self).first)
        #expect(record.id == 7)
        #expect(record.class == "first")
        #expect(record.default == true)
        #expect(record.selfAttribute == "me")
        #expect(record.initAttribute == 2.5)
        #expect(record.entityAttribute == "not the entity")
        #expect(record.entity.name == "Type")  // Record's own member is untouched
        #expect(record.rowIDAttribute == 99)
        #expect(record.rowID != 99)
        #expect(record.description == "described")
        #expect(record.hash == 12)
        #expect(record.type == "kind")
        #expect(record.threadID == "t-1")
        #expect(record.threadID2 == "t-2")
        #expect(record.avatarURL == URL(string: "https://example.com/a.png"))
        #expect(record.is2fa == true)
        #expect(record.created == Foundation.Date(timeIntervalSince1970: 1_353_465_222))
        #expect(record.extra == ["a": [1, true]])
        #expect(record.price == Decimal(string: "12.345"))
        #expect(record.token == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(record.bytes == Data([1, 2, 3]))
    }

    @Test func relationshipsAreTypedByTheirDestinationsClasses() throws {
        let store = try clashStore()
        _ = try store.populate(Self.typeResponse, entity: "Type")
        let record = try #require(try store.fetch(TypeRecord.self).first)
        // `related` is Record's; the relationship of that name is `relatedRelationship`, a `Date`
        // of this schema (not Foundation's).
        let date: GeneratedClashRecords.Date? = record.relatedRelationship
        #expect(date?.day == Foundation.Date(timeIntervalSince1970: 1_357_084_800))
        #expect(date?.owner?.id == 7)
        let stored: [GeneratedClashRecords.Record] = record.storeRelationship
        #expect(stored.count == 1)
        let proto = try #require(stored.first as? ProtocolRecord)
        #expect(proto.name == "swift")
        #expect(proto.version == 6)
        #expect(proto.repeat == "again")
        #expect(proto.selfRelationship?.id == 7)
        #expect(proto.type?.id == 7)
    }

    @Test func aStubHasItsKeyAndNilForItsRequiredAttributes() throws {
        let store = try clashStore()
        // A record refers to Type 8 by key alone: the store makes a stub with just that key.
        _ = try store.populate(["name": "stub", "version": 1, "type": 8], entity: "Record")
        let stub = try #require(try store.fetch(TypeRecord.self).first)
        #expect(stub.id == 8)
        #expect(stub.class == nil)
        #expect(stub.default == nil)
    }
}
