import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// A discriminator whose value names no sub-entity (`"type": "sepa_debit"` where the schema maps
/// only `card` and `sepa_debit_v1`) makes the record the entity whose discriminator was read,
/// clearing what its former sub-entity had, with one warning naming the value per response; a
/// missing or null discriminator keeps the stored sub-entity (DESIGN §3.13).
@Suite struct UnmappedDiscriminatorTests {
    let directory: TemporaryDirectory
    let store: RecordStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(
            path: directory.path(), schema: Schema(json: unmappedDiscriminatorSchemaJSON, fileName: "Payments.json"))
        _ = try store.populate(try JSONReader().read(storedCardsJSON), entity: "PaymentMethod")
    }

    static let message =
        #"type is "sepa_debit", which names no sub-entity of PaymentMethod; the records that give it are stored as PaymentMethod, and a stored sub-entity's values are cleared"#

    @Test func aStoredCardBecomesTheBaseEntityWithItsCardValuesCleared() throws {
        #expect(try store.count("Card") == 2)
        let result = try store.populate(try JSONReader().read(unmappedMethodsJSON), entity: "PaymentMethod")
        #expect(result.changes.updated == 2, "\(result.changes)")
        #expect(try store.count("Card") == 0)
        let methods = try store.fetch("PaymentMethod", orderBy: [.ascending("id")])
        #expect(methods.map(\.entity.name) == ["PaymentMethod", "PaymentMethod"])
        #expect(methods.map { $0["type"] as String? } == ["sepa_debit", "sepa_debit"])
        let cleared = try store.read { connection in
            try connection.rows(#"SELECT "brand", "last4", "issuer" FROM "PaymentMethod" ORDER BY "id""#)
        }
        #expect(cleared == [[.null, .null, .null], [.null, .null, .null]])
        // One warning for the value, though three records gave it.
        let warnings = result.debugger.errors.filter { $0.code == .invalidEntityDescription }
        #expect(warnings.map(\.message) == [Self.message])
        #expect(warnings.first?.isFatal == false)
    }

    @Test func eachValueThatNamesNothingIsWarnedOfOnce() throws {
        let result = try store.populate(
            try JSONReader().read(
                #"[{"id": "pm_1", "type": "sepa_debit"}, {"id": "pm_2", "type": 7}, {"id": "pm_3", "type": "sepa_debit"}]"#
            ),
            entity: "PaymentMethod")
        let warnings = result.debugger.errors.filter { $0.code == .invalidEntityDescription }.map(\.message)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first == Self.message)
        #expect(warnings.last?.hasPrefix("type is 7, which names no sub-entity of PaymentMethod") == true)
    }

    @Test(arguments: [
        #"[{"id": "pm_1", "last4": "1111"}]"#, #"[{"id": "pm_1", "type": null, "last4": "1111"}]"#,
    ])
    func aMissingOrNullDiscriminatorKeepsTheStoredSubentity(response: String) throws {
        let result = try store.populate(try JSONReader().read(response), entity: "PaymentMethod")
        #expect(!result.debugger.errors.contains { $0.code == .invalidEntityDescription })
        let card = try #require(try store.fetchOne("PaymentMethod", primaryKey: "pm_1"))
        #expect(card.entity.name == "Card")
        #expect(card["brand"] as String? == "visa")
        #expect(card["last4"] as String? == "1111")
    }

    @Test func aNestedMethodThatNamesNothingBecomesTheBaseEntityToo() throws {
        let result = try store.populate(
            try JSONReader().read(#"[{"id": "ch_1", "payment_method": {"id": "pm_2", "type": "link"}}]"#),
            entity: "Charge")
        let method = try #require(try store.fetchOne("PaymentMethod", primaryKey: "pm_2"))
        #expect(method.entity.name == "PaymentMethod")
        #expect(method.storedValues["brand"] == .null)
        #expect(result.debugger.errors.filter { $0.code == .invalidEntityDescription }.count == 1)
        let card = try #require(try store.fetchOne("PaymentMethod", primaryKey: "pm_1"))
        #expect(card.entity.name == "Card", "a method the response did not name is left as it was")
    }

    /// Within one response, the later occurrence's stated discriminator decides, as across
    /// responses: a `card` then a `sepa_debit` is the base entity, a `sepa_debit` then a `card`
    /// is a card, and a later short copy without `type` keeps what the earlier one stated.
    @Test(
        arguments: [
            (
                #"[{"id": "pm_3", "type": "card", "brand": "visa"}, {"id": "pm_3", "type": "sepa_debit"}]"#,
                "PaymentMethod", nil
            ),
            (
                #"[{"id": "pm_1", "type": "card", "brand": "mc"}, {"id": "pm_1", "type": "sepa_debit"}]"#,
                "PaymentMethod", nil
            ),
            (
                #"[{"id": "pm_3", "type": "sepa_debit"}, {"id": "pm_3", "type": "card", "brand": "visa"}]"#, "Card",
                "visa"
            ),
            (#"[{"id": "pm_3", "type": "card", "brand": "visa"}, {"id": "pm_3"}]"#, "Card", "visa"),
        ] as [(String, String, String?)])
    func theLaterStatedDiscriminatorOfOneResponseDecides(response: String, entity: String, brand: String?) async throws
    {
        let key = response.contains("pm_1") ? "pm_1" : "pm_3"
        let data = Data(response.utf8)
        // Whole, and streamed a record a batch: the same result.
        _ = try await store.populate(try JSONReader().read(response), entity: "PaymentMethod")
        let whole = try #require(try store.fetchOne("PaymentMethod", primaryKey: .string(key)))
        #expect(whole.entity.name == entity, "\(response)")
        #expect(whole["brand"] as String? == brand, "\(response)")

        let other = try TemporaryDirectory()
        let streamedStore = try RecordStore(
            path: other.path(), schema: Schema(json: unmappedDiscriminatorSchemaJSON, fileName: "Payments.json"))
        _ = try await streamedStore.populate(try JSONReader().read(storedCardsJSON), entity: "PaymentMethod")
        _ = try await ResponsePopulation(store: try #require(streamedStore.sqlite)).populate(
            streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 1) },
            entity: "PaymentMethod")
        let streamed = try #require(try streamedStore.fetchOne("PaymentMethod", primaryKey: .string(key)))
        #expect(streamed.entity.name == entity, "streamed: \(response)")
        #expect(streamed["brand"] as String? == brand, "streamed: \(response)")
    }

    @Test func aStreamedResponseWarnsOncePerValueAcrossItsBatches() async throws {
        let records = (0..<40).map { #"{"id": "pm_\#($0 % 2 + 1)", "type": "sepa_debit"}"# }
        let data = Data(("[" + records.joined(separator: ",") + "]").utf8)
        let result = try await ResponsePopulation(store: try #require(store.sqlite)).populate(
            streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 100) },
            entity: "PaymentMethod")
        #expect(try store.count("Card") == 0)
        #expect(result.changes.updated == 2, "\(result.changes)")
        #expect(result.debugger.errors.filter { $0.code == .invalidEntityDescription }.map(\.message) == [Self.message])
    }
}
