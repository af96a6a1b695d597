import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecord
import WebRecordPostgreSQL
import WebRecordTesting

/// `webrecord populate --paginate --delete-orphans` ends only where the server says so, into a
/// SQLite file and a PostgreSQL database: `has-more:`, offsets that advance by what a page
/// returned up to a stated total, a list that moves while it is paged, a next link that is not
/// where it was looked for, and a failing page's message. Each run starts from a store holding
/// the record 99, which the server no longer has: it is deleted only after an end the server
/// stated.
@Suite(.measuresTime) struct PagingStatedEndCommandTests {
    enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
        case sqlite, postgreSQL
        var description: String { rawValue }
    }

    let directory: TemporaryDirectory
    let schema: String
    let server: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("paging-schema.json", PagingRulesCommandTests.schemaJSON)
        server = try LoopbackHTTPServer()
    }

    /// A `--db` of the kind, seeded with the record 99.
    func database(_ kind: StoreKind) async throws -> String {
        let db: String
        switch kind {
        case .sqlite:
            db = directory.path("paging.sqlite")
        case .postgreSQL:
            db = try await ChildProcess.onThread {
                let server = try PostgreSQLTestServer.shared()
                return server.url(database: try server.makeDatabase())
            }
        }
        let seed = try directory.write("seed.json", PagingBodies.body([99]))
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Item", "--quiet", seed], in: directory.url)
        #expect(result.status == 0, "\(result)")
        return db
    }

    func populate(_ db: String, _ path: String, _ paginate: String) async throws -> CLIResult {
        try await CLI.run(
            [
                "populate", "--schema", schema, "--db", db, "--entity", "Item", "--json", "--paginate", paginate,
                "--delete-orphans", server.url(path).absoluteString,
            ], in: directory.url)
    }

    func storedIDs(_ db: String, _ kind: StoreKind) throws -> [Int] {
        let schema = try Schema(contentsOf: URL(fileURLWithPath: self.schema))
        let store =
            kind == .sqlite
            ? try RecordStore(path: db, schema: schema) : try RecordStore(postgreSQL: db, schema: schema)
        defer { store.close() }
        return try store.fetch("Item", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? }
    }

    func ends(_ result: CLIResult) throws -> [String] {
        try (Summary(result).object["paging"]?.arrayValue ?? []).map { $0["end"]?.stringValue ?? "?" }
    }

    func warnings(_ result: CLIResult) throws -> [String] {
        try Summary(result).warnings.map { $0["message"]?.stringValue ?? "" }
    }

    /// The run ended as `end`, and kept the orphan, saying so.
    func expectIncomplete(
        _ result: CLIResult, _ end: String, db: String, kind: StoreKind,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(try ends(result) == [end], sourceLocation: sourceLocation)
        #expect(try Summary(result).int("Item", "deleted") == 0, sourceLocation: sourceLocation)
        #expect(try storedIDs(db, kind).contains(99), sourceLocation: sourceLocation)
        #expect(
            try warnings(result).contains { $0.contains("(\(end))") && $0.contains("no orphans were deleted") },
            "\(result)", sourceLocation: sourceLocation)
    }

    static func body(_ ids: [Int], _ extra: JSONObject = [:]) -> String {
        var object = extra
        object["data"] = .array(ids.map { ["id": .integer(Int64($0)), "name": .string("item \($0)")] })
        return JSONValue.object(object).serialized()
    }

    @Test(arguments: StoreKind.allCases)
    func hasMoreFollowsTheLastRecordsKeyAndDeletesOrphansAfterTheFlagSaysNoMore(kind: StoreKind) async throws {
        let db = try await database(kind)
        // The page one short of the limit is not the end: only the flag is.
        server.route(
            "/v1/customers",
            [
                .json(Self.body([1, 2, 3], ["has_more": true])), .json(Self.body([4, 5], ["has_more": true])),
                .json(Self.body([6, 7], ["has_more": false])),
            ])
        let result = try await populate(db, "/v1/customers?limit=3", "has-more:has_more:id:starting_after")
        #expect(result.status == 0, "\(result)")
        #expect(
            PagingBodies.sent(server) == [
                "/v1/customers?limit=3", "/v1/customers?limit=3&starting_after=3",
                "/v1/customers?limit=3&starting_after=5",
            ])
        #expect(try ends(result) == ["noNextPage"])
        #expect(try Summary(result).int("Item", "deleted") == 1)
        #expect(try storedIDs(db, kind) == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test(arguments: StoreKind.allCases)
    func anOffsetAdvancesByWhatAPageReturnedUpToTheTotal(kind: StoreKind) async throws {
        let db = try await database(kind)
        server.route(
            "/search",
            [
                .json(Self.body([1, 2], ["total": 5])), .json(Self.body([3], ["total": 5])),
                .json(Self.body([4, 5], ["total": 5])),
            ])
        let result = try await populate(db, "/search", "offset:startAt:maxResults:3:total")
        #expect(result.status == 0, "\(result)")
        #expect(
            PagingBodies.sent(server) == [
                "/search?startAt=0&maxResults=3", "/search?startAt=2&maxResults=3", "/search?startAt=3&maxResults=3",
            ])
        #expect(try ends(result) == ["noNextPage"])
        #expect(try Summary(result).int("Item", "deleted") == 1)
        #expect(try storedIDs(db, kind) == [1, 2, 3, 4, 5])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageNumberedRunStopsAtTheTotal(kind: StoreKind) async throws {
        let db = try await database(kind)
        server.route(
            "/list", [.json(Self.body([1, 2], ["meta": ["total": 3]])), .json(Self.body([3], ["meta": ["total": 3]]))])
        let result = try await populate(db, "/list", "page:page:meta.total")
        #expect(result.status == 0, "\(result)")
        #expect(PagingBodies.sent(server) == ["/list?page=1", "/list?page=2"])
        #expect(try ends(result) == ["noNextPage"])
        #expect(try storedIDs(db, kind) == [1, 2, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func aTotalThatChangesIsListMovedAndKeepsOrphans(kind: StoreKind) async throws {
        let db = try await database(kind)
        server.route("/search", [.json(Self.body([6, 5], ["total": 6])), .json(Self.body([2, 1], ["total": 5]))])
        let result = try await populate(db, "/search", "offset:startAt:maxResults:2:total")
        try expectIncomplete(result, "listMoved", db: db, kind: kind)
        #expect(try warnings(result).contains { $0.contains("its total was 6 on page 1 and is 5 on page 2") })
    }

    @Test(arguments: StoreKind.allCases)
    func aPageRepeatingSomeRecordsIsListMovedAndKeepsOrphans(kind: StoreKind) async throws {
        let db = try await database(kind)
        server.route("/issues", [.json(Self.body([6, 5])), .json(Self.body([5, 4]))])
        let result = try await populate(db, "/issues", "offset:o:n:2")
        try expectIncomplete(result, "listMoved", db: db, kind: kind)
        #expect(
            try warnings(result).contains { $0.contains("page 2 holds 1 of its 2 records that earlier pages held") })
    }

    @Test(arguments: StoreKind.allCases)
    func aNextLinkThatIsNotThereIsNextPageNotFoundAndKeepsOrphans(kind: StoreKind) async throws {
        let db = try await database(kind)
        server.route("/p1", .json(Self.body([1], ["meta": ["next": "/p2"]])))
        server.route("/p2", .json(Self.body([2], ["meta": [:]])))
        let result = try await populate(db, "/p1", "next-url:meta.next")
        try expectIncomplete(result, "nextPageNotFound", db: db, kind: kind)
        #expect(try storedIDs(db, kind) == [1, 2, 99])
    }

    @Test(arguments: StoreKind.allCases, [0, 2])
    func aFailingPageSaysWhichPagesWereSaved(kind: StoreKind, failing: Int) async throws {
        let db = try await database(kind)
        var responses = (0..<failing).map {
            LoopbackResponse.json(Self.body([$0 + 1], ["meta": ["next": .string("/list?p=\($0 + 2)")]]))
        }
        responses.append(.status(404))
        server.route("/list", responses)
        let result = try await populate(db, "/list?p=1", "next-url:meta.next")
        #expect(result.status == 1, "\(result)")
        if failing == 0 {
            #expect(!result.stderr.contains("saved"), "\(result)")
            #expect(result.stderr.contains("no orphans were deleted"), "\(result)")
        } else {
            #expect(
                result.stderr.contains("; pages 1-2 were saved; page 3 failed; no orphans were deleted"), "\(result)")
        }
        #expect(try storedIDs(db, kind) == (0..<failing).map { $0 + 1 } + [99])
    }
}
