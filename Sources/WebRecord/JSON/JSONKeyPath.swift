/// A dotted key path, split once to be followed in many values: `"response.venues"`,
/// `"avatar_image.url"`, `"data.0.id"`.
///
/// Each component is an object key, compared by UTF-8 bytes; a component made only of ASCII
/// digits also indexes an array. A step into a missing key, past the end of an array, or into
/// a scalar ends the walk with nil (absent). An explicit JSON `null` met anywhere along the
/// path, at its end or before it, is ``JSONValue/null``: `author.data.id` in `{"author":
/// {"data": null}}` is null, which clears, as `{"author": null}` says there is no author.
/// There is no escape for a key that contains a dot.
///
/// The one key-path walker of WebRecord: a population's attribute, relationship and
/// discriminator keys are `JSONKeyPath`s, which it reads from tens of thousands of
/// dictionaries, and ``JSONValue/value(atKeyPath:)`` takes the same walk once, looking each key
/// up by its bytes (``value(atPath:in:)``). The objects of one shape in a response share one
/// `JSONObjectLayout` (the reader makes sure of it), so each component remembers its key's
/// position in the last layout it met: following a path through objects of one shape is a
/// pointer comparison and an array read per step, not hashing and comparing the key.
///
/// A component keeps a strong reference to the last layout it saw. That is what makes the
/// cached position safe: a `JSONObject` mutates its layout in place only when it holds the
/// sole reference (copy-on-write), so a layout held here never changes under the path.
///
/// Not thread-safe (the components cache positions): each population builds its own paths
/// and uses them on its one thread.
final class JSONKeyPath {
    /// One component of the path.
    private struct Component {
        let key: String
        let hash: UInt32
        /// The component as an array index, when it is made only of ASCII digits.
        let index: Int?
        /// The last layout the key was looked up in.
        var layout: JSONObjectLayout?
        /// The key's position in `layout`, if it is there.
        var position: Int?
    }

    /// The path as written.
    let text: String
    // Unchecked exclusivity: a path is used on one thread, and its accesses never overlap;
    // dynamic checks would otherwise weigh on every step.
    @exclusivity(unchecked) private var components: [Component] = []

    /// Splits `text` at its dots. An empty text is one empty key, and `"a..b"` has an empty
    /// key in the middle: both are keys like any other here (schema files refuse them).
    init(_ text: String) {
        self.text = text
        var components: [Component] = []
        var path = text
        path.withUTF8 { bytes in
            components.reserveCapacity(Self.componentCount(bytes))
            Self.forEachComponent(of: bytes) { range in
                let key = UnsafeBufferPointer(rebasing: bytes[range])
                components.append(
                    Component(
                        key: String(decoding: key, as: UTF8.self), hash: jsonKeyHash(key), index: Self.arrayIndex(key)))
            }
        }
        self.components = components
    }

    /// The path's keys in order, each with its value as an array index when it is one.
    var steps: [(key: String, index: Int?)] { components.map { ($0.key, $0.index) } }

    /// The value at this path in `value`, `.null` for an explicit null, nil when a step is missing.
    func value(in value: JSONValue) -> JSONValue? {
        Self.walk(
            from: value, through: 0..<components.count, member: { member(at: $0, of: $1) },
            index: { components[$0].index })
    }

    /// The value at this path in `object` (whose key the first component is), `.null` for an
    /// explicit null, nil when a step is missing.
    func value(in object: JSONObject) -> JSONValue? {
        guard let first = member(at: 0, of: object) else { return nil }
        return Self.walk(
            from: first, through: 1..<components.count, member: { member(at: $0, of: $1) },
            index: { components[$0].index })
    }

    /// The value at the path `text` in `value`, without a `JSONKeyPath` to keep: the same walk,
    /// with each key looked up by its bytes, and nothing allocated.
    static func value(atPath text: String, in value: JSONValue) -> JSONValue? {
        var path = text
        return path.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: componentCount(bytes)) { ranges in
                var count = 0
                forEachComponent(of: bytes) { range in
                    ranges.initializeElement(at: count, to: range)
                    count &+= 1
                }
                // Ranges are trivial values: the buffer needs no deinitialization.
                return walk(
                    from: value, through: 0..<count,
                    member: { $1.value(forKeyBytes: UnsafeBufferPointer(rebasing: bytes[ranges[$0]])) },
                    index: { arrayIndex(UnsafeBufferPointer(rebasing: bytes[ranges[$0]])) })
            }
        }
    }

    /// Follows the components at `positions`, from `value`: the one walk of a key path.
    /// `member` reads the key at a position in an object; `index` gives the position's
    /// component as an array index, when it is one.
    @inline(__always)
    private static func walk(
        from value: consuming JSONValue, through positions: Range<Int>, member: (Int, JSONObject) -> JSONValue?,
        index: (Int) -> Int?
    ) -> JSONValue? {
        var current = value
        for position in positions {
            switch current {
            case .null:
                // A null before the end: what the path names is null too, not absent.
                return .null
            case .object(let object):
                guard let next = member(position, object) else { return nil }
                current = next
            case .array(let array):
                guard let index = index(position), index < array.count else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The number of components of a path: one more than its dots.
    private static func componentCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var dots = 0
        for byte in bytes where byte == UInt8(ascii: ".") { dots &+= 1 }
        return dots &+ 1
    }

    /// Calls `body` with where each component of a path is in its bytes, in order: between
    /// its dots.
    @inline(__always)
    private static func forEachComponent(of bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Void) {
        var start = 0
        while true {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ".") { end &+= 1 }
            body(start..<end)
            if end == bytes.count { return }
            start = end &+ 1
        }
    }

    /// The member of `object` named by the component at `position`, `.null` for an explicit
    /// null, nil when absent.
    @inline(__always)
    private func member(at position: Int, of object: JSONObject) -> JSONValue? {
        let layout = object.layout
        if layout !== components[position].layout {
            let component = components[position]
            components[position].position = layout.index(forKey: component.key, hash: component.hash)
            components[position].layout = layout
        }
        guard let index = components[position].position, index < object.storage.count else { return nil }
        return object.storage[index]
    }

    /// An all-digits component as an array index; nil otherwise, or when no array is that long.
    private static func arrayIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var index = 0
        for byte in bytes {
            let digit = Int(byte) &- 48
            guard digit >= 0 && digit <= 9 else { return nil }
            let (times10, overflow) = index.multipliedReportingOverflow(by: 10)
            guard !overflow, times10 <= Int.max - digit else { return nil }
            index = times10 + digit
        }
        return index
    }
}
