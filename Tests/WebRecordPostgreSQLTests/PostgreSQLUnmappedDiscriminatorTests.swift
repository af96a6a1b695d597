import Foundation
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A discriminator whose value names no sub-entity makes a stored `Card` the base entity, its
/// card values cleared, in PostgreSQL as in SQLite; a missing one keeps the card (DESIGN §3.13).
@Suite struct PostgreSQLUnmappedDiscriminatorTests {
    static let steps = [
        storedCardsJSON,
        #"[{"id": "pm_1", "last4": "1111"}]"#,
        unmappedMethodsJSON,
        #"[{"id": "pm_2", "type": "card", "brand": "visa"}]"#,
    ]

    @Test func theStoresAgreeAndTheCardsBecomePaymentMethods() throws {
        let schema = try Schema(json: unmappedDiscriminatorSchemaJSON, fileName: "Payments.json")
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        let rows =
            #"SELECT "id", "_entity", "brand", "last4", CASE WHEN "issuer" IS NULL THEN 'none' ELSE 'bank' END FROM "PaymentMethod" ORDER BY "id""#
        var states: [[[DatabaseValue]]] = []
        for (index, step) in Self.steps.enumerated() {
            let response = try JSONReader().read(step)
            let expected = try ResponsePopulation(store: sqlite).populate(response, entity: "PaymentMethod")
            let result = try ResponsePopulation(store: postgreSQL).populate(response, entity: "PaymentMethod")
            #expect(result.changes == expected.changes, "step \(index)")
            #expect(result.debugger.errors.map(\.message) == expected.debugger.errors.map(\.message), "step \(index)")
            #expect(
                try PostgreSQLStores.content(of: postgreSQL) == PostgreSQLStores.content(of: sqlite), "step \(index)")
            states.append(try postgreSQL.withConnection { try $0.rows(rows) })
        }
        // A missing type kept the card; an unmapped one made both methods the base entity.
        #expect(states[1].first == [.text("pm_1"), .text("Card"), .text("visa"), .text("1111"), .text("bank")])
        #expect(
            states[2] == [
                [.text("pm_1"), .text("PaymentMethod"), .null, .null, .text("none")],
                [.text("pm_2"), .text("PaymentMethod"), .null, .null, .text("none")],
            ])
        #expect(states[3].last == [.text("pm_2"), .text("Card"), .text("visa"), .null, .text("none")])
    }
}
