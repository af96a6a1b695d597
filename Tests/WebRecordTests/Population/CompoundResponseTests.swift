import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Compound responses: the records of several entities at several key paths of one response
/// (JSON:API's `data` and `included`), populated in one transaction, references resolved across
/// them, a mixed array routed by its `type`.
@Suite struct CompoundResponseTests {
    static let schema = """
        {
          "entities": {
            "Article": {
              "primaryKey": "id", "keyPathForResponseObject": "data",
              "included": [{ "keyPath": "included", "key": "type", "map": { "people": "Person", "comments": "Comment" } }],
              "attributes": { "id": { "type": "string" }, "title": { "type": "string", "key": "attributes.title" } },
              "relationships": {
                "author": { "destination": "Person", "key": "relationships.author.data.id", "inverse": "articles" },
                "comments": { "destination": "Comment", "toMany": true, "key": "relationships.comments.data", "inverse": "article" }
              }
            },
            "Person": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string", "key": "attributes.name" } },
              "relationships": { "articles": { "destination": "Article", "toMany": true, "inverse": "author" } }
            },
            "Comment": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "body": { "type": "string", "key": "attributes.body" } },
              "relationships": { "article": { "destination": "Article", "key": "relationships.article.data.id", "inverse": "comments" } }
            }
          }
        }
        """

    /// A JSON:API compound document: two articles, their authors and comments, and a tag no
    /// entity is routed for.
    static let document: JSONValue = [
        "data": [
            [
                "type": "articles", "id": "1", "attributes": ["title": "JSON:API paints my bikeshed!"],
                "relationships": [
                    "author": ["data": ["type": "people", "id": "9"]],
                    "comments": ["data": [["type": "comments", "id": "5"], ["type": "comments", "id": "12"]]],
                ],
            ],
            [
                "type": "articles", "id": "2", "attributes": ["title": "Second"],
                "relationships": ["author": ["data": ["type": "people", "id": 9]], "comments": ["data": []]],
            ],
        ],
        "included": [
            ["type": "people", "id": "9", "attributes": ["name": "Dan Gebhardt"]],
            [
                "type": "comments", "id": "5", "attributes": ["body": "First!"],
                "relationships": ["article": ["data": ["type": "articles", "id": "1"]]],
            ],
            ["type": "comments", "id": "12", "attributes": ["body": "I like XML better"]],
            ["type": "tags", "id": "3"],
            ["type": "tags", "id": "4"],
        ],
    ]

    func store(_ log: InMemoryLogHandler? = nil) throws -> RecordStore {
        var configuration = RecordStore.Configuration()
        if let log { configuration.logging = LogSettings(handler: log, level: .debug) }
        return try RecordStore(inMemory: Schema(json: Self.schema), configuration: configuration)
    }

    @Test func everyEntityOfTheDocumentIsPopulatedInOneTransaction() throws {
        let log = InMemoryLogHandler()
        let store = try store(log)
        let result = try store.populate(Self.document, entity: "Article")
        #expect(result.records.map(\.primaryKeyValue) == ["1", "2"], "the requested records come back")
        #expect(result.changesByEntity["Article"]?.inserted == 2)
        #expect(result.changesByEntity["Person"]?.inserted == 1, "one person, named by key twice and given once")
        #expect(result.changesByEntity["Comment"]?.inserted == 2)

        let article = try #require(try store.fetchOne("Article", primaryKey: "1"))
        #expect(article.related("author")?["name"] as String? == "Dan Gebhardt")
        #expect(article.relatedRecords("comments").map { $0["body"] as String? } == ["First!", "I like XML better"])
        let person = try #require(try store.fetchOne("Person", primaryKey: "9"))
        #expect(person.relatedRecords("articles").map(\.primaryKeyValue) == ["1", "2"])
        // The tags, routed nowhere, are skipped with one note per type, at debug level.
        let notes = log.events.filter { $0.message.contains("'tags'") }
        #expect(notes.count == 1, "\(log.messages)")
        #expect(notes.first?.level == .debug)
        #expect(notes.first?.message.contains("2 included record(s)") == true)
        #expect(result.debugger.warnings.isEmpty, "a type left unmapped is not a warning")
    }

