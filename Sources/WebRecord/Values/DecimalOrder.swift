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

    /// Negative when `lhs` sorts first, zero when they are equal, positive otherwise.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        compare(Array(lhs)[...], Array(rhs)[...])
    }

    /// `compare(_:_:)` of two texts.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        compare(Array(lhs.utf8)[...], Array(rhs.utf8)[...])
    }

    /// Two texts read as numbers (``JSONNumberText/parts(utf8:)``, which reads `.5`, `+1` and
    /// `1E2` too): by sign, then by the power of ten of the first significant digit, then digit
    /// by digit.
    private static func compare(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Int {
        guard let left = JSONNumberText.parts(utf8: lhs) else {
            return JSONNumberText.parts(utf8: rhs) == nil ? bytes(lhs, rhs) : 1
        }
        guard let right = JSONNumberText.parts(utf8: rhs) else { return -1 }
        func sign(_ parts: JSONNumberText.Parts) -> Int { parts.digits.isEmpty ? 0 : (parts.negative ? -1 : 1) }
        let (leftSign, rightSign) = (sign(left), sign(right))
        if leftSign != rightSign { return leftSign < rightSign ? -1 : 1 }
        if leftSign == 0 { return 0 }
        // The same sign: compare the magnitudes, then the digits; a negative pair the other way.
        let (leftPower, rightPower) = (left.digits.count + left.exponent, right.digits.count + right.exponent)
        var magnitude = 0
        if leftPower != rightPower {
            magnitude = leftPower < rightPower ? -1 : 1
        } else if left.digits != right.digits {
            magnitude = left.digits.lexicographicallyPrecedes(right.digits) ? -1 : 1
        }
        return leftSign < 0 ? -magnitude : magnitude
    }

    /// The bytes' order (SQLite's `BINARY`).
    private static func bytes(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Int {
        lhs == rhs ? 0 : (lhs.lexicographicallyPrecedes(rhs) ? -1 : 1)
    }
}
