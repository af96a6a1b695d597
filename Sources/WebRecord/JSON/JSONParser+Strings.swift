#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

// Strings: scanning, escapes and UTF-8 validation.
extension JSONParser {
    /// Advances `position` over string bytes that need no attention: stops at `"`, `\`,
    /// a control byte, a non-ASCII byte, or the end of input.
    @inline(__always)
    mutating func skipPlainStringBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(bytes)
        while position &+ 8 <= end {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let special =
                (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
                    | ((word &- ones &* 0x20) & ~word) | word) & highBits
            if special != 0 {
                position &+= special.trailingZeroBitCount &>> 3
                return
            }
            position &+= 8
        }
        while position < end {
            let byte = bytes[position]
            if byte == quote || byte == backslash || byte < 0x20 || byte >= 0x80 { return }
            position &+= 1
        }
    }

    /// Scans a string whose opening quote has been consumed; leaves `position` after the
    /// closing quote.
    @inline(__always)
    mutating func scanString() throws(JSONParseFailure) -> String {
        let start = position
        guard try scanToStringEnd() else { return try scanEscapedString(from: start) }
        let string = String(
            decoding: UnsafeBufferPointer(start: bytes + start, count: position &- start), as: UTF8.self)
        position &+= 1
        return string
    }

    /// Reads a string's bytes after its opening quote as ``scanString()`` does, with the same
    /// failures, and makes no string of them (but of one with escapes, which is rare): a
    /// member a projection drops (`JSONParser+Projection.swift`).
    mutating func skipString() throws(JSONParseFailure) {
        let start = position
        if try scanToStringEnd() {
            position &+= 1
        } else {
            _ = try scanEscapedString(from: start)
        }
    }

    /// Moves over a string's bytes up to its closing quote (true) or its first backslash
    /// (false), checking them: a control byte or invalid UTF-8 fails, as does the end of input.
    @inline(__always)
    private mutating func scanToStringEnd() throws(JSONParseFailure) -> Bool {
        while true {
            skipPlainStringBytes()
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "unterminated string")
            }
            let byte = bytes[position]
            if byte == quote { return true }
            if byte >= 0x80 {
                try skipUTF8Sequence()
                continue
            }
            if byte == backslash { return false }
            throw JSONParseFailure(.controlCharacterInString, at: position)
        }
    }

    /// Continues a string at its first backslash, decoding into `stringBuffer`.
    @inline(never)
    mutating func scanEscapedString(from start: Int) throws(JSONParseFailure) -> String {
        stringBuffer.count = 0
        stringBuffer.append(bytes + start, count: position &- start)
        while true {
            let runStart = position
            skipPlainStringBytes()
            if position > runStart {
                stringBuffer.append(bytes + runStart, count: position &- runStart)
            }
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "unterminated string")
            }
            let byte = bytes[position]
            if byte == quote {
                position &+= 1
                return stringBuffer.makeString()
            }
            if byte >= 0x80 {
                let sequenceStart = position
                try skipUTF8Sequence()
                stringBuffer.append(bytes + sequenceStart, count: position &- sequenceStart)
                continue
            }
            if byte == backslash {
                try decodeEscape()
                continue
            }
            throw JSONParseFailure(.controlCharacterInString, at: position)
        }
    }

    /// Decodes the escape at `position` (a backslash) into `stringBuffer`.
    mutating func decodeEscape() throws(JSONParseFailure) {
        let escapeStart = position
        guard position &+ 1 < end else {
            throw JSONParseFailure(.unexpectedEnd, at: end, "unterminated escape sequence")
        }
        let decoded: UInt8
        switch bytes[position &+ 1] {
        case quote: decoded = quote
        case backslash: decoded = backslash
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            position &+= 2
            var scalar = try scanHex4(escapeStart: escapeStart)
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position < end else {
                    throw JSONParseFailure(.unexpectedEnd, at: end, "unterminated string")
                }
                guard bytes[position] == backslash else {
                    throw JSONParseFailure(
                        .invalidUnicodeEscape, at: escapeStart, "high surrogate not followed by a low surrogate")
                }
                guard position &+ 1 < end else {
                    throw JSONParseFailure(.unexpectedEnd, at: end, "unterminated escape sequence")
                }
                guard bytes[position &+ 1] == UInt8(ascii: "u") else {
                    throw JSONParseFailure(
                        .invalidUnicodeEscape, at: escapeStart, "high surrogate not followed by a low surrogate")
                }
                let lowStart = position
                position &+= 2
                let low = try scanHex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JSONParseFailure(
                        .invalidUnicodeEscape, at: escapeStart, "high surrogate not followed by a low surrogate")
                }
                scalar = 0x10000 &+ ((scalar &- 0xD800) &<< 10) &+ (low &- 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw JSONParseFailure(.invalidUnicodeEscape, at: escapeStart, "lone low surrogate")
            }
            appendUTF8(scalar)
            return
        default:
            throw JSONParseFailure(.invalidEscape, at: escapeStart)
        }
        stringBuffer.append(decoded)
        position &+= 2
    }

    /// Reads four hex digits at `position` and advances past them.
    @inline(__always)
    mutating func scanHex4(escapeStart: Int) throws(JSONParseFailure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: end, "unterminated \\u escape")
            }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default:
                throw JSONParseFailure(.invalidUnicodeEscape, at: escapeStart, "expected four hex digits")
            }
            value = value &<< 4 | UInt32(digit)
            position &+= 1
        }
        return value
    }

    @inline(__always)
    mutating func appendUTF8(_ scalar: UInt32) {
        stringBuffer.reserve(4)
        if scalar < 0x80 {
            stringBuffer.append(UInt8(truncatingIfNeeded: scalar))
        } else if scalar < 0x800 {
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xC0 | scalar &>> 6))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        } else if scalar < 0x10000 {
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xE0 | scalar &>> 12))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        } else {
            stringBuffer.append(UInt8(truncatingIfNeeded: 0xF0 | scalar &>> 18))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 12 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F))
            stringBuffer.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    /// Validates the UTF-8 sequence whose lead byte (>= 0x80) is at `position`, and advances
    /// past it. Errors point at the lead byte.
    @inline(never)
    mutating func skipUTF8Sequence() throws(JSONParseFailure) {
        let lead = bytes[position]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0:
            length = 3
            secondLow = 0xA0  // no overlong forms
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
        case 0xED:
            length = 3
            secondHigh = 0x9F  // no surrogates
        case 0xF0:
            length = 4
            secondLow = 0x90  // no overlong forms
        case 0xF1...0xF3:
            length = 4
        case 0xF4:
            length = 4
            secondHigh = 0x8F  // nothing above U+10FFFF
        default:
            throw JSONParseFailure(.invalidUTF8, at: position, invalidLeadDetail(lead))
        }
        guard position &+ length <= end else {
            throw JSONParseFailure(.invalidUTF8, at: position, "truncated sequence")
        }
        let second = bytes[position &+ 1]
        guard second >= secondLow && second <= secondHigh else {
            throw JSONParseFailure(.invalidUTF8, at: position, "ill-formed sequence")
        }
        var index = 2
        while index < length {
            guard bytes[position &+ index] & 0xC0 == 0x80 else {
                throw JSONParseFailure(.invalidUTF8, at: position, "ill-formed sequence")
            }
            index &+= 1
        }
        position &+= length
    }

    private func invalidLeadDetail(_ lead: UInt8) -> String {
        switch lead {
        case 0x80...0xBF: return "unexpected continuation byte"
        case 0xC0, 0xC1: return "overlong sequence"
        default: return "not a valid UTF-8 lead byte"
        }
    }
}
