import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A nested record that a later batch of a streamed population repeats as is is taken as the
/// earlier batch wrote it, with its children, instead of being looked up and written again
/// (``RepeatedRecords``; Docs/Population.md, "Large responses"), and the store ends exactly as
/// the whole response leaves it, also where something else changed the record in between.
@Suite struct RepeatedRecordsTests {
    static let schema: Schema = {
        do {
            return try Schema(json: RepeatedAcrossBatches.schemaJSON, fileName: "Repeated.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static func post(_ id: Int, name: String = "Ann") -> String { RepeatedAcrossBatches.post(id, name: name) }

    /// The rows `text` leaves in a store that holds `earlier`, and how many lookups of users by
    /// key it ran: whole (`batchBytes` nil) or streamed, from a reader that cannot be opened twice.
    static func populate(_ text: String, after earlier: String = #"{"data": []}"#, batchBytes: Int?) async throws
        -> (rows: [String], userLookups: Int, counts: [String: ChangeCounts])
    {
        let test = try RecordingStore(schema: schema, inMemory: true)
        _ = try await test.store.populate(try JSONReader().read(earlier), entity: "Post")
        test.resetStatements()
        let result: PopulationResult
        if let batchBytes {
            result = try await ResponsePopulation(store: try #require(test.store.sqlite)).populate(
                streaming: readingOnce(Data(text.utf8), batchByteLimit: batchBytes), entity: "Post",
                reopens: false)
        } else {
            result = try await test.store.populate(try JSONReader().read(text), entity: "Post")
        }
        let lookups = test.statements.filter { $0.hasPrefix("SELECT") && $0.contains(#"JOIN "User""#) }.count
        return (try dumpContent(test.store), lookups, result.changesByEntity)
    }

    /// A user repeated as is, a batch each time, is looked up once: by the first batch.
    /// Repeated with another name, it is looked up again, and then taken as that batch left it.
    @Test func aUserRepeatedAsIsIsLookedUpOnce() async throws {
        let same = "{\"data\": [\(Self.post(1)), \(Self.post(2)), \(Self.post(3)), \(Self.post(4))]}"
        let earlier = #"{"data": [{"id": 9, "user": {"id": "u1", "name": "Ann", "counts": {"followers": 1}}}]}"#
        let whole = try await Self.populate(same, after: earlier, batchBytes: nil)
        let streamed = try await Self.populate(same, after: earlier, batchBytes: 1)
        #expect(streamed.rows == whole.rows)
        #expect(streamed.counts == whole.counts, "\(streamed.counts)")
        #expect(streamed.userLookups == 1, "\(streamed.userLookups) lookups of users")
        let renamed = "{\"data\": [\(Self.post(1)), \(Self.post(2, name: "Bo")), \(Self.post(3, name: "Bo"))]}"
        let wholeRenamed = try await Self.populate(renamed, after: earlier, batchBytes: nil)
        let streamedRenamed = try await Self.populate(renamed, after: earlier, batchBytes: 1)
        #expect(streamedRenamed.rows == wholeRenamed.rows)
        #expect(streamedRenamed.userLookups == 2, "\(streamedRenamed.userLookups) lookups of users")
        #expect(streamedRenamed.rows.contains("User: 1 | 'User' | 'u1' | 'Bo'"), "\(streamedRenamed.rows)")
    }

    /// Where another record changes a repeated record's child between two of its occurrences
    /// (a post's `stats` naming the user's counts by their owner), the later occurrence is
    /// applied again, as in one batch: in a batch between, or in the repeat's own batch, before
    /// it or after it.
    @Test(arguments: RepeatedAcrossBatches.countsChangedBetweenRepeats)
    func aChildChangedBetweenRepeatsEndsAsInOneBatch(posts: [String]) async throws {
        let text = RepeatedAcrossBatches.response(posts)
        let whole = try await Self.populate(text, batchBytes: nil)
        let last = RepeatedAcrossBatches.followers(after: posts)
        #expect(whole.rows.contains { $0.hasPrefix("Counts: 1 | 'Counts' | \(last) |") }, "\(whole.rows)")
        // One record a batch; the long first post alone, then the rest together; one batch.
        for batchBytes in [1, 200, 1 << 20] {
            let streamed = try await Self.populate(text, batchBytes: batchBytes)
            #expect(streamed.rows == whole.rows, "batches of \(batchBytes) bytes: \(streamed.rows)")
            #expect(streamed.counts == whole.counts, "batches of \(batchBytes) bytes: \(streamed.counts)")
        }
    }

    /// A keyless object through another record's to-one names the row that to-one holds (the
    /// record "related there"): where that is the row of a record a batch repeats as is, or of
    /// its child, the two share the row, and the repeat is stored as usual, as in one batch.
    @Test(arguments: [
        // Post 2's keyless user is u1, which the stored post 2 relates.
        (
            #"{"data": [{"id": 2, "title": "t", "user": {"id": "u1", "name": "Ann"}}]}"#,
            [
                #"{"id": 1, "title": "\#(String(repeating: "x", count: 220))", "user": {"id": "u1", "name": "Ann"}}"#,
                #"{"id": 2, "title": "t", "user": {"name": "Bo"}}"#,
                #"{"id": 3, "title": "t", "user": {"id": "u1", "name": "Ann"}}"#,
            ]
        ),
        // Post 2's keyless stats are u1's counts, which the stored post 2 relates.
        (
            #"{"data": [{"id": 2, "title": "t", "stats": {"user": "u1", "followers": 1}, "user": {"id": "u1", "name": "Ann", "counts": {"followers": 1}}}]}"#,
            [
                RepeatedAcrossBatches.longPost, #"{"id": 2, "title": "t", "stats": {"followers": 1}}"#,
                RepeatedAcrossBatches.post(3),
            ]
        ),
    ])
    func aKeylessObjectRelatedThereSharesARepeatedRow(earlier: String, posts: [String]) async throws {
        let text = RepeatedAcrossBatches.response(posts)
        for batchBytes in [1, 200, 1 << 20] {
            let whole = try await Self.populate(text, after: earlier, batchBytes: nil)
            let streamed = try await Self.populate(text, after: earlier, batchBytes: batchBytes)
            #expect(streamed.rows == whole.rows, "batches of \(batchBytes) bytes: \(streamed.rows)")
            #expect(streamed.counts == whole.counts, "batches of \(batchBytes) bytes: \(streamed.counts)")
        }
    }

    /// A record that sets a relationship to null is not taken as written, as applying it again
    /// would unlink a child another writer added meanwhile (PostgreSQL locks the rows its lookups
    /// find, not the rows that come to refer to them): each batch looks the user up.
    @Test func aRecordThatSetsARelationshipToNullIsAppliedAgain() async throws {
        let posts = (1...3).map {
            #"{"id": \#($0), "title": "t", "user": {"id": "u1", "name": "Ann", "counts": null}}"#
        }
        let text = RepeatedAcrossBatches.response(posts)
        let earlier = #"{"data": [{"id": 9, "user": {"id": "u1", "name": "Ann"}}]}"#
        let whole = try await Self.populate(text, after: earlier, batchBytes: nil)
        let streamed = try await Self.populate(text, after: earlier, batchBytes: 1)
        #expect(streamed.rows == whole.rows)
        #expect(streamed.userLookups == 3, "\(streamed.userLookups) lookups of users")
    }
}
