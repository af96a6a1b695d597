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
