import Foundation
import TestSupport
import Testing
import WebRecord

/// `webrecord populate` streams a file in batches of about 2 MB. A new record that the first
/// batch cannot store (it lacks its non-optional `title`) and that the last batch names again
/// keeps what its first occurrence gave: when that occurrence gave values, and a to-one kept in
/// its row to a stored record, and when a record of its batch links to it through a to-one kept
/// in that record's row, the stream carries them to the later batch, from a file or from
/// standard input alike, and so when that record occurs again in the last batch without that
/// to-one; when the first occurrence links to itself, which cannot be carried, the command
/// reads the response again whole: a file from its start, and standard input or a named pipe
/// from the copy it kept as it read them, which it then removes. Without that copy (no
/// temporary directory to keep it in), such a response fails and writes nothing.
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

    /// What item 1's first occurrence links: nothing, a parent, or (`linkedTo`) nothing, with
    /// item 2 of the same batch naming item 1 as its parent; `linkedToAndNamedAgain` also
    /// names item 2 again, without a parent, next to item 1's last occurrence; `itself`, item 1
    /// naming itself as its parent.
    enum Links: CaseIterable, Sendable {
        case none, parent, linkedTo, linkedToAndNamedAgain, itself

        /// Whether item 2 names item 1 as its parent.
        var linksToFirst: Bool { self == .linkedTo || self == .linkedToAndNamedAgain }
    }

    /// Item 1 first without its title, then 3,000 items of about 1 KB (over one batch), then
    /// item 1 again with its title only.
    static func response(_ links: Links = .none) -> Data {
        let padding = String(repeating: "p", count: 1_000)
        let first: String =
            switch links {
            case .parent: #"{"id": 1, "body": "first", "parent": 2}"#
            case .itself: #"{"id": 1, "body": "first", "parent": 1}"#
            default: #"{"id": 1, "body": "first"}"#
            }
        var items = [first]
        for id in 2...3_001 {
            let parent = links.linksToFirst && id == 2 ? #", "parent": 1"# : ""
            items.append(#"{"id": \#(id), "title": "t\#(id)", "body": "\#(padding)"\#(parent)}"#)
        }
        if links == .linkedToAndNamedAgain { items.append(#"{"id": 2, "title": "t2"}"#) }
        items.append(#"{"id": 1, "title": "completed"}"#)
        return Data(("{\"data\": [" + items.joined(separator: ",\n") + "]}").utf8)
    }

    /// Runs `webrecord populate` on `source`, with `TMPDIR` set to `temporary` (a directory
    /// made for the run when nil, which must be left empty).
    func populate(_ source: String, input: Data? = nil, temporary: String? = nil) async throws -> CLIResult {
        let spool = temporary ?? directory.path("spool")
        if temporary == nil {
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        }
        let result = try await CLI.run(
            [
                "populate", "--schema", directory.path("items.json"), "--db", directory.path("store.sqlite"),
                "--entity", "Item", "--json", source,
            ],
            in: directory.url, input: input, environment: ["TMPDIR": spool])
        if temporary == nil {
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool) == [], "the copy is left behind")
        }
        return result
    }

    func store() throws -> RecordStore {
        try RecordStore(
            path: directory.path("store.sqlite"),
            schema: try Schema(contentsOf: URL(fileURLWithPath: directory.path("items.json"))))
    }

    /// Checks that `result` stored every item, and item 1 with what both its occurrences gave,
    /// and the links `links` gives.
    func expectCompleted(_ result: CLIResult, links: Links) throws {
        #expect(result.status == 0, "\(result)")
        let summary = try #require(try JSONReader().read(result.stdoutData).objectValue, "\(result)")
        #expect(summary["entities"]?["Item"]?["inserted"]?.int64Value == 3_001, "\(result)")
        let store = try store()
        defer { store.close() }
        let item = try #require(try store.fetchOne("Item", primaryKey: 1))
        #expect(item["title"] as String? == "completed")
        #expect(item["body"] as String? == "first")
        let parent: Record? = item.related("parent")
        let parentID: Int64? =
            switch links {
            case .parent: 2
            case .itself: 1
            default: nil
            }
        #expect(parent?["id"] as Int64? == parentID, "\(String(describing: parent))")
        let second = try #require(try store.fetchOne("Item", primaryKey: 2))
        let secondParent: Record? = second.related("parent")
        #expect(secondParent?["id"] as Int64? == (links.linksToFirst ? 1 : nil))
    }

    @Test(arguments: Links.allCases)
    func aFileKeepsWhatTheFirstOccurrenceGave(links: Links) async throws {
        let file = directory.path("response.json")
        try Self.response(links).write(to: URL(fileURLWithPath: file))
        #expect(Self.response(links).count > 3_000_000)

        let result = try await populate(file)

        try expectCompleted(result, links: links)
    }

    /// What the first occurrence gave, values and a to-one to a stored record, and the to-one
    /// item 2 gave it, are carried to the last batch, item 2 named again there without it
    /// included: nothing needs reading again, so standard input works as a file does.
    /// (`linkedToAndNamedAgain` was read again whole before such a holder kept the record
    /// carried.)
    @Test(arguments: [Links.none, .parent, .linkedTo, .linkedToAndNamedAgain])
    func standardInputKeepsWhatTheFirstOccurrenceGave(links: Links) async throws {
        let result = try await populate("-", input: Self.response(links))

        try expectCompleted(result, links: links)
    }

    /// Item 1 linking to itself where it is dropped needs the response read again whole:
    /// standard input is read again from its copy, and ends as the file does.
    @Test func standardInputIsReadAgainFromItsCopy() async throws {
        let result = try await populate("-", input: Self.response(.itself))

        try expectCompleted(result, links: .itself)
    }

    /// A named pipe, which gives its bytes once, is kept as it is read too.
    @Test(arguments: [Links.parent, .linkedToAndNamedAgain, .itself])
    func aNamedPipeIsReadAgainFromItsCopy(links: Links) async throws {
        let file = directory.path("response.json")
        try Self.response(links).write(to: URL(fileURLWithPath: file))
        let pipe = directory.path("response.pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        let writer = try ChildProcess.Running(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "cat \"$0\" > \"$1\"", file, pipe])

        let result = try await populate(pipe)

        try expectCompleted(result, links: links)
        let written = try await writer.wait(timeout: MachineLoad.hangTimeout)
        #expect(written.status == 0, "\(written)")
    }

    /// Without a temporary directory for the copy, a response that needs no second reading
    /// is populated from standard input as it is read, and one that does fails, says why and
    /// writes nothing.
    @Test(arguments: [Links.linkedTo, .linkedToAndNamedAgain, .itself])
    func standardInputWithoutACopy(links: Links) async throws {
        let result = try await populate(
            "-", input: Self.response(links), temporary: directory.path("no such directory"))

        if links == .itself {
            #expect(result.status != 0, "\(result)")
            #expect(result.stderr.contains("could not be kept"), "\(result)")
            #expect(result.stderr.contains("save it to a file"), "\(result)")
            // The store file the failed first population created is removed again.
            #expect(!FileManager.default.fileExists(atPath: directory.path("store.sqlite")))
        } else {
            try expectCompleted(result, links: links)
        }
    }
}
