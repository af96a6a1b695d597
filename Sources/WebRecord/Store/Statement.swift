import Foundation
internal import WebRecordSQLite

/// A prepared SQL statement. Finalized when released.
final class Statement {
    let handle: OpaquePointer
    /// The SQL text.
    let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws(WebRecordError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw WebRecordError.store(code: code, message: connection.errorMessage(), sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of result columns.
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of a result column.
    func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// Binds arguments to the `?` placeholders, in order.
    func bind(_ arguments: some Collection<DatabaseValue>) throws(WebRecordError) {
        sqlite3_reset(handle)
        // Placeholders left unbound must read as NULL; when every one is bound below, clearing
        // them first is wasted work (it showed in profiles of large populations).
        if arguments.count < Int(sqlite3_bind_parameter_count(handle)) {
            sqlite3_clear_bindings(handle)
        }
        for (offset, value) in arguments.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws(WebRecordError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(let text):
            var text = text
            code = text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text64(
                        handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), sqlite3_uint64(chars.count),
                        webrecord_sqlite3_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count),
                    webrecord_sqlite3_transient())
            }
        }
        guard code == SQLITE_OK else {
            throw WebRecordError.store(code: code, message: connection.errorMessage(), sql: sql)
        }
    }

    /// Runs the statement to completion.
    func execute(_ arguments: some Collection<DatabaseValue>) throws(WebRecordError) {
        try bind(arguments)
        connection.sqlObserver?(sql)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            if code != SQLITE_ROW { throw stepError(code) }
        }
        sqlite3_reset(handle)
    }

    /// Runs the statement, calling `body` on each row.
    func forEachRow(
        _ arguments: some Collection<DatabaseValue>, _ body: (Statement) throws(WebRecordError) -> Void
    )
        throws(WebRecordError)
    {
        try bind(arguments)
        connection.sqlObserver?(sql)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw stepError(code) }
            try body(self)
        }
    }

    private func stepError(_ code: Int32) -> WebRecordError {
        let extended = sqlite3_extended_errcode(connection.handle)
        let error = WebRecordError.store(code: extended, message: connection.errorMessage(), sql: sql)
        sqlite3_reset(handle)
        return error
    }

    // MARK: - Reading the current row

    /// The value of a column of the current row.
    func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The integer value of a column of the current row.
    func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// All columns of the current row.
    func rowValues() -> [DatabaseValue] {
        (0..<columnCount).map { value(at: $0) }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
