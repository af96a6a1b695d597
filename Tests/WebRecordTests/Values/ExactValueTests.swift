import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A schema of one entity with a value of each type these tests read: dates, JSON and URLs.
let exactValueSchemaJSON = """
    {
      "version": 1,
      "dateFormats": ["yyyy-MM-dd HH:mm:ss.SSSSSS", "dd.MM.yyyy HH:mm:ss.SSSSSSSSS"],
      "entities": {
        "Event": {
          "primaryKey": "id",
          "attributes": {
            "id": { "type": "string" },
            "at": { "type": "date" },
            "extra": { "type": "json" },
            "link": { "type": "url" }
          }
        }
      }
    }
    """

/// Dates to the nanosecond, JSON compared as JSON, and URLs as RFC 3986 writes them (DESIGN §3.10).
@Suite struct ExactValueTests {
    let coercion = ValueCoercion(dateFormats: ["yyyy-MM-dd HH:mm:ss.SSSSSS", "dd.MM.yyyy HH:mm:ss.SSSSSSSSS"])

    func stored(_ value: JSONValue, _ type: AttributeType = .date) -> DatabaseValue? {
        coercion.storedValue(value, type: type, dateFormat: nil)
    }

    // MARK: - Dates

    @Test(arguments: [
        ("2024-01-01T12:00:00.123456Z", "2024-01-01T12:00:00.123456000Z"),
        ("2024-01-01T12:00:00.123456789Z", "2024-01-01T12:00:00.123456789Z"),
        ("2024-01-01T12:00:00.1234567890000Z", "2024-01-01T12:00:00.123456789Z"),
        ("2024-01-01T12:00:00.000000001Z", "2024-01-01T12:00:00.000000001Z"),
        ("2024-01-01T14:00:00.999999999+02:00", "2024-01-01T12:00:00.999999999Z"),
        ("2024-01-01 12:00:00.5", "2024-01-01T12:00:00.500000000Z"),
        ("1969-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.999999999Z"),
        ("2012-11-21T02:33:42Z", "2012-11-21T02:33:42.000000000Z"),
        ("2012-11-21T02:33:42.000Z", "2012-11-21T02:33:42.000000000Z"),
        ("2012-11-21", "2012-11-21T00:00:00.000000000Z"),
        // The schema's patterns, with more fraction digits than the formatter keeps.
        ("2024-01-01 12:00:00.123456", "2024-01-01T12:00:00.123456000Z"),
        ("01.01.2024 12:00:00.123456789", "2024-01-01T12:00:00.123456789Z"),
    ])
    func aDateKeepsTheInstantItsTextGives(text: String, expected: String) throws {
        #expect(stored(.string(text)) == .text(expected))
        #expect(Timestamp(expected)?.description == expected)
    }

    @Test func theFastPathAndTheGeneralReaderAgree() throws {
        for text in [
            "2024-01-01T12:00:00Z", "2024-01-01T12:00:00.1Z", "2024-01-01T12:00:00.12Z", "2024-01-01T12:00:00.123Z",
            "2024-01-01T12:00:00.1234Z", "2024-01-01T12:00:00.123456Z", "2024-01-01T12:00:00.12345678Z",
            "2024-01-01T12:00:00.123456789Z",
        ] {
            let fast = try #require(ValueCoercion.storedISO8601(text), "\(text)")
            let general = try DateCoding.timestamp(fromISO8601: text).get()
            #expect(fast == general.description, "\(text)")
        }
        #expect(ValueCoercion.storedISO8601("2024-01-01T12:00:00.1234567891Z") == nil)
    }

