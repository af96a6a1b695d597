/// A dotted key path, split once to be followed in many values: `"response.venues"`,
/// `"avatar_image.url"`, `"data.0.id"`.
///
/// Each component is an object key, compared by UTF-8 bytes; a component made only of ASCII
/// digits also indexes an array. A step into a missing key, past the end of an array, or into
/// a scalar ends the walk with nil; an explicit JSON `null` at the end of the path is
/// ``JSONValue/null``. There is no escape for a key that contains a dot.
///
/// The one key-path walker of WebRecord: ``JSONValue/value(atKeyPath:)`` follows one, and so do
/// a population's attribute and relationship keys. Each component's ``KeyLookup`` remembers
/// where its key sits in the last object shape it met, so following one path through the
/// thousands of same-shaped objects of a response is an identity comparison and an array read
/// per step.
///
/// Not thread-safe (the lookups cache positions): each population builds its own paths.
final class JSONKeyPath {
    /// The path as written.
    let text: String
    private let lookups: [KeyLookup]
    /// Each component as an array index, when it is made only of ASCII digits.
    private let indexes: [Int?]

    /// Splits `text` at its dots. An empty text is one empty key, and `"a..b"` has an empty
    /// key in the middle: both are keys like any other here (schema files refuse them).
    init(_ text: String) {
        self.text = text
        let components = text.split(separator: ".", omittingEmptySubsequences: false)
        lookups = components.map { KeyLookup(String($0)) }
        indexes = components.map { Self.arrayIndex($0.utf8) }
    }

    /// The value at this path in `value`, `.null` for an explicit null, nil when a step is missing.
    func value(in value: JSONValue) -> JSONValue? {
        follow(from: value, at: 0)
    }

    /// The value at this path in `object` (whose key the first component is), `.null` for an
    /// explicit null, nil when a step is missing.
    func value(in object: JSONObject) -> JSONValue? {
        guard let member = lookups[0].value(in: object) else { return nil }
        return follow(from: member, at: 1)
    }

    /// Follows the components from `position` on, starting at `value`.
    @inline(__always)
    private func follow(from value: consuming JSONValue, at position: Int) -> JSONValue? {
        var current = value
        for position in position..<lookups.count {
            switch current {
            case .object(let object):
                guard let member = lookups[position].value(in: object) else { return nil }
                current = member
            case .array(let array):
                guard let index = indexes[position], index < array.count else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    /// An all-digits component as an array index; nil otherwise, or when no array is that long.
    private static func arrayIndex(_ bytes: Substring.UTF8View) -> Int? {
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
