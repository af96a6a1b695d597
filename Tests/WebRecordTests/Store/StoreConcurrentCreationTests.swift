import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Six `webrecord populate` processes started at once on one store that does not exist yet, or
/// that must migrate: they wait for each other like any writers (the tables are made under the
/// write lock of each one's first transaction), all succeed, and the store ends up holding what
/// running them one after another gives.
@Suite("Store: concurrent creation and migration", .loadsTheMachine)
struct StoreConcurrentCreationTests {
    static let processes = 6
    static let rounds = 20

    /// The response process `index` populates: four posts of its own, whose users (shared by
    /// every process, with the same content everywhere) make the result independent of order.
    static func response(_ index: Int) -> JSONValue {
        let posts = (1...4).map { offset -> JSONValue in
            let id = index * 10 + offset
            return AppNetResponses.post(id: id, userID: 1 + id % 3, text: "post \(id) from process \(index)")
        }
        return ["data": .array(posts)]
    }

    /// The shipped App.net schema with one more attribute, `Post.threadKey`, so opening a store
    /// made with the shipped one migrates it.
    static func schemaWithAnAddedAttribute(in directory: TemporaryDirectory) throws -> String {
        let text = try String(contentsOf: Reliability.appNetSchemaURL, encoding: .utf8)
        let added = text.replacingOccurrences(
            of: #""thread_id": { "type": "string" }"#,
            with: #""thread_id": { "type": "string" }, "threadKey": { "type": "string", "key": "thread_id" }"#)
        #expect(added != text)
        return try directory.write("AppNetPlus.json", added)
    }

    /// Writes each process's input file.
    static func inputs(in directory: TemporaryDirectory) throws -> [String] {
        try (0..<processes).map { try directory.write("input-\($0).json", Data(response($0).serializedBytes())) }
    }

    /// Runs `webrecord populate` once per input, all started before any is waited for.
    static func populateTogether(schema: String, db: String, inputs: [String]) async throws -> [ChildProcess.Result] {
        let webrecord = try ChildProcess.webrecord()
        let running = try inputs.map {
            try ChildProcess.Running(webrecord, ["populate", "--schema", schema, "--db", db, "--entity", "Post", $0])
        }
        var results: [ChildProcess.Result] = []
        for child in running { results.append(try await child.wait(timeout: 300)) }
        return results
    }

    /// Runs `webrecord populate` once per input, one after another.
    static func populateInTurn(schema: String, db: String, inputs: [String]) async throws {
        let webrecord = try ChildProcess.webrecord()
        for input in inputs {
            let result = try await ChildProcess.run(
                webrecord, ["populate", "--schema", schema, "--db", db, "--entity", "Post", input])
            #expect(result.status == 0 && !result.killedBySignal, "\(result)")
        }
    }

    /// What an export of every App.net entity gives for the store at `path`, each entity's
    /// records in the order of their JSON text: records without a key (App.net's cover images)
    /// are exported in storage order, which is the order the processes happened to write in.
    static func content(of path: String, schema: String) throws -> [String: [String]] {
        let store = try RecordStore(path: path, schema: try Schema(contentsOf: URL(fileURLWithPath: schema)))
        #expect(try Reliability.integrity(store) == ["ok"])
        return try Reliability.export(store).mapValues { records in
            (records.arrayValue ?? []).map { $0.serialized(sortedKeys: true) }.sorted()
        }
    }

    @Test("6 processes create one new store at once, 20 rounds: all succeed, content as if run in turn")
    func sixProcessesCreateOneNewStore() async throws {
        let directory = try TemporaryDirectory()
        let schema = Reliability.appNetSchemaURL.path
        let inputs = try Self.inputs(in: directory)
        let sequential = directory.path("sequential.sqlite")
        try await Self.populateInTurn(schema: schema, db: sequential, inputs: inputs)
        let expected = try Self.content(of: sequential, schema: schema)
        #expect(expected["Post"]?.count == Self.processes * 4)

        for round in 0..<Self.rounds {
            let db = directory.path("round-\(round).sqlite")
            let results = try await Self.populateTogether(schema: schema, db: db, inputs: inputs)
            for result in results {
                #expect(result.status == 0 && !result.killedBySignal, "round \(round): \(result)")
            }
            let content = try Self.content(of: db, schema: schema)
            for (entity, records) in expected where content[entity] != records {
                Issue.record("round \(round): \(entity) differs: \(content[entity] ?? []) expected \(records)")
            }
        }
    }

    @Test(
        "6 processes migrate one store at once (an added attribute), 5 rounds: all succeed, content as if run in turn")
    func sixProcessesMigrateOneStore() async throws {
        let directory = try TemporaryDirectory()
        let original = Reliability.appNetSchemaURL.path
        let plus = try Self.schemaWithAnAddedAttribute(in: directory)
        let inputs = try Self.inputs(in: directory)
        let first = try directory.write("first.json", Data(Self.response(99).serializedBytes()))

        let sequential = directory.path("sequential.sqlite")
        try await Self.populateInTurn(schema: original, db: sequential, inputs: [first])
        try await Self.populateInTurn(schema: plus, db: sequential, inputs: inputs)
        let expected = try Self.content(of: sequential, schema: plus)
        #expect(expected["Post"]?.first?.contains(#""threadKey":"0""#) == true)

        for round in 0..<5 {
            let db = directory.path("migrate-\(round).sqlite")
            try await Self.populateInTurn(schema: original, db: db, inputs: [first])
            let results = try await Self.populateTogether(schema: plus, db: db, inputs: inputs)
            for result in results {
                #expect(result.status == 0 && !result.killedBySignal, "round \(round): \(result)")
            }
            #expect(try Self.content(of: db, schema: plus) == expected, "round \(round)")
        }
    }
}
