import Foundation
import TestSupport
import Testing
import WebRecord

/// `webrecord populate` streams a file in batches of about 2 MB. A new record that the first
/// batch cannot store (it lacks its non-optional `title`) and that the last batch names again
/// keeps what its first occurrence gave: when that occurrence gave only values, the stream
/// carries them to the later batch, from a file or from standard input alike; when it also set
/// a relationship, the command reads a file again whole, and refuses standard input, which it
/// cannot read again, writing nothing.
@Suite struct StreamedRereadCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: directory.path("items.json")))
    }

    static let schema = """
        {"version": 1, "entities": {"Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}, "title": {"type": "string", "optional": false},
                         "body": {"type": "string", "optional": true}},
          "relationships": {"parent": {"destination": "Item"}}}}}
        """

    /// Item 1 first without its title (with a parent, `related`), then 3,000 items of about 1 KB
    /// (over one batch), then item 1 again with its title only.
    static func response(related: Bool = false) -> Data {
        let padding = String(repeating: "p", count: 1_000)
        var items = [related ? #"{"id": 1, "body": "first", "parent": 2}"# : #"{"id": 1, "body": "first"}"#]
        for id in 2...3_001 { items.append(#"{"id": \#(id), "title": "t\#(id)", "body": "\#(padding)"}"#) }
        items.append(#"{"id": 1, "title": "completed"}"#)
        return Data(("{\"data\": [" + items.joined(separator: ",\n") + "]}").utf8)
    }

    func populate(_ source: String, input: Data? = nil) async throws -> CLIResult {
        try await CLI.run(
            [
                "populate", "--schema", directory.path("items.json"), "--db", directory.path("store.sqlite"),
                "--entity", "Item", "--json", source,
            ],
            in: directory.url, input: input)
    }

    func store() throws -> RecordStore {
        try RecordStore(
            path: directory.path("store.sqlite"),
            schema: try Schema(contentsOf: URL(fileURLWithPath: directory.path("items.json"))))
    }

    /// Checks that `result` stored every item, and item 1 with what both its occurrences gave.
    func expectCompleted(_ result: CLIResult) throws {
        #expect(result.status == 0, "\(result)")
        let summary = try #require(try JSONReader().read(result.stdoutData).objectValue, "\(result)")
        #expect(summary["entities"]?["Item"]?["inserted"]?.int64Value == 3_001, "\(result)")
        let store = try store()
        defer { store.close() }
        let item = try #require(try store.fetchOne("Item", primaryKey: 1))
        #expect(item["title"] as String? == "completed")
        #expect(item["body"] as String? == "first")
    }

    @Test(arguments: [false, true])
    func aFileKeepsWhatTheFirstOccurrenceGave(related: Bool) async throws {
        let file = directory.path("response.json")
        try Self.response(related: related).write(to: URL(fileURLWithPath: file))
        #expect(Self.response(related: related).count > 3_000_000)

        let result = try await populate(file)

        try expectCompleted(result)
    }

    /// What the first occurrence gave, values only, is carried to the last batch: nothing needs
    /// reading again, so standard input works as a file does.
    @Test func standardInputKeepsTheValuesTheFirstOccurrenceGave() async throws {
        let result = try await populate("-", input: Self.response())

        try expectCompleted(result)
    }

    @Test func standardInputCannotBeReadAgainAndWritesNothing() async throws {
        let result = try await populate("-", input: Self.response(related: true))

        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("occurs again later in the response"), "\(result)")
        #expect(result.stderr.contains("Item"), "\(result)")
        // The store file the failed first population created is removed again.
        #expect(!FileManager.default.fileExists(atPath: directory.path("store.sqlite")))
    }
}
