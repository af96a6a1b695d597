// The parser's projection: in a streamed record, the members no mapping reads are checked and
// dropped without being built (see `KeyProjection`).
//
// A dropped member is read by `skipValue()`, which follows `parseValue(above:)` step for step
// with the same scanners (`scanKeyAndColon`, `skipPlainStringBytes`, `scanNumber`,
// `scanLiteral`, `openEmpty`) and builds nothing: every malformed input fails with the
// error, the detail and the offset that parsing it would give, and the depth limit holds. A
// record's dictionary is its members that are kept, in their order.

private let quote = UInt8(ascii: "\"")

extension JSONParser {
    /// Whether a container opened now is projected: one directly in a projected array, or in a
    /// member of a projected object that is not kept whole.
    @inline(__always)
    func opensProjected() -> Bool {
        guard containers.count > 0 else { return false }
        let parent = containers.base[containers.count &- 1]
        return parent.isProjected && !(parent.isObject && memberIsWhole)
    }

    /// Scans the key of the next member of the open object, at `position`; in a projected
    /// object, drops the members that are not kept, up to the next one that is.
    ///
    /// - Returns: true at the value of a member to build; false when every remaining member
    ///   was dropped, at what follows the last (the object's `}`, or what is wrong there).
    @inline(__always)
    mutating func enterMember() throws(JSONParseFailure) -> Bool {
        try scanKeyAndColon()
        guard containers.base[containers.count &- 1].isProjected else { return true }
        return try chooseMember()
    }

    private mutating func chooseMember() throws(JSONParseFailure) -> Bool {
        guard let projection else { return true }
        while true {
            let key = keys.base[keys.count &- 1]
            let decision =
                key.length >= 0
                ? projection.decision(forKey: bytes + key.offset, count: key.length, hash: key.hash)
                : projection.decision(forKey: escapedKeys.base[~key.length])
            if decision != .skip {
                memberIsWhole = decision == .whole
                return true
            }
            dropKey()
            try skipValue()
            skipWhitespace()
            guard position < end, bytes[position] == UInt8(ascii: ",") else { return false }
            position &+= 1
            skipWhitespace()
            try scanKeyAndColon()
        }
    }

    /// Pops the key just scanned.
    private mutating func dropKey() {
        if keys.popLast().length < 0 { _ = escapedKeys.popLast() }
    }

    /// Reads the value at `position` (whitespace skipped) as `parseValue(above:)` does, with
    /// the same failures, and builds nothing.
    mutating func skipValue() throws(JSONParseFailure) {
        let floor = containers.count
        skipping: while true {
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "expected a value")
            }
            switch bytes[position] {
            case quote:
                position &+= 1
                try skipString()
            case UInt8(ascii: "{"):
                if !(try openEmpty(isObject: true)) {
                    try scanKeyAndColon()
                    dropKey()
                    continue skipping
                }
            case UInt8(ascii: "["):
                if !(try openEmpty(isObject: false)) { continue skipping }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                _ = try scanNumber()
            case UInt8(ascii: "t"):
                try scanLiteral(0x74, 0x72, 0x75, 0x65, length: 4)
            case UInt8(ascii: "f"):
                try scanLiteral(0x66, 0x61, 0x6C, 0x73, length: 5)
            case UInt8(ascii: "n"):
                try scanLiteral(0x6E, 0x75, 0x6C, 0x6C, length: 4)
            default:
                throw JSONParseFailure(.unexpectedCharacter, at: position, "expected a value")
            }
            // A value is complete: continue or close the containers the skip opened.
            while containers.count > floor {
                let isObject = containers.base[containers.count &- 1].isObject
                skipWhitespace()
                guard position < end else {
                    throw JSONParseFailure(
                        .unexpectedEnd, at: position, isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                let next = bytes[position]
                if next == UInt8(ascii: ",") {
                    position &+= 1
                    skipWhitespace()
                    if isObject {
                        try scanKeyAndColon()
                        dropKey()
                    }
                    continue skipping
                }
                guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONParseFailure(
                        .unexpectedCharacter, at: position, isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                position &+= 1
                _ = containers.popLast()
            }
            return
        }
    }
}
