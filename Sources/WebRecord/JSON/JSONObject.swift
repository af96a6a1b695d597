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
        JSONValue.object(lhs) == JSONValue.object(rhs)
    }
}

extension JSONObject: Hashable {
    /// Hashes the members in an order-independent way, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined: UInt64 = 0
        for (index, key) in layout.keys.enumerated() {
            var memberHasher = Hasher()
            hashUTF8(key, into: &memberHasher)
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
