import Foundation
import TestSupport
import Testing
import WebRecord

/// An unchanged re-import finds what changed in the store since the last one, whoever changed
/// it: a row another program rewrote (python3's `sqlite3` here) between two imports of the same
/// response is restored by the second, counted as updated, and nothing else is written.
@Suite(.enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with sqlite3"))
struct ReimportAfterOutsideWriteTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    var db: String { directory.path("appnet.sqlite") }

    func populate() async throws -> [String: Any] {
        let result = try await CLI.run([
            "populate", "--schema", try CLI.fixture("appnet-schema.json").path, "--db", db, "--entity", "Post",
            "--json", try CLI.fixture("appnet-posts.json").path,
        ])
        try #require(result.status == 0, "\(result)")
        let summary = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
        return try #require(summary)
    }

    /// The summary's counts for `entity`: inserted, updated, unchanged.
    func counts(_ summary: [String: Any], _ entity: String) -> [Int] {
        let entities = summary["entities"] as? [String: Any]
        let counts = entities?[entity] as? [String: Any]
        return ["inserted", "updated", "unchanged"].map { counts?[$0] as? Int ?? -1 }
    }

    /// Runs SQL on the store with python3's `sqlite3`, outside WebRecord.
    func outside(_ sql: String) async throws {
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1])
            connection.executescript(sys.argv[2])
            connection.commit()
            connection.close()
            """
        let result = try await ChildProcess.python(script, [db, sql]).wait()
        try #require(result.status == 0, "\(result)")
    }

    func dump() async throws -> String {
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1])
            for (table,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
                for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
                    print(table, row)
            """
        let result = try await ChildProcess.python(script, [db]).wait()
        try #require(result.status == 0, "\(result)")
        return result.stdout
    }

    @Test func aRowRewrittenByAnotherProgramIsRestoredByTheNextReimport() async throws {
        let first = try await populate()
        #expect(counts(first, "Post")[0] == 20)
        let imported = try await dump()

        // Another program changes one post's text, clears a user's name and a count.
        try await outside(
            """
            UPDATE "Post" SET "text" = 'changed elsewhere' WHERE "id" = '1644504';
            UPDATE "User" SET "name" = NULL WHERE "_id" = (SELECT MIN("_id") FROM "User");
            UPDATE "Counts" SET "followers" = 0 WHERE "_id" = (SELECT MIN("_id") FROM "Counts");
            """)
        #expect(try await dump() != imported)

        let second = try await populate()
        #expect(try await dump() == imported, "the re-import restores what the response says")
        #expect(counts(second, "Post") == [0, 1, 19])
        #expect(counts(second, "User")[0...1] == [0, 1])
        #expect(counts(second, "Counts")[0...1] == [0, 1])

        // And a third import of the same response finds nothing to change.
        let third = try await populate()
        #expect(counts(third, "Post") == [0, 0, 20])
        #expect(counts(third, "User")[1] == 0)
        #expect(try await dump() == imported)
    }
}
