import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Hostile responses: each is handled or is a clear error, never a crash, and memory stays
/// bounded. The memory-bound cases run the built `webrecord populate` in a child process and
/// watch its peak resident size, so tests running in parallel in this process do not blur
/// the figure.
@Suite("Reliability: hostile data", .loadsTheMachine)
struct ReliabilityHostileDataTests {
    // MARK: - Wrong types

    /// A field of an App.net post, by its path in the post object, and what it maps to.
    struct Field: Sendable, CustomTestStringConvertible {
        var path: [String]
        var entity: String
        var property: String
        var isAttribute: Bool
        var testDescription: String { path.joined(separator: ".") }
    }

    static let fields: [Field] = [
        Field(path: ["id"], entity: "Post", property: "id", isAttribute: true),
        Field(path: ["created_at"], entity: "Post", property: "date", isAttribute: true),
        Field(path: ["text"], entity: "Post", property: "text", isAttribute: true),
        Field(path: ["thread_id"], entity: "Post", property: "thread_id", isAttribute: true),
        Field(path: ["user"], entity: "Post", property: "user", isAttribute: false),
        Field(path: ["source"], entity: "Post", property: "source", isAttribute: false),
        Field(path: ["source", "client_id"], entity: "Source", property: "clientID", isAttribute: true),
        Field(path: ["source", "link"], entity: "Source", property: "link", isAttribute: true),
        Field(path: ["source", "name"], entity: "Source", property: "name", isAttribute: true),
        Field(path: ["user", "id"], entity: "User", property: "id", isAttribute: true),
        Field(path: ["user", "name"], entity: "User", property: "name", isAttribute: true),
        Field(path: ["user", "avatar_image"], entity: "User", property: "avatarImagePath", isAttribute: true),
        Field(path: ["user", "avatar_image", "url"], entity: "User", property: "avatarImagePath", isAttribute: true),
        Field(path: ["user", "cover_image"], entity: "User", property: "coverImage", isAttribute: false),
        Field(path: ["user", "cover_image", "url"], entity: "CoverImage", property: "url", isAttribute: true),
        Field(path: ["user", "cover_image", "width"], entity: "CoverImage", property: "width", isAttribute: true),
        Field(path: ["user", "cover_image", "height"], entity: "CoverImage", property: "height", isAttribute: true),
        Field(path: ["user", "counts"], entity: "User", property: "counts", isAttribute: false),
        Field(path: ["user", "counts", "followers"], entity: "Counts", property: "followers", isAttribute: true),
        Field(path: ["user", "counts", "following"], entity: "Counts", property: "following", isAttribute: true),
        Field(path: ["user", "counts", "posts"], entity: "Counts", property: "posts", isAttribute: true),
        Field(path: ["user", "counts", "stars"], entity: "Counts", property: "stars", isAttribute: true),
    ]

    /// Values of every JSON type, and the awkward ones of each.
    static let wrongValues: [(name: String, value: JSONValue)] = [
        ("object", ["nested": true, "id": "x"]),
        ("empty object", [:]),
        ("array", [1, "two", ["three": 3]]),
        ("empty array", []),
        ("true", true),
        ("false", false),
        ("double", 12.5),
        ("huge double", 1e308),
        ("min integer", .integer(Int64.min)),
        ("negative", -1),
        ("non-numeric string", "twelve"),
        ("empty string", ""),
        ("null", .null),
    ]

    static let wrongTypeCases: [(Field, String)] = fields.flatMap { field in wrongValues.map { (field, $0.name) } }

    /// Whether `value` in `field` leaves the response's one post without a usable primary key:
    /// a container or null as the post's `id`. The response is then no list of posts, and its
    /// population fails with nothing written; every other wrong value is handled.
    static func losesThePost(_ field: Field, _ value: JSONValue) -> Bool {
        guard field.path == ["id"] else { return false }
        switch value {
        case .object, .array, .null: return true
        default: return false
        }
    }

