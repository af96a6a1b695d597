/// The line and column of offsets in an input read piece by piece, as ``JSONLineCounter``
/// finds them in a whole one: lines end at LF, CR LF or a lone CR; columns count bytes from 1.
///
/// The bytes are counted as the reader lets them go, so that an error met later, anywhere in
/// the input, is placed in the whole input without keeping it.
struct StreamedLineCounter {
    /// The 1-based line of the byte at ``counted``.
    private(set) var line = 1
    /// The offset of the first byte of ``line``.
    private(set) var lineStart = 0
    /// The offset of the first byte not counted yet.
    private(set) var counted = 0
    /// Whether the byte before ``counted`` is a CR: it ends a line unless the next byte is a LF.
    private var pendingCarriageReturn = false

    /// Counts the line ends in `bytes`, the input's bytes from ``counted`` on.
    mutating func advance(over bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        if pendingCarriageReturn {
            pendingCarriageReturn = false
            if base[0] != 0x0A { endLine(before: counted) }
        }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index < count {
            // Most bytes are not below 0x0E (no LF, no CR): skip them 32, then 8 at a time.
            while index &+ 32 <= count {
                let words = (
                    raw.loadUnaligned(fromByteOffset: index, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: index &+ 16, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: index &+ 24, as: UInt64.self)
                )
                let low =
                    Self.lowBytes(words.0) | Self.lowBytes(words.1) | Self.lowBytes(words.2) | Self.lowBytes(words.3)
                if low != 0 { break }
                index &+= 32
            }
            if index &+ 8 <= count && Self.lowBytes(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) == 0 {
                index &+= 8
                continue
            }
            guard index < count else { break }
            let byte = base[index]
            if byte == 0x0A {
                endLine(before: counted &+ index &+ 1)
            } else if byte == 0x0D {
                if index &+ 1 == count {
                    pendingCarriageReturn = true
                } else if base[index &+ 1] != 0x0A {
                    endLine(before: counted &+ index &+ 1)
                }
            }
            index &+= 1
        }
        counted &+= count
    }

    /// The 1-based line and column of the byte `offset` bytes into `window`, the input's bytes
    /// from ``counted`` on (as many as are held; a CR that ends them ends a line).
    func position(of offset: Int, in window: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var counter = self
        let offset = min(max(offset, 0), window.count)
        counter.advance(over: UnsafeBufferPointer(rebasing: window[0..<offset]))
        if counter.pendingCarriageReturn && !(offset < window.count && window[offset] == 0x0A) {
            counter.endLine(before: counter.counted)
        }
        return (counter.line, counter.counted &- counter.lineStart &+ 1)
    }

    /// Nonzero when a byte of `word` is below 0x0E.
    @inline(__always)
    private static func lowBytes(_ word: UInt64) -> UInt64 {
        (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080
    }

    /// Starts a new line at `offset`.
    private mutating func endLine(before offset: Int) {
        line &+= 1
        lineStart = offset
    }
}
