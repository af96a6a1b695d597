import Foundation

/// Reads and writes dates as WebRecord stores them, without DateFormatter on the hot path.
///
/// Stored form: `yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'` in UTC, nine fraction digits, fixed width,
/// so text order is time order. Read form: ISO-8601 with or without fractional seconds (up to
/// nine digits, the nanosecond; further digits must be zeros: a finer instant is refused, never
/// rounded), with `Z`, `±HH:MM`, `±HHMM` or `±HH`, or no zone (then UTC); a space is accepted in
/// place of `T`. A date alone (`2012-11-21`) is midnight UTC.
package enum DateCoding {
    /// Why a text is not a date WebRecord reads: one phrase, for a `typeMismatch` message.
    package struct Refusal: Error, Equatable {
        /// The reason, such as `month 13 does not exist`.
        package let reason: String
        /// Whether the text looked like an ISO-8601 date at all (it began with `YYYY-MM`):
        /// when not, the reason says nothing a plain "expected a date" does not.
        package let looksLikeDate: Bool
    }

    /// The stored text for a timestamp.
    static func string(from stamp: Timestamp) -> String {
        let days = stamp.seconds >= 0 ? stamp.seconds / 86_400 : (stamp.seconds - 86_399) / 86_400
        let remainder = stamp.seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = ""
        text.reserveCapacity(30)
        text += pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(remainder / 3600, 2) + ":" + pad(remainder / 60 % 60, 2) + ":" + pad(remainder % 60, 2)
        text += "." + pad(Int64(stamp.nanoseconds), 9) + "Z"
        return text
    }

    /// The stored text for a date, to the nearest microsecond (see ``Timestamp/init(_:)-(Date)``);
    /// nil outside the years 0000–9999.
    static func string(from date: Date) -> String? {
        Timestamp(date).map { string(from: $0) }
    }

    /// Parses ISO-8601 text to the nearest `Date`, or returns nil.
    static func date(fromISO8601 text: String) -> Date? {
        guard case .success(let stamp) = timestamp(fromISO8601: text) else { return nil }
        return stamp.date
    }

    /// Parses ISO-8601 text to the exact instant it gives, or says why it is not a date.
    static func timestamp(fromISO8601 text: String) -> Result<Timestamp, Refusal> {
        var text = text
        return text.withUTF8 { parse(Array($0)) }
    }

    /// The instant Unix seconds written as a decimal number give (`1704110400.123456789`,
    /// `1.7041104e9`), exactly, or why it is not one: a digit past the nanosecond, or a time
    /// outside the years 0000–9999.
    static func timestamp(fromUnixSeconds text: String) -> Result<Timestamp, Refusal> {
        guard let parts = JSONNumberText.parts(of: text) else {
            return .failure(Refusal(reason: "not a number", looksLikeDate: false))
        }
        guard parts.exponent >= -9 else {
            return .failure(
                Refusal(
                    reason:
                        "Unix seconds finer than the nanosecond (\(-parts.exponent) fraction digits) are refused, not rounded",
                    looksLikeDate: true))
        }
        let outOfRange = Refusal(reason: "Unix seconds \(text) are outside the years 0000–9999", looksLikeDate: true)
        // digits × 10^exponent as nanoseconds is digits × 10^(exponent + 9), with exponent + 9 ≥ 0:
        // the last nine of those digits are the fraction, the others the whole seconds.
        guard parts.digits.count + parts.exponent + 9 <= 21 else { return .failure(outOfRange) }
        let all = parts.digits + Array(repeating: 0, count: parts.exponent + 9)
        let whole = all.dropLast(9).reduce(Int64(0)) { $0 * 10 + Int64($1) }
        let fraction = all.suffix(9).reduce(Int64(0)) { $0 * 10 + Int64($1) }
        var seconds = parts.negative ? -whole : whole
        var nanoseconds = fraction
        if parts.negative, fraction > 0 {
            seconds -= 1
            nanoseconds = 1_000_000_000 - fraction
        }
        guard let stamp = Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds)) else {
            return .failure(outOfRange)
        }
        return .success(stamp)
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    private static func parse(_ bytes: [UInt8]) -> Result<Timestamp, Refusal> {
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func refuse(_ reason: String) -> Result<Timestamp, Refusal> {
            .failure(Refusal(reason: reason, looksLikeDate: true))
        }
        func rest() -> String {
            guard index < bytes.count else { return "the end of the text" }
            return "'\(String(decoding: bytes[index...].prefix(20), as: UTF8.self))'"
        }
        guard let year = number(4), expect(45), let month = number(2) else {
            return .failure(Refusal(reason: "not an ISO-8601 date", looksLikeDate: false))
        }
        guard (1...12).contains(month) else { return refuse("month \(month) does not exist") }
        guard expect(45), let day = number(2) else {
            return refuse("the day is not two digits after 'YYYY-MM-' (at \(rest()))")
        }
        // A year of four digits and a month of two: both fit an Int on any platform.
        let length = daysIn(month: Int(month), year: Int(year))
        guard day >= 1, day <= Int64(length) else {
            return refuse(
                day == 0
                    ? "day 00 does not exist"
                    : "\(monthNames[Int(month) - 1]) \(year) has \(length) days, not \(day)")
        }
        var seconds = days(fromCivil: year, month, day) * 86_400
        var nanoseconds: Int64 = 0
        if index == bytes.count { return .success(Timestamp(unchecked: seconds, nanoseconds: 0)) }
        guard expect(84) || expect(32) || expect(116) else {
            return refuse("expected 'T' and a time after the date, found \(rest())")
        }
        guard let hour = number(2), expect(58), let minute = number(2) else {
            return refuse("the time is not 'HH:MM' (at \(rest()))")
        }
        var second: Int64 = 0
        if expect(58) {
            guard let parsed = number(2) else { return refuse("the seconds are not two digits (at \(rest()))") }
            second = parsed
        }
        guard hour < 24 else { return refuse("hour \(hour) does not exist (00–23)") }
        guard minute < 60 else { return refuse("minute \(minute) does not exist (00–59)") }
        // A leap second (23:59:60) is refused: Unix time has no instant for it, and the next
        // second would be another value.
        guard second < 60 else {
            return refuse(
                second == 60
                    ? "second 60 is a leap second, which Unix time has no instant for"
                    : "second \(second) does not exist (00–59)")
        }
        if expect(46) || expect(44) {
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 9 {
                    nanoseconds = nanoseconds * 10 + Int64(bytes[index] - 48)
                } else if bytes[index] != 48 {
                    // Finer than a nanosecond: stored to the nanosecond, it would be another
                    // instant, so it is refused rather than rounded (zeros are fine).
                    return refuse(
                        "its fraction has a digit past the ninth that is not zero (a date is kept to the nanosecond, never rounded)"
                    )
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return refuse("the decimal point has no digits after it") }
            for _ in digits..<max(digits, 9) { nanoseconds *= 10 }
        }
        seconds += hour * 3600 + minute * 60 + second
        if index < bytes.count {
            if expect(90) || expect(122) {
                // UTC
            } else if bytes[index] == 43 || bytes[index] == 45 {
                let zoneStart = index
                let sign: Int64 = bytes[index] == 43 ? 1 : -1
                index += 1
                func badZone() -> Result<Timestamp, Refusal> {
                    let zone = String(decoding: bytes[zoneStart...].prefix(20), as: UTF8.self)
                    return refuse("the zone '\(zone)' is not a UTC offset (Z, ±HH, ±HHMM or ±HH:MM, up to ±23:59)")
                }
                guard let offsetHours = number(2) else { return badZone() }
                var offsetMinutes: Int64 = 0
                if expect(58) {
                    guard let parsed = number(2) else { return badZone() }
                    offsetMinutes = parsed
                } else if index < bytes.count {
                    guard let parsed = number(2) else { return badZone() }
                    offsetMinutes = parsed
                }
                guard offsetHours < 24, offsetMinutes < 60, index == bytes.count else { return badZone() }
                seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60)
            } else {
                return refuse("unexpected text \(rest()) after the time (a zone is Z, ±HH, ±HHMM or ±HH:MM)")
            }
        }
        guard index == bytes.count else { return refuse("unexpected text \(rest()) after the date") }
        guard Timestamp.storableSeconds.contains(seconds) else {
            return refuse("in UTC it is outside the years 0000–9999 that a store holds")
        }
        return .success(Timestamp(unchecked: seconds, nanoseconds: Int32(nanoseconds)))
    }

    // Howard Hinnant's civil-calendar algorithms (proleptic Gregorian).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian (year, month, day) of a day number counted from 1970-01-01.
    package static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in `month` (1–12) of `year`, proleptic Gregorian; 0 for a month out
    /// of range.
    @inline(__always)
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        case 1, 3, 5, 7, 8, 10, 12: 31
        default: 0
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Whether a date can be stored in the fixed-width form (years 0000–9999).
    static func isStorable(_ date: Date) -> Bool { Timestamp(date) != nil }
}
