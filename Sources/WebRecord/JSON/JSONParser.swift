#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The byte-level JSON parser behind JSONReader.
//
// This file holds the structure (values, containers, keys, objects); strings are in
// JSONParser+Strings.swift, numbers in JSONParser+Numbers.swift, key prediction in
// KeyCache.swift, shared object layouts in LayoutCache.swift, and the manually managed
// stacks in ScratchStack.swift.
//
// Design, for speed:
// - It runs over an UnsafePointer<UInt8> with explicit bounds checks, never Array indexing.
// - It is iterative: open containers live on an explicit stack, and finished values wait on
//   a scratch value stack until their container closes; then they are *moved* (no
//   retain/release) into an exactly-sized Array. Depth is bounded by `maximumDepth`, and no
//   input can overflow the call stack.
// - Strings are scanned 8 bytes at a time (SWAR) for `"`, `\`, control bytes and non-ASCII
//   bytes; non-ASCII sequences are validated in place. A string without escapes is made
//   straight from the input bytes; one with escapes is decoded into a reused byte buffer.
// - Keys are not made into strings as they are read. A key is recognized by prediction
//   (`KeyCache`: the key that followed the previous key last time) or scanned and hashed, and
//   kept as an input range. When an object closes, its key sequence is looked up among the
//   layouts of recent objects (`LayoutCache`), so the objects of one shape share a single
//   `JSONObjectLayout` and keys become strings once per shape.
// - Integers are parsed by hand. Doubles take Clinger's exact fast path when the significand
//   fits 2^53 and the decimal exponent is within ±22, and otherwise fall back to `Double(_:)`
//   (strtod), so every result is correctly rounded.
// - Its end of input may be only the end of what JSONStreamReader holds of a longer input: the
//   parser must never decide on a byte more than 5 past `position`, and a decision that the end
//   of input changes must end in a throw at (or a few bytes from) the end.

/// An object key waiting for its object to close: where its bytes start in the input (after
/// the opening quote), and their count for a key without escapes; for a key with escapes,
/// `length` is negative: `~length` is the index of the decoded key in the escaped-key stack.
struct PendingKey {
    var offset: Int
    var length: Int
    var hash: UInt32
}

/// An open array or object.
struct OpenContainer {
    var isObject: Bool
    /// For an object to keep in the repeat cache once it closes, its text's length and depth
    /// as the scan found them (a length of 0 otherwise), and where it opens.
    var recording = RepeatRecording()
    /// Index in the value stack of the first element or member value.
    var valueStart: Int
    /// Index in the key stack of the first key (objects).
    var keyStart: Int
    var repeatStart = 0
    /// Whether the container's members are chosen by the parser's ``JSONParser/projection``:
    /// a streamed record, and what it holds outside the members kept whole.
    var isProjected = false
}

/// An object to keep in the repeat cache once it is parsed: its text's length and depth as
/// the scan found them, both at most `RepeatCache.spanLimit` (a length of 0: none).
struct RepeatRecording {
    var length: UInt16 = 0
    var depth: UInt16 = 0
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

struct JSONParser: ~Copyable {
    let bytes: UnsafePointer<UInt8>
    let end: Int
    var position = 0
    let maximumDepth: Int
    var values = ScratchStack<JSONValue>(capacity: 64)
    var keys = ScratchStack<PendingKey>(capacity: 32)
    /// Decoded keys that contained escapes, until their object closes.
    var escapedKeys = ScratchStack<String>(capacity: 4)
    var containers = ScratchStack<OpenContainer>(capacity: 16)
    var stringBuffer = ScratchBytes(capacity: 256)
    var keyCache: KeyCache
    var layoutCache: LayoutCache
    /// The keys written twice in one object, when the caller asked for them; nil (and no
    /// work) otherwise. See `JSONParser+DuplicateKeys.swift`.
    var repeatedKeys: [RepeatedKey]?
    /// The nested objects parsed so far, by their text, when repeats are shared; see
    /// `RepeatCache.swift`. Never with `repeatedKeys`: a shared object is not walked again.
    var repeats: RepeatCache?
    /// The members a population reads, when only those are to be built (see `KeyProjection`
    /// and `JSONParser+Projection.swift`); nil: every member is.
    var projection: KeyProjection?
    /// Whether the member being read, of a projected object, is one kept whole.
    var memberIsWhole = false

