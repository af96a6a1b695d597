import Foundation

/// An instant exactly as WebRecord stores a date: whole seconds since 1970-01-01 00:00 UTC and
/// the nanoseconds after them.
///
/// `Date` holds a time as a `Double` of seconds since 2001, so it cannot hold every nanosecond
/// (around the present, it is exact to about a tenth of a microsecond). A date attribute read as
/// `Date` is the nearest value a `Date` holds; read it as `Timestamp` for the instant the
/// response gave, to the nanosecond.
///
/// For example:
///
/// ```swift
/// func created(of post: Record) -> (Int64, Int32)? {
///     guard let stamp: Timestamp = post["date"] else { return nil }
///     return (stamp.seconds, stamp.nanoseconds)  // 2024-01-01T12:00:00.123456789Z: (1704110400, 123456789)
/// }
/// ```
///
/// Timestamps compare and sort in time order, and their ``description`` is the stored text
/// (`2024-01-01T12:00:00.123456789Z`).
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01 00:00 UTC (negative before 1970).
    public let seconds: Int64
    /// The nanoseconds after ``seconds``, from 0 to 999,999,999.
    public let nanoseconds: Int32

    /// The instant `seconds` and `nanoseconds` after 1970-01-01 00:00 UTC, or nil when
    /// `nanoseconds` is not from 0 to 999,999,999 or the instant is outside the years 0000–9999
    /// that a store holds.
    ///
    /// - Parameters:
    ///   - seconds: Whole seconds since 1970 (negative before 1970).
    ///   - nanoseconds: The nanoseconds after them.
    public init?(seconds: Int64, nanoseconds: Int32 = 0) {
        guard (0..<1_000_000_000).contains(nanoseconds), Self.storableSeconds.contains(seconds) else { return nil }
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The instant an ISO-8601 text gives, read as a response's date is read (see
    /// `Docs/SchemaFormat.md`), or nil when the text is not such a date.
    ///
    /// - Parameter text: ISO-8601 text, such as `2024-01-01T12:00:00.123456789Z`.
    public init?(_ text: String) {
        guard case .success(let stamp) = DateCoding.timestamp(fromISO8601: text) else { return nil }
        self = stamp
    }

    /// The instant of `date`, to the nearest microsecond, or nil when it is outside the years
    /// 0000–9999.
    ///
    /// A `Date` around the present is exact only to about a tenth of a microsecond, so the
    /// nearest microsecond is the finest digit it gives reliably; this is also how a `Date`
    /// bound as an argument is written.
    ///
    /// - Parameter date: The date.
    public init?(_ date: Date) {
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite, abs(sinceReference) < 1e12 else { return nil }
        let whole = sinceReference.rounded(.down)
        // The fraction is exact in binary floating point; its microseconds are rounded once.
        var microseconds = Int64(((sinceReference - whole) * 1_000_000).rounded(.toNearestOrAwayFromZero))
        var seconds = Int64(whole) + Self.referenceDateSeconds
        if microseconds == 1_000_000 {
            seconds += 1
            microseconds = 0
        }
        self.init(seconds: seconds, nanoseconds: Int32(microseconds * 1000))
    }

    /// The nearest `Date` (see the type's description for its precision).
    public var date: Date {
        Date(
            timeIntervalSinceReferenceDate: Double(seconds - Self.referenceDateSeconds) + Double(nanoseconds)
                / 1_000_000_000)
    }

    /// The stored text: ISO-8601 in UTC with nine fraction digits, `2024-01-01T12:00:00.123456789Z`.
    public var description: String { DateCoding.string(from: self) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// Seconds from 1970 to 2001, `Date`'s reference date.
    static let referenceDateSeconds: Int64 = 978_307_200
    /// The seconds of the years 0000–9999.
    static let storableSeconds: Range<Int64> = -62_167_219_200..<253_402_300_800

    /// Without checks: the caller has checked both.
    init(unchecked seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }
}

extension Timestamp: DatabaseValueConvertible {
    /// The stored text, so that a fetch compares it with stored dates.
    public var databaseValue: DatabaseValue { .text(description) }
}
