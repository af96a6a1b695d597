import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Nested objects whose text repeats are parsed once and shared: the values, the errors and the
/// depth limit must be exactly those of a parser that parses every object.
@Suite("JSON: repeated objects")
struct JSONRepeatTests {
    /// What a parser makes of `bytes`: the value, or the failure's kind and offset.
    enum Outcome: Equatable {
        case value(JSONValue)
        case failure(WebRecordError.JSONSyntax, Int)
    }

    static func parse(_ bytes: [UInt8], maximumDepth: Int = 512, sharing: Bool) -> Outcome {
        bytes.withUnsafeBufferPointer { buffer -> Outcome in
            guard let base = buffer.baseAddress else { return .failure(.emptyInput, 0) }
            var parser = JSONParser(base, count: buffer.count, maximumDepth: maximumDepth)
            if !sharing { parser.repeats = nil }
            do throws(JSONParseFailure) {
                return .value(try parser.parseDocument())
            } catch {
                return .failure(error.kind, error.offset)
            }
        }
    }

    /// The address of an object's value storage, to tell a shared object from an equal copy.
    static func storageAddress(_ value: JSONValue?) -> UnsafeRawPointer? {
        guard case .object(let object) = value else { return nil }
        return object.storage.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// Users as an API repeats them on every post: strings that hold brackets, quotes and
    /// escapes, nested objects and arrays.
    static let users: [String] = [
        #"{"id":"1","name":"a } b","tags":["{","[",{"k":"\"}"}],"counts":{"posts":3,"followers":10}}"#,
        #"{"id":"2","name":"q\\","bio":"line\nbreak \u00e9","counts":{"posts":3,"followers":10}}"#,
        #"{"id":"3","name":"é 𝄞","nested":{"a":{"b":{"c":[1,2.5e3,-0,true,null]}}},"counts":{}}"#,
        #"{"id":"4","name":"short","counts":{"posts":3,"followers":10}}"#,
    ]

    static func posts(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let elements = (0..<count).map { index in
            let user = users[Int(random.next() % UInt64(users.count))]
            let spacing = random.next() % 5 == 0 ? " " : ""
            return
                #"{"id":\#(index),"user":\#(spacing)\#(user),"source":{"name":"client","link":"https://example.com/"}}"#
        }
        return Array(("{\"data\":[" + elements.joined(separator: ",") + "]}").utf8)
    }

    @Test("Objects repeated byte for byte are shared, and read as an unshared parse reads them")
    func sharedAndEqual() throws {
        let bytes = Self.posts(400, seed: 3)
        let shared = Self.parse(bytes, sharing: true)
        #expect(shared == Self.parse(bytes, sharing: false))
        guard case .value(let document) = shared, let posts = document["data"]?.arrayValue else {
            Issue.record("not read: \(shared)")
            return
        }
        #expect(posts.count == 400)
        var byUser: [String: UnsafeRawPointer] = [:]
        var sharedCount = 0
        for post in posts {
            guard let id = post["user"]?["id"]?.stringValue, let address = Self.storageAddress(post["user"]) else {
                Issue.record("post without a user: \(post)")
                continue
            }
            if let first = byUser[id] {
                if first == address { sharedCount += 1 }
            } else {
                byUser[id] = address
            }
        }
        #expect(byUser.count == Self.users.count)
        // Every repeat of a user is the first occurrence's storage.
        #expect(sharedCount == posts.count - Self.users.count)
    }

    @Test("A repeated object is not shared where it would pass the depth limit: the limit's error is kept")
    func depthLimit() {
        let inner = #"{"o":{"p":{"q":[1,2,3,4,5,6,7,8,9,10]}}}"#
        let text = #"[{"x":\#(inner)},[[[\#(inner)]]]]"#
        let bytes = Array(text.utf8)
        // Depth 4 for the first occurrence plus 2 around it; 4 plus 4 around the second.
        for limit in 5...9 {
            let shared = Self.parse(bytes, maximumDepth: limit, sharing: true)
            #expect(shared == Self.parse(bytes, maximumDepth: limit, sharing: false), "limit \(limit)")
            if limit < 8 {
                guard case .failure(.tooDeep, _) = shared else {
                    Issue.record("limit \(limit): \(shared)")
                    continue
                }
            }
        }
    }

    @Test("Text that only starts like an earlier object is parsed, with its own errors")
    func nearRepeats() {
        let user = #"{"id":"1","name":"a name that is long enough","n":[1,2]}"#
        let variants = [
            #"{"id":"1","name":"a name that is long enough","n":[1,2]"#,  // unterminated
            #"{"id":"1","name":"a name that is long enough","n":[1,2}}"#,  // wrong bracket
            #"{"id":"1","name":"a name that is long enough","n":[1,2]} "#,  // same, then space
            #"{"id":"1","name":"a name that is long enough","n":[1,3]}"#,  // one byte differs
            #"{"id":"1","name":"a name that is long enough\"}","n":[1,2]}"#,  // brace in a string
            #"{"id":"1","name":"a name that is long enough","n":[1,2]}}"#,  // an extra brace
        ]
        for variant in variants {
            for text in [#"[{"u":\#(user)},{"u":\#(variant)}]"#, #"{"a":{"u":\#(user)},"b":{"u":\#(variant)}}"#] {
                let bytes = Array(text.utf8)
                #expect(Self.parse(bytes, sharing: true) == Self.parse(bytes, sharing: false), "\(text)")
            }
        }
    }

    @Test("Random documents with repeats, and their corruptions, read as an unshared parse reads them")
    func fuzz() {
        var random = SeededRandom(seed: 11)
        for round in 0..<300 {
            var bytes = Self.posts(Int(random.next() % 12) + 2, seed: random.next())
            if round % 2 == 1 {
                for _ in 0..<Int(random.next() % 3) + 1 {
                    let at = Int(random.next() % UInt64(bytes.count))
                    let replacements: [UInt8] = Array("{}[]\",:\\ a1".utf8)
                    bytes[at] = replacements[Int(random.next() % UInt64(replacements.count))]
                }
            }
            let limit = 3 + Int(random.next() % 8)
            let shared = Self.parse(bytes, maximumDepth: limit, sharing: true)
            #expect(
                shared == Self.parse(bytes, maximumDepth: limit, sharing: false),
                "\(String(decoding: bytes, as: UTF8.self)), limit \(limit)")
        }
    }

