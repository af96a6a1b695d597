#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The byte-level JSON parser behind JSONReader.
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

/// An internal failure: what and where. ``JSONReaderError`` adds line, column and message.
struct JSONParseFailure: Error {
    var kind: JSONReaderError.Kind
    var offset: Int
    var detail: String?
    var limit: Int = 0

    init(_ kind: JSONReaderError.Kind, at offset: Int, _ detail: String? = nil) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }
}

/// A growable stack of values in manually managed memory, so that finished elements can be
/// moved out in bulk without reference counting.
struct ScratchStack<Element>: ~Copyable {
    var base: UnsafeMutablePointer<Element>
    var count: Int = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    @inline(never)
    mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func popLast() -> Element {
        count &-= 1
        return (base + count).move()
    }
}

/// A growable byte buffer for decoding strings that contain escapes.
struct ScratchBytes: ~Copyable {
    var base: UnsafeMutablePointer<UInt8>
    var count: Int = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count &+ extra) }
    }

    @inline(never)
    mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        (base + count).initialize(from: source, count: length)
        count &+= length
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    func makeString() -> String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}

/// Recently seen keys, to predict the next key of an object.
///
/// The keys of a web-service response come in the same order again and again (every post,
/// every user). Each slot (direct-mapped by key hash) remembers where a key's bytes are in the
/// input, its hash, and which slot's key followed it last time, per nesting depth modulo 4.
/// When the predicted key's bytes and closing quote are at the current position, the key is
/// recognized with one comparison, without scanning or hashing.
///
/// Keys are never made into strings here: objects refer to their keys by input offset until
/// they close (see `LayoutCache`).
struct KeyCache: ~Copyable {
    struct Slot {
        var hash: UInt32
        var length: Int32
        /// Where the key's bytes are in the input.
        var offset: Int
        /// Four 16-bit slot indices (per depth lane) of the key that followed; -1 if none.
        var next: UInt64
    }

    static let maximumKeyLength = 64
    let slots: UnsafeMutablePointer<Slot>
    let mask: Int
    /// The slot of the previous key, or -1 when it was not cached.
    var last = -1

    init(inputLength: Int) {
        var count = 16
        while count < 512 && count * 64 < inputLength { count <<= 1 }
        mask = count - 1
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        slots.initialize(repeating: Slot(hash: 0, length: -1, offset: 0, next: ~0), count: count)
    }

    deinit {
        slots.deallocate()
    }

    /// The slot of the key predicted to come next, if its bytes and a closing quote are at
    /// `start`.
    @inline(__always)
    mutating func predict(bytes: UnsafePointer<UInt8>, start: Int, end: Int, lane: Int) -> Int? {
        guard last >= 0 else { return nil }
        let predicted = Int(Int16(truncatingIfNeeded: slots[last].next &>> UInt64(lane &<< 4)))
        guard predicted >= 0 else { return nil }
        let slot = slots + predicted
        let length = Int(slot.pointee.length)
        guard start &+ length < end && bytes[start &+ length] == quote
            && equalBytes(
                bytes + slot.pointee.offset, bytes + start, length,
                tailIsReadable: Swift.max(slot.pointee.offset, start) + (length & ~7) + 8 <= end)
        else { return nil }
        last = predicted
        // Compare with this recent occurrence next time: it is likely still in the CPU cache.
        slot.pointee.offset = start
        return predicted
    }

    /// Records a key that was not predicted.
    @inline(__always)
    mutating func record(offset: Int, length: Int, hash: UInt32, lane: Int) {
        guard length <= Self.maximumKeyLength else {
            last = -1
            return
        }
        let index = Int(hash) & mask
        if last >= 0 {
            let shift = UInt64(lane &<< 4)
            slots[last].next = (slots[last].next & ~(0xFFFF &<< shift)) | (UInt64(index) &<< shift)
        }
        last = index
        let slot = slots + index
        if slot.pointee.hash != hash || Int(slot.pointee.length) != length {
            slot.pointee = Slot(hash: hash, length: Int32(length), offset: offset, next: ~0)
        } else {
            slot.pointee.offset = offset
        }
    }
}

