/// A JSON value, as read by ``JSONReader`` or built in code.
///
/// Numbers keep the distinction the document makes, and never lose a digit or the way they
/// were written: a number without fraction or exponent that fits `Int64` exactly is
/// ``integer(_:)``; one whose text is exactly a `Double`'s shortest form (`0.1`, `1.5`, `5.0`)
/// is ``double(_:)``; every other number (`1.10`, `1E2`, `-0`, a 20-digit id, `1e400`) is
/// ``number(_:)``, its text as written. `.integer(1)` and `.double(1.0)` are therefore
/// different values; use ``int64Value`` or ``doubleValue`` to read a number whatever its case.
///
/// Two values are equal when they are the same JSON: strings and keys compare code unit by
/// code unit, as JSON compares them (RFC 8259, §8.3) and as the store does, not by Swift's
/// `String ==`, which takes `"é"` written as one code point and as `e` with a combining accent
/// for one string. Those are two values here, as they are two values in the store.
///
/// Values can be written as Swift literals:
///
/// ```swift
/// let post: JSONValue = [
///     "id": 12,
///     "text": "Hello",
///     "user": ["username": "alice", "verified": true],
///     "annotations": [],
///     "reply_to": nil,
/// ]
/// post.value(atKeyPath: "user.username")?.stringValue   // "alice"
/// ```
public enum JSONValue: Sendable, Hashable {
    /// The JSON `null` literal.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number with no fraction and no exponent that fits `Int64` exactly (`-0` is `0`).
    case integer(Int64)
    /// A number written exactly as a `Double`'s shortest form (`0.1`, `1.5`, `5.0`, `1e+300`).
    case double(Double)
    /// Any other number, as its JSON text: an integer outside the `Int64` range, `-0`, a number
    /// with more significant digits than a double keeps, one beyond a double's range (`1e400`),
    /// or one written another way than a double's shortest form (`1.10`, `1E2`).
    ///
    /// The reader produces it so that no digit is lost: stored as text or as a decimal, the
    /// number keeps every digit; as an integer it is refused unless it is one exactly; as a
    /// double it becomes the nearest one.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in first-seen order.
    case object(JSONObject)
}

extension JSONValue {
    /// Accesses the member of an object.
    ///
    /// - Parameter key: The member name.
    /// - Returns: The member's value, or `nil` when `self` is not an object or has no such key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// Accesses an element of an array.
    ///
    /// - Parameter index: A zero-based position.
    /// - Returns: The element, or `nil` when `self` is not an array or `index` is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// Returns the value at a dotted key path, such as `"response.venues"` or `"avatar_image.url"`.
    ///
    /// Each component is an object key. A component made only of ASCII digits also indexes
    /// an array, so `"items.0.id"` reads the `id` of the first element of `items`. Keys that
    /// contain a dot cannot be reached with a key path; use the `[key]` subscript instead.
    ///
    /// - Parameter keyPath: Components separated by `.`. An empty path denotes `self`.
    /// - Returns: The value; ``null`` when the path meets an explicit `null`, at its end or
    ///   before it; `nil` when a step is missing (a missing key, an index out of range, or a
    ///   step into a value that is neither an object, an array nor null).
    public func value(atKeyPath keyPath: String) -> JSONValue? {
        if keyPath.isEmpty { return self }
        return JSONKeyPath.value(atPath: keyPath, in: self)
    }

    /// Whether the value is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, when the value is a ``string(_:)``; `nil` otherwise.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The object, when the value is an ``object(_:)``; `nil` otherwise.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, when the value is an ``array(_:)``; `nil` otherwise.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The Boolean, when the value is a ``bool(_:)``; `nil` otherwise (no conversion from
    /// numbers or strings).
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The number as an `Int64`: an ``integer(_:)``, or a ``double(_:)`` or ``number(_:)`` that
    /// is exactly an integer within the `Int64` range (so `1e3` gives `1000`, `1.5` and
    /// `18446744073709551615` give `nil`).
    public var int64Value: Int64? {
        switch self {
        case .integer(let integer): return integer
        case .double(let double):
            if abs(double) < 9_007_199_254_740_992 { return Int64(exactly: double) }
            return double.isFinite ? JSONNumberText.exactInteger(double.description) : nil
        case .number(let text): return JSONNumberText.exactInteger(text)
        default: return nil
        }
    }

