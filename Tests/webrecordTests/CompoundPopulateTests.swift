import Foundation
import TestSupport
import Testing

/// `webrecord populate` with a schema that declares the records a response includes: no extra
/// flag, every entity populated in one transaction.
@Suite struct CompoundPopulateTests {
    static let schema = """
        {"entities": {
          "Article": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "included": [{"keyPath": "included", "key": "type", "map": {"people": "Person"}}],
            "attributes": {"id": {"type": "string"}},
            "relationships": {"author": {"destination": "Person", "key": "relationships.author.data.id"}}},
          "Person": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string", "key": "attributes.name"}}}
        }}
        """
    static let document = """
        {"data": [{"type": "articles", "id": "1", "relationships": {"author": {"data": {"type": "people", "id": "9"}}}}],
         "included": [{"type": "people", "id": "9", "attributes": {"name": "Dan"}}]}
        """

    @Test func theSchemasDeclarationIsEnough() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("blog.json", Self.schema)
        let source = try directory.write("page.json", Self.document)
        let store = directory.path("blog.sqlite")
        let populate = try await CLI.run(
            ["populate", "--schema", schema, "--db", store, "--entity", "Article", "--json", source])
        #expect(populate.status == 0, "\(populate)")
        #expect(populate.stdout.contains(#""Person""#), "\(populate.stdout)")
        let people = try await CLI.run(["export", "--schema", schema, "--db", store, "--entity", "Person"])
        #expect(people.status == 0, "\(people)")
        #expect(people.stdout.contains(#""name": "Dan""#), "\(people.stdout)")
        let articles = try await CLI.run(["export", "--schema", schema, "--db", store, "--entity", "Article"])
        #expect(articles.stdout.contains(#""author": "9""#), "\(articles.stdout)")
    }
}
