import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Schemas for the adversarial observation and request tests: a tree kept in one table (a
/// one-to-many that is its own entity's), decimal prices, and a hierarchy whose sub-entity has
/// a many-to-many of its own.
enum AdversarialObservationSupport {
    static let treeSchemaJSON = """
        {
          "entities": {
            "Node": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "parent": { "destination": "Node", "inverse": "children" },
                "children": { "destination": "Node", "toMany": true, "inverse": "parent" }
              }
            }
          }
        }
        """

    static let priceSchemaJSON = """
        {
          "entities": {
            "Item": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "price": { "type": "decimal" } }
            }
          }
        }
        """

    static let mediaSchemaJSON = """
        {
          "entities": {
            "Media": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "kind": { "type": "string" } },
              "subentities": { "key": "kind", "map": { "photo": "Photo" } }
            },
            "Photo": {
              "parent": "Media",
              "attributes": { "width": { "type": "integer" } },
              "relationships": { "tags": { "destination": "Label", "toMany": true, "inverse": "photos" } }
            },
            "Label": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": { "photos": { "destination": "Photo", "toMany": true, "inverse": "tags" } }
            }
          }
        }
        """

    /// A store of `schemaJSON` in a directory of its own.
    static func makeStore(_ schemaJSON: String, file: String) throws -> (RecordStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(file), schema: Schema(json: schemaJSON))
        return (store, directory)
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONReader().read(text)
    }

    static func ids(_ records: [Record]) -> [Int64] {
        records.compactMap { $0["id"] as Int64? }
    }

    static func sorted(_ modifications: [ChangeSet<Int>.Modification]) -> [ChangeSet<Int>.Modification] {
        modifications.sorted { ($0.new, $0.old) < ($1.new, $1.old) }
    }
}

/// Observations after populations of every kind, and the records requests and batches return:
/// exactly the changes that happened, and exactly the response's top-level records.
@Suite struct AdversarialObservationTests {
    typealias A = AdversarialObservationSupport

    // MARK: - A one-to-many kept in the entity's own table

