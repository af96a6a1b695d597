import Foundation
import WebRecord

/// The ``DatabaseValue``s of one statement, as `PQexecParams` takes them.
///
/// Text format, with the type left to the server (OID 0), for every value but a blob: an
/// integer as its decimal digits, a double in the shortest form that reads back exactly, a
/// text as its UTF-8 bytes. The server types each parameter from where the statement uses it
/// (the column it is written to or compared with), so one `.text` binds a `text`, `numeric`
/// or `timestamptz` column alike, and `.integer(1)` a `bigint` or a `boolean` one; a statement
/// whose context gives no type casts (`$1::bigint`). Text format is the one every PostgreSQL
/// type documents and keeps stable across versions, where the binary forms of `numeric` and
/// `timestamptz` are the server's internals.
///
/// A blob goes in binary format as `bytea` (OID 17): its bytes as they are, with no escaping
/// and no size doubled by hex.
///
/// A NUL is the one character a PostgreSQL text cannot hold (libpq would end the value
/// there); a text holding one is refused, never truncated.
struct PostgreSQLParameters {
    private var bytes: [UInt8] = []
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []
    private var types: [UInt32] = []

    /// The parameters of `sql` (named in errors only).
    ///
    /// - Throws: `invalidArgument` for a text holding a NUL character.
    init(_ values: [DatabaseValue], sql: String) throws(WebRecordError) {
        offsets.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                append(nil, format: 0, type: 0)
            case .integer(let integer):
                append(Array(String(integer).utf8), format: 0, type: 0)
            case .real(let real):
                append(Array(Self.text(of: real).utf8), format: 0, type: 0)
            case .text(let text):
                let utf8 = Array(text.utf8)
                if utf8.contains(0) {
                    var error = WebRecordError(
                        .invalidArgument,
                        "parameter $\(index + 1) is a text holding a NUL character, which PostgreSQL cannot store")
                    error.sql = sql
                    throw error
                }
                append(utf8, format: 0, type: 0)
            case .blob(let data):
                append(Array(data), format: 1, type: Self.byteaOID)
            }
        }
    }

    private mutating func append(_ value: [UInt8]?, format: Int32, type: UInt32) {
        formats.append(format)
        types.append(type)
        guard let value else {
            offsets.append(nil)
            lengths.append(0)
            return
        }
        offsets.append(bytes.count)
        lengths.append(Int32(clamping: value.count))
        bytes += value
        // Text values are C strings to libpq; binary ones are read by length.
        bytes.append(0)
    }

    /// Calls `body` with the arrays `PQexecParams` takes: types, values, lengths and formats.
    func withCParameters<T>(
        _ body: (
            UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard let offset, let base else { return nil }
                return base + offset
            }
            return values.withUnsafeBufferPointer { values in
                types.withUnsafeBufferPointer { types in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                        }
                    }
                }
            }
        }
    }

    /// A double as PostgreSQL reads it back exactly: Swift's shortest round-trip form, and
    /// PostgreSQL's words for the infinities and NaN.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    /// A double as a store writes it into a row: ``text(of:)``, except that `-0.0` is `0`, as
    /// SQLite stores it in a `REAL` column, so that the two stores hold, and export, the same.
    static func text(ofStored value: Double) -> String {
        value == 0 ? "0" : text(of: value)
    }

    /// The OID of PostgreSQL's `bytea` type.
    static let byteaOID: UInt32 = 17
}
