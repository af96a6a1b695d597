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
        var text = "{"
        var first = true
        for value in values {
            if !first { text += "," }
            first = false
            switch value {
            case .null:
                text += "NULL"
            case .integer(let integer):
                text += String(integer)
            case .real(let real):
                text += "\"" + PostgreSQLParameters.text(of: real) + "\""
            case .text(let string):
                if string.utf8.contains(0) {
                    throw WebRecordError(
                        .invalidArgument, "a text holding a NUL character cannot be stored in PostgreSQL")
                }
                text += "\""
                for character in string.unicodeScalars {
                    if character == "\\" || character == "\"" { text += "\\" }
                    text.unicodeScalars.append(character)
                }
                text += "\""
            case .blob(let data):
                text += "\"\\\\x"
                for byte in data {
                    text += Self.hexDigits[Int(byte >> 4)]
                    text += Self.hexDigits[Int(byte & 0xF)]
                }
                text += "\""
            }
        }
        return .text(text + "}")
    }

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }
}
