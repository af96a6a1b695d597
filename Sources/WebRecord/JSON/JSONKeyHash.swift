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
    UInt32(truncatingIfNeeded: byteHash(pointer, count, readableEnd: readableEnd) &>> 32)
}

/// A fast, non-cryptographic 64-bit hash of `count` bytes at `pointer`, eight at a time (stable
/// within a process): the keys' hash, and the repeat cache's.
///
/// When `readableEnd` is given, `pointer + count` may be followed by readable bytes up to
/// `readableEnd`, which lets the last partial word be loaded at once; the result is the same.
@inline(__always)
func byteHash(
    _ pointer: UnsafePointer<UInt8>?, _ count: Int, readableEnd: UnsafePointer<UInt8>? = nil
) -> UInt64 {
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
    return hash
}

/// The key hash of a string's UTF-8 bytes.
@inline(__always)
func jsonKeyHash(_ key: String) -> UInt32 {
    var key = key
    return key.withUTF8 { jsonKeyHash($0) }
}
