#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Numbers: integers by hand, doubles by Clinger's fast path or `Double(_:)`.
extension JSONParser {
    /// Scans a number at `position` (a `-` or a digit).
    @inline(__always)
    mutating func scanNumber() throws(JSONParseFailure) -> JSONValue {
        let start = position
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position &+= 1
        }
        guard position < end else {
            throw JSONParseFailure(.invalidNumber, at: start, "expected a digit after '-'")
        }
        var significand: UInt64 = 0
        var digitCount = 0  // significant digits seen (from the first non-zero one)
        var exponent = 0  // decimal exponent to apply to `significand`
        var truncated = false  // whether significant digits were dropped

        let first = bytes[position] &- UInt8(ascii: "0")
        if first == 0 {
            position &+= 1
            if position < end && bytes[position] &- UInt8(ascii: "0") < 10 {
                throw JSONParseFailure(.invalidNumber, at: start, "leading zeros are not allowed")
            }
        } else if first < 10 {
            // Up to 19 digits fit a UInt64 without overflow.
            while position < end {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                if digitCount < 19 {
                    significand = significand &* 10 &+ UInt64(digit)
                } else {
                    truncated = truncated || digit != 0
                    exponent &+= 1
                }
                digitCount &+= 1
                position &+= 1
            }
        } else {
            throw JSONParseFailure(.invalidNumber, at: start, "expected a digit")
        }

        var isInteger = true
        if position < end && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position &+= 1
            guard position < end && bytes[position] &- UInt8(ascii: "0") < 10 else {
                throw JSONParseFailure(.invalidNumber, at: start, "expected a digit after '.'")
            }
            while position < end {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                if digitCount < 19 {
                    if significand != 0 || digit != 0 {
                        significand = significand &* 10 &+ UInt64(digit)
                        digitCount &+= 1
                    }
                    exponent &-= 1
                } else {
                    truncated = truncated || digit != 0
                }
                position &+= 1
            }
        }

        if position < end && bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position &+= 1
            var exponentNegative = false
            if position < end && (bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+")) {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position &+= 1
            }
            guard position < end && bytes[position] &- UInt8(ascii: "0") < 10 else {
                throw JSONParseFailure(.invalidNumber, at: start, "expected a digit in the exponent")
            }
            var explicitExponent = 0
            while position < end {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                if explicitExponent < 1_000_000 {
                    explicitExponent = explicitExponent &* 10 &+ Int(digit)
                }
                position &+= 1
            }
            exponent &+= exponentNegative ? -explicitExponent : explicitExponent
        }

        if isInteger && exponent == 0 {
            if !negative {
                if significand <= UInt64(Int64.max) { return .integer(Int64(significand)) }
            } else if significand == 0 {
                return .number("-0")  // not the integer 0: as text, it keeps its sign
            } else if significand <= UInt64(Int64.max) {
                return .integer(-Int64(significand))
            } else if significand == UInt64(Int64.max) &+ 1 {
                return .integer(Int64.min)
            }
        }

        // A double only when it is the number exactly as written: its shortest form is the text
        // itself (`0.1`, `1.5`, `5.0`). Anything else keeps its text (`.number`): `1.10`,
        // `1E2`, a 20-digit id, a 19-digit decimal, `1e400` — so that no digit, and no way of
        // writing it, is lost.
        if !truncated && digitCount <= 15 && significand != 0 && significand <= 1 << 53 && exponent >= -22
            && exponent <= 22
        {
            // Clinger's fast path: exact significand, exact power of ten, one rounding.
            var value = Double(significand)
            if exponent < 0 {
                value /= powersOfTen[-exponent]
            } else {
                value *= powersOfTen[exponent]
            }
            if negative { value = -value }
            if isWrittenAsShortest(value, from: start) { return .double(value) }
            return .number(
                String(decoding: UnsafeBufferPointer(start: bytes + start, count: position - start), as: UTF8.self))
        }
        return slowNumber(from: start)
    }

    /// Whether the number text in `start..<position` is `value`'s shortest form.
    @inline(__always)
    func isWrittenAsShortest(_ value: Double, from start: Int) -> Bool {
        var shortest = value.description
        return shortest.withUTF8 { text in
            guard text.count == position - start, let shortestBytes = text.baseAddress else { return false }
            return equalBytes(shortestBytes, bytes + start, text.count)
        }
    }

    /// The number text in `start..<position` as a value: a ``JSONValue/double(_:)`` when it is
    /// the double's shortest form, else ``JSONValue/number(_:)`` with the text (a number too
    /// large or too small for a double included).
    @inline(never)
    func slowNumber(from start: Int) -> JSONValue {
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: position - start), as: UTF8.self)
        if let value = Double(text), value.isFinite, value.description == text {
            return .double(value)
        }
        return .number(text)
    }
}

/// 10^0 ... 10^22, all exactly representable as `Double`.
private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