/// Compares `count` bytes at `a` and `b`, a word at a time.
///
/// `tailIsReadable` says whether 8 bytes can be read at offset `count & ~7` of both (the
/// callers know it from where their bytes end): the last partial word is then loaded whole
/// and masked, instead of compared byte by byte.
@inline(__always)
func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int, tailIsReadable: Bool) -> Bool {
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    var i = 0
    while i &+ 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            return false
        }
        i &+= 8
    }
    if i == count { return true }
    if tailIsReadable {
        let mask: UInt64 = (1 &<< (UInt64(truncatingIfNeeded: count &- i) &<< 3)) &- 1
        let wa = UInt64(littleEndian: ra.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let wb = UInt64(littleEndian: rb.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        return (wa ^ wb) & mask == 0
    }
    while i < count {
        if a[i] != b[i] { return false }
        i &+= 1
    }
    return true
}

/// A sequence that *moves* elements out of manually managed memory.
///
/// `Array.append(contentsOf:)` reserves `underestimatedCount` and calls `_copyContents`,
/// which here is a single `moveInitialize`: the array is built with no per-element work and
/// no reference counting. The iterator moves elements one by one, so the result is the same
/// if a caller iterates instead. The sequence must be consumed entirely exactly once.
struct MovingSequence<Element>: Sequence {
    let start: UnsafeMutablePointer<Element>
    let count: Int

    struct Iterator: IteratorProtocol {
        var current: UnsafeMutablePointer<Element>
        let end: UnsafeMutablePointer<Element>

        @inline(__always)
        mutating func next() -> Element? {
            guard current < end else { return nil }
            let element = current.move()
            current += 1
            return element
        }
    }

    @inline(__always)
    var underestimatedCount: Int { count }

    @inline(__always)
    func makeIterator() -> Iterator { Iterator(current: start, end: start + count) }

    @inline(__always)
    func _copyContents(initializing buffer: UnsafeMutableBufferPointer<Element>) -> (Iterator, Int) {
        let moved = Swift.min(count, buffer.count)
        if moved > 0, let destination = buffer.baseAddress {
            destination.moveInitialize(from: start, count: moved)
        }
        return (Iterator(current: start + moved, end: start + count), moved)
    }
}

/// Layouts of recently closed objects, so that objects of the same shape share one.
///
/// Each entry keeps a compact copy of its keys' bytes (in arenas shared by all entries, so
/// that caching a shape allocates nothing), and a closing object is matched by comparing
/// bytes: no key becomes a `String` unless its shape is new. A shape may live in either of two
/// slots chosen by independent bits of its signature.
struct LayoutCache: ~Copyable {
    struct Entry {
        var layout: JSONObjectLayout
        /// The first of the entry's keys in `keys`.
        var keyStart: Int
        var count: Int
    }

    let slots: UnsafeMutablePointer<Entry?>
    let slotCount: Int
    /// log2(slotCount).
    let bits: UInt32
    /// Each cached key's hash and its range in `bytes`.
    var keys = ScratchStack<PendingKey>(capacity: 32)
    /// Cached key bytes, back to back; always followed by 8 readable bytes.
    var bytes = ScratchBytes(capacity: 256)

    init(inputLength: Int) {
        var bits: UInt32 = 4
        while bits < 8 && (1 << bits) * 256 < inputLength { bits += 1 }
        self.bits = bits
        slotCount = 1 << bits
        slots = UnsafeMutablePointer<Entry?>.allocate(capacity: slotCount)
        slots.initialize(repeating: nil, count: slotCount)
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    /// Remembers the layout of the pending keys (all without escapes) in `slot`.
    mutating func insert(
        _ layout: JSONObjectLayout, keys pending: UnsafeMutablePointer<PendingKey>, count: Int,
        input: UnsafePointer<UInt8>, into slot: UnsafeMutablePointer<Entry?>
    ) {
        if bytes.count > 1 << 20 || keys.count > 1 << 16 {
            // Many distinct shapes: start over rather than grow without bound.
            for index in 0..<slotCount { slots[index] = nil }
            keys.count = 0
            bytes.count = 0
        }
        let keyStart = keys.count
        for index in 0..<count {
            let key = pending[index]
            keys.push(PendingKey(offset: bytes.count, length: key.length, hash: key.hash))
            bytes.append(input + key.offset, count: key.length)
        }
        bytes.reserve(8)
        (bytes.base + bytes.count).initialize(repeating: 0, count: 8)
        slot.pointee = Entry(layout: layout, keyStart: keyStart, count: count)
    }

    /// Whether an entry holds exactly the pending keys, in order.
    @inline(__always)
    func entry(
        _ entry: borrowing Entry, matches pending: UnsafeMutablePointer<PendingKey>, count: Int,
        input: UnsafePointer<UInt8>, inputEnd: UnsafePointer<UInt8>
    ) -> Bool {
        guard entry.count == count else { return false }
        let cached = keys.base + entry.keyStart
        for index in 0..<count {
            let a = cached[index]
            let b = pending[index]
            guard a.hash == b.hash && a.length == b.length && b.length >= 0,
                // A cached key is followed by at least 8 readable bytes; the input's tail is checked.
                equalBytes(
                    bytes.base + a.offset, input + b.offset, a.length,
                    tailIsReadable: input + b.offset + (a.length & ~7) + 8 <= inputEnd)
            else { return false }
        }
        return true
    }
}

/// An object key waiting for its object to close: a range of the input for a key without
/// escapes, or (when `length` is -1) the index of a decoded key in the escaped-key stack.
struct PendingKey {
    var offset: Int
    var length: Int
    var hash: UInt32
}

/// An open array or object.
struct OpenContainer {
    var isObject: Bool
    /// Index in the value stack of the first element or member value.
    var valueStart: Int
    /// Index in the key stack of the first key (objects).
    var keyStart: Int
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

    init(_ bytes: UnsafePointer<UInt8>, count: Int, maximumDepth: Int) {
        self.bytes = bytes
        end = count
        self.maximumDepth = maximumDepth
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

        parsing: while true {
            // Parse one value starting at `position` (whitespace already skipped).
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "expected a value")
            }
            let byte = bytes[position]
            switch byte {
            case quote:
                position &+= 1
                values.push(.string(try scanString()))
            case UInt8(ascii: "{"):
                try openContainer(isObject: true)
                position &+= 1
                skipWhitespace()
                if position < end && bytes[position] == UInt8(ascii: "}") {
                    position &+= 1
                    _ = containers.popLast()
                    values.push(.object(JSONObject()))
                } else {
                    try scanKeyAndColon()
                    continue parsing
                }
            case UInt8(ascii: "["):
                try openContainer(isObject: false)
                position &+= 1
                skipWhitespace()
                if position < end && bytes[position] == UInt8(ascii: "]") {
                    position &+= 1
                    _ = containers.popLast()
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
            while containers.count > 0 {
                let container = containers.base[containers.count &- 1]
                skipWhitespace()
                guard position < end else {
                    throw JSONParseFailure(
                        .unexpectedEnd, at: position, container.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                let next = bytes[position]
                if next == UInt8(ascii: ",") {
                    position &+= 1
                    skipWhitespace()
                    if container.isObject { try scanKeyAndColon() }
                    continue parsing
                }
                if container.isObject {
                    guard next == UInt8(ascii: "}") else {
                        throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or '}'")
                    }
                    position &+= 1
                    _ = containers.popLast()
                    closeObject(container)
                } else {
                    guard next == UInt8(ascii: "]") else {
                        throw JSONParseFailure(.unexpectedCharacter, at: position, "expected ',' or ']'")
                    }
                    position &+= 1
                    _ = containers.popLast()
                    closeArray(container)
                }
            }
            break parsing
        }

        skipWhitespace()
        if position < end {
            throw JSONParseFailure(.trailingContent, at: position)
        }
        return values.popLast()
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

    @inline(__always)
    mutating func openContainer(isObject: Bool) throws(JSONParseFailure) {
        guard containers.count < maximumDepth else {
            var failure = JSONParseFailure(.tooDeep, at: position)
            failure.limit = maximumDepth
            throw failure
        }
        containers.push(OpenContainer(isObject: isObject, valueStart: values.count, keyStart: keys.count))
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
                keys.push(PendingKey(offset: escapedKeys.count, length: -1, hash: hash))
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
                keyArray.append((escapedKeys.base + key.offset).move())
                escapedCount &+= 1
            }
            hashArray.append(key.hash)
        }
        escapedKeys.count &-= escapedCount
        guard let layout = JSONObjectLayout(uniqueKeys: keyArray, hashes: hashArray) else {
            values.push(.object(JSONObject(keys: keyArray, hashes: hashArray, values: storage)))
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

    // MARK: Strings

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
        while true {
            skipPlainStringBytes()
            guard position < end else {
                throw JSONParseFailure(.unexpectedEnd, at: position, "unterminated string")
            }
            let byte = bytes[position]
            if byte == quote {
                let string = String(decoding: UnsafeBufferPointer(start: bytes + start, count: position &- start), as: UTF8.self)
                position &+= 1
                return string
            }
            if byte >= 0x80 {
                try skipUTF8Sequence()
                continue
            }
            if byte == backslash {
                return try scanEscapedString(from: start)
            }
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

    // MARK: Numbers

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
            return .number(String(decoding: UnsafeBufferPointer(start: bytes + start, count: position - start), as: UTF8.self))
        }
        return slowNumber(from: start)
    }

    /// Whether the number text in `start..<position` is `value`'s shortest form.
    @inline(__always)
    func isWrittenAsShortest(_ value: Double, from start: Int) -> Bool {
        var shortest = value.description
        return shortest.withUTF8 { text in
            guard text.count == position - start, let shortestBytes = text.baseAddress else { return false }
            return equalBytes(shortestBytes, bytes + start, text.count, tailIsReadable: false)
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