    init(_ bytes: UnsafePointer<UInt8>, count: Int, maximumDepth: Int, reportsRepeatedKeys: Bool = false) {
        self.bytes = bytes
        end = count
        self.maximumDepth = maximumDepth
        repeatedKeys = reportsRepeatedKeys ? [] : nil
        repeats = reportsRepeatedKeys || count < RepeatCache.smallestInput ? nil : RepeatCache(inputLength: count)
        keyCache = KeyCache(inputLength: count)
        layoutCache = LayoutCache(inputLength: count)
    }

    // MARK: Structure

    mutating func parseDocument() throws(JSONParseFailure) -> JSONValue {
        if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            throw JSONParseFailure(.unexpectedCharacter, at: 0, "a UTF-8 byte order mark is not allowed")
        }
        skipWhitespace()
        if position == end {
            throw JSONParseFailure(.emptyInput, at: position)
        }
        try parseValue(above: 0)
        skipWhitespace()
        if position < end {
            throw JSONParseFailure(.trailingContent, at: position)
        }
        return values.popLast()
    }

    /// Parses one value at `position` (whitespace already skipped) and pushes it on the value
    /// stack; `floor` containers are open around it (`containers.count`), and stay open.
    ///
    /// The containers below `floor` count towards ``maximumDepth`` but are not looked at: the
    /// document's top-level value has none, and a streamed array's element has the containers
    /// that enclose it (`JSONStreamReader`).
    @inline(__always)
    mutating func parseValue(above floor: Int) throws(JSONParseFailure) {
        parsing: while true {
            // Parse one value starting at `position` (whitespace already skipped).
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "expected a value")
            }
            let byte = bytes[position]
            value: switch byte {
            case quote:
                position &+= 1
                values.push(.string(try scanString()))
            case UInt8(ascii: "{"):
                var recording = RepeatRecording()
                if let repeats, containers.count > floor, containers.count &- floor <= RepeatCache.levelLimit,
                    projection == nil || opensProjected(), repeats.shouldLook()
                {
                    guard let toRecord = reuseRepeatedObject(repeats) else { break value }
                    recording = toRecord
                }
                if try openEmpty(isObject: true, recording: recording) {
                    values.push(.object(JSONObject()))
                } else if try enterMember() {
                    continue parsing
                }
            // Else every member was dropped (a projected object): the object closes below.
            case UInt8(ascii: "["):
                if try openEmpty(isObject: false) {
                    values.push(.array([]))
                } else {
                    continue parsing
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                values.push(try scanNumber())
            case UInt8(ascii: "t"):
                try scanLiteral(0x74, 0x72, 0x75, 0x65, length: 4)
                values.push(.bool(true))
            case UInt8(ascii: "f"):
                try scanLiteral(0x66, 0x61, 0x6C, 0x73, length: 5)
                values.push(.bool(false))
            case UInt8(ascii: "n"):
                try scanLiteral(0x6E, 0x75, 0x6C, 0x6C, length: 4)
                values.push(.null)
            default:
                throw JSONParseFailure(.unexpectedCharacter, at: position, "expected a value")
            }

            // A value is complete: continue or close the enclosing containers.
            while containers.count > floor {
                let container = containers.base[containers.count &- 1]
                skipWhitespace()
                guard position < end else {
                    throw JSONParseFailure(
                        .unexpectedEnd, at: position, container.isObject ? "expected ',' or '}'" : "expected ',' or ']'"
                    )
                }
                let next = bytes[position]
                if next == UInt8(ascii: ",") {
                    position &+= 1
                    skipWhitespace()
                    // Every remaining member dropped (a projected object): it closes next.
                    if container.isObject, !(try enterMember()) { continue }
                    continue parsing
                }
                if container.isObject {
                    guard next == UInt8(ascii: "}") else {
                        throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or '}'")
                    }
                    position &+= 1
                    _ = containers.popLast()
                    closeObject(container)
                    if container.recording.length != 0 { keepRepeat(container) }
                } else {
                    guard next == UInt8(ascii: "]") else {
                        throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or ']'")
                    }
                    position &+= 1
                    _ = containers.popLast()
                    closeArray(container)
                }
            }
            return
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < end {
            let byte = bytes[position]
            if byte > 0x20 { return }
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position &+= 1
        }
    }

