import Foundation
import TestSupport
import Testing
import WebRecord

/// What the App.net fixture holds, counted independently of WebRecord with JSONSerialization.
struct AppNetFixture {
    var posts: [[String: Any]]
    var userIDs: Set<String>
    var usersWithCounts: Set<String>
    var usersWithCoverImage: Set<String>
    var postsWithSource: Int

    init() throws {
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        posts = try #require(root["data"] as? [[String: Any]])
        var userIDs: Set<String> = []
        var counts: Set<String> = []
        var covers: Set<String> = []
        var sources = 0
        for post in posts {
            if post["source"] is [String: Any] { sources += 1 }
            guard let user = post["user"] as? [String: Any], let id = user["id"] as? String else { continue }
            userIDs.insert(id)
            if user["counts"] is [String: Any] { counts.insert(id) }
            if user["cover_image"] is [String: Any] { covers.insert(id) }
        }
        self.userIDs = userIDs
        usersWithCounts = counts
        usersWithCoverImage = covers
        postsWithSource = sources
    }

    /// Records each entity gets from one population into an empty store, in schema order.
    var insertedByEntity: [(String, Int)] {
        [
            ("Post", posts.count), ("User", userIDs.count), ("Counts", usersWithCounts.count),
            ("CoverImage", usersWithCoverImage.count), ("Source", postsWithSource),
        ]
    }

    var totalRecords: Int { insertedByEntity.reduce(0) { $0 + $1.1 } }
}

/// The `--json` summary, read with WebRecord's reader so key order can be checked.
struct Summary {
    var object: JSONObject

    init(_ result: CLIResult) throws {
        object = try #require(try JSONReader().read(result.stdoutData).objectValue, "\(result)")
    }

    func int(_ key: String) -> Int? { object[key]?.int64Value.map(Int.init) }

    func int(_ entity: String, _ key: String) -> Int? {
        object["entities"]?[entity]?[key]?.int64Value.map(Int.init)
    }

    var entities: JSONObject { object["entities"]?.objectValue ?? [:] }
    var warnings: [JSONValue] { object["warnings"]?.arrayValue ?? [] }
}

