import Foundation

/// A schema's custom date pattern, read once, that decides whether a date `DateFormatter`
/// parsed from a text is exactly the instant the text says.
///
/// `DateFormatter` (ICU) reads more than the pattern as written, and some of what it accepts
/// becomes another instant, silently: it cuts fraction digits past the millisecond
/// (`.999999` would be `.999`), reads `12` for `yyyy` as the year 12, ignores a day-of-week
/// name that is not the date's, lets `a` override `HH` (`10:00 AM` under `HH:mm a` is midnight),
/// and takes other punctuation or spaces for a literal (`01-02-2012` under `dd/MM/yyyy`, which a
/// later `MM-dd-yyyy` would have read as another day). Out-of-range fields (month 13, day 32,
/// 24:00) are already refused: the formatter is not lenient.
///
/// The check reads the text again itself, strictly, and compares. It walks the pattern and the
/// text together: literals must be there exactly; numeric fields take their digits (a field
/// followed directly by another numeric field takes exactly its pattern width, as ICU does);
/// names (months, days of the week, AM/PM, eras) are matched, in any case, against the
/// formatter's own symbols; a zone is an offset (`+0530`, `-08:00`, `Z`, `GMT+5`) or a name.
/// From the fields it computes the wall-clock time the text says (proleptic Gregorian, the
/// formatter's defaults for absent fields: 2000-01-01 00:00) and requires that the formatter's
/// date be that wall-clock time at the text's offset: UTC without a zone field, the offset
/// itself when the text gives one, and for a zone name (`PST`, `Pacific Standard Time`,
/// `America/New_York`) the instant a formatter reads from that wall-clock time written plainly
/// (`uuuu-MM-dd'T'HH:mm:ss.SSS`) followed by the same name: the formatter converts the name, and
/// only the name. The text is refused when:
/// - a fraction has a digit past the nanosecond that is not zero (`.123456789000` is exact);
///   digits past the millisecond, which the formatter cuts, are read from the text and added
///   to the formatter's instant, so `SSSSSS` and `SSSSSSSSS` keep every digit given;
/// - a `y`, `Y` or `u` field of two letters or more has fewer digits than letters (`12` for
///   `yyyy`); `yy` with two digits is a two-digit year, as the pattern means;
/// - a day-of-week name is not the date's, an `a` contradicts `H` or `k`, two fields for the
///   same thing disagree, or a field is out of range;
/// - the formatter's date is not the text's wall-clock time at the text's offset.
///
/// Limits, stated plainly: a zone name is read as the formatter reads it (a wall-clock time
/// that a daylight-saving change makes ambiguous takes the formatter's choice). A pattern with a
/// field the check does not read (week of year `w`, quarter `Q`, day period `B`, …) is checked
/// for its literals, digits and fractions when those fields are numeric, and not at all when one
/// is a name; its instant is not compared: such a date is what the formatter reads.
///
/// Re-formatting the parsed date with the same pattern and comparing the text was the other
/// choice; it fails on inputs that are exact but not the formatter's own spelling (`01/02/2012`
/// under `d/M/yyyy`, `wed` or `WEDNESDAY` under `EEE`, `GMT` or `Z` under `Z`, `PST` under `zzz`
/// in July), so the check reads the fields instead.
struct DatePattern: Sendable {
    private enum Token: Sendable {
        case literal([Unicode.Scalar])
        case field(Unicode.Scalar, Int)
    }

    private struct Name: Sendable {
        let text: String
        let length: Int
        let value: Int
    }

    private enum Zone: Equatable {
        /// Seconds east of UTC.
        case offset(Int)
        /// A zone name (or other zone text) and the pattern field it was read with.
        case named(field: String, text: String)
    }

    private struct Fields {
        var years: [(value: Int, twoDigit: Bool)] = []
        var beforeChrist: Bool?
        var months: Set<Int>?
        var day: Int?
        var dayOfYear: Int?
        var hours: [(letter: Unicode.Scalar, value: Int)] = []
        var pm: Bool?
        var minute: Int?
        var second: Int?
        /// The fraction of the second, in nanoseconds.
        var nanosecond: Int?
        var weekdays: Set<Int>?
        var zone: Zone?
        /// A field the check does not read: the instant is not compared.
        var unread = false
        /// A name the check does not read: the rest of the text is not walked either.
        var stopped = false
    }

