/// A set of `_id`s, kept as bitmaps of 512 consecutive `_id`s each.
///
/// The `_id`s a population meets are dense: a table's new rows take consecutive ones, and its
/// stored rows are what earlier populations numbered the same way. A hash set spends about 12
/// bytes on each, and a lookup that misses the processor's cache on each once the set is large;
/// here a million of them take about 250 KB, and adding one touches the block it falls in. A
/// sparse set costs at most a block (64 bytes of bits, and the block's entry) for each `_id`.
package struct RowIDSet: Sendable, Hashable {
    /// The bits of each block that holds any, by block number (`_id >> 9`): bit `_id & 63` of
    /// word `(_id >> 6) & 7`. No block is empty, so equal sets have equal blocks.
    private var blocks: [Int64: Block] = [:]
    /// The number of `_id`s.
    package private(set) var count = 0

    /// One block's 512 bits.
    fileprivate struct Block: Sendable, Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0)

        subscript(index: Int) -> UInt64 {
            get {
                withUnsafeBytes(of: words) { $0.load(fromByteOffset: index &* 8, as: UInt64.self) }
            }
            set {
                withUnsafeMutableBytes(of: &words) {
                    $0.storeBytes(of: newValue, toByteOffset: index &* 8, as: UInt64.self)
                }
            }
        }

        static func == (lhs: Block, rhs: Block) -> Bool {
            (0..<8).allSatisfy { lhs[$0] == rhs[$0] }
        }

        func hash(into hasher: inout Hasher) {
            for index in 0..<8 { hasher.combine(self[index]) }
        }
    }

    /// No `_id`s.
    package init() {}

    /// The `_id`s of `rowIDs`.
    package init(_ rowIDs: some Sequence<Int64>) {
        for rowID in rowIDs { insert(rowID) }
    }

    /// Whether there are none.
    package var isEmpty: Bool { count == 0 }

    /// Where `rowID` is: its block, the word in the block, and the bit in the word.
    private static func place(_ rowID: Int64) -> (block: Int64, word: Int, bit: UInt64) {
        (rowID >> 9, Int(truncatingIfNeeded: (rowID >> 6) & 7), UInt64(1) << UInt64(truncatingIfNeeded: rowID & 63))
    }

    /// Whether `rowID` is among them.
    package func contains(_ rowID: Int64) -> Bool {
        let (block, word, bit) = Self.place(rowID)
        guard let bits = blocks[block] else { return false }
        return bits[word] & bit != 0
    }

    /// Adds `rowID`.
    ///
    /// - Returns: whether it was not among them before.
    @discardableResult
    package mutating func insert(_ rowID: Int64) -> Bool {
        let (block, word, bit) = Self.place(rowID)
        var inserted = false
        func set(_ bits: inout Block) {
            if bits[word] & bit == 0 {
                bits[word] |= bit
                inserted = true
            }
        }
        set(&blocks[block, default: Block()])
        if inserted { count += 1 }
        return inserted
    }

    /// Removes `rowID`, if it is among them.
    package mutating func remove(_ rowID: Int64) {
        let (block, word, bit) = Self.place(rowID)
        guard var bits = blocks[block], bits[word] & bit != 0 else { return }
        bits[word] &= ~bit
        count -= 1
        blocks[block] = (0..<8).allSatisfy { bits[$0] == 0 } ? nil : bits
    }

    /// Adds the `_id`s of `other`.
    package mutating func formUnion(_ other: RowIDSet) {
        for (block, bits) in other.blocks {
            var added = 0
            func merge(_ mine: inout Block) {
                for index in 0..<8 {
                    let new = bits[index] & ~mine[index]
                    added += new.nonzeroBitCount
                    mine[index] |= new
                }
            }
            merge(&blocks[block, default: Block()])
            count += added
        }
    }

}

extension RowIDSet: Sequence {
    /// The `_id`s, in no particular order.
    package struct Iterator: IteratorProtocol {
        fileprivate var blocks: Dictionary<Int64, Block>.Iterator
        fileprivate var block: (number: Int64, bits: Block)?
        fileprivate var index = 0
        fileprivate var word: UInt64 = 0

        package mutating func next() -> Int64? {
            while true {
                if word != 0, let block {
                    let bit = Int64(word.trailingZeroBitCount)
                    word &= word &- 1
                    return block.number << 9 | Int64(index - 1) << 6 | bit
                }
                if let current = block, index < 8 {
                    word = current.bits[index]
                    index += 1
                    continue
                }
                guard let (number, bits) = blocks.next() else { return nil }
                block = (number, bits)
                index = 0
            }
        }
    }

    /// An iterator over the `_id`s.
    package func makeIterator() -> Iterator {
        Iterator(blocks: blocks.makeIterator())
    }

    /// The number of `_id`s.
    package var underestimatedCount: Int { count }
}

/// A small value for each of a set of `_id`s (a row's status in a population, packed in 32
/// bits, 0 for none), kept in blocks of 64 consecutive `_id`s, for the reason ``RowIDSet`` is:
/// the `_id`s a population meets are dense, and a hash map spends far more on each.
struct RowIDTable {
    /// The values of each block that holds any, by block number (`_id >> 6`).
    private var blocks: [Int64: [UInt32]] = [:]

    /// The value of `rowID`, 0 when it has none.
    subscript(rowID: Int64) -> UInt32 {
        get { blocks[rowID >> 6]?[Int(truncatingIfNeeded: rowID & 63)] ?? 0 }
        set {
            let index = Int(truncatingIfNeeded: rowID & 63)
            if newValue == 0, blocks[rowID >> 6] == nil { return }
            blocks[rowID >> 6, default: [UInt32](repeating: 0, count: 64)][index] = newValue
        }
    }

}

extension RowIDTable: Sequence {
    /// Each `_id` that has a value, with the value, in no particular order, read as it goes.
    struct Iterator: IteratorProtocol {
        fileprivate var blocks: Dictionary<Int64, [UInt32]>.Iterator
        fileprivate var block: (number: Int64, values: [UInt32])?
        fileprivate var index = 64

        mutating func next() -> (rowID: Int64, value: UInt32)? {
            while true {
                if let current = block {
                    while index < current.values.count {
                        let value = current.values[index]
                        index += 1
                        if value != 0 { return (current.number << 6 | Int64(index - 1), value) }
                    }
                }
                guard let (number, values) = blocks.next() else { return nil }
                block = (number, values)
                index = 0
            }
        }
    }

    /// An iterator over the `_id`s that have a value.
    func makeIterator() -> Iterator {
        Iterator(blocks: blocks.makeIterator())
    }
}
