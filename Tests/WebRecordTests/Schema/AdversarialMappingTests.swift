import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial mappings: the schema's mapping features (candidate keys, key paths through arrays,
/// composite and relationship keys, `included`, discriminators, dates, defaults, transformers)
/// met by responses that combine them awkwardly. Every expectation is the one
/// Docs/SchemaFormat.md or Docs/Population.md states; where a whole response and a streamed one
/// could differ, both are checked (`AdversarialStreamTests.expectSameAtEveryBatchSize`).
@Suite("Schema: adversarial mappings")
struct AdversarialMappingTests {
    typealias A = AdversarialStreamTests

    // MARK: - Support

    static func schema(_ body: String, dateFormats: String = "[]") throws -> Schema {
        try Schema(
            json: #"{"version": 1, "dateFormats": "# + dateFormats + #", "entities": {"# + body + "}}",
            fileName: "mapping.json")
    }

    struct Outcome {
        var store: RecordStore
        var result: PopulationResult?
        var failure: String?
        var warnings: [WebRecordError] { result?.debugger.warnings ?? [] }
        func warnings(_ code: WebRecordError.Code) -> [String] {
            warnings.filter { $0.code == code }.map(\.message)
        }
    }

    /// `responses` populated in turn as `entity` into one new store of `schema`; the outcome of
    /// the last.
    static func populate(
        _ responses: [String], schema: Schema, entity: String, store: RecordStore? = nil
    ) async throws -> Outcome {
        let store = try store ?? RecordStore(inMemory: schema)
        var outcome = Outcome(store: store)
        for response in responses {
            do {
                outcome = Outcome(
                    store: store, result: try await store.populate(try JSONReader().read(response), entity: entity))
            } catch {
                outcome = Outcome(store: store, failure: error.message)
            }
        }
        return outcome
    }

    /// The rows `sql` selects, each as its values' exact text joined by " | ".
    static func select(_ store: RecordStore, _ sql: String) throws -> [String] {
        try store.read { connection in
            try connection.rows(sql).map { $0.map(exactText).joined(separator: " | ") }
        }
    }

    // MARK: - Candidate keys

    static let candidates = """
        "Item": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"},
            "n": {"type": "integer", "key": ["a", "b"]},
            "s": {"type": "string", "key": ["x.y", "z"]}}}
        """

