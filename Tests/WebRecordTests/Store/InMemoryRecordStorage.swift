import Foundation

@testable import WebRecord

/// A third store, kept in Swift arrays: each table of the layout, record tables and join tables
/// alike, is an array of rows, each row its values by column name (a missing column is null).
///
/// Its transaction implements only the primitives of ``RecordStorageTransaction``; everything
/// else a population does comes from `StoreOperations.swift`. It keeps what the interface
/// promises of a store where that is cheap: a deleted row's references in foreign-key columns
/// are set to null and its join rows go (the layout's `ON DELETE SET NULL` and
/// `ON DELETE CASCADE`); every reference points at a row when the transaction commits or a
/// batch ends; and a transaction that throws leaves the tables as they were.
///
/// It evaluates no query language: it reads records by predicate only with none (every row),
/// and throws `invalidArgument` for any other.
final class InMemoryRecordStorage: RecordStorage {
    typealias Row = [String: DatabaseValue]

    let schema: Schema
    let layout: StorageLayout
    var logger: Logger { Logger.global }
    /// Every table's rows, by table name.
    let tables: Locked<[String: [Row]]>
    /// Each write, as `update Comment set _position_post where _id`: which operations a population used.
    let writes = Locked<[String]>([])
    /// Held by a write transaction from its start to its end: one writer at a time.
    private let writer = NSLock()
    /// Every reference the layout declares: a foreign-key column, or a join table's `owner` or
    /// `target` (`isJoin`), and the table whose `_id`s it holds.
    let references: [(table: String, column: String, target: String, isJoin: Bool)]

    init(schema: Schema) {
        self.schema = schema
        layout = StorageLayout(schema: schema)
        references =
            layout.tables.flatMap { table in
                table.columns.compactMap { column in
                    guard case .foreignKey(let target) = column.role else { return nil }
                    return (table.name, column.name, target, false)
                }
            }
            + layout.joinTables.flatMap {
                [($0.name, "owner", $0.ownerTable, true), ($0.name, "target", $0.targetTable, true)]
            }
        tables = Locked(Dictionary(uniqueKeysWithValues: layout.tables.map { ($0.name, []) }))
        tables.withLock { tables in for join in layout.joinTables { tables[join.name] = [] } }
    }

    /// The names of `table`'s columns, record table or join table; `storeError` for no such table.
    func columns(of table: String) throws(WebRecordError) -> [String] {
        if let record = layout.table(named: table) { return record.columns.map(\.name) }
        if let join = layout.joinTables.first(where: { $0.name == table }) { return join.columnNames }
        throw WebRecordError(.storeError, "the in-memory store has no table '\(table)'")
    }

    func inTransaction<T>(_ body: (InMemoryRecordTransaction) throws -> T) throws -> T {
        try write(body)
    }

    /// The body run synchronously: this store never waits on anything but its writer lock.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (InMemoryRecordTransaction) throws -> T) async throws
        -> T
    {
        try write(body)
    }

    /// Runs `body` as the one writer; on a throw, the tables are put back as they were.
    private func write<T>(_ body: (InMemoryRecordTransaction) throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        let before = tables.withLock { $0 }
        do {
            let transaction = InMemoryRecordTransaction(storage: self)
            let result = try body(transaction)
            try transaction.checkReferences()
            return result
        } catch {
            tables.withLock { $0 = before }
            throw error
        }
    }

    func transformer(named name: String) -> AttributeTransformers.Transform? {
        AttributeTransformers.transformer(named: name)
    }

    func recordClass(for entityName: String) -> Record.Type { Record.self }

    func entityName(registeredFor recordClass: Record.Type) -> String? { nil }

