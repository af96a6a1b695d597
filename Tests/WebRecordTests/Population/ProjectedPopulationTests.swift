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
                  "extra": {"type": "string", "key": "meta.extra"}, "payload": {"type": "json"},
                  "firstTag": {"type": "json", "key": "tags.0"}, "cell": {"type": "json", "key": "grid.1.0"}},
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
           "tags": [{"name": "a", "color": "red"}, {"name": "b"}], "grid": [[1], [{"x": 2}, 3]],
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
        // An attribute whose key path ends in an array index stores the element whole.
        #expect(whole.rows.contains { $0.contains(#"{"color":"red","name":"a"}"#) }, "\(whole)")
        #expect(whole.rows.contains { $0.contains(#"{"x":2}"#) }, "\(whole)")
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
        #expect(first.keys == ["id", "title", "kind", "words", "meta", "payload", "tags", "grid", "author"])
        #expect(first["tags"] == [["name": "a", "color": "red"], ["name": "b"]])
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

    /// A failure that quotes a record quotes it as the response gives it: the response is read
    /// again with every member. From a stream that cannot be read again, it quotes the members
    /// the schema reads.
    @Test("A failure that quotes a record quotes every member of it, when the response can be read again")
    func failuresQuoteWholeRecords() async throws {
        let text = #"{"data": [{"message": "Bad credentials", "documentation_url": "https://example.com/docs"}]}"#
        for reopens in [true, false] {
            let store = try RecordStore(inMemory: Self.schema)
            let population = ResponsePopulation(store: try #require(store.sqlite))
            let debugger = Debugger(initialEntity: "Post")
            let data = Data(text.utf8)
            let error = await #expect(throws: WebRecordError.self) {
                _ = try await population.populate(
                    streaming: reopens
                        ? { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: 16) }
                        : readingOnce(data, batchByteLimit: 16),
                    entity: "Post", debugger: debugger, reopens: reopens)
            }
            let message = try #require(error?.message)
            #expect(message.contains("none of the 1 top-level record could be identified"), "\(message)")
            if reopens {
                #expect(message.contains(#"{"message":"Bad credentials""#), "\(message)")
                #expect(error?.value?["documentation_url"] == "https://example.com/docs")
            } else {
                #expect(message.contains("(the first at 'data.0': {})"), "\(message)")
            }
            // The first reading's errors are not the response's.
            #expect(debugger.errors.filter { $0.message == message }.count == 1, "\(debugger.errors)")
            #expect(try store.fetch("Post").isEmpty)
        }
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

/// The errors of a streamed population, in the order of its response.
@Suite("Population: a stream's errors in order")
struct StreamedErrorOrderTests {
    /// A streamed batch is built while the one before is written: what building it records
    /// (a record without its key) still comes after what writing the batch before recorded (a
    /// value of the wrong type), in the response's order, whatever the threads' timing.
    @Test("A stream's warnings come in the response's order")
    func warningsComeInOrder() async throws {
        // Even elements lack their key (the builder warns), odd ones give a title of the wrong
        // type (the marshaler warns, as the batch is written).
        let elements = (0..<24).map { index in
            index % 2 == 0 ? #"{"title": "no id \#(index)"}"# : #"{"id": \#(index), "title": [\#(index)]}"#
        }
        let data = Data(#"{"data": [\#(elements.joined(separator: ", "))]}"#.utf8)
        for _ in 0..<5 {
            let store = try RecordStore(inMemory: ProjectedPopulationTests.schema)
            let debugger = Debugger(initialEntity: "Post")
            _ = try await ResponsePopulation(store: try #require(store.sqlite)).populate(
                streaming: { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: 1) }, entity: "Post",
                debugger: debugger)
            let order = debugger.warnings.compactMap { warning -> Int? in
                switch warning.value {
                case .object(let object)?: object["title"]?.stringValue.flatMap { Int($0.dropFirst(6)) }
                case .array(let array)?: array.first?.int64Value.map(Int.init)
                default: nil
                }
            }
            #expect(order == Array(0..<24), "\(debugger.warnings.map(\.message))")
        }
    }
}
