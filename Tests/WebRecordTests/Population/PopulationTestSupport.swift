import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// A fresh file store for the decision schema, recording its SQL.
func makeDecisionStore() throws -> RecordingStore {
    try RecordingStore(schema: Schema(json: decisionSchemaJSON, fileName: "Decisions.json"))
}

/// Parses JSON text in tests.
func json(_ text: String) throws -> JSONValue {
    try JSONReader().read(text)
}

/// Every row of every table, as text, for comparing a whole store's content.
func dumpContent(_ store: RecordStore) throws -> [String] {
    try store.read { connection in
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var lines: [String] = []
        for case .text(let table)? in tables.map(\.first) {
            for row in try connection.rows("SELECT * FROM \"\(table)\" ORDER BY 1, 2") {
                lines.append("\(table): " + row.map(\.description).joined(separator: " | "))
            }
        }
        return lines
    }
}

/// The path of a fixture file shipped with the tests.
func fixtureURL(_ path: String) throws -> URL {
    let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    return base.appendingPathComponent(path)
}

/// The package's root folder (for Schemas/ and Examples/).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `body` with a logging level installed and returns what it logged, one line per event.
///
/// It goes through `InMemoryLogHandler.capture`, which serializes every test that changes the
/// global logging settings.
func withLogging<T>(
    _ level: LogLevel?, _ body: @Sendable () throws -> sending T
) async throws -> sending (value: T, messages: [String]) {
    let (value, events) = try await InMemoryLogHandler.capture(level: level) { try body() }
    return (value, events.map(\.description))
}

/// Opens a reader of `data` in batches of `batchByteLimit` bytes for a streamed population that
/// must not read its response a second time: a second opening fails the test.
func readingOnce(_ data: Data, batchByteLimit: Int) -> (String?) throws(WebRecordError) -> JSONStreamReader {
    final class Openings {
        var count = 0
    }
    let openings = Openings()
    return { keyPath in
        openings.count += 1
        #expect(openings.count == 1, "the response was read again")
        return JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchByteLimit)
    }
}

/// The rows a population leaves, with its counts and its records' `_id`s, or its failure.
struct PopulatedStore: Equatable, CustomStringConvertible {
    var rows: [String]
    var counts: [String: ChangeCounts]
    var recordIDs: [Int64]
    var failure: String?
    /// The population's warnings (its debugger's non-fatal errors), sorted. Not part of `==`:
    /// ``expectStreamsEqual(_:after:schema:entity:whole:batchSizes:isRefusal:sourceLocation:)``
    /// compares them, naming those only one side gave.
    var warnings: [String] = []

    static func == (left: PopulatedStore, right: PopulatedStore) -> Bool {
        left.rows == right.rows && left.counts == right.counts && left.recordIDs == right.recordIDs
            && left.failure == right.failure
    }

    var description: String {
        (failure.map { "failure: \($0)\n" } ?? "") + "counts: \(counts)\n" + rows.joined(separator: "\n")
            + warnings.map { "\nwarning: \($0)" }.joined()
    }

    /// `text` populated as `entity` records into an in-memory store of `schema` that holds
    /// `earlier`: whole, or streamed in batches of `batchBytes` from a reader that cannot be
    /// opened twice (a second opening fails the test), or, with `reopens`, one that can.
    static func populating(
        _ text: String, after earlier: String, schema: Schema, entity: String, batchBytes: Int?,
        options: PopulationOptions = PopulationOptions(), reopens: Bool = false
    ) async throws -> PopulatedStore {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(earlier), entity: entity)
        let result: PopulationResult
        do {
            if let batchBytes {
                let data = Data(text.utf8)
                let population = ResponsePopulation(store: try #require(store.sqlite), options: options)
                if reopens {
                    result = try await population.populate(
                        streaming: { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: batchBytes) },
                        entity: entity)
                } else {
                    result = try await population.populate(
                        streaming: readingOnce(data, batchByteLimit: batchBytes), entity: entity, reopens: false)
                }
            } else {
                result = try await store.populate(try JSONReader().read(text), entity: entity, options: options)
            }
        } catch let error as WebRecordError {
            return PopulatedStore(rows: try dumpContent(store), counts: [:], recordIDs: [], failure: error.message)
        }
        return PopulatedStore(
            rows: try dumpContent(store), counts: result.changesByEntity, recordIDs: result.records.map(\.rowID),
            failure: nil, warnings: result.debugger.warnings.map(\.message).sorted())
    }

    /// Checks that a stream reported the whole response's warnings, naming those only one of
    /// them gave.
    static func expectWarningsEqual(
        _ streamed: PopulatedStore, _ whole: PopulatedStore, batchBytes: Int, sourceLocation: SourceLocation
    ) {
        guard streamed.warnings != whole.warnings else { return }
        var onlyStreamed = streamed.warnings
        var onlyWhole: [String] = []
        for warning in whole.warnings {
            if let position = onlyStreamed.firstIndex(of: warning) {
                onlyStreamed.remove(at: position)
            } else {
                onlyWhole.append(warning)
            }
        }
        Issue.record(
            "batches of \(batchBytes) bytes: the warnings differ; only streamed: \(onlyStreamed); only whole: \(onlyWhole)",
            sourceLocation: sourceLocation)
    }

    /// Streams `text` at each of `batchSizes`, from a reader that cannot be opened twice, and
    /// checks each against `whole`: equal, or, where `isRefusal` accepts the failure, refused
    /// with nothing written (the rows of `earlier` alone) and equal once read again.
    static func expectStreamsEqual(
        _ text: String, after earlier: String, schema: Schema, entity: String, whole: PopulatedStore,
        batchSizes: [Int] = [1, 40, 1 << 20], isRefusal: (String) -> Bool = { _ in false },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for batchBytes in batchSizes {
            let streamed = try await populating(
                text, after: earlier, schema: schema, entity: entity, batchBytes: batchBytes)
            guard let failure = streamed.failure, isRefusal(failure) else {
                #expect(
                    streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)",
                    sourceLocation: sourceLocation)
                expectWarningsEqual(streamed, whole, batchBytes: batchBytes, sourceLocation: sourceLocation)
                continue
            }
            let before = try await populating("[]", after: earlier, schema: schema, entity: entity, batchBytes: nil)
            #expect(
                streamed.rows == before.rows, "batches of \(batchBytes) bytes: a refused stream wrote",
                sourceLocation: sourceLocation)
            let again = try await populating(
                text, after: earlier, schema: schema, entity: entity, batchBytes: batchBytes, reopens: true)
            #expect(
                again == whole, "batches of \(batchBytes) bytes, read again:\n\(again)\nwhole:\n\(whole)",
                sourceLocation: sourceLocation)
            expectWarningsEqual(again, whole, batchBytes: batchBytes, sourceLocation: sourceLocation)
        }
    }
}
