import Foundation
import WebRecord
internal import WebRecordLibPQ

/// What one statement gave: its rows, read into ``DatabaseValue``s as a SQLite store holds
/// them, and the number of rows it changed.
///
/// Columns come back in text format and are read by their type:
///
/// | PostgreSQL type | Read as |
/// |---|---|
/// | `smallint`, `integer`, `bigint`, `oid` | `.integer` |
/// | `boolean` | `.integer(1)` or `.integer(0)`, as SQLite keeps a boolean |
/// | `real`, `double precision` | `.real` |
/// | `bytea` | `.blob` |
/// | `timestamptz`, `timestamp` | `.text` in WebRecord's stored form, `2012-11-21T02:33:42.000000000Z` |
/// | `numeric`, `text` and every other type | `.text`, as the server writes it |
/// | NULL | `.null` |
package struct PostgreSQLResult: Sendable {
    /// The names of the result's columns.
    package let columnNames: [String]
    /// The rows, each with one value per column.
    package let rows: [[DatabaseValue]]
    /// The number of rows an `INSERT`, `UPDATE` or `DELETE` changed (0 for other statements).
    package let changedRowCount: Int

    init(_ result: OpaquePointer) {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var names: [String] = []
        var kinds: [ColumnKind] = []
        for column in 0..<Int32(columnCount) {
            names.append(PQfname(result, column).map { String(cString: $0) } ?? "")
            kinds.append(ColumnKind(oid: PQftype(result, column)))
        }
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            var values: [DatabaseValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<Int32(columnCount) {
                guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let bytes = UnsafeRawBufferPointer(start: text, count: length)
                values.append(kinds[Int(column)].value(bytes))
            }
            rows.append(values)
        }
        self.columnNames = names
        self.rows = rows
        self.changedRowCount = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }
}

/// How a column of a result is read, by its type's OID.
private enum ColumnKind {
    case integer, boolean, real, bytea, timestamp, text

    init(oid: UInt32) {
        switch oid {
        case 20, 21, 23, 26: self = .integer
        case 16: self = .boolean
        case 700, 701: self = .real
        case 17: self = .bytea
        case 1114, 1184: self = .timestamp
        default: self = .text
        }
    }

    /// The value of a column's text-format bytes.
    func value(_ bytes: UnsafeRawBufferPointer) -> DatabaseValue {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .integer:
            return Int64(text).map(DatabaseValue.integer) ?? .text(text)
        case .boolean:
            return .integer(text == "t" ? 1 : 0)
        case .real:
            return Double(text).map(DatabaseValue.real) ?? .text(text)
        case .bytea:
            return PostgreSQLText.bytes(fromHex: bytes).map(DatabaseValue.blob) ?? .text(text)
        case .timestamp:
            return .text(PostgreSQLText.storedDate(fromISO: text) ?? text)
        case .text:
            return .text(text)
        }
    }
}

/// The conversions between PostgreSQL's text output and WebRecord's stored forms.
enum PostgreSQLText {
    /// The bytes of `bytea` output in hex format (`\x0102ff`), or nil for another form.
    static func bytes(fromHex text: UnsafeRawBufferPointer) -> Data? {
        guard text.count >= 2, text.count % 2 == 0, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else {
            return nil
        }
        var data = Data(capacity: text.count / 2 - 1)
        var index = 2
        while index < text.count {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A `timestamptz` as PostgreSQL writes it with `DateStyle` ISO in UTC
    /// (`2012-11-21 02:33:42.5+00`) in WebRecord's stored form (`2012-11-21T02:33:42.500000000Z`),
    /// to the microsecond `timestamptz` holds; nil for anything else (`infinity`, a
    /// year before 1 BC or after 9999, another zone). The year 1 BC, which PostgreSQL writes
    /// `0001-... BC`, is the year `0000` of WebRecord's dates (ISO 8601's, whose year 0 is 1 BC;
    /// see ``PostgreSQLDates``).
    static func storedDate(fromISO text: String) -> String? {
        if text.hasSuffix(" BC") {
            guard text.hasPrefix("0001-"), let date = storedDate(fromISO: String(text.dropLast(3))) else {
                return nil
            }
            return "0000" + date.dropFirst(4)
        }
        let bytes = Array(text.utf8)
        // YYYY-MM-DD HH:MM:SS, then an optional fraction, then +00 (or none, for a timestamp).
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        for index in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] where !isDigit(bytes[index]) {
            return nil
        }
        var index = 19
        var fraction: [UInt8] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                fraction.append(bytes[index])
                index += 1
            }
        }
        let zone = bytes[index...]
        guard zone.isEmpty || zone.elementsEqual("+00".utf8) else { return nil }
        let nanoseconds = (fraction.prefix(9) + Array(repeating: UInt8(ascii: "0"), count: 9)).prefix(9)
        var stored = Array(bytes[0..<19])
        stored[10] = UInt8(ascii: "T")
        return String(decoding: stored + [UInt8(ascii: ".")] + nanoseconds + [UInt8(ascii: "Z")], as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
