import Foundation
import Testing

@testable import WebRecord

@Suite("JSON value accessors and key paths")
struct JSONValueTests {
    @Test("Typed accessors return values only for their case")
    func accessors() {
        let string: JSONValue = "s"
        #expect(string.stringValue == "s")
        #expect(string.boolValue == nil && string.int64Value == nil && string.doubleValue == nil)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.integer(1).boolValue == nil)
        #expect(JSONValue.integer(3).doubleValue == 3.0)
        #expect(JSONValue.integer(-7).int64Value == -7)
        #expect(JSONValue.double(1e3).int64Value == 1000)
        #expect(JSONValue.double(1.5).int64Value == nil)
        #expect(JSONValue.double(1e19).int64Value == nil)
        #expect(JSONValue.double(-0.0).int64Value == 0)
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
        #expect(JSONValue.null.isNull)
        #expect(!JSONValue.string("null").isNull)
        #expect(JSONValue.array([1, 2]).arrayValue == [1, 2])
        #expect(JSONValue.string("x").arrayValue == nil)
        #expect(JSONValue.object(["a": 1]).objectValue?["a"] == .integer(1))
        #expect(JSONValue.array([]).objectValue == nil)
    }

    @Test("Type names for messages")
    func typeNames() {
        let names = ([.null, true, 1, 1.5, "s", [], [:]] as [JSONValue]).map(\.typeName)
        #expect(names == ["null", "boolean", "integer", "number", "string", "array", "object"])
    }

    @Test("Subscripts read object members and array elements, nil otherwise")
    func subscripts() {
        let value: JSONValue = ["a": [10, 20], "b": nil]
        #expect(value["a"]?[1] == .integer(20))
        #expect(value["a"]?[2] == nil)
        #expect(value["a"]?[-1] == nil)
        #expect(value["b"] == .null)
        #expect(value["c"] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.string("a")["a"] == nil)
    }

    @Test("Key paths walk objects and arrays")
    func keyPaths() throws {
        let value = try JSONReader().read(
            #"{"response": {"venues": [{"id": "v1", "location": {"lat": 1.5}}, {"id": "v2"}]}, "avatar_image": {"url": "u"}, "0": "zero", "": {"": "empty"}}"#
        )
        #expect(value.value(atKeyPath: "avatar_image.url") == "u")
        #expect(value.value(atKeyPath: "response.venues")?.arrayValue?.count == 2)
        #expect(value.value(atKeyPath: "response.venues.0.id") == "v1")
        #expect(value.value(atKeyPath: "response.venues.1.id") == "v2")
        #expect(value.value(atKeyPath: "response.venues.0.location.lat") == 1.5)
        #expect(value.value(atKeyPath: "response.venues.2.id") == nil)
        #expect(value.value(atKeyPath: "response.venues.x") == nil)
        #expect(value.value(atKeyPath: "response.missing") == nil)
        #expect(value.value(atKeyPath: "avatar_image.url.more") == nil)
        #expect(value.value(atKeyPath: "0") == "zero")
        #expect(value.value(atKeyPath: "") == value)
        #expect(value.value(atKeyPath: ".") == "empty")
        #expect(value.value(atKeyPath: "avatar_image.") == nil)
        #expect(JSONValue.integer(1).value(atKeyPath: "") == .integer(1))
        #expect(JSONValue.array([[5]]).value(atKeyPath: "0.0") == .integer(5))
        #expect(JSONValue.array([1]).value(atKeyPath: "99999999999999999999999") == nil)
    }

    @Test("Only all-digit components index arrays, leading zeros included")
    func keyPathIndexes() {
        let value: JSONValue = ["list": ["a", "b"]]
        #expect(value.value(atKeyPath: "list.1") == "b")
        #expect(value.value(atKeyPath: "list.01") == "b")
        #expect(value.value(atKeyPath: "list.0000000000000000000001") == "b")
        #expect(value.value(atKeyPath: "list.+1") == nil)
        #expect(value.value(atKeyPath: "list.-1") == nil)
        #expect(value.value(atKeyPath: "list. 1") == nil)
        #expect(value.value(atKeyPath: "list.") == nil)
    }

