/// One key, looked up in many objects: a component of a ``JSONKeyPath``, which a population
/// reads from tens of thousands of dictionaries.
///
/// The objects of one shape in a response share one `JSONObjectLayout` (the reader makes sure
/// of it), so the key's position is found once per shape and reused for every object of that
/// shape: a pointer comparison and an array read instead of hashing and comparing the key.
///
/// The lookup keeps a strong reference to the last layout it saw. That is what makes the
/// cached position safe: a `JSONObject` mutates its layout in place only when it holds the
/// sole reference (copy-on-write), so a layout this lookup holds never changes under it.
///
/// Not thread-safe: each population builds its own lookups and uses them on its one thread.
final class KeyLookup {
    /// The key.
    let key: String
    private let hash: UInt32
    private var layout: JSONObjectLayout?
    private var index: Int?

    init(_ key: String) {
        self.key = key
        self.hash = jsonKeyHash(key)
    }

    /// The value of the key in `object`, `.null` for an explicit null, nil when absent.
    func value(in object: JSONObject) -> JSONValue? {
        let layout = object.layout
        if layout !== self.layout {
            self.layout = layout
            index = layout.index(forKey: key, hash: hash)
        }
        guard let index, index < object.storage.count else { return nil }
        return object.storage[index]
    }
}
