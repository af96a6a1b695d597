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

/// Compares `count` bytes at `a` and `b`, a word at a time.
///
/// `tailIsReadable` says whether 8 bytes can be read at offset `count & ~7` of both (the
/// callers know it from where their bytes end): the last partial word is then loaded whole
/// and masked, instead of compared byte by byte.
@inline(__always)
func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int, tailIsReadable: Bool) -> Bool {
    let ra = UnsafeRawPointer(a)
    let rb = UnsafeRawPointer(b)
    var i = 0
    while i &+ 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
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
    while i < count {
        if a[i] != b[i] { return false }
        i &+= 1
    }
    return true
}
