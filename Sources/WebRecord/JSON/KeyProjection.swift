/// The members of a streamed response's records that a population reads, so that the parser
/// builds only those: every other member is checked as it is read (a malformed one fails the
/// population as before) and dropped without being made into a value.
///
/// Decided by key alone, whatever the object: a key that any mapping of the schema names is
/// kept wherever it occurs, so a record's dictionary holds every member that a mapping, a
/// discriminator or a key could read. What an attribute's key names is kept whole (the value,
/// with everything nested in it), since an attribute can store a nested object or array as it
/// is; the components before the last of a key path, and the keys of relationships, lead to
/// objects whose own members are chosen again.
final class KeyProjection: Sendable {
    /// What becomes of a member.
    enum Decision: UInt8 {
        /// No mapping reads it: checked and dropped.
        case skip
        /// Kept; the members of objects in it are chosen again.
        case descend
        /// Kept whole, with everything nested in it.
        case whole
    }

    private struct Slot {
        /// The key's range in `keyBytes`; a count of -1 for an empty slot.
        var start: Int
        var count: Int
        var hash: UInt32
        var decision: Decision
    }

    // Immutable after `init`: read by one parser at a time, and by any thread.
    /// The kept keys' bytes, back to back.
    private nonisolated(unsafe) let keyBytes: UnsafeMutablePointer<UInt8>
    /// Open addressing by key hash.
    private nonisolated(unsafe) let slots: UnsafeMutablePointer<Slot>
    private let mask: Int

    /// A projection that keeps each key of `decisions` as it says (a key not in it is skipped).
    init(_ decisions: [String: Decision]) {
        let kept = decisions.filter { $0.value != .skip }.sorted { $0.key < $1.key }
        var capacity = 16
        while capacity < kept.count * 4 { capacity <<= 1 }
        let byteCount = kept.reduce(0) { $0 + $1.key.utf8.count }
        keyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(byteCount, 1))
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(start: 0, count: -1, hash: 0, decision: .skip), count: capacity)
        mask = capacity - 1
        var offset = 0
        for (key, decision) in kept {
            let hash = jsonKeyHash(key)
            var slot = Int(hash) & mask
            while slots[slot].count >= 0 { slot = (slot + 1) & mask }
            let utf8 = Array(key.utf8)
            (keyBytes + offset).initialize(from: utf8, count: utf8.count)
            slots[slot] = Slot(start: offset, count: utf8.count, hash: hash, decision: decision)
            offset += utf8.count
        }
    }

    deinit {
        keyBytes.deallocate()
        slots.deallocate()
    }

    /// What becomes of the member whose key is `count` bytes at `key`, with hash `hash`
    /// (``jsonKeyHash(_:_:readableEnd:)``).
    func decision(forKey key: UnsafePointer<UInt8>, count: Int, hash: UInt32) -> Decision {
        var slot = Int(hash) & mask
        while slots[slot].count >= 0 {
            let entry = slots[slot]
            if entry.hash == hash, entry.count == count, equalBytes(keyBytes + entry.start, key, count) {
                return entry.decision
            }
            slot = (slot + 1) & mask
        }
        return .skip
    }

    /// What becomes of the member whose key is `key` (a key that held escapes).
    func decision(forKey key: String) -> Decision {
        let bytes = Array(key.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                // The empty key: compared with no byte read.
                return decision(forKey: keyBytes, count: 0, hash: jsonKeyHash(""))
            }
            return decision(forKey: base, count: buffer.count, hash: jsonKeyHash(buffer))
        }
    }
}
