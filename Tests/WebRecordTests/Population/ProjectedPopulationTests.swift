import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A streamed population builds only the members its schema reads (``KeyProjection``), and
/// every member when a hook sees a record's dictionary.
@Suite("Population: projected records")
struct ProjectedPopulationTests {
    static let schema = try! Schema(
        json: #"""
            {"entities": {
              "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
                "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
                  "extra": {"type": "string", "key": "meta.extra"}, "payload": {"type": "json"}},
                "relationships": {"author": {"destination": "User", "inverse": "posts"}},
                "subentities": {"key": "kind", "map": {"long": "LongPost"}}},
              "LongPost": {"parent": "Post", "attributes": {"words": {"type": "integer"}}},
              "User": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
                "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "author"}}}
            }}
            """#)

    /// Posts with as many members no mapping reads as members it does: strings, numbers,
    /// nested objects and arrays, a key with an escape, and a payload stored whole.
    static let response = #"""
        {"data": [
          {"id": 1, "title": "one", "html": "<p>one</p>", "stats": {"n": [1, 2, {"deep": true}]}, "kind": "long",
           "words": 3, "meta": {"extra": "x", "ignored": [null]}, "payload": {"a": [1, {"b": "c"}]},
           "author": {"id": "u1", "name": "Ann", "url": "https://example.com/u1", "avatar": {"url": "a.png"}}},
          {"id": 2, "ti\u0074le": "two", "a\u0062c": 1.5e3, "author": {"id": "u1", "name": "Ann", "url": "https://example.com/u1"}},
          {"id": 3, "title": null, "junk": "\ud83d\ude00", "author": {"id": "u2", "name": "Bo", "extra": {"x": 1}}}
        ], "paging": {"next": null}}
        """#

    @Test("Streamed in any batch size, a projected response leaves the rows the whole response leaves")
    func sameRowsAsWhole() async throws {
        let whole = try await PopulatedStore.populating(
            Self.response, after: "[]", schema: Self.schema, entity: "Post", batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.rows.contains { $0.contains(#"{"a":[1,{"b":"c"}]}"#) }, "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await PopulatedStore.populating(
                Self.response, after: "[]", schema: Self.schema, entity: "Post", batchBytes: batchBytes)
            #expect(streamed == whole, "\(batchBytes)")
        }
    }

    @Test("The streamed records hold only the members the schema reads")
    func projectionIsUsed() async throws {
        let store = try RecordStore(inMemory: Self.schema)
        let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
        let projection = try #require(population.keyProjection())
        let reader = JSONStreamReader(data: Data(Self.response.utf8), keyPath: "data")
        reader.project(onto: projection)
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        let first = try #require(try reader.nextBatch()?.first?.objectValue)
        #expect(first.keys == ["id", "title", "kind", "words", "meta", "payload", "author"])
        #expect(first["meta"] == ["extra": "x"])
        #expect(first["payload"] == ["a": [1, ["b": "c"]]])
        #expect(first["author"] == ["id": "u1", "name": "Ann"])
    }

    /// A pre-population hook, a primary-key injection and a record class that may choose
    /// sub-entities each see every member.
    @Test("A hook that sees a record's dictionary sees it whole", arguments: 0..<3)
    func hooksSeeWholeDictionaries(_ hook: Int) async throws {
        let seen = SeenKeys()
        var options = PopulationOptions()
        let store = try RecordStore(inMemory: Self.schema)
        switch hook {
        case 0:
            options.prePopulation = { _, dictionary in seen.add(dictionary.keys) }
        case 1:
            options.primaryKeyInjection = { _, dictionary, _ in
                seen.add(dictionary.keys)
                return dictionary["ref"]
            }
        default:
            store.register(recordClass: ChoosingPost.self, forEntity: "Post")
        }
        let population = ResponsePopulation(store: try #require(store.sqlite), options: options)
        #expect(population.keyProjection() == nil)
        // A record without its key, which only a member no mapping reads gives.
        let text = Self.response.replacingOccurrences(
            of: #"{"data": ["#, with: #"{"data": [{"ref": 9, "title": "nine"},"#)
        _ = try await population.populate(
            streaming: readingOnce(Data(text.utf8), batchByteLimit: 40), entity: "Post", reopens: false)
        if hook == 0 {
            #expect(seen.keys.isSuperset(of: ["html", "stats", "url", "avatar", "ref"]), "\(seen.keys)")
        } else if hook == 1 {
            #expect(seen.keys.contains("ref"), "\(seen.keys)")
            #expect(try store.fetch("Post").contains { $0["id"] as Int? == 9 })
        } else {
            let long = try store.fetch("LongPost").compactMap { $0["id"] as Int? }
            #expect(long.sorted() == [1, 3])
        }
        #expect(try store.fetch("Post").count == (hook == 1 ? 4 : 3))
    }

    final class ChoosingPost: Record {
        override class func subentityName(for dictionary: JSONObject, of entity: Entity) -> String? {
            // Post 3 says nothing of its kind but in a member no mapping reads.
            dictionary["junk"] == nil ? nil : "LongPost"
        }
    }

    final class SeenKeys: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: Set<String> = []
        func add(_ keys: some Sequence<String>) { lock.withLock { seen.formUnion(keys) } }
        var keys: Set<String> { lock.withLock { seen } }
    }
}
