// Repeated keys: noted when an object closes with a key written twice, for callers that ask
// (``JSONReader/readReportingDuplicateKeys(_:)``). An object with a repeated key never gets a
// shared layout, so the parser only looks here on that slow path.

/// A key written again in one object, as the parser meets it.
struct RepeatedKey {
    /// The keys leading to the object that holds the repeat (array elements are skipped).
    var path: [String]
    /// The repeated key.
    var key: String
    /// The offset of the repeat's opening quote in the input.
    var offset: Int
}

extension JSONParser {
    /// Pushes the object that closes, whose keys repeat (the last value wins, at the first
    /// key's position), and notes its repeated keys when the caller asked for them.
    ///
    /// Called after the object's container and keys are popped: its pending keys are still in
    /// place just above the key stack's count, since nothing was pushed since. (Passing less
    /// keeps `closeObject(_:)`, which every object goes through, as lean as without this.)
    @inline(never)
    mutating func pushObject(withRepeatedKeys keys: [String], hashes: [UInt32], values storage: [JSONValue]) {
        if repeatedKeys != nil {
            noteRepeatedKeys(keys, hashes: hashes, keyStart: self.keys.count)
        }
        values.push(.object(JSONObject(keys: keys, hashes: hashes, values: storage)))
    }

    /// Notes each key of the object that closes (`keys`, with `hashes`, pending on the key
    /// stack from `keyStart`) that an earlier key of the same object has the same bytes as.
    private mutating func noteRepeatedKeys(_ keys: [String], hashes: [UInt32], keyStart: Int) {
        let pending = self.keys.base + keyStart
        var path: [String]?
        var earlier: [UInt32: [Int]] = [:]
        for index in keys.indices {
            let start = pending[index].offset
            let hash = hashes[index]
            if let candidates = earlier[hash], candidates.contains(where: { sameUTF8(keys[$0], keys[index]) }) {
                if path == nil { path = openObjectPath(keyStart: keyStart) }
                repeatedKeys?.append(RepeatedKey(path: path ?? [], key: keys[index], offset: start &- 1))
            }
            earlier[hash, default: []].append(index)
        }
    }

    /// The keys leading from the top-level value to the object that closes, whose first key
    /// was at `keyStart` on the key stack: the current key of each enclosing object (arrays
    /// add nothing).
    private func openObjectPath(keyStart: Int) -> [String] {
        var path: [String] = []
        for level in 0..<containers.count where containers.base[level].isObject {
            // The enclosing object's current key was the last one pushed before the next level opened.
            let nextKeyStart = level &+ 1 < containers.count ? containers.base[level &+ 1].keyStart : keyStart
            path.append(keyString(keys.base[nextKeyStart &- 1]))
        }
        return path
    }

    /// The string of a pending key of an object that is still open.
    private func keyString(_ key: PendingKey) -> String {
        if key.length >= 0 {
            return String(decoding: UnsafeBufferPointer(start: bytes + key.offset, count: key.length), as: UTF8.self)
        }
        return escapedKeys.base[~key.length]
    }
}
