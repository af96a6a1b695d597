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
    /// Notes each key of the object that closes (`keys`, with `hashes`, from `pending`) that an
    /// earlier key of the same object has the same bytes as.
    ///
    /// Called after the object's keys and escaped keys are popped: `pending` and the escaped-key
    /// offsets above the stack's count are still in place, since nothing was pushed since.
    mutating func noteRepeatedKeys(
        _ keys: [String], hashes: [UInt32], pending: UnsafeMutablePointer<PendingKey>, of container: OpenContainer
    ) {
        var path: [String]?
        var earlier: [UInt32: [Int]] = [:]
        for index in keys.indices {
            let pendingKey = pending[index]
            // An escaped key's `offset` is its index in the escaped-key stacks.
            let start = pendingKey.length >= 0 ? pendingKey.offset : escapedKeyOffsets.base[pendingKey.offset]
            let hash = hashes[index]
            if let candidates = earlier[hash], candidates.contains(where: { sameUTF8(keys[$0], keys[index]) }) {
                if path == nil { path = openObjectPath(inside: container) }
                repeatedKeys?.append(RepeatedKey(path: path ?? [], key: keys[index], offset: start &- 1))
            }
            earlier[hash, default: []].append(index)
        }
    }

    /// The keys leading from the top-level value to the open container `container` was in:
    /// the current key of each enclosing object (arrays add nothing).
    private func openObjectPath(inside container: OpenContainer) -> [String] {
        var path: [String] = []
        for level in 0..<containers.count where containers.base[level].isObject {
            // The enclosing object's current key was the last one pushed before the next level opened.
            let nextKeyStart = level &+ 1 < containers.count ? containers.base[level &+ 1].keyStart : container.keyStart
            path.append(keyString(keys.base[nextKeyStart &- 1]))
        }
        return path
    }

    /// The string of a pending key of an object that is still open.
    private func keyString(_ key: PendingKey) -> String {
        if key.length >= 0 {
            return String(decoding: UnsafeBufferPointer(start: bytes + key.offset, count: key.length), as: UTF8.self)
        }
        return escapedKeys.base[key.offset]
    }
}
