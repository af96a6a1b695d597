import Foundation
import WebRecord

/// The rows of a `COPY ... FROM STDIN` in PostgreSQL's text format: how a PostgreSQL store
/// sends a table's new rows (``PostgreSQLConnection/copyIn(_:rowCount:row:)``).
///
/// One line per row, its values separated by tabs: NULL as `\N`, an integer as its digits, a
/// double in the shortest form that reads back exactly (`-0.0` as `0`, see
/// ``PostgreSQLParameters/text(ofStored:)``), a text as its UTF-8 bytes with a
/// backslash, newline, carriage return and tab escaped (`\\`, `\n`, `\r`, `\t`), a blob as
/// `bytea`'s hex text with its backslash escaped (`\\x0102`). The server reads each value as
/// its column's type reads text, as it reads a bound parameter or an array element, so a
/// value is stored the same whichever way it was sent. The data is never SQL: a value cannot
/// end the copy or reach another column, as every backslash, tab and line end in it is escaped.
enum PostgreSQLCopyText {
    /// Appends one row of `values` and its line end to `data`.
    ///
    /// - Throws: `invalidArgument` for a text holding a NUL character, which PostgreSQL cannot
    ///   store.
    static func appendRow(_ values: some Sequence<DatabaseValue>, to data: inout [UInt8]) throws(WebRecordError) {
        var first = true
        for value in values {
            if !first { data.append(tab) }
            first = false
            try append(value, to: &data)
        }
        data.append(newline)
    }

    /// Appends `value` to `data`, escaped.
    static func append(_ value: DatabaseValue, to data: inout [UInt8]) throws(WebRecordError) {
        switch value {
        case .null:
            data.append(backslash)
            data.append(UInt8(ascii: "N"))
        case .integer(let integer):
            data += String(integer).utf8
        case .real(let real):
            data += PostgreSQLParameters.text(ofStored: real).utf8
        case .text(let string):
            let utf8 = string.utf8
            // Most texts need no escape: their bytes go in whole.
            guard utf8.contains(where: { $0 < 0x20 || $0 == backslash }) else {
                data += utf8
                return
            }
            for byte in utf8 {
                switch byte {
                case 0:
                    throw WebRecordError(
                        .invalidArgument, "a text holding a NUL character cannot be stored in PostgreSQL")
                case backslash: data += [backslash, backslash]
                case newline: data += [backslash, UInt8(ascii: "n")]
                case carriageReturn: data += [backslash, UInt8(ascii: "r")]
                case tab: data += [backslash, UInt8(ascii: "t")]
                default: data.append(byte)
                }
            }
        case .blob(let bytes):
            data += [backslash, backslash, UInt8(ascii: "x")]
            for byte in bytes {
                data.append(hexDigits[Int(byte >> 4)])
                data.append(hexDigits[Int(byte & 0xF)])
            }
        }
    }

    private static let tab = UInt8(ascii: "\t")
    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let backslash = UInt8(ascii: "\\")
    private static let hexDigits = Array("0123456789abcdef".utf8)
}
