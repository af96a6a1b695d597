import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Schemas that validated but that the store could not make: generated table and index names
/// that meet (SQLite ignores the case of ASCII letters), and tables with more columns than
/// SQLite allows. Each is now a schema problem naming the file, entity and property. The cases
/// run with ``SchemaValidationTests/reportsExactly(_:)``, which asserts the exact problems, and
/// Docs/SchemaFormat.md quotes them.
@Suite struct SchemaStorabilityTests {
    typealias Case = SchemaValidationTests.Case

    static func problem(_ entity: String?, _ property: String?, _ message: String) -> SchemaProblem {
        SchemaValidationTests.problem(entity, property, message)
    }

    static func entities(_ body: String) -> String { SchemaValidationTests.entities(body) }

    static let cases: [Case] = [
        Case(
            "a join table named like a primary-key index",
            entities(
                """
                "pk": { "relationships": { "Post": { "destination": "Post", "toMany": true } } },
                "Post": { "primaryKey": "id", "attributes": { "id": { "type": "string" } } }
                """),
            [
                problem(
                    "Post", nil,
                    "its index '_pk_Post' has the same name as the join table of pk.Post; rename one of them")
            ]),
        Case(
            "a join table named like an attribute's index",
            entities(
                """
                "Post": { "attributes": { "title": { "type": "string", "indexed": true } } },
                "index": { "relationships": { "Post_title": { "destination": "Post", "toMany": true } } }
                """),
            [
                problem(
                    "index", "Post_title",
                    "its join table '_index_Post_title' has the same name as the index of Post.title; rename one of them"
                )
            ]),
        Case(
            "two attribute indexes with one name",
            entities(
                """
                "A": { "attributes": { "b_c": { "type": "string", "indexed": true } } },
                "A_b": { "attributes": { "c": { "type": "string", "indexed": true } } }
                """),
            [
                problem(
                    "A_b", "c", "its index '_index_A_b_c' has the same name as the index of A.b_c; rename one of them")
            ]),
        Case(
            "two indexes whose names differ only in case",
            entities(
                """
                "A": { "attributes": { "b_c": { "type": "string", "indexed": true } } },
                "A_B": { "attributes": { "c": { "type": "string", "indexed": true } } }
                """),
            [
                problem(
                    "A_B", "c", "its index '_index_A_B_c' has the same name as the index of A.b_c; rename one of them")
            ]),
        Case(
            "a foreign key's index named like an attribute's index",
            entities(
                """
                "A": { "relationships": { "b_c": { "destination": "Tag" } } },
                "A_b": { "attributes": { "c": { "type": "string", "indexed": true } } },
                "Tag": {}
                """),
            [
                problem(
                    "A_b", "c", "its index '_index_A_b_c' has the same name as the index of A.b_c; rename one of them")
            ]),
        Case(
            "a table of 2001 columns",
            entities(#""Wide": { "attributes": { \#(attributes(1999)) } }"#),
            [
                problem(
                    "Wide", nil,
                    "its table would have 2001 columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); SQLite allows at most 2000"
                )
            ]),
        Case(
            "a hierarchy of 2001 columns, counting a sub-entity's attributes and a foreign key",
            entities(
                """
                "Wide": { "attributes": { \(attributes(1000)) }, "relationships": { "tag": { "destination": "Tag" } } },
                "Wider": { "parent": "Wide", "attributes": { \(attributes(998, from: 1000)) } },
                "Tag": {}
                """),
            [
                problem(
                    "Wide", nil,
                    "its table would have 2001 columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); SQLite allows at most 2000"
                )
            ]),
    ]

    /// `count` string attributes `a<n>`, as JSON object members.
    static func attributes(_ count: Int, from first: Int = 0) -> String {
        (first..<(first + count)).map { #""a\#($0)": { "type": "string" }"# }.joined(separator: ", ")
    }

    @Test func aTableOfExactly2000ColumnsValidatesAndIsMade() throws {
        let schema = try Schema(
            json: Self.entities(
                """
                "Wide": { "attributes": { \(Self.attributes(1000)) }, "relationships": { "tag": { "destination": "Tag" } } },
                "Wider": { "parent": "Wide", "attributes": { \(Self.attributes(997, from: 1000)) } },
                "Tag": {}
                """))
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: schema)
        try store.write { _ in }
        #expect(try store.columns(of: "Wide").count == 2000)
    }

    @Test func everyShippedSchemaStillValidates() throws {
        let folder = Reliability.packageRoot.appendingPathComponent("Schemas")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        #expect(files == ["AppNet.json", "Atlassian.json", "Foursquare.json"])
        for file in files {
            let schema = try Schema(contentsOf: folder.appendingPathComponent(file))
            let store = try RecordStore(inMemory: schema)
            #expect(try store.count(schema.entities[0].name) == 0, "\(file)")
        }
    }
}