    /// The number as a `Double`: a ``double(_:)``, or an ``integer(_:)`` or ``number(_:)``
    /// converted (rounded to the nearest `Double`).
    public var doubleValue: Double? {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        case .number(let text): return Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    /// The JSON name of the value's type, for messages: `"null"`, `"boolean"`, `"integer"`,
    /// `"number"`, `"string"`, `"array"` or `"object"`.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .double, .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)`` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)`` from an integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a ``double(_:)`` from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a ``bool(_:)`` from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an ``array(_:)`` from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an ``object(_:)`` from a dictionary literal, keeping the literal's key order.
    ///
    /// A repeated key follows ``JSONObject``'s rule: the last value wins, at the first position.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates ``null`` from `nil`.
    ///
    /// Where a `JSONValue?` is expected, `nil` means "no value" rather than JSON `null`;
    /// write `.null` there.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text (``serialized(sortedKeys:prettyPrinted:)`` with defaults).
    public var description: String { serialized() }
}

extension JSONValue {
    /// Returns whether two values are the same JSON: strings, number texts and keys compared
    /// byte for byte (see ``JSONValue``).
    ///
    /// Level by level, with the nested containers still to compare kept in a list rather than
    /// on the stack: a value nested 512 levels deep compares on a thread with a small stack,
    /// and an object of scalars compares without allocating. Lists and objects that share
    /// their storage (a repeated object the reader shared) are equal at once.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        var pending: [(JSONValue, JSONValue)] = []
        var pair = (lhs, rhs)
        while true {
            guard equalLevel(pair.0, pair.1, deferring: &pending) else { return false }
            guard let next = pending.popLast() else { return true }
            pair = next
        }
    }

    /// Compares one level: scalars, or a container's count and scalar members, deferring its
    /// nested containers to `pending`.
    private static func equalLevel(
        _ lhs: JSONValue, _ rhs: JSONValue, deferring pending: inout [(JSONValue, JSONValue)]
    ) -> Bool {
        switch (lhs, rhs) {
        case (.array(let left), .array(let right)):
            return equalMembers(left, right, deferring: &pending)
        case (.object(let left), .object(let right)):
            guard left.storage.count == right.storage.count else { return false }
            if left.layout === right.layout { return equalMembers(left.storage, right.storage, deferring: &pending) }
            for (index, key) in left.layout.keys.enumerated() {
                guard let other = right.layout.index(forKey: key, hash: left.layout.hashes[index]),
                    equalOrDeferred(left.storage[index], right.storage[other], deferring: &pending)
                else { return false }
            }
            return true
        default:
            return equalScalars(lhs, rhs)
        }
    }

    private static func equalMembers(
        _ left: [JSONValue], _ right: [JSONValue], deferring pending: inout [(JSONValue, JSONValue)]
    ) -> Bool {
        guard left.count == right.count else { return false }
        let shared = left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { left.baseAddress == $0.baseAddress }
        }
        if shared { return true }
        for index in left.indices where !equalOrDeferred(left[index], right[index], deferring: &pending) {
            return false
        }
        return true
    }

    @inline(__always)
    private static func equalOrDeferred(
        _ lhs: JSONValue, _ rhs: JSONValue, deferring pending: inout [(JSONValue, JSONValue)]
    ) -> Bool {
        switch (lhs, rhs) {
        case (.array, .array), (.object, .object):
            pending.append((lhs, rhs))
            return true
        default:
            return equalScalars(lhs, rhs)
        }
    }

    /// Whether two scalars are equal; false for any container.
    private static func equalScalars(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.double(let left), .double(let right)): left == right
        case (.number(let left), .number(let right)): sameUTF8(left, right)
        case (.string(let left), .string(let right)): sameUTF8(left, right)
        default: false
        }
    }

    /// Hashes the value consistently with `==`.
    ///
    /// Written out rather than synthesized: the synthesized form goes through generic
    /// `Hasher.combine` and `Array.hash(into:)` for every level, and a value nested 512 levels
    /// deep must hash on a thread with a small stack.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let bool):
            hasher.combine(1 as UInt8)
            hasher.combine(bool)
        case .integer(let integer):
            hasher.combine(2 as UInt8)
            hasher.combine(integer)
        case .double(let double):
            hasher.combine(3 as UInt8)
            hasher.combine(double)
        case .number(let text):
            hasher.combine(4 as UInt8)
            hashUTF8(text, into: &hasher)
        case .string(let string):
            hasher.combine(5 as UInt8)
            hashUTF8(string, into: &hasher)
        case .array(let elements):
            hasher.combine(6 as UInt8)
            hasher.combine(elements.count)
            for element in elements { element.hash(into: &hasher) }
        case .object(let object):
            hasher.combine(7 as UInt8)
            object.hash(into: &hasher)
        }
    }
}
