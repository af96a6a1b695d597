// Repeated objects: the parser's side of `RepeatCache`. At a nested `{`, a quick scan finds the
// object's end; an object whose text is an entry's is pushed as that entry's value and skipped,
// and any other is parsed as usual and kept when it closes.

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

extension JSONParser {
    /// At a `{` at `position`: pushes the value of an earlier object with the same text and
    /// moves past it, returning nil; otherwise returns what to record of the object, to keep
    /// it once it is parsed (a length of 0 when its end was not found or it is too short).
    @inline(__always)
    mutating func reuseRepeatedObject(_ repeats: RepeatCache) -> RepeatRecording? {
        let span = objectSpan(from: position)
        repeats.noteScan(span.scanned)
        guard span.length >= RepeatCache.shortestSpan else { return RepeatRecording() }
        let start = bytes + position
        let hash = RepeatCache.hash(start, length: span.length)
        if let entry = repeats.entry(start, length: span.length, hash: hash),
            containers.count &+ entry.depth <= maximumDepth
        {
            values.push(entry.value)
            position &+= span.length
            return nil
        }
        return RepeatRecording(length: UInt16(span.length), depth: UInt16(span.depth))
    }

    /// Keeps the object that just closed, on top of the value stack, when the parser's span is
    /// the one the scan found.
    @inline(never)
    mutating func keepRepeat(_ container: OpenContainer) {
        let length = position &- container.repeatStart
        guard let repeats, length == Int(container.recording.length) else { return }
        let start = bytes + container.repeatStart
        repeats.insert(
            start, length: length, hash: RepeatCache.hash(start, length: length),
            depth: Int(container.recording.depth), value: values.base[values.count &- 1])
    }

    /// The length and depth of the object that opens at `start` when its closing bracket is
    /// within `RepeatCache.spanLimit` bytes and the input the parser holds (a length of 0
    /// otherwise), and how many bytes the scan read. It does not validate: for invalid text it
    /// may return any span, which then matches no entry.
    ///
    /// It goes from one byte that may matter to the next eight bytes at a time. Inside a string
    /// those are a quote and a backslash. Outside, a quote and a byte equal to a bracket once
    /// bits 0x26 are cleared: `{`, `}`, `[`, `]`, and also `Y`, `_`, `y` and DEL, which it then
    /// passes.
    func objectSpan(from start: Int) -> (length: Int, depth: Int, scanned: Int) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(bytes)
        let limit = min(end, start &+ RepeatCache.spanLimit)
        var index = start &+ 1
        var depth = 1
        var deepest = 1
        while index < limit {
            // Outside strings: to the next quote or bracket.
            while index &+ 8 <= limit {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quotes = word ^ (ones &* 0x22)
                let brackets = (word & (ones &* 0xD9)) ^ (ones &* 0x59)
                let found = (((quotes &- ones) & ~quotes) | ((brackets &- ones) & ~brackets)) & highBits
                if found != 0 {
                    index &+= found.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < limit else { break }
            let byte = bytes[index]
            index &+= 1
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth &+= 1
                if depth > deepest { deepest = depth }
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth &-= 1
                if depth == 0 { return (index &- start, deepest, index &- start) }
            } else if byte == quote {
                // Inside a string: to its closing quote, past escapes.
                while index < limit {
                    while index &+ 8 <= limit {
                        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                        let quotes = word ^ (ones &* 0x22)
                        let backslashes = word ^ (ones &* 0x5C)
                        let found =
                            (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)) & highBits
                        if found != 0 {
                            index &+= found.trailingZeroBitCount &>> 3
                            break
                        }
                        index &+= 8
                    }
                    guard index < limit else { break }
                    let inner = bytes[index]
                    if inner == quote {
                        index &+= 1
                        break
                    }
                    index &+= inner == backslash ? 2 : 1
                }
            }
        }
        return (0, 0, min(index, limit) &- start)
    }
}
