import Foundation
import Testing

@testable import WebRecord

/// Dates as WebRecord stores and reads them.
@Suite struct DateCodingTests {
    /// Seconds since 1970 computed independently, with Foundation's Gregorian calendar in UTC.
    static func expected(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
        milliseconds: Int = 0
    ) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let whole = calendar.date(from: components)!
        return Date(timeIntervalSince1970: whole.timeIntervalSince1970 + Double(milliseconds) / 1000)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let date: Date
        var testDescription: String { text }
    }

    static let parsed: [Case] = [
        Case(text: "2012-11-21T02:33:42Z", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21T02:33:42.000Z", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21T02:33:42.5Z", date: expected(2012, 11, 21, 2, 33, 42, milliseconds: 500)),
        Case(text: "2012-11-21T02:33:42.12Z", date: expected(2012, 11, 21, 2, 33, 42, milliseconds: 120)),
        Case(text: "2012-11-21T02:33:42.123000000Z", date: expected(2012, 11, 21, 2, 33, 42, milliseconds: 123)),
        Case(text: "2012-11-21T02:33:42,25Z", date: expected(2012, 11, 21, 2, 33, 42, milliseconds: 250)),
        Case(text: "2012-11-21T08:03:42+05:30", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-20T18:33:42-0800", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-20T18:33:42-08", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21T00:03:42.250-02:30", date: expected(2012, 11, 21, 2, 33, 42, milliseconds: 250)),
        Case(text: "2012-11-21T02:33:42", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21 02:33:42Z", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21t02:33:42z", date: expected(2012, 11, 21, 2, 33, 42)),
        Case(text: "2012-11-21T02:33Z", date: expected(2012, 11, 21, 2, 33, 0)),
        Case(text: "2012-11-21", date: expected(2012, 11, 21)),
        Case(text: "2012-02-29T12:00:00Z", date: expected(2012, 2, 29, 12)),
        Case(text: "2000-02-29T00:00:00Z", date: expected(2000, 2, 29)),
        Case(text: "2000-01-01T00:30:00+01:00", date: expected(1999, 12, 31, 23, 30)),
        Case(text: "1969-12-31T23:59:59.999Z", date: expected(1969, 12, 31, 23, 59, 59, milliseconds: 999)),
        Case(text: "1900-01-01T00:00:00Z", date: expected(1900, 1, 1)),
        Case(text: "1583-07-04T10:00:00Z", date: expected(1583, 7, 4, 10)),
        Case(text: "9999-12-31T23:59:59.999Z", date: expected(9999, 12, 31, 23, 59, 59, milliseconds: 999)),
    ]

    @Test(arguments: parsed)
    func parsesISO8601(_ example: Case) throws {
        let date = try #require(DateCoding.date(fromISO8601: example.text))
        #expect(abs(date.timeIntervalSince(example.date)) < 0.0005, "\(date) != \(example.date)")
    }

    static let invalid = [
        "2012-11-21T02:33:42.1234567891Z",  // finer than a nanosecond: refused, not rounded
        "2012-11-21T02:33:42.0000000001Z",
        "2013-02-29T00:00:00Z",  // not a leap year
        "1900-02-29",  // century, not a leap year
        "2012-11-21T25:00:00Z",
        "2012-11-21T24:00:00Z",
        "2012-11-21T12:60:00Z",
        "2012-11-21T12:00:61Z",
        "2012-13-01",
        "2012-00-10",
        "2012-04-31",
        "2012-11-00",
        "2012-11-21T02:33:42.Z",
        "2012-11-21T02:33:42+25:00",
        "2012-11-21T02:33:42+05:60",
        "2012-11-21T02:33:42Zjunk",
        "2012-11-21T",
        "2012-11-21X02:33:42Z",
        "12-11-21",
        "2012/11/21",
        "21 Nov 2012",
        "",
        "1353465222",
    ]

    @Test(arguments: invalid)
    func rejectsInvalidText(_ text: String) {
        #expect(DateCoding.date(fromISO8601: text) == nil)
    }

    @Test(arguments: [
        ("2012-11-21T02:33:42.000Z", "2012-11-21T02:33:42.000000000Z"),
        ("2012-11-21T02:33:42.999Z", "2012-11-21T02:33:42.999000000Z"),
        ("2012-11-21T08:03:42.5+05:30", "2012-11-21T02:33:42.500000000Z"),
        ("2012-02-29T23:59:59.001-01:00", "2012-03-01T00:59:59.001000000Z"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999000000Z"),
        ("1969-07-20T20:17:40Z", "1969-07-20T20:17:40.000000000Z"),
        ("1601-01-01T00:00:00.001Z", "1601-01-01T00:00:00.001000000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000000Z"),
        ("2012-11-21", "2012-11-21T00:00:00.000000000Z"),
    ])
    func writesTheFixedWidthUTCForm(input: String, stored: String) throws {
        #expect(try DateCoding.timestamp(fromISO8601: input).get().description == stored)
        // Through a Date, to the microsecond: exact where a Date holds microseconds (1730–2270).
        let date = try #require(DateCoding.date(fromISO8601: input))
        if abs(date.timeIntervalSinceReferenceDate) < 8e9 { #expect(DateCoding.string(from: date) == stored) }
    }

    @Test func everyMillisecondRoundTripsThroughText() throws {
        var mismatches: [String] = []
        for base in ["2012-11-21T02:33:42", "1969-12-31T23:59:58", "2038-01-19T03:14:07", "1905-06-30T12:00:00"] {
            for millisecond in 0..<1000 {
                let text =
                    base + "." + String(repeating: "0", count: millisecond < 10 ? 2 : millisecond < 100 ? 1 : 0)
                    + "\(millisecond)Z"
                guard let date = DateCoding.date(fromISO8601: text) else {
                    mismatches.append("\(text) did not parse")
                    continue
                }
                let written = DateCoding.string(from: date) ?? "nil"
                if written != text.dropLast() + "000000Z" { mismatches.append("\(text) -> \(written)") }
            }
        }
        let mismatchCount = mismatches.count
        #expect(mismatchCount == 0, Comment(rawValue: mismatches.prefix(5).joined(separator: ", ")))
    }

    @Test func datesRoundTripToTheMillisecond() throws {
        for seconds in [0, 1_353_465_222.123, -1.5, -86_400.001, 951_782_400.999, 4_102_444_800.25, -2_208_988_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = try #require(DateCoding.string(from: date))
            #expect(text.count == 30)
            let back = try #require(DateCoding.date(fromISO8601: text))
            #expect(abs(back.timeIntervalSince(date)) < 0.0005, "\(seconds) -> \(text)")
        }
    }

    @Test func storedTextSortsInTimeOrder() {
        let dates = [-3_000_000_000.0, -1, 0, 0.001, 1_000_000_000, 1_353_465_222.5, 4_000_000_000].map(
            Date.init(timeIntervalSince1970:))
        let texts = dates.compactMap { DateCoding.string(from: $0) }
        #expect(texts.count == dates.count)
        #expect(texts == texts.sorted())
    }

    @Test func agreesWithFoundationsISO8601Formatter() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 123_456_789.125) {
            let date = Date(timeIntervalSince1970: seconds)
            let ours = try #require(DateCoding.string(from: date))
            let theirs = formatter.string(from: date)
            #expect(ours == theirs.dropLast() + "000000Z")
            let parsed = try #require(formatter.date(from: theirs))
            let back = try #require(DateCoding.date(fromISO8601: ours))
            #expect(abs(back.timeIntervalSince(parsed)) < 0.000001)
        }
    }

    @Test func monthLengthsAgreeWithFoundationAndGuardBothReaders() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for year in [1600, 1700, 1900, 1999, 2000, 2011, 2012, 2100, 2400, 9999] {
            for month in 1...12 {
                let first = try #require(calendar.date(from: DateComponents(year: year, month: month, day: 1)))
                let length = try #require(calendar.range(of: .day, in: .month, for: first)).count
                #expect(DateCoding.daysIn(month: month, year: year) == length, "\(year)-\(month)")
                let prefix = String(format: "%04d-%02d-", year, month)
                for day in [length, length + 1] {
                    let text = prefix + String(format: "%02dT12:00:00Z", day)
                    let valid = day == length
                    // The general ISO-8601 reader and the stored-form fast path of coercion agree.
                    #expect((DateCoding.date(fromISO8601: text) != nil) == valid, "\(text)")
                    #expect((ValueCoercion.storedISO8601(text) != nil) == valid, "\(text)")
                }
            }
        }
        #expect(DateCoding.daysIn(month: 0, year: 2012) == 0)
        #expect(DateCoding.daysIn(month: 13, year: 2012) == 0)
    }

    @Test func storableRange() {
        #expect(DateCoding.isStorable(Date(timeIntervalSince1970: 0)))
        #expect(DateCoding.isStorable(Self.expected(1, 1, 1)))
        #expect(DateCoding.isStorable(Self.expected(9999, 12, 31, 23, 59, 59)))
        #expect(!DateCoding.isStorable(Self.expected(10000, 1, 1)))
        #expect(!DateCoding.isStorable(Date(timeIntervalSince1970: .infinity)))
        #expect(!DateCoding.isStorable(Date(timeIntervalSince1970: -62_167_219_201)))
    }
}