    func record(of recordClass: Record.Type, entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record {
        recordClass.init(row: Record.StoredRow(entity: entity, rowID: rowID, values: values, store: self))
    }

    func discardIfNeverWritten() {}

    func discardIfNeverWritten() async {}

    /// The records related to `record` through `name`: for a to-many, by position (null first)
    /// and then `_id`, as the SQLite store orders them.
    func relatedRecords(of record: Record, relationship name: String, limit: Int?) throws(WebRecordError) -> [Record] {
        guard let relationship = record.entity.relationship(named: name),
            let storage = layout.storage(of: name, in: record.entity.name),
            let destination = schema.entity(named: relationship.destination)
        else { throw WebRecordError.unknownProperty(name, entity: record.entity.name) }
        let tables = self.tables.withLock { $0 }
        let me = DatabaseValue.integer(record.rowID)
        let found: [(position: Int64, id: Int64)]
        switch storage {
        case .foreignKeyHere(let column, _):
            found = [(0, Self.number(record.storedValues[column]))]
        case .foreignKeyThere(_, let column, let position):
            found = (tables[destination.rootName] ?? []).filter { $0[column] == me }.map {
                (Self.number($0[position ?? ""]), Self.number($0["_id"]))
            }
        case .joinTable(let join, let selfColumn, let otherColumn, let position):
            found = (tables[join] ?? []).filter { $0[selfColumn] == me }.map {
                (Self.number($0[position ?? ""]), Self.number($0[otherColumn]))
            }
        }
        let byID = Dictionary((tables[destination.rootName] ?? []).map { (Self.number($0["_id"]), $0) }) { $1 }
        let rows = found.sorted { ($0.position, $0.id) < ($1.position, $1.id) }.compactMap { byID[$0.id] }
        return try rows.prefix(limit.map { max(0, $0) } ?? rows.count).map { row throws(WebRecordError) in
            try self.record(from: row)
        }
    }

    /// The record a stored row is.
    func record(from row: Row) throws(WebRecordError) -> Record {
        guard case .text(let name)? = row["_entity"], let entity = schema.entity(named: name) else {
            throw WebRecordError(.incompatibleStore, "a row of the in-memory store names no entity of its schema")
        }
        let values = row.filter { $0.key != "_id" && $0.key != "_entity" }
        return record(of: recordClass(for: name), entity: entity, rowID: Self.number(row["_id"]), values: values)
    }

    /// The integer `value` holds; the smallest for any other value, so that null sorts first.
    static func number(_ value: DatabaseValue?) -> Int64 {
        if case .integer(let number)? = value { return number }
        return .min
    }
}

/// A write transaction of an ``InMemoryRecordStorage``: the primitives, over the store's arrays.
final class InMemoryRecordTransaction: RecordStorageTransaction {
    typealias Row = InMemoryRecordStorage.Row

    let storage: InMemoryRecordStorage
    var schema: Schema { storage.schema }
    var layout: StorageLayout { storage.layout }
    /// The `_id` the next row reserved in each table gets: the largest plus one, read once.
    private var nextRowIDs: [String: Int64] = [:]

    init(storage: InMemoryRecordStorage) {
        self.storage = storage
    }

    // MARK: - Helpers

    /// The rows of `table`, after checking that it has `columns`.
    private func rows(of table: String, checking columns: [String] = []) throws(WebRecordError) -> [Row] {
        let known = try storage.columns(of: table)
        if let unknown = columns.first(where: { !known.contains($0) }) {
            throw WebRecordError(.storeError, "the in-memory table '\(table)' has no column '\(unknown)'")
        }
        return storage.tables.withLock { $0[table] ?? [] }
    }

    private func log(_ write: String) { storage.writes.withLock { $0.append(write) } }

    /// Runs `body` on the rows of `table`.
    private func change<T>(_ table: String, _ body: (inout [Row]) -> T) -> T {
        storage.tables.withLock { body(&$0[table, default: []]) }
    }