    @Test("A streamed response shares a user repeated in later batches and windows")
    func streamedAcrossBatches() throws {
        let bytes = Self.posts(300, seed: 5)
        var offset = 0
        // Windows of 4 KB: a user often starts in one window and ends in the next.
        let reader = JSONStreamReader(
            keyPath: "data", maximumDepth: JSONReader.defaultMaximumDepth, batchByteLimit: 2_000, bufferCapacity: 4_096
        ) { buffer in
            let count = min(buffer.count, 1_000, bytes.count - offset)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            offset += count
            return count
        }
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        var batches: [[JSONValue]] = []
        while let batch = try reader.nextBatch() { batches.append(batch) }
        _ = try reader.finish()
        #expect(batches.count > 10)
        let posts = batches.flatMap { $0 }
        guard case .value(let document) = Self.parse(bytes, sharing: false) else {
            Issue.record("not read")
            return
        }
        #expect(posts == document["data"]?.arrayValue)
        // The last batch's users are the storage of their first occurrence, batches earlier.
        let firstAddress = Dictionary(
            posts.map { ($0["user"]?["id"]?.stringValue ?? "", Self.storageAddress($0["user"])) },
            uniquingKeysWith: { first, _ in first })
        let last = try #require(batches.last)
        for post in last {
            let id = post["user"]?["id"]?.stringValue ?? ""
            #expect(Self.storageAddress(post["user"]) == firstAddress[id] ?? nil, "user \(id)")
        }
    }

    @Test("The cache starts again past its text limit, finds only equal text, and looks rarely while it spares little")
    func bounds() {
        let perEntry = 1 << 16
        let text = Array(repeating: UInt8(ascii: "a"), count: perEntry)
        text.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let cache = RepeatCache()
            let fitting = RepeatCache.textLimit / perEntry
            func hash(_ index: Int) -> UInt64 { UInt64(index) << 50 }
            for index in 0..<fitting {
                cache.insert(base, length: perEntry, hash: hash(index), depth: 1, value: .integer(Int64(index)))
            }
            #expect(cache.entryCount == fitting)
            #expect(cache.textCount == RepeatCache.textLimit)
            #expect(cache.entry(base, length: perEntry, hash: hash(0))?.value == .integer(0))
            cache.insert(base, length: perEntry, hash: hash(fitting), depth: 1, value: .null)
            #expect(cache.entryCount == 1)
            #expect(cache.textCount == perEntry)
            #expect(cache.entry(base, length: perEntry, hash: hash(fitting))?.value == .null)
            #expect(cache.entry(base, length: perEntry, hash: hash(0)) == nil)
            // Another length, or other bytes under the same hash: nothing.
            #expect(cache.entry(base, length: perEntry - 1, hash: hash(fitting)) == nil)
            var other = Array(buffer)
            other[perEntry - 1] = UInt8(ascii: "b")
            #expect(
                other.withUnsafeBufferPointer { cache.entry($0.baseAddress!, length: perEntry, hash: hash(fitting)) }
                    == nil)
        }
        text.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let idle = RepeatCache()
            #expect(idle.shouldLook())
            idle.insert(base, length: perEntry, hash: 1, depth: 1, value: .null)
            idle.noteScan(512 << 10)
            // 512 KB scanned, nothing spared: one object in `sampling` is looked up.
            let looks = (0..<(RepeatCache.sampling * 4)).filter { _ in idle.shouldLook() }.count
            #expect(looks == 4)
            // A hit that spares 64 KB brings lookups back for every object.
            #expect(idle.entry(base, length: perEntry, hash: 1) != nil)
            #expect((0..<RepeatCache.sampling).allSatisfy { _ in idle.shouldLook() })
        }
    }

    @Test("The scan finds an object's end and depth past strings' brackets and escapes, within its limit")
    func scan() {
        let cases: [(String, Int?, Int)] = [
            (#"{}"#, 2, 1),
            (#"{"a":[1,{"b":[]}]} tail"#, 18, 4),
            (#"{"a":"[[{{\\"}"#, 14, 1),
            (#"{"a":"\"[]{}YXy_\\","b":{}}  "#, 27, 2),
            (#"{"Y_y":"}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}","n":[[[[[[1]]]]]]}"#, 62, 7),
            (#"{"a":"unterminated}"#, nil, 0),
            (#"{"a":{}"#, nil, 0),
            ("{\"a\":\"" + String(repeating: "x", count: RepeatCache.spanLimit) + "\"}", nil, 0),
        ]
        for (text, length, depth) in cases {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                let parser = JSONParser(buffer.baseAddress!, count: buffer.count, maximumDepth: 512)
                let span = parser.objectSpan(from: 0)
                #expect(span?.length == length, "\(text)")
                if length != nil { #expect(span?.depth == depth, "\(text)") }
            }
        }
    }
}
