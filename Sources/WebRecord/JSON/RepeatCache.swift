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
// inside an element or document, and every byte a scan reads, found or not, counted; while
// lookups spare less than a quarter of what they scan (a scan costs far less a byte than a
// parse), only one object in `sampling` is looked up.
// Bounded memory: when the entries' text would pass `textLimit` bytes, the cache keeps only the
// entries a lookup found since it was last full (so a working set of repeated objects, such as a
// stream's users, outlives the objects read once), and starts again when those alone fill half
// of it; and at the end of a streamed batch in which lookups spared less than a quarter of what they scanned,
// it forgets every entry no lookup found: in a stream without repeats, what is read once does
// not outlive its batch.

/// The nested objects a parser (or the windows of one streamed input) parsed, by their text.
final class RepeatCache {
    /// A parsed object: the hash of its text, where the text is in `text`, how deep the
    /// object goes, whether a lookup found it, and its value.
    struct Entry {
        var hash: UInt64
        var offset: Int
        var length: Int
        var depth: Int
        /// Whether a lookup found it (since the cache was last full): a later entry does not
        /// take its slot, and neither a batch's end nor a full cache forgets it.
        var wasMet = false
        var value: JSONValue
    }

    /// The shortest object text looked up, in bytes: below it, parsing costs about what a
    /// lookup does.
    static let shortestSpan = 24
    /// The longest object text looked up, in bytes.
    static let spanLimit = 4096
    /// How many levels inside an element (or the document) an object may be to be looked up.
    static let levelLimit = 8
    /// The most entry text a cache keeps by default, in bytes.
    static let defaultTextLimit = 8 << 20
    /// log2 of the most slots a cache has: a streamed input's, or a whole one of 4 MB or more.
    static let largestSlotBits = 16
    /// While lookups spare little, one object in this many is looked up.
    static let sampling = 16
    /// The smallest input a whole-document read keeps a cache for, in bytes.
    static let smallestInput = 4096

    /// log2 of the number of slots. An entry lives in one of two slots its hash picks: an
    /// empty one, or one whose entry no lookup found yet, which it replaces; when both hold
    /// entries that were found, it is not kept (nor kept by a batch's end).
    let slotBits: Int
    /// The most entry text kept, in bytes: past it, the cache keeps only the entries found
    /// since it was last full.
    let textLimit: Int
    /// How many times the cache was full (for tests).
    private(set) var fillCount = 0
    /// The slots, each an index in `entries` or -1; allocated at the first entry.
    private var slots: UnsafeMutablePointer<Int32>?
    private var entries: [Entry] = []
    private var text: [UInt8] = []
    /// Bytes scanned for a lookup, and bytes a lookup spared the parser.
    private var scanned = 0
    private var spared = 0
    private var skippedSinceLookup = 0
    /// `scanned` and `spared` when the batch began.
    private var batchStart = (scanned: 0, spared: 0)

    /// A cache for an input of `inputLength` bytes (nil: a stream, of any length): a slot for
    /// every 64 bytes of it, from 64 to 65,536 slots.
    init(inputLength: Int? = nil, textLimit: Int = RepeatCache.defaultTextLimit) {
        self.textLimit = textLimit
        var bits = Self.largestSlotBits
        if let inputLength {
            bits = 6
            while bits < Self.largestSlotBits && (64 << bits) < inputLength { bits += 1 }
        }
        slotBits = bits
    }

    deinit {
        slots?.deallocate()
    }

    /// The number of entries (for tests).
    var entryCount: Int { entries.count }
    /// The bytes of entry text kept (for tests).
    var textCount: Int { text.count }
    /// The bytes scans read (for tests).
    var scannedBytes: Int { scanned }

    /// Whether to look the next object up: always while what lookups scanned is at most four
    /// times what they spared plus 256 KB, otherwise one time in `sampling`.
    @inline(__always)
    func shouldLook() -> Bool {
        if scanned <= (spared &<< 2) &+ (256 << 10) { return true }
        skippedSinceLookup &+= 1
        guard skippedSinceLookup >= Self.sampling else { return false }
        skippedSinceLookup = 0
        return true
    }

    /// Counts `count` bytes read by a scan.
    @inline(__always)
    func noteScan(_ count: Int) {
        scanned &+= count
    }

