import Foundation
import WebRecord

/// A list of values bound as one array parameter (`unnest($1::bigint[])`, `= ANY($1::text[])`):
/// how a PostgreSQL store sends a whole key set or a whole table's rows in one statement.
///
/// The array goes in PostgreSQL's text form for arrays, `{"a","b",NULL}`: every element
/// double-quoted with its backslashes and double quotes escaped, NULL bare, a blob as `bytea`'s
/// hex text (`\x0102`). The statement casts it to the column's type, and the server reads each
/// element as that type reads text, as a lone parameter is read. It is a bound value: nothing
/// of it becomes SQL.
enum PostgreSQLArray {
    /// The array literal of `values`.
    ///
    /// - Throws: `invalidArgument` for a text holding a NUL character, which PostgreSQL cannot
    ///   store.
    static func literal(_ values: some Sequence<DatabaseValue>) throws(WebRecordError) -> DatabaseValue {
        // Built as UTF-8 bytes: a text's bytes go in whole when it needs no escape, as most do.
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            switch value {
            case .null:
                bytes += "NULL".utf8
            case .integer(let integer):
                bytes += String(integer).utf8
            case .real(let real):
                bytes.append(quote)
                bytes += PostgreSQLParameters.text(ofStored: real).utf8
                bytes.append(quote)
            case .text(let string):
                let utf8 = string.utf8
                bytes.append(quote)
                if utf8.contains(where: { $0 == quote || $0 == backslash || $0 == 0 }) {
                    for byte in utf8 {
                        if byte == 0 {
                            throw WebRecordError(
                                .invalidArgument, "a text holding a NUL character cannot be stored in PostgreSQL")
                        }
                        if byte == quote || byte == backslash { bytes.append(backslash) }
                        bytes.append(byte)
                    }
                } else {
                    bytes += utf8
                }
                bytes.append(quote)
            case .blob(let data):
                bytes += "\"\\\\x".utf8
                for byte in data {
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0xF)])
                }
                bytes.append(quote)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let hexDigits = Array("0123456789abcdef".utf8)
}
