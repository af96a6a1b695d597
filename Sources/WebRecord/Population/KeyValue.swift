/// A primary-key value normalized for matching (DESIGN §3.3): one value, or every part of a
/// composite key. A single key needs no array, so matching thousands of records allocates nothing.
enum KeyValue: Hashable {
    case single(DatabaseValue)
    case composite([DatabaseValue])

    /// The key's parts, in key order.
    var parts: [DatabaseValue] {
        switch self {
        case .single(let value): [value]
        case .composite(let values): values
        }
    }

    /// The first part: the whole key when it is single.
    var firstPart: DatabaseValue {
        switch self {
        case .single(let value): value
        case .composite(let values): values.first ?? .null
        }
    }

    /// The key of a row whose values are `values`, with the key in columns `columns`.
    init<Values: RandomAccessCollection<DatabaseValue>>(row values: Values, columns: [Int]) where Values.Index == Int {
        if columns.count == 1 {
            self = .single(values[columns[0]])
        } else {
            self = .composite(columns.map { values[$0] })
        }
    }
}

/// A record identified by key, across the batches of one population: its key scope
/// (``Representation/keyScopeIndex``, the same in every batch's ``RepresentationSet``) and its
/// normalized key.
struct ScopedKey: Hashable {
    let scope: Int
    let key: KeyValue

    /// The key `key` of `proto`, in its scope.
    init(_ proto: ProtoRecord, _ key: KeyValue) {
        self.init(scope: proto.representation.keyScopeIndex, key: key)
    }

    init(scope: Int, key: KeyValue) {
        self.scope = scope
        self.key = key
    }
}
