import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Random documents, to exercise the reader's key prediction and shared object layouts, and
/// random corruptions, to check that bad input is always rejected cleanly.
@Suite("JSON fuzzing")
struct JSONFuzzTests {
    static let keyPool = [
        "id", "idx", "i", "name", "text", "user", "a", "ab", "abc", "é", "ключ", "k\"q", "back\\slash",
        "tab\t", "", "created_at", "avatar_image", "😀", "nul\u{0}", "x1", "x2", "x3", "x10", "x11",
    ]
    static let stringPool = [
        "", "plain", "with \"quotes\"", "back\\slash", "line\nbreak", "\u{1}\u{1F}", "é€𝄞", "日本語テキスト",
        String(repeating: "long text ", count: 20), "\u{2028}\u{FFFF}\u{10FFFF}", "/",
    ]
    /// Fixed key orders that repeat, as the objects of a web-service response do.
    static let shapes: [[String]] = [
        ["id", "name", "text", "user"], ["id", "idx", "i"], ["i", "idx", "id"],
        (1...40).map { "k\($0)" },
    ]

    static func randomValue(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        let choice = Int(random.next() % (depth > 4 ? 6 : 9))
        switch choice {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .integer(Int64(bitPattern: random.next()) >> Int64(random.next() % 63))
        case 3:
            let double = Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)
            return .double(random.next() % 2 == 0 ? double : -Double(random.next() % 100_000) / 64)
        case 4, 5: return .string(stringPool[Int(random.next() % UInt64(stringPool.count))])
        case 6:
            let count = Int(random.next() % 5)
            return .array((0..<count).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            if random.next() % 2 == 0 {
                for key in shapes[Int(random.next() % UInt64(shapes.count))] {
                    object[key] = randomValue(&random, depth: depth + 1)
                }
            } else {
                for _ in 0..<Int(random.next() % 6) {
                    object[keyPool[Int(random.next() % UInt64(keyPool.count))]] = randomValue(&random, depth: depth + 1)
                }
            }
            return .object(object)
        }
    }

    @Test("Random documents survive serialization in every style")
    func roundTrip() throws {
        var random = SeededRandom(seed: 42)
        for _ in 0..<300 {
            let value = Self.randomValue(&random, depth: 0)
            for (sorted, pretty) in [(false, false), (true, false), (false, true)] {
                let text = value.serialized(sortedKeys: sorted, prettyPrinted: pretty)
                let back = try JSONReader().read(text)
                #expect(back == value, "\(text)")
                if !sorted, case .object(let object) = value {
                    #expect(back.objectValue?.keys == object.keys)
                }
            }
        }
    }

    @Test("Arrays of objects with repeating and varying shapes read back exactly")
    func repeatingShapes() throws {
        var random = SeededRandom(seed: 7)
        var elements: [JSONValue] = []
        for _ in 0..<400 {
            var object = JSONObject()
            let shape = Self.shapes[Int(random.next() % UInt64(Self.shapes.count))]
            for key in shape where random.next() % 8 != 0 {
                object[key] = .integer(Int64(random.next() % 1000))
            }
            if random.next() % 4 == 0 {
                object["user"] = ["id": .integer(Int64(random.next() % 10)), "name": "n"]
            }
            elements.append(.object(object))
        }
        let value = JSONValue.array(elements)
        let back = try JSONReader().read(value.serialized())
        let array = try #require(back.arrayValue)
        #expect(array.count == elements.count)
        for (read, original) in zip(array, elements) {
            #expect(read == original)
            #expect(read.objectValue?.keys == original.objectValue?.keys)
            for key in original.objectValue?.keys ?? [] {
                #expect(read[key] == original[key])
            }
        }
    }

    @Test("Corrupted documents are accepted or rejected, with a valid position")
    func corruption() throws {
        var random = SeededRandom(seed: 99)
        let interesting: [UInt8] = Array(#"{}[]",:\ u0"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        for round in 0..<1500 {
            let original = Array(Self.randomValue(&random, depth: 2).serialized(prettyPrinted: round % 2 == 0).utf8)
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
                let byte =
                    random.next() % 2 == 0
                    ? interesting[Int(random.next() % UInt64(interesting.count))]
                    : UInt8(truncatingIfNeeded: random.next())
                switch random.next() % 3 {
                case 0 where !bytes.isEmpty: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: if !bytes.isEmpty { bytes.remove(at: position) }
                }
            }
            do {
                let value = try JSONReader().read(bytes)
                #expect(try JSONReader().read(value.serialized()) == value)
            } catch {
                #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1)
                #expect((0...bytes.count).contains(error.offset ?? -1))
                #expect(error.location == "line \(error.line ?? 0), column \(error.column ?? 0)")
            }
        }
    }

    @Test("Tens of thousands of distinct shapes are read correctly")
    func manyDistinctShapes() throws {
        let count = 70_000
        let text = "[" + (0..<count).map { #"{"k\#($0)": \#($0), "v": true}"# }.joined(separator: ",") + "]"
        let array = try #require(try JSONReader().read(text).arrayValue)
        #expect(array.count == count)
        for index in stride(from: 0, to: count, by: 997) {
            #expect(array[index]["k\(index)"] == .integer(Int64(index)))
            #expect(array[index].objectValue?.keys == ["k\(index)", "v"])
        }
        #expect(array[count - 1]["k\(count - 1)"] == .integer(Int64(count - 1)))
    }

    @Test("The MMRecord response fixtures read and round-trip")
    func responseFixtures() throws {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
            .appendingPathComponent("mmrecord")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(!names.isEmpty)
        for name in names {
            let value = try JSONReader().read(try Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(try JSONReader().read(value.serialized()) == value, "\(name)")
            #expect(value.objectValue != nil || value.arrayValue != nil, "\(name)")
        }
    }
}
