extension JSONValue {
    /// Returns the value as JSON text.
    ///
    /// The output is valid RFC 8259 JSON that ``JSONReader`` reads back to an equal value:
    ///
    /// - Object keys are written in stored (first-seen) order, or sorted by their UTF-8 bytes
    ///   (that is, by Unicode code point) when `sortedKeys` is true.
    /// - Strings escape `"` and `\` with a backslash, the control characters U+0008, U+0009,
    ///   U+000A, U+000C and U+000D as `\b`, `\t`, `\n`, `\f` and `\r`, and the other control
    ///   characters below U+0020 as `\u00XX` (lowercase hex). All other characters, including
    ///   non-ASCII ones, are written as UTF-8 without escaping; `/` is not escaped.
    /// - Integers are written in decimal. Doubles use Swift's shortest round-tripping form
    ///   (`0.1`, `1e-07`, `5e-324`, `-0.0`), which always has a fraction or an exponent so
    ///   that it reads back as ``double(_:)``. A non-finite double (which ``JSONReader``
    ///   never produces) is written as `null`.
    ///
    /// ```swift
    /// let value: JSONValue = ["b": [1, 2], "a": "x"]
    /// value.serialized()                  // {"b":[1,2],"a":"x"}
    /// value.serialized(sortedKeys: true)  // {"a":"x","b":[1,2]}
    /// value.serialized(prettyPrinted: true)
    /// // {
    /// //   "b": [
    /// //     1,
    /// //     2
    /// //   ],
    /// //   "a": "x"
    /// // }
    /// ```
    ///
    /// - Parameters:
    ///   - sortedKeys: Whether to sort object keys by code point instead of keeping their order.
    ///   - prettyPrinted: Whether to write one element or member per line with a 2-space
    ///     indent per level, and `"key": value` with a space after the colon. Empty arrays
    ///     and objects stay `[]` and `{}`. There is no trailing newline.
    /// - Returns: The JSON text; compact (no whitespace at all) unless `prettyPrinted`.
    public func serialized(sortedKeys: Bool = false, prettyPrinted: Bool = false) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys, prettyPrinted: prettyPrinted), as: UTF8.self)
    }

    /// Returns the value as UTF-8 encoded JSON text.
    ///
    /// Same output as ``serialized(sortedKeys:prettyPrinted:)``, without building a `String`.
    ///
    /// - Parameters:
    ///   - sortedKeys: Whether to sort object keys by code point instead of keeping their order.
    ///   - prettyPrinted: Whether to indent, one element or member per line.
    /// - Returns: The UTF-8 bytes of the JSON text.
    public func serializedBytes(sortedKeys: Bool = false, prettyPrinted: Bool = false) -> [UInt8] {
        var writer = JSONTextWriter(sortedKeys: sortedKeys, prettyPrinted: prettyPrinted)
        writer.write(self)
        return writer.output
    }
}

/// Appends JSON text for values to a byte buffer.
struct JSONTextWriter {
    var output: [UInt8] = []
    let sortedKeys: Bool
    let prettyPrinted: Bool

    init(sortedKeys: Bool, prettyPrinted: Bool) {
        self.sortedKeys = sortedKeys
        self.prettyPrinted = prettyPrinted
        output.reserveCapacity(64)
    }

    /// An array or object being written, with the position of its next element.
    private enum Frame {
        case array([JSONValue], next: Int)
        case object(keys: [String], values: [JSONValue], order: [Int], next: Int)
    }

    /// Writes a value. Iterative, so deep nesting cannot overflow the stack.
    mutating func write(_ root: JSONValue) {
        var stack: [Frame] = []
        var pending: JSONValue? = root
        while true {
            if let value = pending {
                pending = nil
                switch value {
                case .null:
                    appendASCII("null")
                case .bool(let bool):
                    appendASCII(bool ? "true" : "false")
                case .integer(let integer):
                    writeInteger(integer)
                case .double(let double):
                    appendASCII(double.isFinite ? double.description : "null")
                case .number(let text):
                    // Built in code, the text might not be a number: never write invalid JSON.
                    appendASCII(JSONNumberText.isJSONNumber(text) ? text : "null")
                case .string(let string):
                    writeString(string)
                case .array(let array):
                    if array.isEmpty {
                        appendASCII("[]")
                    } else {
                        output.append(UInt8(ascii: "["))
                        stack.append(.array(array, next: 0))
                    }
                case .object(let object):
                    if object.isEmpty {
                        appendASCII("{}")
                    } else {
                        output.append(UInt8(ascii: "{"))
                        let keys = object.keys
                        var order = Array(keys.indices)
                        if sortedKeys {
                            order.sort { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
                        }
                        stack.append(.object(keys: keys, values: object.values, order: order, next: 0))
                    }
                }
            }
            // Move on to the next element of the innermost open container, or close it.
            guard let frame = stack.popLast() else { return }
            let level = stack.count
            switch frame {
            case .array(let array, let next):
                if next < array.count {
                    if next > 0 { output.append(UInt8(ascii: ",")) }
                    newline(level: level + 1)
                    pending = array[next]
                    stack.append(.array(array, next: next + 1))
                } else {
                    newline(level: level)
                    output.append(UInt8(ascii: "]"))
                }
            case .object(let keys, let values, let order, let next):
                if next < order.count {
                    if next > 0 { output.append(UInt8(ascii: ",")) }
                    newline(level: level + 1)
                    writeString(keys[order[next]])
                    output.append(UInt8(ascii: ":"))
                    if prettyPrinted { output.append(UInt8(ascii: " ")) }
                    pending = values[order[next]]
                    stack.append(.object(keys: keys, values: values, order: order, next: next + 1))
                } else {
                    newline(level: level)
                    output.append(UInt8(ascii: "}"))
                }
            }
        }
    }

    private mutating func newline(level: Int) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    private mutating func appendASCII(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func writeInteger(_ value: Int64) {
        if value >= 0 && value < 10 {
            output.append(UInt8(truncatingIfNeeded: value) + UInt8(ascii: "0"))
            return
        }
        // Up to 20 characters ("-9223372036854775808"); digits produced backwards.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(truncatingIfNeeded: magnitude % 10) + UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            output.append(contentsOf: buffer[position...])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ string: String) {
        Self.appendString(string, to: &output)
    }

    /// Appends `string` to `output` as a JSON string literal, quotes included.
    ///
    /// The one place WebRecord escapes a string into JSON text: `"` and `\` with a backslash,
    /// U+0008, U+0009, U+000A, U+000C and U+000D as `\b`, `\t`, `\n`, `\f` and `\r`, the other
    /// control characters below U+0020 as `\u00XX` (lowercase hex), and everything else as
    /// plain UTF-8.
    @inline(__always)
    static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                default:
                    output.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)],
                    ])
                }
            }
            if runStart < bytes.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
