import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// How a stream reader is fed and how it batches, for one read.
struct StreamSettings: CustomStringConvertible, Sendable {
    /// The reader's initial buffer capacity.
    var bufferCapacity: Int
    /// The reader's batch byte limit.
    var batchByteLimit: Int
    /// The most bytes each call of the read function gives, in turn.
    var readBlocks: [Int]

    /// The settings, for messages.
    var description: String { "buffer \(bufferCapacity), batch \(batchByteLimit), blocks \(readBlocks)" }

    /// The reader's defaults, the input given in one block.
    static let defaults = StreamSettings(
        bufferCapacity: JSONStreamReader.defaultBufferCapacity, batchByteLimit: JSONStreamReader.defaultBatchByteLimit,
        readBlocks: [Int.max])
    /// Settings that cut the input everywhere: tiny buffers, batches and reads.
    static let tiny: [StreamSettings] = [
        StreamSettings(bufferCapacity: 1, batchByteLimit: 1, readBlocks: [1]),
        StreamSettings(bufferCapacity: 5, batchByteLimit: 1, readBlocks: [3, 1, 7, 2]),
        StreamSettings(bufferCapacity: 64, batchByteLimit: 16, readBlocks: [1, 2, 3, 4, 5, 6, 7]),
        StreamSettings(bufferCapacity: 4096, batchByteLimit: 1, readBlocks: [64]),
    ]
    /// The defaults and the tiny settings.
    static let all = [defaults] + tiny
}

/// What a streamed read gave.
struct StreamedRead {
    /// The document, when it was read whole.
    var whole: JSONValue?
    /// The elements streamed, in order.
    var elements: [JSONValue] = []
    /// The number of elements of each batch.
    var batchCounts: [Int] = []
    /// What `finish()` returned.
    var envelope: JSONValue?
    /// The error that ended the read.
    var error: WebRecordError?
    /// The largest buffer capacity seen after a call.
    var largestBuffer = 0
    /// The reader's element count at the end.
    var elementCount = 0
    /// The reader's byte count at the end.
    var bytesRead = 0
    /// How many times the reader's repeat cache was full.
    var repeatCacheFills = 0
}

/// What the whole-document reader says a streamed read must give.
enum ExpectedRead {
    case failure(WebRecordError)
    case whole(JSONValue)
    case streamed([JSONValue], envelope: JSONValue)
    /// A key on the key path is repeated: the rule for streamed responses applies (tested apart).
    case repeatedPathKey
}

enum StreamTesting {
    /// Reads `bytes` with a stream reader under `settings`.
    static func streamRead(
        _ bytes: [UInt8], keyPath: String?, maximumDepth: Int = JSONReader.defaultMaximumDepth,
        settings: StreamSettings, projection: KeyProjection? = nil, repeatTextLimit: Int? = nil
    ) -> StreamedRead {
        var offset = 0
        var call = 0
        let reader = JSONStreamReader(
            keyPath: keyPath, maximumDepth: maximumDepth, batchByteLimit: settings.batchByteLimit,
            bufferCapacity: settings.bufferCapacity
        ) { buffer in
            let block = settings.readBlocks[call % settings.readBlocks.count]
            call += 1
            let count = min(buffer.count, block, bytes.count - offset)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            offset += count
            return count
        }
        if let projection { reader.project(onto: projection) }
        if let repeatTextLimit { reader.repeats = RepeatCache(textLimit: repeatTextLimit) }
        var result = StreamedRead()
        do {
            switch try reader.start() {
            case .whole(let value):
                result.whole = value
                #expect(try reader.nextBatch() == nil)
            case .streaming:
                while let batch = try reader.nextBatch() {
                    result.elements += batch
                    result.batchCounts.append(batch.count)
                    result.largestBuffer = max(result.largestBuffer, reader.bufferCapacity)
                }
                result.envelope = try reader.finish()
            }
        } catch {
            result.error = error
        }
        result.elementCount = reader.elementCount
        result.bytesRead = reader.bytesRead
        result.repeatCacheFills = reader.repeats.fillCount
        return result
    }

    /// What `JSONReader` makes of `bytes`, as a streamed read must give it.
    static func expectedRead(_ bytes: [UInt8], keyPath: String?, maximumDepth: Int) -> ExpectedRead {
        let value: JSONValue
        let duplicates: [JSONDuplicateKey]
        do {
            (value, duplicates) = try JSONReader(maximumDepth: maximumDepth).readReportingDuplicateKeys(Data(bytes))
        } catch {
            return .failure(error)
        }
        if case .array(let elements) = value { return .streamed(elements, envelope: []) }
        guard case .object = value, let keyPath, !keyPath.isEmpty else { return .whole(value) }
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if duplicates.contains(where: { duplicate in
            duplicate.path.count < components.count
                && sameUTF8(duplicate.key, components[duplicate.path.count])
                && zip(duplicate.path, components).allSatisfy { sameUTF8($0, $1) }
        }) {
            return .repeatedPathKey
        }
        var current = value
        for component in components {
            guard case .object(let object) = current, let next = object[component] else { return .whole(value) }
            current = next
        }
        guard case .array(let elements) = current else { return .whole(value) }
        return .streamed(elements, envelope: emptying(value, at: components[...]))
    }

