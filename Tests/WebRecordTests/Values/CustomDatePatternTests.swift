import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Dates read through a schema's custom patterns (`dateFormat`, `dateFormats`): stored only
/// when the stored instant is exactly what the text says, refused otherwise.
@Suite struct CustomDatePatternTests {
    static let cache = DateFormatterCache()

    /// The stored text for `text` read with `pattern` alone (no ISO-8601 first), or nil when
    /// refused.
    static func stored(_ text: String, _ pattern: String) -> String? {
        cache.timestamp(from: text, format: pattern).map(\.description)
    }

    /// The stored text for `text` as a date attribute with `dateFormat` and the schema's
    /// `dateFormats`, or nil when refused.
    static func coerced(_ text: String, _ dateFormat: String?, dateFormats: [String] = []) -> String? {
        let coercion = ValueCoercion(dateFormats: dateFormats)
        guard case .text(let stored)? = coercion.storedValue(.string(text), type: .date, dateFormat: dateFormat) else {
            return nil
        }
        return stored
    }

    @Test func fractionDigitsPastTheNanosecondAreRefusedUnlessZero() {
        let six = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ"
        // Past the millisecond, the formatter cuts; the digits are read from the text.
        #expect(Self.stored("2012-11-21T02:33:42.999999+0000", six) == "2012-11-21T02:33:42.999999000Z")
        #expect(Self.stored("2012-11-21T02:33:42.123400+0000", six) == "2012-11-21T02:33:42.123400000Z")
        #expect(
            Self.stored("2012-11-21T02:33:42.123456789+0000", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSSZ")
                == "2012-11-21T02:33:42.123456789Z")
        #expect(
            Self.stored("1969-12-31 23:59:59.999999", "yyyy-MM-dd HH:mm:ss.SSSSSS") == "1969-12-31T23:59:59.999999000Z")
        #expect(Self.stored("2012-11-21T02:33:42.123000+0000", six) == "2012-11-21T02:33:42.123000000Z")
        #expect(Self.stored("2012-11-21T02:33:42.123+0000", six) == "2012-11-21T02:33:42.123000000Z")
        // More digits than the pattern's `S` run: the formatter reads them all, and cuts them.
        let three = "dd/MM/yyyy HH:mm:ss.SSS"
        #expect(Self.stored("21/11/2012 02:33:42.1239", three) == "2012-11-21T02:33:42.123900000Z")
        #expect(Self.stored("21/11/2012 02:33:42.1234567890123", three) == nil)
        #expect(Self.stored("21/11/2012 02:33:42.1230", three) == "2012-11-21T02:33:42.123000000Z")
        #expect(Self.stored("21/11/2012 02:33:42.1", three) == "2012-11-21T02:33:42.100000000Z")
        #expect(Self.stored("2012-11-21 02:33:42.1234", "yyyy-MM-dd HH:mm:ss.S") == "2012-11-21T02:33:42.123400000Z")
        #expect(Self.stored("2012-11-21 02:33:42.123", "yyyy-MM-dd HH:mm:ss.S") == "2012-11-21T02:33:42.123000000Z")
        // Through the coercion.
        #expect(Self.coerced("2012-11-21T02:33:42.999999+0000", six) == "2012-11-21T02:33:42.999999000Z")
        #expect(Self.coerced("21/11/2012 02:33:42.1239", three) == "2012-11-21T02:33:42.123900000Z")
        #expect(Self.coerced("21/11/2012 02:33:42.12345678901", three) == nil)
        #expect(Self.coerced("21/11/2012 02:33:42.1230", three) == "2012-11-21T02:33:42.123000000Z")
        // Abutting fields take their pattern width.
        #expect(Self.stored("20121121023342123", "yyyyMMddHHmmssSSS") == "2012-11-21T02:33:42.123000000Z")
    }

    @Test func aYearOfFourLettersNeedsFourDigits() {
        #expect(Self.stored("01/01/12", "dd/MM/yyyy") == nil)
        #expect(Self.stored("01/01/212", "dd/MM/yyyy") == nil)
        #expect(Self.stored("01/01/2012", "dd/MM/yyyy") == "2012-01-01T00:00:00.000000000Z")
        #expect(Self.stored("01/01/02012", "dd/MM/yyyy") == "2012-01-01T00:00:00.000000000Z")
        // `yy` is a two-digit year, as the pattern says; one digit is not.
        #expect(Self.stored("21/11/12", "dd/MM/yy") == "2012-11-21T00:00:00.000000000Z")
        #expect(Self.stored("21/11/2012", "dd/MM/yy") == "2012-11-21T00:00:00.000000000Z")
        #expect(Self.stored("21/11/1", "dd/MM/yy") == nil)
        #expect(Self.stored("121121", "yyMMdd") == "2012-11-21T00:00:00.000000000Z")
        // `y` reads two digits as `yy` does, as the formatter does; other lengths as written.
        #expect(Self.stored("1/2/12", "M/d/y") == "2012-01-02T00:00:00.000000000Z")
        #expect(Self.stored("1/2/2012", "M/d/y") == "2012-01-02T00:00:00.000000000Z")
        #expect(Self.stored("01/01/0001 BC", "dd/MM/yyyy G") == "0000-01-01T00:00:00.000000000Z")
        #expect(Self.stored("21 Nov 2012 AD", "dd MMM yyyy G") == "2012-11-21T00:00:00.000000000Z")
        #expect(Self.stored("21 Nov 2012 Anno Domini", "dd MMM yyyy GGGG") == "2012-11-21T00:00:00.000000000Z")
    }

    @Test func aDayOfTheWeekMustBeTheDates() {
        let pattern = "EEE, dd MMM yyyy HH:mm:ss Z"
        #expect(Self.stored("Mon, 21 Nov 2012 02:33:42 +0000", pattern) == nil)
        #expect(Self.stored("Thu, 21 Nov 2012 23:33:42 -0800", pattern) == nil)
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 +0000", pattern) == "2012-11-21T02:33:42.000000000Z")
        // The day of the week is the text's, in the text's zone, not UTC's.
        #expect(Self.stored("Wed, 21 Nov 2012 23:33:42 -0800", pattern) == "2012-11-22T07:33:42.000000000Z")
        // Names in any case, short or long, as the formatter reads them.
        #expect(Self.stored("wed, 21 nov 2012 02:33:42 -0800", pattern) == "2012-11-21T10:33:42.000000000Z")
        #expect(Self.stored("WEDNESDAY, 21 NOVEMBER 2012 02:33:42 -0800", pattern) == "2012-11-21T10:33:42.000000000Z")
        #expect(Self.stored("Wednesday 21/11/2012", "EEEE dd/MM/yyyy") == "2012-11-21T00:00:00.000000000Z")
        #expect(Self.stored("Tuesday 21/11/2012", "EEEE dd/MM/yyyy") == nil)
        #expect(Self.stored("Mon, 21 Nov 2012 02:33:42 PST", "EEE, dd MMM yyyy HH:mm:ss zzz") == nil)
    }

    @Test func zonesAreReadAsTheTextGivesThem() {
        let rfc = "EEE, dd MMM yyyy HH:mm:ss Z"
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 GMT", rfc) == "2012-11-21T02:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 Z", rfc) == "2012-11-21T02:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 +00:00", rfc) == "2012-11-21T02:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 -08", rfc) == "2012-11-21T10:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 -8", rfc) == "2012-11-21T10:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 UTC+5:30", rfc) == "2012-11-20T21:03:42.000000000Z")
        let named = "EEE, dd MMM yyyy HH:mm:ss zzz"
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 PST", named) == "2012-11-21T10:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 EDT", named) == "2012-11-21T06:33:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 GMT+5:30", named) == "2012-11-20T21:03:42.000000000Z")
        #expect(Self.stored("Wed, 21 Nov 2012 02:33:42 +0100", named) == "2012-11-21T01:33:42.000000000Z")
        #expect(Self.stored("2012-07-21 02:33 PST", "yyyy-MM-dd HH:mm zzz") == "2012-07-21T10:33:00.000000000Z")
        #expect(
            Self.stored("2012-11-21 02:33 Pacific Standard Time", "yyyy-MM-dd HH:mm zzzz")
                == "2012-11-21T10:33:00.000000000Z")
        #expect(
            Self.stored("2012-11-21 02:33 America/New_York", "yyyy-MM-dd HH:mm VV") == "2012-11-21T07:33:00.000000000Z")
        #expect(
            Self.stored("2012-11-21T02:33:42+05:30", "yyyy-MM-dd'T'HH:mm:ssZZZZZ") == "2012-11-20T21:03:42.000000000Z")
        #expect(Self.stored("2012-11-21T02:33:42Z", "yyyy-MM-dd'T'HH:mm:ssZZZZZ") == "2012-11-21T02:33:42.000000000Z")
        #expect(
            Self.stored("2012-11-21T02:33:42+05:30", "yyyy-MM-dd'T'HH:mm:ssxxx") == "2012-11-20T21:03:42.000000000Z")
        #expect(Self.stored("2012-11-21 02:33 GMT-08:00", "yyyy-MM-dd HH:mm ZZZZ") == "2012-11-21T10:33:00.000000000Z")
        // A named zone's hour is still checked against the day period.
        #expect(Self.stored("2012-11-21 13:00 AM PST", "yyyy-MM-dd HH:mm a zzz") == nil)
        #expect(Self.stored("2012-11-21 13:00 PM PST", "yyyy-MM-dd HH:mm a zzz") == nil)
    }

    @Test func clocksKeepTheirHour() {
        // The formatter lets `a` move a 24-hour clock: `10:00 AM` would be midnight.
        #expect(Self.stored("2012-11-21 10:00 AM", "yyyy-MM-dd HH:mm a") == nil)
        #expect(Self.stored("2012-11-21 01:00 PM", "yyyy-MM-dd HH:mm a") == nil)
        // Even when they agree: the formatter reads `13:00 PM` as noon.
        #expect(Self.stored("2012-11-21 13:00 PM", "yyyy-MM-dd HH:mm a") == nil)
        #expect(Self.stored("2012-11-21 12:30 PM", "yyyy-MM-dd HH:mm a") == "2012-11-21T12:30:00.000000000Z")
        #expect(Self.stored("2012-11-21 00:30 AM", "yyyy-MM-dd HH:mm a") == "2012-11-21T00:30:00.000000000Z")
        #expect(Self.stored("01/01/2012 12:00 AM", "dd/MM/yyyy hh:mm a") == "2012-01-01T00:00:00.000000000Z")
        #expect(Self.stored("01/01/2012 12:30 PM", "dd/MM/yyyy hh:mm a") == "2012-01-01T12:30:00.000000000Z")
        #expect(Self.stored("01/01/2012 1:00 pm", "dd/MM/yyyy hh:mm a") == "2012-01-01T13:00:00.000000000Z")
        #expect(Self.stored("01/01/2012 1:00 P", "dd/MM/yyyy hh:mm a") == "2012-01-01T13:00:00.000000000Z")
        #expect(Self.stored("2012-11-04 11:30 PM", "yyyy-MM-dd KK:mm a") == "2012-11-04T23:30:00.000000000Z")
        #expect(Self.stored("2012-11-04 24:30", "yyyy-MM-dd kk:mm") == "2012-11-04T00:30:00.000000000Z")
        #expect(Self.stored("2012-11-21 02:03", "yyyy-MM-dd H:m") == "2012-11-21T02:03:00.000000000Z")
        #expect(Self.stored("10:30", "HH:mm") == "2000-01-01T10:30:00.000000000Z")
    }

    @Test func literalsMustBeAsWritten() {
        #expect(Self.stored("01-02-2012", "dd/MM/yyyy") == nil)
        #expect(Self.stored(" 01/02/2012", "dd/MM/yyyy") == nil)
        #expect(Self.stored("01/02/2012 ", "dd/MM/yyyy") == nil)
        #expect(Self.stored("2012-11-21  02:33", "yyyy-MM-dd HH:mm") == nil)
        // Refused by the first pattern, the text is read by the next one, as it is written.
        #expect(
            Self.coerced("01-02-2012", "dd/MM/yyyy", dateFormats: ["MM-dd-yyyy"]) == "2012-01-02T00:00:00.000000000Z")
        #expect(
            Self.coerced("01/02/2012", "dd/MM/yyyy", dateFormats: ["MM-dd-yyyy"]) == "2012-02-01T00:00:00.000000000Z")
        #expect(Self.coerced("01-02-2012", nil, dateFormats: ["dd/MM/yyyy"]) == nil)
        // Single-letter fields take one digit or more.
        #expect(Self.stored("1/2/2012", "d/M/yyyy") == "2012-02-01T00:00:00.000000000Z")
        #expect(Self.stored("01/02/2012", "d/M/yyyy") == "2012-02-01T00:00:00.000000000Z")
        #expect(Self.stored("2012-11-21 o'clock 02", "yyyy-MM-dd 'o''clock' HH") == "2012-11-21T02:00:00.000000000Z")
        #expect(Self.stored("21.11.2012T02:33", "dd.MM.yyyy'T'HH:mm") == "2012-11-21T02:33:00.000000000Z")
    }

    @Test func fieldsThatSayTheSameMustAgree() {
        // The formatter takes the day of the year over the month and day.
        #expect(Self.stored("2012-11-21 001", "yyyy-MM-dd DDD") == nil)
        #expect(Self.stored("2012-11-21 326", "yyyy-MM-dd DDD") == "2012-11-21T00:00:00.000000000Z")
        #expect(Self.stored("2012 326", "yyyy DDD") == "2012-11-21T00:00:00.000000000Z")
        // Out of range is refused (the formatter is not lenient), never rolled over.
        #expect(Self.stored("32/01/2012", "dd/MM/yyyy") == nil)
        #expect(Self.stored("01/13/2012", "dd/MM/yyyy") == nil)
        #expect(Self.stored("29/02/2013", "dd/MM/yyyy") == nil)
        #expect(Self.stored("01/01/2012 23:60", "dd/MM/yyyy HH:mm") == nil)
    }

    @Test func populationRefusesACutDateWithATypeMismatch() throws {
        let schema = try Schema(
            json: """
                {"version": 1, "dateFormats": ["dd/MM/yyyy", "MM-dd-yyyy"], "entities": {"T": {"primaryKey": "id", "attributes": {
                  "id": {"type": "integer"},
                  "dt": {"type": "date", "dateFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ"},
                  "d3": {"type": "date", "dateFormat": "dd/MM/yyyy HH:mm:ss.SSS"},
                  "day": {"type": "date"}}}}}
                """)
        let test = try RecordingStore(schema: schema)
        let result = try test.store.populate(
            JSONReader().read(
                """
                [{"id": 1, "dt": "2012-11-21T02:33:42.9999999991+0000", "d3": "21/11/2012 02:33:42.12300000001", "day": "01/01/12"},
                 {"id": 2, "dt": "2012-11-21T02:33:42.999999+0000", "d3": "21/11/2012 02:33:42.1239", "day": "01-02-2012"}]
                """), entity: "T")
        let refused = try #require(try test.store.fetchOne("T", primaryKey: 1))
        #expect(refused.jsonValue("dt") == .null)
        #expect(refused.jsonValue("d3") == .null)
        #expect(refused.jsonValue("day") == .null)
        let mismatches = result.debugger.errors.filter { $0.code == .typeMismatch }
        #expect(mismatches.compactMap(\.property).sorted() == ["d3", "day", "dt"])
        #expect(mismatches.allSatisfy { $0.entity == "T" })
        #expect(mismatches.first { $0.property == "dt" }?.value == .string("2012-11-21T02:33:42.9999999991+0000"))
        let exact = try #require(try test.store.fetchOne("T", primaryKey: 2))
        #expect(exact.jsonValue("dt") == .string("2012-11-21T02:33:42.999999000Z"))
        #expect(exact.jsonValue("d3") == .string("2012-11-21T02:33:42.123900000Z"))
        #expect(exact.jsonValue("day") == .string("2012-01-02T00:00:00.000000000Z"))
    }
}
