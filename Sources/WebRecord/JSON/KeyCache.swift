private let quote = UInt8(ascii: "\"")

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
        guard
            start &+ length < end && bytes[start &+ length] == quote
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