    @Test("A key path starting at an object reads its first component as a key, through objects of changing shapes")
    func keyPathInObjects() throws {
        let path = JSONKeyPath("user.name")
        let first = try #require(try JSONReader().read(#"{"user": {"id": 1, "name": "a"}}"#).objectValue)
        let second = try #require(try JSONReader().read(#"{"user": {"name": "b", "id": 2}}"#).objectValue)
        let third = try #require(try JSONReader().read(#"{"user": {"id": 3}}"#).objectValue)
        // The same path through objects of different shapes, and back: each lookup follows the shape.
        #expect(path.value(in: first) == "a")
        #expect(path.value(in: second) == "b")
        #expect(path.value(in: third) == nil)
        #expect(path.value(in: first) == "a")
        #expect(path.text == "user.name")
        let empty: JSONObject = ["": "empty key"]
        // Unlike value(atKeyPath:), whose empty path is the value itself, "" is the empty key here.
        #expect(JSONKeyPath("").value(in: empty) == "empty key")
        #expect(JSONKeyPath("").value(in: .object(empty)) == "empty key")
        #expect(JSONValue.object(empty).value(atKeyPath: "") == .object(empty))
    }

    @Test("A kept key path and a one-time walk read the same values")
    func keptAndOneTimeWalksAgree() throws {
        let value = try JSONReader().read(
            #"{"a": {"b": [10, {"c": null}], "": {"": 1}}, "0": "zero", "list": [[1, 2], [3]]}"#)
        let paths = [
            "a", "a.b", "a.b.0", "a.b.1.c", "a.b.2", "a.b.x", "a..", "a.", "0", "list.1.0", "list.01.0", "list.+1",
            "list.0.5", "missing", "a.b.1.c.d", ".", "",
        ]
        for path in paths {
            let kept = JSONKeyPath(path)
            let once = JSONKeyPath.value(atPath: path, in: value)
            #expect(kept.value(in: value) == once, "\(path)")
            // Twice, so that the second walk uses the positions the first one cached.
            #expect(kept.value(in: value) == once, "\(path), again")
            if let object = value.objectValue {
                #expect(kept.value(in: object) == once, "\(path), from the object")
            }
        }
        #expect(JSONKeyPath.value(atPath: "a.b.1.c", in: value) == .null)
        #expect(JSONKeyPath.value(atPath: "a..", in: value) == 1)
    }

    @Test("Literals build the matching cases")
    func literals() {
        let value: JSONValue = ["s": "x", "i": 1, "d": 1.5, "b": false, "n": nil, "a": [1, "2"], "o": ["k": true]]
        let object = value.objectValue
        #expect(object?["s"] == .string("x"))
        #expect(object?["i"] == .integer(1))
        #expect(object?["d"] == .double(1.5))
        #expect(object?["b"] == .bool(false))
        #expect(object?["n"] == .null)
        #expect(object?["a"] == .array([.integer(1), .string("2")]))
        #expect(object?["o"] == .object(JSONObject([(key: "k", value: .bool(true))])))
        #expect(object?.keys == ["s", "i", "d", "b", "n", "a", "o"])
    }

    @Test("Integers and doubles are distinct values")
    func integerVersusDouble() {
        #expect(JSONValue.integer(1) != JSONValue.double(1))
        #expect(JSONValue.double(0) == JSONValue.double(-0.0))
    }

    @Test("description is the compact serialization")
    func descriptionIsSerialized() {
        let value: JSONValue = ["a": [1, nil]]
        #expect(value.description == #"{"a":[1,null]}"#)
        #expect("\(value)" == value.serialized())
        #expect(value.objectValue?.description == #"{"a":[1,null]}"#)
    }
}

@Suite("JSON object")
struct JSONObjectTests {
    @Test("Pairs and literals keep first-seen order; the last duplicate wins")
    func duplicateRule() {
        let object = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
        let literal: JSONObject = ["x": 1, "y": 2, "x": 3]
        #expect(literal.keys == ["x", "y"])
        #expect(literal["x"] == .integer(3))
        #expect(literal.values == [3, 2])
    }

