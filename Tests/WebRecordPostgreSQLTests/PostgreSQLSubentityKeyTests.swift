import Foundation
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A key that a sub-entity of a keyless parent declares identifies its records in PostgreSQL as
/// in SQLite (DESIGN §3.3): the same rows and changes, a unique index on the sub-entity's key,
/// and a store made before the index was kept is given it, or refused when its rows repeat a
/// key.
@Suite struct PostgreSQLSubentityKeyTests {
    static func schema() throws -> Schema { try Schema(json: subentityKeySchemaJSON, fileName: "Family.json") }

    static let steps: [(entity: String, json: String)] = [
        ("Toy", #"[{"id": 1, "label": "ball", "owner": "c1"}]"#),
        ("Human", subentityKeyFamilyJSON),
        ("Human", subentityKeyFamilyJSON),
        ("Human", #"[{"kind": "child", "childID": "c9", "father": 42}]"#),
        ("Human", #"[{"kind": "grandparent", "parentID": "42", "name": "Late"}]"#),
    ]

    @Test func reimportsAndReferencesGiveTheSameRowsAsSQLiteAndNoDuplicate() throws {
        let schema = try Self.schema()
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        for (index, step) in Self.steps.enumerated() {
            let response = try JSONReader().read(step.json)
            let expected = try ResponsePopulation(store: sqlite).populate(response, entity: step.entity)
            let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: step.entity)
            #expect(result.changes == expected.changes, "step \(index)")
            if index == 2 { #expect(result.changes.inserted == 0 && result.changes.updated == 0, "\(result.changes)") }
            #expect(
                try PostgreSQLStores.content(of: postgreSQL) == PostgreSQLStores.content(of: sqlite), "step \(index)")
        }
        let count = try postgreSQL.withConnection {
            try $0.rows(#"SELECT "_entity", count(*) FROM "Human" GROUP BY 1 ORDER BY 1"#)
        }
        #expect(
            count == [
                [.text("Child"), .integer(4)], [.text("Grandparent"), .integer(2)], [.text("Parent"), .integer(1)],
            ])
    }

    @Test func theUniqueIndexesRefuseARepeatedKey() throws {
        let postgreSQL = try PostgreSQLStores.postgreSQL(try Self.schema())
        _ = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(subentityKeyFamilyJSON), entity: "Human")
        let indexes = try postgreSQL.withConnection {
            try $0.rows("SELECT indexname FROM pg_catalog.pg_indexes WHERE indexname LIKE '\\_pk\\_%' ORDER BY 1")
        }
        #expect(indexes == [[.text("_pk_Human_Child")], [.text("_pk_Human_Parent")], [.text("_pk_Toy")]])
        #expect(throws: WebRecordError.self) {
            try postgreSQL.write { connection in
                try connection.execute(#"INSERT INTO "Human" ("_entity", "childID") VALUES ('Child', 'c1')"#)
            }
        }
    }

    /// Makes the store one written before sub-entity keys were kept unique.
    static func dropSubentityKeys(_ database: PostgreSQLDatabase) throws {
        try database.write { connection in
            try connection.execute(#"DROP INDEX "_pk_Human_Parent""#)
            try connection.execute(#"DROP INDEX "_pk_Human_Child""#)
            try connection.execute(
                #"UPDATE "_webrecord_metadata" SET "value" = ("value"::jsonb #- '{tables,Human,subentityKeys}')::text WHERE "key" = 'layout'"#
            )
        }
    }

    @Test func anOlderStoreGetsTheIndexesOrIsRefusedWhenItsRowsRepeatAKey() throws {
        let location = try PostgreSQLStores.newDatabase()
        let old = try PostgreSQLStores.postgreSQL(try Self.schema(), at: location)
        _ = try ResponsePopulation(store: old).populate(try JSONReader().read(subentityKeyFamilyJSON), entity: "Human")
        try Self.dropSubentityKeys(old)
        _ = try old.write { connection in
            try connection.execute(#"INSERT INTO "Human" ("_entity", "parentID") VALUES ('Parent', 7)"#)
        }
        let rows = #"SELECT "_id", "_entity", "parentID", "childID" FROM "Human" ORDER BY 1"#
        let before = try old.withConnection { try $0.rows(rows) }
        old.close()

        let reopened = try PostgreSQLStores.postgreSQL(try Self.schema(), at: location)
        let error = try #require(throws: WebRecordError.self) {
            _ = try ResponsePopulation(store: reopened).populate(
                try JSONReader().read(subentityKeyFamilyJSON), entity: "Human")
        }
        #expect(error.code == .incompatibleStore)
        #expect(error.message.contains("the stored records of Parent.parentID repeat a key"), "\(error)")
        #expect(try reopened.withConnection { try $0.rows(rows) } == before)

        // Without the repeated row, the index is made and the records are found.
        try reopened.withConnection { connection in
            _ = try connection.execute(#"DELETE FROM "Human" WHERE "_id" = (SELECT max("_id") FROM "Human")"#)
        }
        let result = try ResponsePopulation(store: reopened).populate(
            try JSONReader().read(subentityKeyFamilyJSON), entity: "Human")
        #expect(result.changes.inserted == 0, "\(result.changes)")
        let indexes = try reopened.withConnection {
            try $0.scalar(
                "SELECT count(*) FROM pg_catalog.pg_indexes WHERE indexname IN ('_pk_Human_Parent', '_pk_Human_Child')")
        }
        #expect(indexes == .integer(2))
    }
}
