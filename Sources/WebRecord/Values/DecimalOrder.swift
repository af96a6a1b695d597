/// The order of decimals stored as text, by their exact value: how SQLite sorts a `decimal`
/// column (the `webrecord_decimal` collation every connection registers) and how an
/// observation places one, as PostgreSQL sorts its `numeric` column.
///
/// A decimal's text is compared digit by digit, never through a double, which cannot tell
/// `10.000000000000000001` from `10`. Text that is not a decimal number sorts after every number,
/// by its bytes. Equal values written differently (`1.50`, `1.5`) compare equal.
enum DecimalOrder {
    /// The name of the SQLite collation that sorts decimal text by value.
    static let collation = "webrecord_decimal"

    /// The parts of a decimal's text: `0.d₁d₂… × 10^magnitude`, its significant digits found
    /// at ``digit(_:)``.
    private struct Parsed {
        let bytes: UnsafeRawBufferPointer
        var negative = false
        /// Where the integer digits start, and how many there are (leading zeros included).
        var integerStart = 0
        var integerCount = 0
        /// Where the fraction digits start, and how many there are.
        var fractionStart = 0
        var fractionCount = 0
        /// The first and one past the last significant digit, among the integer digits and then
        /// the fraction digits counted on.
        var first = 0
        var end = 0
        /// The power of ten just above the first significant digit.
        var magnitude = 0

        var isZero: Bool { first == end }

        /// The significant digit at `position` (from `first`), as its byte.
        func digit(_ position: Int) -> UInt8 {
            let index = first + position
            return index < integerCount
                ? bytes[integerStart + index] : bytes[fractionStart + index - integerCount]
        }
    }

    /// `bytes` read as a decimal: an optional sign, digits with an optional point, and an
    /// optional exponent; nil for any other text.
    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed? {
        var parsed = Parsed(bytes: bytes)
        var index = 0
        let count = bytes.count
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        if index < count, bytes[index] == 0x2D || bytes[index] == 0x2B {
            parsed.negative = bytes[index] == 0x2D
            index += 1
        }
        parsed.integerStart = index
        while index < count, isDigit(bytes[index]) { index += 1 }
        parsed.integerCount = index - parsed.integerStart
        parsed.fractionStart = index
        if index < count, bytes[index] == 0x2E {
            index += 1
            parsed.fractionStart = index
            while index < count, isDigit(bytes[index]) { index += 1 }
            parsed.fractionCount = index - parsed.fractionStart
        }
        guard parsed.integerCount + parsed.fractionCount > 0 else { return nil }
        var exponent = 0
        if index < count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            var negativeExponent = false
            if index < count, bytes[index] == 0x2D || bytes[index] == 0x2B {
                negativeExponent = bytes[index] == 0x2D
                index += 1
            }
            let start = index
            while index < count, isDigit(bytes[index]) {
                // Beyond any magnitude a stored text can reach: kept from overflowing.
                exponent = min(exponent * 10 + Int(bytes[index] - 0x30), 1 << 40)
                index += 1
            }
            guard index > start else { return nil }
            if negativeExponent { exponent = -exponent }
        }
        guard index == count else { return nil }
        let total = parsed.integerCount + parsed.fractionCount
        var first = 0
        while first < total, Self.byte(at: first, of: parsed) == 0x30 { first += 1 }
        var end = total
        while end > first, Self.byte(at: end - 1, of: parsed) == 0x30 { end -= 1 }
        parsed.first = first
        parsed.end = end
        parsed.magnitude = parsed.integerCount - first + exponent
        return parsed
    }

    /// The digit at `index` among the integer digits and then the fraction digits.
    private static func byte(at index: Int, of parsed: Parsed) -> UInt8 {
        index < parsed.integerCount
            ? parsed.bytes[parsed.integerStart + index]
            : parsed.bytes[parsed.fractionStart + index - parsed.integerCount]
    }

    /// Negative when `lhs` sorts first, zero when they are equal, positive otherwise.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        guard let left = parse(lhs) else {
            return parse(rhs) == nil ? bytes(lhs, rhs) : 1
        }
        guard let right = parse(rhs) else { return -1 }
        let leftSign = left.isZero ? 0 : (left.negative ? -1 : 1)
        let rightSign = right.isZero ? 0 : (right.negative ? -1 : 1)
        if leftSign != rightSign { return leftSign < rightSign ? -1 : 1 }
        if leftSign == 0 { return 0 }
        // The same sign: compare the magnitudes, then the digits; a negative pair the other way.
        var magnitude = 0
        if left.magnitude != right.magnitude {
            magnitude = left.magnitude < right.magnitude ? -1 : 1
        } else {
            let leftCount = left.end - left.first
            let rightCount = right.end - right.first
            for position in 0..<min(leftCount, rightCount) {
                let (a, b) = (left.digit(position), right.digit(position))
                if a != b {
                    magnitude = a < b ? -1 : 1
                    break
                }
            }
            if magnitude == 0, leftCount != rightCount { magnitude = leftCount < rightCount ? -1 : 1 }
        }
        return leftSign < 0 ? -magnitude : magnitude
    }

    /// `compare(_:_:)` of two texts.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        var (lhs, rhs) = (lhs, rhs)
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in compare(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
    }

    /// The bytes' order (SQLite's `BINARY`).
    private static func bytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        for index in 0..<min(lhs.count, rhs.count) where lhs[index] != rhs[index] {
            return lhs[index] < rhs[index] ? -1 : 1
        }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }
}
