import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A streamed population into a store that holds nothing (every table empty when it begins),
/// and records that earlier batches wrote met again: every batching ends as the whole response.
///
/// `StreamedDifferentialTests` populates an earlier response first, so its tables hold rows;
/// these start from nothing, as a first import does.
@Suite struct StreamedFirstImportTests {
    typealias Differential = StreamedDifferentialTests

    /// The rows a population of `text` after `earlier` leaves, one record a batch.
    static func streamedRows(of text: String, after earlier: String) async throws -> [String] {
        try await Differential.outcome(
            of: text, after: earlier, way: .streamed(batchBytes: 1), options: PopulationOptions()
        ).rows
    }

    /// A post, its user and the user's counts.
    static let unrelated = """
        {"data": [{"id": 99, "title": "z", "user": {"id": "u9", "counts": {"followers": 1}}}]}
        """

    @Test(arguments: ["", unrelated])
    func aRecordAnEarlierBatchWroteIsFoundAgainNotInsertedTwice(earlier: String) async throws {
        // u1 and its counts (identified by their owner) are written by the first batch and given
        // again by the second and the third, whose name and count win.
        let text = """
            {"data": [
              {"id": 1, "title": "a", "user": {"id": "u1", "name": "Ann", "counts": {"followers": 5}}},
              {"id": 2, "title": "b", "user": {"id": "u1", "counts": {"followers": 6}}},
              {"id": 3, "title": "c", "user": {"id": "u1", "name": "Anne"}}
            ]}
            """
        let rows = try await Self.streamedRows(of: text, after: earlier)
        let users = rows.filter { $0.hasPrefix("User: ") && $0.contains("'u1'") }
        // `Counts: _id | 'Counts' | followers | user`: u1's one row, and u9's after `unrelated`.
        let counts = rows.filter { $0.hasPrefix("Counts: ") }
        #expect(users.count == 1 && users[0].contains("'Anne'"), "\(rows)")
        #expect(counts.count == (earlier.isEmpty ? 1 : 2), "\(rows)")
        #expect(counts.contains { $0.contains(" | 'Counts' | 6 | ") }, "\(rows)")
        let whole = try await Differential.outcome(of: text, after: earlier, way: .whole, options: PopulationOptions())
        #expect(rows == whole.rows)
    }

    /// Comment 11 moves from post 1 to post 2, is dropped from post 2's list, and is given
    /// back to it: a batch at a time, the drop clears its reference in a row that batch does not
    /// hold, and the last batch must see that, not the row as the second batch wrote it.
    static let droppedAndGivenBack = """
        {"data": [
          {"id": 1, "title": "a", "comments": [{"id": 11}, {"id": 12}]},
          {"id": 2, "title": "b", "comments": [{"id": 11}]},
          {"id": 2, "comments": []},
          {"id": 2, "comments": [{"id": 11}]}
        ]}
        """

    @Test(arguments: ["", unrelated])
    func aRowABatchChangesOutsideTheRowsItHoldsIsSeenByTheNext(earlier: String) async throws {
        let rows = try await Self.streamedRows(of: Self.droppedAndGivenBack, after: earlier)
        let whole = try await Differential.outcome(
            of: Self.droppedAndGivenBack, after: earlier, way: .whole, options: PopulationOptions())
        #expect(rows == whole.rows, "streamed:\n\(rows.joined(separator: "\n"))\nwhole:\n\(whole)")
        // Comment 11 ends on post 2, as the last list names it (`Post: _id | 'Post' | id | ...`,
        // `Comment: _id | 'Comment' | id | body | post`).
        let post2 = try #require(rows.first { $0.hasPrefix("Post: ") && $0.contains(" | 'Post' | 2 | ") })
        let post2RowID = try #require(post2.dropFirst("Post: ".count).components(separatedBy: " | ").first)
        let comment11 = try #require(rows.first { $0.hasPrefix("Comment: ") && $0.contains(" | 'Comment' | 11 | ") })
        #expect(comment11.hasSuffix(" | \(post2RowID)"), "\(comment11)")
    }

    /// Random responses into a store that holds nothing: every batch size gives the whole
    /// response's rows (`_id`s included), counts, records and failure.
    @Test(arguments: Array(UInt64(201)...UInt64(260)))
    func aStreamedFirstImportIsTheWholeFirstImport(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed &* 7919)
        let options = Differential.options(&random)
        let orphans = options.deleteOrphans != nil || options.orphanDeletion != nil
        let differ = seed % 2 == 0
        var generator = Differential.Generator(
            seed: seed, relationshipsDiffer: differ, keysRequired: differ || (orphans && seed % 4 != 1))
        let text = generator.response(count: 8 + generator.random.next(below: 16))
        let whole = try await Differential.outcome(of: text, after: "", way: .whole, options: options)
        for way in [Differential.Way.streamed(batchBytes: 1), .streamed(batchBytes: 300)] {
            let streamed = try await Differential.outcome(of: text, after: "", way: way, options: options)
            #expect(
                streamed == whole,
                "seed \(seed), \(way):\n\(Differential.difference(whole, streamed, ("whole", "streamed")))\nresponse: \(text)"
            )
        }
    }
}
