/// Finds the line and column of offsets in a JSON text, for messages.
///
/// Lines end at LF, CR LF or a lone CR; columns count bytes from 1 at the start of a line.
/// Offsets are found in one pass: each must be at least the previous one.
struct JSONLineCounter {
    private let input: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    /// The 1-based line and column of `offset` (at most the input's length), which must not be
    /// smaller than the offset of the previous call.
    mutating func position(of offset: Int) -> (line: Int, column: Int) {
        while index < offset {
            let byte = input[index]
            if byte == 0x0A {
                line += 1
                lineStart = index + 1
            } else if byte == 0x0D {
                if index + 1 < input.count && input[index + 1] == 0x0A {
                    // CR LF: the LF ends the line.
                } else {
                    line += 1
                    lineStart = index + 1
                }
            }
            index += 1
        }
        return (line, offset - lineStart + 1)
    }
}
