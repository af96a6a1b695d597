// Byte equality, the one comparison behind JSON keys, the parser's key and layout caches, and
// `DatabaseValue` text: code unit by code unit, with no Unicode normalization (RFC 8259 §8.3,
// and SQLite's own comparison of keys).

/// Compares `count` bytes at `a` and `b`, a word at a time.
///
/// `tailIsReadable` says whether 8 bytes can be read at offset `count & ~7` of both (the
/// callers know it from where their bytes end): the last partial word is then loaded whole
/// and masked. Otherwise no byte past `count` is read: the last partial word is compared as
/// the 8 bytes that end at `count` (overlapping the word before), or, for fewer than 8
/// bytes in all, 4, 2 and 1 at a time.
@inline(__always)
func equalBytes(
    _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int, tailIsReadable: Bool = false
) -> Bool {
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    var i = 0
    while i &+ 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i &+= 8
    }
    if i == count { return true }
    if tailIsReadable {
        let mask: UInt64 = (1 &<< (UInt64(truncatingIfNeeded: count &- i) &<< 3)) &- 1
        let wa = UInt64(littleEndian: ra.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let wb = UInt64(littleEndian: rb.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        return (wa ^ wb) & mask == 0
    }
    if count >= 8 {
        let last = count &- 8
        return ra.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            == rb.loadUnaligned(fromByteOffset: last, as: UInt64.self)
    }
    if count & 4 != 0 {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt32.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt32.self)
        {
            return false
        }
        i &+= 4
    }
    if count & 2 != 0 {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt16.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt16.self)
        {
            return false
        }
        i &+= 2
    }
    return count & 1 == 0 || a[i] == b[i]
}

/// Whether a string's UTF-8 bytes equal `bytes`.
@inline(__always)
func sameUTF8(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var string = string
    return string.withUTF8 { own in
        guard own.count == bytes.count else { return false }
        guard own.count > 0, let a = own.baseAddress, let b = bytes.baseAddress else { return true }
        return equalBytes(a, b, own.count)
    }
}

/// Hashes the UTF-8 bytes of `string`, consistently with `sameUTF8`.
@inline(__always)
func hashUTF8(_ string: String, into hasher: inout Hasher) {
    var string = string
    string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
}

/// Whether two strings have the same UTF-8 bytes (unlike `==`, which compares them by
/// Unicode canonical equivalence: `"é"` and `"e\u{301}"` are different here).
@inline(__always)
func sameUTF8(_ lhs: String, _ rhs: String) -> Bool {
    if sameRepresentation(lhs, rhs) { return true }
    var rhs = rhs
    return rhs.withUTF8 { sameUTF8(lhs, $0) }
}

/// Whether two strings have the same in-memory representation: the same small-string bytes,
/// or the same storage object. Identical representations imply identical contents.
@inline(__always)
private func sameRepresentation(_ lhs: String, _ rhs: String) -> Bool {
    withUnsafeBytes(of: lhs) { a in
        withUnsafeBytes(of: rhs) { b in
            a.count == b.count && a.count == 16
                && a.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        }
    }
}
