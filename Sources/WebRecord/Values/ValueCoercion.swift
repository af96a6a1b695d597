import Foundation

/// Strict, type-directed conversion of response values into stored values (DESIGN §3.10).
///
/// No coercion stores a value the input did not mean: a `double` takes the nearest double,
/// and every other type keeps what was sent or refuses it (DESIGN §3.10).
///
/// - integer: JSON integers, numbers that are exactly an integer in the `Int64` range (`1e3`),
///   and strings that are whole numbers (`"12"`, `"-3"`, `"+7"`); `"12abc"`, `"+-5"`, `1.5`
///   and `-9223372036854775809` are rejected, never clamped or rounded.
/// - double: numbers and numeric strings, to the nearest double.
/// - decimal: numbers and numeric strings, exact (up to 38 significant digits; more is refused).
/// - string: strings; numbers as written (`1.10` stays `1.10`, a 20-digit id stays 20 digits).
/// - date: kept to the nanosecond; a finer one (a tenth fraction digit that is not zero) is
///   refused, never rounded.
/// - boolean: `true`/`false`, `0`/`1`, and the strings "true", "false", "yes", "no", "1", "0" (any case).
/// - string: strings; numbers and booleans are written as their JSON text.
/// - date: ISO-8601 strings (fraction of up to nine digits and zone optional), Unix seconds as a
///   number (read exactly from its digits, so `1704110400.123456` is the instant
///   `2024-01-01T12:00:00.123456Z` gives), then the attribute's `dateFormat` and the schema's
///   `dateFormats`; a pattern matches only text whose date is exactly what it says
///   (``DatePattern``), else the next one is tried. A refusal names its reason
///   (``refusal(_:type:dateFormat:)``).
/// - data: canonical base64 strings (what `Data.base64EncodedString()` writes). uuid: UUID strings.
/// - url: URI references as RFC 3986 writes them (``URIReference``).
/// - json: anything, stored in its canonical form: keys sorted by their UTF-8 bytes, numbers as
///   written (so `1` and `1.0` are two values), no whitespace.
struct ValueCoercion: Sendable {
    let dateFormats: [String]
    private let formatters: DateFormatterCache

    init(dateFormats: [String]) {
        self.dateFormats = dateFormats
        self.formatters = DateFormatterCache()
    }