    private let tokens: [Token]
    private let months: [Name]
    private let narrowMonths: [Name]
    private let weekdays: [Name]
    private let narrowWeekdays: [Name]
    private let shortestWeekdays: [Name]
    private let dayPeriods: [Name]
    private let eras: [Name]
    private let twoDigitStartYear: Int

    init(format: String, formatter: DateFormatter) {
        tokens = Self.tokens(of: format)
        func names(_ lists: [[String]?], first: Int = 0) -> [Name] {
            var names: [Name] = []
            for list in lists {
                for (index, symbol) in (list ?? []).enumerated() where !symbol.isEmpty {
                    let text = symbol.lowercased()
                    names.append(Name(text: text, length: symbol.unicodeScalars.count, value: index + first))
                }
            }
            return names.sorted { $0.length > $1.length }
        }
        months = names(
            [
                formatter.monthSymbols, formatter.shortMonthSymbols, formatter.standaloneMonthSymbols,
                formatter.shortStandaloneMonthSymbols,
            ], first: 1)
        narrowMonths = names([formatter.veryShortMonthSymbols, formatter.veryShortStandaloneMonthSymbols], first: 1)
        weekdays = names([
            formatter.weekdaySymbols, formatter.shortWeekdaySymbols, formatter.standaloneWeekdaySymbols,
            formatter.shortStandaloneWeekdaySymbols,
        ])
        narrowWeekdays = names([formatter.veryShortWeekdaySymbols, formatter.veryShortStandaloneWeekdaySymbols])
        shortestWeekdays = names([formatter.shortWeekdaySymbols.map { String($0.prefix(2)) }])
        let am = formatter.amSymbol
        let pm = formatter.pmSymbol
        dayPeriods = names([[am, pm], [String(am.prefix(1)), String(pm.prefix(1))]])
        eras = names([formatter.eraSymbols, formatter.longEraSymbols])
        let start = (formatter.twoDigitStartDate ?? Date(timeIntervalSince1970: -631_152_000)).timeIntervalSince1970
        twoDigitStartYear = Int(DateCoding.civil(fromDays: Int64((start / 86_400).rounded(.down))).0)
    }

    /// Whether `date`, which the formatter parsed from `text` with this pattern, is exactly
    /// the instant `text` says.
    ///
    /// `zoned` converts a zone given by name: called with the zone's pattern field (`zzz`), the
    /// zone text, and a wall-clock time as `yyyy-MM-dd'T'HH:mm:ss.SSS`, it returns the instant a
    /// formatter reads from that wall-clock time and zone.
    ///
    /// - Returns: The instant `text` says, to the nanosecond (the formatter's date to the
    ///   millisecond, then the fraction's further digits read from the text), or nil when the
    ///   formatter's date is not exactly what the text says.
    func exactTimestamp(_ date: Date, text: String, zoned: (String, String, String) -> Date?) -> Timestamp? {
        let scalars = Array(text.unicodeScalars)
        guard let fields = read(scalars), let instant = Self.milliseconds(date) else { return nil }
        if !(fields.unread || fields.stopped) {
            guard matches(fields, milliseconds: instant, zoned: zoned) else { return nil }
        }
        let seconds = instant >= 0 ? instant / 1000 : (instant - 999) / 1000
        let subMillisecond = (fields.nanosecond ?? 0) % 1_000_000
        return Timestamp(
            seconds: seconds, nanoseconds: Int32(instant - seconds * 1000) * 1_000_000 + Int32(subMillisecond))
    }

