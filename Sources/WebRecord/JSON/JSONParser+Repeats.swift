// Repeated objects: the parser's side of `RepeatCache`. At a nested `{`, a quick scan finds the
// object's end; an object whose text is an entry's is pushed as that entry's value and skipped,
// and any other is parsed as usual and kept when it closes.

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

extension JSONParser {
    /// At a `{` at `position`: pushes the value of an earlier object with the same text and
    /// moves past it, returning `true`; otherwise returns `false`, with `recording` set to keep
    /// the object once it is parsed when its end was found.
    @inline(__always)
    mutating func reuseRepeatedObject(_ repeats: RepeatCache, recording: inout OpenContainer) -> Bool {
        guard let (length, depth) = objectSpan(from: position) else { return false }
        repeats.noteScan(length)
        guard length >= RepeatCache.shortestSpan else { return false }
        let start = bytes + position
        let hash = RepeatCache.hash(start, length: length)
        if let entry = repeats.entry(start, length: length, hash: hash), containers.count &+ entry.depth <= maximumDepth
        {
            values.push(entry.value)
            position &+= length
            return true
        }
        recording.isRecorded = true
        recording.repeatStart = position
        recording.repeatHash = hash
        recording.repeatLength = length
        recording.repeatDepth = depth
        return false
    }

    /// Keeps the object that just closed, on top of the value stack, when the parser's span is
    /// the one the scan found.
    @inline(never)
    mutating func keepRepeat(_ container: OpenContainer) {
        guard let repeats, position &- container.repeatStart == container.repeatLength else { return }
        repeats.insert(
            bytes + container.repeatStart, length: container.repeatLength, hash: container.repeatHash,
            depth: container.repeatDepth, value: values.base[values.count &- 1])
    }

    /// The length and depth of the object that opens at `start`, when its closing bracket is
    /// within `RepeatCache.spanLimit` bytes and the input the parser holds. It does not
    /// validate: for invalid text it may return any span, which then matches no entry.
    ///
    /// It goes from one byte that may matter to the next eight bytes at a time: a quote, a
    /// backslash, or a byte equal to a bracket once bits 0x26 are cleared (`{`, `}`, `[`, `]`,
    /// and also `Y`, `_`, `y` and DEL, which it then passes).
    func objectSpan(from start: Int) -> (length: Int, depth: Int)? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(bytes)
        let limit = min(end, start &+ RepeatCache.spanLimit)
        var index = start &+ 1
        var depth = 1
        var deepest = 1
        var inString = false
        while true {
            while index &+ 8 <= limit {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                let brackets = (word & (ones &* 0xD9)) ^ (ones &* 0x59)
                let found =
                    (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
                        | ((brackets &- ones) & ~brackets)) & highBits
                if found != 0 {
                    index &+= found.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < limit else { return nil }
            let byte = bytes[index]
            if inString {
                if byte == quote {
                    inString = false
                } else if byte == backslash {
                    index &+= 1
                }
            } else if byte == quote {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth &+= 1
                if depth > deepest { deepest = depth }
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth &-= 1
                if depth == 0 { return (index &+ 1 &- start, deepest) }
            }
            index &+= 1
        }
    }
}
