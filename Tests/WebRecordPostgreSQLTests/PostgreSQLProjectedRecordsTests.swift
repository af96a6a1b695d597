import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A PostgreSQL store reads a streamed response's records with only the members its schema
/// reads, as SQLite does, and a failure that quotes a record reads the response again to quote
/// it whole: through PostgreSQL's transaction too.
@Suite(.serialized) struct PostgreSQLProjectedRecordsTests {
    static let schema = try! Schema(
        json: #"""
            {"entities": {"Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
              "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
                "firstTag": {"type": "json", "key": "tags.0"}}}}}
            """#)

    @Test("A failure that quotes a record quotes it whole, as on SQLite")
    func failureQuotesTheWholeRecord() async throws {
        let data = Data(#"{"data": [{"message": "Bad credentials", "documentation_url": "https://example.com"}]}"#.utf8)
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 16)
        }
        var messages: [String] = []
        for store in [
            try PostgreSQLStores.postgreSQL(Self.schema) as any RecordStorage, try PostgreSQLStores.sqlite(Self.schema),
        ] {
            let error = await #expect(throws: WebRecordError.self) {
                _ = try await Self.populate(store, open)
            }
            messages.append(error?.message ?? "")
        }
        #expect(messages[0].contains(#"{"message":"Bad credentials""#), "\(messages[0])")
        #expect(messages[0] == messages[1])
    }

    @Test("Projected records leave the rows SQLite's do")
    func projectedRowsAsOnSQLite() async throws {
        let data = Data(
            #"{"data": [{"id": 1, "title": "a", "html": "<p>a</p>", "tags": [{"name": "x", "color": "red"}]}, {"id": 2, "title": "b", "stats": {"n": [1]}}]}"#
                .utf8)
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 16)
        }
        let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema)
        let sqlite = try PostgreSQLStores.sqlite(Self.schema)
        _ = try await Self.populate(postgreSQL, open)
        _ = try await Self.populate(sqlite, open)
        let content = try PostgreSQLStores.content(of: postgreSQL)
        #expect(content == (try PostgreSQLStores.content(of: sqlite)))
        #expect("\(content)".contains(#"{"color":"red","name":"x"}"#), "\(content)")
    }

    private static func populate(
        _ store: some RecordStorage, _ open: (String?) throws(WebRecordError) -> JSONStreamReader
    ) async throws(WebRecordError) -> PopulationResult {
        try await ResponsePopulation(store: store).populate(streaming: open, entity: "Post")
    }
}