    /// The entry whose text is the `length` bytes at `bytes`, which hash to `hash`, if any.
    @inline(__always)
    func entry(_ bytes: UnsafePointer<UInt8>, length: Int, hash: UInt64) -> Entry? {
        guard let slots else { return nil }
        var found = Int(slots[slot(hash)])
        if found < 0 || entries[found].hash != hash {
            found = Int(slots[otherSlot(hash)])
            guard found >= 0, entries[found].hash == hash else { return nil }
        }
        let entry = entries[found]
        guard entry.length == length else { return nil }
        let same = text.withUnsafeBufferPointer { stored in
            stored.baseAddress.map { equalBytes($0 + entry.offset, bytes, length) } ?? false
        }
        guard same else { return nil }
        spared &+= length
        if !entry.wasMet { entries[found].wasMet = true }
        return entry
    }

    /// Keeps an object the parser parsed whole from the `length` bytes at `bytes`, which hash
    /// to `hash`, with its depth.
    func insert(_ bytes: UnsafePointer<UInt8>, length: Int, hash: UInt64, depth: Int, value: JSONValue) {
        let slots = self.slots ?? makeSlots()
        if text.count &+ length > textLimit {
            fillCount &+= 1
            // Full: what lookups found since the cache was last full stays, to be found again
            // before it is next full; unless that alone fills half of it.
            keepFound(in: slots, forgettingMarks: true)
            if text.count &+ length > textLimit / 2 { removeAll() }
        }
        guard let free = freeSlot(hash, in: slots) else { return }
        free.pointee = Int32(truncatingIfNeeded: entries.count)
        entries.append(Entry(hash: hash, offset: text.count, length: length, depth: depth, value: value))
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Ends a batch: when its lookups spared less than a quarter of what they scanned, forgets
    /// every entry no lookup found, and its value.
    func endBatch() {
        let batch = (scanned: scanned &- batchStart.scanned, spared: spared &- batchStart.spared)
        batchStart = (scanned, spared)
        guard let slots, !entries.isEmpty, batch.spared &<< 2 < batch.scanned else { return }
        keepFound(in: slots, forgettingMarks: false)
    }

    /// Forgets every entry no lookup found, and its value and text; with `forgettingMarks`,
    /// the entries kept must be found again to outlive the next call.
    private func keepFound(in slots: UnsafeMutablePointer<Int32>, forgettingMarks: Bool) {
        let previous = entries
        let previousText = text
        slots.update(repeating: -1, count: 1 << slotBits)
        entries = []
        text = []
        previousText.withUnsafeBufferPointer { stored in
            guard let base = stored.baseAddress else { return }
            for var entry in previous where entry.wasMet {
                // A found entry whose two slots both went to found entries is let go too.
                guard let free = freeSlot(entry.hash, in: slots) else { continue }
                free.pointee = Int32(truncatingIfNeeded: entries.count)
                let start = base + entry.offset
                entry.offset = text.count
                text.append(contentsOf: UnsafeBufferPointer(start: start, count: entry.length))
                entries.append(entry)
            }
        }
        guard forgettingMarks else { return }
        for index in entries.indices { entries[index].wasMet = false }
    }

    /// Forgets every entry.
    func removeAll() {
        slots?.update(repeating: -1, count: 1 << slotBits)
        entries = []
        text = []
    }

    private func makeSlots() -> UnsafeMutablePointer<Int32> {
        let made = UnsafeMutablePointer<Int32>.allocate(capacity: 1 << slotBits)
        made.initialize(repeating: -1, count: 1 << slotBits)
        slots = made
        return made
    }

    @inline(__always)
    private func slot(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash &>> UInt64(64 &- slotBits))
    }

    @inline(__always)
    private func otherSlot(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &>> UInt64(64 &- 2 &* slotBits)) & ((1 &<< UInt64(slotBits)) &- 1))
    }

    /// The slot for a new entry with `hash`: an empty one of its two, or one whose entry no
    /// lookup found yet; nil when both hold entries that were found.
    private func freeSlot(_ hash: UInt64, in slots: UnsafeMutablePointer<Int32>) -> UnsafeMutablePointer<Int32>? {
        let first = slots + slot(hash)
        let second = slots + otherSlot(hash)
        if first.pointee < 0 { return first }
        if second.pointee < 0 { return second }
        if !entries[Int(first.pointee)].wasMet { return first }
        if !entries[Int(second.pointee)].wasMet { return second }
        return nil
    }

    /// A hash of the `length` bytes at `bytes`.
    @inline(__always)
    static func hash(_ bytes: UnsafePointer<UInt8>, length: Int) -> UInt64 {
        byteHash(bytes, length)
    }
}