    @Test("Setting replaces in place, appends new keys, and nil removes")
    func mutation() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = "one"
        object["c"] = .null
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["a"] == "one")
        #expect(object["c"] == .null)
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object["b"] == nil)
        #expect(object.count == 2)
        object["missing"] = nil
        #expect(object.count == 2)
        object["b"] = 5
        #expect(object.keys == ["a", "c", "b"])
        var empty = JSONObject()
        #expect(empty.isEmpty)
        empty["k"] = 1
        #expect(!empty.isEmpty && empty.count == 1)
    }

    @Test("Large objects index their keys; mutation keeps lookups right")
    func largeObject() {
        var object = JSONObject()
        for index in 0..<200 {
            object["key\(index)"] = .integer(Int64(index))
        }
        #expect(object.count == 200)
        for index in 0..<200 {
            #expect(object["key\(index)"] == .integer(Int64(index)))
        }
        object["key100"] = nil
        #expect(object["key100"] == nil)
        #expect(object["key101"] == .integer(101))
        #expect(object.keys[100] == "key101")
        object["key100"] = "back"
        #expect(object.keys.last == "key100")
        #expect(object["key100"] == "back")
        #expect(object["nope"] == nil)
    }

    @Test("Objects that share a parsed layout are copied on write")
    func copyOnWrite() throws {
        let value = try JSONReader().read(#"[{"a": 1, "b": 2}, {"a": 3, "b": 4}]"#)
        var first = try #require(value[0]?.objectValue)
        let second = try #require(value[1]?.objectValue)
        first["c"] = 5
        first["a"] = nil
        #expect(first.keys == ["b", "c"])
        #expect(second.keys == ["a", "b"])
        #expect(second["a"] == .integer(3))
        #expect(value[0]?.objectValue?.keys == ["a", "b"])
        #expect(value[0]?["a"] == .integer(1))
    }

    @Test("Iteration visits members in order")
    func iteration() {
        let object: JSONObject = ["z": 1, "a": 2, "m": 3]
        var visited: [String] = []
        for (key, value) in object {
            visited.append("\(key)=\(value)")
        }
        #expect(visited == ["z=1", "a=2", "m=3"])
        #expect(object.underestimatedCount == 3)
    }

    @Test("Equality and hashing ignore key order")
    func equalityIgnoresOrder() throws {
        let a: JSONObject = ["x": 1, "y": [true]]
        let b: JSONObject = ["y": [true], "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["x": 1, "y": [false]])
        #expect(a != ["x": 1])
        #expect(a != ["x": 1, "z": [true]])
        let parsed = try JSONReader().read(#"{"y": [true], "x": 1}"#)
        #expect(parsed == .object(a))
        #expect(Set([JSONValue.object(a), .object(b)]).count == 1)
    }
}

@Suite("JSON value equality")
struct JSONValueEqualityTests {
    /// `é` as one code point and as `e` with a combining accent: one Swift string, two JSON strings.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test("Strings, number texts and keys compare byte for byte, as JSON and the store compare them")
    func bytesNotCanonicalEquivalence() throws {
        #expect(Self.composed == Self.decomposed)  // Swift's String ==, which JSON does not use
        #expect(JSONValue.string(Self.composed) != .string(Self.decomposed))
        #expect(JSONValue.string(Self.composed) == .string("caf\u{E9}"))
        #expect(JSONValue.number("1.10") != .number("1.1"))
        let composedKey = JSONValue.object(JSONObject([(key: Self.composed, value: 1)]))
        let decomposedKey = JSONValue.object(JSONObject([(key: Self.decomposed, value: 1)]))
        #expect(composedKey != decomposedKey)
        #expect(Set([composedKey, decomposedKey, .string(Self.composed), .string(Self.decomposed)]).count == 4)
        // Read from text, escaped or not.
        let read = try JSONReader().read(#"[{"t": "caf\u00e9"}, {"t": "cafe\u0301"}, {"t": "café"}]"#)
        #expect(read[0] != read[1])
        #expect(read[0] == read[2])
        #expect(read[0]?.hashValue == read[2]?.hashValue)
    }

    @Test("Containers compare member by member, in any key order, nested and shared")
    func containers() throws {
        let a = try JSONReader().read(#"{"x": [1, {"y": "z", "w": null}], "v": 1.5}"#)
        let b = try JSONReader().read(#"{"v": 1.5, "x": [1, {"w": null, "y": "z"}]}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let c = try JSONReader().read(#"{"v": 1.5, "x": [1, {"w": null, "y": "Z"}]}"#)
        #expect(a != c)
        #expect(try JSONReader().read("[[1], [2]]") != JSONReader().read("[[1], [3]]"))
        #expect(try JSONReader().read("[[1], {}]") != JSONReader().read("[[1], []]"))
        #expect(try JSONReader().read("[1, 2]") != JSONReader().read("[1, 2, 3]"))
        #expect(JSONValue.integer(1) != .double(1.0))
        // One storage, equal at once; a copy changed, not.
        var d = a
        #expect(d == a)
        d = .object(JSONObject([(key: "x", value: a["x"]!), (key: "v", value: 2.5)]))
        #expect(d != a)
    }
}
