import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate` on responses whose shape is not what the schema declares, on a SQLite
/// file and on PostgreSQL: a missing key path fails the source (never an empty result), earlier
/// sources and pages stay, no orphan is deleted, and `--json` prints one failure object on
/// stdout. Also the detail key path in `lint`, and paths that are not files.
@Suite(.measuresTime) struct ResponseShapeCommandTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Customer": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "keyPathForDetailResponse": "",
              "attributes": {
                "id": { "type": "string" },
                "email": { "type": "string", "optional": false }
              }
            }
          }
        }
        """

    static let envelope = #"{"error": {"message": "rate limited", "type": "api_error"}, "status": 429}"#

    enum StoreKind: String, CaseIterable, Sendable {
        case sqlite, postgreSQL
    }

    let directory: TemporaryDirectory
    let schema: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("shapes.json", Self.schemaJSON)
    }

    func database(_ kind: StoreKind) throws -> String {
        switch kind {
        case .sqlite: return directory.path("shapes.sqlite")
        case .postgreSQL:
            let server = try PostgreSQLTestServer.shared()
            return server.url(database: try server.makeDatabase())
        }
    }

    func populate(_ db: String, _ extra: [String]) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Customer"] + extra, in: directory.url)
    }

    func storedIDs(_ db: String) async throws -> [String] {
        let export = try await CLI.run(
            ["export", "--schema", schema, "--db", db, "--entity", "Customer"], in: directory.url)
        #expect(export.status == 0, "\(export)")
        return try JSONReader().read(export.stdoutData).arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// The one JSON object a failed `--json` run prints on stdout.
    func failureObject(_ result: CLIResult) throws -> JSONObject {
        try #require(try JSONReader().read(result.stdoutData).objectValue, "\(result)")
    }

    @Test(arguments: StoreKind.allCases)
    func aSourceAnsweringAnErrorEnvelopeFailsAndJSONSaysWhatWasSaved(kind: StoreKind) async throws {
        let db = try database(kind)
        let good = try directory.write(
            "good.json", #"{"data": [{"id": "cus_1", "email": "a@x"}, {"id": "cus_2", "email": "b@x"}]}"#)
        let bad = try directory.write("bad.json", Self.envelope)
        let result = try await populate(db, ["--json", good, bad])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("no 'data'") && result.stderr.contains("'error', 'status'"), "\(result.stderr)")
        #expect(result.stderr.contains("rate limited"), "an excerpt of the body: \(result.stderr)")
        let object = try failureObject(result)
        #expect(object["error"]?["code"] == "invalidResponseFormat", "\(object)")
        #expect(object["error"]?["message"]?.stringValue?.contains("no 'data'") == true, "\(object)")
        #expect(object["savedSources"] == [.string(good)], "\(object)")
        #expect(object["failedSource"]?["source"] == .string(bad), "\(object)")
        #expect(object["orphansDeleted"] == false, "\(object)")
        #expect(object["records"] == 2 && object["inserted"] == 2, "\(object)")
        #expect(try await storedIDs(db) == ["cus_1", "cus_2"])

        // null at the key path stays an empty result.
        let empty = try directory.write("empty.json", #"{"data": null}"#)
        let emptied = try await populate(db, ["--json", empty])
        #expect(emptied.status == 0, "\(emptied)")
        #expect(try await storedIDs(db) == ["cus_1", "cus_2"])
    }

    @Test(arguments: StoreKind.allCases)
    func aPageAnsweringAnErrorEnvelopeEndsTheRunIncompleteAndDeletesNoOrphan(kind: StoreKind) async throws {
        let db = try database(kind)
        let seed = try directory.write("seed.json", #"{"data": [{"id": "cus_old", "email": "o@x"}]}"#)
        #expect(try await populate(db, [seed]).status == 0)
        let server = try LoopbackHTTPServer()
        server.route("/p1", .json(#"{"data": [{"id": "cus_1", "email": "a@x"}], "next": "/p2"}"#))
        server.route("/p2", .json(Self.envelope))
        server.route("/p3", .json(#"{"data": [{"id": "cus_3", "email": "c@x"}], "next": "/p4"}"#))
        server.route("/p4", .json(#"{"data": [{"id": "cus_4", "email": "d@x"}], "next": null}"#))
        let result = try await populate(
            db, ["--json", "--paginate", "next-url:next", "--delete-orphans", server.url("/p1").absoluteString])
        #expect(result.status == 1, "page 2 of 4 answering an error envelope is not the end: \(result)")
        #expect(result.stderr.contains("no 'data'"), "\(result.stderr)")
        let object = try failureObject(result)
        #expect(object["error"]?["code"] == "invalidResponseFormat", "\(object)")
        #expect(object["failedSource"]?["pagesSaved"] == 1, "\(object)")
        #expect(object["orphansDeleted"] == false, "\(object)")
        #expect(object["records"] == 1, "\(object)")
        #expect(server.requests(to: "/p3").isEmpty)
        #expect(try await storedIDs(db) == ["cus_1", "cus_old"], "page 1 stays, the orphan too")
    }

    @Test func aRunThatFailsBeforeSavingAnythingStillPrintsOneObject() async throws {
        let result = try await populate(directory.path("shapes.sqlite"), ["--json", "missing.json"])
        #expect(result.status == 1, "\(result)")
        let object = try failureObject(result)
        #expect(object["error"]?["code"] == "notFound", "\(object)")
        #expect(object["error"]?["message"]?.stringValue?.contains("missing.json") == true, "\(object)")
        #expect(object["savedSources"] == [], "\(object)")
        #expect(object["orphansDeleted"] == false && object["records"] == 0, "\(object)")
        // Without --json, stdout stays empty.
        let plain = try await populate(directory.path("shapes.sqlite"), ["missing.json"])
        #expect(plain.status == 1 && plain.stdout.isEmpty, "\(plain)")
    }

    @Test func aRecordLackingANonOptionalValueIsNamedWithItsAttribute() async throws {
        let source = try directory.write("one.json", #"{"data": [{"id": "cus_1", "email": null}]}"#)
        let result = try await populate(directory.path("shapes.sqlite"), [source])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("Customer 'cus_1': email is null, and it is not optional"), "\(result.stderr)")
    }

    // MARK: - The detail key path in lint

    @Test func lintAcceptsADetailKeyPathAndRefusesAMalformedOne() async throws {
        let ok = try await CLI.run(["lint", schema])
        #expect(ok.status == 0, "\(ok)")
        let broken = try directory.write(
            "broken.json",
            #"{"version": 1, "entities": {"A": {"primaryKey": "id", "keyPathForDetailResponse": "data..item", "attributes": {"id": {"type": "string"}}}, "B": {"primaryKey": "id", "keyPathForDetailResponse": 5, "attributes": {"id": {"type": "string"}}}}}"#
        )
        let lint = try await CLI.run(["lint", broken])
        #expect(lint.status == 1, "\(lint)")
        #expect(
            lint.stdout.contains("A: 'keyPathForDetailResponse' key path 'data..item' has an empty component"),
            "\(lint)")
        #expect(lint.stdout.contains("B: ") && lint.stdout.contains("keyPathForDetailResponse"), "\(lint)")
    }

    // MARK: - Paths that are not files

    @Test func importModelAndLintSayWhatAPathIs() async throws {
        let model = try await CLI.run(["import-model", "/dev/null"])
        #expect(model.status == 1, "\(model)")
        #expect(model.stderr.contains("/dev/null") && model.stderr.contains("a character device"), "\(model.stderr)")
        #expect(!model.stderr.contains("permission"), "\(model.stderr)")
        let lint = try await CLI.run(["lint", "/dev/null"])
        #expect(lint.status == 1, "\(lint)")
        #expect((lint.stdout + lint.stderr).contains("a character device"), "\(lint)")
        let dangling = directory.path("dangling.xml")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "nowhere.xml")
        let link = try await CLI.run(["import-model", dangling])
        #expect(link.stderr.contains("dangling symbolic link") && link.stderr.contains("nowhere.xml"), "\(link.stderr)")
    }
}