    @Test func unixSecondsAgreeWithTheSameInstantAsText() throws {
        let cases: [(JSONValue, String)] = [
            (.number("1704110400.123456789"), "2024-01-01T12:00:00.123456789Z"),
            (try json("1704110400.123456"), "2024-01-01T12:00:00.123456Z"),
            (try json("1704110400.5"), "2024-01-01T12:00:00.5Z"),
            (.integer(1_704_110_400), "2024-01-01T12:00:00Z"),
            (try json("1.7041104001234567e9"), "2024-01-01T12:00:00.1234567Z"),
            (try json("-0.000000001"), "1969-12-31T23:59:59.999999999Z"),
            (try json("-1.5"), "1969-12-31T23:59:58.5Z"),
        ]
        for (seconds, text) in cases {
            let fromNumber = try #require(stored(seconds), "\(seconds)")
            #expect(fromNumber == stored(.string(text)), "\(seconds) and \(text)")
        }
        // Finer than a nanosecond is refused, not rounded.
        #expect(stored(.number("1704110400.1234567891")) == nil)
        #expect(stored(try json("1e-10")) == nil)
    }

    @Test func storedDatesSortInTimeOrder() throws {
        let texts = [
            "0000-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
            "1970-01-01T00:00:00.000000001Z", "2024-01-01T12:00:00.123Z", "2024-01-01T12:00:00.123000001Z",
            "2024-01-01T12:00:00.1230001Z", "2024-01-01T12:00:00.124Z", "9999-12-31T23:59:59.999999999Z",
        ]
        let stamps = try texts.map { try #require(Timestamp($0), "\($0)") }
        #expect(stamps == stamps.sorted())
        let stored = texts.compactMap { self.stored(.string($0)) }.map(\.description)
        #expect(stored.count == texts.count)
        #expect(stored == stored.sorted())
    }

    @Test func aDateReadsAsTheNearestDateAndExactlyAsATimestamp() throws {
        let stamp = try #require(Timestamp(storedValue: .text("2024-01-01T12:00:00.123456789Z"), type: .date))
        #expect(stamp.seconds == 1_704_110_400)
        #expect(stamp.nanoseconds == 123_456_789)
        let date = try #require(Date(storedValue: .text("2024-01-01T12:00:00.123456789Z"), type: .date))
        #expect(abs(date.timeIntervalSince1970 - 1_704_110_400.123456789) < 0.000001)
        // A Date gives back its microseconds, and binds as the stored text.
        #expect(Timestamp(date)?.description == "2024-01-01T12:00:00.123457000Z")
        #expect(date.databaseValue == .text("2024-01-01T12:00:00.123457000Z"))
        #expect(stamp.databaseValue == .text("2024-01-01T12:00:00.123456789Z"))
        #expect(Timestamp(seconds: 0, nanoseconds: 1_000_000_000) == nil)
        #expect(Timestamp(seconds: 253_402_300_800) == nil)
        #expect(Timestamp(seconds: -1, nanoseconds: 5)?.description == "1969-12-31T23:59:59.000000005Z")
    }

    /// Why a date is refused, in the message's own words (issue: "expected a date, got string"
    /// said nothing of the reason).
    @Test(arguments: [
        ("2016-12-31T23:59:60Z", "second 60 is a leap second, which Unix time has no instant for"),
        ("2024-01-01T12:00:00.1234567891Z", "its fraction has a digit past the ninth that is not zero"),
        ("2024-13-01T00:00:00Z", "month 13 does not exist"),
        ("2024-04-31", "April 2024 has 30 days, not 31"),
        ("2023-02-29T00:00:00Z", "February 2023 has 28 days, not 29"),
        ("2024-01-00", "day 00 does not exist"),
        ("2024-01-01T24:00:00Z", "hour 24 does not exist"),
        ("2024-01-01T12:60:00Z", "minute 60 does not exist"),
        ("2024-01-01T12:00:61Z", "second 61 does not exist"),
        ("2024-01-01T12:00:00+25:00", "the zone '+25:00' is not a UTC offset"),
        ("2024-01-01T12:00:00 PST", "unexpected text"),
        ("2024-01-01T12:00:00.Z", "the decimal point has no digits after it"),
        ("2024-01-01T12", "the time is not 'HH:MM'"),
        ("9999-12-31T23:00:00-05:00", "outside the years 0000–9999"),
    ])
    func aRefusedDateSaysWhy(text: String, reason: String) throws {
        #expect(stored(.string(text)) == nil)
        let expected = coercion.refusal(.string(text), type: .date, dateFormat: nil)
        #expect(expected.hasPrefix("a date ("), "\(expected)")
        #expect(expected.contains(reason), "\(expected)")
    }

    @Test func textThatIsNoDateAtAllSaysSoPlainly() {
        let plain = ValueCoercion(dateFormats: [])
        #expect(plain.refusal(.string("yesterday"), type: .date, dateFormat: nil) == "a date")
        #expect(
            coercion.refusal(.string("yesterday"), type: .date, dateFormat: nil)
                == "a date (neither ISO-8601 nor the date formats 'yyyy-MM-dd HH:mm:ss.SSSSSS', 'dd.MM.yyyy HH:mm:ss.SSSSSSSSS')"
        )
        #expect(plain.refusal(.string("x"), type: .integer, dateFormat: nil) == "an integer")
    }