    /// Docs/SchemaFormat.md: "The first candidate present in the record's dictionary wins, even if
    /// its value is null"; a refused value leaves the stored value unchanged (it is not a reason
    /// to try the next candidate).
    @Test(
        "The first present candidate decides, a null or a refused value included",
        arguments: [
            (#"{"id": 1, "a": null, "b": 5}"#, "1 | NULL | 'old'"),
            (#"{"id": 1, "a": "bad", "b": 5}"#, "1 | 7 | 'old'"),
            (#"{"id": 1, "a": 1.5, "b": 5}"#, "1 | 7 | 'old'"),
            (#"{"id": 1, "b": 5}"#, "1 | 5 | 'old'"),
            (#"{"id": 1, "a": "9", "b": 5}"#, "1 | 9 | 'old'"),
        ])
    func firstPresentCandidateDecides(response: String, row: String) async throws {
        let schema = try Self.schema(Self.candidates)
        let outcome = try await Self.populate(
            [#"[{"id": 1, "a": 7, "x": {"y": "old"}}]"#, "[\(response)]"], schema: schema, entity: "Item")
        #expect(outcome.failure == nil)
        #expect(try Self.select(outcome.store, "SELECT id, n, s FROM Item") == [row], "\(response)")
    }

    /// Docs/SchemaFormat.md: a key path that meets a value that is neither an object, an array nor
    /// null "reads as absent", so the next candidate is tried; one that meets null reads as null,
    /// which is present and clears.
    @Test(
        "A candidate key path through a scalar is absent and the next candidate is read",
        arguments: [
            (#"{"id": 1, "x": "text", "z": "new"}"#, "1 | 7 | 'new'"),
            (#"{"id": 1, "x": 5, "z": "new"}"#, "1 | 7 | 'new'"),
            (#"{"id": 1, "x": true, "z": "new"}"#, "1 | 7 | 'new'"),
            (#"{"id": 1, "x": null, "z": "new"}"#, "1 | 7 | NULL"),
            (#"{"id": 1, "x": {"y": null}, "z": "new"}"#, "1 | 7 | NULL"),
            (#"{"id": 1, "x": {"q": 1}, "z": "new"}"#, "1 | 7 | 'new'"),
            (#"{"id": 1, "x": {"y": "v"}, "z": "new"}"#, "1 | 7 | 'v'"),
            (#"{"id": 1, "x": "text"}"#, "1 | 7 | 'old'"),
        ])
    func candidateKeyPathThroughAScalar(response: String, row: String) async throws {
        let schema = try Self.schema(Self.candidates)
        let outcome = try await Self.populate(
            [#"[{"id": 1, "a": 7, "x": {"y": "old"}}]"#, "[\(response)]"], schema: schema, entity: "Item")
        #expect(outcome.failure == nil)
        #expect(try Self.select(outcome.store, "SELECT id, n, s FROM Item") == [row], "\(response)")
    }

    // MARK: - Key paths through arrays

    static let images = """
        "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}, "second": {"type": "string", "key": "images.1.url"}}}
        """

    /// Docs/SchemaFormat.md: "a component made only of digits also indexes an array" — it is an
    /// object key first; Docs/Population.md decision 7: a later occurrence whose list is shorter
    /// than the index leaves the earlier value; a null met on the way clears.
    @Test(
        "Digit components read object keys and array elements, whole and streamed",
        arguments: [
            ([#"{"id": 1, "images": {"1": {"url": "obj"}}}"#], "'obj'"),
            ([#"{"id": 1, "images": [{"url": "a"}, {"url": "b"}]}"#, #"{"id": 1, "images": [{"url": "c"}]}"#], "'b'"),
            ([#"{"id": 1, "images": [{"url": "a"}]}"#, #"{"id": 1, "images": [{"url": "c"}, {"url": "d"}]}"#], "'d'"),
            (
                [#"{"id": 1, "images": [{"url": "a"}, {"url": "b"}]}"#, #"{"id": 1, "images": [{"url": "c"}, null]}"#],
                "NULL"
            ),
            (
                [#"{"id": 1, "images": [{"url": "a"}, {"url": "b"}]}"#, #"{"id": 1, "images": [{"url": "c"}, "s"]}"#],
                "'b'"
            ),
            ([#"{"id": 1, "images": [{"url": "a"}, {"url": "b"}]}"#, #"{"id": 1, "images": null}"#], "NULL"),
            ([#"{"id": 1, "images": [{"url": "a"}, {"url": "b"}]}"#, #"{"id": 1, "images": "none"}"#], "'b'"),
        ])
    func digitComponents(elements: [String], value: String) async throws {
        let schema = try Self.schema(Self.images)
        let whole = try await A.expectSameAtEveryBatchSize(
            A.data(elements), schema: schema, entity: "Item", sizes: [1, 300])
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows == ["Item: 1 | 'Item' | 1 | \(value)"], "\(elements)\n\(whole)")
    }

    // MARK: - Composite keys

    static let books = """
        "Book": {"primaryKey": ["isbn", "printing"],
          "attributes": {"isbn": {"type": "string"}, "printing": {"type": "integer"}, "title": {"type": "string"}}}
        """

    /// Docs/SchemaFormat.md ("Values are normalized to the attribute's type before they are
    /// compared"; a string keeps a number's digits as written; an integer takes "+5" and 1e3).
    @Test("Composite key parts of different JSON types normalize to one record, or stay apart by their digits")
    func compositePartsNormalize() async throws {
        let schema = try Self.schema(Self.books)
        let outcome = try await Self.populate(
            [
                #"""
                [{"isbn": "1", "printing": 1, "title": "a"},
                 {"isbn": 1, "printing": "1", "title": "b"},
                 {"isbn": "1", "printing": "+1", "title": "c"},
                 {"isbn": "1", "printing": 1e0, "title": "d"},
                 {"isbn": 1.0, "printing": 1, "title": "e"},
                 {"isbn": "1", "printing": 10, "title": "f"},
                 {"isbn": "11", "printing": 0, "title": "g"}]
                """#
            ], schema: schema, entity: "Book")
        #expect(outcome.failure == nil)
        #expect(
            try Self.select(outcome.store, "SELECT isbn, printing, title FROM Book ORDER BY _id") == [
                "'1' | 1 | 'd'", "'1.0' | 1 | 'e'", "'1' | 10 | 'f'", "'11' | 0 | 'g'",
            ])
    }

    /// Docs/SchemaFormat.md ("When a record's key is missing or null ... a non-fatal
    /// `missingPrimaryKey` is recorded and the record is not stored"): a composite key with one
    /// part missing, null or refused never matches the record that has the other part.
    @Test("A composite key with one part missing, null or refused stores nothing and touches nothing")
    func compositePartMissing() async throws {
        let schema = try Self.schema(Self.books)
        let store = try RecordStore(inMemory: schema)
        _ = try await Self.populate(
            [#"[{"isbn": "1", "printing": 1, "title": "a"}]"#], schema: schema, entity: "Book", store: store)
        let outcome = try await Self.populate(
            [
                #"""
                [{"isbn": "1", "title": "x"}, {"isbn": "1", "printing": null, "title": "y"},
                 {"isbn": "1", "printing": 1.5, "title": "z"}, {"printing": 1, "title": "w"},
                 {"isbn": null, "printing": 1, "title": "v"}, {"isbn": "1", "printing": 2, "title": "ok"}]
                """#
            ], schema: schema, entity: "Book", store: store)
        #expect(outcome.failure == nil)
        #expect(
            try Self.select(store, "SELECT isbn, printing, title FROM Book ORDER BY _id") == [
                "'1' | 1 | 'a'", "'1' | 2 | 'ok'",
            ])
        #expect(outcome.warnings(.missingPrimaryKey).count == 5, "\(outcome.warnings)")
    }

    /// Docs/SchemaFormat.md (date: ISO-8601 with or without zone, a date alone is midnight UTC,
    /// Unix seconds; a date can be a primary key, normalized before comparing): every form of one
    /// instant is one part of one composite key.
    @Test("A date key part given as a date alone, ISO with a zone and Unix seconds is one record")
    func compositeDatePart() async throws {
        let schema = try Self.schema(
            """
            "Event": {"primaryKey": ["source", "at"],
              "attributes": {"source": {"type": "string"}, "at": {"type": "date"}, "n": {"type": "integer"}}}
            """)
        let outcome = try await Self.populate(
            [
                #"""
                [{"source": "s", "at": "2024-01-01", "n": 1},
                 {"source": "s", "at": "2024-01-01T00:00:00Z", "n": 2},
                 {"source": "s", "at": "2024-01-01T01:00:00+01:00", "n": 3},
                 {"source": "s", "at": 1704067200, "n": 4},
                 {"source": "s", "at": "2024-01-01 00:00:00", "n": 5},
                 {"source": "s", "at": 1704067200.5, "n": 6}]
                """#
            ], schema: schema, entity: "Event")
        #expect(outcome.failure == nil)
        #expect(
            try Self.select(outcome.store, "SELECT source, at, n FROM Event ORDER BY _id") == [
                "'s' | '2024-01-01T00:00:00.000000000Z' | 5", "'s' | '2024-01-01T00:00:00.500000000Z' | 6",
            ])
    }

    // MARK: - Relationship keys

    static let venues = """
        "Venue": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
          "relationships": {"groups": {"destination": "Group", "toMany": true, "inverse": "venue"},
                            "counts": {"destination": "Counts", "inverse": "venue"}}},
        "Group": {"primaryKey": "venue", "attributes": {"label": {"type": "string"}, "kind": {"type": "string", "default": "k"}},
          "relationships": {"venue": {"destination": "Venue", "inverse": "groups"}}},
        "Counts": {"primaryKey": "venue", "attributes": {"likes": {"type": "integer"}, "views": {"type": "integer"}},
          "relationships": {"venue": {"destination": "Venue", "inverse": "counts"}}}
        """

    /// Docs/Population.md decision 4: an owner-keyed record nested under its owner twice, with
    /// different children, is one record, its values merged as duplicates are (later values win,
    /// absent ones fill), the last element's values winning in a to-many; whole and streamed.
    @Test(
        "An owner given twice with different owner-keyed children keeps one of each, merged",
        arguments: [
            (
                [#"{"id": 1, "counts": {"likes": 1}}"#, #"{"id": 1, "counts": {"views": 2}}"#],
                ["Counts: 1 | 'Counts' | 1 | 2 | 1"], [String]()
            ),
            (
                [#"{"id": 1, "groups": [{"label": "a", "kind": "t"}, {"label": "b"}]}"#],
                [String](), ["Group: 1 | 'Group' | 'b' | 't' | 1"]
            ),
            (
                [#"{"id": 1, "groups": [{"label": "a", "kind": "t"}]}"#, #"{"id": 1, "groups": [{"kind": "u"}]}"#],
                [String](), ["Group: 1 | 'Group' | 'a' | 'u' | 1"]
            ),
            (
                [
                    #"{"id": 1, "groups": [{"label": "a"}]}"#,
                    #"{"id": "1", "counts": {"likes": 3}, "groups": [{"label": "c"}]}"#,
                ],
                ["Counts: 1 | 'Counts' | 3 | NULL | 1"], ["Group: 1 | 'Group' | 'c' | 'k' | 1"]
            ),
        ])
    func ownerTwiceWithDifferentChildren(elements: [String], counts: [String], groups: [String]) async throws {
        let schema = try Self.schema(Self.venues)
        let whole = try await A.expectSameAtEveryBatchSize(
            A.data(elements), schema: schema, entity: "Venue", sizes: [1, 300])
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows.filter { $0.hasPrefix("Counts:") } == counts, "\(elements)\n\(whole)")
        #expect(whole.rows.filter { $0.hasPrefix("Group:") } == groups, "\(elements)\n\(whole)")
        #expect(whole.rows.filter { $0.hasPrefix("Venue:") }.count == 1, "\(whole)")
    }

    /// Docs/Population.md decision 4: an owner-keyed record "naming the owner itself" is found
    /// through that owner; "5" and 5 are one integer key (decision 3).
    @Test("An owner-keyed record naming its owner by a key of another JSON type updates the same record")
    func ownerKeyedTopLevelByStringKey() async throws {
        let schema = try Self.schema(Self.venues)
        let store = try RecordStore(inMemory: schema)
        _ = try await Self.populate(
            [#"{"data": [{"id": 5, "counts": {"likes": 1, "views": 1}}]}"#], schema: schema, entity: "Venue",
            store: store)
        let outcome = try await Self.populate(
            [#"[{"venue": "5", "likes": 9}, {"venue": 5.0, "views": 8}]"#], schema: schema, entity: "Counts",
            store: store)
        #expect(outcome.failure == nil)
        #expect(try Self.select(store, "SELECT _id, likes, views, venue FROM Counts") == ["1 | 9 | 8 | 1"])
        #expect(try Self.select(store, "SELECT _id, id FROM Venue") == ["1 | 5"])
    }

    // MARK: - Included records

    static let compound = """
        "Article": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "included": [{"keyPath": "included", "key": "type", "map": {"people": "Person", "1": "Tag", "true": "Note"}}],
          "attributes": {"id": {"type": "string"}, "title": {"type": "string"}},
          "relationships": {"author": {"destination": "Person", "key": "author.id", "inverse": "articles"}}},
        "Person": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
          "relationships": {"articles": {"destination": "Article", "toMany": true, "inverse": "author", "merge": "union"}}},
        "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}},
        "Note": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}}
        """

    /// Docs/Population.md ("References resolve across key paths, in either order ... ids given as
    /// numbers in one place and as strings in another are the same key").
    @Test(
        "An included record referenced before or after it appears, by a key of another type, is one record",
        arguments: [
            #"{"data": [{"id": "1", "author": {"id": "9"}}], "included": [{"type": "people", "id": 9, "name": "N"}]}"#,
            #"{"included": [{"type": "people", "id": "9", "name": "N"}], "data": [{"id": "1", "author": {"id": 9}}]}"#,
            #"{"included": [{"type": "people", "id": 9.0, "name": "N"}], "data": [{"id": "1", "author": {"id": "+9"}}]}"#,
        ])
    func includedReferencedEitherOrder(response: String) async throws {
        let schema = try Self.schema(Self.compound)
        let whole = try await A.expectSameAtEveryBatchSize(
            response, schema: schema, entity: "Article", sizes: [1, 300])
        #expect(whole.failure == nil, "\(whole)")
        #expect(
            whole.rows == ["Article: 1 | 'Article' | '1' | NULL | 1", "Person: 1 | 'Person' | 9 | 'N'"],
            "\(response)\n\(whole)")
    }

    /// Docs/SchemaFormat.md (included `key` and `map`: "the value at `key` in each record (its
    /// text, for a number or a boolean) names its entity"; a value not in the map is skipped; a
    /// null there is malformed and skipped with a warning).
    @Test("Included records are typed by the JSON text of a number or boolean, never by a look-alike")
    func includedTypedByNumbersAndBooleans() async throws {
        let schema = try Self.schema(Self.compound)
        let outcome = try await Self.populate(
            [
                #"""
                {"data": [{"id": "a"}],
                 "included": [{"type": 1, "id": "t1"}, {"type": true, "id": "n1"}, {"type": "1", "id": "t2"},
                              {"type": 1.0, "id": "x1"}, {"type": "TRUE", "id": "x2"}, {"type": null, "id": "x3"},
                              {"type": 10, "id": "x4"}]}
                """#
            ], schema: schema, entity: "Article")
        #expect(outcome.failure == nil)
        #expect(try Self.select(outcome.store, "SELECT id FROM Tag ORDER BY _id") == ["'t1'", "'t2'"])
        #expect(try Self.select(outcome.store, "SELECT id FROM Note ORDER BY _id") == ["'n1'"])
        #expect(outcome.warnings(.invalidResponseFormat).count == 1, "\(outcome.warnings)")
    }

    // MARK: - Discriminators

    static let shapes = """
        "Shape": {"primaryKey": "id",
          "subentities": {"key": "kind", "map": {"4": "Quad", "true": "Flag", "circle": "Circle", "poly": "Poly"}},
          "attributes": {"id": {"type": "integer"}, "label": {"type": "string"}}},
        "Quad": {"parent": "Shape", "attributes": {"diag": {"type": "double"}}},
        "Flag": {"parent": "Shape", "attributes": {"wave": {"type": "integer"}}},
        "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double"}}},
        "Poly": {"parent": "Shape", "abstract": true, "subentities": {"key": "sides", "map": {"3": "Tri"}},
          "attributes": {"sides": {"type": "integer"}}},
        "Tri": {"parent": "Poly"}
        """

    /// Docs/SchemaFormat.md, "Choosing a sub-entity": numbers and booleans match by their JSON
    /// text; a missing or null value says nothing; an unmapped value makes the base entity; the
    /// choice continues from the chosen entity, and an abstract one with no concrete match is
    /// skipped (Docs/Population.md, "Abstract entities").
    @Test(
        "Discriminators given as numbers, booleans, null, look-alikes and abstract choices",
        arguments: [
            (#"{"id": 1, "kind": 4}"#, ["1 | 'Quad'"]),
            (#"{"id": 1, "kind": "4"}"#, ["1 | 'Quad'"]),
            (#"{"id": 1, "kind": true}"#, ["1 | 'Flag'"]),
            (#"{"id": 1, "kind": "true"}"#, ["1 | 'Flag'"]),
            (#"{"id": 1, "kind": null}"#, ["1 | 'Shape'"]),
            (#"{"id": 1, "kind": 4.0}"#, ["1 | 'Shape'"]),
            (#"{"id": 1, "kind": "True"}"#, ["1 | 'Shape'"]),
            (#"{"id": 1, "kind": "poly", "sides": 3}"#, ["1 | 'Tri'"]),
            (#"{"id": 1, "kind": "poly", "sides": "3"}"#, ["1 | 'Tri'"]),
            (#"{"id": 1, "kind": "poly"}"#, [String]()),
            (#"{"id": 1, "kind": "poly", "sides": 5}"#, [String]()),
        ])
    func discriminatorValues(record: String, rows: [String]) async throws {
        let schema = try Self.schema(Self.shapes)
        let outcome = try await Self.populate(
            ["[\(record), {\"id\": 2, \"kind\": \"circle\"}]"], schema: schema, entity: "Shape")
        #expect(outcome.failure == nil, "\(record)")
        #expect(
            try Self.select(outcome.store, "SELECT id, _entity FROM Shape ORDER BY id") == rows + ["2 | 'Circle'"],
            "\(record)")
    }

    /// Docs/Population.md ("Abstract entities. A dictionary for which no concrete sub-entity
    /// matches is skipped"; a missing or null discriminator keeps the stored sub-entity): a stored
    /// Quad is never rewritten by a record that resolves to an abstract entity, nor by a null.
    @Test("A stored sub-entity survives a null discriminator and a choice that ends at an abstract entity")
    func storedSubentityAgainstAbstractChoice() async throws {
        let schema = try Self.schema(Self.shapes)
        let store = try RecordStore(inMemory: schema)
        _ = try await Self.populate(
            [#"[{"id": 1, "kind": 4, "label": "q", "diag": 1.5}]"#], schema: schema, entity: "Shape", store: store)
        _ = try await Self.populate(
            [#"[{"id": 1, "kind": null, "label": "r"}]"#], schema: schema, entity: "Shape", store: store)
        #expect(try Self.select(store, "SELECT id, _entity, label, diag FROM Shape") == ["1 | 'Quad' | 'r' | 1.5"])
        let outcome = try await Self.populate(
            [#"[{"id": 1, "kind": "poly", "sides": 9, "label": "s"}, {"id": 2, "kind": "circle"}]"#], schema: schema,
            entity: "Shape", store: store)
        #expect(outcome.failure == nil)
        #expect(
            try Self.select(store, "SELECT id, _entity, label, diag, sides FROM Shape ORDER BY id") == [
                "1 | 'Quad' | 'r' | 1.5 | NULL", "2 | 'Circle' | NULL | NULL | NULL",
            ])
        #expect(outcome.warnings(.invalidEntityDescription).count >= 1, "\(outcome.warnings)")
    }

    // MARK: - Dates

    static let dated = """
        "Item": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "at": {"type": "date"}}}
        """

    /// Docs/SchemaFormat.md, `date`: ISO-8601 first (a date alone is midnight UTC, no zone means
    /// UTC), then Unix seconds for numbers, then the file's `dateFormats`, each only when the text
    /// is exactly what the pattern says; a leap second is refused, through a pattern too.
    @Test(
        "ISO-8601, Unix seconds and date patterns, in the documented order",
        arguments: [
            (#""2024-02-01""#, "'2024-02-01T00:00:00.000000000Z'"),
            (#""2024-13-01""#, "'2024-01-13T00:00:00.000000000Z'"),
            (#""2024-02-30""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""2012-11-21 02:33:42""#, "'2012-11-21T02:33:42.000000000Z'"),
            (#""2012-11-21T02:33:42""#, "'2012-11-21T02:33:42.000000000Z'"),
            (#""2016-12-31T23:59:60Z""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""31/12/2016 23:59:60""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""31/12/2016 23:59:59""#, "'2016-12-31T23:59:59.000000000Z'"),
            ("1704110400.123456", "'2024-01-01T12:00:00.123456000Z'"),
            ("-1", "'1969-12-31T23:59:59.000000000Z'"),
            (#""2024-01-01T12:00:00.1234567890Z""#, "'2024-01-01T12:00:00.123456789Z'"),
            (#""2024-01-01T12:00:00.1234567891Z""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""1704110400""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""2024-01-01T24:00:00Z""#, "'2000-01-01T00:00:00.000000000Z'"),
            (#""0000-01-01T00:00:00Z""#, "'0000-01-01T00:00:00.000000000Z'"),
            (#""10000-01-01T00:00:00Z""#, "'2000-01-01T00:00:00.000000000Z'"),
        ])
    func datesInOrder(value: String, stored: String) async throws {
        let schema = try Self.schema(Self.dated, dateFormats: #"["yyyy-dd-MM", "dd/MM/yyyy HH:mm:ss"]"#)
        let outcome = try await Self.populate(
            [#"[{"id": 1, "at": "2000-01-01T00:00:00Z"}]"#, #"[{"id": 1, "at": \#(value)}]"#], schema: schema,
            entity: "Item")
        #expect(outcome.failure == nil)
        #expect(try Self.select(outcome.store, "SELECT at FROM Item") == [stored], "\(value)")
    }

    // MARK: - Defaults of records created through a to-one

    static let categories = """
        "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}},
          "relationships": {"cat": {"destination": "Cat", "inverse": "items"}}},
        "Cat": {"primaryKey": "id",
          "attributes": {"id": {"type": "string"}, "title": {"type": "string"}, "color": {"type": "string", "default": "red"},
                         "rank": {"type": "integer", "default": 2}},
          "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "cat"}}}
        """

    /// Docs/Population.md ("Defaults ... are applied when a record is created and the response
    /// does not give the attribute, or gives only a value the attribute refuses"): a category the
    /// response creates through a to-one, named by key before or after its data, gets the
    /// defaults its data leaves out, whole and at every batch size.
    @Test(
        "A record created through a to-one gets its defaults, however it is first named",
        arguments: [
            [#"{"id": 1, "cat": {"id": "c", "title": "t"}}"#],
            [#"{"id": 1, "cat": {"id": "c", "title": "t", "rank": "bad"}}"#],
            [#"{"id": 1, "cat": "c"}"#, #"{"id": 2, "cat": {"id": "c", "title": "t"}}"#],
            [#"{"id": 1, "cat": {"id": "c", "title": "t"}}"#, #"{"id": 2, "cat": "c"}"#],
            [#"{"id": 1, "cat": "c"}"#, #"{"id": 2, "cat": {"id": "c", "title": "t", "rank": null}}"#],
        ])
    func defaultsThroughAToOne(elements: [String]) async throws {
        let schema = try Self.schema(Self.categories)
        let whole = try await A.expectSameAtEveryBatchSize(
            A.data(elements), schema: schema, entity: "Item", sizes: [1, 300])
        #expect(whole.failure == nil, "\(whole)")
        let expectedRank = elements.last!.contains(#""rank": null"#) ? "NULL" : "2"
        #expect(
            whole.rows.filter { $0.hasPrefix("Cat:") } == ["Cat: 1 | 'Cat' | 'c' | 't' | 'red' | \(expectedRank)"],
            "\(elements)\n\(whole)")
    }

    // MARK: - Transformers

    static let transformed = """
        "Item": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"},
            "wrong": {"type": "integer", "transformer": "advMWrongType", "default": 4},
            "cleared": {"type": "string", "transformer": "advMNull"},
            "refused": {"type": "integer", "transformer": "advMRefuse", "default": 6},
            "picked": {"type": "string", "key": ["p", "q"], "transformer": "advMTag"}}},
        "Keyed": {"primaryKey": ["code", "n"],
          "attributes": {"code": {"type": "string", "transformer": "advMLower"}, "n": {"type": "integer", "transformer": "advMWrongType"},
            "v": {"type": "string"}}}
        """

    static func registerTransformers() {
        AttributeTransformers.register("advMWrongType") { _ in .string("abc") }
        AttributeTransformers.register("advMNull") { _ in .null }
        AttributeTransformers.register("advMRefuse") { _ in nil }
        AttributeTransformers.register("advMTag") { value in value.stringValue.map { .string("<" + $0 + ">") } }
        AttributeTransformers.register("advMLower") { value in value.stringValue.map { .string($0.lowercased()) } }
    }

    /// Docs/SchemaFormat.md (`transformer`: "It receives the raw JSON value before coercion"; a
    /// value the attribute refuses is a `typeMismatch`, the stored value kept) and
    /// Docs/Population.md (defaults apply to a value "its transformer refuses").
    @Test("A transformer's wrong-typed, null and refused results are treated as the documented values")
    func transformerResults() async throws {
        Self.registerTransformers()
        let schema = try Self.schema(Self.transformed)
        let store = try RecordStore(inMemory: schema)
        let first = try await Self.populate(
            [#"[{"id": 1, "wrong": 1, "cleared": "x", "refused": 1, "q": "b"}]"#], schema: schema,
            entity: "Item", store: store)
        #expect(first.failure == nil)
        #expect(
            try Self.select(store, "SELECT id, wrong, cleared, refused, picked FROM Item") == [
                "1 | 4 | NULL | 6 | '<b>'"
            ])
        #expect(first.warnings(.typeMismatch).count == 2, "\(first.warnings)")
        _ = try await Self.populate(
            [#"[{"id": 1, "p": "a", "q": "b", "wrong": 2}]"#], schema: schema, entity: "Item", store: store)
        #expect(
            try Self.select(store, "SELECT id, wrong, cleared, refused, picked FROM Item") == [
                "1 | 4 | NULL | 6 | '<a>'"
            ])
    }

    /// Docs/Population.md ("a key part the transformer refuses is no key (the record is not
    /// stored, as one without its key)"; a key attribute's transformer applies as records are
    /// matched): a key part whose transformer gives a value the type refuses stores nothing.
    @Test("A composite key part whose transformer yields a wrong type is no key")
    func transformedKeyPartOfTheWrongType() async throws {
        Self.registerTransformers()
        let schema = try Self.schema(Self.transformed)
        let outcome = try await Self.populate(
            [#"[{"code": "A", "n": 1, "v": "x"}, {"code": "a", "n": 2, "v": "y"}]"#], schema: schema, entity: "Keyed")
        #expect(try Self.select(outcome.store, "SELECT code, n, v FROM Keyed") == [])
        #expect(outcome.failure != nil)
    }

    // MARK: - More candidates: relationships, and a date's own pattern

    /// Docs/SchemaFormat.md: a relationship's `key` lists candidate keys "as for attributes"; the
    /// first present wins even when null (a null clears a to-one), and a key path through a
    /// scalar is absent, so the next candidate is read.
    @Test(
        "A relationship's candidate keys: a null first candidate clears, a path through a scalar falls through",
        arguments: [
            (#"{"id": 1, "author": null, "writer": 5}"#, "NULL"),
            (#"{"id": 1, "author": "s", "writer": 5}"#, "2"),
            (#"{"id": 1, "author": {"id": 5}, "writer": 3}"#, "2"),
            (#"{"id": 1, "writer": 5}"#, "2"),
            (#"{"id": 1}"#, "1"),
        ])
    func relationshipCandidates(response: String, linked: String) async throws {
        let schema = try Self.schema(
            """
            "Post": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
              "relationships": {"poster": {"destination": "User", "key": ["author.id", "writer"], "inverse": "posts"}}},
            "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
              "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "poster"}}}
            """)
        let store = try RecordStore(inMemory: schema)
        _ = try await Self.populate(
            [#"[{"id": 1, "writer": 3}]"#], schema: schema, entity: "Post", store: store)
        _ = try await Self.populate([#"[{"id": 5}]"#], schema: schema, entity: "User", store: store)
        let outcome = try await Self.populate(["[\(response)]"], schema: schema, entity: "Post", store: store)
        #expect(outcome.failure == nil)
        #expect(try Self.select(store, "SELECT _id, id FROM User ORDER BY _id") == ["1 | 3", "2 | 5"], "\(response)")
        #expect(try Self.select(store, "SELECT poster FROM Post WHERE id = 1") == [linked], "\(response)")
    }

    /// Docs/SchemaFormat.md (`dateFormat`: "a pattern tried before the file's `dateFormats`").
    @Test("An attribute's own date pattern is tried before the file's")
    func attributePatternFirst() async throws {
        let schema = try Self.schema(
            """
            "Item": {"primaryKey": "id", "attributes": {"id": {"type": "integer"},
              "us": {"type": "date", "dateFormat": "MM/dd/yyyy"}, "eu": {"type": "date"}}}
            """, dateFormats: #"["dd/MM/yyyy"]"#)
        let outcome = try await Self.populate(
            [
                #"[{"id": 1, "us": "01/02/2012", "eu": "01/02/2012"}, {"id": 2, "us": "13/02/2012", "eu": "13/02/2012"}]"#
            ],
            schema: schema, entity: "Item")
        #expect(outcome.failure == nil)
        #expect(
            try Self.select(outcome.store, "SELECT id, us, eu FROM Item ORDER BY id") == [
                "1 | '2012-01-02T00:00:00.000000000Z' | '2012-02-01T00:00:00.000000000Z'",
                "2 | '2012-02-13T00:00:00.000000000Z' | '2012-02-13T00:00:00.000000000Z'",
            ])
    }
}
