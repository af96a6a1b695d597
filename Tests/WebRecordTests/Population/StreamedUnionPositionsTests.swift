import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// An ordered list merged by union moves the members it does not list after the ones it lists
/// (Docs/Population.md, "Ordered to-many with `union`"); one batch moves them once every row of
/// the response is written, so a member that a later occurrence of another owner takes is not
/// among them. A stream moves them when the batch that gives the list is written, and again once
/// every batch is, so that a member a later batch takes leaves the rest where one batch leaves
/// them (Docs/Population.md, "Positions moved again at the end"). Each response here ends the same
/// whole and streamed, row for row and count for count, read again or read once.
@Suite("Population: ordered union lists that a later batch takes a member of")
struct StreamedUnionPositionsTests {
    static let schema = OracleOrderedListTests.schema

    /// Each case: the store before, the response, and owner 1's items with their positions
    /// whole, in the order the documented read gives them (`ORDER BY position, _id`).
    static let cases: [(earlier: String, list: String, owner1: [[Int?]])] = [
        // The member owner 3 takes was moved after owner 1's listed one: item 3 closes the gap.
        (#"[{"id": 1, "uu": [1, 3]}]"#, #"[{"id": 1, "uu": [5]}, {"id": 3, "uu": [1]}]"#, [[5, 0], [3, 1]]),
        // Taken as an object with data, by an owner the store did not hold.
        (
            #"[{"id": 1, "uu": [1, 3]}]"#, #"[{"id": 1, "uu": [5]}, {"id": 9, "uu": [{"id": 1, "name": "n"}]}]"#,
            [[5, 0], [3, 1]]
        ),
        // Two members taken by two later owners, in two later batches.
        (
            #"[{"id": 1, "uu": [1, 3, 4, 6]}]"#,
            #"[{"id": 1, "uu": [5]}, {"id": 3, "uu": [1]}, {"id": 2}, {"id": 4, "uu": [4]}]"#,
            [[5, 0], [3, 1], [6, 2]]
        ),
        // The taker lists the member among others; owner 1 is named again in between without a list.
        (
            #"[{"id": 1, "uu": [1, 3, 4]}, {"id": 3, "uu": [7]}]"#,
            #"[{"id": 1, "uu": [5]}, {"id": 1}, {"id": 3, "uu": [8, 3]}]"#, [[5, 0], [1, 1], [4, 2]]
        ),
        // A listed member taken: whole and streamed leave its place empty alike.
        (
            #"[{"id": 1, "uu": [1, 3]}]"#, #"[{"id": 1, "uu": [5, 6]}, {"id": 3, "uu": [5]}]"#,
            [[6, 1], [1, 2], [3, 3]]
        ),
        // Owner 1 lists again after the take: its latest list decides.
        (
            #"[{"id": 1, "uu": [1, 3]}]"#, #"[{"id": 1, "uu": [5]}, {"id": 3, "uu": [1]}, {"id": 1, "uu": [3]}]"#,
            [[3, 0], [5, 1]]
        ),
        // The member taken, then an empty list of the taker, which only adds.
        (
            #"[{"id": 1, "uu": [1, 3]}]"#, #"[{"id": 1, "uu": [5]}, {"id": 3, "uu": [1]}, {"id": 3, "uu": []}]"#,
            [[5, 0], [3, 1]]
        ),
    ]

    @Test(arguments: cases.indices)
    func endsAsWhole(index: Int) async throws {
        let (earlier, list, owner1) = Self.cases[index]
        let whole = try await Self.populate(list, after: earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        #expect(try await Self.owner1(list, after: earlier, batchBytes: nil) == owner1)
        for size in [1, 30, 64] {
            for reopens in [true, false] {
                let streamed = try await Self.populate(list, after: earlier, batchBytes: size, reopens: reopens)
                #expect(
                    streamed == whole,
                    "\(list) in batches of \(size) bytes (+ streamed, - whole):\n\(streamed.difference(from: whole))")
            }
            #expect(try await Self.owner1(list, after: earlier, batchBytes: size) == owner1, "batches of \(size) bytes")
        }
    }

    static func populate(
        _ list: String, after earlier: String, batchBytes: Int?, reopens: Bool = true
    ) async throws -> AdversarialStreamTests.Outcome {
        try await AdversarialStreamTests.populate(
            list, after: earlier, schema: schema, entity: "Owner", batchBytes: batchBytes, reopens: reopens)
    }

    /// Owner 1's `uu` items and their positions after `list`, in the documented order.
    static func owner1(_ list: String, after earlier: String, batchBytes: Int?) async throws -> [[Int?]] {
        try await OracleOrderedListTests.unionPositions([earlier], then: list, batchBytes: batchBytes, owner: 1)
    }
}
