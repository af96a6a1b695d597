/// What a population does with a store's write transaction, written once over the store's
/// primitives (``RecordStorageTransaction``): matching records by key and by owner, writing a
/// batch of rows, the join-row diff, clearing, pairing and moving references, and reading and
/// deleting records.
///
/// Every decision is made here, in Swift, from rows the store has read: which references to
/// clear, which join rows to add, renumber or delete, which rows of a pair differ. The store
/// only reads, inserts, updates and deletes the rows it is told to, each over a whole batch,
/// so the SQLite and PostgreSQL stores cannot drift apart in what a population means, and a
/// third store implements the primitives alone.
///
/// A row read without a lock and then written is written only if it still holds what was
/// read: the update's key includes the column the read matched (`"_id" = ? AND "column" = ?`).
/// A store many writers share re-checks that condition on the row as another writer's commit
/// left it (PostgreSQL does, at `READ COMMITTED`), so a write made from a stale read changes
/// nothing rather than overwriting the other writer's value.
extension RecordStorageTransaction {
    // MARK: - Finding rows

    /// Calls `body` with each row of `table` whose `column` holds one of `keys` (distinct), in
    /// no particular order.
    func forEachRow(
        in table: String, where column: String, isIn keys: [DatabaseValue],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !keys.isEmpty else { return }
        try forEachRow(in: table, where: [column], areIn: KeyTuples(keys), body)
    }

    /// Calls `body` with each row of `table` whose `columns` hold one of `keys` (distinct
    /// tuples, each with one value per column; a missing value is null), in no particular order.
    func forEachRow(
        in table: String, where columns: [String], areIn keys: [[DatabaseValue]],
        _ body: (TableRow) throws(WebRecordError) -> Void
    ) throws(WebRecordError) {
        guard !columns.isEmpty, !keys.isEmpty else { return }
        var values: [DatabaseValue] = []
        values.reserveCapacity(keys.count * columns.count)
        for key in keys {
            for index in columns.indices { values.append(index < key.count ? key[index] : .null) }
        }
        try forEachRow(in: table, where: columns, areIn: KeyTuples(width: columns.count, values: values), body)
    }

    /// The `_id`s in the first column of `rows`.
    private func rowIDs(_ rows: [[DatabaseValue]]) -> [Int64] {
        rows.compactMap { row in
            if case .integer(let id)? = row.first { return id }
            return nil
        }
    }

    // MARK: - Writing rows

    /// Inserts the rows of `inserted` (whose `_id`s are new), table by table in the order
    /// given, then writes the values of the rows of `updated` over the stored rows with the
    /// same `_id`: one ``insert(into:columns:values:)`` and one
    /// ``update(_:set:where:values:)`` per table.
    func writeRows(inserted: [TableRows], updated: [TableRows]) throws(WebRecordError) {
        for group in inserted where !group.rows.isEmpty {
            try insertRows(into: group.table, count: group.rows.count) { index, width, values in
                let row = group.rows[index]
                values.append(.integer(row.rowID))
                values.append(.text(row.entityName))
                Self.append(row.values, count: width, to: &values)
            }
        }
        for group in updated where !group.rows.isEmpty {
            try updateRows(in: group.table, count: group.rows.count) { index, width, values in
                let row = group.rows[index]
                values.append(.text(row.entityName))
                Self.append(row.values, count: width, to: &values)
                values.append(.integer(row.rowID))
            }
        }
    }

    /// Inserts `count` new rows into the record table `table` with one
    /// ``insert(into:columns:values:)``: `row` appends the `_id`, the `_entity` and then the
    /// values of the table's `width` value columns of each row in turn, by its position.
    func insertRows(
        into table: String, count: Int, _ row: (_ index: Int, _ width: Int, _ values: inout [DatabaseValue]) -> Void
    ) throws(WebRecordError) {
        let (valueColumns, values) = try flatRows(of: table, count: count, row)
        try insert(into: table, columns: ["_id", "_entity"] + valueColumns, values: values)
    }

