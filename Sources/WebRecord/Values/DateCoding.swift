import Foundation

/// Reads and writes dates as WebRecord stores them, without DateFormatter on the hot path.
///
/// Stored form: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, fixed width, so text order is time order.
/// Read form: ISO-8601 with or without fractional seconds (any number of digits, but none
/// past the millisecond that is not zero: `.123456` is refused, never rounded), with `Z`, `±HH:MM`, `±HHMM` or `±HH`, or no zone (then UTC); a space is
/// accepted in place of `T`. A date alone (`2012-11-21`) is midnight UTC.
package enum DateCoding {
    /// The stored text for a date.
    static func string(from date: Date) -> String {
        // To the nearest millisecond: a date parsed from `…42.005Z` is 42.00499999… seconds in
        // binary floating point, and must be written back as `.005`, not `.004`.
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded(.toNearestOrAwayFromZero)
        let milliseconds = Int64(totalMilliseconds)
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let remainder = milliseconds - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = remainder / 3_600_000
        let minute = remainder / 60_000 % 60
        let second = remainder / 1000 % 60
        let millisecond = remainder % 1000
        var text = ""
        text.reserveCapacity(24)
        text += pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "." + pad(millisecond, 3) + "Z"
        return text
    }

    /// Parses ISO-8601 text, or returns nil.
    static func date(fromISO8601 text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(Array($0)) }
    }

    private static func parse(_ bytes: [UInt8]) -> Date? {
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
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2) else {
            return nil
        }
        // A year of four digits and a month of two: both fit an Int on any platform.
        guard (1...12).contains(month), day >= 1, day <= Int64(daysIn(month: Int(month), year: Int(year))) else {
            return nil
        }
        var seconds = days(fromCivil: year, month, day) * 86_400
        var milliseconds: Int64 = 0
        if index == bytes.count { return Date(timeIntervalSince1970: Double(seconds)) }
        guard expect(84) || expect(32) || expect(116) else { return nil }
        guard let hour = number(2), expect(58), let minute = number(2) else { return nil }
        var second: Int64 = 0
        if expect(58) {
            guard let parsed = number(2) else { return nil }
            second = parsed
        }
        // A leap second (23:59:60) is refused: Unix time has no instant for it, and the next
        // second would be another value.
        guard hour < 24, minute < 60, second < 60 else { return nil }
        if expect(46) || expect(44) {
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 3 {
                    milliseconds = milliseconds * 10 + Int64(bytes[index] - 48)
                } else if bytes[index] != 48 {
                    // Finer than a millisecond: stored to the millisecond, it would be another
                    // instant, so it is refused rather than rounded (zeros are fine).
                    return nil
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        seconds += hour * 3600 + minute * 60 + second
        if index < bytes.count {
            if expect(90) || expect(122) {
                // UTC
            } else if bytes[index] == 43 || bytes[index] == 45 {
                let sign: Int64 = bytes[index] == 43 ? 1 : -1
                index += 1
                guard let offsetHours = number(2) else { return nil }
                var offsetMinutes: Int64 = 0
                if expect(58) {
                    guard let parsed = number(2) else { return nil }
                    offsetMinutes = parsed
                } else if index < bytes.count {
                    guard let parsed = number(2) else { return nil }
                    offsetMinutes = parsed
                }
                guard offsetHours < 24, offsetMinutes < 60 else { return nil }
                seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
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
    static func isStorable(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && seconds >= -62_167_219_200 && seconds < 253_402_300_800
    }
}