    private static func milliseconds(_ date: Date) -> Int64? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        return Int64((seconds * 1000).rounded())
    }

    // MARK: Reading the pattern

    private static func tokens(of format: String) -> [Token] {
        var tokens: [Token] = []
        func literal(_ scalar: Unicode.Scalar) {
            if case .literal(let previous) = tokens.last {
                tokens[tokens.count - 1] = .literal(previous + [scalar])
            } else {
                tokens.append(.literal([scalar]))
            }
        }
        let pattern = Array(format.unicodeScalars)
        var index = 0
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == "'" {
                if index + 1 < pattern.count, pattern[index + 1] == "'" {
                    literal("'")
                    index += 2
                    continue
                }
                index += 1
                while index < pattern.count {
                    if pattern[index] == "'" {
                        if index + 1 < pattern.count, pattern[index + 1] == "'" {
                            literal("'")
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    literal(pattern[index])
                    index += 1
                }
            } else if isLetter(scalar) {
                var count = 1
                while index + count < pattern.count, pattern[index + count] == scalar { count += 1 }
                tokens.append(.field(scalar, count))
                index += count
            } else {
                literal(scalar)
                index += 1
            }
        }
        return tokens
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Whether a field is read as digits.
    private static func isNumeric(_ letter: Unicode.Scalar, _ count: Int) -> Bool {
        switch letter {
        case "y", "Y", "u", "d", "D", "H", "h", "k", "K", "m", "s", "S", "F", "w", "W", "g", "A", "r": true
        case "M", "L", "Q", "q", "e", "c": count <= 2
        default: false
        }
    }

    // MARK: Reading the text

    /// The fields `text` gives, or nil when it does not match the pattern exactly.
    private func read(_ text: [Unicode.Scalar]) -> Fields? {
        var fields = Fields()
        var index = 0
        for (position, token) in tokens.enumerated() {
            switch token {
            case .literal(let literal):
                guard index + literal.count <= text.count, Array(text[index..<index + literal.count]) == literal
                else { return nil }
                index += literal.count
            case .field(let letter, let count):
                var width: Int?
                if position + 1 < tokens.count, case .field(let next, let nextCount) = tokens[position + 1],
                    Self.isNumeric(letter, count), Self.isNumeric(next, nextCount)
                {
                    width = count
                }
                let isLast = position + 1 == tokens.count
                guard read(letter, count, width: width, isLast: isLast, text, &index, into: &fields) else { return nil }
                if fields.stopped { return fields }
            }
        }
        return index == text.count ? fields : nil
    }

    private func read(
        _ letter: Unicode.Scalar, _ count: Int, width: Int?, isLast: Bool, _ text: [Unicode.Scalar],
        _ index: inout Int, into fields: inout Fields
    ) -> Bool {
        func number() -> (value: Int, digits: Int)? {
            let digits = Self.digits(text, from: index, width: width)
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            index += digits.count
            return (digits.reduce(0) { $0 * 10 + $1 }, digits.count)
        }
        func agree(_ slot: inout Int?, _ value: Int) -> Bool {
            if let existing = slot, existing != value { return false }
            slot = value
            return true
        }
        func name(_ names: [Name]) -> Set<Int>? {
            guard let (length, values) = Self.match(names, text, at: index) else { return nil }
            index += length
            return values
        }
        switch letter {
        case "y", "Y", "u":
            guard let (value, digits) = number(), count < 2 || digits >= count else { return false }
            // A two-digit year is read as the formatter reads it (its century window) when the
            // text has two digits: under `yy`, `YY`, and also `y`, as ICU does.
            let twoDigit = digits == 2 && (letter == "y" ? count <= 2 : letter == "Y" && count == 2)
            fields.years.append((value, twoDigit))
        case "M", "L":
            let values: Set<Int>
            if count <= 2 {
                guard let (value, _) = number() else { return false }
                values = [value]
            } else {
                guard let named = name(count == 5 ? narrowMonths : months) else { return false }
                values = named
            }
            fields.months = fields.months.map { $0.intersection(values) } ?? values
        case "d":
            guard let (value, _) = number(), agree(&fields.day, value) else { return false }
        case "D":
            guard let (value, _) = number(), agree(&fields.dayOfYear, value) else { return false }
        case "H", "h", "k", "K":
            guard let (value, _) = number() else { return false }
            fields.hours.append((letter, value))
        case "m":
            guard let (value, _) = number(), agree(&fields.minute, value) else { return false }
        case "s":
            guard let (value, _) = number(), agree(&fields.second, value) else { return false }
        case "S":
            let digits = Self.digits(text, from: index, width: width)
            // Finer than the stored nanosecond is another instant: refused, not cut.
            guard !digits.isEmpty, digits.dropFirst(9).allSatisfy({ $0 == 0 }) else { return false }
            index += digits.count
            let first = Array(digits.prefix(9)) + Array(repeating: 0, count: max(0, 9 - digits.count))
            guard agree(&fields.nanosecond, first.reduce(0) { $0 * 10 + $1 }) else { return false }
        case _ where letter == "E" || ((letter == "e" || letter == "c") && count >= 3):
            let names = count == 5 ? narrowWeekdays : count == 6 ? shortestWeekdays : weekdays
            guard let values = name(names) else { return false }
            fields.weekdays = fields.weekdays.map { $0.intersection(values) } ?? values
        case "a":
            guard let values = name(dayPeriods), values.count == 1, let value = values.first else { return false }
            if let pm = fields.pm, pm != (value == 1) { return false }
            fields.pm = value == 1
        case "G":
            guard let values = name(eras), values.count == 1, let value = values.first else { return false }
            if let existing = fields.beforeChrist, existing != (value == 0) { return false }
            fields.beforeChrist = value == 0
        case "z", "Z", "O", "v", "V", "X", "x":
            guard
                let zone = Self.zone(
                    text, &index, isLast: isLast, field: String(repeating: String(letter), count: count))
            else { return false }
            if let existing = fields.zone, existing != zone {
                if case .named = existing {
                    fields.zone = zone
                } else if case .offset = zone {
                    return false
                }
            } else {
                fields.zone = zone
            }
        default:
            // A field the check does not read: numeric ones are still walked for their digits.
            guard Self.isNumeric(letter, count) else {
                fields.stopped = true
                return true
            }
            guard number() != nil else { return false }
            fields.unread = true
            return true
        }
        return true
    }

    /// The decimal digits at `index`: exactly `width` of them when given, else all there are.
    private static func digits(_ text: [Unicode.Scalar], from index: Int, width: Int?) -> [Int] {
        var digits: [Int] = []
        var position = index
        while position < text.count, width.map({ digits.count < $0 }) ?? true {
            let properties = text[position].properties
            guard properties.numericType == .decimal, let value = properties.numericValue else { break }
            digits.append(Int(value))
            position += 1
        }
        if let width, digits.count != width { return [] }
        return digits
    }

    /// The longest of `names` at `index`, ignoring case, and every value spelled that way.
    private static func match(_ names: [Name], _ text: [Unicode.Scalar], at index: Int) -> (Int, Set<Int>)? {
        var best = 0
        var values: Set<Int> = []
        for name in names {
            if name.length < best { break }
            guard index + name.length <= text.count else { continue }
            var slice = String.UnicodeScalarView()
            slice.append(contentsOf: text[index..<index + name.length])
            if String(slice).lowercased() == name.text {
                best = name.length
                values.insert(name.value)
            }
        }
        return best > 0 ? (best, values) : nil
    }

    /// A zone: an offset the text gives (`+05:30`, `-0800`, `-8`, `Z`, `GMT`, `UTC+5`), or a name
    /// that the formatter converts (`PST`, `America/New_York`; the rest of the text when the zone ends
    /// the pattern, for names with spaces).
    private static func zone(_ text: [Unicode.Scalar], _ index: inout Int, isLast: Bool, field: String) -> Zone? {
        func isLetter(_ position: Int) -> Bool { position < text.count && Self.isLetter(text[position]) }
        if index < text.count, text[index] == "+" || text[index] == "-" {
            return offset(text, &index).map { .offset($0) }
        }
        for prefix in ["GMT", "UTC", "UT"] {
            let length = prefix.count
            guard index + length <= text.count else { continue }
            var slice = String.UnicodeScalarView()
            slice.append(contentsOf: text[index..<index + length])
            guard String(slice).uppercased() == prefix, !isLetter(index + length) else { continue }
            index += length
            if index < text.count, text[index] == "+" || text[index] == "-" {
                return offset(text, &index).map { .offset($0) }
            }
            return .offset(0)
        }
        if index < text.count, text[index] == "Z", !isLetter(index + 1) {
            index += 1
            return .offset(0)
        }
        let start = index
        if isLast {
            index = text.count
        } else {
            while index < text.count,
                Self.isLetter(text[index]) || ("0"..."9").contains(text[index])
                    || "_/-+".unicodeScalars.contains(text[index])
            {
                index += 1
            }
        }
        guard index > start else { return nil }
        var name = String.UnicodeScalarView()
        name.append(contentsOf: text[start..<index])
        return .named(field: field, text: String(name))
    }

    /// Seconds east of UTC for `±H`, `±HH`, `±HHMM`, `±HH:MM`, `±HHMMSS` or `±HH:MM:SS`.
    private static func offset(_ text: [Unicode.Scalar], _ index: inout Int) -> Int? {
        let sign = text[index] == "-" ? -1 : 1
        index += 1
        func ascii(_ count: Int?) -> [Int] {
            var digits: [Int] = []
            while index < text.count, count.map({ digits.count < $0 }) ?? true,
                let value = text[index].properties.numericValue, ("0"..."9").contains(text[index])
            {
                digits.append(Int(value))
                index += 1
            }
            return digits
        }
        func value(_ digits: ArraySlice<Int>) -> Int { digits.reduce(0) { $0 * 10 + $1 } }
        let run = ascii(nil)
        var hours = 0
        var minutes = 0
        var seconds = 0
        switch run.count {
        case 1, 2:
            hours = value(run[...])
            for part in 0..<2 {
                guard index < text.count, text[index] == ":" else { break }
                index += 1
                let digits = ascii(2)
                guard digits.count == 2 else { return nil }
                if part == 0 { minutes = value(digits[...]) } else { seconds = value(digits[...]) }
            }
        case 3, 4:
            hours = value(run.dropLast(2))
            minutes = value(run.suffix(2))
        case 5, 6:
            hours = value(run.dropLast(4))
            minutes = value(run.dropLast(2).suffix(2))
            seconds = value(run.suffix(2))
        default:
            return nil
        }
        guard hours < 24, minutes < 60, seconds < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60 + seconds)
    }

    // MARK: Comparing

    /// Whether the instant `milliseconds` (since 1970) is the wall-clock time `fields` say, at
    /// their zone.
    private func matches(
        _ fields: Fields, milliseconds instant: Int64, zoned: (String, String, String) -> Date?
    ) -> Bool {
        var hour: Int?
        for (letter, value) in fields.hours {
            let hourOfDay: Int
            switch letter {
            case "H", "k":
                guard value >= 0, value <= (letter == "H" ? 23 : 24) else { return false }
                hourOfDay = value % 24
                if let pm = fields.pm, pm != (hourOfDay >= 12) { return false }
            case "h":
                guard value <= 12 else { return false }
                hourOfDay = value % 12 + (fields.pm == true ? 12 : 0)
            default:
                guard value <= 11 else { return false }
                hourOfDay = value + (fields.pm == true ? 12 : 0)
            }
            if let hour, hour != hourOfDay { return false }
            hour = hourOfDay
        }
        let minute = fields.minute ?? 0
        let second = fields.second ?? 0
        guard minute < 60, second < 60 else { return false }
        let hourOfDay = hour ?? (fields.pm == true ? 12 : 0)
        let seconds = Int64(hourOfDay * 3600 + minute * 60 + second)
        let time = seconds * 1000 + Int64((fields.nanosecond ?? 0) / 1_000_000)

        var years: [Int] = [2000]
        if let first = fields.years.first {
            guard fields.years.allSatisfy({ $0.value == first.value && $0.twoDigit == first.twoDigit }) else {
                return false
            }
            if first.twoDigit {
                let base = twoDigitStartYear - twoDigitStartYear % 100 + first.value
                years = [base, base + 100]
            } else {
                years = [first.value]
            }
        }
        if fields.beforeChrist == true { years = years.map { 1 - $0 } }

        for year in years {
            let firstOfYear = DateCoding.days(fromCivil: Int64(year), 1, 1)
            var days: [Int64] = []
            if fields.months != nil || fields.day != nil || fields.dayOfYear == nil {
                for month in fields.months ?? [1] {
                    let day = fields.day ?? 1
                    guard (1...12).contains(month), day >= 1, day <= DateCoding.daysIn(month: month, year: year)
                    else { continue }
                    let number = DateCoding.days(fromCivil: Int64(year), Int64(month), Int64(day))
                    if let dayOfYear = fields.dayOfYear, number - firstOfYear + 1 != Int64(dayOfYear) { continue }
                    days.append(number)
                }
            } else if let dayOfYear = fields.dayOfYear,
                dayOfYear >= 1, dayOfYear <= (DateCoding.daysIn(month: 2, year: year) == 29 ? 366 : 365)
            {
                days.append(firstOfYear + Int64(dayOfYear) - 1)
            }
            for day in days {
                // 1970-01-01 was a Thursday; weekday 0 is Sunday, as in the formatter's symbols.
                if let weekdays = fields.weekdays, !weekdays.contains(Int(((day % 7) + 11) % 7)) { continue }
                let wallClock = day * 86_400_000 + time
                switch fields.zone {
                case nil:
                    if wallClock == instant { return true }
                case .offset(let offset):
                    if wallClock - Int64(offset) * 1000 == instant { return true }
                case .named(let field, let zone):
                    // The formatter converts the name, from the wall-clock time written plainly.
                    let wallSeconds = wallClock >= 0 ? wallClock / 1000 : (wallClock - 999) / 1000
                    guard
                        let written = Timestamp(
                            seconds: wallSeconds, nanoseconds: Int32(wallClock - wallSeconds * 1000) * 1_000_000)
                    else { continue }
                    let plain = String(written.description.prefix(23))
                    if let date = zoned(field, zone, plain), Self.milliseconds(date) == instant { return true }
                }
            }
        }
        return false
    }
}
