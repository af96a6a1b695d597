/// The text of a JSON number, read without rounding: how many significant digits it has,
/// whether it is exactly an integer, and its parts.
///
/// ``JSONValue/number(_:)`` keeps a number's text when neither `Int64` nor `Double` holds it
/// as written; these functions let coercion decide exactly what such a number means.
package enum JSONNumberText {
    /// A number's parts: its sign, its significant digits (no leading zeros, no trailing
    /// zeros) and the power of ten that scales them, so that the value is
    /// `sign × digits × 10^exponent`. Zero has empty digits.
    package struct Parts: Equatable {
        package var negative: Bool
        package var digits: [UInt8]
        package var exponent: Int
    }

    /// The parts of `text` when it is a number as JSON writes one, optionally with a leading
    /// `+`, a fraction without an integer part (`.5`) or a point without a fraction (`5.`),
    /// as number strings are written; nil for anything else (`"+-5"`, `"1.2.3"`, `"0x10"`,
    /// `"1e"`, `""`).
    package static func parts(of text: String) -> Parts? {
        parts(utf8: Array(text.utf8)[...])
    }

    /// ``parts(of:)`` of a number's UTF-8 bytes.
    package static func parts(utf8 bytes: ArraySlice<UInt8>) -> Parts? {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var utf8 = bytes
        if let first = utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        while let byte = utf8.first, byte >= 48, byte <= 57 {
            sawDigit = true
            if !(digits.isEmpty && byte == 48) { digits.append(byte - 48) }
            utf8 = utf8.dropFirst()
        }
        if utf8.first == UInt8(ascii: ".") {
            utf8 = utf8.dropFirst()
            while let byte = utf8.first, byte >= 48, byte <= 57 {
                sawDigit = true
                if !(digits.isEmpty && byte == 48) { digits.append(byte - 48) }
                exponent -= 1
                utf8 = utf8.dropFirst()
            }
        }
        guard sawDigit else { return nil }
        if let byte = utf8.first, byte | 0x20 == UInt8(ascii: "e") {
            utf8 = utf8.dropFirst()
            var exponentNegative = false
            if let sign = utf8.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                utf8 = utf8.dropFirst()
            }
            guard let firstDigit = utf8.first, firstDigit >= 48, firstDigit <= 57 else { return nil }
            var written = 0
            while let byte = utf8.first, byte >= 48, byte <= 57 {
                if written < 100_000_000 { written = written * 10 + Int(byte - 48) }
                utf8 = utf8.dropFirst()
            }
            exponent += exponentNegative ? -written : written
        }
        guard utf8.isEmpty else { return nil }
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { exponent = 0 }
        return Parts(negative: negative, digits: digits, exponent: exponent)
    }

    /// The integer `text` denotes, when it denotes exactly one within the `Int64` range
    /// (`"1e3"` is 1000; `"1.5"` and `"18446744073709551615"` are nil).
    package static func exactInteger(_ text: String) -> Int64? {
        guard let parts = parts(of: text), parts.exponent >= 0, parts.digits.count + parts.exponent <= 19 else {
            return nil
        }
        var magnitude: UInt64 = 0
        for digit in parts.digits + Array(repeating: 0, count: parts.exponent) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if parts.negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// The double `text` denotes when it holds the number exactly as written: its shortest
    /// form has the same digits and exponent (`"0.1"` and `"0.30000000000000004"` do;
    /// `"0.12345678901234567890"` and `"18446744073709551615"` do not). Nil otherwise.
    package static func double(exactly text: String) -> Double? {
        guard let written = parts(of: text), let value = Double(text), value.isFinite,
            parts(of: value.description) == written || (written.digits.isEmpty && value == 0)
        else { return nil }
        return value
    }

    /// Whether `text` is a number as RFC 8259 writes one.
    package static func isJSONNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                index += 1
            }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }
}