    /// Writes the values of `count` rows of the record table `table` over the stored rows with
    /// the same `_id`, with one ``update(_:set:where:values:)``: `row` appends the `_entity`,
    /// the values of the table's `width` value columns and then the `_id` of each row in turn.
    func updateRows(
        in table: String, count: Int, _ row: (_ index: Int, _ width: Int, _ values: inout [DatabaseValue]) -> Void
    ) throws(WebRecordError) {
        let (valueColumns, values) = try flatRows(of: table, count: count, row)
        try update(table, set: ["_entity"] + valueColumns, where: ["_id"], values: values)
    }

    /// The value columns of `table`, and the flat values `row` appends for `count` rows.
    private func flatRows(
        of table: String, count: Int, _ row: (_ index: Int, _ width: Int, _ values: inout [DatabaseValue]) -> Void
    ) throws(WebRecordError) -> (columns: [String], values: [DatabaseValue]) {
        let valueColumns = try self.valueColumns(of: table)
        var values: [DatabaseValue] = []
        values.reserveCapacity(count * (valueColumns.count + 2))
        for index in 0..<count { row(index, valueColumns.count, &values) }
        return (valueColumns, values)
    }

    /// The value columns of the layout's record table `table`.
    ///
    /// - Throws: `storeError` when the layout has no such table.
    private func valueColumns(of table: String) throws(WebRecordError) -> [String] {
        guard let layoutTable = layout.table(named: table) else {
            throw WebRecordError(.storeError, "the store has no table '\(table)'")
        }
        return layoutTable.valueColumns
    }

    /// Appends `row`'s values to `values`, exactly `count` of them: null for any missing.
    private static func append(_ row: [DatabaseValue], count: Int, to values: inout [DatabaseValue]) {
        if row.count == count {
            values.append(contentsOf: row)
        } else {
            for index in 0..<count { values.append(index < row.count ? row[index] : .null) }
        }
    }

    // MARK: - Links

    /// Sets `column` to null in every row of `table` that holds `value` there, except the row
    /// `keep` (a one-to-one link moving to another row): the rows are read, then those to
    /// clear are written.
    ///
    /// - Returns: the `_id`s of the rows cleared; none when no row changed.
    func clearReferences(
        in table: String, column: String, to value: DatabaseValue, except keep: Int64?
    ) throws(WebRecordError) -> [Int64] {
        let holding = rowIDs(try values(of: ["_id"], in: table, where: [column], areIn: KeyTuples([value])))
        var cleared: [DatabaseValue] = []
        var ids: [Int64] = []
        for id in holding.sorted() where id != keep {
            cleared += [.null, .integer(id), value]
            ids.append(id)
        }
        guard !cleared.isEmpty else { return [] }
        return try update(table, set: [column], where: ["_id", column], values: cleared) > 0 ? ids : []
    }

