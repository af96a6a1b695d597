import Foundation

/// DateFormatters for the schema's custom formats, made once per format.
///
/// `@unchecked Sendable` is safe: the cache dictionary and each formatter are used only under the lock.
final class DateFormatterCache: @unchecked Sendable {
    private let lock = NSLock()
    private var formatters: [String: DateFormatter] = [:]

    func date(from text: String, format: String) -> Date? {
        lock.lock()
        defer { lock.unlock() }
        let formatter: DateFormatter
        if let cached = formatters[format] {
            formatter = cached
        } else {
            formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            // Proleptic Gregorian, as dates are stored: the default switches to the Julian
            // calendar before October 1582, so `01/01/1000` would be another day than `1000-01-01`.
            formatter.gregorianStartDate = Date(timeIntervalSince1970: -1e13)
            formatters[format] = formatter
        }
        return formatter.date(from: text)
    }
}