    @Test func malformedIncludedValuesAreWarnings() throws {
        let store = try store()
        var document = try #require(Self.document.objectValue)
        document["included"] = [1, ["id": "77"], ["type": .null, "id": "78"], ["type": "people", "id": "9"]]
        let result = try store.populate(.object(document), entity: "Article")
        let warnings = result.debugger.warnings
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.code == .invalidResponseFormat)
        #expect(warnings.first?.message.contains("3 included value(s) at 'included'") == true, "\(warnings)")
        #expect(try store.count("Person") == 1)
    }

    @Test func populatingTheSameDocumentAgainWritesNothing() throws {
        let store = try store()
        _ = try store.populate(Self.document, entity: "Article")
        let again = try store.populate(Self.document, entity: "Article")
        #expect(again.changes.inserted == 0)
        #expect(again.changes.updated == 0)
        #expect(again.changes.unchanged == 5)
    }

    @Test func aBadIncludedKeyPathFailsTheWholePopulation() throws {
        let store = try store()
        var document = try #require(Self.document.objectValue)
        document["included"] = 42
        do {
            _ = try store.populate(.object(document), entity: "Article")
            Issue.record("a number at 'included' should fail")
        } catch {
            #expect(error.code == .invalidResponseFormat)
            #expect(error.keyPath == "included")
        }
        #expect(try store.count("Article") == 0, "nothing was written")
        #expect(try store.count("Person") == 0)
    }

    @Test func theOptionsOverrideTheSchemasIncludedRecords() throws {
        let store = try store()
        var none = PopulationOptions()
        none.included = []
        _ = try store.populate(Self.document, entity: "Article", options: none)
        #expect(try store.count("Comment") == 2, "stubs made from the articles' references")
        #expect(try store.fetchOne("Comment", primaryKey: "5")?["body"] as String? == nil)

        var people = PopulationOptions()
        people.included = [.entity("Person", at: "people")]
        _ = try store.populate(
            ["data": [], "people": [["id": "10", "attributes": ["name": "Ann"]]]], entity: "Article", options: people)
        #expect(try store.fetchOne("Person", primaryKey: "10")?["name"] as String? == "Ann")
    }

    @Test func aPageIsEmptyOnlyWhenEveryKeyPathIs() async throws {
        let store = try store()
        let loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Article")
        func page(_ data: [JSONValue], _ included: [JSONValue], next: String?) -> LoopbackResponse {
            .json(
                JSONValue.object([
                    "data": .array(data), "included": .array(included),
                    "links": ["next": next.map { .string($0) } ?? .null],
                ]).serialized())
        }
        let person: JSONValue = ["type": "people", "id": "9", "attributes": ["name": "Dan"]]
        // Page 2 has no articles, only a person: it is not empty, and it names no next page.
        loopback.route("/articles", page([["type": "articles", "id": "1"]], [], next: "/articles2"))
        loopback.route("/articles2", page([], [person], next: nil))
        var pages: [Page<Record>] = []
        for try await page in store.pages(
            entity: "Article", urn: "articles", options: PagingOptions(pagination: .nextURL(keyPath: "links.next")))
        {
            pages.append(page)
        }
        #expect(pages.count == 2)
        #expect(pages.last?.end == .noNextPage)
        #expect(try store.fetchOne("Person", primaryKey: "9")?["name"] as String? == "Dan")

        // Both key paths empty: the page is empty.
        loopback.route("/empty", page([], [], next: nil))
        var ends: [PagingEnd?] = []
        for try await page in store.pages(
            entity: "Article", urn: "empty", options: PagingOptions(pagination: .nextURL(keyPath: "links.next")))
        {
            ends.append(page.end)
        }
        #expect(ends == [.emptyPage])
    }

    @Test func lintChecksTheDeclarations() throws {
        func problems(_ included: String) -> [String] {
            let json = """
                {"entities": {"A": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}, "included": \(included)},
                  "B": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}}}}
                """
            do {
                _ = try Schema(json: json)
                return []
            } catch {
                return error.problems.map(\.message)
            }
        }
        #expect(problems(#"[{"keyPath": "x", "entity": "B"}]"#) == [])
        #expect(problems(#"[{"keyPath": "x", "key": "type", "map": {"b": "B"}}]"#) == [])
        #expect(
            problems(#"[{"keyPath": "x", "entity": "Bee"}]"#).contains { $0.contains("'Bee', which is not an entity") })
        #expect(problems(#"[{"keyPath": "x", "key": "type", "map": {"c": "C"}}]"#).contains { $0.contains("'C'") })
        #expect(problems(#"[{"entity": "B"}]"#).contains { $0.contains("needs 'keyPath'") })
        #expect(problems(#"[{"keyPath": "x", "entity": "B", "key": "t"}]"#).contains { $0.contains("not both") })
        #expect(problems(#"[{"keyPath": "x", "enity": "B"}]"#).contains { $0.contains("enity") })
        #expect(problems(#"{"keyPath": "x"}"#).contains { $0.contains("must be an array") })
    }
}
