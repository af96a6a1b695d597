import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Nested objects whose text repeats are parsed once and shared: the values, the errors and the
/// depth limit must be exactly those of a parser that parses every object.
@Suite("JSON: repeated objects")
struct JSONRepeatTests {
    /// What a parser makes of `bytes`: the value, or the failure's kind and offset.
    /// The value with its text as the writer gives it (key order and number forms included),
    /// or the failure's kind and offset.
    enum Outcome: Equatable {
        case value(JSONValue, String)
        case failure(WebRecordError.JSONSyntax, Int)
    }

    static func parse(_ bytes: [UInt8], maximumDepth: Int = 512, sharing: Bool) -> Outcome {
        bytes.withUnsafeBufferPointer { buffer -> Outcome in
            guard let base = buffer.baseAddress else { return .failure(.emptyInput, 0) }
            var parser = JSONParser(base, count: buffer.count, maximumDepth: maximumDepth)
            if !sharing { parser.repeats = nil }
            do throws(JSONParseFailure) {
                let value = try parser.parseDocument()
                return .value(value, value.serialized())
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
        guard case .value(let document, _) = shared, let posts = document["data"]?.arrayValue else {
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
        // Windows of 4 KB: a user often starts in one window and ends in the next.
        let read = StreamTesting.streamRead(
            bytes, keyPath: "data",
            settings: StreamSettings(bufferCapacity: 4_096, batchByteLimit: 2_000, readBlocks: [1_000]))
        #expect(read.error == nil)
        var batches: [[JSONValue]] = []
        var next = 0
        for count in read.batchCounts {
            batches.append(Array(read.elements[next..<next + count]))
            next += count
        }
        #expect(batches.count > 10)
        let posts = batches.flatMap { $0 }
        guard case .value(let document, _) = Self.parse(bytes, sharing: false) else {
            Issue.record("not read")
            return
        }
        #expect(posts == document["data"]?.arrayValue)
        // Every repeat of a user, in whichever batch and window, is the storage of its first
        // occurrence: lookups spare most of what they scan here, so nothing is let go.
        var firstAddress: [String: (batch: Int, address: UnsafeRawPointer?)] = [:]
        var sharedAcrossBatches = 0
        for (index, batch) in batches.enumerated() {
            for post in batch {
                let id = post["user"]?["id"]?.stringValue ?? ""
                let address = Self.storageAddress(post["user"])
                guard let first = firstAddress[id] else {
                    firstAddress[id] = (index, address)
                    continue
                }
                #expect(address == first.address, "user \(id), batch \(index)")
                if first.batch < index { sharedAcrossBatches += 1 }
            }
        }
        #expect(firstAddress.count == Self.users.count)
        #expect(sharedAcrossBatches > 100)
    }

    @Test("A stream whose objects read once fill the cache many times keeps sharing its repeated users")
    func workingSetOutlivesFullCache() throws {
        // 12 users of about 300 bytes, repeated, and on every post an object of about 500 bytes
        // read once: with 64 KB of text kept, the cache is full every 120 posts or so.
        var random = SeededRandom(seed: 17)
        let users = (0..<12).map { index in
            #"{"id":"u\#(index)","name":"user \#(index)","bio":"\#(String(repeating: "b", count: 250))"}"#
        }
        let elements = (0..<1_500).map { index in
            let user = users[Int(random.next() % UInt64(users.count))]
            let once = #"{"n":\#(index),"text":"\#(String(repeating: "t", count: 480))"}"#
            return #"{"id":\#(index),"user":\#(user),"extra":\#(once)}"#
        }
        let bytes = Array(("{\"data\":[" + elements.joined(separator: ",") + "]}").utf8)
        let read = StreamTesting.streamRead(
            bytes, keyPath: "data",
            settings: StreamSettings(bufferCapacity: 16_384, batchByteLimit: 8_192, readBlocks: [5_000]),
            repeatTextLimit: 64 << 10)
        #expect(read.error == nil)
        #expect(read.repeatCacheFills > 5)
        guard case .value(let document, _) = Self.parse(bytes, sharing: false) else {
            Issue.record("not read")
            return
        }
        #expect(read.elements == document["data"]?.arrayValue)
        // Past the first 300 posts, each user is found again between one full cache and the
        // next: it stays shared with its last occurrence, however many times the cache was
        // full in between. (Before, early batches, whose lookups spare little, let go of users
        // seen once, and a user read again just before the cache is full is let go with it.)
        var lastAddress: [String: UnsafeRawPointer] = [:]
        var readAgain: [Int] = []
        for (index, post) in read.elements.enumerated() {
            let id = post["user"]?["id"]?.stringValue ?? ""
            guard let address = Self.storageAddress(post["user"]) else {
                Issue.record("post \(index) without a user")
                continue
            }
            if index >= 300, let last = lastAddress[id], last != address { readAgain.append(index) }
            lastAddress[id] = address
        }
        #expect(lastAddress.count == users.count)
        #expect(readAgain.isEmpty, "posts whose user was read again: \(readAgain.prefix(10)) of \(readAgain.count)")
    }

    @Test(
        "A full cache keeps what lookups found since it was last full, finds only equal text, and looks rarely while it spares little"
    )
    func bounds() {
        let perEntry = 1 << 16
        let text = Array(repeating: UInt8(ascii: "a"), count: perEntry)
        text.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let cache = RepeatCache()
            let fitting = RepeatCache.defaultTextLimit / perEntry
            func hash(_ index: Int) -> UInt64 { UInt64(index) << 50 }
            for index in 0..<fitting {
                cache.insert(base, length: perEntry, hash: hash(index), depth: 1, value: .integer(Int64(index)))
            }
            #expect(cache.entryCount == fitting)
            #expect(cache.textCount == RepeatCache.defaultTextLimit)
            #expect(cache.entry(base, length: perEntry, hash: hash(0))?.value == .integer(0))
            #expect(cache.entry(base, length: perEntry, hash: hash(7))?.value == .integer(7))
            // Full: the two entries found stay, the others go, and the new one comes in.
            cache.insert(base, length: perEntry, hash: hash(fitting), depth: 1, value: .null)
            #expect(cache.entryCount == 3)
            #expect(cache.textCount == 3 * perEntry)
            #expect(cache.entry(base, length: perEntry, hash: hash(fitting))?.value == .null)
            #expect(cache.entry(base, length: perEntry, hash: hash(7))?.value == .integer(7))
            #expect(cache.entry(base, length: perEntry, hash: hash(1)) == nil)
            // Full again: 0 was not found since, and goes; 7 and the newer entry were, and stay.
            for index in (fitting + 1)..<(2 * fitting - 2) {
                cache.insert(base, length: perEntry, hash: hash(index), depth: 1, value: .integer(Int64(index)))
            }
            #expect(cache.textCount == RepeatCache.defaultTextLimit)
            cache.insert(base, length: perEntry, hash: hash(2 * fitting), depth: 1, value: .bool(true))
            #expect(cache.entryCount == 3)
            #expect(cache.entry(base, length: perEntry, hash: hash(0)) == nil)
            #expect(cache.entry(base, length: perEntry, hash: hash(7))?.value == .integer(7))
            #expect(cache.entry(base, length: perEntry, hash: hash(fitting))?.value == .null)
            #expect(cache.entry(base, length: perEntry, hash: hash(2 * fitting))?.value == .bool(true))
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
            idle.noteScan(300 << 10)
            // 300 KB scanned, nothing spared: one object in `sampling` is looked up.
            let looks = (0..<(RepeatCache.sampling * 4)).filter { _ in idle.shouldLook() }.count
            #expect(looks == 4)
            // A hit that spares 64 KB brings lookups back for every object.
            #expect(idle.entry(base, length: perEntry, hash: 1) != nil)
            #expect((0..<RepeatCache.sampling).allSatisfy { _ in idle.shouldLook() })
        }
    }

    @Test("The scan finds an object's end and depth past strings' brackets and escapes, and counts what it read")
    func scan() {
        let long = "{\"a\":\"" + String(repeating: "_", count: RepeatCache.spanLimit) + "\"}"
        let cases: [(text: String, length: Int, depth: Int)] = [
            (#"{}"#, 2, 1),
            (#"{"a":[1,{"b":[]}]} tail"#, 18, 4),
            (#"{"a":"[[{{\\"}"#, 14, 1),
            (#"{"a":"\"[]{}YXy_\\","b":{}}  "#, 27, 2),
            (#"{"Y_y":"}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}","n":[[[[[[1]]]]]]}"#, 62, 7),
            (#"{"a":"unterminated}"#, 0, 0),
            (#"{"a":{}"#, 0, 0),
            (long, 0, 0),
        ]
        for (text, length, depth) in cases {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                let parser = JSONParser(buffer.baseAddress!, count: buffer.count, maximumDepth: 512)
                let span = parser.objectSpan(from: 0)
                #expect(span.length == length, "\(text)")
                #expect(span.depth == depth, "\(text)")
                // A span found was read to its end; one not found, to the limit or the input's end.
                #expect(span.scanned == (length > 0 ? length : min(bytes.count, RepeatCache.spanLimit)), "\(text)")
            }
        }
    }

    @Test("Objects too long to look up count against the lookups, which then look rarely")
    func failedScansCount() {
        let deep = (0..<8).reduce("\"" + String(repeating: "_", count: 5_000) + "\"") { inner, _ in #"{"a":\#(inner)}"#
        }
        let bytes = Array(("[" + Array(repeating: deep, count: 40).joined(separator: ",") + "]").utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer.baseAddress!, count: buffer.count, maximumDepth: 512)
            guard let repeats = parser.repeats else {
                Issue.record("no cache for a large input")
                return
            }
            #expect(throws: Never.self) { _ = try parser.parseDocument() }
            // Every level of the first elements was scanned to the limit and counted; then one
            // object in `sampling` was looked up.
            #expect(repeats.scannedBytes >= 256 << 10)
            #expect(repeats.scannedBytes < 40 * 8 * RepeatCache.spanLimit / 2)
            #expect(repeats.entryCount == 0)
        }
    }

    @Test("A small input has no cache; a larger one a table sized to it")
    func sizing() {
        let small = Array(#"{"id":12,"user":{"name":"alice","tags":[1,2]}}"#.utf8)
        small.withUnsafeBufferPointer { buffer in
            let parser = JSONParser(buffer.baseAddress!, count: buffer.count, maximumDepth: 512)
            #expect(parser.repeats == nil)
        }
        #expect(RepeatCache(inputLength: RepeatCache.smallestInput).slotBits == 6)
        #expect(RepeatCache(inputLength: 256 << 10).slotBits == 12)
        #expect(RepeatCache(inputLength: 4 << 20).slotBits == 16)
        #expect(RepeatCache(inputLength: 1 << 30).slotBits == 16)
        #expect(RepeatCache().slotBits == 16)
    }

    @Test("A full cache whose found entries alone fill half of it starts again")
    func foundEntriesFillingHalfStartAgain() {
        let perEntry = 1 << 16
        let text = Array(repeating: UInt8(ascii: "a"), count: perEntry)
        text.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let cache = RepeatCache()
            let fitting = RepeatCache.defaultTextLimit / perEntry
            func hash(_ index: Int) -> UInt64 { UInt64(index) << 50 }
            for index in 0..<fitting {
                cache.insert(base, length: perEntry, hash: hash(index), depth: 1, value: .integer(Int64(index)))
                // Every entry of the first half and one more is found.
                if index <= fitting / 2 { _ = cache.entry(base, length: perEntry, hash: hash(index)) }
            }
            cache.insert(base, length: perEntry, hash: hash(fitting), depth: 1, value: .null)
            #expect(cache.entryCount == 1)
            #expect(cache.textCount == perEntry)
            #expect(cache.entry(base, length: perEntry, hash: hash(0)) == nil)
            #expect(cache.entry(base, length: perEntry, hash: hash(fitting))?.value == .null)
        }
    }

    @Test("At the end of a batch whose lookups spared little, objects no lookup found are let go")
    func batchEnds() {
        let text = Array(repeating: UInt8(ascii: "a"), count: 64)
        text.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            func hash(_ index: Int) -> UInt64 { UInt64(index) << 50 }
            let idle = RepeatCache()
            idle.insert(base, length: 32, hash: hash(1), depth: 1, value: .integer(1))
            idle.noteScan(1_000)
            idle.endBatch()
            // Nothing spared, nothing found: nothing outlives the batch.
            #expect(idle.entryCount == 0)
            #expect(idle.textCount == 0)

            let cache = RepeatCache()
            cache.insert(base, length: 32, hash: hash(1), depth: 1, value: .integer(1))
            cache.insert(base + 32, length: 32, hash: hash(2), depth: 1, value: .integer(2))
            #expect(cache.entry(base, length: 32, hash: hash(1))?.value == .integer(1))
            cache.noteScan(100)
            cache.endBatch()
            // 32 bytes spared of 100 scanned: a productive batch keeps everything.
            #expect(cache.entryCount == 2)
            cache.noteScan(10_000)
            cache.endBatch()
            // An unproductive one lets go of the entry no lookup found, and keeps the other.
            #expect(cache.entryCount == 1)
            #expect(cache.textCount == 32)
            #expect(cache.entry(base + 32, length: 32, hash: hash(2)) == nil)
            #expect(cache.entry(base, length: 32, hash: hash(1))?.value == .integer(1))
            cache.removeAll()
            #expect(cache.entry(base, length: 32, hash: hash(1)) == nil)
            #expect(cache.entryCount == 0)
        }
    }
}
