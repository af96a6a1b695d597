import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// An adversarial round on the PostgreSQL store: values at their boundaries compared row for
/// row with a SQLite store, texts PostgreSQL cannot hold, re-imports that must write nothing,
/// populations that fail or are cancelled midway, overlapping writers, and odd namespaces.
// Serialized: its tests open many connections, and the test server allows 100 at once.
@Suite(.serialized) struct AdversarialPostgreSQLTests {
    static let schemaJSON = """
        {
          "entities": {
            "Item": {
              "primaryKey": "key",
              "attributes": {
                "key": { "type": "string" }, "s": { "type": "string" }, "i": { "type": "integer" },
                "d": { "type": "double" }, "m": { "type": "decimal" }, "b": { "type": "boolean" },
                "t": { "type": "date" }, "x": { "type": "data" }, "u": { "type": "uuid" }, "l": { "type": "url" },
                "j": { "type": "json" }
              },
              "relationships": {
                "tags": { "destination": "Tag", "toMany": true, "inverse": "items" },
                "parts": { "destination": "Part", "toMany": true, "ordered": true },
                "owner": { "destination": "Owner", "inverse": "items" }
              }
            },
            "Tag": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": { "items": { "destination": "Item", "toMany": true, "inverse": "tags" } }
            },
            "Part": { "primaryKey": "id", "attributes": { "id": { "type": "string" } } },
            "Owner": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": { "items": { "destination": "Item", "toMany": true, "inverse": "owner" } }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "AdversarialPostgreSQL.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    typealias P = PostgreSQLAdversarialParityTests

    /// Every row of a store, as exact text (canonically equivalent strings differ).
    static func lines(_ database: PostgreSQLDatabase) throws -> [String] {
        P.lines(try PostgreSQLStores.content(of: database))
    }

    static func lines(_ database: SQLiteDatabase) throws -> [String] {
        P.lines(try PostgreSQLStores.content(of: database))
    }

    /// What populating `response` gives: counts by entity, or the failure's code and message.
    struct Outcome: Equatable, CustomStringConvertible {
        var counts: [String: ChangeCounts] = [:]
        var failure: String?
        var description: String { failure.map { "failure: \($0)" } ?? "counts: \(counts)" }
    }

    static func populate(
        _ store: some RecordStorage, _ response: String, entity: String = "Item", batchBytes: Int? = nil
    ) async -> Outcome {
        do {
            let result: PopulationResult
            if let batchBytes {
                let data = Data(response.utf8)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                }
                result = try await ResponsePopulation(store: store).populate(streaming: open, entity: entity)
            } else {
                result = try await ResponsePopulation(store: store).populate(
                    try JSONReader().read(response), entity: entity)
            }
            return Outcome(counts: result.changesByEntity)
        } catch {
            return Outcome(failure: "\(error.code): \(error.message)")
        }
    }

    /// `responses` populated one after another into a new SQLite store and a new PostgreSQL
    /// one: each step must give the same outcome (a failure's code only; messages may name the
    /// store), and the stores the same rows, byte for byte.
    static func expectParity(
        _ responses: [String], schema: Schema = schema, entity: String = "Item", batchBytes: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try postgreSQL.exportJSON(entity: entity)  // the tables made, whatever the first step does
        for (step, response) in responses.enumerated() {
            let expected = await populate(sqlite, response, entity: entity, batchBytes: batchBytes)
            let outcome = await populate(postgreSQL, response, entity: entity, batchBytes: batchBytes)
            #expect(
                outcome.counts == expected.counts && (outcome.failure == nil) == (expected.failure == nil),
                "step \(step): PostgreSQL \(outcome) / SQLite \(expected)", sourceLocation: sourceLocation)
            let rows = try lines(postgreSQL)
            let sqliteRows = try lines(sqlite)
            let difference =
                (rows.filter { !sqliteRows.contains($0) }.map { "+ \(short($0))" }
                + sqliteRows.filter { !rows.contains($0) }.map { "- \(short($0))" }).joined(separator: "\n")
            #expect(
                rows == sqliteRows, "step \(step): + PostgreSQL only, - SQLite only:\n\(difference)",
                sourceLocation: sourceLocation)
        }
    }

    static func short(_ text: String) -> String { text.count > 160 ? String(text.prefix(160)) + "…" : text }

    /// `xmin` of every row of every table: a row an `UPDATE` wrote again, even with the same
    /// values, gets a new one.
    static func rowVersions(_ database: PostgreSQLDatabase) throws -> [String: [String]] {
        try database.withConnection { connection in
            var versions: [String: [String]] = [:]
            for table in database.layout.tables.map(\.name) + database.layout.joinTables.map(\.name) {
                versions[table] = try connection.rows(
                    "SELECT ctid::text || ':' || xmin::text FROM \"\(table)\" ORDER BY 1"
                )
                .map { row in row.map(\.description).joined() }
            }
            return versions
        }
    }

    // MARK: - Boundary values

    static let oneMegabyte = String(repeating: #"é👍a\\\"\t\n"#, count: 1_048_576 / 14)

    static let boundaries = """
        [
          {"key": "min", "s": "", "i": -9223372036854775808, "d": 5e-324, "m": "12345678901234567890123456789012345678",
           "b": true, "t": "0001-01-01T00:00:00Z", "x": "AAEC/w==", "u": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
           "l": "http://例え.jp/é?q=a b#f", "j": {"é": 1, "e\\u0301": 2, "\\ud83d\\ude00": [1.50, -0, 1e400]},
           "tags": [{"name": "t1"}, {"name": "T1"}], "parts": [{"id": "p2"}, {"id": "p1"}], "owner": {"id": 1, "name": "o"}},
          {"key": "max", "s": "\\\\N", "i": 9223372036854775807, "d": 1.7976931348623157e308,
           "m": "0.00000000000000000000000000000000000001", "b": false, "t": "9999-12-31T23:59:59.999999999Z",
           "x": "", "u": "00000000-0000-0000-0000-000000000000", "l": "a:b", "j": "\\u2028",
           "tags": [{"name": "t1"}], "parts": [{"id": "p1"}, {"id": "p2"}], "owner": {"id": -9223372036854775808}},
          {"key": "zero", "s": "  ", "i": 0, "d": -0.0, "m": "-0.00", "b": 0, "t": "2024-02-29T12:00:00.000000001+14:00",
           "j": {}, "x": null, "owner": null},
          {"key": "nanos", "d": -5e-324, "m": "-1.5e-10", "t": 1353465222.123456789, "j": [], "i": "42"},
          {"key": "long", "s": "\(oneMegabyte)", "j": {"k": "\(oneMegabyte)"}},
          {"key": "big", "m": "1E+127", "d": 1e22, "i": 1e18}, {"key": "small", "m": "-1e-128", "d": 1e-7},
          {"key": "digits", "m": "123456789.123456789012345678901234567890", "d": 123456789012345680000},
          {"key": "e\\u0301", "s": "\\u00e9"}, {"key": "\\u00e9", "s": "e\\u0301"}
        ]
        """

    @Test("Boundary values of every type are stored as SQLite stores them, whole and streamed")
    func boundaryValuesMatchSQLite() async throws {
        try await Self.expectParity([Self.boundaries, Self.boundaries])
        try await Self.expectParity([Self.boundaries, Self.boundaries], batchBytes: 200)
    }

    @Test("A re-import of the same response counts everything unchanged and writes no row again")
    func aReimportWritesNoRow() async throws {
        let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema)
        let first = await Self.populate(postgreSQL, Self.boundaries)
        #expect(first.failure == nil, "\(first)")
        let versions = try Self.rowVersions(postgreSQL)
        for batchBytes in [nil, 150] as [Int?] {
            let again = await Self.populate(postgreSQL, Self.boundaries, batchBytes: batchBytes)
            #expect(again.failure == nil, "\(again)")
            for (entity, counts) in again.counts {
                #expect(
                    counts.inserted == 0 && counts.updated == 0 && counts.deleted == 0,
                    "\(entity), batches of \(String(describing: batchBytes)): \(counts)")
            }
            #expect(
                try Self.rowVersions(postgreSQL) == versions,
                "batches of \(String(describing: batchBytes)): rows were written again")
        }
        // With every orphan deleted: there is none.
        let store = RecordStore(database: postgreSQL, configuration: RecordStore.Configuration())
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let again = try await store.populate(try JSONReader().read(Self.boundaries), entity: "Item", options: options)
        for (entity, counts) in again.changesByEntity {
            #expect(counts.inserted == 0 && counts.updated == 0 && counts.deleted == 0, "\(entity): \(counts)")
        }
        #expect(try Self.rowVersions(postgreSQL) == versions, "orphan deletion wrote rows again")
    }

    // MARK: - Long names

    static let longA = "A" + String(repeating: "a", count: 19)
    static let longB = "B" + String(repeating: "b", count: 19)
    static let longColumn = String(repeating: "c", count: 24)

    /// Long names, their index and join-table names close to PostgreSQL's 63 bytes (the
    /// layout's limits refuse longer ones when the store opens).
    static let longSchema: Schema = {
        let json = """
            {"entities": {
              "\(longA)": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "\(longColumn)": {"type": "string"}, "\(longColumn)1": {"type": "integer"}},
                "relationships": {"\(longColumn)r": {"destination": "\(longB)", "inverse": "\(longColumn)s"},
                                  "\(longColumn)m": {"destination": "\(longB)", "toMany": true}}},
              "\(longB)": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
                "relationships": {"\(longColumn)s": {"destination": "\(longA)", "toMany": true, "inverse": "\(longColumn)r"}}}
            }}
            """
        do {
            return try Schema(json: json, fileName: "Long.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    @Test("Entity, attribute and relationship names near 63 bytes store as in SQLite, streamed in small batches")
    func longNames() async throws {
        let records = (0..<40).map { index in
            #"{"id": "a\#(index)", "\#(Self.longColumn)": "v\#(index)", "\#(Self.longColumn)1": \#(index), "\#(Self.longColumn)r": {"id": "b\#(index % 3)"}, "\#(Self.longColumn)m": [{"id": "b\#(index % 5)"}, {"id": "b\#(index % 2)"}]}"#
        }
        let response = "[" + records.joined(separator: ",") + "]"
        for batchBytes in [nil, 200] as [Int?] {
            try await Self.expectParity(
                [response, response.replacingOccurrences(of: #""v"#, with: #""w"#)], schema: Self.longSchema,
                entity: Self.longA, batchBytes: batchBytes)
        }
    }

    // MARK: - Texts PostgreSQL cannot hold, and texts it can

    @Test("A NUL inside a JSON attribute is escaped JSON text: stored as in SQLite")
    func nulInsideJSONIsStored() async throws {
        try await Self.expectParity([
            #"[{"key": "a", "j": {"\u0000": "x\u0000y", "b": ["\u0000"]}}, {"key": "b", "j": "\u0000"}]"#,
            #"[{"key": "a", "j": {"b": ["\u0000"], "\u0000": "x\u0000y"}}, {"key": "b", "j": "\u0000 "}]"#,
        ])
    }

    @Test("Lone surrogates and noncharacters end as they do in SQLite, in values and keys")
    func loneSurrogates() async throws {
        try await Self.expectParity([
            #"[{"key": "\ud800", "s": "\udc00", "j": {"\udfff": "\ud800x"}, "tags": [{"name": "\ud800"}]}]"#,
            #"[{"key": "\ud800", "s": "\uffff\ufffe"}, {"key": "\udbff\udfff", "s": "\ud83d"}]"#,
        ])
    }

    /// Populates `response` into a PostgreSQL store holding `earlier`: it must fail with
    /// `invalidArgument` naming `column` of `table`, and leave every row as it was, and the next
    /// population on the same store must succeed.
    static func expectRefusedNUL(
        _ response: String, column: String, table: String = "Item", batchBytes: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let earlier = #"[{"key": "k0", "s": "before", "tags": [{"name": "t"}], "owner": {"id": 1, "name": "o"}}]"#
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let sqlite = try PostgreSQLStores.sqlite(schema)
        _ = await populate(sqlite, earlier)
        #expect(await populate(postgreSQL, earlier).failure == nil, sourceLocation: sourceLocation)
        let before = try lines(postgreSQL)
        let versions = try rowVersions(postgreSQL)
        let outcome = await populate(postgreSQL, response, batchBytes: batchBytes)
        #expect(
            outcome.failure?.hasPrefix("invalidArgument") == true
                && outcome.failure?.contains("'\(column)'") == true && outcome.failure?.contains("'\(table)'") == true
                && outcome.failure?.contains("NUL") == true,
            "\(outcome)", sourceLocation: sourceLocation)
        #expect(try lines(postgreSQL) == before, "the failed population changed rows", sourceLocation: sourceLocation)
        #expect(try rowVersions(postgreSQL) == versions, sourceLocation: sourceLocation)
        // The connection is usable: the next population works and ends as on SQLite.
        let next = #"[{"key": "k0", "s": "after"}, {"key": "k9", "tags": [{"name": "t"}]}]"#
        let expected = await populate(sqlite, next)
        let result = await populate(postgreSQL, next)
        #expect(result == expected, sourceLocation: sourceLocation)
        #expect(try lines(postgreSQL) == (try lines(sqlite)), sourceLocation: sourceLocation)
    }

    static func many(_ count: Int, last: String) -> String {
        let records = (1...count).map {
            #"{"key": "k\#($0)", "s": "\#(String(repeating: "v", count: 200))", "tags": [{"name": "t\#($0 % 7)"}], "owner": {"id": \#($0 % 5)}}"#
        }
        return "[" + (records + [last]).joined(separator: ",\n") + "]"
    }

    @Test(
        "A NUL in a new record's string fails the population, naming it, and changes nothing",
        arguments: [nil, 300, 1 << 22] as [Int?])
    func nulInANewRow(batchBytes: Int?) async throws {
        try await Self.expectRefusedNUL(
            Self.many(3_000, last: #"{"key": "last", "s": "a\u0000b"}"#), column: "s", batchBytes: batchBytes)
    }

    @Test(
        "A NUL in an updated record's string fails the population, naming it, and changes nothing",
        arguments: [nil, 300] as [Int?])
    func nulInAnUpdate(batchBytes: Int?) async throws {
        try await Self.expectRefusedNUL(
            Self.many(50, last: #"{"key": "k0", "s": "\u0000"}"#), column: "s", batchBytes: batchBytes)
    }

    @Test("A NUL in a key fails the population, naming it, and changes nothing", arguments: [nil, 300] as [Int?])
    func nulInAKey(batchBytes: Int?) async throws {
        try await Self.expectRefusedNUL(
            Self.many(50, last: #"{"key": "k\u0000", "s": "x"}"#), column: "key", batchBytes: batchBytes)
        try await Self.expectRefusedNUL(
            Self.many(50, last: #"{"key": "k1", "tags": [{"name": "\u0000"}]}"#), column: "name", table: "Tag",
            batchBytes: batchBytes)
    }

    // MARK: - Failing at the end of a stream

    @Test(
        "A stream whose end is malformed or holds a refused element, after batches were written, ends as on SQLite",
        arguments: [#"42"#, #""x""#, #"[1]"#, #"null"#, #"{"key": 5}"#, #"{"s": "no key"}"#])
    func streamFailingAtItsEnd(last: String) async throws {
        let earlier = #"[{"key": "k1", "s": "before", "tags": [{"name": "t1"}]}]"#
        let response = Self.many(400, last: last)
        for batchBytes in [nil, 300, 1 << 22] as [Int?] {
            try await Self.expectParity([earlier, response], batchBytes: batchBytes)
        }
    }

    @Test("A stream cut short after batches were written fails and leaves the store as it was")
    func truncatedStream() async throws {
        let earlier = #"[{"key": "k1", "s": "before", "tags": [{"name": "t1"}]}]"#
        let response = String(Self.many(400, last: #"{"key": "end"}"#).dropLast(3))
        let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema)
        #expect(await Self.populate(postgreSQL, earlier).failure == nil)
        let before = try Self.lines(postgreSQL)
        for batchBytes in [300, 1 << 22] {
            let outcome = await Self.populate(postgreSQL, response, batchBytes: batchBytes)
            #expect(outcome.failure?.hasPrefix("invalidJSON") == true, "\(outcome)")
            #expect(try Self.lines(postgreSQL) == before, "batches of \(batchBytes)")
        }
    }

    // MARK: - Cancelled populations

    @Test("A population cancelled at any moment leaves the store as before it or as after it")
    func cancelledPopulations() async throws {
        let earlier = Self.many(200, last: #"{"key": "z"}"#)
        let response = Self.many(20_000, last: #"{"key": "k0", "s": "new", "owner": {"id": 99}}"#)
            .replacingOccurrences(of: #""v"#, with: #""w"#)
        let sqlite = try PostgreSQLStores.sqlite(Self.schema)
        _ = await Self.populate(sqlite, earlier)
        let before = try Self.lines(sqlite)
        _ = await Self.populate(sqlite, response)
        let after = try Self.lines(sqlite)
        let parsed = try JSONReader().read(response)
        var outcomes: [String] = []
        for delay in [5, 200, 1500, 6000] {
            let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema)
            #expect(await Self.populate(postgreSQL, earlier).failure == nil)
            #expect(try Self.lines(postgreSQL) == before)
            let task = Task { () async throws -> ChangeCounts in
                try await postgreSQL.populate(parsed, entity: "Item", options: PopulationOptions()).changes
            }
            try await Task.sleep(for: .milliseconds(delay))
            task.cancel()
            let result = await task.result
            let rows = try Self.lines(postgreSQL)
            switch result {
            case .success:
                outcomes.append("\(delay) ms: done")
                #expect(rows == after, "\(delay) ms: the population succeeded but the rows differ from SQLite's")
            case .failure(let error):
                let code = (error as? WebRecordError)?.code
                outcomes.append("\(delay) ms: \(String(describing: code))")
                #expect(code == .cancelled, "\(delay) ms: \(error)")
                #expect(rows == before, "\(delay) ms: a cancelled population changed rows")
            }
            // And the store goes on.
            #expect(await Self.populate(postgreSQL, #"[{"key": "k0", "s": "again"}]"#).failure == nil)
            postgreSQL.close()
        }
        #expect(outcomes.count == 4, "\(outcomes)")
    }

    // MARK: - Overlapping writers

    @Test("Overlapping writers store each record once, count each insert once, and keep every link")
    func overlappingWriters() async throws {
        let server = try PostgreSQLTestServer.shared()
        let url = server.url(database: try server.makeDatabase())
        let workers = 4
        let itemCount = 300
        func response(worker: Int) -> JSONValue {
            var items: [JSONValue] = []
            for index in 0..<itemCount {
                let item = (index * (worker + 1) * 7) % itemCount  // every worker names every item, in its own order
                items.append([
                    "key": .string("k\(item)"), "s": .string("w\(worker)"),
                    "tags": .array((0..<3).map { ["name": .string("t\((item + $0) % 40)")] }),
                    "parts": .array((0..<2).map { ["id": .string("p\(item)-\($0)")] }),
                    "owner": ["id": .integer(Int64(item % 11))],
                ])
            }
            return .array(items)
        }
        let stores = try (0..<workers).map { _ in try RecordStore(postgreSQL: url, schema: Self.schema) }
        // Tables made first, so that the workers' transactions overlap from their first statement.
        #expect(try stores[0].count("Item") == 0)
        typealias Done = (counts: [String: ChangeCounts], retries: Int)
        let results = await withTaskGroup(of: (Int, Result<Done, WebRecordError>).self) { group in
            for worker in 0..<workers {
                let store = stores[worker]
                let body = response(worker: worker)
                group.addTask {
                    do throws(WebRecordError) {
                        let population = try await store.populate(body, entity: "Item")
                        return (worker, .success((population.changesByEntity, population.debugger.retries.count)))
                    } catch {
                        return (worker, .failure(error))
                    }
                }
            }
            var results: [Int: Result<Done, WebRecordError>] = [:]
            for await (worker, result) in group { results[worker] = result }
            return results
        }
        var inserted: [String: Int] = [:]
        var retries = 0
        for (worker, result) in results {
            switch result {
            case .success(let population):
                retries += population.retries
                for (entity, counts) in population.counts { inserted[entity, default: 0] += counts.inserted }
            case .failure(let error):
                Issue.record("worker \(worker) failed: \(error)")
            }
        }
        _ = retries
        let store = stores[0]
        #expect(try store.count("Item") == itemCount)
        #expect(try store.count("Tag") == 40)
        #expect(try store.count("Part") == 2 * itemCount)
        #expect(try store.count("Owner") == 11)
        // Every record was inserted by exactly one worker's successful attempt.
        #expect(inserted["Item"] == itemCount, "\(inserted), \(retries) retries")
        #expect(inserted["Tag"] == 40, "\(inserted), \(retries) retries")
        #expect(inserted["Part"] == 2 * itemCount, "\(inserted), \(retries) retries")
        #expect(inserted["Owner"] == 11, "\(inserted), \(retries) retries")
        let items = try store.exportJSON(entity: "Item").arrayValue ?? []
        #expect(items.count == itemCount)
        for item in items {
            guard let key = item["key"]?.stringValue, let index = Int(key.dropFirst()) else {
                Issue.record("an item without its key: \(item)")
                continue
            }
            let tags = Set((item["tags"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["name"]?.stringValue })
            #expect(tags == Set((0..<3).map { "t\((index + $0) % 40)" }), "\(key): \(item)")
            let parts = (item["parts"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["id"]?.stringValue }
            #expect(parts == ["p\(index)-0", "p\(index)-1"], "\(key): \(item)")
        }
        let check = try PostgreSQLConnection(url)
        #expect(
            try check.scalar(
                #"SELECT count(*) FROM (SELECT "key" FROM "Item" GROUP BY "key" HAVING count(*) > 1) AS d"#)
                == .integer(0))
        for store in stores { store.close() }
    }

    /// Each worker gives every item its own string, owner and tags: whichever population
    /// ran last for an item, the item's string, owner and tags are all that worker's (the
    /// populations are serializable), and no owner keeps an item another owner now holds.
    @Test("Overlapping writers leave each record wholly as one of them wrote it")
    func overlappingWritersAreSerializable() async throws {
        let server = try PostgreSQLTestServer.shared()
        let workers = 4
        let itemCount = 200
        func response(worker: Int) -> JSONValue {
            .array(
                (0..<itemCount).map { index in
                    let item = (index * (2 * worker + 1) * 7) % itemCount
                    return [
                        "key": .string("k\(item)"), "s": .string("w\(worker)"),
                        "tags": .array((0..<2).map { ["name": .string("w\(worker)-t\((item + $0) % 30)")] }),
                        "parts": .array((0..<2).map { ["id": .string("p\(item)-\(($0 + worker) % 3)")] }),
                        "owner": ["id": .integer(Int64(100 * worker + item % 7)), "name": .string("w\(worker)")],
                    ]
                })
        }
        for round in 0..<3 {
            let url = server.url(database: try server.makeDatabase())
            let stores = try (0..<workers).map { _ in try RecordStore(postgreSQL: url, schema: Self.schema) }
            if round > 0 { _ = try await stores[0].populate(response(worker: 3), entity: "Item") }
            let failures = await withTaskGroup(of: String?.self) { group in
                for worker in 0..<workers {
                    let store = stores[worker]
                    let body = response(worker: worker)
                    group.addTask {
                        do throws(WebRecordError) {
                            _ = try await store.populate(body, entity: "Item")
                            return nil
                        } catch {
                            return "worker \(worker): \(error)"
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(failures.isEmpty, "round \(round): \(failures)")
            let store = stores[0]
            let items = try store.exportJSON(entity: "Item").arrayValue ?? []
            #expect(items.count == itemCount, "round \(round)")
            var wrong: [String] = []
            for item in items {
                guard let key = item["key"]?.stringValue, let index = Int(key.dropFirst()),
                    let s = item["s"]?.stringValue, let worker = Int(s.dropFirst())
                else {
                    wrong.append("\(item)")
                    continue
                }
                let tags = Set(
                    (item["tags"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["name"]?.stringValue })
                let parts = (item["parts"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["id"]?.stringValue }
                let owner: Int64? =
                    if case .integer(let id)? = item["owner"] {
                        id
                    } else if case .integer(let id)? = item["owner"]?["id"] {
                        id
                    } else { nil }
                if tags != Set((0..<2).map { "w\(worker)-t\((index + $0) % 30)" })
                    || parts != (0..<2).map({ "p\(index)-\(($0 + worker) % 3)" })
                    || owner != Int64(100 * worker + index % 7)
                {
                    wrong.append(
                        "\(key) (s from worker \(worker)): tags \(tags), parts \(parts), owner \(String(describing: owner))"
                    )
                }
            }
            #expect(wrong.isEmpty, "round \(round): \(wrong.count) items mix workers: \(wrong.prefix(5))")
            // Each item is held by one owner's list, the one its row names.
            let owners = try store.exportJSON(entity: "Owner").arrayValue ?? []
            let listed = owners.flatMap { ($0["items"]?.arrayValue ?? []) }.count
            #expect(listed == itemCount, "round \(round): owners list \(listed) items")
            for store in stores { store.close() }
        }
    }

    // MARK: - Namespaces shared by one database

    @Test("Stores in namespaces of odd names in one database each hold their own rows, as SQLite would")
    func oddNamespacesInOneDatabase() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let namespaces = ["Mixed Case", #"q"uote"#, "é.dot", "public"]
        for (index, namespace) in namespaces.enumerated() {
            let response = Self.many(30 + index, last: #"{"key": "ns\#(index)", "s": "\#(index)"}"#)
            let sqlite = try PostgreSQLStores.sqlite(Self.schema)
            let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema, at: location, namespace: namespace)
            let expected = await Self.populate(sqlite, response)
            let outcome = await Self.populate(postgreSQL, response, batchBytes: 300)
            #expect(outcome == expected, "\(namespace)")
            #expect(try Self.lines(postgreSQL) == (try Self.lines(sqlite)), "\(namespace)")
        }
        for (index, namespace) in namespaces.enumerated() {
            let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema, at: location, namespace: namespace)
            let store = RecordStore(database: postgreSQL, configuration: RecordStore.Configuration())
            #expect(try store.count("Item") == 31 + index, "\(namespace)")
        }
    }

    // MARK: - A statement timed out

    @Test("A population the statement timeout ends leaves the store as it was, and the next one works")
    func statementTimeoutMidway() async throws {
        let location = try PostgreSQLStores.newDatabase()
        let earlier = Self.many(100, last: #"{"key": "z"}"#)
        let plain = try PostgreSQLStores.postgreSQL(Self.schema, at: location)
        #expect(await Self.populate(plain, earlier).failure == nil)
        let before = try Self.lines(plain)
        var options = PostgreSQLDatabase.Options()
        options.statementTimeout = .milliseconds(20)
        let timed = try PostgreSQLDatabase(location, schema: Self.schema, options: options)
        let big = Self.many(30_000, last: #"{"key": "k1", "s": "changed"}"#).replacingOccurrences(
            of: #""v"#, with: #""w"#)
        let outcome = await Self.populate(timed, big)
        #expect(outcome.failure?.contains("statement timeout") == true, "\(outcome)")
        #expect(try Self.lines(plain) == before)
        let next = await Self.populate(timed, #"[{"key": "k1", "s": "small"}]"#)
        #expect(next.failure == nil, "\(next)")
    }

    // MARK: - Fetch conditions

    /// PostgreSQL's `LIKE`/`ILIKE` take a backslash as the pattern's escape character by
    /// default; SQLite's `LIKE` has no escape character unless `ESCAPE` is given. The store gives
    /// each `LIKE` an `ESCAPE ''`, so the same condition and argument match the same records:
    /// `s LIKE 'a\b'` finds `a\b` (and `A\B`) on both, not `ab`; a pattern ending in a backslash
    /// is no error.
    @Test("A LIKE pattern holding a backslash matches the same records as on SQLite")
    func likeWithABackslash() async throws {
        let records =
            #"[{"key": "1", "s": "a\\b"}, {"key": "2", "s": "ab"}, {"key": "3", "s": "a%"}, {"key": "4", "s": "a\\x"}, {"key": "5", "s": "a\\"}, {"key": "6", "s": "A\\B"}]"#
        let sqlite = try PostgreSQLStores.sqlite(Self.schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(Self.schema)
        #expect(await Self.populate(sqlite, records).failure == nil)
        #expect(await Self.populate(postgreSQL, records).failure == nil)
        let stores = [
            RecordStore(database: sqlite, configuration: RecordStore.Configuration()),
            RecordStore(database: postgreSQL, configuration: RecordStore.Configuration()),
        ]
        func keys(_ store: RecordStore, _ pattern: String) -> String {
            do {
                return try store.fetch("Item", where: "s LIKE ?", arguments: [pattern], orderBy: [.ascending("key")])
                    .map { ($0["key"] as String?) ?? "nil" }.joined(separator: ",")
            } catch {
                return "error: \(error.code)"
            }
        }
        for pattern in [#"a\b"#, #"a\%"#, #"a\"#, #"%\%"#, #"a\_"#] {
            let expected = keys(stores[0], pattern)
            #expect(keys(stores[1], pattern) == expected, "LIKE '\(pattern)': SQLite finds \(expected)")
        }
        #expect(keys(stores[0], #"a\b"#) == "1,6")
    }

    // MARK: - Namespaces

    /// A namespace named `$user`: the session's `SET search_path TO "$user"` would make
    /// PostgreSQL read it as the role's own schema, so the tables would go elsewhere (or nowhere)
    /// and the store's qualified names would not find them. Refused when the store opens, before
    /// anything is made.
    @Test("A namespace named $user is refused when the store opens")
    func namespaceNamedDollarUser() async throws {
        let location = try PostgreSQLStores.newDatabase()
        #expect {
            _ = try PostgreSQLStores.postgreSQL(Self.schema, at: location, namespace: "$user")
        } throws: { error in
            (error as? WebRecordError)?.code == .invalidArgument
                && (error as? WebRecordError)?.message.contains("cannot be named '$user'") == true
        }
        let check = try PostgreSQLConnection(location)
        #expect(try check.rows("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = '$user'").isEmpty)
    }
}