    /// A well-formed post, with everything the App.net schema maps.
    static func samplePost() -> JSONObject {
        guard case .object(let post) = AppNetResponses.post(id: 1, userID: 7, text: "hello") else {
            return JSONObject()
        }
        return post
    }

    static func replacing(_ path: ArraySlice<String>, in object: JSONObject, with value: JSONValue) -> JSONObject {
        var object = object
        guard let key = path.first else { return object }
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = .object(
                replacing(path.dropFirst(), in: object[key]?.objectValue ?? JSONObject(), with: value))
        }
        return object
    }

    @Test(
        "A wrong type in any field of an App.net post is handled, or a clear error where the post loses its key",
        arguments: wrongTypeCases)
    func wrongTypeInAField(field: Field, valueName: String) throws {
        let value = try #require(Self.wrongValues.first { $0.name == valueName }?.value)
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let post = Self.replacing(field.path[...], in: Self.samplePost(), with: value)
        let response: JSONValue = ["data": [.object(post)]]

        let before = try Reliability.dump(store)
        let refused = Self.losesThePost(field, value)
        do {
            let result = try store.populate(response, entity: "Post")
            #expect(!refused, "a post without a usable primary key was populated: \(result.debugger)")
            // Handled: every error met is a non-fatal warning, and the store is sound.
            #expect(result.debugger.errors.allSatisfy { !$0.isFatal }, "\(result.debugger)")
            #expect(result.records.count == 1)
            for warning in result.debugger.warnings where warning.code == .typeMismatch {
                #expect(warning.entity != nil && warning.property != nil, "a typeMismatch names where: \(warning)")
            }
            let unusable: Bool
            switch value {
            case .object, .array: unusable = field.isAttribute && field.path.last != "avatar_image"
            default: unusable = false
            }
            if unusable {
                // A container where a scalar attribute belongs is refused and named.
                #expect(
                    result.debugger.warnings.contains {
                        $0.code == .typeMismatch && $0.entity == field.entity && $0.property == field.property
                    }, "expected a typeMismatch for \(field.entity).\(field.property): \(result.debugger)")
            }
        } catch {
            // A clear error: a WebRecord code and a message, and the store as it was.
            #expect(refused, "a wrong value that could be handled failed the population: \(error)")
            #expect(!error.message.isEmpty)
            #expect(error.code == .invalidResponseFormat, "\(error)")
            #expect(try Reliability.dump(store) == before)
        }
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    @Test("Wrong types never overwrite good stored values")
    func wrongTypesKeepStoredValues() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        _ = try store.populate(["data": [.object(Self.samplePost())]], entity: "Post")
        let good = try Reliability.export(store)

        var post = Self.samplePost()
        post["text"] = ["not": "text"]
        post["created_at"] = "not a date"
        post = Self.replacing(["user", "counts", "followers"], in: post, with: "many")
        post = Self.replacing(["user", "cover_image", "width"], in: post, with: [1, 2])
        let result = try store.populate(["data": [.object(post)]], entity: "Post")
        let mismatches = result.debugger.warnings.filter { $0.code == .typeMismatch }.compactMap { warning in
            warning.entity.map { entity in "\(entity).\(warning.property ?? "")" }
        }
        #expect(Set(mismatches).isSuperset(of: ["Post.text", "Post.date", "Counts.followers", "CoverImage.width"]))
        #expect(try Reliability.export(store) == good)
    }

    // MARK: - Big strings and keys

    @Test("A 10 MB string is stored and read back whole")
    func tenMegabyteStrings() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let unit = "0123456789abcdéf日本😀"  // 29 UTF-8 bytes
        let text = String(repeating: unit, count: 10 * 1024 * 1024 / unit.utf8.count + 1)
        #expect(text.utf8.count >= 10 * 1024 * 1024)
        var post = Self.samplePost()
        post["text"] = .string(text)
        post = Self.replacing(["user", "name"], in: post, with: .string(text))
        let bytes = AppNetResponses.bytes(["data": [.object(post)]])
        let response = try JSONReader().read(bytes)

        let result = try store.populate(response, entity: "Post")
        #expect(result.records.first?["text"] as String? == text)
        #expect(try store.fetchOne("User", primaryKey: "7")?["name"] as String? == text)
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    @Test("A 1 MB key is ignored when unknown, and a 1 MB primary-key value is stored and found")
    func megabyteKeys() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let longKey = String(repeating: "k", count: 1024 * 1024)
        let longID = String(repeating: "9", count: 1024 * 1024)
        let text =
            "{\"data\": [{\"id\": \"1\", \"\(longKey)\": \"ignored\", \"text\": \"kept\"}, {\"id\": \"\(longID)\", \"text\": \"long id\"}]}"
        let response = try JSONReader().read(text)
        #expect(response.value(atKeyPath: "data")?[0]?[longKey] == "ignored")

        let result = try store.populate(response, entity: "Post")
        #expect(result.records.count == 2)
        #expect(try store.fetchOne("Post", primaryKey: "1")?["text"] as String? == "kept")
        #expect(try store.fetchOne("Post", primaryKey: .string(longID))?["text"] as String? == "long id")
        // Populating again matches the long key rather than duplicating it.
        let again = try store.populate(response, entity: "Post")
        #expect(again.changes.inserted == 0)
        #expect(try store.count("Post") == 2)
    }

    // MARK: - Nesting

    @Test(
        "JSON nested past the reader's limit is rejected with its position, however deep",
        arguments: [513, 10_000, 1_000_000])
    func jsonNestingPastTheLimit(depth: Int) throws {
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        do {
            let value = try JSONReader().read(text)
            Issue.record("depth \(depth) accepted: \(value.typeName)")
        } catch {
            #expect(error.jsonSyntax == .tooDeep)
            #expect(error.line == 1 && error.column == JSONReader.defaultMaximumDepth + 1)
            #expect(error.message.contains("512"))
        }
        let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(throws: WebRecordError.self) { try JSONReader().read(objects) }
    }

    @Test("JSON nested to the reader's limit is read and populated without overflowing the stack")
    func jsonNestingAtTheLimit() throws {
        let depth = JSONReader.defaultMaximumDepth - 3
        let deep = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        let response = try JSONReader().read("{\"data\": [{\"id\": \"1\", \"text\": \(deep), \"extra\": \(deep)}]}")
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let result = try store.populate(response, entity: "Post")
        #expect(result.records.count == 1)
        #expect(result.debugger.warnings.contains { $0.code == .typeMismatch && $0.property == "text" })
    }

    /// Post → user → posts → user → ... with a new key at every level: deeper than the record
    /// depth limit (64), a fatal `invalidResponseFormat`, and nothing is stored.
    @Test("Records nested past the record depth limit are a fatal invalidResponseFormat")
    func recordNestingPastTheLimit() throws {
        var value: JSONValue = ["id": "p-last"]
        for level in 0..<70 {
            value =
                level % 2 == 0
                ? ["id": .string("u\(level)"), "posts": [value]] : ["id": .string("p\(level)"), "user": value]
        }
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        _ = try store.populate(AppNetResponses.response(posts: 3, seed: 11), entity: "Post")
        let before = try Reliability.dump(store)
        do {
            _ = try store.populate(["data": [value]], entity: "Post")
            Issue.record("70 levels of records were accepted")
        } catch {
            #expect(error.code == .invalidResponseFormat)
            #expect(error.isFatal)
            #expect(error.message.contains("64"), "the message should give the limit: \(error.message)")
        }
        #expect(try Reliability.dump(store) == before)

        // Within the limit the same shape populates.
        var shallow: JSONValue = ["id": "p-last"]
        for level in 0..<20 {
            shallow =
                level % 2 == 0
                ? ["id": .string("u\(level)"), "posts": [shallow]] : ["id": .string("p\(level)"), "user": shallow]
        }
        let result = try store.populate(["data": [shallow]], entity: "Post")
        #expect(result.records.count == 1)
    }

    /// The depth error names where the walk stopped: the relationship that leads one level too
    /// deep, with the entity that has it (`User.posts`), not the destination entity with the
    /// source's relationship name (`Post.posts`, a property Post does not have).
    @Test("The record depth error names the entity and relationship that lead too deep")
    func recordDepthErrorNamesItsPlace() throws {
        var value: JSONValue = ["id": "p-last"]
        for level in 0..<70 {
            value =
                level % 2 == 0
                ? ["id": .string("u\(level)"), "posts": [value]] : ["id": .string("p\(level)"), "user": value]
        }
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        do {
            _ = try store.populate(["data": [value]], entity: "Post")
            Issue.record("70 levels of records were accepted")
        } catch {
            let entity = try #require(error.entity.flatMap { store.schema.entity(named: $0) })
            let property = try #require(error.property)
            #expect(entity.relationship(named: property) != nil, "\(entity.name) has no relationship '\(property)'")
        }
    }

    // MARK: - Duplicate keys

    @Test("Duplicate keys in one object: the last one wins, end to end")
    func duplicateKeysLastWins() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let text = """
            {"data": [{"id": "1", "text": "first", "user": {"id": "7", "name": "first"}, "text": "second",
                       "user": {"id": "8", "name": "second"}}],
             "data": [{"id": "2", "text": "the first data is ignored", "text": "last data"}]}
            """
        let response = try JSONReader().read(text)
        #expect(response["data"]?.arrayValue?.count == 1)
        let result = try store.populate(response, entity: "Post")
        #expect(result.records.map { $0["id"] as String? } == ["2"])
        #expect(try store.fetchOne("Post", primaryKey: "2")?["text"] as String? == "last data")
        #expect(try store.count("Post") == 1)

        let second = try JSONReader().read(
            #"[{"id": "1", "text": "first", "user": {"id": "7"}, "text": "second", "user": {"id": "8", "name": "eight"}}]"#
        )
        _ = try store.populate(second, entity: "Post")
        let exported = try store.exportJSON(entity: "Post").arrayValue ?? []
        let post = try #require(exported.first { $0["id"] == "1" })
        #expect(post["text"] == "second")
        #expect(post["user"] == "8")
        #expect(try store.fetchOne("User", primaryKey: "7") == nil)
    }

    // MARK: - NaN, Infinity, invalid UTF-8

    static let rejectedTexts: [(name: String, bytes: [UInt8], kind: WebRecordError.JSONSyntax, column: Int)] = [
        ("NaN", Array(#"{"data": [{"id": "1", "text": NaN}]}"#.utf8), .unexpectedCharacter, 31),
        ("Infinity", Array(#"{"data": [{"id": "1", "text": Infinity}]}"#.utf8), .unexpectedCharacter, 31),
        ("-Infinity", Array(#"{"data": [{"id": "1", "text": -Infinity}]}"#.utf8), .invalidNumber, 31),
        // 'n' starts `null`: the error is at the 'a' that is not `null`'s 'u'.
        ("nan", Array(#"{"data": [{"id": "1", "text": nan}]}"#.utf8), .unexpectedCharacter, 32),
        // (`1e999` is read, as `.number("1e999")`: population refuses it where it cannot be
        // stored; see HostileInputByClassTests.numberBeyondDoubleRange.)
        (
            "0xFF in a string", Array(#"{"data": [{"id": "1", "text": "a"#.utf8) + [0xFF] + Array(#""}]}"#.utf8),
            .invalidUTF8, 33
        ),
        (
            "overlong slash", Array(#"{"data": [{"id": "1", "text": ""#.utf8) + [0xC0, 0xAF] + Array(#""}]}"#.utf8),
            .invalidUTF8, 32
        ),
        (
            "UTF-8 surrogate",
            Array(#"{"data": [{"id": "1", "text": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}]}"#.utf8), .invalidUTF8,
            32
        ),
        (
            "truncated sequence",
            Array(#"{"data": [{"id": "1", "text": ""#.utf8) + [0xE6, 0x97] + Array(#""}]}"#.utf8), .invalidUTF8, 32
        ),
        ("lone surrogate escape", Array(#"{"data": [{"id": "1", "text": "\ud800"}]}"#.utf8), .invalidUnicodeEscape, 32),
        (
            "invalid UTF-8 in a key", Array(#"{"data": [{"id": "1", ""#.utf8) + [0x80] + Array(#"": 1}]}"#.utf8),
            .invalidUTF8, 24
        ),
    ]

    @Test(
        "NaN, Infinity and invalid UTF-8 are rejected by the reader with line and column",
        arguments: rejectedTexts.map(\.name))
    func rejectedByTheReader(name: String) throws {
        let entry = try #require(Self.rejectedTexts.first { $0.name == name })
        do {
            let value = try JSONReader().read(entry.bytes)
            Issue.record("\(name) was accepted: \(value)")
        } catch {
            #expect(error.jsonSyntax == entry.kind, "\(error.message)")
            #expect(error.line == 1)
            #expect(error.column == entry.column, "\(error.message)")
            #expect(error.description.contains("line 1, column \(entry.column): "))
        }
    }

    @Test("webrecord populate refuses NaN and invalid UTF-8 with the position, and the store is unchanged")
    func rejectedByTheCommandLine() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let db = directory.path("store.sqlite")
        do {
            let store = try RecordStore(path: db, schema: Reliability.appNetSchema())
            _ = try await store.populate(AppNetResponses.response(posts: 5, seed: 12), entity: "Post")
        }
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: db))
        for entry in Self.rejectedTexts where ["NaN", "0xFF in a string"].contains(entry.name) {
            let source = try directory.write("bad.json", Data(entry.bytes))
            let result = try await ChildProcess.run(
                webrecord,
                ["populate", "--schema", Reliability.appNetSchemaURL.path, "--db", db, "--entity", "Post", source])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("line 1, column \(entry.column)"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == fileBefore)
        }
    }

    // MARK: - Cycles

    @Test("Records that reference each other in a cycle by primary key populate once, without looping")
    func cyclesByPrimaryKey() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let response = try JSONReader().read(
            """
            {"data": [
              {"id": "1", "text": "one", "user": {"id": "7", "posts": ["1", {"id": "2", "user": "7"}],
                                                   "counts": {"followers": 3, "user": {"id": "7", "counts": {"user": "7"}}}}},
              {"id": "2", "text": "two", "user": {"id": "7", "posts": [{"id": "1", "user": {"id": "7"}}]},
               "source": {"name": "Alpha", "post": {"id": "2", "source": {"post": "2"}}}}
            ]}
            """)
        let result = try store.populate(response, entity: "Post")
        #expect(result.records.map { $0["id"] as String? } == ["1", "2"])
        #expect(try store.count("Post") == 2)
        #expect(try store.count("User") == 1)
        #expect(try store.count("Counts") == 1)
        #expect(try store.count("Source") == 1)
        let users = try store.exportJSON(entity: "User").arrayValue ?? []
        #expect(users.first?["posts"] == ["1", "2"])
        let posts = try store.exportJSON(entity: "Post").arrayValue ?? []
        #expect(posts.map { $0["user"] } == ["7", "7"])
        #expect(try Reliability.integrity(store) == ["ok"])
        // Again: nothing new.
        #expect(try store.populate(response, entity: "Post").changes.inserted == 0)
    }

    // MARK: - A to-one given a huge array

    @Test("A to-one given a 100,000-element array relates the first and stores every element")
    func toOneGivenAHugeArray() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let users: [JSONValue] = (0..<100_000).map { ["id": .string("u\($0)"), "name": .string("user \($0)")] }
        let response: JSONValue = ["data": [["id": "1", "text": "one", "user": .array(users)]]]
        let result = try store.populate(response, entity: "Post")
        #expect(result.records.count == 1)
        #expect(try store.count("User") == 100_000)
        let post = try #require(try store.exportJSON(entity: "Post").arrayValue?.first)
        #expect(post["user"] == "u0")
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    // MARK: - Memory, in a child process

    /// A hostile response file and the most the populating process may hold in memory.
    struct MemoryCase: Sendable, CustomTestStringConvertible {
        var name: String
        var megabytesAllowed: Int
        var make: @Sendable () -> Data
        var testDescription: String { name }
    }

    static let memoryCases: [MemoryCase] = [
        MemoryCase(name: "10 MB strings in every string field", megabytesAllowed: 300) {
            let text = String(repeating: "x", count: 10 * 1024 * 1024)
            var post = samplePost()
            for path in [["text"], ["thread_id"], ["user", "name"], ["source", "name"], ["source", "link"]] {
                post = replacing(path[...], in: post, with: .string(text))
            }
            return AppNetResponses.bytes(["data": [.object(post)]])
        },
        MemoryCase(name: "1 MB keys, 20 of them", megabytesAllowed: 200) {
            var post = samplePost()
            for index in 0..<20 {
                post[String(repeating: Character(UnicodeScalar(UInt8(97 + index))), count: 1024 * 1024)] = .integer(
                    Int64(index))
            }
            return AppNetResponses.bytes(["data": [.object(post)]])
        },
        MemoryCase(name: "a to-one given 100,000 users", megabytesAllowed: 300) {
            let users: [JSONValue] = (0..<100_000).map { ["id": .string("u\($0)"), "name": "n"] }
            return AppNetResponses.bytes(["data": [["id": "1", "user": .array(users)]]])
        },
    ]

    /// One process populating 30 different responses in turn must not keep what each population
    /// built (proto-records, rows, the response): its peak resident size may grow by the store's
    /// caches, not by a share of every response.
    @Test(
        "Memory stays flat across many populations in one process",
        .enabled(if: !Reliability.isSanitized, "sanitizers change memory use"))
    func memoryIsFlatAcrossPopulations() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        var sources: [String] = []
        for index in 0..<30 {
            let response = AppNetResponses.response(posts: 2_000, firstID: 1 + index * 2_000, seed: UInt64(100 + index))
            sources.append(try directory.write("r\(index).json", AppNetResponses.bytes(response)))
        }
        func peak(_ sources: [String], db: String) async throws -> Int {
            let child = try ChildProcess.Running(
                webrecord,
                [
                    "populate", "--schema", Reliability.appNetSchemaURL.path, "--db", directory.path(db), "--entity",
                    "Post", "--quiet",
                ]
                    + sources)
            let peak = await child.peakResidentBytes(timeout: 600)
            let result = try await child.wait()
            #expect(result.status == 0, "\(result)")
            return (peak ?? 0) / (1024 * 1024)
        }
        let one = try await peak([sources[0]], db: "one.sqlite")
        let thirty = try await peak(sources, db: "thirty.sqlite")
        #expect(one > 0)
        #expect(
            thirty - one <= 40, "peak resident size grew from \(one) MB (1 response) to \(thirty) MB (30 responses)")
        print(
            "[reliability] 30 populations of 2,000 posts in one process: peak \(one) MB after 1, \(thirty) MB after 30")
    }

    @Test(
        "Memory stays bounded on hostile responses (peak resident size of webrecord populate)",
        .enabled(if: !Reliability.isSanitized, "sanitizers change memory use"), arguments: memoryCases)
    func memoryIsBounded(_ memoryCase: MemoryCase) async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let source = try directory.write("hostile.json", memoryCase.make())
        let db = directory.path("store.sqlite")
        let child = try ChildProcess.Running(
            webrecord,
            ["populate", "--schema", Reliability.appNetSchemaURL.path, "--db", db, "--entity", "Post", source])
        let peak = await child.peakResidentBytes(timeout: 600)
        let result = try await child.wait()
        #expect(result.status == 0, "\(result)")
        let megabytes = (peak ?? 0) / (1024 * 1024)
        #expect(peak != nil, "the child's memory could not be read")
        #expect(megabytes <= memoryCase.megabytesAllowed, "\(memoryCase.name): peak \(megabytes) MB")
        print(
            "[reliability] \(memoryCase.name): input \(try Data(contentsOf: URL(fileURLWithPath: source)).count / 1024) KB, peak resident \(megabytes) MB"
        )
    }
}
