import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Observed fetches: the initial results, then each committed change with its change set; what
/// counts as a change; what wakes an observation and what does not; where changes come from.
@Suite struct ObservationTests {
    let observed: ObservedStore
    var directory: TemporaryDirectory { observed.directory }
    var store: RecordStore { observed.store }

    init() throws {
        observed = try ObservedStore()
    }

    func populate(_ posts: [JSONValue]) async throws {
        try await observed.populate(posts)
    }

    typealias S = ObservationSupport

    @Test func theInitialResultsComeFirstThenEachChangeWithItsChangeSet() async throws {
        try await populate([S.post(1, rank: 1), S.post(2, rank: 2), S.post(3, rank: 3)])
        var iterator = store.observe("Post", orderBy: [.ascending("rank")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(S.ids(initial.records) == [1, 2, 3])
        #expect(initial.changes == nil)

        // 2 is renamed, 4 arrives first, 3 goes last → first.
        try await populate([S.post(2, title: "renamed", rank: 2), S.post(4, rank: 0)])
        let second = try #require(try await iterator.next())
        #expect(S.ids(second.records) == [4, 1, 2, 3])
        let changes = try #require(second.changes)
        #expect(changes.insertions == [0])
        #expect(changes.deletions == [])
        #expect(changes.modifications == [ChangeSet.Modification(old: 1, new: 2)])
        #expect(second.records[2]["title"] as String? == "renamed")
    }

    @Test func aRecordTypedObservationDeliversTheClass() async throws {
        store.register(recordClass: ObservedPost.self)
        try await populate([S.post(7, title: "seven")])
        var iterator = ObservedPost.observe(in: store).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        let posts: [ObservedPost] = initial.records
        #expect(posts.map(\.id) == [7])
        #expect(posts.first?.title == "seven")
    }

    @Test func deletionsAndMovesAreReportedByTheirOldAndNewIndices() async throws {
        try await populate([S.post(1, rank: 1), S.post(2, rank: 2), S.post(3, rank: 3)])
        var iterator = store.observe("Post", orderBy: [.ascending("rank")]).makeAsyncIterator()
        _ = try await iterator.next()
        try await store.write { connection in
            try connection.execute(#"DELETE FROM "Post" WHERE "id" = 2"#)
            try connection.execute(#"UPDATE "Post" SET "rank" = 0 WHERE "id" = 3"#)
        }
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == [3, 1])
        let changes = try #require(next.changes)
        #expect(changes.deletions == [1])
        #expect(changes.insertions == [])
        // 3 moved to the front (or 1 moved behind it: either is one move) and changed its rank.
        #expect(changes.moves.count == 1)
        #expect(changes.modifications.contains(ChangeSet.Modification(old: 2, new: 0)))
    }

    /// SQLite gives a new row the largest `_id` plus one, so the last row's `_id` comes back
    /// once it is deleted: the record there now is another one, inserted, and the one before it
    /// deleted, not one record modified.
    @Test func aRecordAtAReusedIDIsAnInsertionNotAModification() async throws {
        try await populate([S.post(1, rank: 1), S.post(3, rank: 3)])
        let reused = try #require(try store.fetchOne("Post", primaryKey: 3)?.rowID)
        var iterator = store.observe("Post", orderBy: [.ascending("rank")]).makeAsyncIterator()
        _ = try await iterator.next()
        try await store.write { connection in
            try connection.execute(#"DELETE FROM "Post" WHERE "id" = 3"#)
            try connection.execute(
                #"INSERT INTO "Post" ("_id", "_entity", "id", "rank") VALUES (?, 'Post', 4, 4)"#, [.integer(reused)])
        }
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == [1, 4])
        let changes = try #require(next.changes)
        #expect(changes.deletions == [1] && changes.insertions == [1], "\(changes)")
        #expect(changes.modifications.isEmpty && changes.moves.isEmpty, "\(changes)")
    }

    @Test func aRecordAtAReusedIDIsAnInsertionWhenAnotherProcessCommitsIt() async throws {
        let other = try RecordStore(path: directory.path("observed.sqlite"), schema: ObservationSupport.schema())
        try await populate([S.post(1, category: "a"), S.post(3, category: "b")])
        let reused = try #require(try store.fetchOne("Post", primaryKey: 3)?.rowID)
        // Whole results compared (another store's commit names no rows), flat and in sections.
        var flat = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        var sectioned = store.observe("Post", orderBy: [.ascending("id")], sectionKey: "category").makeAsyncIterator()
        _ = try await flat.next()
        _ = try await sectioned.next()
        try await other.write { connection in
            try connection.execute(#"DELETE FROM "Post" WHERE "id" = 3"#)
            try connection.execute(
                #"INSERT INTO "Post" ("_id", "_entity", "id", "category") VALUES (?, 'Post', 4, 'b')"#,
                [.integer(reused)])
        }
        let next = try #require(try await flat.next())
        #expect(S.ids(next.records) == [1, 4])
        #expect(
            next.changes?.deletions == [1] && next.changes?.insertions == [1], "\(String(describing: next.changes))")
        #expect(next.changes?.modifications.isEmpty == true)
        let inSections = try #require(try await sectioned.next())
        let sectionChanges = try #require(inSections.sectionChanges)
        #expect(sectionChanges.deletions == [RecordPosition(section: 1, item: 0)], "\(sectionChanges)")
        #expect(sectionChanges.insertions == [RecordPosition(section: 1, item: 0)], "\(sectionChanges)")
        #expect(sectionChanges.modifications.isEmpty)
    }

    @Test func anUnchangedReimportWakesNoObserver() async throws {
        let posts = [S.post(1, author: 1), S.post(2, author: 2)]
        try await populate(posts)
        let published = Locked<[StoreChange]>([])
        let subscription = store.sqlite!.changes.subscribe { change in published.withLock { $0.append(change) } }
        defer { subscription.cancel() }
        try await populate(posts)
        #expect(published.withLock { $0 } == [], "an unchanged re-import commits no change")
        try await populate([S.post(1, title: "changed", author: 1)])
        let tables = published.withLock { $0 }
        #expect(tables == [.tables(["Post": [1]])])
    }

    @Test func changesElsewhereDoNotWakeTheObservation() async throws {
        try await populate([S.post(1, rank: 1), S.post(20, rank: 2)])
        var iterator = store.observe("Post", where: "id < ?", arguments: [10], orderBy: [.ascending("rank")])
            .makeAsyncIterator()
        _ = try await iterator.next()
        // Another entity, and a post outside the predicate, then one inside it.
        _ = try await store.populate(["name": "swift"], entity: "Tag")
        try await populate([S.post(21, rank: 0), S.post(20, title: "still outside", rank: 2)])
        try await populate([S.post(2, rank: 5)])
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == [1, 2])
        #expect(next.changes?.insertions == [1])
        #expect(next.changes?.modifications == [])
    }

    @Test func toManyMembershipsAndNamedKeyPathsCountAsChanges() async throws {
        try await populate([S.post(1, author: 1), S.post(2, author: 2)])
        var authors = store.observe("Author", orderBy: [.ascending("id")]).makeAsyncIterator()
        var posts = store.observe("Post", orderBy: [.ascending("id")], keyPaths: ["author.name"]).makeAsyncIterator()
        _ = try await authors.next()
        _ = try await posts.next()

        // Post 2 moves to author 1: author 1 and 2's memberships change.
        try await populate([S.post(2, author: 1)])
        let authorsNext = try #require(try await authors.next())
        #expect(authorsNext.changes?.modifications.map(\.new).sorted() == [0, 1])
        let postsNext = try #require(try await posts.next())
        #expect(postsNext.changes?.modifications.map(\.new) == [1], "post 2's author changed")

        // Author 1 is renamed: both posts show it through author.name.
        _ = try await store.populate(["id": 1, "name": "renamed"], entity: "Author")
        let renamed = try #require(try await posts.next())
        #expect(renamed.changes?.modifications.map(\.new).sorted() == [0, 1])
    }

    @Test func aForeignKeyActionIsAChange() async throws {
        try await populate([S.post(1, author: 1), S.post(2, author: 2)])
        var iterator = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.records.map { $0.related("author")?["id"] as Int64? } == [1, 2])
        // Deleting author 1 nulls post 1's author through ON DELETE SET NULL.
        try await store.write { try $0.execute(#"DELETE FROM "Author" WHERE "id" = 1"#) }
        let next = try #require(try await iterator.next())
        #expect(next.changes?.modifications == [ChangeSet.Modification(old: 0, new: 0)])
        #expect(next.records.first?.related("author") == nil)
    }

    @Test func aDeleteWithoutWhereIsSeenRowByRow() async throws {
        try await populate([S.post(1), S.post(2)])
        var iterator = store.observe("Post").makeAsyncIterator()
        _ = try await iterator.next()
        let published = Locked<[StoreChange]>([])
        let subscription = store.sqlite!.changes.subscribe { change in published.withLock { $0.append(change) } }
        defer { subscription.cancel() }
        try await store.write { try $0.execute(#"DELETE FROM "Post""#) }
        // Announced by the commit itself, row by row, not found later by checking the file.
        #expect(published.withLock { $0 } == [.tables(["Post": [1, 2]])])
        let next = try #require(try await iterator.next())
        #expect(next.records.isEmpty)
        #expect(next.changes?.deletions == [0, 1])
    }

    @Test func sectionsFollowTheSectionKey() async throws {
        try await populate([S.post(1, category: "b"), S.post(2, category: "a"), S.post(3, category: "b")])
        var iterator = store.observe("Post", orderBy: [.ascending("id")], sectionKey: "category").makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.sections.map(\.key) == ["a", "b"])
        #expect(initial.sections.map(\.range) == [0..<1, 1..<3])
        #expect(S.ids(Array(initial.records(inSection: 1))) == [1, 3])
        try await populate([S.post(4, category: "c")])
        let next = try #require(try await iterator.next())
        #expect(next.sections.map(\.key) == ["a", "b", "c"])
        #expect(next.sectionChanges?.insertedSections == [2])
    }

    @Test func aSingleRecordIsObservedByItsKey() async throws {
        store.register(recordClass: ObservedPost.self)
        var iterator = ObservedPost.observe(primaryKey: "5", in: store).makeAsyncIterator()
        let none = try #require(try await iterator.next())
        #expect(none.records.isEmpty)
        try await populate([S.post(5, title: "five"), S.post(6)])
        let five = try #require(try await iterator.next())
        #expect(five.records.map(\.title) == ["five"])
        #expect(five.changes?.insertions == [0])
    }

    @Test func anInvalidObservationFailsItsFirstDelivery() async throws {
        var iterator = store.observe("Post", orderBy: [.ascending("nope")]).makeAsyncIterator()
        await #expect(throws: WebRecordError.self) { _ = try await iterator.next() }
        var keyPath = store.observe("Post", keyPaths: ["author.nope"]).makeAsyncIterator()
        do {
            _ = try await keyPath.next()
            Issue.record("an unknown key path should fail")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("author.nope"), "\(error)")
        }
    }

    @Test func anotherStoreOnTheSameFileReachesTheObservation() async throws {
        let other = try RecordStore(path: directory.path("observed.sqlite"), schema: ObservationSupport.schema())
        try await populate([S.post(1)])
        var iterator = store.observe("Post").makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await other.populate(.array([S.post(2)]), entity: "Post")
        let next = try #require(try await iterator.next())
        #expect(S.ids(next.records) == [1, 2])
    }

    @Test func cancellingTheConsumingTaskEndsAndReleasesTheObservation() async throws {
        try await populate([S.post(1)])
        let started = Locked(false)
        let observation = store.observe("Post")
        let task = Task {
            var count = 0
            for try await _ in observation {
                count += 1
                started.withLock { $0 = true }
            }
            return count
        }
        while !started.withLock({ $0 }) { await Task.yield() }
        #expect(store.sqlite!.changes.hasSubscribers)
        task.cancel()
        #expect(try await task.value == 1)
        #expect(!store.sqlite!.changes.hasSubscribers, "the observation unsubscribed")
    }
}
