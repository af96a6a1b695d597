import Foundation
import Testing

@testable import WebRecord

/// The exact order of decimal text that SQLite's `webrecord_decimal` collation and
/// observations use (`DecimalOrder`), beyond a double's precision.
@Suite struct DecimalOrderTests {
    /// An in-memory store of prices, populated with `response`.
    static func prices(_ response: String) async throws -> RecordStore {
        let schema = try Schema(
            json: #"""
                {"entities": {"Price": {"primaryKey": "id",
                  "attributes": {"id": {"type": "integer"}, "amount": {"type": "decimal"}}}}}
                """#)
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(response), entity: "Price")
        return store
    }

    @Test func sortsByExactValue() {
        let ascending = [
            "garbage-not-a-number-sorts-last",
            "-100000000000000000000",
            "-0.1000000000000000000001",
            "-0.1",
            "-1e-30",
            "0",
            "0.000000000000000000000000000001",
            "9.9999999999999999999",
            "10",
            "10.000000000000000001",
            "99999999999999999999.5",
            "1E20",
            "100000000000000000000.5",
        ]
        // The text that is no number sorts after every number.
        let expected = Array(ascending.dropFirst()) + [ascending[0]]
        let shuffled = [5, 12, 0, 3, 9, 1, 7, 11, 2, 10, 4, 8, 6].map { ascending[$0] }
        #expect(shuffled.sorted { DecimalOrder.compare($0, $1) < 0 } == expected)
    }

    @Test func equalValuesWrittenDifferentlyCompareEqual() {
        for (left, right) in [
            ("1.50", "1.5"), ("0", "-0.000"), ("007", "7"), ("1e2", "100"), ("+5", "5"), (".5", "0.5"),
        ] {
            #expect(DecimalOrder.compare(left, right) == 0, "\(left) \(right)")
        }
        #expect(DecimalOrder.compare("1.0000000000000000000000000000000000001", "1") > 0)
        #expect(DecimalOrder.compare("-2", "-10") > 0)
        #expect(DecimalOrder.compare("abc", "abd") < 0)
        #expect(DecimalOrder.compare("1.2.3", "5") > 0)
    }

    /// SQLite sorts a decimal column with the collation, so two decimals one double holds sort
    /// by value in a fetch.
    @Test func aFetchSortsDecimalsADoubleCannotTellApart() async throws {
        let store = try await Self.prices(
            #"[{"id": 1, "amount": "10.000000000000000001"}, {"id": 2, "amount": "9.9999999999999999999"}, {"id": 3, "amount": "10"}]"#
        )
        let ascending = try store.fetch("Price", orderBy: [.ascending("amount")]).map { $0["id"] as Int64? }
        #expect(ascending == [2, 3, 1])
        let descending = try store.fetch("Price", orderBy: [.descending("amount")]).map { $0["id"] as Int64? }
        #expect(descending == [1, 3, 2])
    }
}

extension DecimalOrderTests {
    /// PostgreSQL.md: a condition compares decimals by exact value on SQLite with the collation.
    @Test func aConditionComparesByValueWithTheCollation() async throws {
        let store = try await Self.prices(
            #"[{"id": 1, "amount": "10.000000000000000001"}, {"id": 2, "amount": "9.5"}]"#)
        let above = try store.fetch(
            "Price", where: #""amount" COLLATE webrecord_decimal > ?"#, arguments: ["10"]
        ).map { $0["id"] as Int64? }
        #expect(above == [1])
    }

    /// Records.md, "Decimals compare as text on SQLite": without the collation, a condition
    /// compares the canonical text, whatever the argument's type; with it, the exact values,
    /// for a `Decimal`, an integer and a string argument alike.
    @Test func aConditionWithoutTheCollationComparesText() async throws {
        let store = try await Self.prices(#"[{"id": 1, "amount": "10.00"}, {"id": 2, "amount": "2.5"}]"#)
        let arguments: [any DatabaseValueConvertible] = [Decimal(3), 3, "3"]
        for argument in arguments {
            let asText = try store.fetch("Price", where: #""amount" > ?"#, arguments: [argument])
                .map { $0["id"] as Int64? }
            #expect(asText == [], "\(argument): '10' and '2.5' both sort before '3' as text")
            let byValue = try store.fetch(
                "Price", where: #""amount" COLLATE webrecord_decimal > ?"#, arguments: [argument]
            ).map { $0["id"] as Int64? }
            #expect(byValue == [1], "\(argument)")
        }
    }
}