    /// Observation.md: "an author whose list of posts changes is modified". A child that moves
    /// from one parent to another changes both parents' lists of children, though only the
    /// child's row is written (the foreign key is in the child's row, in the same table).
    @Test func reparentingAChildModifiesBothParentsInATreeKeptInOneTable() async throws {
        let (store, directory) = try A.makeStore(A.treeSchemaJSON, file: "tree.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 1}, {"id": 2}, {"id": 3, "parent": {"id": 1}}]}"#), entity: "Node")
        var iterator = store.observe("Node", orderBy: [.ascending("id")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(A.ids(initial.records) == [1, 2, 3])

        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 3, "parent": {"id": 2}}]}"#), entity: "Node")
        let next = try #require(try await iterator.next())
        #expect(A.ids(next.records) == [1, 2, 3])
        let changes = try #require(next.changes)
        #expect(changes.insertions == [] && changes.deletions == [] && changes.moves == [], "\(changes)")
        // Node 1 lost child 3, node 2 gained it, node 3 has another parent.
        #expect(
            A.sorted(changes.modifications)
                == [.init(old: 0, new: 0), .init(old: 1, new: 1), .init(old: 2, new: 2)], "\(changes)")
        // The delivered records are the store's: node 2 now lists child 3.
        #expect(next.records[1].relatedRecords("children", as: Record.self).compactMap { $0["id"] as Int64? } == [3])
        #expect(next.records[0].relatedRecords("children", as: Record.self).isEmpty)
    }

    /// Observation.md: orphan deletions are a way a row changes, and a record whose list of
    /// members changes is modified. Deleting child 3 as an orphan empties node 1's children.
    @Test func anOrphanDeletedChildModifiesItsParentInATreeKeptInOneTable() async throws {
        let (store, directory) = try A.makeStore(A.treeSchemaJSON, file: "tree.sqlite")
        _ = directory
        let plain = PopulationOptions()
        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 1}, {"id": 2}, {"id": 3, "parent": {"id": 1}}]}"#), entity: "Node",
            options: plain)
        var iterator = store.observe("Node", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()

        var orphans = plain
        orphans.deleteOrphans = .all
        _ = try await store.populate(try A.json(#"{"data": [{"id": 1}, {"id": 2}]}"#), entity: "Node", options: orphans)
        let next = try #require(try await iterator.next())
        #expect(A.ids(next.records) == [1, 2])
        let changes = try #require(next.changes)
        #expect(changes.deletions == [2], "\(changes)")
        #expect(changes.insertions == [], "\(changes)")
        #expect(changes.modifications == [.init(old: 0, new: 0)], "node 1 lost its child: \(changes)")
    }

    /// The same tree through SQL run in the store's `write`, which Observation.md lists among
    /// the ways a row changes.
    @Test func aChildMovedBySQLModifiesBothParentsInATreeKeptInOneTable() async throws {
        let (store, directory) = try A.makeStore(A.treeSchemaJSON, file: "tree.sqlite")
        _ = directory
        let plain = PopulationOptions()
        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 1}, {"id": 2}, {"id": 3, "parent": {"id": 1}}]}"#), entity: "Node",
            options: plain)
        let two = try #require(try store.fetchOne("Node", primaryKey: 2)?.rowID)
        var iterator = store.observe("Node", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        try await store.write { connection in
            try connection.execute(#"UPDATE "Node" SET "parent" = ? WHERE "id" = 3"#, [.integer(two)])
        }
        let next = try #require(try await iterator.next())
        let changes = try #require(next.changes)
        #expect(
            A.sorted(changes.modifications)
                == [.init(old: 0, new: 0), .init(old: 1, new: 1), .init(old: 2, new: 2)], "\(changes)")
    }

    /// Control: the same observation with a `limit` reads its whole results, and reports both
    /// parents.
    @Test func reparentingAChildWithALimitModifiesBothParents() async throws {
        let (store, directory) = try A.makeStore(A.treeSchemaJSON, file: "tree.sqlite")
        _ = directory
        let plain = PopulationOptions()
        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 1}, {"id": 2}, {"id": 3, "parent": {"id": 1}}]}"#), entity: "Node",
            options: plain)
        var iterator = store.observe("Node", orderBy: [.ascending("id")], limit: 10).makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await store.populate(
            try A.json(#"{"data": [{"id": 3, "parent": {"id": 2}}]}"#), entity: "Node", options: plain)
        let next = try #require(try await iterator.next())
        let changes = try #require(next.changes)
        #expect(
            A.sorted(changes.modifications)
                == [.init(old: 0, new: 0), .init(old: 1, new: 1), .init(old: 2, new: 2)], "\(changes)")
    }

    // MARK: - Sorting by a decimal

    /// Observation.md: each delivery's `records` are the results of the fetch, in its order;
    /// SchemaFormat.md/StorageLayout.md keep a decimal as text and the fetch sorts it by value
    /// (9 before 10). A population that inserts one item must place it where the fetch does.
    @Test func anInsertedDecimalIsPlacedByValueNotByText() async throws {
        let (store, directory) = try A.makeStore(A.priceSchemaJSON, file: "prices.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "price": "9"}, {"id": 2, "price": "20"}]"#), entity: "Item")
        var iterator = store.observe("Item", orderBy: [.ascending("price")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(A.ids(initial.records) == [1, 2])

        _ = try await store.populate(try A.json(#"[{"id": 3, "price": "10"}]"#), entity: "Item")
        let next = try #require(try await iterator.next())
        let fetched = try store.fetch("Item", orderBy: [.ascending("price")])
        #expect(A.ids(fetched) == [1, 3, 2])
        #expect(A.ids(next.records) == [1, 3, 2], "delivered results differ from the store's fetch")
        #expect(next.changes?.insertions == [1], "\(String(describing: next.changes))")
    }

    /// The same with an update that moves an item: its new price sorts it last by value.
    @Test func anUpdatedDecimalMovesByValueNotByText() async throws {
        let (store, directory) = try A.makeStore(A.priceSchemaJSON, file: "prices.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "price": "2"}, {"id": 2, "price": "3"}, {"id": 3, "price": "4"}]"#), entity: "Item")
        var iterator = store.observe("Item", orderBy: [.ascending("price")]).makeAsyncIterator()
        _ = try await iterator.next()

        _ = try await store.populate(try A.json(#"[{"id": 1, "price": "100"}]"#), entity: "Item")
        let next = try #require(try await iterator.next())
        let fetched = try store.fetch("Item", orderBy: [.ascending("price")])
        #expect(A.ids(fetched) == [2, 3, 1])
        #expect(A.ids(next.records) == [2, 3, 1], "delivered results differ from the store's fetch")
        #expect(next.changes?.moves.count == 1, "\(String(describing: next.changes))")
        #expect(next.changes?.modifications == [.init(old: 0, new: 2)], "\(String(describing: next.changes))")
    }

    /// Control: with a limit the results are read whole, in the fetch's order.
    @Test func anInsertedDecimalWithALimitIsPlacedByValue() async throws {
        let (store, directory) = try A.makeStore(A.priceSchemaJSON, file: "prices.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "price": "9"}, {"id": 2, "price": "20"}]"#), entity: "Item")
        var iterator = store.observe("Item", orderBy: [.ascending("price")], limit: 10).makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await store.populate(try A.json(#"[{"id": 3, "price": "10"}]"#), entity: "Item")
        let next = try #require(try await iterator.next())
        #expect(A.ids(next.records) == [1, 3, 2])
        #expect(next.changes?.insertions == [1])
    }

    // MARK: - Sub-entities and join tables

    /// Control: a Photo observation sees a change to its photos' many-to-many members (a join
    /// table's rows only).
    @Test func aJoinTableOnlyChangeModifiesTheSubentitysRecord() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}]}]"#), entity: "Media")
        var iterator = store.observe("Photo", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}, {"name": "b"}]}]"#), entity: "Media")
        let next = try #require(try await iterator.next())
        #expect(A.ids(next.records) == [1])
        #expect(next.changes?.modifications == [.init(old: 0, new: 0)])
        #expect(next.changes?.insertions == [] && next.changes?.deletions == [])
    }

    /// Observation.md: "A sub-entity's records are part of its parent's results", and a record
    /// whose many-to-many members change is modified. In an observation of Media, photo 1's
    /// tags change (join rows only), then photo 2 arrives; the one delivery that covers both
    /// commits must report photo 1 as modified and photo 2 as inserted.
    @Test func aSubentitysJoinTableChangeModifiesItsRecordInTheParentsObservation() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}]}]"#), entity: "Media")
        var iterator = store.observe("Media", orderBy: [.ascending("id")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(A.ids(initial.records) == [1])
        // Both commits happen before the next delivery is asked for: they are one pending change.
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}, {"name": "b"}]}]"#), entity: "Media")
        _ = try await store.populate(try A.json(#"[{"id": 2, "kind": "photo", "width": 5}]"#), entity: "Media")
        let next = try #require(try await iterator.next())
        #expect(A.ids(next.records) == [1, 2])
        let changes = try #require(next.changes)
        #expect(changes.insertions == [1], "\(changes)")
        #expect(changes.modifications == [.init(old: 0, new: 0)], "photo 1's tags changed: \(changes)")
        #expect(
            next.records[0].relatedRecords("tags", as: Record.self).compactMap { $0["name"] as String? }.sorted()
                == ["a", "b"])
    }

    // MARK: - Join tables, which SQLite's update hook does not report

    /// The other side of the many-to-many: a label whose photos change (join rows only) is
    /// modified, though a later commit that the observation hears of touches only labels.
    @Test func aJoinTableChangeModifiesTheOtherSide() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}]}, {"id": 2, "kind": "photo"}]"#),
            entity: "Media")
        var iterator = store.observe("Label", orderBy: [.ascending("name")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.records.map { $0["name"] as String? } == ["a"])
        _ = try await store.populate(
            try A.json(#"[{"id": 2, "kind": "photo", "tags": [{"name": "a"}]}]"#), entity: "Media")
        _ = try await store.populate(try A.json(#"[{"name": "b"}]"#), entity: "Label")
        let next = try #require(try await iterator.next())
        #expect(next.records.map { $0["name"] as String? } == ["a", "b"])
        #expect(next.changes?.insertions == [1])
        #expect(
            next.changes?.modifications == [.init(old: 0, new: 0)],
            "label a gained photo 2: \(String(describing: next.changes))")
    }

    /// A record deleted in SQL takes its join rows with it (`ON DELETE CASCADE`): the label on
    /// the other side is modified.
    @Test func aCascadeIntoAJoinTableModifiesTheOtherSide() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}]}]"#), entity: "Media")
        var iterator = store.observe("Label", orderBy: [.ascending("name")]).makeAsyncIterator()
        _ = try await iterator.next()
        try await store.write { connection in
            try connection.execute(#"DELETE FROM "Media" WHERE "id" = 1"#)
        }
        _ = try await store.populate(try A.json(#"[{"name": "b"}]"#), entity: "Label")
        let next = try #require(try await iterator.next())
        #expect(next.changes?.insertions == [1])
        #expect(
            next.changes?.modifications == [.init(old: 0, new: 0)],
            "label a lost photo 1: \(String(describing: next.changes))")
        #expect(next.records.first?.relatedRecords("photos", as: Record.self).isEmpty == true)
    }

    /// SQL that writes a join table itself, with a cached statement and without one.
    @Test func sqlWritingAJoinTableModifiesBothSides() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "photo", "tags": [{"name": "a"}, {"name": "b"}]}]"#), entity: "Media")
        var labels = store.observe("Label", orderBy: [.ascending("name")]).makeAsyncIterator()
        var photos = store.observe("Photo", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await labels.next()
        _ = try await photos.next()
        for (round, sql) in [
            #"DELETE FROM "_Label_photos" WHERE "owner" = (SELECT "_id" FROM "Label" WHERE "name" = 'a')"#,
            #"DELETE FROM "_Label_photos" WHERE "owner" = (SELECT "_id" FROM "Label" WHERE "name" = 'b')"#,
        ].enumerated() {
            try await store.write { connection in
                if round == 0 { try connection.execute(sql) } else { try connection.execute(sql, []) }
            }
            _ = try await store.populate(try A.json(#"[{"name": "c\#(round)"}]"#), entity: "Label")
            _ = try await store.populate(try A.json(#"[{"id": \#(10 + round), "kind": "photo"}]"#), entity: "Media")
            let label = try #require(try await labels.next())
            #expect(
                label.changes?.modifications == [.init(old: round, new: round)],
                "round \(round): \(String(describing: label.changes))")
            let photo = try #require(try await photos.next())
            #expect(
                photo.changes?.modifications == [.init(old: 0, new: 0)],
                "round \(round): \(String(describing: photo.changes))")
        }
    }

    /// A sub-entity switch in place (Media to Photo, same key): a modification in the parent's
    /// observation, an insertion in the sub-entity's.
    @Test func aSubentitySwitchIsAModificationInTheParentAndAnInsertionInTheChild() async throws {
        let (store, directory) = try A.makeStore(A.mediaSchemaJSON, file: "media.sqlite")
        _ = directory
        _ = try await store.populate(
            try A.json(#"[{"id": 1, "kind": "plain"}, {"id": 2, "kind": "photo"}]"#), entity: "Media")
        var media = store.observe("Media", orderBy: [.ascending("id")]).makeAsyncIterator()
        var photos = store.observe("Photo", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await media.next()
        let initialPhotos = try #require(try await photos.next())
        #expect(A.ids(initialPhotos.records) == [2])
        _ = try await store.populate(try A.json(#"[{"id": 1, "kind": "photo", "width": 3}]"#), entity: "Media")
        let nextMedia = try #require(try await media.next())
        #expect(A.ids(nextMedia.records) == [1, 2])
        #expect(nextMedia.changes?.modifications == [.init(old: 0, new: 0)])
        #expect(nextMedia.changes?.insertions == [] && nextMedia.changes?.deletions == [])
        #expect(nextMedia.records[0].entity.name == "Photo")
        let nextPhotos = try #require(try await photos.next())
        #expect(A.ids(nextPhotos.records) == [1, 2])
        #expect(nextPhotos.changes?.insertions == [0])
        #expect(nextPhotos.changes?.modifications == [])
    }

    // MARK: - Failed populations

    /// Requests.md / Population.md: a population that fails rolls back; nothing of it is
    /// delivered. The next delivery after a later population has only that population's change.
    @Test func aRolledBackPopulationDeliversNothing() async throws {
        let observed = try ObservedStore()
        try await observed.populate([ObservationSupport.post(1, rank: 1)])
        var iterator = observed.store.observe("Post", orderBy: [.ascending("rank")]).makeAsyncIterator()
        _ = try await iterator.next()

        var orphans = PopulationOptions()
        orphans.deleteOrphans = .all
        // Post 5 and a post without a key: fatal under orphan deletion, so nothing is written.
        let failed: Bool
        do {
            _ = try await observed.store.populate(
                try A.json(#"[{"id": 5, "title": "phantom", "rank": 0}, {"title": "no key", "rank": 2}]"#),
                entity: "Post", options: orphans)
            failed = false
        } catch {
            failed = true
        }
        #expect(failed)
        #expect(try observed.store.count("Post") == 1)
        try await observed.populate([ObservationSupport.post(6, rank: 6)])
        let next = try #require(try await iterator.next())
        #expect(ObservationSupport.ids(next.records) == [1, 6])
        #expect(next.changes?.insertions == [1])
        #expect(next.changes?.deletions == [] && next.changes?.modifications == [] && next.changes?.moves == [])
    }

    // MARK: - Records returned by requests

    /// Requests.md: `records` are "the top-level records, in response order, without repeats";
    /// Population.md decision 7: "Results list the record once, at its first position", and the
    /// later valid value wins.
    @Test func aRepeatedTopLevelRecordIsReturnedOnceAtItsFirstPositionWithTheLaterValue() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        _ = directory
        let server = CannedServer()
        store.register(server, forEntity: "Post")
        server.enqueue(
            try A.json(
                #"{"data": [{"id": 3, "text": "first"}, {"id": 1, "text": "one"}, {"id": 3, "text": "second"}, {"id": 2, "text": "two"}]}"#
            ))
        let result = try await store.startRequest(entity: "Post", urn: "posts")
        #expect(result.records.map { $0["id"] as Int64? } == [3, 1, 2])
        #expect(result.records.first?["text"] as String? == "second")
        #expect(result.changesByEntity["Post"]?.inserted == 3)
        #expect(try store.count("Post") == 3)
    }

    /// A record met nested before it is met at the top level is returned at its top-level
    /// position, and a record only nested is not returned at all.
    @Test func aRecordNestedBeforeItsTopLevelOccurrenceKeepsItsTopLevelPlace() async throws {
        let (store, directory) = try A.makeStore(A.treeSchemaJSON, file: "tree.sqlite")
        _ = directory
        let server = CannedServer()
        store.register(server, forEntity: "Node")
        server.enqueue(
            try A.json(
                #"{"data": [{"id": 2, "parent": {"id": 1, "name": "root"}}, {"id": 4, "children": [{"id": 5}]}, {"id": 1, "name": "one"}]}"#
            ))
        let result = try await store.startRequest(entity: "Node", urn: "nodes")
        #expect(result.records.map { $0["id"] as Int64? } == [2, 4, 1])
        #expect(result.records.last?["name"] as String? == "one")
        #expect(try store.count("Node") == 4)
    }

    /// Records returned after an update are the new snapshots, in the new response's order,
    /// with the counts of what changed.
    @Test func recordsAfterAnUpdateAreTheNewValuesInTheNewOrder() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        _ = directory
        let server = CannedServer()
        store.register(server, forEntity: "Post")
        server.enqueue(RequestSupport.postsBody([1, 2, 3], users: 1))
        server.enqueue(
            try A.json(#"{"data": [{"id": 3, "text": "post 3"}, {"id": 1, "text": "edited"}]}"#))
        _ = try await store.startRequest(entity: "Post", urn: "posts")
        let result = try await store.startRequest(entity: "Post", urn: "posts")
        #expect(result.records.map { $0["id"] as Int64? } == [3, 1])
        #expect(result.records.map { $0["text"] as String? } == ["post 3", "edited"])
        #expect(result.changesByEntity["Post"]?.updated == 1)
        #expect(result.changesByEntity["Post"]?.unchanged == 1)
        #expect(result.changesByEntity["Post"]?.inserted == 0)
        #expect(try store.count("Post") == 3)
    }

    /// Requests.md, Batches: "One failing does not stop the others", and a failed request leaves
    /// the store as it was. A server failure and a response without the key path fail alone;
    /// the other requests' records are kept, in their own response order.
    @Test func aBatchKeepsTheRequestsThatSucceededAndNothingOfThoseThatFailed() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        _ = directory
        let server = CannedServer()
        store.register(recordClass: FeedPost.self)
        store.register(server, forEntity: "Post")
        server.enqueue(RequestSupport.postsBody([2, 1]), for: "a")
        server.enqueue(WebRecordError(.serverError, "HTTP 500"), for: "b")
        server.enqueue(try A.json(#"{"error": {"message": "rate limited"}, "data_": [{"id": 9}]}"#), for: "c")
        server.enqueue(RequestSupport.postsBody([4, 3, 4]), for: "d")
        let results = await store.startBatch(
            [
                BatchRequest(entity: "Post", urn: "a"), BatchRequest(entity: "Post", urn: "b"),
                BatchRequest(entity: "Post", urn: "c"), BatchRequest(entity: "Post", urn: "d"),
            ], maximumConcurrentRequests: 2)
        #expect(results.count == 4)
        #expect((try? results[0].get().records.map { $0["id"] as Int64? }) == [2, 1])
        #expect((try? results[3].get().records.map { $0["id"] as Int64? }) == [4, 3])
        if case .failure(let error) = results[1] { #expect(error.code == .serverError) } else { Issue.record("b") }
        if case .failure(let error) = results[2] {
            #expect(error.code == .invalidResponseFormat)
        } else {
            Issue.record("c")
        }
        #expect(try store.count("Post") == 4)
        #expect(try store.fetchOne("Post", primaryKey: 9) == nil)
        #expect((try? results[3].get().changesByEntity["Post"]?.inserted) == 2)
    }

    /// A typed batch whose requests overlap: each result holds the snapshots its own
    /// population wrote, and the store holds the last.
    @Test func aTypedBatchReturnsEachRequestsOwnSnapshots() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        _ = directory
        let server = CannedServer()
        store.register(recordClass: FeedPost.self)
        store.register(server, for: FeedRecord.self)
        server.enqueue(try A.json(#"{"data": [{"id": 1, "text": "a"}]}"#), for: "first")
        server.enqueue(try A.json(#"{"data": [{"id": 1, "text": "b"}, {"id": 2, "text": "c"}]}"#), for: "second")
        let (first, second) = await store.startBatch(
            BatchRequest(FeedPost.self, urn: "first"), BatchRequest(FeedPost.self, urn: "second"),
            maximumConcurrentRequests: 1)
        #expect(try first.get().records.map(\.text) == ["a"])
        #expect(try second.get().records.map(\.text) == ["b", "c"])
        #expect(try second.get().changesByEntity["Post"]?.updated == 1)
        #expect(try store.fetchOne("Post", primaryKey: 1)?["text"] as String? == "b")
    }
}
