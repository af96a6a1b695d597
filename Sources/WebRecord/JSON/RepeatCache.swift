// Objects met again byte for byte: the parser's memory of the nested objects it parsed, so that
// an object whose text repeats one it parsed before (a post's user, on each of that user's
// posts) is shared instead of being parsed, allocated, compared and freed again.
//
// Sound because a value is a function of its text alone: the same bytes, from `{` to its `}`,
// always parse to the same value. The parser looks an object up only after a quick scan found
// its closing bracket within the bytes it holds; an entry is made only from an object the
// parser parsed whole, from the span it really parsed. Lookups go by a hash of the whole span,
// and only a full comparison makes a hit. So a scan that is wrong about an object's end (it
// does not validate), or a hash that collides, costs a lookup and changes nothing: a span that
// matches an entry byte for byte is the text of a valid object, and anything else is parsed
// as before, with its errors. The object's depth is kept with it, so that reusing it never
// goes deeper than the parser's limit.
//
// Bounded work: objects of `shortestSpan` to `spanLimit` bytes, at most `levelLimit` levels
// inside an element or document; while lookups spare little of what they scan, only one
// object in `sampling` is looked up. Bounded memory: when the entries' text passes `textLimit`
// bytes, the cache starts again.

/// The nested objects a parser (or the windows of one streamed input) parsed, by their text.
final class RepeatCache {
    /// A parsed object: the hash of its text, where the text is in `text`, how deep the
    /// object goes, and its value.
    struct Entry {
        var hash: UInt64
        var offset: Int
        var length: Int
        var depth: Int
        var value: JSONValue
    }

    /// The shortest object text looked up, in bytes: below it, parsing costs about what a
    /// lookup does.
    static let shortestSpan = 24
    /// The longest object text looked up, in bytes.
    static let spanLimit = 4096
    /// How many levels inside an element (or the document) an object may be to be looked up.
    static let levelLimit = 8
    /// The most entry text kept before the cache starts again, in bytes.
    static let textLimit = 2 << 20
    /// While lookups spare little, one object in this many is looked up.
    static let sampling = 16
    /// log2 of the number of slots: an entry lives in the slot its hash picks, and a later
    /// entry with the same slot replaces it.
    static let slotBits = 14

    private let slots: UnsafeMutablePointer<Int32>
    private var entries: [Entry] = []
    private var text: [UInt8] = []
    /// Bytes scanned for a lookup, and bytes a lookup spared the parser.
    private var scanned = 0
    private var spared = 0
    private var skippedSinceLookup = 0

    init() {
        slots = .allocate(capacity: 1 << Self.slotBits)
        slots.initialize(repeating: -1, count: 1 << Self.slotBits)
    }

    deinit {
        slots.deallocate()
    }

    /// The number of entries (for tests).
    var entryCount: Int { entries.count }
    /// The bytes of entry text kept (for tests).
    var textCount: Int { text.count }

    /// Whether to look the next object up: always while lookups spare at least a quarter of
    /// what they scan (and for the first 256 KB scanned), otherwise one time in `sampling`.
    @inline(__always)
    func shouldLook() -> Bool {
        if scanned <= (spared &<< 2) &+ (256 << 10) { return true }
        skippedSinceLookup &+= 1
        guard skippedSinceLookup >= Self.sampling else { return false }
        skippedSinceLookup = 0
        return true
    }

    /// Counts a scan of `length` bytes.
    @inline(__always)
    func noteScan(_ length: Int) {
        scanned &+= length
    }

    /// The entry whose text is the `length` bytes at `bytes`, which hash to `hash`, if any.
    @inline(__always)
    func entry(_ bytes: UnsafePointer<UInt8>, length: Int, hash: UInt64) -> Entry? {
        let found = Int(slots[Self.slot(hash)])
        guard found >= 0 else { return nil }
        let entry = entries[found]
        guard entry.hash == hash, entry.length == length else { return nil }
        let same = text.withUnsafeBufferPointer { stored in
            stored.baseAddress.map { equalBytes($0 + entry.offset, bytes, length) } ?? false
        }
        guard same else { return nil }
        spared &+= length
        return entry
    }

    /// Keeps an object the parser parsed whole from the `length` bytes at `bytes`, which hash
    /// to `hash`, with its depth.
    func insert(_ bytes: UnsafePointer<UInt8>, length: Int, hash: UInt64, depth: Int, value: JSONValue) {
        if text.count &+ length > Self.textLimit {
            slots.update(repeating: -1, count: 1 << Self.slotBits)
            entries.removeAll(keepingCapacity: true)
            text.removeAll(keepingCapacity: true)
        }
        slots[Self.slot(hash)] = Int32(truncatingIfNeeded: entries.count)
        entries.append(Entry(hash: hash, offset: text.count, length: length, depth: depth, value: value))
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }

    @inline(__always)
    private static func slot(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash &>> UInt64(64 &- slotBits))
    }

    /// A hash of the `length` bytes at `bytes`, eight at a time.
    static func hash(_ bytes: UnsafePointer<UInt8>, length: Int) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = 0x243F_6A88_85A3_08D3 ^ UInt64(truncatingIfNeeded: length)
        let raw = UnsafeRawPointer(bytes)
        var offset = 0
        while offset &+ 8 <= length {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash &>> 32
            offset &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < length {
            tail |= UInt64(bytes[offset]) &<< shift
            shift &+= 8
            offset &+= 1
        }
        hash = (hash ^ tail) &* multiplier
        return hash ^ (hash &>> 29)
    }
}