    /// The rows of `table` that refer to `owner` in `column` and are not among `keeping`, in
    /// `_id` order; when `clearing`, that reference and `positionColumn` are set to null in each
    /// (a to-many kept on its members, replaced).
    ///
    /// - Returns: those rows' `_id`s, each with its position before (null without one).
    func dropMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String?, keeping: Set<Int64>,
        clearing: Bool
    ) throws(WebRecordError) -> [(id: Int64, position: DatabaseValue)] {
        var dropped: [(id: Int64, position: DatabaseValue)] = []
        for row in try values(
            of: ["_id"] + (positionColumn.map { [$0] } ?? []), in: table, where: [column],
            areIn: KeyTuples(rowIDs: [owner]))
        {
            guard case .integer(let id)? = row.first, !keeping.contains(id) else { continue }
            dropped.append((id, row.count > 1 ? row[1] : .null))
        }
        dropped.sort { $0.id < $1.id }
        if clearing, !dropped.isEmpty {
            let columns = [column] + (positionColumn.map { [$0] } ?? [])
            var cleared: [DatabaseValue] = []
            for (id, _) in dropped {
                for _ in columns { cleared.append(.null) }
                cleared += [.integer(id), .integer(owner)]
            }
            try update(table, set: columns, where: ["_id", column], values: cleared)
        }
        return dropped
    }

    /// Moves the rows of `table` that refer to `owner` in `column` and are not among `members`
    /// after them, in the order they had (an ordered to-many merged by union, whose listed
    /// members the population has just numbered 0, 1, ...): each takes the position
    /// `members.count` plus its rank among them by position, then `_id`. A row without a
    /// position keeps none.
    ///
    /// - Returns: the rows that moved, each with its position before and after; none when no
    ///   row moved.
    @discardableResult
    func moveMembers(
        of owner: Int64, in table: String, column: String, positionColumn: String, after members: [Int64]
    ) throws(WebRecordError) -> [(id: Int64, from: Int64, to: Int64)] {
        guard !members.isEmpty else { return [] }
        let listed = Set(members)
        var unlisted: [(id: Int64, position: Int64)] = []
        for row in try values(
            of: ["_id", positionColumn], in: table, where: [column], areIn: KeyTuples(rowIDs: [owner]))
        {
            guard row.count == 2, case .integer(let id) = row[0], !listed.contains(id),
                case .integer(let position) = row[1]
            else { continue }
            unlisted.append((id, position))
        }
        unlisted.sort { ($0.position, $0.id) < ($1.position, $1.id) }
        var moved: [DatabaseValue] = []
        var moves: [(id: Int64, from: Int64, to: Int64)] = []
        for (rank, row) in unlisted.enumerated() {
            let position = Int64(members.count + rank)
            guard position != row.position else { continue }
            moved += [.integer(position), .integer(row.id), .integer(owner), .integer(row.position)]
            moves.append((row.id, row.position, position))
        }
        guard !moved.isEmpty else { return [] }
        let changed = try update(table, set: [positionColumn], where: ["_id", column, positionColumn], values: moved)
        return changed > 0 ? moves : []
    }

    /// The `_id` in the first value of `row`, or 0.
    private static func rowID(_ row: [DatabaseValue]) -> Int64 {
        if case .integer(let id)? = row.first { return id }
        return 0
    }

    /// Makes the join rows of `owner` in `table` list `members`, at positions 0, 1, ... in
    /// `positionColumn` when there is one: the owner's join rows are read once, then one update
    /// sets the positions that changed, one insert adds the rows missing, each row of a member
    /// no longer listed is deleted (and reported) in turn, and one update renumbers the members
    /// kept after the listed ones.
    ///
    /// - Parameters:
    ///   - ownerColumn: the column holding `owner`'s `_id`.
    ///   - memberColumn: the column holding each member's `_id`.
    ///   - ownerIsNew: whether `owner` was inserted by this transaction (it has no join rows yet).
    ///   - replace: true to delete the join rows of members not listed; false to keep them,
    ///     numbered after the listed ones when the rows are ordered (a row without a position
    ///     keeps none).
    ///   - removed: called with each member whose join row was deleted, right after, before
    ///     the next is deleted.
    ///   - otherPositionColumn: for an owner whose side has no positions, the other side's
    ///     position column, if its lists are ordered: the positions of the rows deleted there
    ///     are reported (``JoinRowsChange/removedOtherPositions``), read with the rows, in the
    ///     same query.
    /// - Returns: the owner's join rows before and after, each member's position (null without
    ///   one) by its `_id`, when any changed (both empty for a new owner); nil when none did.
    func setJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        ownerIsNew: Bool, members: [Int64], replace: Bool, otherPositionColumn: String? = nil,
        removed: (Int64) throws(WebRecordError) -> Void
    ) throws(WebRecordError) -> JoinRowsChange? {
        var current: [Int64: DatabaseValue] = [:]
        var otherPositions: [Int64: DatabaseValue] = [:]
        let readsOtherPositions = positionColumn == nil && replace && otherPositionColumn != nil
        if !ownerIsNew {
            let columns =
                [memberColumn] + (positionColumn.map { [$0] } ?? [])
                + (readsOtherPositions ? otherPositionColumn.map { [$0] } ?? [] : [])
            for row in try values(of: columns, in: table, where: [ownerColumn], areIn: KeyTuples(rowIDs: [owner])) {
                guard case .integer(let id)? = row.first else { continue }
                current[id] = positionColumn != nil && row.count > 1 ? row[1] : .null
                if readsOtherPositions, row.count > 1 { otherPositions[id] = row[1] }
            }
        }
        var removedOtherPositions: [Int64: DatabaseValue] = [:]
        var moved: [DatabaseValue] = []
        var added: [DatabaseValue] = []
        for (index, member) in members.enumerated() {
            let position = DatabaseValue.integer(Int64(index))
            if let existing = current[member] {
                if positionColumn != nil, existing != position {
                    moved += [position, .integer(owner), .integer(member)]
                }
            } else {
                added += [.integer(owner), .integer(member)] + (positionColumn == nil ? [] : [position])
            }
        }
        if let positionColumn, !moved.isEmpty {
            try update(table, set: [positionColumn], where: [ownerColumn, memberColumn], values: moved)
        }
        if !added.isEmpty {
            try insert(
                into: table, columns: [ownerColumn, memberColumn] + (positionColumn.map { [$0] } ?? []), values: added)
        }
        var changed = !moved.isEmpty || !added.isEmpty
        let listed = Set(members)
        let unlisted = current.keys.filter { !listed.contains($0) }.sorted()
        // What the rows become, for an owner stored before whose rows change (a new one has
        // nothing to compare).
        var after: [Int64: DatabaseValue] = [:]
        if !ownerIsNew, changed || (replace && !unlisted.isEmpty) {
            after = current
            for (index, member) in members.enumerated() {
                after[member] = positionColumn == nil ? .null : .integer(Int64(index))
            }
        }
        if replace {
            for id in unlisted {
                _ = try delete(
                    from: table, where: [ownerColumn, memberColumn],
                    areIn: KeyTuples(width: 2, values: [.integer(owner), .integer(id)]))
                try removed(id)
                after[id] = nil
                changed = true
                if let position = otherPositions[id], !position.isNull { removedOtherPositions[id] = position }
            }
        } else if let positionColumn, changed, !unlisted.isEmpty {
            // The members not listed go after the listed ones, in the order they had. One without
            // a position (a join row the other side's list added) keeps none and reads first, as
            // a member of a list kept on its members does: placed here, it would go after the
            // listed ones or not depending on whether the other side's list was written first,
            // and a list given again would move it.
            var renumbered: [DatabaseValue] = []
            for (offset, id) in unlisted.filter({ current[$0].map { !$0.isNull } ?? false })
                .sorted(by: { Self.order(current[$0], $0, before: current[$1], $1) }).enumerated()
            {
                let position = DatabaseValue.integer(Int64(members.count + offset))
                guard current[id] != position else { continue }
                renumbered += [position, .integer(owner), .integer(id)]
                after[id] = position
            }
            if !renumbered.isEmpty {
                try update(table, set: [positionColumn], where: [ownerColumn, memberColumn], values: renumbered)
            }
        }
        return changed
            ? JoinRowsChange(before: current, after: after, removedOtherPositions: removedOtherPositions) : nil
    }

    /// Numbers the positions of the ordered lists that `owners` give in the join table `table`
    /// 0, 1, ... in the order they read (by position, then by the member's `_id`), closing the
    /// gaps that join rows deleted from the other side of the relationship left: one read of
    /// the owners' join rows, then one update of the rows whose position changes, each carrying
    /// the position read. A join row without a position keeps none (it reads first).
    ///
    /// - Returns: each owner's join rows as they end, each member's position by its `_id`.
    func renumberJoinLists(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String, owners: [Int64]
    ) throws(WebRecordError) -> [Int64: [Int64: DatabaseValue]] {
        var lists: [Int64: [Int64: DatabaseValue]] = [:]
        guard !owners.isEmpty else { return lists }
        for row in try values(
            of: [ownerColumn, memberColumn, positionColumn], in: table, where: [ownerColumn],
            areIn: KeyTuples(rowIDs: owners))
        {
            guard row.count == 3, case .integer(let owner) = row[0], case .integer(let member) = row[1] else {
                continue
            }
            lists[owner, default: [:]][member] = row[2]
        }
        var renumbered: [DatabaseValue] = []
        for owner in lists.keys.sorted() {
            guard let members = lists[owner] else { continue }
            var positioned: [(member: Int64, position: Int64)] = []
            for (member, value) in members {
                if case .integer(let position) = value { positioned.append((member, position)) }
            }
            positioned.sort { ($0.position, $0.member) < ($1.position, $1.member) }
            for (index, row) in positioned.enumerated() where row.position != Int64(index) {
                renumbered += [.integer(Int64(index)), .integer(owner), .integer(row.member), .integer(row.position)]
                lists[owner]?[row.member] = .integer(Int64(index))
            }
        }
        if !renumbered.isEmpty {
            try update(
                table, set: [positionColumn], where: [ownerColumn, memberColumn, positionColumn], values: renumbered)
        }
        return lists
    }

    /// Whether the member `id` at `position` comes before the member `other` at `otherPosition`
    /// in a list read in order: a member without a position first, then by position, then by
    /// `_id`.
    private static func order(
        _ position: DatabaseValue?, _ id: Int64, before otherPosition: DatabaseValue?, _ other: Int64
    )
        -> Bool
    {
        func rank(_ value: DatabaseValue?) -> (Int, Int64) {
            if case .integer(let number)? = value { return (1, number) }
            return (0, 0)
        }
        let (left, right) = (rank(position), rank(otherPosition))
        return left != right ? left < right : id < other
    }

    /// Makes the join rows of a relationship that is its own inverse symmetric for `owner`,
    /// once ``setJoinRows(in:ownerColumn:memberColumn:positionColumn:owner:ownerIsNew:members:replace:removed:)``
    /// has given `owner` its `members`: each member lists `owner` too (last in its list, when
    /// ordered, if it did not already), and with `replace` no other record lists `owner`.
    ///
    /// - Returns: the `_id`s of the records whose lists gained `owner`, and of those whose lists
    /// lost it.
    func mirrorJoinRows(
        in table: String, ownerColumn: String, memberColumn: String, positionColumn: String?, owner: Int64,
        members: [Int64], replace: Bool
    ) throws(WebRecordError) -> (gained: [Int64], lost: [Int64]) {
        // The records that list `owner` now.
        var listing = Set(
            rowIDs(try values(of: [ownerColumn], in: table, where: [memberColumn], areIn: KeyTuples(rowIDs: [owner]))))
        var gaining: [Int64] = []
        for member in members where member != owner && listing.insert(member).inserted {
            gaining.append(member)
        }
        if !gaining.isEmpty {
            var rows: [DatabaseValue] = []
            if let positionColumn {
                // Last in each member's list.
                var next: [Int64: Int64] = [:]
                for row in try values(
                    of: [ownerColumn, positionColumn], in: table, where: [ownerColumn],
                    areIn: KeyTuples(rowIDs: gaining))
                {
                    guard row.count == 2, case .integer(let member) = row[0] else { continue }
                    var position: Int64 = 0
                    if case .integer(let value) = row[1] {
                        let (after, overflow) = value.addingReportingOverflow(1)
                        guard !overflow else {
                            throw WebRecordError(
                                .storeError,
                                "the join row of \(member) in '\(table)' holds position \(value); no position follows it"
                            )
                        }
                        position = after
                    }
                    next[member] = max(next[member] ?? 0, position)
                }
                for member in gaining {
                    rows += [.integer(member), .integer(owner), .integer(next[member] ?? 0)]
                }
            } else {
                for member in gaining { rows += [.integer(member), .integer(owner)] }
            }
            try insert(
                into: table, columns: [ownerColumn, memberColumn] + (positionColumn.map { [$0] } ?? []), values: rows)
        }
        guard replace else { return (gaining, []) }
        let listed = Set(members)
        let others = listing.sorted().filter { $0 != owner && !listed.contains($0) }
        guard !others.isEmpty else { return (gaining, []) }
        let keys = others.flatMap { [DatabaseValue.integer($0), .integer(owner)] }
        let removed = try delete(
            from: table, where: [ownerColumn, memberColumn], areIn: KeyTuples(width: 2, values: keys))
        return (gaining, zip(others, removed).filter(\.1).map(\.0))
    }

    /// Pairs the rows `row` and `partner` of `table` through `column`, a one-to-one that is its
    /// own inverse: each holds the other's `_id`, and no other row holds either's (a previous
    /// partner of either is unlinked). A nil `partner` unlinks `row` and its partner. Only a
    /// row whose link differs is written.
    ///
    /// - Returns: whether any row changed, and the other rows unlinked, each with the `_id` it
    ///   held (`row`'s, or `partner`'s: then `row` took `partner` from it).
    func pairReferences(in table: String, column: String, row: Int64, partner: Int64?) throws(WebRecordError)
        -> (changed: Bool, unlinked: [(rowID: Int64, held: DatabaseValue)])
    {
        let pair = partner.map { $0 == row ? [row] : [row, $0] } ?? [row]
        let members = Set(pair)
        // A previous partner of either is unlinked.
        var cleared: [DatabaseValue] = []
        var unlinked: [(rowID: Int64, held: DatabaseValue)] = []
        let holders = try values(of: ["_id", column], in: table, where: [column], areIn: KeyTuples(rowIDs: pair))
        for holder in holders.sorted(by: { Self.rowID($0) < Self.rowID($1) }) {
            guard holder.count == 2, case .integer(let id) = holder[0], !members.contains(id) else { continue }
            cleared += [.null, .integer(id), holder[1]]
            unlinked.append((id, holder[1]))
        }
        var changed = false
        if !cleared.isEmpty {
            changed = try update(table, set: [column], where: ["_id", column], values: cleared) > 0
        }
        var current: [Int64: DatabaseValue] = [:]
        for found in try values(of: ["_id", column], in: table, where: ["_id"], areIn: KeyTuples(rowIDs: pair)) {
            if found.count == 2, case .integer(let id) = found[0] { current[id] = found[1] }
        }
        let links: [(Int64, DatabaseValue)] =
            partner.map { [(row, .integer($0)), ($0, .integer(row))] } ?? [(row, .null)]
        var written: [DatabaseValue] = []
        for (id, value) in links where current[id].map({ $0 != value }) == true {
            written += [value, .integer(id)]
        }
        if !written.isEmpty {
            changed = try update(table, set: [column], where: ["_id"], values: written) > 0 || changed
        }
        return (changed, unlinked)
    }

    // MARK: - Deleting

    /// The concrete entity of the row `rowID` of `table`, or nil when there is no such row.
    func entityName(ofRow rowID: Int64, in table: String) throws(WebRecordError) -> String? {
        let rows = try values(of: ["_entity"], in: table, where: ["_id"], areIn: KeyTuples(rowIDs: [rowID]))
        guard case .text(let entityName)? = rows.first?.first else { return nil }
        return entityName
    }

    /// The `_id`s of the rows the row `rowID` of `entity` is linked to through `relationship`,
    /// in `_id` order.
    func relatedRowIDs(of rowID: Int64, entity: Entity, relationship: Relationship) throws(WebRecordError) -> [Int64] {
        guard let storage = layout.storage(of: relationship.name, in: entity.name),
            let destination = schema.entity(named: relationship.destination)
        else { return [] }
        let key = KeyTuples(rowIDs: [rowID])
        switch storage {
        case .foreignKeyHere(let column, _):
            return rowIDs(try values(of: [column], in: entity.rootName, where: ["_id"], areIn: key)).sorted()
        case .foreignKeyThere(_, let column, _):
            return rowIDs(try values(of: ["_id"], in: destination.rootName, where: [column], areIn: key)).sorted()
        case .joinTable(let table, let selfColumn, let otherColumn, _):
            return rowIDs(try values(of: [otherColumn], in: table, where: [selfColumn], areIn: key)).sorted()
        }
    }

    /// Deletes the rows `rows`, in order, a run of rows of one table with one
    /// ``delete(from:where:areIn:)``. Links to them are cleared and their join rows go.
    ///
    /// - Returns: for each row, whether it was there to delete.
    func deleteRows(_ rows: [(table: String, rowID: Int64)]) throws(WebRecordError) -> [Bool] {
        var deleted: [Bool] = []
        deleted.reserveCapacity(rows.count)
        var start = 0
        while start < rows.count {
            let table = rows[start].table
            var end = start + 1
            while end < rows.count, rows[end].table == table { end += 1 }
            deleted += try delete(
                from: table, where: ["_id"], areIn: KeyTuples(rowIDs: rows[start..<end].map(\.rowID)))
            start = end
        }
        return deleted
    }

    // MARK: - Records

    /// The records of the rows of `table` whose `_id` is among `rowIDs`, in no particular order.
    func records(withIDs rowIDs: [Int64], in table: String) throws(WebRecordError) -> [Record] {
        guard !rowIDs.isEmpty else { return [] }
        let columns = try valueColumns(of: table)
        var records: [Record] = []
        records.reserveCapacity(rowIDs.count)
        // The primitive takes distinct keys: a repeated `_id` is one record.
        let distinct = Array(Set(rowIDs))
        try forEachRow(in: table, where: ["_id"], areIn: KeyTuples(rowIDs: distinct)) { row throws(WebRecordError) in
            records.append(try record(of: row, columns: columns))
        }
        return records
    }

    /// The records of the entities `entityNames`, all kept in `table`, that match `predicate`
    /// (a condition in the store's query language over the entity's columns, with `?`
    /// placeholders for `arguments`; nil for all), in `_id` order.
    func records(
        of entityNames: [String], in table: String, where predicate: String?, arguments: [DatabaseValue]
    ) throws(WebRecordError) -> [Record] {
        let columns = try valueColumns(of: table)
        var records: [Record] = []
        try forEachRow(in: table, of: entityNames, where: predicate, arguments: arguments) {
            row throws(WebRecordError) in
            records.append(try record(of: row, columns: columns))
        }
        return records
    }

    /// The record a row is, its values named by `columns` (its table's value columns).
    ///
    /// - Throws: `incompatibleStore` when the row names an entity the schema does not have.
    private func record(of row: TableRow, columns: [String]) throws(WebRecordError) -> Record {
        guard let entity = schema.entity(named: row.entityName) else {
            throw WebRecordError(.incompatibleStore, "row \(row.rowID) names an unknown entity '\(row.entityName)'")
        }
        var values: [String: DatabaseValue] = [:]
        values.reserveCapacity(columns.count)
        for (name, value) in zip(columns, row.values) { values[name] = value }
        return record(of: entity, rowID: row.rowID, values: values)
    }
}

/// An owner's join rows before and after a change: each member's position (null when the rows
/// have none) by the member's `_id`.
struct JoinRowsChange {
    let before: [Int64: DatabaseValue]
    let after: [Int64: DatabaseValue]
    /// For an owner whose side has no positions, the positions the other side's ordered lists
    /// gave the join rows deleted, by member (only those that had one).
    var removedOtherPositions: [Int64: DatabaseValue] = [:]
}
