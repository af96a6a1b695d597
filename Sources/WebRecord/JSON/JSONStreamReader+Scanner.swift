/// Finds where a member of an object ends, from its start, by its brackets and strings alone:
/// at the first `,`, `}` or `]` outside strings and outside the brackets it opens.
///
/// `JSONStreamReader` uses it to read a large member in one go before parsing it, rather than
/// parsing it again after each read. It validates nothing: where the text is not JSON, the end
/// it finds is only a guess, and the parser, which reads the member next, reports the error.
struct JSONStructureScanner {
    /// The brackets open.
    private var depth = 0
    /// Whether the scan is inside a string.
    private var inString = false
    /// Whether the previous byte, in a string, was a backslash that escapes this one.
    private var escaped = false

    /// Scans `bytes[index..<end]`, moving `index` along; returns true at the member's end (then
    /// `index` is at the `,`, `}` or `]`), false when the bytes end first.
    mutating func scan(_ bytes: UnsafePointer<UInt8>, index: inout Int, end: Int) -> Bool {
        let raw = UnsafeRawPointer(bytes)
        while index < end {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else {
                    // Skip the bytes that are neither a quote nor a backslash, 8 at a time.
                    index &+= 1
                    while index &+ 8 <= end {
                        let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        let quotes = word ^ 0x2222_2222_2222_2222
                        let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                        let special =
                            ((quotes &- 0x0101_0101_0101_0101) & ~quotes
                                | (backslashes &- 0x0101_0101_0101_0101) & ~backslashes) & 0x8080_8080_8080_8080
                        if special != 0 { break }
                        index &+= 8
                    }
                    continue
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth &+= 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if depth == 0 { return true }
                    depth &-= 1
                case UInt8(ascii: ","):
                    if depth == 0 { return true }
                default:
                    break
                }
            }
            index &+= 1
        }
        return false
    }
}
