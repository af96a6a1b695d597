import Foundation
import Testing

@testable import WebRecord

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("Strings escape quotes, backslashes and control characters; Unicode passes through")
    func stringEscaping() {
        let value = JSONValue.string("q\" b\\ s/ \n\r\t\u{8}\u{C} \u{0}\u{1}\u{1F}\u{7F} é 😀 \u{2028}")
        #expect(
            value.serialized()
                == "\"q\\\" b\\\\ s/ \\n\\r\\t\\b\\f \\u0000\\u0001\\u001f\u{7F} é 😀 \u{2028}\"")
    }

    @Test("Numbers, literals and containers in compact form")
    func compact() {
        let value: JSONValue = [
            "i": [0, -1, 9_223_372_036_854_775_807, -9_223_372_036_854_775_808],
            "d": [0.1, -0.0, 1e-7, .double(.leastNonzeroMagnitude), 1.7976931348623157e308, 100.0, 1e16],
            "l": [true, false, nil],
            "e": [[], [:]],
        ]
        #expect(
            value.serialized()
                == #"{"i":[0,-1,9223372036854775807,-9223372036854775808],"d":[0.1,-0.0,1e-07,5e-324,1.7976931348623157e+308,100.0,1e+16],"l":[true,false,null],"e":[[],{}]}"#
        )
    }

    @Test("Non-finite doubles are written as null")
    func nonFinite() {
        let value: JSONValue = [.double(.infinity), .double(-.infinity), .double(.nan)]
        #expect(value.serialized() == "[null,null,null]")
    }

    @Test("sortedKeys orders keys by code point, at every level")
    func sortedKeys() {
        let value: JSONValue = ["b": 1, "a": ["z": 1, "y": 2], "B": 3, "é": 4, "aa": 5]
        #expect(value.serialized() == #"{"b":1,"a":{"z":1,"y":2},"B":3,"é":4,"aa":5}"#)
        #expect(value.serialized(sortedKeys: true) == #"{"B":3,"a":{"y":2,"z":1},"aa":5,"b":1,"é":4}"#)
    }

    @Test("prettyPrinted indents by two spaces, one element per line")
    func prettyPrinted() {
        let value: JSONValue = ["b": [1, 2], "a": "x", "e": [], "o": [:], "n": ["k": nil]]
        let expected = """
            {
              "b": [
                1,
                2
              ],
              "a": "x",
              "e": [],
              "o": {},
              "n": {
                "k": null
              }
            }
            """
        #expect(value.serialized(prettyPrinted: true) == expected)
        #expect(JSONValue.integer(1).serialized(prettyPrinted: true) == "1")
        #expect(JSONValue.array([]).serialized(prettyPrinted: true) == "[]")
    }

    @Test("Sorted and pretty combine")
    func sortedAndPretty() {
        let value: JSONValue = ["b": 1, "a": 2]
        #expect(value.serialized(sortedKeys: true, prettyPrinted: true) == "{\n  \"a\": 2,\n  \"b\": 1\n}")
    }

    @Test("read(serialized(x)) == x")
    func roundTrip() throws {
        let value: JSONValue = [
            "text": "line\nbreak \"quoted\" \\ tab\t nul\u{0} é 𝄞",
            "numbers": [0, -0.0, 1, -1, 0.5, 1e300, .double(.leastNonzeroMagnitude), 9_223_372_036_854_775_807, 1e-7],
            "nested": [["a": [["b": [nil, true, false]]]]],
            "empty": ["": "", "o": [:], "a": []],
            "dup-order": ["z": 1, "a": 2],
        ]
        for (sorted, pretty) in [(false, false), (true, false), (false, true), (true, true)] {
            let text = value.serialized(sortedKeys: sorted, prettyPrinted: pretty)
            let back = try JSONReader().read(text)
            #expect(back == value, "\(text)")
            if !sorted {
                #expect(back.value(atKeyPath: "dup-order")?.objectValue?.keys == ["z", "a"])
            }
        }
    }

    @Test("serializedBytes matches serialized")
    func bytesMatchString() {
        let value: JSONValue = ["k": ["é", 1, 2.5, nil]]
        #expect(value.serializedBytes() == Array(value.serialized().utf8))
        #expect(
            value.serializedBytes(sortedKeys: true, prettyPrinted: true)
                == Array(value.serialized(sortedKeys: true, prettyPrinted: true).utf8))
    }
}
