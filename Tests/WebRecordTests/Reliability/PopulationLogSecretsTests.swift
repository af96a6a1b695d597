import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A server may echo a request's credential into the records it returns (a search for the
/// token, an error text, a profile that shows it). The population's own log lines quote
/// records' values: a record's changes, a duplicate's two values, the proto-record graph, a
/// deleted record's key. Each takes the request's secrets out, as the warnings and errors do
/// (Docs/CLI.md, "Secrets": "in every message, log line and error").
@Suite struct PopulationLogSecretsTests {
    static let secret = "ECHOEDSECRET42"

    static let body = #"""
        {"data": [
          {"id": "1", "text": "hello \#(secret)"},
          {"id": "2", "text": "first"},
          {"id": "2", "text": "second \#(secret)"},
          {"id": "k-\#(secret)", "text": "new"}
        ]}
        """#
    static let stored =
        #"{"data": [{"id": "1", "text": "old"}, {"id": "2", "text": "old"}, {"id": "3", "text": "gone"}]}"#

    /// What was logged, every level on, while `populate` populated ``body``, which quotes the
    /// secret in a changed value, in a duplicate's later value and in a key, into a store that
    /// holds the records it changes and one it deletes as an orphan.
    static func logged(_ populate: @escaping @Sendable (RecordStore) async throws -> Void) async throws -> [String] {
        let directory = try TemporaryDirectory()
        let (_, events) = try await InMemoryLogHandler.capture(level: .all) {
            let store = try RecordStore(path: directory.path("s.sqlite"), schema: Reliability.appNetSchema())
            _ = try await store.populate(try JSONReader().read(stored), entity: "Post")
            try await populate(store)
            return ()
        }
        return events.map { "\($0.description) \($0.metadata)" }
    }

    static func expectHidden(_ lines: [String]) {
        // The lines that quote the records are there...
        #expect(lines.contains { $0.contains("updated Post") }, "\(lines)")
        #expect(lines.contains { $0.contains("duplicate record in response") }, "\(lines)")
        #expect(lines.contains { $0.contains("proto-record graph") }, "\(lines)")
        #expect(lines.contains { $0.contains("deleted Post") }, "\(lines)")
        // ...with the secret taken out.
        let leaking = lines.filter { $0.contains(secret) }
        #expect(leaking.isEmpty, "\(leaking)")
        #expect(lines.contains { $0.contains("updated Post") && $0.contains("<redacted>") }, "\(lines)")
    }

    @Test("A request's population logs no secret that its response echoes")
    func requestPopulationHidesEchoedSecrets() async throws {
        let loopback = try LoopbackHTTPServer()
        defer { loopback.stop() }
        loopback.route("/e2.json", .json(Self.body))
        let lines = try await Self.logged { store in
            var population = PopulationOptions()
            population.deleteOrphans = .all
            _ = try await store.startRequest(
                entity: "Post", urn: "e2.json?access_token=\(Self.secret)",
                options: RequestOptions(population: population, server: HTTPServer(baseURL: loopback.baseURL)))
        }
        Self.expectHidden(lines)
    }

    @Test("A streamed population logs no secret its debugger hides, from the reading thread either")
    func streamedPopulationHidesSecrets() async throws {
        let lines = try await Self.logged { store in
            let sqlite = try #require(store.sqlite)
            let debugger = Debugger(initialEntity: "Post", logger: sqlite.logger)
            debugger.hideSecrets([Self.secret])
            var options = PopulationOptions()
            options.deleteOrphans = .all
            let data = Data(Self.body.utf8)
            _ = try await ResponsePopulation(store: sqlite, options: options).populate(
                streaming: { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: 40) }, entity: "Post",
                debugger: debugger)
        }
        Self.expectHidden(lines)
    }
}
