import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

// An adversarial round on the honesty of `webrecord populate`: an exit status of 0 means the
// store holds what the sources hold, the `--json` counts match what changed in the store, and
// no secret (a database password, a token in a source URL, a `--header` credential) shows in
// any output. Tests that fail name the defect they show.

private let itemSchemaJSON = """
    {
      "version": 1,
      "entities": {
        "Item": {
          "primaryKey": "id",
          "keyPathForResponseObject": "items",
          "attributes": { "id": { "type": "integer" }, "label": { "type": "string", "optional": true } }
        }
      }
    }
    """

private let postSchemaJSON = """
    {
      "version": 1,
      "entities": {
        "Post": {
          "primaryKey": "id",
          "keyPathForResponseObject": "data",
          "attributes": { "id": { "type": "string" }, "text": { "type": "string", "optional": true } },
          "relationships": {
            "user": { "destination": "User", "inverse": "posts" },
            "tags": { "destination": "Tag", "toMany": true, "inverse": "post", "deleteRule": "cascade" }
          }
        },
        "User": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "string" }, "name": { "type": "string", "optional": true } },
          "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "user" } }
        },
        "Tag": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "string" } },
          "relationships": { "post": { "destination": "Post", "inverse": "tags", "deleteRule": "cascade" } }
        }
      }
    }
    """

@Suite(.measuresTime) struct AdversarialCLITests {
    static let secret = "Adv3rsarialS3cret"