/// `webrecord populate`
@Suite struct PopulateCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let posts: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try CLI.fixture("appnet-schema.json").path
        posts = try CLI.fixture("appnet-posts.json").path
    }

    var db: String { directory.path("appnet.sqlite") }

    func populate(_ extra: [String], sources: [String]? = nil, input: Data? = nil) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post"] + extra + (sources ?? [posts]),
            in: directory.url, input: input)
    }

    @Test func jsonSummaryIsConsistent() async throws {
        let fixture = try AppNetFixture()
        let result = try await populate(["--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        let summary = try Summary(result)
        #expect(
            summary.object.keys == ["records", "inserted", "updated", "unchanged", "deleted", "entities", "warnings"])
        #expect(summary.int("records") == 20)
        #expect(summary.int("records") == fixture.posts.count)
        for (entity, inserted) in fixture.insertedByEntity {
            #expect(summary.entities[entity]?.objectValue?.keys == ["inserted", "updated", "unchanged", "deleted"])
            #expect(summary.int(entity, "inserted") == inserted, "\(entity)")
            #expect(summary.int(entity, "updated") == 0)
            #expect(summary.int(entity, "unchanged") == 0)
            #expect(summary.int(entity, "deleted") == 0)
        }
        #expect(summary.entities.keys == fixture.insertedByEntity.map(\.0), "entities in schema order")
        // The totals are the sums of the per-entity counts.
        for key in ["inserted", "updated", "unchanged", "deleted"] {
            let sum = summary.entities.values.compactMap { $0[key]?.int64Value }.reduce(0, +)
            #expect(summary.int(key) == Int(sum), "\(key)")
        }
        #expect(summary.int("inserted") == fixture.totalRecords)
        #expect(summary.warnings == [])
    }

    @Test func repopulatingChangesNothing() async throws {
        let first = try Summary(try await populate(["--json"]))
        let second = try await populate(["--json"])
        #expect(second.status == 0, "\(second)")
        let summary = try Summary(second)
        #expect(summary.int("records") == 20)
        #expect(summary.int("inserted") == 0)
        #expect(summary.int("updated") == 0)
        #expect(summary.int("deleted") == 0)
        #expect(summary.int("unchanged") == first.int("inserted"))
        for (entity, value) in first.entities {
            #expect(summary.int(entity, "unchanged") == value["inserted"]?.int64Value.map(Int.init), "\(entity)")
        }
    }

    @Test("After populate returns, the store file alone is the whole store: a plain copy of it exports the same")
    func theStoreIsClosedBeforeTheCommandReturns() async throws {
        let result = try await populate(["--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "the WAL was checkpointed and removed")
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        for entity in ["Post", "User"] {
            let original = try await CLI.run(
                ["export", "--schema", schema, "--db", db, "--entity", entity], in: directory.url)
            let copied = try await CLI.run(
                ["export", "--schema", schema, "--db", copy, "--entity", entity], in: directory.url)
            #expect(original.status == 0 && copied.status == 0, "\(original)\n\(copied)")
            #expect(copied.stdout == original.stdout)
            #expect(copied.stdout.count > 100, "\(entity) exported records")
        }
    }

    @Test func countsAreSummedOverSources() async throws {
        let fixture = try AppNetFixture()
        let result = try await populate(["--json"], sources: [posts, posts])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("records") == 2 * fixture.posts.count)
        #expect(summary.int("inserted") == fixture.totalRecords)
        #expect(summary.int("unchanged") == fixture.totalRecords)
        #expect(summary.int("Post", "inserted") == fixture.posts.count)
        #expect(summary.int("Post", "unchanged") == fixture.posts.count)
    }

    @Test func humanSummary() async throws {
        let fixture = try AppNetFixture()
        let result = try await populate([])
        #expect(result.status == 0, "\(result)")
        var expected =
            "Populated 20 Post records: \(fixture.totalRecords) inserted, 0 updated, 0 unchanged, 0 deleted\n"
        for (entity, inserted) in fixture.insertedByEntity {
            expected += "  \(entity): \(inserted) inserted, 0 updated, 0 unchanged, 0 deleted\n"
        }
        expected += "0 warnings\n"
        #expect(result.stdout == expected)
        #expect(result.stderr == "")
    }

    @Test func quietPrintsNothingButPopulates() async throws {
        let fixture = try AppNetFixture()
        let result = try await populate(["--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == "")
        let again = try Summary(try await populate(["--json", "--quiet"]))
        #expect(again.int("unchanged") == fixture.totalRecords, "--json still prints with --quiet")
    }

    @Test func warningsAreReported() async throws {
        let empty = try directory.write("empty.json", #"{"data": []}"#)
        let json = try await populate(["--json"], sources: [empty])
        #expect(json.status == 0, "\(json)")
        let summary = try Summary(json)
        #expect(summary.int("records") == 0)
        #expect(summary.warnings.count == 1)
        #expect(summary.warnings.first?.objectValue?.keys == ["code", "message"])
        #expect(summary.warnings.first?["code"] == "emptyResultSet")
        #expect(summary.warnings.first?["message"]?.stringValue?.hasPrefix("Post") == true, "\(json)")

        let human = try await populate([], sources: [empty])
        #expect(human.stdoutLines.first == "Populated 0 Post records: 0 inserted, 0 updated, 0 unchanged, 0 deleted")
        #expect(human.stdoutLines.last == "1 warning")
        #expect(human.stderrLines.count == 1)
        #expect(human.stderrLines.first?.hasPrefix("webrecord: warning: Post") == true, "\(human)")
        #expect(human.stderrLines.first?.hasSuffix("[emptyResultSet]") == true)
    }

    @Test func keyPathOverridesTheEntitys() async throws {
        let result = try await CLI.run(
            [
                "populate", "--schema", schema, "--db", db, "--entity", "User", "--key-path=data.0.user", "--json",
                posts,
            ],
            in: directory.url)
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("records") == 1)
        #expect(summary.int("User", "inserted") == 1)
        #expect(summary.entities["Post"] == nil)
    }

    @Test func standardInputSource() async throws {
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        let result = try await populate(["--json"], sources: ["-"], input: data)
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("records") == 20)
    }

    /// The project's own `Schemas/AppNet.json` (not a test fixture: the file users start from).
    static var shippedAppNetSchema: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Schemas/AppNet.json")
    }

    @Test func shippedAppNetSchemaPopulatesTheFixture() async throws {
        let fixture = try AppNetFixture()
        let shipped = Self.shippedAppNetSchema.path
        let lint = try await CLI.run(["lint", shipped])
        #expect(lint.status == 0, "\(lint)")
        let result = try await CLI.run(
            ["populate", "--schema", shipped, "--db", db, "--entity", "Post", "--json", posts], in: directory.url)
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("records") == fixture.posts.count)
        #expect(summary.int("Post", "inserted") == fixture.posts.count)
        #expect(summary.int("User", "inserted") == fixture.userIDs.count)
        let sum = summary.entities.values.compactMap { $0["inserted"]?.int64Value }.reduce(0, +)
        #expect(summary.int("inserted") == Int(sum))
    }

    // MARK: - Failures

    static let malformed = "{\n  \"data\": [\n}\n"

    @Test func malformedJSONLeavesTheStoreAsItWas() async throws {
        #expect(try await populate(["--quiet"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        try directory.write("bad.json", Self.malformed)

        let result = try await populate(["--json"], sources: ["bad.json"])
        #expect(result.status == 1)
        #expect(try JSONReader().read(result.stdoutData)["error"]?["code"] == "invalidJSON", "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        let line = try #require(result.stderrLines.first)
        #expect(line.hasPrefix("webrecord: error: bad.json: line 3, column 1: malformed JSON: "), "\(line)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the store file is byte-for-byte unchanged")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "no write-ahead log is left behind")
    }

    @Test func failingFirstSourceCreatesNoStore() async throws {
        try directory.write("bad.json", Self.malformed)
        let result = try await populate([], sources: ["bad.json", posts])
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func fatalPopulationErrorLeavesTheStoreAsItWas() async throws {
        #expect(try await populate(["--quiet"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        try directory.write("scalar.json", #"{"data": 5}"#)
        let result = try await populate([], sources: ["scalar.json"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: scalar.json: invalidResponseFormat: ") == true,
            "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test func earlierSourcesStay() async throws {
        try directory.write("bad.json", Self.malformed)
        let result = try await populate([], sources: [posts, "bad.json"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasSuffix("; the source before it was saved") == true, "\(result)")
        let export = try await CLI.run(
            ["export", "--schema", schema, "--db", db, "--entity", "Post"], in: directory.url)
        #expect(export.status == 0, "\(export)")
        #expect(try JSONReader().read(export.stdoutData).arrayValue?.count == 20)
    }

    @Test func missingSourceFile() async throws {
        let result = try await populate([], sources: ["nowhere.json"])
        #expect(result.status == 1)
        #expect(result.stderr == "webrecord: error: nowhere.json: no such file\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func unknownEntitySuggestsTheClosest() async throws {
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Pots", posts], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr == "webrecord: error: the schema has no entity 'Pots'. Did you mean 'Post'?\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func invalidSchemaIsOneLine() async throws {
        let bad = try directory.write("bad-schema.json", LintCommandTests.invalid)
        let result = try await CLI.run(
            ["populate", "--schema", bad, "--db", db, "--entity", "Post", posts], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: invalid schema: \(bad): Post.") == true, "\(result)")
        #expect(result.stderrLines.first?.contains("more problems; run 'webrecord lint' to list them)") == true)
    }

    @Test func incompatibleStoreIsOneLine() async throws {
        #expect(try await populate(["--quiet"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        // The same entities with Post.id now an integer: the store cannot migrate in place.
        let text = try String(contentsOf: URL(fileURLWithPath: schema), encoding: .utf8)
            .replacingOccurrences(of: #""id": { "type": "string" },"#, with: #""id": { "type": "integer" },"#)
        let changed = try directory.write("changed.json", text)
        let result = try await CLI.run(
            ["populate", "--schema", changed, "--db", db, "--entity", "Post", posts], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: \(db): incompatibleStore: ") == true, "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    /// The line names the store once, as Docs/CLI.md shows it:
    /// `webrecord: error: appnet.sqlite: incompatibleStore: the schema changed incompatibly ...`.
    @Test func incompatibleStoreNamesTheStoreOnce() async throws {
        #expect(try await populate(["--quiet"]).status == 0)
        let text = try String(contentsOf: URL(fileURLWithPath: schema), encoding: .utf8)
            .replacingOccurrences(of: #""id": { "type": "string" },"#, with: #""id": { "type": "integer" },"#)
        let changed = try directory.write("changed.json", text)
        let result = try await CLI.run(
            ["populate", "--schema", changed, "--db", db, "--entity", "Post", posts], in: directory.url)
        #expect(result.status == 1)
        let line = try #require(result.stderrLines.first, "\(result)")
        #expect(
            line.hasPrefix(
                "webrecord: error: \(db): incompatibleStore: the schema changed incompatibly since the store was created"
            ),
            "\(result)")
        #expect(line.components(separatedBy: db).count == 2, "the store is named more than once: \(line)")
    }
}