    /// `keys` as a set of tuples; a tuple holding a null matches no row, as `=` in SQL.
    private func keySet(_ keys: KeyTuples, columns: [String]) throws(WebRecordError) -> Set<[DatabaseValue]> {
        guard keys.width == columns.count else {
            throw WebRecordError(.invalidArgument, "\(keys.width)-value keys for the columns \(columns)")
        }
        var set = Set<[DatabaseValue]>()
        for index in 0..<keys.count where !keys[index].contains(.null) { set.insert(Array(keys[index])) }
        return set
    }

    private static func key(of row: Row, _ columns: [String]) -> [DatabaseValue] { columns.map { row[$0] ?? .null } }

    private static func rowID(_ row: Row) -> Int64 { InMemoryRecordStorage.number(row["_id"]) }

    /// `row` as a population reads it: its `_id`, `_entity` and value columns in layout order.
    private func tableRow(_ row: Row, in table: String) throws(WebRecordError) -> TableRow {
        guard let layoutTable = layout.table(named: table), case .text(let entityName)? = row["_entity"] else {
            throw WebRecordError(.storeError, "'\(table)' is no record table of the in-memory store")
        }
        return TableRow(
            rowID: Self.rowID(row), entityName: entityName, values: layoutTable.valueColumns.map { row[$0] ?? .null })
    }

    /// Throws unless every foreign key and join row refers to a row that exists.
    func checkReferences() throws(WebRecordError) {
        let tables = storage.tables.withLock { $0 }
        let ids = tables.mapValues { Set($0.map(Self.rowID)) }
        for (table, column, target, _) in storage.references {
            for row in tables[table] ?? [] {
                guard let value = row[column], !value.isNull else { continue }
                guard case .integer(let id) = value, ids[target]?.contains(id) == true else {
                    throw WebRecordError(
                        .storeError, "FOREIGN KEY constraint failed: \(table).\(column) refers to \(target) \(value)")
                }
            }
        }
    }

    // MARK: - Reading rows

    func forEachRow(
        in table: String, where columns: [String], areIn keys: KeyTuples,
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let wanted = try keySet(keys, columns: columns)
        for row in try rows(of: table, checking: columns) where wanted.contains(Self.key(of: row, columns)) {
            try body(try tableRow(row, in: table))
        }
    }