    /// What a streamed element read under `projection` must be: `value` without the members
    /// the projection drops, in every object but those inside a member kept whole. Written apart
    /// from the parser, over the value `JSONReader` read.
    static func projected(_ value: JSONValue, by projection: KeyProjection) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map { projected($0, by: projection) })
        case .object(let object):
            var kept: [(key: String, value: JSONValue)] = []
            for (key, member) in object {
                switch projection.decision(forKey: key) {
                case .skip: continue
                case .whole: kept.append((key, member))
                case .descend: kept.append((key, projected(member, by: projection)))
                }
            }
            return .object(JSONObject(kept))
        default:
            return value
        }
    }

    /// A projection over keys of the generated documents (``JSONFuzzTests/keyPool``): some
    /// kept whole, some chosen again inside, some with escapes, the empty key among them.
    static let testProjection = KeyProjection([
        "id": .descend, "user": .descend, "text": .whole, "k\"q": .whole, "é": .descend, "k3": .whole,
        "": .descend, "nul\u{0}": .whole, "idx": .whole, "a": .descend, "k40": .descend, "name": .skip,
    ])

    /// `value` with the array at `components` (through objects) replaced by `[]`.
    static func emptying(_ value: JSONValue, at components: ArraySlice<String>) -> JSONValue {
        guard let first = components.first, case .object(var object) = value, let member = object[first] else {
            return []
        }
        object[first] = emptying(member, at: components.dropFirst())
        return .object(object)
    }

    /// Checks that a streamed read of `bytes` gives what `JSONReader` does, under each of
    /// `settings`. Returns false when the document repeats a key on the key path (not compared).
    @discardableResult
    static func compare(
        _ bytes: [UInt8], keyPath: String?, maximumDepth: Int = JSONReader.defaultMaximumDepth,
        settings: [StreamSettings] = StreamSettings.all, projection: KeyProjection? = nil, label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        var expected = expectedRead(bytes, keyPath: keyPath, maximumDepth: maximumDepth)
        if case .repeatedPathKey = expected { return false }
        if let projection, case .streamed(let elements, let envelope) = expected {
            expected = .streamed(elements.map { projected($0, by: projection) }, envelope: envelope)
        }
        for setting in settings {
            let read = streamRead(
                bytes, keyPath: keyPath, maximumDepth: maximumDepth, settings: setting, projection: projection)
            let context = Comment(rawValue: "\(label), key path \(keyPath ?? "nil"), \(setting)")
            switch expected {
            case .failure(let error):
                guard let actual = read.error else {
                    Issue.record("accepted, expected \(error) (\(context))", sourceLocation: sourceLocation)
                    continue
                }
                #expect(actual.code == error.code, context, sourceLocation: sourceLocation)
                #expect(actual.jsonSyntax == error.jsonSyntax, context, sourceLocation: sourceLocation)
                #expect(actual.offset == error.offset, context, sourceLocation: sourceLocation)
                #expect(actual.line == error.line, context, sourceLocation: sourceLocation)
                #expect(actual.column == error.column, context, sourceLocation: sourceLocation)
                #expect(actual.message == error.message, context, sourceLocation: sourceLocation)
            case .whole(let value):
                #expect(read.error == nil, context, sourceLocation: sourceLocation)
                #expect(read.whole == value, context, sourceLocation: sourceLocation)
                #expect(read.whole?.serialized() == value.serialized(), context, sourceLocation: sourceLocation)
            case .streamed(let elements, let envelope):
                #expect(read.error == nil, "\(read.error.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
                #expect(read.whole == nil, context, sourceLocation: sourceLocation)
                #expect(read.elements == elements, context, sourceLocation: sourceLocation)
                #expect(
                    read.elements.map { $0.serialized() } == elements.map { $0.serialized() }, context,
                    sourceLocation: sourceLocation)
                #expect(read.envelope == envelope, context, sourceLocation: sourceLocation)
                #expect(read.envelope?.serialized() == envelope.serialized(), context, sourceLocation: sourceLocation)
                #expect(read.elementCount == elements.count, context, sourceLocation: sourceLocation)
                #expect(read.bytesRead == bytes.count, context, sourceLocation: sourceLocation)
                #expect(!read.batchCounts.contains(0), context, sourceLocation: sourceLocation)
                if setting.batchByteLimit == 1 {
                    #expect(read.batchCounts.allSatisfy { $0 == 1 }, context, sourceLocation: sourceLocation)
                }
            case .repeatedPathKey:
                break
            }
        }
        return true
    }
}

@Suite("JSON stream reader: the JSONTestSuite corpus")
struct JSONStreamReaderCorpusTests {
    static let names =
        JSONTestSuiteCorpus.names(prefix: "y_") + JSONTestSuiteCorpus.names(prefix: "n_")
        + JSONTestSuiteCorpus.names(prefix: "i_")

