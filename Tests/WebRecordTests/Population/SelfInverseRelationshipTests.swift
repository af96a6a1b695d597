import Foundation
import TestSupport
import Testing
import WebRecord

/// A relationship that is its own inverse (`friends`, `spouse`) is symmetric (DESIGN §3.11): a
/// record that lists another is listed by it, in exports, fetches and typed accessors, and a
/// self-inverse one-to-one is exclusive.
@Suite struct SelfInverseRelationshipTests {
    static let schema = """
        {"entities": {
          "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "friends": {"destination": "User", "toMany": true, "inverse": "friends"},
              "ranked": {"destination": "User", "toMany": true, "ordered": true, "inverse": "ranked"},
              "pals": {"destination": "User", "toMany": true, "inverse": "pals", "merge": "union"},
              "spouse": {"destination": "User", "inverse": "spouse"}}},
          "Node": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "kind": {"type": "string"}},
            "subentities": {"key": "kind", "map": {"parent": "Parent", "child": "Child", "peer": "Peer"}}},
          "Parent": {"parent": "Node", "relationships": {
            "children": {"destination": "Child", "toMany": true, "inverse": "parent"}}},
          "Child": {"parent": "Node", "relationships": {
            "parent": {"destination": "Parent", "inverse": "children"}}},
          "Peer": {"parent": "Node", "relationships": {
            "peers": {"destination": "Peer", "toMany": true, "inverse": "peers"},
            "twin": {"destination": "Peer", "inverse": "twin"}}}
        }}
        """

