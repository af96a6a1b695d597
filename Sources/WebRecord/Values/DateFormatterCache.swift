import Foundation

/// DateFormatters for the schema's custom formats, made once per format.
///
/// A date is returned only when it is exactly what the text says (see ``DatePattern``): the
/// formatter alone cuts fraction digits, reads `12` as the year 12 under `yyyy`, and ignores
/// a wrong day-of-week name.
///
/// `@unchecked Sendable` is safe: the cache dictionaries and each formatter are used only under the lock.
final class DateFormatterCache: @unchecked Sendable {
    private struct Entry {
        let formatter: DateFormatter
        let pattern: DatePattern
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    /// Formatters for `uuuu-MM-dd'T'HH:mm:ss.SSS` and a zone field, by the zone field: they
    /// convert a zone name the way the pattern's formatter does.
    private var zoneFormatters: [String: DateFormatter] = [:]

    /// The instant `text` gives under the pattern `format`, to the nanosecond, or nil when the
    /// pattern does not read it exactly.
    func timestamp(from text: String, format: String) -> Timestamp? {
        lock.lock()
        defer { lock.unlock() }
        let entry: Entry
        if let cached = entries[format] {
            entry = cached
        } else {
            let formatter = Self.formatter(format)
            entry = Entry(formatter: formatter, pattern: DatePattern(format: format, formatter: formatter))
            entries[format] = entry
        }
        guard let date = entry.formatter.date(from: text) else { return nil }
        return entry.pattern.exactTimestamp(date, text: text, zoned: zoned)
    }

    /// The instant of a wall-clock time (`yyyy-MM-dd'T'HH:mm:ss.SSS`) in a zone given as text,
    /// read with the zone field `field`. Called under the lock.
    private func zoned(_ field: String, _ zone: String, _ wallClock: String) -> Date? {
        let formatter: DateFormatter
        if let cached = zoneFormatters[field] {
            formatter = cached
        } else {
            formatter = Self.formatter("uuuu-MM-dd'T'HH:mm:ss.SSS " + field)
            zoneFormatters[field] = formatter
        }
        return formatter.date(from: wallClock + " " + zone)
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        // Proleptic Gregorian, as dates are stored: the default switches to the Julian
        // calendar before October 1582, so `01/01/1000` would be another day than `1000-01-01`.
        formatter.gregorianStartDate = Date(timeIntervalSince1970: -1e13)
        // Not lenient (the default, stated): a lenient formatter rolls `32/01/2012` over into
        // February.
        formatter.isLenient = false
        return formatter
    }
}
