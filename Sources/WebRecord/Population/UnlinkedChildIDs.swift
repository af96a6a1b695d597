/// The `_id`s that batches of a streamed population kept for new records identified by their
/// owner that the batch unlinked before storing them, so that a later batch which gives the
/// owner such a record again stores it with that `_id`, as one batch numbers it.
///
/// One batch gives a new record its `_id` in the order the response first names it, stored or
/// not: a record identified by its owner (a `Chip` keyed by its `animal`) that a later occurrence
/// of the owner unlinks (`"chip": null`) takes an `_id` and leaves it unused
/// (``Marshaler/dropIncompleteRecords(_:superseded:sharing:stubs:)``), as a stream does whose earlier
/// batch stored it and whose later one unlinks it. When a still later batch gives the owner the
/// record again, the whole response stores it under the `_id` of its first occurrence: so does
/// the stream, from here.
struct UnlinkedChildIDs {
    /// A record identified by its owner: its table, and its owner's row and relationship to it.
    struct Key: Hashable {
        let table: String
        let ownerTable: String
        let ownerRowID: Int64
        let relationship: String
    }

    private var kept: [Key: Int64] = [:]

    /// The key of `proto`'s record, when its owner has a row.
    private static func key(of proto: ProtoRecord, table: String) -> Key? {
        guard let owner = proto.owner, let ownerRow = owner.proto.row else { return nil }
        return Key(
            table: table, ownerTable: ownerRow.table.name, ownerRowID: ownerRow.rowID,
            relationship: owner.relationship.name)
    }

    /// Gives each new record of `protos` identified by its owner the `_id` an earlier batch kept
    /// for it. Call before the new rows are numbered.
    mutating func give(to protos: [ProtoRecord]) {
        guard !kept.isEmpty else { return }
        for proto in protos where proto.reservedRowID == nil && proto.representation.keyRelationship != nil {
            guard let row = proto.row, row.isNew, let key = Self.key(of: proto, table: row.table.name),
                let rowID = kept.removeValue(forKey: key)
            else { continue }
            proto.reservedRowID = rowID
        }
    }

    /// Keeps the `_id`s the batch's unlinked new records identified by their owner took. Call
    /// once the new rows are numbered.
    mutating func keep(_ protos: [ProtoRecord]) {
        for proto in protos where proto.row == nil && proto.representation.keyRelationship != nil {
            guard let table = proto.unstoredTable, let rowID = proto.reservedRowID,
                let key = Self.key(of: proto, table: table)
            else { continue }
            kept[key] = rowID
        }
    }
}
