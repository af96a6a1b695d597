import Testing
import WebRecordTesting

@testable import WebRecord

/// The attribute values a batch's reading thread prepares for the writer
/// (`ProtoRecordArena.prepareAttributes(coercion:)`, `Marshaler.prepare(_:in:coercion:)`): what
/// each attribute takes, and that a record whose dictionary or entity changes after its values
/// were prepared has them worked out again instead of set stale.
@Suite struct PreparedValuesTests {
    static let schema = """
        {"entities": {
          "Item": {"primaryKey": "id", "attributes": {
            "id": {"type": "integer"}, "name": {"type": "string"}, "rank": {"type": "integer", "optional": false},
            "at": {"type": "date"}, "cents": {"type": "double", "transformer": "halved"},
            "note": {"type": "string", "key": "meta.note"}}},
          "Special": {"parent": "Item", "attributes": {"level": {"type": "integer"}}}
        }}
        """

    /// A record of `entity` made in a new arena from `dictionary`, its values prepared.
    static func prepared(
        _ dictionary: JSONObject, entity: String = "Item"
    ) throws -> (record: ProtoRecord, arena: ProtoRecordArena, representations: RepresentationSet) {
        let store = try RecordStore(inMemory: try Schema(json: schema))
        let storage = try #require(store.sqlite)
        let coercion = ValueCoercion(dateFormats: storage.schema.dateFormats)
        let representations = RepresentationSet(
            store: storage, plans: TablePlans(layout: storage.layout), coercion: coercion)
        let arena = ProtoRecordArena()
        let record = arena.make(
            representation: try #require(representations[entity]), dictionary: dictionary, parent: nil,
            isReference: false)
        arena.prepareAttributes(coercion: coercion)
        return (record, arena, representations)
    }

    /// What each attribute of `record` was prepared as, by attribute name.
    static func values(of record: ProtoRecord) throws -> [String: String] {
        let prepared = try #require(record.preparedValues)
        var described: [String: String] = [:]
        for (mapped, value) in zip(record.representation.attributes, prepared) {
            switch value {
            case .value(let stored): described[mapped.name] = "\(stored)"
            case .absent: described[mapped.name] = "absent"
            case .reported: described[mapped.name] = "reported"
            }
        }
        return described
    }

    @Test func eachAttributeIsPreparedAsItWillBeSet() throws {
        let (record, arena, _) = try Self.prepared([
            "id": 1, "name": 5, "rank": .null, "at": "2024-01-02T03:04:05Z", "cents": 10, "meta": ["note": "n"],
        ])
        defer { arena.removeAll() }
        let values = try Self.values(of: record)
        #expect(values["id"] == "\(DatabaseValue.integer(1))")
        #expect(values["name"] == "\(DatabaseValue.text("5"))", "a number for a string attribute is its text")
        #expect(values["rank"] == "reported", "null for a non-optional attribute is reported by the writer")
        let date = ValueCoercion(dateFormats: []).storedValue(
            .string("2024-01-02T03:04:05Z"), type: .date, dateFormat: nil)
        #expect(values["at"] == "\(try #require(date))")
        #expect(values["cents"] == "reported", "a value transformer runs on the writer, in turn")
        #expect(values["note"] == "\(DatabaseValue.text("n"))", "found at its key path")
        #expect(values.count == record.representation.attributes.count)
    }

    @Test func absentAndRefusedValuesAreLeftToTheWriter() throws {
        let (record, arena, _) = try Self.prepared(["id": 1, "rank": "x"])
        defer { arena.removeAll() }
        let values = try Self.values(of: record)
        #expect(values["name"] == "absent")
        #expect(values["rank"] == "reported", "a refused value is reported where it is set")
    }

    @Test func aChangedDictionaryOrEntityIsPreparedNoLonger() throws {
        let (record, arena, representations) = try Self.prepared(["id": 1, "name": "a", "rank": 2])
        defer { arena.removeAll() }
        #expect(record.preparedValues != nil)
        record.dictionary["name"] = "b"
        #expect(record.preparedValues == nil, "a merged occurrence makes prepared values stale")

        let (other, otherArena, _) = try Self.prepared(["id": 2, "rank": 2])
        defer { otherArena.removeAll() }
        #expect(other.preparedValues != nil)
        other.become(try #require(representations["Special"]))
        #expect(other.preparedValues == nil, "another entity has other attributes")
    }

    /// The same values end in the store whether the writer sets prepared values or works them
    /// out itself: one record merged from two occurrences (its values worked out again) and one
    /// given once (set as prepared), each with every kind of value.
    @Test func preparedAndWorkedOutValuesStoreAlike() async throws {
        var configuration = RecordStore.Configuration()
        configuration.transformers["halved"] = { value in value.doubleValue.map { .double($0 / 2) } }
        let store = try RecordStore(inMemory: try Schema(json: Self.schema), configuration: configuration)
        let response = try JSONReader().read(
            #"""
            [{"id": 1, "name": "a", "rank": 1, "at": "2024-01-02T03:04:05Z", "cents": 10, "meta": {"note": "n"}},
             {"id": 2, "rank": 1},
             {"id": 2, "name": "a", "at": "2024-01-02T03:04:05Z", "cents": 10, "meta": {"note": "n"}}]
            """#)
        let result = try await store.populate(response, entity: "Item")
        #expect(result.changesByEntity["Item"]?.inserted == 2)
        let rows = try await store.read { connection in
            try connection.rows("SELECT name, rank, at, cents, note FROM Item ORDER BY id")
        }
        #expect(rows.count == 2)
        #expect(rows.first == rows.last, "\(rows)")
        #expect(rows.first?[3] == .real(5))
    }
}