    /// Opens a container at `position`; an object with a `recording` is kept in the repeat
    /// cache once it closes.
    @inline(__always)
    mutating func openContainer(isObject: Bool, recording: RepeatRecording = RepeatRecording()) throws(JSONParseFailure)
    {
        guard containers.count < maximumDepth else {
            var failure = JSONParseFailure(.tooDeep, at: position)
            failure.limit = maximumDepth
            throw failure
        }
        containers.push(
            OpenContainer(
                isObject: isObject, recording: recording, valueStart: values.count, keyStart: keys.count,
                repeatStart: position, isProjected: projection != nil && opensProjected()))
    }

    /// Opens the object or array whose bracket is at `position`, and skips the whitespace after
    /// it. When its closing bracket comes next, closes it too and returns true (an empty one).
    @inline(__always)
    mutating func openEmpty(isObject: Bool, recording: RepeatRecording = RepeatRecording()) throws(JSONParseFailure)
        -> Bool
    {
        try openContainer(isObject: isObject, recording: recording)
        position &+= 1
        skipWhitespace()
        guard position < end && bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
            return false
        }
        position &+= 1
        _ = containers.popLast()
        return true
    }

    /// Scans `"key"`, whitespace, `:` and whitespace, at `position` (whitespace skipped).
    @inline(__always)
    mutating func scanKeyAndColon() throws(JSONParseFailure) {
        guard position < end else {
            throw JSONParseFailure(.unexpectedEnd, at: position, "expected a string key")
        }
        guard bytes[position] == quote else {
            throw JSONParseFailure(.unexpectedCharacter, at: position, "expected a string key")
        }
        position &+= 1
        let start = position
        let lane = containers.count & 3
        if let predicted = keyCache.predict(bytes: bytes, start: start, end: end, lane: lane) {
            let slot = keyCache.slots[predicted]
            let length = Int(slot.length)
            position = start &+ length &+ 1
            keys.push(PendingKey(offset: start, length: length, hash: slot.hash))
        } else {
            try scanNewKey(start: start, lane: lane)
        }
        skipWhitespace()
        guard position < end else {
            throw JSONParseFailure(.unexpectedEnd, at: position, "expected ':'")
        }
        guard bytes[position] == UInt8(ascii: ":") else {
            throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ':'")
        }
        position &+= 1
        skipWhitespace()
    }

    /// Scans a key that was not predicted, from `start` (after the opening quote) to after
    /// the closing quote.
    mutating func scanNewKey(start: Int, lane: Int) throws(JSONParseFailure) {
        while true {
            skipPlainStringBytes()
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "unterminated string")
            }
            let byte = bytes[position]
            if byte == quote { break }
            if byte >= 0x80 {
                try skipUTF8Sequence()
                continue
            }
            if byte == backslash {
                keyCache.last = -1
                var key = try scanEscapedString(from: start)
                let hash = key.withUTF8 { jsonKeyHash($0) }
                keys.push(PendingKey(offset: start, length: ~escapedKeys.count, hash: hash))
                escapedKeys.push(key)
                return
            }
            throw JSONParseFailure(.controlCharacterInString, at: position)
        }
        let length = position &- start
        let hash = jsonKeyHash(bytes + start, length, readableEnd: bytes + end)
        keyCache.record(offset: start, length: length, hash: hash, lane: lane)
        position &+= 1
        keys.push(PendingKey(offset: start, length: length, hash: hash))
    }

    // Arrays are made with `append(contentsOf: MovingSequence)` rather than
    // `Array(unsafeUninitializedCapacity:)`: the latter allocates through an unspecialized
    // stdlib entry point that looks up the storage class's generic metadata on every call.

    mutating func closeArray(_ container: OpenContainer) {
        let start = container.valueStart
        var array: [JSONValue] = []
        array.append(contentsOf: MovingSequence(start: values.base + start, count: values.count &- start))
        values.count = start
        values.push(.array(array))
    }

    mutating func closeObject(_ container: OpenContainer) {
        let valueStart = container.valueStart
        let keyStart = container.keyStart
        let count = keys.count &- keyStart
        let pending = keys.base + keyStart
        if count == 0 {
            // A projected object whose every member was dropped.
            values.count = valueStart
            values.push(.object(JSONObject()))
            return
        }
        var storage: [JSONValue] = []
        storage.append(contentsOf: MovingSequence(start: values.base + valueStart, count: count))
        values.count = valueStart
        keys.count = keyStart

        // Objects of the same shape share one layout: look for this key sequence in the cache.
        var signature = UInt32(truncatingIfNeeded: count) &* 0x9E37_79B1
        for index in 0..<count {
            signature = (signature ^ pending[index].hash) &* 0x9E37_79B1
        }
        let bits = layoutCache.bits
        let slot = layoutCache.slots + Int(signature &>> (32 &- bits))
        let otherSlot = layoutCache.slots + Int((signature &>> (32 &- 2 &* bits)) & ((1 &<< bits) &- 1))
        if let entry = slot.pointee,
            layoutCache.entry(entry, matches: pending, count: count, input: bytes, inputEnd: bytes + end)
        {
            values.push(.object(JSONObject(layout: entry.layout, storage: storage)))
            return
        }
        if let entry = otherSlot.pointee,
            layoutCache.entry(entry, matches: pending, count: count, input: bytes, inputEnd: bytes + end)
        {
            values.push(.object(JSONObject(layout: entry.layout, storage: storage)))
            return
        }

        // A new shape: make the key strings.
        var keyArray: [String] = []
        keyArray.reserveCapacity(count)
        var hashArray: [UInt32] = []
        hashArray.reserveCapacity(count)
        var escapedCount = 0
        for index in 0..<count {
            let key = pending[index]
            if key.length >= 0 {
                keyArray.append(
                    String(decoding: UnsafeBufferPointer(start: bytes + key.offset, count: key.length), as: UTF8.self))
            } else {
                keyArray.append((escapedKeys.base + ~key.length).move())
                escapedCount &+= 1
            }
            hashArray.append(key.hash)
        }
        escapedKeys.count &-= escapedCount
        guard let layout = JSONObjectLayout(uniqueKeys: keyArray, hashes: hashArray) else {
            pushObject(withRepeatedKeys: keyArray, hashes: hashArray, values: storage)
            return
        }
        if escapedCount == 0 {
            let target = slot.pointee != nil && otherSlot.pointee == nil ? otherSlot : slot
            layoutCache.insert(layout, keys: pending, count: count, input: bytes, into: target)
        }
        values.push(.object(JSONObject(layout: layout, storage: storage)))
    }

    @inline(__always)
    mutating func scanLiteral(
        _ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, length: Int
    ) throws(JSONParseFailure) {
        if position &+ length <= end && bytes[position &+ 1] == b1 && bytes[position &+ 2] == b2
            && bytes[position &+ 3] == b3 && (length == 4 || bytes[position &+ 4] == UInt8(ascii: "e"))
        {
            position &+= length
            return
        }
        try literalFailure(length == 4 ? [b0, b1, b2, b3] : [b0, b1, b2, b3, UInt8(ascii: "e")])
    }

    @inline(never)
    func literalFailure(_ expected: [UInt8]) throws(JSONParseFailure) {
        for (index, byte) in expected.enumerated() {
            let at = position + index
            guard at < end else { throw JSONParseFailure(.unexpectedEnd, at: at) }
            guard bytes[at] == byte else { throw JSONParseFailure(.unexpectedCharacter, at: at, "expected a value") }
        }
    }
}