    func forEachRow(
        in table: String, referencedBy column: String, of ownerTable: String, ownerIDs: [Int64],
        _ body: (_ ownerID: Int64, _ row: TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        let owners = Set(ownerIDs)
        var byID: [Int64: Row] = [:]
        for row in try rows(of: table) { byID[Self.rowID(row)] = row }
        for owner in try rows(of: ownerTable, checking: [column]) where owners.contains(Self.rowID(owner)) {
            guard case .integer(let id)? = owner[column], let row = byID[id] else { continue }
            try body(Self.rowID(owner), try tableRow(row, in: table))
        }
    }

    func values(of columns: [String], in table: String, where keyColumns: [String], areIn keys: KeyTuples)
        throws(WebRecordError) -> [[DatabaseValue]]
    {
        let wanted = try keySet(keys, columns: keyColumns)
        return try rows(of: table, checking: columns + keyColumns).filter {
            wanted.contains(Self.key(of: $0, keyColumns))
        }
        .map { Self.key(of: $0, columns) }
    }

    func forEachRow(
        in table: String, of entityNames: [String], where predicate: String?, arguments: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        if let predicate {
            throw WebRecordError(
                .invalidArgument,
                "the in-memory store reads records by no predicate but nil (all rows); it was given '\(predicate)'")
        }
        let names = Set(entityNames)
        for row in try rows(of: table).sorted(by: { Self.rowID($0) < Self.rowID($1) }) {
            guard case .text(let name)? = row["_entity"], names.contains(name) else { continue }
            try body(try tableRow(row, in: table))
        }
    }

    // MARK: - New rows

    func reserveRowIDs(in table: String, count: Int) throws(WebRecordError) -> [Int64] {
        guard count > 0 else { return [] }
        let first = try nextRowID(in: table)
        nextRowIDs[table] = first + Int64(count)
        return Array(first..<(first + Int64(count)))
    }

    func beginRowIDs(in tables: [String]) throws(WebRecordError) {
        for table in tables where nextRowIDs[table] == nil { nextRowIDs[table] = try nextRowID(in: table) }
    }

    private func nextRowID(in table: String) throws(WebRecordError) -> Int64 {
        if let next = nextRowIDs[table] { return next }
        return (try rows(of: table).map(Self.rowID).max() ?? 0) + 1
    }

    // MARK: - Writing rows

    func insert(into table: String, columns: [String], values: [DatabaseValue]) throws(WebRecordError) {
        guard !columns.isEmpty else { return }
        _ = try rows(of: table, checking: columns)
        guard values.count % columns.count == 0 else {
            throw WebRecordError(.invalidArgument, "\(values.count) values for rows of \(columns.count) columns")
        }
        let inserted = stride(from: 0, to: values.count, by: columns.count).map {
            Row(uniqueKeysWithValues: zip(columns, values[$0..<($0 + columns.count)]))
        }
        change(table) { $0 += inserted }
        log("insert \(table) \(columns.joined(separator: " "))")
    }

    @discardableResult
    func update(_ table: String, set columns: [String], where keyColumns: [String], values: [DatabaseValue])
        throws(WebRecordError) -> Int
    {
        let width = columns.count + keyColumns.count
        guard !columns.isEmpty, !keyColumns.isEmpty else { return 0 }
        _ = try rows(of: table, checking: columns + keyColumns)
        log("update \(table) set \(columns.joined(separator: " ")) where \(keyColumns.joined(separator: " "))")
        return change(table) { rows in
            var changed = 0
            for start in stride(from: 0, to: values.count - width + 1, by: width) {
                let key = Array(values[(start + columns.count)..<(start + width)])
                guard !key.contains(.null) else { continue }
                for index in rows.indices where Self.key(of: rows[index], keyColumns) == key {
                    for (offset, column) in columns.enumerated() { rows[index][column] = values[start + offset] }
                    changed += 1
                }
            }
            return changed
        }
    }

    func delete(from table: String, where keyColumns: [String], areIn keys: KeyTuples) throws(WebRecordError)
        -> [Bool]
    {
        _ = try keySet(keys, columns: keyColumns)
        _ = try rows(of: table, checking: keyColumns)
        log("delete \(table) where \(keyColumns.joined(separator: " "))")
        var deleted: [Bool] = []
        for index in 0..<keys.count {
            let key = Array(keys[index])
            var gone: [Row] = []
            if !key.contains(.null) {  // A null matches no row, as `=` in SQL.
                gone = change(table) { rows in
                    let gone = rows.filter { Self.key(of: $0, keyColumns) == key }
                    rows.removeAll { Self.key(of: $0, keyColumns) == key }
                    return gone
                }
            }
            deleted.append(!gone.isEmpty)
            if layout.table(named: table) != nil {
                for row in gone { removeReferences(to: .integer(Self.rowID(row)), in: table) }
            }
        }
        return deleted
    }

    /// What deleting the row `id` of `target` does to the rows that refer to it: foreign keys to
    /// it are set to null, its join rows go.
    private func removeReferences(to id: DatabaseValue, in target: String) {
        storage.tables.withLock { tables in
            for reference in storage.references where reference.target == target {
                let (table, column) = (reference.table, reference.column)
                if reference.isJoin {
                    tables[table]?.removeAll { $0[column] == id }
                } else {
                    for index in tables[table, default: []].indices where tables[table]?[index][column] == id {
                        tables[table]?[index][column] = .null
                    }
                }
            }
        }
    }

    // MARK: - Records and batches

    func record(of entity: Entity, rowID: Int64, values: [String: DatabaseValue]) -> Record {
        storage.record(of: storage.recordClass(for: entity.name), entity: entity, rowID: rowID, values: values)
    }

    func endBatch() throws(WebRecordError) {
        try checkReferences()
    }
}
