import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A PostgreSQL namespace holding only another application's views is theirs, as one with
/// tables is: the store refuses it, naming the views.
@Suite struct PostgreSQLForeignViewTests {
    @Test func viewsOfAnotherProgramAreRefused() throws {
        let location = try PostgreSQLStores.newDatabase()
        let database = try PostgreSQLStores.postgreSQL(try PostgreSQLLayoutTests.samples(), at: location)
        _ = try database.withConnection { try $0.execute("CREATE VIEW \"report\" AS SELECT 1 AS \"one\"") }
        let error = try #require(throws: WebRecordError.self) { try database.write { _ in } }
        #expect(error.code == .incompatibleStore)
        #expect(error.message.contains("views that WebRecord did not create ('report')"), "\(error)")

        _ = try database.withConnection { try $0.execute("CREATE TABLE \"notes\" (\"body\" text)") }
        let both = try #require(throws: WebRecordError.self) { try database.write { _ in } }
        #expect(
            both.message.contains("tables and views that WebRecord did not create ('notes', view 'report')"),
            "\(both)")
        // Nothing of WebRecord's was made.
        let tables = try database.withConnection {
            try $0.rows("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = 'public'")
        }
        #expect(tables.count == 1)
    }
}
