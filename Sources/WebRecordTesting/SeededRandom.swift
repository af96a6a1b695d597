/// A small, fast, deterministic random number generator (Steele, Lea and Flood's SplitMix64):
/// the same seed gives the same numbers on every run and every machine.
///
/// Generated test data and benchmark data use it, so that a failure can be run again exactly:
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let words = (0..<3).map { _ in vocabulary[random.next(below: vocabulary.count)] }
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose numbers follow from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is less than 1).
    ///
    /// It is the remainder of ``next()``, which favours small numbers by at most `bound / 2⁶⁴`,
    /// and it stays the same from version to version, as seeded data needs.
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(max(1, bound)))
    }

    /// A number in `0..<1`, with 53 random bits.
    public mutating func nextFraction() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
