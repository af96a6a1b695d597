import Foundation
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Dates to the nanosecond, JSON compared as JSON and URLs as RFC 3986 writes them, in a
/// PostgreSQL store as in a SQLite one (DESIGN §3.10).
@Suite struct PostgreSQLValueTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Event": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "string" },
                "at": { "type": "date", "indexed": true },
                "extra": { "type": "json" },
                "link": { "type": "url" }
              }
            }
          }
        }
        """

    func schema() throws -> Schema { try Schema(json: Self.schemaJSON, fileName: "Exact.json") }

    func rows(_ database: PostgreSQLDatabase, _ sql: String) throws -> [[String]] {
        try database.withConnection { connection in try connection.rows(sql).map { $0.map(\.description) } }
    }

    @Test func datesKeepNanosecondsSortAndCompareExactly() throws {
        let schema = try schema()
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let response = try JSONReader().read(
            #"""
            [{"id": "e1", "at": "2024-01-01T12:00:00.123456789Z"}, {"id": "e2", "at": 1704110400.123456},
             {"id": "e3", "at": "2024-01-01T12:00:00.123456788Z"}, {"id": "e4", "at": "0000-03-01T00:00:00.5Z"}]
            """#)
        let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: "Event")
        #expect(result.changes.inserted == 4)
        #expect(result.debugger.errors.isEmpty, "\(result.debugger.errors)")
        _ = try ResponsePopulation(store: sqlite).populate(response, entity: "Event")
        #expect(try PostgreSQLStores.content(of: postgreSQL) == (try PostgreSQLStores.content(of: sqlite)))
        #expect(
            try rows(postgreSQL, #"SELECT "id", "at" FROM "Event" ORDER BY "at""#) == [
                ["'e4'", "'0000-03-01T00:00:00.500000000Z'"], ["'e2'", "'2024-01-01T12:00:00.123456000Z'"],
                ["'e3'", "'2024-01-01T12:00:00.123456788Z'"], ["'e1'", "'2024-01-01T12:00:00.123456789Z'"],
            ])
        let exported = try postgreSQL.exportJSON(entity: "Event")
        #expect(exported == (try sqlite.exportJSON(entity: "Event")))
        // The same instants are no change; a nanosecond more is one.
        let same = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": "e1", "at": "2024-01-01T13:00:00.123456789+01:00"}]"#), entity: "Event")
        #expect(same.changes.updated == 0, "\(same.changes)")
        let later = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": "e1", "at": "2024-01-01T12:00:00.12345679Z"}]"#), entity: "Event")
        #expect(later.changes.updated == 1, "\(later.changes)")
        let record = try #require(try postgreSQL.fetchOne("Event", primaryKey: "e3"))
        let stamp: Timestamp? = record["at"]
        #expect(stamp?.nanoseconds == 123_456_788)
    }

    @Test func aRefusedDateSaysWhyAndJSONAndURLsFollowTheRules() throws {
        let postgreSQL = try PostgreSQLStores.postgreSQL(try schema())
        _ = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": "e1", "at": "2024-01-01T00:00:00Z", "extra": {"b": 1, "a": 2}}]"#),
            entity: "Event")
        let refused = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(
                #"[{"id": "e1", "at": "2024-04-31T00:00:00Z", "extra": {"a": 2, "b": 1}, "link": "a b"}]"#),
            entity: "Event")
        #expect(refused.changes.updated == 0, "\(refused.changes)")
        let messages = refused.debugger.errors.map(\.message)
        #expect(
            messages.contains(#"expected a date (April 2024 has 30 days, not 31), got string "2024-04-31T00:00:00Z""#),
            "\(messages)")
        #expect(messages.contains(#"expected a url, got string "a b""#), "\(messages)")
        #expect(
            try rows(postgreSQL, #"SELECT "at", "extra", "link" FROM "Event""#) == [
                ["'2024-01-01T00:00:00.000000000Z'", #"'{"a":2,"b":1}'"#, "NULL"]
            ])
        // JSON stored in another key order, as a store kept it before, is equal: not rewritten.
        _ = try postgreSQL.withConnection { connection in
            try connection.execute(#"UPDATE "Event" SET "extra" = '{"b":1,"a":2}'"#)
        }
        let again = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": "e1", "extra": {"a": 2, "b": 1}}]"#), entity: "Event")
        #expect(again.changes.updated == 0, "\(again.changes)")
        #expect(try rows(postgreSQL, #"SELECT "extra" FROM "Event""#) == [[#"'{"b":1,"a":2}'"#]])
    }

    /// A store made when dates were `timestamptz` to the millisecond gets `text` columns holding
    /// the nine-digit form when it is next opened, its dates unchanged and sorted with new ones.
    @Test func aTimestamptzStoreIsMigrated() throws {
        let schema = try schema()
        let location = try PostgreSQLStores.newDatabase()
        let first = try PostgreSQLStores.postgreSQL(schema, at: location)
        _ = try ResponsePopulation(store: first).populate(
            try JSONReader().read(
                #"[{"id": "old1", "at": "2024-01-01T12:00:00.123000000Z"}, {"id": "old2", "at": "2024-01-01T12:00:00.124000000Z"}, {"id": "bc", "at": "0000-06-01T00:00:00Z"}, {"id": "none"}]"#
            ), entity: "Event")
        // As an older WebRecord left it: timestamptz columns, and a layout record naming no date form.
        try first.withConnection { connection in
            try connection.execute(
                #"ALTER TABLE "Event" ALTER COLUMN "at" TYPE timestamptz USING ((CASE WHEN left("at", 4) = '0000' THEN '0001' || substr("at", 5, 19) || ' BC' ELSE substr("at", 1, 23) END)::timestamp AT TIME ZONE 'UTC')"#
            )
            guard case .text(let text)? = try connection.scalar(#"SELECT "value" FROM "_webrecord_metadata""#),
                var object = try JSONReader().read(text).objectValue
            else {
                Issue.record("no layout record")
                return
            }
            object["dates"] = nil
            try connection.execute(
                #"UPDATE "_webrecord_metadata" SET "value" = $1 WHERE "key" = 'layout'"#,
                [.text(JSONValue.object(object).serialized(sortedKeys: true))])
        }
        #expect(
            try rows(first, #"SELECT data_type FROM information_schema.columns WHERE column_name = 'at'"#) == [
                ["'timestamp with time zone'"]
            ])
        let reopened = try PostgreSQLStores.postgreSQL(schema, at: location)
        let result = try ResponsePopulation(store: reopened).populate(
            try JSONReader().read(
                #"[{"id": "new", "at": "2024-01-01T12:00:00.123000001Z"}, {"id": "old1", "at": "2024-01-01T12:00:00.123000000Z"}]"#
            ), entity: "Event")
        #expect(result.changes.inserted == 1)
        #expect(result.changes.updated == 0, "the migrated value equals the response's: \(result.changes)")
        #expect(
            try rows(reopened, #"SELECT data_type FROM information_schema.columns WHERE column_name = 'at'"#) == [
                ["'text'"]
            ])
        #expect(
            try rows(reopened, #"SELECT "id", "at" FROM "Event" ORDER BY "at", "id""#) == [
                ["'bc'", "'0000-06-01T00:00:00.000000000Z'"], ["'old1'", "'2024-01-01T12:00:00.123000000Z'"],
                ["'new'", "'2024-01-01T12:00:00.123000001Z'"], ["'old2'", "'2024-01-01T12:00:00.124000000Z'"],
                ["'none'", "NULL"],
            ])
    }
}
