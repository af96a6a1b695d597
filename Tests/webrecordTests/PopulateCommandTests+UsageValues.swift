import Foundation
import TestSupport
import Testing
import WebRecord

/// Values of the right shape that would make `webrecord` report work it did not do, or trap:
/// each is a usage error (exit 2) that names the flag and why, and nothing is written.
extension PopulateCommandTests {
    /// The directory's entries, to check that a refused run created nothing.
    func entries() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
    }

    func populate(db: String, _ extra: [String] = [], sources: [String]? = nil) async throws -> CLIResult {
        try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", "--json"] + extra + (sources ?? [posts]),
            in: directory.url)
    }

    /// The first line of a usage error, with the usage line after it.
    func expectUsageError(_ result: CLIResult, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout == "", "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.first == "webrecord: error: \(message)", "\(result)", sourceLocation: sourceLocation)
        #expect(
            result.stderrLines.dropFirst().first?.hasPrefix("Usage: webrecord ") == true, "\(result)",
            sourceLocation: sourceLocation)
    }

    // MARK: - --db

    static let storesThatKeepNothing: [(value: String, reason: String)] = [
        ("", "the path is empty; SQLite would use a temporary database and keep nothing. Give the store file's path"),
        (":memory:", "an in-memory database keeps nothing. Give the store file's path"),
        (
            "file::memory:",
            "SQLite would read it as a URI, which can name a database that keeps nothing (file::memory:, mode=memory). Give the store file's path; write './file::memory:' for a file whose name starts with 'file:'"
        ),
        (
            "file:store.sqlite?mode=memory",
            "SQLite would read it as a URI, which can name a database that keeps nothing (file::memory:, mode=memory). Give the store file's path; write './file:store.sqlite?mode=memory' for a file whose name starts with 'file:'"
        ),
        (
            "file:",
            "SQLite would read it as a URI, which can name a database that keeps nothing (file::memory:, mode=memory). Give the store file's path; write './file:' for a file whose name starts with 'file:'"
        ),
    ]

    @Test(arguments: storesThatKeepNothing)
    func populateRefusesAStoreThatKeepsNothing(value: String, reason: String) async throws {
        let before = try entries()
        let result = try await populate(db: value)
        expectUsageError(result, "invalid --db '\(value)': \(reason)")
        #expect(try entries() == before, "a refused run created a file")
    }

    @Test(arguments: storesThatKeepNothing)
    func exportRefusesAStoreThatKeepsNothing(value: String, reason: String) async throws {
        let result = try await CLI.run(
            ["export", "--schema", schema, "--db", value, "--entity", "Post"], in: directory.url)
        expectUsageError(result, "invalid --db '\(value)': \(reason)")
    }

    @Test(arguments: [
        "dbname=appnet user=postgres", "host=/run/postgresql dbname=ingest", " user = me password=hunter2-s3cret",
        "service=mirror",
    ])
    func aLibpqConnectionStringIsRefusedNotTakenForAFile(value: String) async throws {
        let before = try entries()
        for command in ["populate", "export"] {
            let result = try await CLI.run(
                [command, "--schema", schema, "--db", value, "--entity", "Post"]
                    + (command == "populate" ? [posts] : []),
                in: directory.url)
            expectUsageError(
                result,
                "invalid --db: it is a libpq connection string (keyword=value ...), which would be taken for a SQLite file's name. Give a postgresql:// URL (postgresql:///DB?host=DIR&user=NAME; libpq's PG* environment variables fill in the rest), or write './' before a file's name"
            )
            #expect(!result.stderr.contains("hunter2"), "\(result)")
        }
        #expect(try entries() == before, "a refused run created a file")
        // A file whose name only looks like one is reached through its path.
        let file = try await populate(db: "./dbname=appnet user=postgres")
        #expect(file.status == 0, "\(file)")
        // A name with '=' that is no libpq keyword is a file.
        let other = try await populate(db: "store=1.sqlite")
        #expect(other.status == 0, "\(other)")
    }

    @Test func aDirectoryIsNoStore() async throws {
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("stores"), withIntermediateDirectories: false)
        let before = try entries()
        for command in ["populate", "export"] {
            let result = try await CLI.run(
                [command, "--schema", schema, "--db", "stores", "--entity", "Post"]
                    + (command == "populate" ? [posts] : []),
                in: directory.url)
            expectUsageError(result, "invalid --db 'stores': it is a directory. Give the store file's path")
        }
        #expect(try entries() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("stores")).isEmpty)
    }

    @Test func aFileWhoseNameStartsWithFileIsReachedThroughItsPath() async throws {
        let result = try await populate(db: "./file:store.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(FileManager.default.fileExists(atPath: directory.path("file:store.sqlite")))
    }

    // MARK: - Numbers

    @Test(arguments: ["2e10", "86401", "1e300", "9223372036854775808"])
    func aTimeoutTooLongIsAUsageError(value: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--timeout", value])
        expectUsageError(result, "invalid timeout '\(value)'; expected at most 86400 seconds (one day)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }

    @Test(arguments: ["nan", "-inf", "1e309", "-0", "0x", ""])
    func aTimeoutThatIsNoPositiveNumberIsAUsageError(value: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--timeout=\(value)"])
        expectUsageError(result, "invalid timeout '\(value)'; expected a positive number of seconds")
    }

    @Test func theLongestTimeoutIsAccepted() async throws {
        let result = try await populate(db: "s.sqlite", ["--timeout", "86400"])
        #expect(result.status == 0, "\(result)")
    }

    @Test(arguments: ["0", "-1", "1.5", "99999999999999999999", "1e3", "", "ten"])
    func maxPagesMustBeAPositiveInteger(value: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--max-pages=\(value)"])
        expectUsageError(result, "invalid --max-pages '\(value)'; expected a positive integer")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }

    @Test(arguments: [
        "offset:o:l:99999999999999999999", "offset:o:l:0", "offset:o:l:-5", "offset:o:l:-1", "offset:o:l:1e3",
        "offset:o:l:1.5",
    ])
    func anOffsetLimitMustBeAPositiveInteger(value: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--paginate", value])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: invalid --paginate '\(value)'; expected ") == true,
            "\(result)")
    }

    @Test(arguments: [
        "", "next-url", "next-url:", "cursor:a", "page", "offset:o:l:0", "offset:o:l:x", "pages:p", "link-header:x",
        "has-more:a:b", "has-more::id:after", "page:p:", "offset:o:l:5:",
    ])
    func aPaginateValueThatNamesNoKindIsAUsageError(value: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--paginate=\(value)"])
        expectUsageError(
            result,
            "invalid --paginate '\(value)'; expected next-url:KEYPATH[:TOTALKEYPATH], link-header, cursor:KEYPATH:PARAM[:TOTALKEYPATH], has-more:FLAGKEYPATH:KEYPATH:PARAM[:TOTALKEYPATH], page:PARAM[:TOTALKEYPATH] or offset:PARAM:LIMITPARAM:LIMIT[:TOTALKEYPATH]"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }

    // MARK: - --paginate

    /// A file, or standard input, is one response: the next page its body names cannot be
    /// fetched, so with `--delete-orphans` the first page would be taken for the whole list and
    /// every record on the other pages deleted. `--paginate` with such a source is refused.
    @Test(arguments: [
        (["page1.json"], "'page1.json' is a file"),
        (["-"], "'-' is standard input"),
        (["http://127.0.0.1:9/posts", "page1.json"], "'page1.json' is a file"),
    ])
    func paginateWithASourceThatIsNoURLIsAUsageError(sources: [String], what: String) async throws {
        let first = try await populate(db: "s.sqlite")
        #expect(first.status == 0, "\(first)")
        let all = try AppNetFixture().posts
        let page = try JSONSerialization.data(withJSONObject: [
            "data": Array(all.prefix(2)), "meta": ["next": "page2.json"],
        ])
        try page.write(to: directory.url.appendingPathComponent("page1.json"))

        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", "s.sqlite", "--entity", "Post", "--json"]
                + ["--paginate", "next-url:meta.next", "--delete-orphans"] + sources,
            in: directory.url, input: page)
        expectUsageError(
            result,
            "--paginate follows the pages of http(s) URL sources, and \(what), read as one response; give the "
                + "first page's URL, or populate each page's file as a source of its own without --paginate")
        let store = try RecordStore(
            path: directory.path("s.sqlite"), schema: Schema(contentsOf: URL(fileURLWithPath: schema)))
        defer { store.close() }
        #expect(try store.fetch("Post").count == all.count, "a refused run deleted posts")
    }

    // MARK: - Headers

    @Test(arguments: [
        ("Authorization: token SECRET\r", "the value of header 'Authorization' contains a carriage return (\\r)"),
        ("Authorization: token SECRET\r\n", "the value of header 'Authorization' contains a carriage return (\\r)"),
        ("X-Api-Key: SECRET\nX-Other: 1", "the value of header 'X-Api-Key' contains a line feed (\\n)"),
        // (A NUL cannot reach the tool: an argument ends at one. HTTPServerLimitsTests covers it.)
        ("X-Api-Key: SEC\u{7F}RET", "the value of header 'X-Api-Key' contains the control character U+007F"),
        ("X-Api-Key: SEC\u{1B}RET", "the value of header 'X-Api-Key' contains the control character U+001B"),
        ("Bad@Name: SECRET", "header name 'Bad@Name' contains '@'; a name is letters, digits and !#$%&'*+-.^_`|~"),
        ("Bad\tName: SECRET", "header name 'Bad\tName' contains a tab; a name is letters, digits and !#$%&'*+-.^_`|~"),
        ("Naïve: SECRET", "header name 'Naïve' contains 'ï'; a name is letters, digits and !#$%&'*+-.^_`|~"),
        (
            "X-Key\r: SECRET",
            "header name 'X-Key\r' contains a carriage return (\\r); a name is letters, digits and !#$%&'*+-.^_`|~"
        ),
    ])
    func aHeaderThatWouldBeDroppedIsAUsageError(header: String, problem: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--header", header], sources: ["http://127.0.0.1:9/posts"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("webrecord: error: invalid --header: \(problem)\n"), "\(result)")
        #expect(!result.stderr.contains("SECRET"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("s.sqlite")))
    }

    @Test(arguments: [
        ("Authorization token SECRET", "invalid header 'Authorization ...'; expected 'Name: value'"),
        (": SECRET", "invalid header ': ...'; expected 'Name: value'"),
        ("Bad Name: SECRET", "invalid header 'Bad ...'; expected 'Name: value'"),
    ])
    func aHeaderThatIsNotNameColonValueIsNamedWithoutItsValue(header: String, message: String) async throws {
        let result = try await populate(db: "s.sqlite", ["--header", header])
        expectUsageError(result, message)
        #expect(!result.stderr.contains("SECRET"), "\(result)")
    }

    // MARK: - Logging level

    @Test func anUnknownLoggingLevelIsAUsageError() async throws {
        let result = try await CLI.run(["lint", schema], environment: ["WEBRECORD_LOGGING_LEVEL": "verbose"])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.stderrLines.first
                == "webrecord: error: invalid WEBRECORD_LOGGING_LEVEL 'verbose'; expected one of none, info, debug, all"
        )
    }

    @Test func helpWinsOverAnUnknownLoggingLevel() async throws {
        let result = try await CLI.run(["lint", "--help"], environment: ["WEBRECORD_LOGGING_LEVEL": "verbose"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("OVERVIEW: "), "\(result)")
    }

    @Test func theLoggingLevelComesFromTheEnvironment() async throws {
        let response = try directory.write("bad.json", #"{"data": [{"id": "1", "created_at": "not a date"}]}"#)
        let quiet = try await populate(db: "s.sqlite", sources: [response])
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.stderr.isEmpty, "\(quiet)")
        let logged = try await CLI.run(
            ["populate", "--schema", schema, "--db", "s.sqlite", "--entity", "Post", "--json", response],
            in: directory.url,
            environment: ["WEBRECORD_LOGGING_LEVEL": "info"])
        #expect(logged.status == 0, "\(logged)")
        #expect(logged.stderr.contains("[webrecord] warning: typeMismatch"), "\(logged)")
    }

    /// The four values keep what each shows, whatever their case: `info` warnings and errors,
    /// `debug` also each record, `all` also the proto-record graph.
    @Test(arguments: [
        ("none", [], ["[webrecord]"]),
        (
            "info", ["[webrecord] warning: typeMismatch"],
            ["[webrecord] info:", "[webrecord] notice:", "[webrecord] debug:", "[webrecord] trace:"]
        ),
        ("Info", ["[webrecord] warning: typeMismatch"], ["[webrecord] debug:"]),
        ("debug", ["[webrecord] warning: typeMismatch", "[webrecord] debug: created Post"], ["[webrecord] trace:"]),
        (
            "ALL",
            [
                "[webrecord] warning: typeMismatch", "[webrecord] debug: created Post",
                "[webrecord] trace: proto-record graph",
            ], []
        ),
    ])
    func eachLoggingLevelShowsWhatItDid(value: String, shown: [String], hidden: [String]) async throws {
        let response = try directory.write("bad.json", #"{"data": [{"id": "1", "created_at": "not a date"}]}"#)
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", "\(value).sqlite", "--entity", "Post", "--json", response],
            in: directory.url, environment: ["WEBRECORD_LOGGING_LEVEL": value])
        #expect(result.status == 0, "\(result)")
        for text in shown { #expect(result.stderr.contains(text), "\(text): \(result)") }
        for text in hidden { #expect(!result.stderr.contains(text), "\(text): \(result)") }
    }
}
