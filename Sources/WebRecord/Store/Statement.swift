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
            _ = connection.takeWriteTargets()  // none is this statement's to keep
            throw WebRecordError.store(code: code, message: connection.errorMessage(), sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
        writeTargets = connection.takeWriteTargets()
    }

    /// The tables the statement writes itself (noted by the connection's authorizer as it was
    /// prepared): when one is a join table, which SQLite's update hook does not report, a run
    /// that changes rows counts it as wholly changed.
    private let writeTargets: [String]

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
    ///
    /// The values are read in place, through a pointer, so that binding a row copies no
    /// string and counts no reference: SQLite copies what it keeps (`SQLITE_TRANSIENT`).
    func bind(_ arguments: some Collection<DatabaseValue>) throws(WebRecordError) {
        sqlite3_reset(handle)
        // A placeholder left unbound would read as NULL and match nothing, silently: too few
        // arguments are an error, as too many are (SQLite's own range error, below).
        let placeholders = Int(sqlite3_bind_parameter_count(handle))
        if arguments.count < placeholders {
            throw WebRecordError(
                .invalidArgument,
                "the statement has \(placeholders) placeholder\(placeholders == 1 ? "" : "s") and \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given: \(sql)"
            )
        }
        let code =
            arguments.withContiguousStorageIfAvailable(bindAll)
            ?? ContiguousArray(arguments).withUnsafeBufferPointer(bindAll)
        guard code == SQLITE_OK else {
            throw WebRecordError.store(code: code, message: connection.errorMessage(), sql: sql)
        }
    }

    /// Binds `values` to the placeholders from the first on; the first code that is not
    /// `SQLITE_OK`, or `SQLITE_OK`.
    private func bindAll(_ values: UnsafeBufferPointer<DatabaseValue>) -> Int32 {
        guard let base = values.baseAddress else { return SQLITE_OK }
        for offset in 0..<values.count {
            let code = bind(base + offset, at: Int32(offset + 1))
            guard code == SQLITE_OK else { return code }
        }
        return SQLITE_OK
    }

    /// Binds the value `value` points to at the placeholder `index`, read in place.
    private func bind(_ value: UnsafePointer<DatabaseValue>, at index: Int32) -> Int32 {
        switch value.pointee {
        case .null: return sqlite3_bind_null(handle, index)
        case .integer(let integer): return sqlite3_bind_int64(handle, index, integer)
        case .real(let double): return sqlite3_bind_double(handle, index, double)
        case .text(let text):
            if let code = text.utf8.withContiguousStorageIfAvailable({ bindText($0, at: index) }) { return code }
            var copy = text
            return copy.withUTF8 { bindText($0, at: index) }
        case .blob(let data):
            return data.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count),
                    webrecord_sqlite3_transient())
            }
        }
    }

    /// Binds UTF-8 text at the placeholder `index`; SQLite copies it.
    private func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) -> Int32 {
        bytes.withMemoryRebound(to: CChar.self) { chars in
            sqlite3_bind_text64(
                handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), sqlite3_uint64(chars.count),
                webrecord_sqlite3_transient(), UInt8(SQLITE_UTF8))
        }
    }

    /// Runs the statement to completion.
    func execute(_ arguments: some Collection<DatabaseValue>) throws(WebRecordError) {
        try bind(arguments)
        connection.sqlObserver?(sql)
        let hooked = writeTargets.isEmpty ? nil : connection.hookedRows
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            if code != SQLITE_ROW { throw stepError(code) }
        }
        if hooked != nil {
            connection.noteUnreportedWrites(
                of: writeTargets, hookedBefore: hooked, changedRows: sqlite3_changes64(connection.handle))
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
        let hooked = writeTargets.isEmpty ? nil : connection.hookedRows
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw stepError(code) }
            try body(self)
        }
        if hooked != nil {
            connection.noteUnreportedWrites(
                of: writeTargets, hookedBefore: hooked, changedRows: sqlite3_changes64(connection.handle))
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
