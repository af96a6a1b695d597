/// A JSON object: string keys mapped to ``JSONValue``s, in first-seen order.
///
/// `JSONObject` remembers the order in which keys first appeared, so that
/// ``JSONValue/serialized(sortedKeys:prettyPrinted:)`` writes them back in document order,
/// and iteration visits them in that order.
///
/// **Duplicate keys.** When the same key appears more than once — in a parsed document,
/// in ``init(_:)``, or in a dictionary literal — the *last* value wins, and it is kept at the
/// position of the *first* occurrence:
///
/// ```swift
/// let object: JSONObject = ["a": 1, "b": 2, "a": 3]
/// object.keys        // ["a", "b"]
/// object["a"]        // .integer(3)
/// ```
///
/// **Key comparison.** Keys are compared by their UTF-8 bytes (code unit by code unit, as
/// RFC 8259 §8.3 describes), not by Swift's Unicode canonical equivalence: `"é"` (U+00E9) and
/// `"e\u{301}"` are two distinct keys.
///
/// **Equality.** Two objects are equal when they hold the same keys with equal values,
/// whatever the order of their keys. Compare ``keys`` to compare orders.
///
/// **Storage.** An object stores its values in an array, and its keys in a separate, shared
/// layout: the thousands of objects of one shape in a web-service response (every post, every
/// user) share a single copy of their keys and of their lookup index. Each key's hash is
/// computed once; lookups scan the hashes of small objects and use an open-addressing index
/// for objects with more than 32 keys.
public struct JSONObject: Sendable {
    /// The keys, shared between objects of the same shape.
    var layout: JSONObjectLayout
    /// The values, in key order.
    var storage: [JSONValue]

    /// Creates an empty object.
    public init() {
        layout = JSONObjectLayout.empty
        storage = []
    }

    /// Creates an object from a layout and its values (same count, keys unique).
    init(layout: JSONObjectLayout, storage: [JSONValue]) {
        self.layout = layout
        self.storage = storage
    }

    /// Creates an object from key-value pairs, in order.
    ///
    /// When a key appears more than once, the last value wins and is kept at the position of
    /// the first occurrence.
    ///
    /// - Parameter pairs: The members, in the order their keys should be kept.
    public init(_ pairs: [(key: String, value: JSONValue)]) {
        if pairs.isEmpty {
            self.init()
            return
        }
        let layout = JSONObjectLayout(keys: [], hashes: [])
        var storage: [JSONValue] = []
        storage.reserveCapacity(pairs.count)
        for pair in pairs {
            let hash = jsonKeyHash(pair.key)
            if let index = layout.index(forKey: pair.key, hash: hash) {
                storage[index] = pair.value
            } else {
                layout.append(key: pair.key, hash: hash)
                storage.append(pair.value)
            }
        }
        self.init(layout: layout, storage: storage)
    }

    /// Creates an object from parallel arrays of keys and values, applying the duplicate rule.
    init(keys: [String], hashes: [UInt32], values: [JSONValue]) {
        if let layout = JSONObjectLayout(uniqueKeys: keys, hashes: hashes) {
            self.init(layout: layout, storage: values)
        } else {
            self.init(Array(zip(keys, values).map { (key: $0.0, value: $0.1) }))
        }
    }

    /// The number of members.
    public var count: Int { storage.count }

    /// A Boolean value indicating whether the object has no members.
    public var isEmpty: Bool { storage.isEmpty }

    /// The keys, in first-seen order.
    public var keys: [String] { layout.keys }

    /// The values, in the order of their keys.
    public var values: [JSONValue] { storage }

    /// The value of the member whose key has these UTF-8 bytes, if any.
    func value(forKeyBytes key: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        guard !storage.isEmpty, let index = layout.index(forKeyBytes: key, hash: jsonKeyHash(key)) else {
            return nil
        }
        return storage[index]
    }

    /// Accesses the value for a key.
    ///
    /// Reading returns `nil` when the object has no such key (a JSON `null` member reads as
    /// ``JSONValue/null``, not `nil`).
    ///
    /// Writing a value replaces the value of an existing key in place, or appends a new key at
    /// the end. Writing `nil` removes the key; to store a JSON `null`, write `.null`.
    ///
    /// - Parameter key: The member name, compared by UTF-8 bytes.
    public subscript(key: String) -> JSONValue? {
        get {
            guard !storage.isEmpty else { return nil }
            var key = key
            return key.withUTF8 { value(forKeyBytes: $0) }
        }
        set {
            let hash = jsonKeyHash(key)
            if let index = storage.isEmpty ? nil : layout.index(forKey: key, hash: hash) {
                if let newValue {
                    storage[index] = newValue
                } else {
                    makeLayoutUnique()
                    layout.remove(at: index)
                    storage.remove(at: index)
                }
            } else if let newValue {
                makeLayoutUnique()
                layout.append(key: key, hash: hash)
                storage.append(newValue)
            }
        }
    }

    /// Copies the shared layout before mutating it (copy-on-write).
    private mutating func makeLayoutUnique() {
        if !isKnownUniquelyReferenced(&layout) {
            layout = layout.copy()
        }
    }
}

extension JSONObject: Equatable {
    /// Returns whether two objects have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.storage.count == rhs.storage.count else { return false }
        if lhs.layout === rhs.layout { return lhs.storage == rhs.storage }
        for (index, key) in lhs.layout.keys.enumerated() {
            guard let other = rhs.layout.index(forKey: key, hash: lhs.layout.hashes[index]),
                rhs.storage[other] == lhs.storage[index]
            else { return false }
        }
        return true
    }
}

