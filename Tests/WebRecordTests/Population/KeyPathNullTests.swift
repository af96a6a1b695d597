import Foundation
import Testing
import WebRecord

/// A key path that meets `null` before its last part reads as null, which clears, for
/// attributes and relationships alike; one that meets a missing key reads as absent.
@Suite struct KeyPathNullTests {
    static let schema = """
        {
          "entities": {
            "Article": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "string" },
                "views": { "type": "integer", "key": "meta.stats.views" }
              },
              "relationships": {
                "author": { "destination": "Person", "key": "relationships.author.data.id" }
              }
            },
            "Person": { "primaryKey": "id", "attributes": { "id": { "type": "string" } } }
          }
        }
        """

    @Test func theWalkReadsNullWhereverItMeetsIt() throws {
        let value: JSONValue = ["a": ["b": .null], "c": 5, "d": [.null]]
        #expect(value.value(atKeyPath: "a.b") == .null)
        #expect(value.value(atKeyPath: "a.b.c") == .null, "null before the end is null")
        #expect(value.value(atKeyPath: "d.0.x") == .null)
        #expect(value.value(atKeyPath: "a.x.y") == nil, "a missing key is absent")
        #expect(value.value(atKeyPath: "c.x") == nil, "a step into a number is absent")
        #expect(value.value(atKeyPath: "d.1.x") == nil, "past the end is absent")
    }

    @Test func aNullBeforeTheLastPartClearsARelationshipAndAnAttribute() throws {
        let store = try RecordStore(inMemory: Schema(json: Self.schema))
        _ = try store.populate(
            [
                "id": "1", "meta": ["stats": ["views": 10]],
                "relationships": ["author": ["data": ["id": "9", "type": "people"]]],
            ], entity: "Article")
        var article = try #require(try store.fetchOne("Article", primaryKey: "1"))
        #expect(article.related("author")?.primaryKeyValue == "9")
        #expect(article["views"] as Int64? == 10)

        // JSON:API's "no author": data is null. And stats are null.
        _ = try store.populate(
            ["id": "1", "meta": ["stats": .null], "relationships": ["author": ["data": .null]]], entity: "Article")
        article = try #require(try store.fetchOne("Article", primaryKey: "1"))
        #expect(article.related("author") == nil, "the author was removed, not kept")
        #expect(article["views"] as Int64? == nil)
    }

    @Test func aMissingKeyBeforeTheLastPartLeavesTheValue() throws {
        let store = try RecordStore(inMemory: Schema(json: Self.schema))
        _ = try store.populate(
            ["id": "1", "meta": ["stats": ["views": 10]], "relationships": ["author": ["data": ["id": "9"]]]],
            entity: "Article")
        _ = try store.populate(["id": "1", "meta": [:], "relationships": [:]], entity: "Article")
        let article = try #require(try store.fetchOne("Article", primaryKey: "1"))
        #expect(article.related("author")?.primaryKeyValue == "9")
        #expect(article["views"] as Int64? == 10)
    }
}
