import Foundation
import Testing
import WebRecord
import WebRecordTesting

/// What one store's configuration sets for itself: transformers and logging.
@Suite struct StoreConfigurationTests {
    /// A schema whose one attribute goes through the transformer `name` (each test its own:
    /// tests run in parallel, and process-wide transformers are shared).
    static func schema(transformer name: String) throws -> Schema {
        try Schema(
            json: #"""
                {"entities": {"Price": {"primaryKey": "id", "attributes": {
                  "id": {"type": "integer"}, "dollars": {"type": "double", "key": "cents", "transformer": "\#(name)"}}}}}
                """#)
    }

    @Test("A transformer in a store's configuration serves that store only")
    func aStoreTransformerServesThatStoreOnly() throws {
        let schema = try Self.schema(transformer: "storeCentsToDollars")
        var configuration = RecordStore.Configuration()
        configuration.transformers["storeCentsToDollars"] = { value in value.doubleValue.map { .double($0 / 100) } }
        let configured = try RecordStore(inMemory: schema, configuration: configuration)
        let plain = try RecordStore(inMemory: schema)

        let result = try configured.populate([["id": 1, "cents": 250]], entity: "Price")
        #expect(result.records.first?["dollars"] as Double? == 2.5)
        let failure = #expect(throws: WebRecordError.self) {
            try plain.populate([["id": 1, "cents": 250]], entity: "Price")
        }
        #expect(failure?.code == .invalidEntityDescription)
        #expect(failure?.message.contains("storeCentsToDollars") == true)
        #expect(try plain.count("Price") == 0)
    }

    @Test("A store's transformer takes precedence over the process-wide one of the same name")
    func aStoreTransformerWinsOverTheGlobalOne() throws {
        AttributeTransformers.register("sharedCentsToDollars") { _ in .double(-1) }
        defer { AttributeTransformers.unregister("sharedCentsToDollars") }
        var configuration = RecordStore.Configuration()
        configuration.transformers["sharedCentsToDollars"] = { value in value.doubleValue.map { .double($0 / 100) } }
        let schema = try Self.schema(transformer: "sharedCentsToDollars")
        let configured = try RecordStore(inMemory: schema, configuration: configuration)
        let plain = try RecordStore(inMemory: schema)

        #expect(
            try configured.populate([["id": 1, "cents": 250]], entity: "Price").records.first?["dollars"] as Double?
                == 2.5)
        #expect(
            try plain.populate([["id": 1, "cents": 250]], entity: "Price").records.first?["dollars"] as Double? == -1)
    }

    @Test("A store with its own logging settings logs there, at its level, whatever the process-wide level")
    func aStoreLogsThroughItsOwnSettings() throws {
        let schema = try Schema(
            json:
                #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "n": {"type": "integer"}}}}}"#
        )
        let handler = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: handler, level: .debug)
        let store = try RecordStore(inMemory: schema, configuration: configuration)

        // A warning (a value that does not coerce) and a debug line per record created.
        _ = try store.populate([["name": "a", "n": "not a number"]], entity: "Tag")

        let events = handler.events
        #expect(events.contains { $0.level == .warning && $0.message.contains("n") })
        #expect(events.contains { $0.level == .debug && $0.message.contains("created") })
        #expect(!events.contains { $0.level == .trace }, "the store's level, debug, holds back trace events")

        var quiet = RecordStore.Configuration()
        let silent = InMemoryLogHandler()
        quiet.logging = LogSettings(handler: silent, level: .none)
        let quietStore = try RecordStore(inMemory: schema, configuration: quiet)
        _ = try quietStore.populate([["name": "a", "n": "not a number"]], entity: "Tag")
        #expect(silent.events.isEmpty)
    }
}
