import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecord

/// `webrecord populate` and `export` keep a date to the nanosecond, compare JSON as JSON, refuse
/// a url that is no URI reference, and say why a date is refused: into a SQLite file and into
/// PostgreSQL.
@Suite struct ExactValueCommandTests {
    let directory: TemporaryDirectory
    let schema: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write(
            "schema.json",
            """
            {
              "version": 1,
              "entities": {
                "Event": {
                  "primaryKey": "id",
                  "attributes": {
                    "id": { "type": "string" },
                    "at": { "type": "date" },
                    "extra": { "type": "json" },
                    "link": { "type": "url" }
                  }
                }
              }
            }
            """)
    }

    enum Backend: String, CaseIterable, Sendable { case sqlite, postgreSQL }

    func store(_ backend: Backend) throws -> String {
        switch backend {
        case .sqlite: return directory.path("store.sqlite")
        case .postgreSQL:
            let server = try PostgreSQLTestServer.shared()
            return server.url(database: try server.makeDatabase())
        }
    }

    func populate(_ db: String, _ response: String, name: String) async throws -> CLIResult {
        let file = try directory.write(name, response)
        return try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Event", "--json", file], in: directory.url)
    }

    @Test(arguments: Backend.allCases)
    func valuesAreExactThroughTheCommandLine(backend: Backend) async throws {
        let db = try store(backend)
        let first = try await populate(
            db,
            #"""
            [{"id": "e1", "at": "2024-01-01T12:00:00.123456789Z", "extra": {"b": 1, "a": [1.0, 2]}, "link": "https://example.com/a%20b"},
             {"id": "e2", "at": 1704110400.123456, "link": "see the site"},
             {"id": "e3", "at": "2016-12-31T23:59:60Z"}]
            """#, name: "first.json")
        #expect(first.status == 0, "\(first)")
        let summary = try Summary(first)
        #expect(summary.int("inserted") == 3, "\(first)")
        let messages = summary.warnings.compactMap { $0["message"]?.stringValue }
        #expect(
            messages.contains { $0.contains(#"expected a url, got string "see the site""#) }, "\(messages)")
        #expect(
            messages.contains {
                $0.contains(
                    #"expected a date (second 60 is a leap second, which Unix time has no instant for), got string "2016-12-31T23:59:60Z""#
                )
            }, "\(messages)")

        let export = try await CLI.run(
            ["export", "--schema", schema, "--db", db, "--entity", "Event"], in: directory.url)
        #expect(export.status == 0, "\(export)")
        let records = try #require(try JSONReader().read(export.stdoutData).arrayValue, "\(export)")
        #expect(
            records.map { $0["at"] } == ["2024-01-01T12:00:00.123456789Z", "2024-01-01T12:00:00.123456000Z", .null])
        #expect(records.first?["extra"] == (try JSONReader().read(#"{"a": [1.0, 2], "b": 1}"#)))
        #expect(records.map { $0["link"] } == ["https://example.com/a%20b", .null, .null])

        // The same values, the JSON's keys in another order and the dates written otherwise: no change.
        let again = try await populate(
            db,
            #"""
            [{"id": "e1", "at": "2024-01-01T14:00:00.123456789+02:00", "extra": {"a": [1.0, 2], "b": 1}},
             {"id": "e2", "at": "2024-01-01T12:00:00.123456Z"}]
            """#, name: "again.json")
        #expect(again.status == 0, "\(again)")
        #expect(try Summary(again).int("updated") == 0, "\(again)")
        #expect(try Summary(again).int("unchanged") == 2, "\(again)")
        // 1 is not 1.0.
        let number = try await populate(
            db, #"[{"id": "e1", "extra": {"a": [1, 2], "b": 1}}]"#, name: "number.json")
        #expect(try Summary(number).int("updated") == 1, "\(number)")
    }

    @Test func lintSaysWhyADateDefaultIsNoDate() async throws {
        let path = try directory.write(
            "defaults.json",
            #"""
            {"version": 1, "entities": {"Event": {"primaryKey": "id", "attributes": {
              "id": {"type": "string"}, "at": {"type": "date", "default": "2024-04-31T00:00:00Z"}}}}}
            """#)
        let result = try await CLI.run(["lint", path])
        #expect(result.status == 1, "\(result)")
        #expect(
            (result.stdout + result.stderr).contains(
                #"Event.at: default "2024-04-31T00:00:00Z" is not a date (April 2024 has 30 days, not 31)"#),
            "\(result)")
    }
}
