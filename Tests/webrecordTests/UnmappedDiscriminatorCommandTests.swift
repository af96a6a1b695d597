import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

/// `webrecord populate` of a payment method whose `type` the schema does not map: the stored
/// card becomes a `PaymentMethod` without its card values, and the `--json` summary carries
/// one warning that names the value; a missing `type` keeps the card (DESIGN §3.13). In a
/// SQLite file and in PostgreSQL.
@Suite struct UnmappedDiscriminatorCommandTests {
    let directory: TemporaryDirectory
    let schema: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write("Payments.json", Data(unmappedDiscriminatorSchemaJSON.utf8))
    }

    /// The `--json` summary of populating `json`.
    func populate(_ db: String, _ json: String) async throws -> [String: Any] {
        let source = try directory.write("response-\(UUID().uuidString).json", Data(json.utf8))
        let result = try await CLI.run([
            "populate", "--schema", schema, "--db", db, "--entity", "PaymentMethod", "--json", source,
        ])
        try #require(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    }

    func export(_ db: String, _ entity: String) async throws -> [[String: Any]] {
        let result = try await CLI.run(["export", "--schema", schema, "--db", db, "--entity", entity])
        try #require(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
    }

    func expectTheCardsBecomePaymentMethods(in db: String) async throws {
        _ = try await populate(db, storedCardsJSON)
        let kept = try await populate(db, #"[{"id": "pm_1", "last4": "1111"}]"#)
        #expect((kept["warnings"] as? [Any])?.isEmpty == true)
        #expect(try await export(db, "Card").map { "\($0["brand"] ?? "none")" } == ["visa", "amex"])

        let summary = try await populate(db, unmappedMethodsJSON)
        #expect(summary["updated"] as? Int == 2)
        let warnings = try #require(summary["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?["code"] as? String == "invalidEntityDescription")
        #expect(
            (warnings.first?["message"] as? String)?.contains(
                #"type is "sepa_debit", which names no sub-entity of PaymentMethod"#) == true, "\(warnings)")
        #expect(try await export(db, "Card").isEmpty)
        let methods = try await export(db, "PaymentMethod")
        #expect(methods.map { "\($0["id"] ?? "")" } == ["pm_1", "pm_2"])
        // Their card values were cleared: a card again, pm_1 has none of them back.
        _ = try await populate(db, #"[{"id": "pm_1", "type": "card"}]"#)
        let again = try await export(db, "Card")
        #expect(again.count == 1)
        #expect(again.first?["brand"] is NSNull && again.first?["last4"] is NSNull, "\(again)")
    }

    @Test func inASQLiteFile() async throws {
        try await expectTheCardsBecomePaymentMethods(in: directory.path("payments.sqlite"))
    }

    @Test func inPostgreSQL() async throws {
        let server = try PostgreSQLTestServer.shared()
        try await expectTheCardsBecomePaymentMethods(in: server.url(database: try server.makeDatabase()))
    }
}
