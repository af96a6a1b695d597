import Foundation
import TestSupport
import Testing

/// `webrecord diagram SCHEMA... [--format mermaid|dot]`: each entity with its key and declared
/// attributes, each relationship once with both ends' cardinality, each sub-entity's parent.
@Suite struct DiagramCommandTests {
    /// A shop: a to-many with its inverse, a required to-one without one, a sub-entity, and an
    /// entity keyed by a relationship.
    static let shop = """
        {
          "entities": {
            "Shop": { "primaryKey": "id", "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "items": { "destination": "Item", "toMany": true, "inverse": "shop" },
                "owner": { "destination": "Person", "optional": false }
              } },
            "Item": { "primaryKey": "sku", "attributes": { "sku": { "type": "string" }, "price": { "type": "decimal" } },
              "relationships": { "shop": { "destination": "Shop", "inverse": "items" },
                "stock": { "destination": "Stock", "inverse": "item" } } },
            "Book": { "parent": "Item", "attributes": { "isbn": { "type": "string" } } },
            "Person": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } } },
            "Stock": { "primaryKey": "item", "attributes": { "count": { "type": "integer" } },
              "relationships": { "item": { "destination": "Item", "inverse": "stock" } } }
          }
        }
        """

    func diagram(_ arguments: [String]) async throws -> CLIResult {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("shop.json", Self.shop)
        return try await CLI.run(["diagram"] + arguments + [schema])
    }

    @Test func mermaidIsTheDefault() async throws {
        let result = try await diagram([])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                erDiagram
                    Shop {
                        integer id PK
                        string name
                    }
                    Item {
                        string sku PK
                        decimal price
                    }
                    Book {
                        string isbn
                    }
                    Person {
                        integer id PK
                    }
                    Stock {
                        integer count
                    }
                    Shop }o--|| Person : "owner"
                    Item }o--o| Shop : "shop / items"
                    Item |o--o| Stock : "stock / item (key)"
                    Book |o--|| Item : "is a"

                """)
    }

    @Test func dotDrawsTheSameWithCrowsFeet() async throws {
        let result = try await diagram(["--format", "dot"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                digraph Schema {
                    rankdir=LR;
                    node [shape=record, fontname="Helvetica"];
                    edge [fontname="Helvetica", dir=both];
                    Shop [label="{Shop|id: integer (PK)\\lname: string\\l}"];
                    Item [label="{Item|sku: string (PK)\\lprice: decimal\\l}"];
                    Book [label="{Book|isbn: string\\l}"];
                    Person [label="{Person|id: integer (PK)\\l}"];
                    Stock [label="{Stock|count: integer\\l}"];
                    Shop -> Person [label="owner", arrowtail=crowodot, arrowhead=teetee];
                    Item -> Shop [label="shop / items", arrowtail=crowodot, arrowhead=teeodot];
                    Item -> Stock [label="stock / item (key)", arrowtail=teeodot, arrowhead=teeodot];
                    Book -> Item [label="is a", style=dashed, arrowtail=none, arrowhead=empty];
                }

                """)
    }

    @Test func anUnknownFormatIsAUsageError() async throws {
        let result = try await diagram(["--format", "svg"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: invalid --format 'svg'; expected mermaid or dot")
    }

    @Test func anInvalidSchemaFailsAsPopulateDoes() async throws {
        let directory = try TemporaryDirectory()
        let bad = try directory.write(
            "bad.json", #"{ "entities": { "Post": { "attributes": { "id": { "type": "txt" } } } } }"#)
        let result = try await CLI.run(["diagram", bad])
        #expect(result.status == 1)
        #expect(
            result.stderrLines.first?.hasPrefix("webrecord: error: invalid schema: \(bad): Post.id: ") == true,
            "\(result)")
    }

    /// The README shows the App.net schema, and SchemaFormat.md every shipped schema, as the
    /// command draws them now.
    @Test(arguments: [
        ("README.md", "AppNet"), ("Docs/SchemaFormat.md", "AppNet"), ("Docs/SchemaFormat.md", "Foursquare"),
        ("Docs/SchemaFormat.md", "Atlassian"),
    ])
    func theDocumentsShowTheShippedSchemasAsDrawn(_ document: String, _ schema: String) async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let result = try await CLI.run(["diagram", root.appendingPathComponent("Schemas/\(schema).json").path])
        #expect(result.status == 0, "\(result)")
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        #expect(text.contains("```mermaid\n" + result.stdout + "```\n"), "\(document) shows \(schema) as drawn now")
    }
}