extension JSONObject: Hashable {
    /// Hashes the members in an order-independent way, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined: UInt64 = 0
        for (index, key) in layout.keys.enumerated() {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            // Directly, not through `combine`'s generic path: fewer frames per level of a deep value.
            storage[index].hash(into: &memberHasher)
            combined &+= UInt64(truncatingIfNeeded: memberHasher.finalize())
        }
        hasher.combine(storage.count)
        hasher.combine(combined)
    }
}

extension JSONObject: Sequence {
    /// Iterates the members of a ``JSONObject`` in first-seen key order.
    public struct Iterator: IteratorProtocol {
        let keys: [String]
        let values: [JSONValue]
        var index = 0

        /// Returns the next member, or `nil` at the end.
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard index < values.count else { return nil }
            defer { index += 1 }
            return (key: keys[index], value: values[index])
        }
    }

    /// Returns an iterator over the members, in first-seen key order.
    public func makeIterator() -> Iterator { Iterator(keys: layout.keys, values: storage) }

    /// The number of members.
    public var underestimatedCount: Int { storage.count }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a dictionary literal, keeping the literal's key order.
    ///
    /// A repeated key follows the duplicate rule: the last value wins, at the first position.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as compact JSON text, keys in stored order.
    public var description: String { JSONValue.object(self).serialized() }
}

// MARK: - Layout

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
                        for j in 0..<i where hashes[j] == hash && jsonKeysEqual(keys[j], keys[i]) {
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
                        if hashes[stored - 1] == hashes[i], jsonKeysEqual(keys[stored - 1], keys[i]) {
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
                    if jsonKey(keys[i], equals: key) { return i }
                }
                return nil
            }
            return table.withUnsafeBufferPointer { slots -> Int? in
                let mask = slots.count - 1
                var slot = Int(hash) & mask
                while true {
                    let stored = Int(slots[slot])
                    if stored == 0 { return nil }
                    if hashes[stored - 1] == hash, jsonKey(keys[stored - 1], equals: key) { return stored - 1 }
                    slot = (slot + 1) & mask
                }
            }
        }
    }
}

// MARK: - Key hashing and comparison

/// A fast, non-cryptographic hash of a key's UTF-8 bytes (stable within a process).
@inline(__always)
func jsonKeyHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
    jsonKeyHash(bytes.baseAddress, bytes.count)
}

/// A fast, non-cryptographic hash of `count` bytes at `pointer`.
///
/// When `readableEnd` is given, `pointer + count` may be followed by readable bytes up to
/// `readableEnd`, which lets the last partial word be loaded at once; the result is the same.
@inline(__always)
func jsonKeyHash(
    _ pointer: UnsafePointer<UInt8>?, _ count: Int, readableEnd: UnsafePointer<UInt8>? = nil
) -> UInt32 {
    let multiplier: UInt64 = 0xff51_afd7_ed55_8ccd
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(truncatingIfNeeded: count &+ 1)
    if let pointer {
        let raw = UnsafeRawPointer(pointer)
        var i = 0
        while i &+ 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            hash = (hash ^ word) &* multiplier
            hash ^= hash &>> 32
            i &+= 8
        }
        if i < count {
            var word: UInt64 = 0
            if let readableEnd, pointer + i + 8 <= readableEnd {
                let rest = UInt64(truncatingIfNeeded: count &- i) &<< 3
                word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                word &= (1 &<< rest) &- 1
            } else {
                var shift: UInt64 = 0
                while i < count {
                    word |= UInt64(pointer[i]) &<< shift
                    shift &+= 8
                    i &+= 1
                }
            }
            hash = (hash ^ word) &* multiplier
            hash ^= hash &>> 32
        }
    }
    hash ^= hash &>> 29
    hash &*= 0xc4ce_b9fe_1a85_ec53
    return UInt32(truncatingIfNeeded: hash &>> 32)
}

/// The key hash of a string's UTF-8 bytes.
@inline(__always)
func jsonKeyHash(_ key: String) -> UInt32 {
    var key = key
    return key.withUTF8 { jsonKeyHash($0) }
}

/// Whether a key's UTF-8 bytes equal `bytes`.
@inline(__always)
func jsonKey(_ key: String, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var key = key
    return key.withUTF8 { own in
        guard own.count == bytes.count else { return false }
        guard own.count > 0, let a = own.baseAddress, let b = bytes.baseAddress else { return true }
        return memcmpBytes(a, b, own.count)
    }
}

/// Whether two keys have the same UTF-8 bytes.
@inline(__always)
func jsonKeysEqual(_ lhs: String, _ rhs: String) -> Bool {
    if jsonSameRepresentation(lhs, rhs) { return true }
    var rhs = rhs
    return rhs.withUTF8 { jsonKey(lhs, equals: $0) }
}

/// Whether two strings have the same in-memory representation: the same small-string bytes,
/// or the same storage object. Identical representations imply identical contents.
@inline(__always)
func jsonSameRepresentation(_ lhs: String, _ rhs: String) -> Bool {
    withUnsafeBytes(of: lhs) { a in
        withUnsafeBytes(of: rhs) { b in
            a.count == b.count && a.count == 16
                && a.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        }
    }
}

/// Byte equality of two ranges of `count` bytes.
@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var i = 0
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    while i &+ 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i &+= 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i &+= 1
    }
    return true
}
