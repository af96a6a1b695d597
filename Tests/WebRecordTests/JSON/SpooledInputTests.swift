import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// A response that gives its bytes once (a named pipe) is kept as it is read: a second reader
/// reads it from its first byte, from the copy and then from the rest of the pipe, and the
/// earlier reader reads no more; a population from such a file that must read it again whole
/// ends as the same regular file does.
@Suite struct SpooledInputTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A named pipe in the test's directory that `text` is written to by a child process,
    /// which is returned.
    func pipe(giving text: String) throws -> (path: String, writer: ChildProcess.Running) {
        let file = directory.path("response-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let path = directory.path("response-\(UUID().uuidString).pipe")
        #expect(mkfifo(path, 0o600) == 0)
        let writer = try ChildProcess.Running(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "cat \"$0\" > \"$1\"", file, path])
        return (path, writer)
    }

    /// The ids of every element a reader streams.
    static func ids(_ reader: JSONStreamReader) throws -> [Int64] {
        var ids: [Int64] = []
        guard case .streaming = try reader.start() else { return ids }
        while let batch = try reader.nextBatch() { ids += batch.compactMap { $0["id"]?.int64Value } }
        _ = try reader.finish()
        return ids
    }

    /// 3 MB of elements: more than a reader's buffer holds, so that the first reader must read
    /// the pipe again after the second has opened it.
    static let elements = (1...30_000).map { #"{"id": \#($0), "padding": "\#(String(repeating: "p", count: 80))"}"# }

    @Test func aSecondReaderReadsFromTheFirstByteAndTheFirstReadsNoMore() async throws {
        let (path, writer) = try pipe(giving: "[" + Self.elements.joined(separator: ",\n") + "]")
        let input = SpooledInput.file(atPath: path)
        let first = try input.reader(keyPath: nil, batchByteLimit: 1_000)
        guard case .streaming = try first.start() else {
            Issue.record("the pipe's array is not streamed")
            return
        }
        let firstBatch = try #require(try first.nextBatch())
        #expect(firstBatch.first?["id"]?.int64Value == 1)

        let second = try input.reader(keyPath: nil)
        #expect(try Self.ids(second) == Array(1...30_000))
        // What the first reader holds in its buffer it may still give; it reads nothing more.
        #expect(throws: WebRecordError.self) {
            while try first.nextBatch() != nil {}
        }
        #expect(try await writer.wait().status == 0)
    }

    @Test func aThirdReaderReadsTheCopyAlone() async throws {
        let (path, writer) = try pipe(giving: #"{"data": [{"id": 1}, {"id": 2}]}"#)
        let input = SpooledInput.file(atPath: path)
        #expect(try Self.ids(try input.reader(keyPath: "data")) == [1, 2])
        #expect(try Self.ids(try input.reader(keyPath: "data")) == [1, 2])
        #expect(try Self.ids(try input.reader(keyPath: "data")) == [1, 2])
        #expect(try await writer.wait().status == 0)
    }

    static let schema = """
        {"version": 1, "entities": {"Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}, "title": {"type": "string", "optional": false},
                         "body": {"type": "string", "optional": true}},
          "relationships": {"parent": {"destination": "Item"}}}}}
        """

    /// Item 1 without its non-optional title, 3,000 items of about 1 KB (over one 2 MB batch),
    /// item 2 (which named item 1 as its parent) again, and item 1 again with its title: the
    /// stream must read the response again whole.
    static let rereadResponse: String = {
        let padding = String(repeating: "p", count: 1_000)
        var items = [#"{"id": 1, "body": "first"}"#]
        for id in 2...3_001 {
            items.append(
                #"{"id": \#(id), "title": "t\#(id)", "body": "\#(padding)"\#(id == 2 ? #", "parent": 1"# : "")}"#)
        }
        items += [#"{"id": 2, "title": "t2"}"#, #"{"id": 1, "title": "completed"}"#]
        return "{\"data\": [" + items.joined(separator: ",\n") + "]}"
    }()

    /// The rows a population of `path` leaves, and its counts.
    func populate(contentsOf path: String) async throws -> (rows: [String], inserted: Int) {
        let store = try RecordStore(
            path: directory.path("store-\(UUID().uuidString).sqlite"), schema: try Schema(json: Self.schema))
        defer { store.close() }
        var options = PopulationOptions()
        options.returnsRecords = false
        let result = try await store.populate(
            contentsOf: URL(fileURLWithPath: path), entity: "Item", options: options)
        return (try StreamedDifferentialTests.rows(store), result.changes.inserted)
    }

    @Test func aPipeThatMustBeReadAgainEndsAsTheFile() async throws {
        let file = directory.path("response.json")
        try Data(Self.rereadResponse.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try await populate(contentsOf: file)
        #expect(fromFile.inserted == 3_001)
        // Item 1 keeps what its first occurrence gave, as the response read whole gives it.
        #expect(
            fromFile.rows.contains { $0.contains("'completed'") && $0.contains("'first'") },
            "\(fromFile.rows.prefix(3))")

        let (path, writer) = try pipe(giving: Self.rereadResponse)
        let fromPipe = try await populate(contentsOf: path)

        #expect(fromPipe.inserted == 3_001)
        #expect(fromPipe.rows == fromFile.rows)
        #expect(try await writer.wait().status == 0)
    }
}