    @Test("Every corpus file streams as JSONReader reads it", arguments: names)
    func corpusFile(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        for keyPath in [nil, "data", "a", "0"] {
            StreamTesting.compare(bytes, keyPath: keyPath, label: name)
        }
    }

    @Test("Every corpus file streams as JSONReader reads it, inside and around a streamed array", arguments: names)
    func corpusFileInStreamedArray(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        let wrappings: [(String, String, String?)] = [
            ("[0,\n", "]", nil),
            ("{\"data\":[", "]}", "data"),
            ("{\"meta\": {\"n\": 1},\r\n \"data\": [1,\r\n", "\n, 2], \"tail\": 3}", "data"),
            ("{\"a\": {\"x\": [], \"b\": {\"data\": [\"\\u00e9\",\t", "]}}}", "a.b.data"),
            ("{\"data\": [1],\n\"tail\": ", "}", "data"),
            ("{\"before\": ", ", \"data\": [true]}", "data"),
        ]
        for (head, tail, keyPath) in wrappings {
            let document = Array(head.utf8) + bytes + Array(tail.utf8)
            StreamTesting.compare(document, keyPath: keyPath, label: "\(name) in \(head)…\(tail)")
        }
    }
}

@Suite("JSON stream reader")
struct JSONStreamReaderTests {
    // MARK: What is streamed

    @Test("A top-level array is streamed whatever the key path")
    func topLevelArray() throws {
        for keyPath in [nil, "", "data", "0"] {
            let read = StreamTesting.streamRead(
                Array(" [1, {\"a\": [2]}, \"x\"] \n".utf8), keyPath: keyPath, settings: .defaults)
            #expect(read.elements == [1, ["a": [2]], "x"])
            #expect(read.envelope == [])
            #expect(read.whole == nil)
        }
    }

    @Test("The array at the key path is streamed, and the envelope keeps the members around it in order")
    func arrayAtKeyPath() throws {
        let text = #"{"meta": {"code": 200}, "data": [{"id": 1}, {"id": 2}], "paging": {"next": "x"}}"#
        let read = StreamTesting.streamRead(Array(text.utf8), keyPath: "data", settings: .defaults)
        #expect(read.elements == [["id": 1], ["id": 2]])
        #expect(read.envelope == ["meta": ["code": 200], "data": [], "paging": ["next": "x"]])
        #expect(read.envelope?.objectValue?.keys == ["meta", "data", "paging"])
    }

    @Test("A nested key path is walked through objects, keys with escapes included")
    func nestedKeyPath() throws {
        let text = #"{"r": 1, "resp\u006Fnse": {"n": [1, 2], "v\u00e9": {"items": [[1], [], {"k": null}]}, "z": {}}}"#
        let read = StreamTesting.streamRead(Array(text.utf8), keyPath: "response.vé.items", settings: .defaults)
        #expect(read.elements == [[1], [], ["k": nil]])
        #expect(read.envelope == ["r": 1, "response": ["n": [1, 2], "vé": ["items": []], "z": [:]]])
    }