    /// The stored value for `value` as an attribute of `type` (and `dateFormat`, for dates), or
    /// nil when it cannot be coerced. JSON null is `.null`.
    func storedValue(_ value: JSONValue, type: AttributeType, dateFormat: String?) -> DatabaseValue? {
        if case .null = value { return .null }
        switch type {
        case .string:
            switch value {
            case .string(let text): return .text(text)
            case .integer(let number): return .text(String(number))
            case .double(let number): return number.isFinite ? .text(number.description) : nil
            case .number(let text): return .text(text)
            case .bool(let flag): return .text(flag ? "true" : "false")
            default: return nil
            }
        case .integer:
            return Self.integer(value).map { .integer($0) }
        case .double:
            // `+ 0` makes a negative zero positive (IEEE 754: -0 + 0 is +0) and changes no other
            // double: SQLite stores a zero without its sign, so both stores keep it as 0.
            switch value {
            case .integer(let number): return .real(Double(number))
            // Not a NaN or an infinity (which a value built in code can hold): SQLite stores a
            // NaN as NULL, and neither is a JSON number.
            case .double(let number): return number.isFinite ? .real(number + 0) : nil
            // Only the text of a JSON number (one built in code might be `0x10`, which `Double`
            // would read).
            case .number(let text): return Self.strictDouble(text).map { .real($0 + 0) }
            case .string(let text): return Self.strictDouble(text).map { .real($0 + 0) }
            default: return nil
            }
        case .decimal:
            switch value {
            case .integer(let number): return .text(String(number))
            case .double(let number):
                return DecimalCoding.decimal(from: number.description).map { .text(DecimalCoding.string(from: $0)) }
            case .number(let text), .string(let text):
                return DecimalCoding.decimal(from: text).map { .text(DecimalCoding.string(from: $0)) }
            default: return nil
            }
        case .boolean:
            switch value {
            case .bool(let flag): return .integer(flag ? 1 : 0)
            case .string(let text):
                switch text.lowercased() {
                case "true", "yes", "1": return .integer(1)
                case "false", "no", "0": return .integer(0)
                default: return nil
                }
            case .integer, .double, .number:
                // The numbers 0 and 1 in any form an integer attribute takes (`1.0`, `1e0`).
                guard let number = Self.integer(value), number == 0 || number == 1 else { return nil }
                return .integer(number)
            default: return nil
            }
        case .date:
            if case .string(let text) = value, let stored = Self.storedISO8601(text) { return .text(stored) }
            guard case .success(let stamp) = timestamp(value, format: dateFormat) else { return nil }
            return .text(DateCoding.string(from: stamp))
        case .data:
            // Canonical base64 only: padding bits that are not zero (`AR==`) or extra padding
            // would be stored as other bytes than the text says, so they are refused.
            guard let text = value.stringValue, let data = Data(base64Encoded: text), data.base64EncodedString() == text
            else { return nil }
            return .blob(data)
        case .uuid:
            guard let text = value.stringValue, let uuid = UUID(uuidString: text) else { return nil }
            return .text(uuid.uuidString)
        case .url:
            // Foundation's parser also takes text no URL can be (it encodes a line break or a
            // lone space): a control, invisible or line-breaking character, or nothing but spaces,
            // is refused first.
            guard let text = value.stringValue, !text.isEmpty,
                !text.unicodeScalars.contains(where: { Self.breaksAURL($0.properties.generalCategory) }),
                text.unicodeScalars.contains(where: { $0.properties.generalCategory != .spaceSeparator }),
                URIReference.isValid(text), URL(string: text) != nil
            else { return nil }
            return .text(text)
        case .json:
            // Canonical, so that two values equal as JSON are one stored value: an object's key
            // order is no change. A value built in code that holds what JSON cannot (a NaN, an
            // infinity, number text that is not a number) is refused: written, it would be
            // `null` in its place.
            guard Self.isJSON(value) else { return nil }
            return .text(value.serialized(sortedKeys: true))
        }
    }

    /// The canonical text of stored JSON (keys sorted by their UTF-8 bytes, numbers as written,
    /// no whitespace), or nil when `text` is not JSON.
    static func canonicalJSON(_ text: String) -> String? {
        guard let value = try? JSONReader().read(text) else { return nil }
        return value.serialized(sortedKeys: true)
    }

    /// What a value refused for an attribute of `type` should have been, for a `typeMismatch`
    /// message: the type (`a date`), and for a date that looks like one, why it is not
    /// (`a date (month 13 does not exist)`).
    func refusal(_ value: JSONValue, type: AttributeType, dateFormat: String?) -> String {
        guard type == .date, case .failure(let refusal) = timestamp(value, format: dateFormat), refusal.looksLikeDate
        else { return type.withArticle }
        return "\(type.withArticle) (\(refusal.reason))"
    }

