import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// The statements a population runs for links outside its own rows, as Population.md lists
/// them: each link is read once, decided in Swift, and only what changed is written.
@Suite struct LinkStatementCountTests {
    static let schemaJSON = """
        {
          "entities": {
            "Board": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": {
                "cards": { "destination": "Card", "toMany": true, "ordered": true, "inverse": "board" },
                "notes": { "destination": "Note", "toMany": true, "ordered": true, "inverse": "board", "merge": "union" },
                "tags": { "destination": "Tag", "toMany": true, "ordered": true, "inverse": "boards" },
                "pins": { "destination": "Pin", "toMany": true, "inverse": "board", "deleteRule": "cascade" }
              }
            },
            "Pin": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "board": { "destination": "Board", "inverse": "pins" } }
            },
            "Card": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "board": { "destination": "Board", "inverse": "cards" } }
            },
            "Note": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "board": { "destination": "Board", "inverse": "notes" } }
            },
            "Tag": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "boards": { "destination": "Board", "toMany": true, "inverse": "tags" } }
            },
            "Person": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": {
                "friends": { "destination": "Person", "toMany": true, "ordered": true, "inverse": "friends" },
                "spouse": { "destination": "Person", "inverse": "spouse" },
                "badge": { "destination": "Badge", "inverse": "holder" }
              }
            },
            "Badge": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "holder": { "destination": "Person", "inverse": "badge" } }
            }
          }
        }
        """

    func store() throws -> RecordingStore {
        try RecordingStore(schema: Schema(json: Self.schemaJSON, fileName: "Links.json"))
    }

    /// How many of the statements run since the last reset start with `prefix` and hold `fragment`.
    func count(_ test: RecordingStore, _ prefix: String, _ fragment: String = "") -> Int {
        test.statements.filter { $0.hasPrefix(prefix) && (fragment.isEmpty || $0.contains(fragment)) }.count
    }

