/// The keys of one or more objects, in order, with their hashes and (for large objects) an
/// open-addressing index.
///
/// Layouts are shared between objects and treated as immutable once shared; `JSONObject`
/// mutates one only when it holds the sole reference (copy-on-write), which is what makes the
/// `@unchecked Sendable` conformance sound.
final class JSONObjectLayout: @unchecked Sendable {
    /// Objects with at most this many keys are searched linearly (by hash, then bytes).
    static let linearLimit = 32

    /// The layout of empty objects.
    static let empty = JSONObjectLayout(keys: [], hashes: [])

    // Unchecked exclusivity: these are only mutated while the layout is uniquely referenced,
    // and dynamic access checks would otherwise dominate lookups.
    @exclusivity(unchecked) private(set) var keys: [String]
    @exclusivity(unchecked) private(set) var hashes: [UInt32]
    /// Entry index + 1 per slot (0 is empty), power-of-two size; empty while
    /// `keys.count <= linearLimit`.
    @exclusivity(unchecked) private var table: [Int32] = []

    /// A layout for keys known to be unique.
    init(keys: [String], hashes: [UInt32]) {
        self.keys = keys
        self.hashes = hashes
        if keys.count > Self.linearLimit { _ = buildTable() }
    }

    /// A layout for keys that may repeat; nil when two keys are equal.
    init?(uniqueKeys keys: [String], hashes: [UInt32]) {
        self.keys = keys
        self.hashes = hashes
        let count = keys.count
        if count > Self.linearLimit {
            guard buildTable() else { return nil }
        } else if count > 1 {
            // A 128-bit filter of hashes; only a filter hit needs a scan of earlier keys.
            let duplicate = hashes.withUnsafeBufferPointer { hashes -> Bool in
                var low: UInt64 = 0
                var high: UInt64 = 0
                for i in 0..<count {
                    let hash = hashes[i]
                    let bit: UInt64 = 1 &<< UInt64(hash & 63)
                    let seen: Bool
                    if hash & 64 == 0 {
                        seen = low & bit != 0
                        low |= bit
                    } else {
                        seen = high & bit != 0
                        high |= bit
                    }
                    if seen {
                        for j in 0..<i where hashes[j] == hash && sameUTF8(keys[j], keys[i]) {
                            return true
                        }
                    }
                }
                return false
            }
            if duplicate { return nil }
        }
    }

    private init(copying other: JSONObjectLayout) {
        keys = other.keys
        hashes = other.hashes
        table = other.table
    }

    /// A copy that can be mutated.
    func copy() -> JSONObjectLayout { JSONObjectLayout(copying: self) }

    var count: Int { keys.count }

    /// Rebuilds the index. Returns false if two keys are equal (the index is then empty).
    private func buildTable() -> Bool {
        let count = keys.count
        guard count > Self.linearLimit else {
            table = []
            return true
        }
        var size = 64
        while size < count * 2 { size <<= 1 }
        let mask = size - 1
        var newTable: [Int32] = []
        newTable.reserveCapacity(size)
        newTable.append(contentsOf: repeatElement(0, count: size))
        let ok = hashes.withUnsafeBufferPointer { hashes in
            newTable.withUnsafeMutableBufferPointer { slots -> Bool in
                for i in 0..<count {
                    var slot = Int(hashes[i]) & mask
                    while true {
                        let stored = Int(slots[slot])
                        if stored == 0 {
                            slots[slot] = Int32(truncatingIfNeeded: i + 1)
                            break
                        }
                        if hashes[stored - 1] == hashes[i], sameUTF8(keys[stored - 1], keys[i]) {
                            return false
                        }
                        slot = (slot + 1) & mask
                    }
                }
                return true
            }
        }
        table = ok ? newTable : []
        return ok
    }

    /// Appends a key known not to be present. Only on an unshared layout.
    func append(key: String, hash: UInt32) {
        keys.append(key)
        hashes.append(hash)
        let count = keys.count
        if count <= Self.linearLimit { return }
        if table.count < count * 2 {
            _ = buildTable()
            return
        }
        let mask = table.count - 1
        var slot = Int(hash) & mask
        while table[slot] != 0 { slot = (slot + 1) & mask }
        table[slot] = Int32(truncatingIfNeeded: count)
    }

    /// Removes the key at `index`. Only on an unshared layout.
    func remove(at index: Int) {
        keys.remove(at: index)
        hashes.remove(at: index)
        _ = buildTable()
    }

    /// The position of this key (compared by UTF-8 bytes), if present.
    func index(forKey key: String, hash: UInt32) -> Int? {
        var key = key
        return key.withUTF8 { index(forKeyBytes: $0, hash: hash) }
    }

    /// The position of the key with these UTF-8 bytes, if present.
    func index(forKeyBytes key: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int? {
        hashes.withUnsafeBufferPointer { hashes -> Int? in
            if table.isEmpty {
                for i in hashes.indices where hashes[i] == hash {
                    if sameUTF8(keys[i], key) { return i }
                }
                return nil
            }
            return table.withUnsafeBufferPointer { slots -> Int? in
                let mask = slots.count - 1
                var slot = Int(hash) & mask
                while true {
                    let stored = Int(slots[slot])
                    if stored == 0 { return nil }
                    if hashes[stored - 1] == hash, sameUTF8(keys[stored - 1], key) { return stored - 1 }
                    slot = (slot + 1) & mask
                }
            }
        }
    }
}