    /// Whether a character of `category` has no place anywhere in a URL's text: a control (C0,
    /// C1), an invisible format character (`U+200B`, `U+FEFF`), a line or paragraph separator.
    static func breaksAURL(_ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// The primary-key form of a value of an attribute of `type`.
    ///
    /// Stricter than ``storedValue(_:type:dateFormat:)`` for `double` keys: a number that a
    /// double cannot hold exactly is refused, never rounded into another record's key
    /// (DESIGN §3.3).
    func keyValue(_ value: JSONValue, type: AttributeType, dateFormat: String?) -> DatabaseValue? {
        if type == .double {
            switch value {
            case .integer(let number): guard Double(exactly: number) != nil else { return nil }
            case .number(let text): guard JSONNumberText.double(exactly: text) != nil else { return nil }
            case .string(let text): guard JSONNumberText.double(exactly: text) != nil else { return nil }
            default: break
            }
        }
        guard let stored = storedValue(value, type: type, dateFormat: dateFormat), !stored.isNull else { return nil }
        return stored
    }

    // MARK: - Helpers

    /// Whether every number in `value` is one JSON can hold: no NaN or infinity, and number text
    /// that is a JSON number. (The reader gives nothing else; a value built in code might.)
    static func isJSON(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let number): number.isFinite
        case .number(let text): JSONNumberText.isJSONNumber(text)
        case .array(let elements): elements.allSatisfy(isJSON)
        case .object(let object): object.values.allSatisfy(isJSON)
        case .null, .bool, .integer, .string: true
        }
    }

    static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer, .double, .number: return value.int64Value  // exactly, or nil
        case .string(let text): return strictInteger(text)
        default: return nil
        }
    }

    /// A whole number written as text: an optional sign, then digits only. Out of the `Int64`
    /// range is nil, never clamped.
    static func strictInteger(_ text: String) -> Int64? {
        var body = Substring(text)
        let negative = body.first == "-"
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard !body.isEmpty, body.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(negative ? "-" + body : String(body))
    }

    /// A number written as text (see ``JSONNumberText/parts(of:)``), to the nearest double.
    static func strictDouble(_ text: String) -> Double? {
        guard JSONNumberText.parts(of: text) != nil, let number = Double(text), number.isFinite else { return nil }
        return number
    }

    /// The stored text for the ISO-8601 form web services send most, without going through
    /// ``Timestamp``: `yyyy-MM-ddTHH:mm:ssZ`, or with a fraction of one to nine digits
    /// (`.SSSZ`, `.SSSSSSZ`, `.SSSSSSSSSZ`), becomes `yyyy-MM-ddTHH:mm:ss.SSSSSSSSSZ` (see
    /// `DateCoding`). Nil for anything else (other zones, a leap second, a refused date), which
    /// takes the general path.
    ///
    /// This is the same text `DateCoding.string(from: DateCoding.timestamp(fromISO8601: text))`
    /// gives, at a fraction of the cost: one date per post adds up over a large response.
    static func storedISO8601(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let count = bytes.count
            guard count == 20 || (count >= 22 && count <= 30 && bytes[19] == UInt8(ascii: ".")) else { return nil }
            func digits(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let digit = Int(bytes[index]) &- 48
                    guard digit >= 0, digit <= 9 else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[count - 1] == UInt8(ascii: "Z"),
                let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
                let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
                count == 20 || digits(20, count - 21) != nil,
                day >= 1, day <= DateCoding.daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
            else { return nil }
            if count == 30 { return String(decoding: bytes, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: 30) { output in
                for index in 0..<19 { output[index] = bytes[index] }
                output[19] = UInt8(ascii: ".")
                let fraction = max(0, count - 21)
                for index in 0..<fraction { output[20 + index] = bytes[20 + index] }
                for index in fraction..<9 { output[20 + index] = UInt8(ascii: "0") }
                output[29] = UInt8(ascii: "Z")
                return 30
            }
        }
    }

    /// The instant a response's date value gives, or why it gives none.
    private func timestamp(_ value: JSONValue, format: String?) -> Result<Timestamp, DateCoding.Refusal> {
        switch value {
        case .integer(let seconds):
            guard let stamp = Timestamp(seconds: seconds) else {
                return .failure(
                    .init(reason: "Unix seconds \(seconds) are outside the years 0000–9999", looksLikeDate: true))
            }
            return .success(stamp)
        case .double(let seconds):
            // A double read from a response is its shortest form, the digits the server wrote.
            guard seconds.isFinite else { return .failure(.init(reason: "not a number", looksLikeDate: false)) }
            return DateCoding.timestamp(fromUnixSeconds: seconds.description)
        case .number(let text):
            return DateCoding.timestamp(fromUnixSeconds: text)
        case .string(let text):
            let iso = DateCoding.timestamp(fromISO8601: text)
            if case .success = iso { return iso }
            for pattern in (format.map { [$0] } ?? []) + dateFormats {
                if let stamp = formatters.timestamp(from: text, format: pattern) { return .success(stamp) }
            }
            if case .failure(let refusal) = iso, !refusal.looksLikeDate, !dateFormats.isEmpty || format != nil {
                let patterns = ((format.map { [$0] } ?? []) + dateFormats).map { "'\($0)'" }
                return .failure(
                    .init(
                        reason:
                            "neither ISO-8601 nor the date format\(patterns.count == 1 ? "" : "s") \(patterns.joined(separator: ", "))",
                        looksLikeDate: true))
            }
            return iso
        default:
            return .failure(.init(reason: "not a date", looksLikeDate: false))
        }
    }
}
