import Testing
import WebRecordTesting

@testable import WebRecord

/// `RowIDSet` and `RowIDTable`, the compact sets and tables of `_id`s a population keeps for
/// every row it meets, against `Set` and `Dictionary` on the same `_id`s: dense runs, sparse
/// ones, negative and extreme `_id`s.
@Suite struct RowIDSetTests {
    /// `_id`s of every shape a store hands out, and some no store does.
    static func rowIDs(seed: UInt64) -> [Int64] {
        var random = SeededRandom(seed: seed)
        var rowIDs: [Int64] = [0, 1, 511, 512, 513, -1, -512, -513, .max, .min, .max - 1, .min + 1]
        let start = Int64(random.next() % 10_000)
        rowIDs += (start..<(start + 2_000)).map { $0 }  // a dense run, as new rows take
        for _ in 0..<500 {
            rowIDs.append(Int64(bitPattern: random.next()))  // sparse, anywhere
        }
        rowIDs += rowIDs.prefix(300)  // repeats
        return rowIDs
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aRowIDSetHoldsWhatASetHolds(seed: UInt64) {
        let rowIDs = Self.rowIDs(seed: seed)
        var compact = RowIDSet()
        var reference = Set<Int64>()
        for rowID in rowIDs {
            #expect(compact.insert(rowID) == reference.insert(rowID).inserted)
        }
        #expect(compact.count == reference.count)
        #expect(Set(compact) == reference)
        #expect(Array(compact).count == reference.count, "each _id once")
        for rowID in rowIDs.prefix(100) { #expect(compact.contains(rowID)) }
        let absent: [Int64] = [-2, 2_000_000, Int64.max - 2]
        for rowID in absent where !reference.contains(rowID) {
            #expect(!compact.contains(rowID))
        }

        let other = Self.rowIDs(seed: seed + 10)
        var union = compact
        union.formUnion(RowIDSet(other))
        let expected = reference.union(other)
        #expect(union.count == expected.count)
        #expect(Set(union) == expected)
        #expect(RowIDSet(rowIDs) == compact, "the same rows, added in another order, make an equal set")
        #expect(RowIDSet(rowIDs.reversed()) == compact)
    }

    @Test func aRowIDTableKeepsWhatADictionaryKeeps() {
        let rowIDs = Self.rowIDs(seed: 7)
        var table = RowIDTable()
        var reference: [Int64: UInt32] = [:]
        for (index, rowID) in rowIDs.enumerated() {
            let value = UInt32(index % 5)  // 0 clears
            table[rowID] = value
            reference[rowID] = value == 0 ? nil : value
        }
        for rowID in rowIDs { #expect(table[rowID] == reference[rowID] ?? 0) }
        var listed: [Int64: UInt32] = [:]
        for (rowID, value) in table { listed[rowID] = value }
        #expect(listed == reference)
    }
}