    let directory: TemporaryDirectory
    let store: RecordStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(path: directory.path(), schema: Schema(json: Self.schema))
    }

    /// `entity`'s export, as `id -> relationship value`.
    func exported(_ relationship: String, of entity: String = "User") throws -> [Int64: JSONValue] {
        var values: [Int64: JSONValue] = [:]
        for object in try store.exportJSON(entity: entity).arrayValue ?? [] {
            if case .integer(let id)? = object["id"] { values[id] = object[relationship] ?? .null }
        }
        return values
    }

    func related(_ relationship: String, of id: Int64, entity: String = "User") throws -> [Int64] {
        let record = try #require(try store.fetchOne(entity, primaryKey: .integer(id)))
        return record.relatedRecords(relationship, as: Record.self).compactMap {
            if case .integer(let key)? = $0.primaryKeyValue { return key }
            return nil
        }.sorted()
    }

    @Test func aFriendListIsSeenFromBothSides() throws {
        _ = try store.populate(.array([["id": 1, "friends": [2, 3]]]), entity: "User")
        let friends = try exported("friends")
        #expect(friends[1] == [2, 3])
        #expect(friends[2] == [1], "y lists x")
        #expect(friends[3] == [1], "z lists x")
        #expect(try related("friends", of: 2) == [1])
        #expect(try store.fetch("User", where: "id = 3").first?.relatedRecords("friends", as: Record.self).count == 1)
    }

    @Test func replacingOneSideReplacesTheOther() throws {
        _ = try store.populate(.array([["id": 1, "friends": [2, 3]]]), entity: "User")
        // y's list is now [w]: x no longer lists y.
        let result = try store.populate(.array([["id": 2, "friends": [4]]]), entity: "User")
        let friends = try exported("friends")
        #expect(friends[1] == [3])
        #expect(friends[2] == [4])
        #expect(friends[3] == [1])
        #expect(friends[4] == [2])
        #expect(result.changesByEntity["User"]?.inserted == 1)
    }

    @Test func oneResponseGivingBothSidesEndsAsTheLaterSays() throws {
        _ = try store.populate(.array([["id": 1, "friends": [2, 3]], ["id": 2, "friends": [4]]]), entity: "User")
        let friends = try exported("friends")
        #expect(friends[1] == [3])
        #expect(friends[2] == [4])
        #expect(friends[4] == [2])
        // A re-import writes nothing.
        let again = try store.populate(
            .array([["id": 1, "friends": [3]], ["id": 2, "friends": [4]]]), entity: "User")
        #expect(again.changesByEntity["User"]?.updated == 0)
    }

    @Test func aMemberThatGainsTheOwnerCountsAsUpdated() throws {
        _ = try store.populate(.array([["id": 1], ["id": 2]]), entity: "User")
        let result = try store.populate(.array([["id": 1, "friends": [2]]]), entity: "User")
        #expect(result.changesByEntity["User"]?.updated == 2, "1 and 2 both gained a friend")
    }

    @Test func anOrderedListIsSymmetricAndTheOtherSideGainsTheOwnerLast() throws {
        _ = try store.populate(.array([["id": 2, "ranked": [5, 6]]]), entity: "User")
        _ = try store.populate(.array([["id": 1, "ranked": [3, 2]]]), entity: "User")
        let ranked = try exported("ranked")
        #expect(ranked[1] == [3, 2])
        #expect(ranked[2] == [5, 6, 1])
        #expect(ranked[3] == [1])
        _ = try store.populate(.array([["id": 2, "ranked": [6]]]), entity: "User")
        #expect(try exported("ranked")[1] == [3])
    }

    @Test func aUnionListIsSymmetricAndRemovesNothing() throws {
        _ = try store.populate(.array([["id": 1, "pals": [2]]]), entity: "User")
        _ = try store.populate(.array([["id": 2, "pals": [3]]]), entity: "User")
        let pals = try exported("pals")
        #expect(pals[1] == [2])
        #expect(pals[2] == [1, 3])
        #expect(pals[3] == [2])
    }

    @Test func deletingAFriendRemovesItFromEveryList() throws {
        _ = try store.populate(.array([["id": 1, "friends": [2, 3]]]), entity: "User")
        var options = PopulationOptions()
        options.deleteOrphans = .all
        _ = try store.populate(.array([["id": 2], ["id": 3]]), entity: "User", options: options)
        #expect(try exported("friends") == [2: [], 3: []])
    }

    @Test func aSpouseIsSymmetricAndExclusive() throws {
        _ = try store.populate(.array([["id": 1, "spouse": 2]]), entity: "User")
        var spouses = try exported("spouse")
        #expect(spouses[1] == 2)
        #expect(spouses[2] == 1, "b's spouse is a")
        #expect(try store.fetchOne("User", primaryKey: 2)?.related("spouse", as: Record.self)?.primaryKeyValue == 1)

        _ = try store.populate(.array([["id": 3, "spouse": 1]]), entity: "User")
        spouses = try exported("spouse")
        #expect(spouses[3] == 1)
        #expect(spouses[1] == 3, "a's spouse is now c")
        #expect(spouses[2] == .null, "b is no longer married to a")

        _ = try store.populate(.array([["id": 3, "spouse": nil]]), entity: "User")
        spouses = try exported("spouse")
        #expect(spouses[3] == .null)
        #expect(spouses[1] == .null, "clearing one side clears the other")
    }

    @Test func oneResponseMarryingAChainEndsAsTheLaterSays() throws {
        _ = try store.populate(.array([["id": 1, "spouse": 2], ["id": 2, "spouse": 3]]), entity: "User")
        let spouses = try exported("spouse")
        #expect(spouses[1] == .null)
        #expect(spouses[2] == 3)
        #expect(spouses[3] == 2)
    }

    @Test func aSubentitysSelfInverseIsSymmetricInTheHierarchysTable() throws {
        _ = try store.populate(
            .array([
                ["id": 1, "kind": "peer", "peers": [["id": 2, "kind": "peer"]], "twin": ["id": 3, "kind": "peer"]]
            ]),
            entity: "Node")
        #expect(try exported("peers", of: "Node")[2] == [1])
        #expect(try exported("twin", of: "Node")[3] == 1)
        #expect(try related("peers", of: 2, entity: "Peer") == [1])
    }

    @Test func twoSubentitiesInverseOfEachOtherInOneTableAgree() throws {
        _ = try store.populate(
            .array([
                ["id": 1, "kind": "parent", "children": [["id": 2, "kind": "child"], ["id": 3, "kind": "child"]]]
            ]),
            entity: "Node")
        #expect(try exported("parent", of: "Node")[2] == 1)
        #expect(try related("children", of: 1, entity: "Parent") == [2, 3])
        _ = try store.populate(.array([["id": 3, "kind": "child", "parent": nil]]), entity: "Node")
        #expect(try related("children", of: 1, entity: "Parent") == [2])
    }
}