    @Test("Key paths with digits, empty components and repeated keys stream as JSONReader reads them")
    func unusualKeyPaths() throws {
        let cases: [(String, String)] = [
            (#"{"0": [1, 2]}"#, "0"),
            (#"{"data": {"": [1]}}"#, "data."),
            (#"{"": {"x": [1]}}"#, ".x"),
            (#"{"a": {"b": {"c": [[1], {"d": []}]}}}"#, "a.b.c"),
            (#"{"a": {"b": {"c": [1]}}}"#, "a.b"),
            (#"{"a": [{"b": [1]}]}"#, "a.0.b"),
            (#"{"a": {"0": {"b": [1]}}}"#, "a.0.b"),
        ]
        for (text, keyPath) in cases {
            #expect(StreamTesting.compare(Array(text.utf8), keyPath: keyPath, label: text))
        }
        let read = StreamTesting.streamRead(
            Array(#"{"a": {"0": {"b": [1]}}}"#.utf8), keyPath: "a.0.b", settings: .defaults)
        #expect(read.elements == [1])
    }

    @Test("Nothing is streamed when the key path names no array, or goes through one")
    func notStreamed() throws {
        let cases: [(String, String?)] = [
            (#"{"data": [1]}"#, nil),
            (#"{"data": [1]}"#, ""),
            (#"{"data": [1]}"#, "other"),
            (#"{"data": null}"#, "data"),
            (#"{"data": {"id": 1}}"#, "data"),
            (#"{"data": 12}"#, "data"),
            (#"{"data": [[1], [2]]}"#, "data.0"),
            (#"{"data": [{"items": [1]}]}"#, "data.0.items"),
            (#"{"data": {"items": 1}}"#, "data.items.x"),
            (#""text""#, "data"),
            ("12", nil),
            ("null", "data"),
            ("{}", "data"),
        ]
        for (text, keyPath) in cases {
            let read = StreamTesting.streamRead(Array(text.utf8), keyPath: keyPath, settings: .defaults)
            #expect(read.error == nil)
            #expect(read.whole == (try JSONReader().read(text)), "\(text) at \(keyPath ?? "nil")")
            #expect(read.elements.isEmpty)
        }
    }

    @Test("An empty streamed array gives no batch")
    func emptyArray() throws {
        let cases: [(String, String?, JSONValue)] = [
            ("[]", nil, []), (" [ \n ] ", "x", []), (#"{"data": [ ], "n": 1}"#, "data", ["data": [], "n": 1]),
        ]
        for (text, keyPath, envelope) in cases {
            let read = StreamTesting.streamRead(Array(text.utf8), keyPath: keyPath, settings: .defaults)
            #expect(read.batchCounts.isEmpty)
            #expect(read.envelope == envelope)
        }
    }

    @Test("Batches end at the first element boundary at or past the byte limit")
    func batchLimit() throws {
        let elements = (0..<100).map { JSONValue.string(String(repeating: "x", count: $0 % 7)) }
        let text = Array(JSONValue.array(elements).serialized().utf8)
        for limit in [1, 10, 50, 1000] {
            let read = StreamTesting.streamRead(
                text, keyPath: nil, settings: StreamSettings(bufferCapacity: 16, batchByteLimit: limit, readBlocks: [5])
            )
            #expect(read.elements == elements)
            // Each batch but the last holds at least `limit` bytes of elements (text plus separator).
            var index = 0
            for (number, count) in read.batchCounts.enumerated() {
                let bytes = elements[index..<index + count].reduce(0) { $0 + $1.serialized().utf8.count + 1 }
                if number < read.batchCounts.count - 1 {
                    #expect(bytes >= limit)
                    let withoutLast = bytes - (elements[index + count - 1].serialized().utf8.count + 1)
                    #expect(withoutLast < limit)
                }
                index += count
            }
        }
    }

    // MARK: Generated documents

    /// Each test of generated documents runs twice: as read, and with the elements' members
    /// chosen by a projection (``StreamTesting/testProjection``).
    static let projections: [KeyProjection?] = [nil, StreamTesting.testProjection]

    @Test("Generated documents stream exactly, cut at every size", arguments: projections)
    func generatedDocuments(_ projection: KeyProjection?) throws {
        var random = SeededRandom(seed: 2024)
        var compared = 0
        for round in 0..<150 {
            let (document, keyPath) = Self.generatedDocument(&random, round: round)
            if StreamTesting.compare(document, keyPath: keyPath, projection: projection, label: "round \(round)") {
                compared += 1
            }
        }
        #expect(compared >= 140)
    }

    @Test(
        "Corrupted generated documents are rejected with JSONReader's error, wherever they are cut",
        arguments: projections)
    func corruptedDocuments(_ projection: KeyProjection?) throws {
        var random = SeededRandom(seed: 77)
        let interesting: [UInt8] = Array(#"{}[]",:\ u0e."#.utf8) + [0x00, 0x0A, 0x0D, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        var compared = 0
        for round in 0..<400 {
            var (bytes, keyPath) = Self.generatedDocument(&random, round: round)
            for _ in 0..<(1 + random.next(below: 2)) {
                let position = random.next(below: bytes.count)
                let byte =
                    random.next(below: 2) == 0
                    ? interesting[random.next(below: interesting.count)] : UInt8(truncatingIfNeeded: random.next())
                switch random.next(below: 3) {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            let settings = [
                StreamSettings.defaults, StreamSettings.tiny[random.next(below: StreamSettings.tiny.count)],
            ]
            if StreamTesting.compare(
                bytes, keyPath: keyPath, settings: settings, projection: projection, label: "corruption \(round)")
            {
                compared += 1
            }
        }
        #expect(compared >= 380)
    }

    @Test("Documents cut short anywhere are rejected with JSONReader's error", arguments: projections)
    func truncatedDocuments(_ projection: KeyProjection?) throws {
        var random = SeededRandom(seed: 5)
        for round in 0..<20 {
            let (document, keyPath) = Self.generatedDocument(&random, round: round)
            for length in stride(from: 0, to: document.count, by: max(1, document.count / 60)) {
                StreamTesting.compare(
                    Array(document[0..<length]), keyPath: keyPath,
                    settings: [.defaults, StreamSettings.tiny[length % StreamSettings.tiny.count]],
                    projection: projection, label: "round \(round) cut at \(length)")
            }
        }
    }

    @Test("The depth limit counts the containers around the streamed elements")
    func depthLimit() throws {
        let documents = [
            "[[[1]], [2], 3]",
            #"{"data": [[[1]], {"a": {"b": []}}]}"#,
            #"{"a": {"data": [[[1]]]}}"#,
            #"{"a": {"data": []}, "b": [[[[1]]]]}"#,
            #"{"x": [[[1]]], "a": {"data": [1]}}"#,
            "[]",
        ]
        for text in documents {
            for depth in 0...6 {
                for keyPath in ["data", "a.data"] {
                    StreamTesting.compare(
                        Array(text.utf8), keyPath: keyPath, maximumDepth: depth, label: "\(text) at depth \(depth)")
                }
            }
        }
    }

    @Test("Multi-byte UTF-8, escapes, and quotes after backslashes are read across every cut")
    func stringsAcrossCuts() throws {
        let text = #"""
            {"d\u0061ta": ["é€𝄞", "a\\", "\\\"", "\"\\\\\"", "\ud834\udd1e\u00e9", "\/\b\f\n\r\t", {"k\"ey": "v\\"}, "日本語"],
             "after\\": "\\"}
            """#
        StreamTesting.compare(Array(text.utf8), keyPath: "data", label: "strings")
        let read = StreamTesting.streamRead(Array(text.utf8), keyPath: "data", settings: StreamSettings.tiny[0])
        #expect(read.elements.first == "é€𝄞")
        #expect(read.elements.count == 8)
    }

    @Test("Errors are placed in the whole input, across lines ended by LF, CR LF and CR")
    func errorPositions() throws {
        let text = "{\"meta\": 1,\r\n\"data\": [\r1,\n2,\r\n{\"a\": tru}]}"
        let read = StreamTesting.streamRead(Array(text.utf8), keyPath: "data", settings: StreamSettings.tiny[0])
        let error = try #require(read.error)
        #expect(error.code == .invalidJSON)
        #expect(error.jsonSyntax == .unexpectedCharacter)
        #expect(error.line == 5)
        #expect(error.column == 10)
        #expect(error.offset == Array(text.utf8).firstIndex(of: UInt8(ascii: "}")))
        #expect(read.elements == [1, 2])
        StreamTesting.compare(Array(text.utf8), keyPath: "data", label: "lines")
    }

    @Test("A byte order mark, empty input, and trailing content are rejected as JSONReader rejects them")
    func documentEdges() throws {
        for text in ["\u{FEFF}[1]", "", "  \n ", "[1] x", "[1]]", #"{"data": [1]} {"#, #"{"data": [1]}, "#, "[1,]"] {
            for keyPath in [nil, "data"] {
                StreamTesting.compare(Array(text.utf8), keyPath: keyPath, label: text)
                let read = StreamTesting.streamRead(Array(text.utf8), keyPath: keyPath, settings: .defaults)
                #expect(read.error?.code == .invalidJSON, "\(text)")
            }
        }
    }

    // MARK: Repeated keys

    @Test("A key on the path repeated after the streamed array is an error of finish()")
    func repeatAfterArray() throws {
        let cases: [(String, String, String, Int, Int)] = [
            (#"{"data": [1], "data": 3}"#, "data", "data", 1, 15),
            ("{\n  \"data\": [1],\n  \"data\": [2]\n}", "data", "data", 3, 3),
            (#"{"a": {"b": [1]}, "a": 2}"#, "a.b", "a", 1, 19),
            (#"{"a": {"b": [1], "b": 5}}"#, "a.b", "b", 1, 18),
            (#"{"a": {"b": [1]}, "a": {"b": [2]}}"#, "a.b", "a", 1, 19),
            (#"{"data":[1],"d\u0061ta":2}"#, "data", "data", 1, 13),
        ]
        for (text, keyPath, key, line, column) in cases {
            for settings in StreamSettings.all {
                let read = StreamTesting.streamRead(Array(text.utf8), keyPath: keyPath, settings: settings)
                let error = try #require(read.error, "\(text)")
                #expect(error.code == .invalidResponseFormat)
                #expect(error.keyPath == keyPath)
                #expect(
                    error.message
                        == "the key '\(key)' appears twice in one object (line \(line), column \(column)); "
                        + "a response streamed from its key path cannot take the later value", "\(text)")
                #expect(read.elements == [1])
                #expect(read.envelope == nil)
            }
        }
    }

    @Test("A repeat before the streamed array, or off the path, is read as JSONReader reads it")
    func repeatsThatAreFine() throws {
        let cases: [(String, String, JSONValue, [JSONValue])] = [
            (#"{"data": 1, "n": 0, "data": [1, 2]}"#, "data", ["data": [], "n": 0], [1, 2]),
            (#"{"data": {"x": 1}, "data": [3]}"#, "data", ["data": []], [3]),
            (#"{"data": [9], "data": [3]}"#, "x", ["data": [3]], []),
            (#"{"a": {"b": 1}, "a": {"b": [4]}}"#, "a.b", ["a": ["b": []]], [4]),
            (#"{"a": {"b": [1]}, "c": {"a": 1, "a": 2}}"#, "a.b", ["a": ["b": []], "c": ["a": 2]], [1]),
            (#"{"a": {"b": [1]}, "x": [{"b": 1, "b": 2}]}"#, "a.b", ["a": ["b": []], "x": [["b": 2]]], [1]),
            (#"{"data": [{"id": 1, "id": 2}]}"#, "data", ["data": []], [["id": 2]]),
        ]
        for (text, keyPath, envelope, elements) in cases {
            let read = StreamTesting.streamRead(Array(text.utf8), keyPath: keyPath, settings: StreamSettings.tiny[1])
            #expect(read.error == nil, "\(text)")
            if elements.isEmpty {
                #expect(read.whole == envelope)
            } else {
                #expect(read.envelope == envelope, "\(text)")
                #expect(read.envelope?.serialized() == envelope.serialized(), "\(text)")
                #expect(read.elements == elements, "\(text)")
            }
        }
        let first = StreamTesting.streamRead(
            Array(#"{"data": 1, "n": 0, "data": [1, 2]}"#.utf8), keyPath: "data", settings: .defaults)
        #expect(first.envelope?.objectValue?.keys == ["data", "n"])
    }

    @Test("A syntax error after a repeated path key is the error JSONReader gives")
    func syntaxErrorWinsOverRepeat() throws {
        let text = #"{"data": [1], "data": 2, x}"#
        let read = StreamTesting.streamRead(Array(text.utf8), keyPath: "data", settings: .defaults)
        #expect(read.error?.code == .invalidJSON)
        #expect(read.error?.offset == jsonReadError(text)?.offset)
    }

    // MARK: Memory, input and use

    @Test("Streaming a 20 MB document holds a small buffer and reads it as it goes")
    func boundedMemory() throws {
        var text = #"{"meta": {"count": 60000}, "data": ["#
        for index in 0..<60_000 {
            if index > 0 { text += "," }
            text += #"{"id": \#(index), "text": "\#(String(repeating: "post text é ", count: 20))", "#
            text += #""user": {"id": \#(index % 97), "name": "user \#(index % 97)"}, "tags": ["a", "b"]}"#
        }
        text += #"], "paging": {"more": false}}"#
        let bytes = Array(text.utf8)
        #expect(bytes.count > 20_000_000)
        var offset = 0
        let reader = JSONStreamReader(keyPath: "data") { buffer in
            let count = min(buffer.count, 64 << 10, bytes.count - offset)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            offset += count
            return count
        }
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        var count = 0
        var batches = 0
        while let batch = try reader.nextBatch() {
            if batches == 0 { #expect(reader.bytesRead < bytes.count / 3) }
            #expect(reader.bufferCapacity <= JSONStreamReader.defaultBufferCapacity)
            #expect(batch.first?["id"] == .integer(Int64(count)))
            #expect(batch.last?["user"]?["id"] == .integer(Int64((count + batch.count - 1) % 97)))
            count += batch.count
            batches += 1
        }
        #expect(count == 60_000)
        #expect(reader.elementCount == 60_000)
        #expect(batches >= 4)
        #expect(try reader.finish() == ["meta": ["count": 60000], "data": [], "paging": ["more": false]])
        #expect(reader.bytesRead == bytes.count)
        #expect(reader.bufferCapacity <= JSONStreamReader.defaultBufferCapacity)
    }

    @Test("An element larger than the buffer grows it, and the buffer shrinks back after")
    func largeElement() throws {
        let big = String(repeating: "0123456789", count: 5000)
        let text = #"[1, "\#(big)", 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"#
        let read = StreamTesting.streamRead(
            Array(text.utf8), keyPath: nil,
            settings: StreamSettings(bufferCapacity: 64, batchByteLimit: 1, readBlocks: [7]))
        #expect(read.elements.count == 17)
        #expect(read.elements[1] == .string(big))
        #expect(read.largestBuffer >= 50_000)
    }

    @Test("A large member before the streamed array is walked over, its errors placed in the whole input")
    func largeMemberBeforeArray() throws {
        let included = (0..<2000).map { #"{"type": "user", "id": "\#($0)", "name": "n\\\"\#($0)"}"# }
        let valid = #"{"included": [\#(included.joined(separator: ",\n"))], "data": [1, 2, 3], "n": 1}"#
        let broken = valid.replacingOccurrences(of: #""id": "1500""#, with: #""id": 1500.""#)
        for text in [valid, broken] {
            for settings in [
                StreamSettings.defaults, StreamSettings(bufferCapacity: 64, batchByteLimit: 1, readBlocks: [100]),
            ] {
                StreamTesting.compare(Array(text.utf8), keyPath: "data", settings: [settings], label: "large member")
            }
        }
        let read = StreamTesting.streamRead(
            Array(broken.utf8), keyPath: "data",
            settings: StreamSettings(bufferCapacity: 64, batchByteLimit: 1, readBlocks: [100]))
        #expect(read.error?.jsonSyntax == .invalidNumber)
        #expect(read.error?.line == 1501)
        #expect(read.elements.isEmpty)
    }

    @Test("A file is streamed from its path; a missing file or a directory is a clear error")
    func files() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"data": [{"id": 1}, {"id": 2}], "next": null}"#
        let path = try directory.write("response.json", Data(text.utf8))
        let reader = try JSONStreamReader.file(atPath: path, keyPath: "data", batchByteLimit: 1)
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        #expect(try reader.nextBatch() == [["id": 1]])
        #expect(try reader.nextBatch() == [["id": 2]])
        #expect(try reader.nextBatch() == nil)
        #expect(try reader.finish() == ["data": [], "next": nil])

        let missing = directory.path("missing.json")
        let notFound = try #require(throws: WebRecordError.self) {
            try JSONStreamReader.file(atPath: missing, keyPath: "data")
        }
        #expect(notFound.code == .notFound)
        #expect(notFound.message.contains(missing))
        let directoryError = try #require(throws: WebRecordError.self) {
            try JSONStreamReader.file(atPath: directory.url.path, keyPath: "data")
        }
        #expect(directoryError.code == .notFound)
        #expect(directoryError.message.contains("is a directory"))
    }

    @Test("Data is streamed as its bytes")
    func data() throws {
        let reader = JSONStreamReader(data: Data(#"[1, 2, 3]"#.utf8), keyPath: nil, batchByteLimit: 4)
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        #expect(try reader.nextBatch() == [1, 2])
        #expect(try reader.nextBatch() == [3])
        #expect(try reader.nextBatch() == nil)
        #expect(try reader.finish() == [])
        #expect(reader.elementCount == 3)
        #expect(reader.bytesRead == 9)
    }

    @Test("A read function's error ends the read, as its cause")
    func readFailure() throws {
        struct Broken: Error {}
        var calls = 0
        let reader = JSONStreamReader(keyPath: nil, maximumDepth: 512, batchByteLimit: 1, bufferCapacity: 7) { buffer in
            calls += 1
            guard calls == 1 else { throw Broken() }
            let text = Array("[1, 2, ".utf8)
            buffer.copyBytes(from: text)
            return text.count
        }
        guard case .streaming = try reader.start() else {
            Issue.record("not streamed")
            return
        }
        #expect(try reader.nextBatch() == [1])
        #expect(try reader.nextBatch() == [2])
        let error = try #require(throws: WebRecordError.self) { try reader.nextBatch() }
        #expect(error.code == .invalidResponseFormat)
        #expect(error.message.hasPrefix("cannot read the response: "))
        #expect(error.cause is Broken)
        // The reader stays failed.
        let again = try #require(throws: WebRecordError.self) { try reader.finish() }
        #expect(again.message == error.message)
    }

    @Test("Calls out of order are refused or answered sensibly")
    func callOrder() throws {
        let reader = JSONStreamReader(data: Data("[1, 2, 3]".utf8), keyPath: nil, batchByteLimit: 1)
        #expect(try #require(throws: WebRecordError.self) { try reader.nextBatch() }.code == .invalidArgument)
        #expect(try #require(throws: WebRecordError.self) { try reader.finish() }.code == .invalidArgument)
        _ = try reader.start()
        #expect(try #require(throws: WebRecordError.self) { try reader.start() }.code == .invalidArgument)
        #expect(try reader.nextBatch() == [1])
        // finish() reads and drops the elements not taken.
        #expect(try reader.finish() == [])
        #expect(try reader.nextBatch() == nil)
        #expect(try reader.finish() == [])

        let whole = JSONStreamReader(data: Data(#"{"a": 1}"#.utf8), keyPath: "data")
        guard case .whole(let value) = try whole.start() else {
            Issue.record("streamed")
            return
        }
        #expect(value == ["a": 1])
        #expect(try whole.nextBatch() == nil)
        #expect(try whole.finish() == value)
    }

    // MARK: Generation

    /// A random document with an array to stream, and its key path.
    static func generatedDocument(_ random: inout SeededRandom, round: Int) -> ([UInt8], String?) {
        let elements = (0..<random.next(below: 12)).map { _ in JSONFuzzTests.randomValue(&random, depth: 1) }
        let array = JSONValue.array(elements)
        let document: JSONValue
        let keyPath: String?
        switch round % 5 {
        case 0:
            document = array
            keyPath = round % 2 == 0 ? nil : "data"
        case 1:
            document = ["meta": JSONFuzzTests.randomValue(&random, depth: 2), "data": array, "n": 1]
            keyPath = "data"
        case 2:
            document = [
                "x": JSONFuzzTests.randomValue(&random, depth: 3),
                "a": ["pre": JSONFuzzTests.randomValue(&random, depth: 3), "b": ["data": array, "post": [1, [2]]]],
                "tail": JSONFuzzTests.randomValue(&random, depth: 3),
            ]
            keyPath = "a.b.data"
        case 3:
            document = ["dé": ["日本": array], "after": "\"\\"]
            keyPath = "dé.日本"
        default:
            document = ["data": array]
            keyPath = round % 3 == 0 ? "data" : "missing"
        }
        return (Array(noisyText(document, &random).utf8), keyPath)
    }

    /// `value` as JSON text with random whitespace between tokens and random escapes in strings.
    static func noisyText(_ value: JSONValue, _ random: inout SeededRandom) -> String {
        var text = ""
        write(value, to: &text, &random)
        return space(&random) + text + space(&random)
    }

    private static func space(_ random: inout SeededRandom) -> String {
        ["", "", "", " ", "\n", "\t", "\r\n", "\r", "  \n  "][random.next(below: 9)]
    }

    private static func write(_ value: JSONValue, to text: inout String, _ random: inout SeededRandom) {
        switch value {
        case .array(let elements):
            text += "[" + space(&random)
            for (index, element) in elements.enumerated() {
                if index > 0 { text += space(&random) + "," + space(&random) }
                write(element, to: &text, &random)
            }
            text += space(&random) + "]"
        case .object(let object):
            text += "{" + space(&random)
            for (index, member) in object.enumerated() {
                if index > 0 { text += space(&random) + "," + space(&random) }
                text += noisyString(member.key, &random) + space(&random) + ":" + space(&random)
                write(member.value, to: &text, &random)
            }
            text += space(&random) + "}"
        case .string(let string):
            text += noisyString(string, &random)
        default:
            text += value.serialized()
        }
    }

    /// A string as JSON text, with some characters escaped that need not be.
    private static func noisyString(_ string: String, _ random: inout SeededRandom) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            let escape = random.next(below: 4) == 0
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "/" where escape: text += "\\/"
            case "\n": text += escape ? "\\u000a" : "\\n"
            case _ where scalar.value < 0x20 || escape:
                if scalar.value > 0xFFFF {
                    let value = scalar.value - 0x10000
                    text += hexEscape(0xD800 + (value >> 10)) + hexEscape(0xDC00 + (value & 0x3FF))
                } else {
                    text += hexEscape(scalar.value)
                }
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    private static func hexEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: value % 2 == 0)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

@Suite("JSON stream reader: projected records")
struct JSONStreamReaderProjectionTests {
    static let names = JSONStreamReaderCorpusTests.names

    @Test(
        "Every corpus file, as a dropped, a whole or a chosen member of a record, reads as JSONReader reads it",
        arguments: names)
    func corpusFileAsMember(_ name: String) throws {
        let bytes = try JSONTestSuiteCorpus.bytes(name)
        let wrappings: [(String, String)] = [
            ("{\"data\":[{\"id\": 1, \"dropped\": ", ", \"text\": \"t\"}, 2]}"),
            ("{\"data\":[{\"dropped\":\n", "}]}"),
            ("{\"data\":[{\"text\": ", ", \"k3\": [1]}]}"),
            ("{\"data\":[{\"a\": ", ", \"name\": {\"id\": 2}}]}"),
            ("{\"data\":[[{\"user\": {\"name\": ", "}}]]}"),
            ("{\"data\":[", "]}"),
        ]
        for (head, tail) in wrappings {
            let document = Array(head.utf8) + bytes + Array(tail.utf8)
            StreamTesting.compare(
                document, keyPath: "data", projection: StreamTesting.testProjection,
                label: "\(name) in \(head)…\(tail)")
        }
    }

    @Test("A record's members are kept, chosen again or dropped by key, wherever they are")
    func projectedRecord() throws {
        let text = #"""
            {"data": [
              {"id": 1, "name": "dropped", "user": {"id": 2, "name": "dropped too", "text": {"name": "kept whole"}},
               "k3": [{"name": 1}], "a": [{"id": 3, "name": 4}, {"name": 5}], "z": {"id": 6}},
              {"name": "only dropped members"},
              "not an object", [ {"id": 7, "q": 8} ]
            ], "name": "the envelope is read whole"}
            """#
        let read = StreamTesting.streamRead(
            Array(text.utf8), keyPath: "data", settings: .defaults, projection: StreamTesting.testProjection)
        #expect(read.error == nil)
        #expect(
            read.elements == [
                [
                    "id": 1, "user": ["id": 2, "text": ["name": "kept whole"]], "k3": [["name": 1]],
                    "a": [["id": 3], [:]],
                ],
                [:], "not an object", [["id": 7]],
            ])
        #expect(read.envelope == ["data": [], "name": "the envelope is read whole"])
    }

    @Test("A projection is made from every key path the schema reads")
    func projectionOfSchema() throws {
        let schema = try Schema(
            json: #"""
                {"entities": {
                  "Post": {"primaryKey": "id",
                    "attributes": {"id": {"type": "string"}, "avatar": {"type": "string", "key": "user_info.avatar.url"},
                      "first": {"type": "json", "key": "tags.0"}, "cell": {"type": "json", "key": "grid.1.0"},
                      "label": {"type": "string", "key": "labels.0.text"}},
                    "relationships": {"author": {"destination": "User", "key": "meta.author"}},
                    "subentities": {"key": "kind.name", "map": {"long": "LongPost"}}},
                  "LongPost": {"parent": "Post", "attributes": {"words": {"type": "integer"}}},
                  "User": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string"}}}
                }}
                """#)
        let projection = KeyProjection(schema: schema)
        let expected: [String: KeyProjection.Decision] = [
            // An attribute's own name is one of its key paths too (after the key given).
            "id": .whole, "user_info": .descend, "avatar": .whole, "url": .whole, "meta": .descend,
            "author": .descend, "kind": .descend, "name": .whole, "words": .whole, "user": .skip,
            "avatar_url": .skip, "": .skip,
            // A path that ends in indexes keeps the member before them whole (an array's
            // element is the value), and the digits too; one that goes on after them does not.
            "tags": .whole, "0": .whole, "grid": .whole, "1": .whole, "labels": .descend, "text": .whole,
        ]
        for (key, decision) in expected {
            #expect(projection.decision(forKey: key) == decision, "\(key.debugDescription)")
        }
    }
}