    let directory: TemporaryDirectory
    let schema: String
    let server: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("items.json", itemSchemaJSON)
        server = try LoopbackHTTPServer()
    }

    var db: String { directory.path("store.sqlite") }

    func populate(
        _ arguments: [String], entity: String = "Item", schema: String? = nil, input: Data? = nil,
        environment: [String: String] = [:]
    ) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema ?? self.schema, "--db", db, "--entity", entity] + arguments,
            in: directory.url, input: input, environment: environment)
    }

    /// The rows of `table`, each row's columns after `_id` and `_entity`, joined by `|`.
    func rows(_ table: String, schemaJSON: String = itemSchemaJSON) throws -> [String] {
        guard FileManager.default.fileExists(atPath: db) else { return [] }
        let store = try RecordStore(path: db, schema: Schema(json: schemaJSON))
        defer { store.close() }
        return try store.read { connection in
            try connection.rows("SELECT * FROM \"\(table)\" ORDER BY 3").map { row in
                row.dropFirst(2).map(\.description).joined(separator: "|")
            }
        }
    }

    func seed(_ json: String = #"{"items": [{"id": 1, "label": "a"}, {"id": 2, "label": "b"}, {"id": 99}]}"#)
        async throws
    {
        let file = try directory.write("seed.json", json)
        let result = try await populate(["--quiet", file])
        #expect(result.status == 0, "\(result)")
    }

    // MARK: - Honesty: what --json says was saved is what the store holds

    /// A paged source whose page 2 is populated and saved, but whose next page cannot be named
    /// (a has-more flag or cursor of the wrong type), fails with "pages 1-2 were saved", and the
    /// `--json` failure object counts what was saved: `"pagesSaved": 2`, both pages' records
    /// (Docs/CLI.md, "When the run fails").
    @Test(arguments: [
        ("has-more:more:id:after", #"{"items": [{"id": 2}], "more": "false"}"#),
        ("cursor:cur:cur", #"{"items": [{"id": 2}], "cur": false}"#),
    ])
    func aFailedPagedRunCountsThePageItSaved(pagination: String, secondPage: String) async throws {
        server.route(
            "/pages",
            [
                .json(#"{"items": [{"id": 1}], "more": true, "cur": "x"}"#),
                .json(secondPage),
            ])
        let result = try await populate(["--json", "--paginate", pagination, server.url("/pages").absoluteString])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("pages 1-2 were saved"), "\(result)")
        // What the store holds: both pages.
        #expect(try rows("Item") == ["1|NULL", "2|NULL"])
        let summary = try Summary(result)
        #expect(summary.object["failedSource"]?["pagesSaved"]?.int64Value == 2, "\(result.stdout)")
        #expect(summary.int("records") == 2, "\(result.stdout)")
        #expect(summary.int("inserted") == 2, "\(result.stdout)")
        #expect(summary.int("Item", "inserted") == 2, "\(result.stdout)")
    }

    /// Correct: the summary's counts, over two sources with duplicates, nested records, stubs,
    /// a replaced cascading to-many and orphan deletion, match a fresh count of the store.
    @Test func summaryCountsMatchTheStore() async throws {
        let postSchema = try directory.write("posts.json", postSchemaJSON)
        let first = try directory.write(
            "p1.json",
            #"{"data": [{"id": "a", "text": "x", "user": "u1", "tags": [{"id": "t1"}, {"id": "t2"}]}, {"id": "a", "text": "y"}, {"id": "b", "user": {"id": "u1", "name": "U"}}]}"#
        )
        var result = try await populate(["--json", first], entity: "Post", schema: postSchema)
        #expect(result.status == 0, "\(result)")
        var summary = try Summary(result)
        #expect(summary.int("records") == 2)
        #expect(summary.int("Post", "inserted") == 2)
        #expect(summary.int("User", "inserted") == 1)
        #expect(summary.int("Tag", "inserted") == 2)
        #expect(summary.int("inserted") == 5)
        #expect(try rows("Post", schemaJSON: postSchemaJSON).count == 2)
        #expect(try rows("User", schemaJSON: postSchemaJSON) == ["'u1'|'U'"])
        #expect(try rows("Tag", schemaJSON: postSchemaJSON).count == 2)

        let second = try directory.write("p2.json", #"{"data": [{"id": "a", "tags": [{"id": "t1"}]}]}"#)
        result = try await populate(["--json", "--delete-orphans", second], entity: "Post", schema: postSchema)
        #expect(result.status == 0, "\(result)")
        summary = try Summary(result)
        #expect(summary.int("Post", "updated") == 1, "\(result.stdout)")
        #expect(summary.int("Post", "deleted") == 1, "\(result.stdout)")
        #expect(summary.int("Tag", "unchanged") == 1, "\(result.stdout)")
        #expect(summary.int("Tag", "deleted") == 1, "\(result.stdout)")
        #expect(summary.int("deleted") == 2, "\(result.stdout)")
        #expect(try rows("Post", schemaJSON: postSchemaJSON).count == 1)
        #expect(try rows("Tag", schemaJSON: postSchemaJSON).count == 1)
    }

    /// Correct: standard input given twice is read once; the second `-` is an empty response,
    /// which fails (never "the server has none"), so `--delete-orphans` deletes nothing.
    @Test func standardInputTwiceNeverDeletesOrphans() async throws {
        try await seed()
        let result = try await populate(
            ["--json", "--delete-orphans", "-", "-"], input: Data(#"{"items": [{"id": 1, "label": "a"}]}"#.utf8))
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("empty input"), "\(result)")
        let summary = try Summary(result)
        #expect(summary.object["orphansDeleted"] == .bool(false))
        #expect(summary.object["savedSources"] == .array([.string("-")]))
        #expect(summary.int("deleted") == 0)
        #expect(try rows("Item") == ["1|'a'", "2|'b'", "99|NULL"])
    }

    /// Correct: an empty file, two JSON values in one file, trailing garbage and a gzip file each
    /// fail the run (exit 1) and leave the store as it was.
    @Test(arguments: [
        ("empty", Data()),
        ("whitespace", Data(" \n\t ".utf8)),
        ("two values", Data(#"{"items": [{"id": 3}]}{"items": [{"id": 4}]}"#.utf8)),
        ("two arrays", Data(#"[{"id": 3}][{"id": 4}]"#.utf8)),
        ("trailing garbage", Data(#"{"items": [{"id": 3}]} xyz"#.utf8)),
        ("truncated", Data(#"{"items": [{"id": 3}, {"id": 4}"#.utf8)),
        ("gzip", Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0xae, 0x05, 0x00])),
    ])
    func unreadableFilesChangeNothing(name: String, bytes: Data) async throws {
        try await seed()
        let file = try directory.write("bad.json", bytes)
        let result = try await populate(["--json", "--delete-orphans", file])
        #expect(result.status == 1, "\(name): \(result)")
        #expect(try Summary(result).int("deleted") == 0, "\(name)")
        #expect(try rows("Item") == ["1|'a'", "2|'b'", "99|NULL"], "\(name)")
    }

    /// Correct: paging that ends without the server saying so (no `next` on a page with records)
    /// exits 0 with a warning, and `--delete-orphans` deletes nothing.
    @Test func pagingThatEndsUnstatedDeletesNothing() async throws {
        try await seed()
        server.route("/p1", .json(#"{"items": [{"id": 1}], "next": "/p2"}"#))
        server.route("/p2", .json(#"{"items": [{"id": 2}]}"#))
        let result = try await populate([
            "--json", "--delete-orphans", "--paginate", "next-url:next", server.url("/p1").absoluteString,
        ])
        #expect(result.status == 0, "\(result)")
        let summary = try Summary(result)
        #expect(summary.int("deleted") == 0)
        #expect(summary.warnings.contains { $0["message"]?.stringValue?.contains("no orphans were deleted") == true })
        #expect(try rows("Item").count == 3)
    }

    /// Correct: `export`, populated into a new store, exports the same text; populated again
    /// into the first store, every record is `unchanged`.
    @Test func exportRoundTrips() async throws {
        let thingSchema = try directory.write(
            "things.json",
            """
            {"version": 1, "entities": {"Thing": {"primaryKey": "id", "attributes": {
              "id": {"type": "string"}, "d": {"type": "date", "optional": true},
              "dec": {"type": "decimal", "optional": true}, "b": {"type": "data", "optional": true},
              "j": {"type": "json", "optional": true}, "f": {"type": "boolean", "optional": true},
              "x": {"type": "double", "optional": true}, "n": {"type": "integer", "optional": true}},
              "relationships": {"parent": {"destination": "Thing", "inverse": "kids"},
                "kids": {"destination": "Thing", "toMany": true, "inverse": "parent"}}}}}
            """)
        let source = try directory.write(
            "t.json",
            #"""
            [{"id": "a", "d": "2012-11-21T02:33:42.123456789+02:00", "dec": "12.50", "b": "aGVsbG8=",
              "j": {"z": 1, "a": [1, 2, {"k": null}]}, "f": "yes", "x": 1e-7, "n": 9007199254740993, "kids": ["b", "c"]},
             {"id": "b", "d": 1353465222.5, "dec": "0.1", "j": "str", "f": 0, "x": -0.0},
             {"id": "c", "j": null, "x": 1.7976931348623157e308}, {"id": "\u00e9"}, {"id": "e\u0301"}]
            """#)
        func run(_ arguments: [String]) async throws -> CLIResult {
            let result = try await CLI.run(arguments, in: directory.url)
            #expect(result.status == 0, "\(result)")
            return result
        }
        let first = directory.path("first.sqlite")
        let second = directory.path("second.sqlite")
        _ = try await run(["populate", "--schema", thingSchema, "--db", first, "--entity", "Thing", "--quiet", source])
        let exported = try await run(["export", "--schema", thingSchema, "--db", first, "--entity", "Thing"]).stdout
        let file = try directory.write("exported.json", exported)
        let into = try await run([
            "populate", "--schema", thingSchema, "--db", second, "--entity", "Thing", "--json", file,
        ])
        #expect(try Summary(into).int("inserted") == 5)
        #expect(try Summary(into).warnings.isEmpty)
        let again = try await run(["export", "--schema", thingSchema, "--db", second, "--entity", "Thing"]).stdout
        #expect(again == exported)
        let same = try await run([
            "populate", "--schema", thingSchema, "--db", first, "--entity", "Thing", "--json", file,
        ])
        #expect(try Summary(same).int("unchanged") == 5, "\(same.stdout)")
        #expect(try Summary(same).int("updated") == 0, "\(same.stdout)")
    }

    // MARK: - Secrets

    func expectNoSecret(_ result: CLIResult, _ secret: String = Self.secret, _ comment: String = "") {
        #expect(!result.stdout.contains(secret), "\(comment) stdout: \(result)")
        #expect(!result.stderr.contains(secret), "\(comment) stderr: \(result)")
    }

    enum EchoedCredential: String, CaseIterable, CustomTestStringConvertible {
        case authorizationHeader, apiKeyHeader, urlPassword, queryToken
        var testDescription: String { rawValue }
    }

    /// A server that echoes the request's credential inside a record (here as a primary key of
    /// the wrong type): the warning quoting it, on standard error, in the `--json` `warnings`
    /// and in the `info` log, shows `<redacted>` (Docs/CLI.md, "Secrets": "in every message,
    /// warning and log line, even when a server echoes them").
    @Test(arguments: EchoedCredential.allCases, ["none", "info"])
    func warningsNeverEchoARequestCredential(credential: EchoedCredential, level: String) async throws {
        server.route(
            "/echo",
            .json(#"{"items": [{"id": "\#(Self.secret)", "label": "x"}, {"id": 5, "label": "y"}]}"#))
        var arguments = ["--json"]
        var url = server.url("/echo").absoluteString
        switch credential {
        case .authorizationHeader: arguments += ["--header", "Authorization: Bearer \(Self.secret)"]
        case .apiKeyHeader: arguments += ["--header", "X-Api-Key: \(Self.secret)"]
        case .urlPassword: url = "http://alice:\(Self.secret)@127.0.0.1:\(server.port)/echo"
        case .queryToken: url += "?access_token=\(Self.secret)"
        }
        for json in [true, false] {
            let result = try await populate(
                (json ? arguments : arguments.filter { $0 != "--json" }) + [url],
                environment: ["WEBRECORD_LOGGING_LEVEL": level])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("typeMismatch") || result.stdout.contains("typeMismatch"), "\(result)")
            expectNoSecret(result, Self.secret, "\(credential) json=\(json)")
        }
    }

    /// With `WEBRECORD_LOGGING_LEVEL=all`, the logged response headers do not show a `--header`
    /// token that the server echoed back in a response header of another name.
    @Test func traceLogNeverShowsAnEchoedTokenInResponseHeaders() async throws {
        server.route(
            "/items",
            .json(#"{"items": [{"id": 1}]}"#, headers: ["X-Echo-Authorization": "Bearer \(Self.secret)"]))
        let result = try await populate(
            ["--header", "Authorization: Bearer \(Self.secret)", server.url("/items").absoluteString],
            environment: ["WEBRECORD_LOGGING_LEVEL": "all"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("HTTP 200 response"), "\(result)")
        expectNoSecret(result)
    }

    /// A URL's password is sent as HTTP Basic credentials; a 401 body echoing the
    /// `Authorization` header it received (`Basic base64(user:password)`) is printed with that
    /// credential redacted, as the password itself would be (base64 gives it back).
    @Test func basicCredentialsEchoedInAnErrorBodyAreRedacted() async throws {
        let basic = Data("alice:\(Self.secret)".utf8).base64EncodedString()
        server.route("/private", .json(#"{"message": "bad credentials: Basic \#(basic)"}"#, status: 401))
        let result = try await populate([
            "--json", "http://alice:\(Self.secret)@127.0.0.1:\(server.port)/private",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(server.requests(to: "/private").first?.header("Authorization") == "Basic \(basic)")
        expectNoSecret(result)
        expectNoSecret(result, basic, "the password, base64-encoded")
    }

    /// Correct: a redirect to another host (here `localhost` on another port) gets none of the
    /// credential headers, and the run succeeds.
    @Test func crossHostRedirectDropsCredentials() async throws {
        let other = try LoopbackHTTPServer()
        other.route("/landing", .json(#"{"items": [{"id": 7}]}"#))
        server.route("/go", .redirect(to: "http://localhost:\(other.port)/landing"))
        let result = try await populate([
            "--json", "--header", "Authorization: Bearer \(Self.secret)", "--header", "X-Api-Key: \(Self.secret)",
            "--header", "Cookie: sid=\(Self.secret)", server.url("/go").absoluteString,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(server.requests(to: "/go").first?.header("Authorization") == "Bearer \(Self.secret)")
        let landing = try #require(other.requests(to: "/landing").first)
        #expect(landing.header("Authorization") == nil)
        #expect(landing.header("X-Api-Key") == nil)
        #expect(landing.header("Cookie") == nil)
        #expect(try rows("Item") == ["7|NULL"])
        expectNoSecret(result)
        other.stop()
    }

    /// Correct: a source argument that holds a password or token and is not a URL that can be
    /// requested never prints the secret, with or without `--json`.
    @Test(arguments: [
        "ftp://alice:\(secret)@127.0.0.1/x?token=\(secret)",
        "http://alice:\(secret)@127.0.0.1:notaport/x?token=\(secret)",
        "http://alice:\(secret)@[::1/x",
        "https://alice:\(secret)@exa mple.com/x?api_key=\(secret)",
        "HTTP://alice:\(secret)@127.0.0.1:1/x?TOKEN=\(secret)",
        "http://alice:\(secret)@127.0.0.1:1/x?client_secret=\(secret)&X-Amz-Signature=\(secret)",
        // Mistyped with one slash or none: taken for a file's path, whose error shows it.
        "http:/alice:\(secret)@127.0.0.1/x?token=\(secret)",
        "https:alice:\(secret)@127.0.0.1/x",
    ])
    func unusableSourceURLsNeverShowTheirSecrets(source: String) async throws {
        for level in ["none", "all"] {
            let result = try await populate(["--json", source], environment: ["WEBRECORD_LOGGING_LEVEL": level])
            #expect(result.status == 1, "\(result)")
            expectNoSecret(result, Self.secret, level)
        }
    }

    /// Correct: a PostgreSQL URL's password never shows when the database cannot be reached or
    /// the URL is malformed, for populate (text and `--json`), export and watch.
    @Test(arguments: [
        "postgresql://alice:\(secret)@127.0.0.1:1/x",
        "postgresql://alice:PG%ZZ\(secret)@127.0.0.1:1/x",
        "postgresql://alice@127.0.0.1:1/x?password=\(secret)",
        "postgresql://alice:\(secret)@127.0.0.1:1/x?sslmode=bogus",
        "postgres://alice:\(secret)@127.0.0.1:notaport/x",
        "postgresql://alice:PG \(secret)@127.0.0.1:1/x",
        "postgresql://alice:\(secret)@[::1/x",
        "postgresql://alice:PG@\(secret)@127.0.0.1:1/x",
        "postgresql:///x?user=alice&password=\(secret)&host=127.0.0.1&port=1",
    ])
    func postgreSQLPasswordsNeverShow(url: String) async throws {
        let file = try directory.write("good.json", #"{"items": [{"id": 1}]}"#)
        for arguments in [
            ["populate", "--schema", schema, "--db", url, "--entity", "Item", "--json", file],
            ["populate", "--schema", schema, "--db", url, "--entity", "Item", file],
            ["export", "--schema", schema, "--db", url, "--entity", "Item"],
            ["watch", "--schema", schema, "--db", url, "--entity", "Item"],
        ] {
            let result = try await CLI.run(
                arguments, in: directory.url, environment: ["WEBRECORD_LOGGING_LEVEL": "all"])
            #expect(result.status == 1, "\(arguments[0]): \(result)")
            expectNoSecret(result, Self.secret, arguments[0])
        }
    }

    /// A header with an empty name, as `--header "$NAME:$TOKEN"` gives when `NAME` is unset, is
    /// a usage error whose message does not print the token (Docs/CLI.md: "A usage error about
    /// a header names the header, never its value").
    @Test(arguments: [":\(secret)", ":\(secret) more"])
    func aHeaderWithNoNameNeverShowsItsValue(header: String) async throws {
        let result = try await populate(["--header", header, "http://127.0.0.1:1/items"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("invalid header"), "\(result)")
        expectNoSecret(result)
    }
}