    @Test func aReplacedListReadsItsMembersOnceAndClearsEachDroppedOne() throws {
        let test = try store()
        _ = try test.store.populate(
            json(#"[{"id": "b1", "cards": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}]}]"#), entity: "Board")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "b1", "cards": [{"id": "c1"}]}]"#), entity: "Board")
        #expect(count(test, "SELECT", #"FROM "Card" WHERE "board" = ?"#) == 1, "\(test.statements)")
        #expect(
            count(test, #"UPDATE "Card" SET "board" = ?, "_position_board" = ? WHERE "_id" = ? AND "board" = ?"#) == 2)
        let board = try #require(try test.store.fetchOne("Board", primaryKey: "b1"))
        #expect(board.relatedRecords("cards").map { $0["id"] as String? } == ["c1"])
    }

    @Test func aDroppedMemberUnderTheCascadeRuleIsDeletedWithOneStatement() throws {
        let test = try store()
        _ = try test.store.populate(json(#"[{"id": "b1", "pins": [{"id": "q1"}, {"id": "q2"}]}]"#), entity: "Board")
        test.resetStatements()
        let result = try test.store.populate(json(#"[{"id": "b1", "pins": [{"id": "q1"}]}]"#), entity: "Board")
        #expect(count(test, #"DELETE FROM "Pin" WHERE "_id" = ?"#) == 1, "\(test.statements)")
        #expect(result.changes.deleted == 1)
        #expect(try test.store.fetch("Pin").map { $0["id"] as String? } == ["q1"])
    }

    @Test func anOrderedUnionReadsPositionsOnceAndMovesOnlyTheMembersWhosePositionChanges() throws {
        let test = try store()
        _ = try test.store.populate(
            json(#"[{"id": "b1", "notes": [{"id": "n1"}, {"id": "n2"}, {"id": "n3"}]}]"#), entity: "Board")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "b1", "notes": [{"id": "n4"}]}]"#), entity: "Board")
        #expect(count(test, "SELECT", #"FROM "Note" WHERE "board" = ?"#) == 1, "\(test.statements)")
        // n1, n2 and n3 go after n4, in their order: each moves one place.
        #expect(
            count(
                test,
                #"UPDATE "Note" SET "_position_board" = ? WHERE "_id" = ? AND "board" = ? AND "_position_board" = ?"#)
                == 3)
        let board = try #require(try test.store.fetchOne("Board", primaryKey: "b1"))
        #expect(board.relatedRecords("notes").map { $0["id"] as String? } == ["n4", "n1", "n2", "n3"])

        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "b1", "notes": [{"id": "n4"}, {"id": "n1"}]}]"#), entity: "Board")
        // Listed where they already are, with n2 and n3 after them where they were: nothing moves.
        #expect(count(test, #"UPDATE "Note" SET "_position_board" = ? WHERE "_id" = ?"#) == 0, "\(test.statements)")
        #expect(board.relatedRecords("notes").map { $0["id"] as String? } == ["n4", "n1", "n2", "n3"])
    }

    @Test func joinRowsAreReadOnceThenOnlyWhatChangedIsWritten() throws {
        let test = try store()
        let first = #"[{"id": "b1", "tags": [{"id": "t1"}, {"id": "t2"}, {"id": "t3"}]}]"#
        _ = try test.store.populate(json(first), entity: "Board")
        #expect(count(test, "INSERT INTO \"_Board_tags\"") == 3)
        // A new owner has no join rows to read.
        #expect(count(test, "SELECT", #"FROM "_Board_tags""#) == 0, "\(test.statements)")

        test.resetStatements()
        _ = try test.store.populate(json(first), entity: "Board")
        #expect(count(test, "SELECT", #"FROM "_Board_tags" WHERE "owner" = ?"#) == 1)
        #expect(count(test, "UPDATE \"_Board_tags\"") + count(test, "INSERT INTO \"_Board_tags\"") == 0)
        #expect(count(test, "DELETE FROM \"_Board_tags\"") == 0)

        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "b1", "tags": [{"id": "t3"}, {"id": "t1"}]}]"#), entity: "Board")
        #expect(count(test, "SELECT", #"FROM "_Board_tags" WHERE "owner" = ?"#) == 1)
        #expect(count(test, #"UPDATE "_Board_tags" SET "position" = ? WHERE "owner" = ? AND "target" = ?"#) == 2)
        #expect(count(test, #"DELETE FROM "_Board_tags" WHERE "owner" = ? AND "target" = ?"#) == 1)
        #expect(count(test, "INSERT INTO \"_Board_tags\"") == 0)
        let board = try #require(try test.store.fetchOne("Board", primaryKey: "b1"))
        #expect(board.relatedRecords("tags").map { $0["id"] as String? } == ["t3", "t1"])
    }

    /// A list from the side without positions (a tag's `boards`) that takes a join row out of an
    /// ordered list (board b1's `tags`) leaves a gap there: once every batch is written, one read
    /// of the ordered lists' join rows, and one update per row whose position closes it.
    @Test func aJoinRowTheOtherSideRemovesLeavesNoGapInTheOrderedList() throws {
        let test = try store()
        _ = try test.store.populate(
            json(#"[{"id": "b1", "tags": [{"id": "t1"}, {"id": "t2"}, {"id": "t3"}, {"id": "t4"}]}]"#),
            entity: "Board")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "t2", "boards": []}]"#), entity: "Tag")
        #expect(count(test, #"SELECT "owner", "target", "position" FROM "_Board_tags""#) == 1, "\(test.statements)")
        // t3 and t4 move up one place; t1 stays.
        #expect(
            count(
                test,
                #"UPDATE "_Board_tags" SET "position" = ? WHERE "owner" = ? AND "target" = ? AND "position" = ?"#)
                == 2)
        let board = try #require(try test.store.fetchOne("Board", primaryKey: "b1"))
        #expect(board.relatedRecords("tags").map { $0["id"] as String? } == ["t1", "t3", "t4"])
        let positions = try test.store.read { connection in
            try connection.rows(#"SELECT "position" FROM "_Board_tags" ORDER BY "position""#).map { $0[0] }
        }
        #expect(positions == [.integer(0), .integer(1), .integer(2)])

        // Given again, it takes nothing out: nothing is read again.
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "t2", "boards": []}]"#), entity: "Tag")
        #expect(count(test, #"SELECT "owner", "target", "position" FROM "_Board_tags""#) == 0, "\(test.statements)")
    }

    @Test func aMirroredListReadsWhoListsTheOwnerAndTheirPositionsOnce() throws {
        let test = try store()
        _ = try test.store.populate(json(#"[{"id": "p1", "friends": [{"id": "p2"}, {"id": "p3"}]}]"#), entity: "Person")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "p3", "friends": [{"id": "p2"}]}]"#), entity: "Person")
        #expect(count(test, "SELECT", #"SELECT "owner" FROM "_Person_friends" WHERE "target" = ?"#) == 1)
        #expect(count(test, "SELECT", #"SELECT "owner", "position" FROM "_Person_friends" WHERE "owner" = ?"#) == 1)
        // p3 lists p2 (its own list), p2 lists p3 (the mirror); p3 and p1 no longer list each other.
        #expect(count(test, "INSERT INTO \"_Person_friends\"") == 2, "\(test.statements)")
        #expect(count(test, "DELETE FROM \"_Person_friends\"") == 2)
        let friends = { (id: String) throws -> [String?] in
            try #require(try test.store.fetchOne("Person", primaryKey: .string(id))).relatedRecords("friends").map {
                $0["id"] as String?
            }
        }
        #expect(try friends("p1") == ["p2"])
        #expect(try friends("p2") == ["p1", "p3"])
        #expect(try friends("p3") == ["p2"])
    }

    @Test func aPairReadsOtherHoldersAndThePairsLinksAndWritesOnlyWhatDiffers() throws {
        let test = try store()
        _ = try test.store.populate(json(#"[{"id": "p1", "spouse": {"id": "p2"}}]"#), entity: "Person")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "p3", "spouse": {"id": "p2"}}]"#), entity: "Person")
        // The rows holding p3 or p2 (p1) and what they hold, then the pair's own links.
        #expect(
            count(test, "SELECT t.\"_id\", t.\"spouse\" FROM", #"ON t."spouse" = keys.value"#) == 1,
            "\(test.statements)")
        #expect(count(test, "SELECT t.\"_id\", t.\"spouse\" FROM", #"ON t."_id" = keys.value"#) == 1)
        // p1 is unlinked, if it still holds what was read; p2 and p3 were written with their
        // rows, so their links already agree.
        #expect(count(test, #"UPDATE "Person" SET "spouse" = ? WHERE "_id" = ? AND "spouse" = ?"#) == 1)
        let spouse = { (id: String) throws -> String? in
            try #require(try test.store.fetchOne("Person", primaryKey: .string(id))).related("spouse")?["id"]
        }
        #expect(try spouse("p1") == nil)
        #expect(try spouse("p2") == "p3")
        #expect(try spouse("p3") == "p2")
    }

    @Test func aOneToOneMovingReadsTheRowsHoldingItAndClearsTheOthers() throws {
        let test = try store()
        _ = try test.store.populate(json(#"[{"id": "p1", "badge": {"id": "x1"}}]"#), entity: "Person")
        test.resetStatements()
        _ = try test.store.populate(json(#"[{"id": "p1", "badge": {"id": "x2"}}]"#), entity: "Person")
        #expect(count(test, #"SELECT "_id" FROM "Badge" WHERE "holder" = ?"#) == 1, "\(test.statements)")
        #expect(count(test, #"UPDATE "Badge" SET "holder" = ? WHERE "_id" = ? AND "holder" = ?"#) == 1)
        let badge = { (id: String) throws -> String? in
            try #require(try test.store.fetchOne("Badge", primaryKey: .string(id))).related("holder")?["id"]
        }
        #expect(try badge("x1") == nil)
        #expect(try badge("x2") == "p1")
    }

    @Test func aStoredPositionWithNoPositionAfterItFailsClearlyAndWritesNothing() throws {
        let test = try store()
        _ = try test.store.populate(json(#"[{"id": "m", "friends": [{"id": "x"}]}]"#), entity: "Person")
        try test.store.write { connection in
            try connection.execute(#"UPDATE "_Person_friends" SET "position" = 9223372036854775807"#)
        }
        let before = try test.store.write { connection in try connection.rows(#"SELECT * FROM "_Person_friends""#) }
        // o lists m: m's list gains o after its last member, whose position has no successor.
        let error = #expect(throws: WebRecordError.self) {
            try test.store.populate(json(#"[{"id": "o", "friends": [{"id": "m"}]}]"#), entity: "Person")
        }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("holds position 9223372036854775807") == true, "\(String(describing: error))")
        #expect(
            try test.store.write { connection in try connection.rows(#"SELECT * FROM "_Person_friends""#) } == before)
        #expect(try test.store.fetchOne("Person", primaryKey: "o") == nil)
    }

    @Test func keyTuplesThatDoNotMatchTheirColumnsAreRefused() throws {
        let test = try store()
        let database = try #require(test.store.database as? SQLiteDatabase)
        let error = #expect(throws: WebRecordError.self) {
            try database.inTransaction { transaction in
                try transaction.values(
                    of: ["position"], in: "_Person_friends", where: ["owner", "target"],
                    areIn: KeyTuples(rowIDs: [1, 2, 3]))
            }
        }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("cannot match the 2 columns") == true, "\(String(describing: error))")
        let rows = #expect(throws: WebRecordError.self) {
            try database.inTransaction { transaction in
                try transaction.insert(into: "_Person_friends", columns: ["owner", "target"], values: [.integer(1)])
            }
        }
        #expect(rows?.message.contains("not whole rows") == true, "\(String(describing: rows))")
    }
}