    // MARK: - JSON

    @Test func jsonIsStoredInItsCanonicalForm() throws {
        let one = stored(try json(#"{"b": {"y": 1, "x": [2, {"d": 1, "c": 0}]}, "a": "é"}"#), .json)
        let other = stored(try json(#"{"a": "é", "b": {"x": [2, {"c": 0, "d": 1}], "y": 1}}"#), .json)
        #expect(one == .text(#"{"a":"é","b":{"x":[2,{"c":0,"d":1}],"y":1}}"#))
        #expect(one == other)
        // Numbers keep the digits they were written with: 1 and 1.0 are two values.
        #expect(stored(try json(#"{"n": 1}"#), .json) != stored(try json(#"{"n": 1.0}"#), .json))
        #expect(stored(try json(#"{"n": 1.10}"#), .json) == .text(#"{"n":1.10}"#))
        // Array order is the value's.
        #expect(stored(try json("[1, 2]"), .json) != stored(try json("[2, 1]"), .json))
    }

    // MARK: - URLs

    static let acceptedURLs = [
        "https://example.com/a?b=c#d", "http://user:pw@host.example:8080/p/a%20b", "mailto:a@example.com",
        "urn:isbn:0451450523", "/avatars/1.png", "//cdn.example.com/x", "../up", "?page=2", "#top", "photo.jpg",
        "http://[::1]:80/", "http://[v1.fe]/", "https://example.com/café", "https://example.com/?q=a/b?c",
        "file:///etc/hosts", "https://example.com/a;b=c,d!$&'()*+", "http:",
    ]

    @Test(arguments: acceptedURLs)
    func aURIReferenceIsAccepted(text: String) {
        #expect(stored(.string(text), .url) == .text(text))
    }

    static let refusedURLs = [
        "not a url", "https://example.com/a b", "https://exa mple.com", " https://example.com", "https://example.com ",
        "https://example.com/%zz", "https://example.com/%2", "https://example.com/a#b#c", "1http://x", ":x",
        "ht tp://x", "http://host:80a/", "http://[::1/", "http://[zz]/", "http://a/[b]", "http://a/<b>",
        "http://a/\"b\"", "http://a/b\\c", "http://a/{b}", "http://a/b|c", "http://a/^b", "http://a/`b`",
        "http://a@b@c/", "http://a/\u{A0}b", "https://example.com/\u{3000}",
    ]

    @Test(arguments: refusedURLs)
    func textThatIsNoURIReferenceIsRefused(text: String) {
        #expect(stored(.string(text), .url) == nil, "\(text.debugDescription)")
    }

    // MARK: - Through a SQLite store

    func makeStore() throws -> RecordingStore {
        try RecordingStore(schema: Schema(json: exactValueSchemaJSON, fileName: "Exact.json"))
    }

    @Test func aStoreKeepsNanosecondsInExportsAndChangeDetection() throws {
        let test = try makeStore()
        let first = try test.store.populate(
            json(#"[{"id": "e1", "at": "2024-01-01T12:00:00.123456789Z"}, {"id": "e2", "at": 1704110400.123456}]"#),
            entity: "Event")
        #expect(first.changes.inserted == 2)
        #expect(first.debugger.errors.isEmpty, "\(first.debugger.errors)")
        let exported = try test.store.exportJSON(entity: "Event")
        #expect(
            exported.arrayValue?.compactMap { $0["at"]?.stringValue } == [
                "2024-01-01T12:00:00.123456789Z", "2024-01-01T12:00:00.123456000Z",
            ])
        let record = try #require(try test.store.fetchOne("Event", primaryKey: "e1"))
        let stamp: Timestamp? = record["at"]
        #expect(stamp?.nanoseconds == 123_456_789)
        // The same instants, written otherwise, are no change; one nanosecond more is.
        let same = try test.store.populate(
            json(
                #"[{"id": "e1", "at": "2024-01-01T14:00:00.123456789+02:00"}, {"id": "e2", "at": "2024-01-01T12:00:00.123456Z"}]"#
            ),
            entity: "Event")
        #expect(same.changes.updated == 0, "\(same.changes)")
        let later = try test.store.populate(
            json(#"[{"id": "e1", "at": "2024-01-01T12:00:00.12345679Z"}]"#), entity: "Event")
        #expect(later.changes.updated == 1, "\(later.changes)")
        // Sorted by the column, in time order.
        let order = try test.store.fetch("Event", orderBy: [.ascending("at")]).map { $0.primaryKeyValue }
        #expect(order == ["e2", "e1"])
        // A Timestamp argument compares with the stored text exactly, a Date to the microsecond.
        let after = try test.store.fetch(
            "Event", where: "\"at\" > ?", arguments: [Timestamp(seconds: 1_704_110_400, nanoseconds: 123_456_500)])
        #expect(after.map { $0.primaryKeyValue } == ["e1"])
        let afterDate = try test.store.fetch(
            "Event", where: "\"at\" > ?", arguments: [Date(timeIntervalSince1970: 1_704_110_400.5)])
        #expect(afterDate.isEmpty)
        let beforeDate = try test.store.fetch(
            "Event", where: "\"at\" > ?", arguments: [Date(timeIntervalSince1970: 1_704_110_400)])
        #expect(beforeDate.count == 2)
    }

    @Test func aRefusedDateIsNamedWithItsReasonAndTheStoreKeepsItsValue() throws {
        let test = try makeStore()
        _ = try test.store.populate(json(#"[{"id": "e1", "at": "2024-01-01T00:00:00Z"}]"#), entity: "Event")
        let refused = try test.store.populate(
            json(#"[{"id": "e1", "at": "2016-12-31T23:59:60Z"}]"#), entity: "Event")
        let error = try #require(refused.debugger.errors.first { $0.code == .typeMismatch })
        #expect(
            error.message
                == #"expected a date (second 60 is a leap second, which Unix time has no instant for), got string "2016-12-31T23:59:60Z""#,
            "\(error.message)")
        #expect(error.property == "at")
        let record = try #require(try test.store.fetchOne("Event", primaryKey: "e1"))
        #expect(record.jsonValue("at") == "2024-01-01T00:00:00.000000000Z")
    }

    @Test func jsonEqualAsJSONIsNoChangeEvenAsStoredBefore() throws {
        let test = try makeStore()
        _ = try test.store.populate(json(#"[{"id": "e1", "extra": {"b": 1, "a": [true, null]}}]"#), entity: "Event")
        let reordered = try test.store.populate(
            json(#"[{"id": "e1", "extra": {"a": [true, null], "b": 1}}]"#), entity: "Event")
        #expect(reordered.changes.updated == 0, "\(reordered.changes)")
        #expect(reordered.changes.unchanged == 1)
        // A value stored in another key order, as a store kept it before: equal, so not rewritten.
        try test.store.write { connection in
            try connection.execute(#"UPDATE "Event" SET "extra" = '{"b":1,"a":[true,null]}'"#)
        }
        test.resetStatements()
        let again = try test.store.populate(
            json(#"[{"id": "e1", "extra": {"a": [true, null], "b": 1}}]"#), entity: "Event")
        #expect(again.changes.updated == 0, "\(again.changes)")
        #expect(test.statements(matching: "UPDATE").isEmpty, "\(test.statements)")
        // 1.0 is not 1: a change.
        let number = try test.store.populate(
            json(#"[{"id": "e1", "extra": {"a": [true, null], "b": 1.0}}]"#), entity: "Event")
        #expect(number.changes.updated == 1, "\(number.changes)")
    }

    @Test func aURLThatIsNoURIReferenceIsATypeMismatchInAPopulation() throws {
        let test = try makeStore()
        let result = try test.store.populate(
            json(#"[{"id": "e1", "link": "see our website"}, {"id": "e2", "link": "https://example.com/a%20b"}]"#),
            entity: "Event")
        let error = try #require(result.debugger.errors.first { $0.code == .typeMismatch })
        #expect(error.message == #"expected a url, got string "see our website""#, "\(error.message)")
        #expect(try test.store.fetchOne("Event", primaryKey: "e1")?.jsonValue("link") == .null)
        #expect(try test.store.fetchOne("Event", primaryKey: "e2")?.jsonValue("link") == "https://example.com/a%20b")
    }

    /// A store written when dates were kept to the millisecond has them rewritten in the
    /// nine-digit form by its next write, so that old and new dates sort together.
    @Test func millisecondDatesOfAnOlderStoreAreMigrated() throws {
        let test = try makeStore()
        let path = try #require(test.path)
        _ = try test.store.populate(
            json(
                #"[{"id": "old1", "at": "2024-01-01T12:00:00.123Z"}, {"id": "old2", "at": "2024-01-01T12:00:00.124Z"}]"#
            ),
            entity: "Event")
        // As an older WebRecord left it: milliseconds, and a layout record naming no date form.
        try test.store.write { connection in
            try connection.execute(#"UPDATE "Event" SET "at" = substr("at", 1, 23) || 'Z'"#)
            let layout = try #require(try connection.scalar(#"SELECT "value" FROM "_webrecord_metadata""#))
            guard case .text(let text) = layout, var object = try JSONReader().read(text).objectValue else {
                Issue.record("no layout record")
                return
            }
            object["dates"] = nil
            try connection.execute(
                #"UPDATE "_webrecord_metadata" SET "value" = ? WHERE "key" = 'layout'"#,
                [.text(JSONValue.object(object).serialized(sortedKeys: true))])
        }
        let reopened = try RecordStore(path: path, schema: Schema(json: exactValueSchemaJSON, fileName: "Exact.json"))
        let result = try reopened.populate(
            json(
                #"[{"id": "new", "at": "2024-01-01T12:00:00.123000001Z"}, {"id": "old1", "at": "2024-01-01T12:00:00.123Z"}]"#
            ),
            entity: "Event")
        #expect(result.changes.inserted == 1)
        #expect(result.changes.updated == 0, "the migrated value equals the response's: \(result.changes)")
        let stored = try reopened.read { connection in
            try connection.rows(#"SELECT "id", "at" FROM "Event" ORDER BY "at""#).map { $0.map(\.description) }
        }
        #expect(
            stored == [
                ["'old1'", "'2024-01-01T12:00:00.123000000Z'"], ["'new'", "'2024-01-01T12:00:00.123000001Z'"],
                ["'old2'", "'2024-01-01T12:00:00.124000000Z'"],
            ])
        let layout = try reopened.read { connection in
            try connection.scalar(#"SELECT "value" FROM "_webrecord_metadata" WHERE "key" = 'layout'"#)
        }
        #expect(layout?.description.contains(#""dates":"nanoseconds""#) == true, "\(String(describing: layout))")
    }
}
