import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record identified by its owner (its primary key is a relationship, as App.net's `Source`
/// is identified by its `post`) has no key once that link is gone: nothing could find, update
/// or delete it again. So wherever a population would clear the link, it deletes the record
/// instead, as it does when the owner itself is deleted: the owner's to-one set to null, a
/// `replace` to-many that drops it, the owner switching to a sub-entity without the
/// relationship. Each case is checked over repeated imports, where keyless rows would pile up.
@Suite struct OwnerKeyedUnlinkTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Feed": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "stats": { "destination": "Stats", "toMany": true, "inverse": "feed" } }
            },
            "Stats": {
              "primaryKey": "feed",
              "attributes": { "hits": { "type": "integer" } },
              "relationships": { "feed": { "destination": "Feed", "inverse": "stats" } }
            },
            "Node": {
              "primaryKey": "id",
              "abstract": true,
              "subentities": { "key": "kind", "map": { "box": "Box", "dot": "Dot" } },
              "attributes": { "id": { "type": "integer" } }
            },
            "Box": { "parent": "Node", "relationships": { "label": { "destination": "Label", "inverse": "box" } } },
            "Dot": { "parent": "Node", "attributes": { "size": { "type": "double" } } },
            "Label": {
              "primaryKey": "box",
              "attributes": { "text": { "type": "string" } },
              "relationships": { "box": { "destination": "Box", "inverse": "label" } }
            }
          }
        }
        """

    static func store() throws -> RecordingStore {
        try RecordingStore(schema: Schema(json: schemaJSON, fileName: "OwnerKeyed.json"))
    }

    /// The rows of `table` whose `column` is null: records no key can reach.
    static func keyless(_ store: RecordStore, table: String, column: String) throws -> Int64 {
        let rows = try store.read { connection in
            try connection.rows("SELECT count(*) FROM \"\(table)\" WHERE \"\(column)\" IS NULL")
        }
        guard case .integer(let count)? = rows.first?.first else { return -1 }
        return count
    }

    @Test("A to-one set to null deletes the record it identifies; set again, it makes one record")
    func nullDeletesTheOwnedRecord() throws {
        let test = try makeDecisionStore()
        let withCounts = #"[{"id": "u1", "counts": {"followers": 10}}]"#
        let withoutCounts = #"[{"id": "u1", "counts": null}]"#
        _ = try test.store.populate(json(withCounts), entity: "User")
        for round in 1...3 {
            let cleared = try test.store.populate(json(withoutCounts), entity: "User")
            #expect(try test.store.count("Counts") == 0, "round \(round)")
            #expect(cleared.changesByEntity["Counts"]?.deleted == 1, "round \(round): \(cleared.changesByEntity)")
            let set = try test.store.populate(json(withCounts), entity: "User")
            #expect(set.changesByEntity["Counts"]?.inserted == 1, "round \(round): \(set.changesByEntity)")
            let counts = try test.store.fetch("Counts")
            #expect(counts.count == 1, "round \(round)")
            #expect(counts.first?.related("user")?.primaryKeyValue == "u1")
        }
        #expect(try Self.keyless(test.store, table: "Counts", column: "user") == 0)
    }

    @Test("Within one response, a later null for the owned record leaves none, import after import")
    func aLaterNullInTheSameResponseLeavesNoKeylessRecord() throws {
        let test = try makeDecisionStore()
        for round in 1...2 {
            let result = try test.store.populate(
                json(#"[{"id": "u1", "counts": {"followers": 1}}, {"id": "u1", "counts": null}]"#), entity: "User")
            #expect(try test.store.count("Counts") == 0, "round \(round): \(result.changesByEntity)")
            #expect(result.changesByEntity["Counts"]?.inserted ?? 0 == 0, "round \(round)")
        }
        let feeds = try Self.store()
        for round in 1...2 {
            _ = try feeds.store.populate(
                json(#"[{"id": 1, "stats": [{"hits": 1}]}, {"id": 1, "stats": []}]"#), entity: "Feed")
            #expect(try feeds.store.count("Stats") == 0, "round \(round)")
        }
        #expect(try Self.keyless(test.store, table: "Counts", column: "user") == 0)
        #expect(try Self.keyless(feeds.store, table: "Stats", column: "feed") == 0)
    }

    @Test("Two occurrences of one record, one through a to-one without its key: the later one's link wins")
    func theLaterOccurrenceOfASharedRowSetsItsLinks() throws {
        let test = try makeDecisionStore()
        _ = try test.store.populate(
            json(#"{"data": [{"id": 1, "title": "t", "user": {"id": "u1", "counts": {"followers": 1}}}]}"#),
            entity: "Post")
        // Post 1's user, without its key, is the user related there (u1), as post 2's is.
        let later = try test.store.populate(
            json(
                #"{"data": [{"id": 1, "title": "t", "user": {"counts": null}}, {"id": 2, "title": "t", "user": {"id": "u1", "counts": {"followers": 5}}}]}"#
            ), entity: "Post")
        #expect(later.changesByEntity["Counts"]?.deleted ?? 0 == 0, "\(later.changesByEntity)")
        let counts = try test.store.fetch("Counts")
        #expect(counts.map { $0["followers"] as Int? } == [5])
        // And the other way round: the later null wins.
        let earlier = try test.store.populate(
            json(
                #"{"data": [{"id": 2, "title": "t", "user": {"id": "u1", "counts": {"followers": 6}}}, {"id": 1, "title": "t", "user": {"counts": null}}]}"#
            ), entity: "Post")
        #expect(try test.store.count("Counts") == 0, "\(earlier.changesByEntity)")
    }

    @Test("A sub-entity identified by a relationship it declares goes when unlinked; its siblings stay")
    func aSubentityKeyedByItsOwnRelationship() throws {
        let schema = try Schema(
            json: """
                {"entities": {
                  "Owner": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                    "relationships": {"stat": {"destination": "Stat", "inverse": "owner"}}},
                  "Item": {"attributes": {"label": {"type": "string"}}},
                  "Stat": {"parent": "Item", "primaryKey": "owner", "attributes": {"n": {"type": "integer"}},
                    "relationships": {"owner": {"destination": "Owner", "inverse": "stat"}}},
                  "Note": {"parent": "Item", "attributes": {"text": {"type": "string"}}}}}
                """, fileName: "Sub.json")
        let store = try RecordStore(inMemory: schema)
        _ = try store.populate(json(#"[{"text": "kept"}]"#), entity: "Note")
        for round in 1...2 {
            _ = try store.populate(json(#"[{"id": 1, "stat": {"n": \#(round)}}]"#), entity: "Owner")
            #expect(try store.count("Stat") == 1, "round \(round)")
            let cleared = try store.populate(json(#"[{"id": 1, "stat": null}]"#), entity: "Owner")
            #expect(cleared.changesByEntity["Stat"]?.deleted == 1, "round \(round): \(cleared.changesByEntity)")
            #expect(try store.count("Stat") == 0 && store.count("Note") == 1, "round \(round)")
        }
    }

    @Test("Two occurrences share the owner's row, one giving the owned record, one null: never a keyless row")
    func sharedOwnerRowsNeverLeaveAKeylessRecord() throws {
        for response in [
            #"{"data": [{"id": 1, "title": "t", "user": {"counts": {"followers": 6}}}, {"id": 2, "title": "t", "user": {"id": "u1", "counts": null}}]}"#,
            #"{"data": [{"id": 2, "title": "t", "user": {"id": "u1", "counts": {"followers": 6}}}, {"id": 1, "title": "t", "user": {"counts": null}}]}"#,
        ] {
            let test = try makeDecisionStore()
            _ = try test.store.populate(
                json(#"{"data": [{"id": 1, "title": "t", "user": {"id": "u1"}}]}"#), entity: "Post")
            for _ in 1...2 {
                _ = try test.store.populate(json(response), entity: "Post")
                #expect(try Self.keyless(test.store, table: "Counts", column: "user") == 0, "\(response)")
                #expect(try test.store.count("Counts") == 0, "the later null wins: \(response)")
            }
        }
    }

    @Test("A later occurrence that does not give the relationship does not override an earlier null")
    func supersessionIsPerRelationship() throws {
        let test = try makeDecisionStore()
        _ = try test.store.populate(
            json(
                #"{"data": [{"id": 1, "title": "t", "user": {"id": "u1"}}, {"id": 2, "title": "t", "user": {"id": "u1"}}]}"#
            ),
            entity: "Post")
        _ = try test.store.populate(
            json(
                #"{"data": [{"id": 1, "title": "t", "user": {"id": "u1", "counts": {"followers": 5}}}, {"id": 2, "title": "t", "user": {"counts": null}}, {"id": 3, "title": "t", "user": {"id": "u1"}}]}"#
            ), entity: "Post")
        #expect(try test.store.count("Counts") == 0)
        #expect(try Self.keyless(test.store, table: "Counts", column: "user") == 0)
    }

    @Test(
        "An owned record the response names apart stays, linked, though its owner later in the response unlinks it"
    )
    func ownedRecordsTheResponseNamesApartStayLinked() throws {
        // The response contains the record (a top-level `Counts` naming its user), so it is the
        // server's: no link of the same response deletes it, or leaves it unstored, and it
        // keeps the link that is its key (Docs/Population.md, "What a response contained is
        // never deleted by its own links").
        for ownerStored in [false, true] {
            let test = try makeDecisionStore()
            if ownerStored { _ = try test.store.populate(json(#"[{"id": "u1"}]"#), entity: "User") }
            let result = try test.store.populate(
                json(#"[{"user": "u1", "followers": 2}, {"user": {"id": "u1", "counts": null}}]"#), entity: "Counts")
            let counts = try test.store.fetch("Counts")
            #expect(counts.map { $0["followers"] as Int? } == [2], "owner stored: \(ownerStored)")
            #expect(counts.first?.related("user")?.primaryKeyValue == "u1")
            #expect(result.changesByEntity["Counts"]?.deleted ?? 0 == 0)
            #expect(try Self.keyless(test.store, table: "Counts", column: "user") == 0)
        }
    }

    @Test("A null for an owned record that was never there changes nothing")
    func nullWithoutOwnedRecordDeletesNothing() throws {
        let test = try makeDecisionStore()
        _ = try test.store.populate(json(#"[{"id": "u1", "name": "a"}]"#), entity: "User")
        let result = try test.store.populate(json(#"[{"id": "u1", "counts": null}]"#), entity: "User")
        #expect(result.changesByEntity["Counts"]?.deleted ?? 0 == 0)
        #expect(result.changes.updated == 0 && result.changes.unchanged == 1, "\(result.changes)")
    }

    @Test("A replace to-many that drops a record it identifies deletes it, whatever the delete rule")
    func replaceDeletesTheDroppedOwnedRecord() throws {
        let test = try Self.store()
        for round in 1...3 {
            _ = try test.store.populate(json(#"[{"id": 1, "stats": [{"hits": \#(round)}]}]"#), entity: "Feed")
            #expect(try test.store.count("Stats") == 1, "round \(round)")
            let dropped = try test.store.populate(json(#"[{"id": 1, "stats": []}]"#), entity: "Feed")
            #expect(try test.store.count("Stats") == 0, "round \(round)")
            #expect(dropped.changesByEntity["Stats"]?.deleted == 1, "round \(round): \(dropped.changesByEntity)")
        }
        #expect(try Self.keyless(test.store, table: "Stats", column: "feed") == 0)
    }

    @Test("A switch to a sub-entity without the relationship deletes the record it identified")
    func subentitySwitchDeletesTheOwnedRecord() throws {
        let test = try Self.store()
        for round in 1...3 {
            _ = try test.store.populate(
                json(#"[{"id": 1, "kind": "box", "label": {"text": "r\#(round)"}}]"#), entity: "Node")
            #expect(try test.store.fetch("Label").map { $0["text"] as String? } == ["r\(round)"], "round \(round)")
            let switched = try test.store.populate(json(#"[{"id": 1, "kind": "dot", "size": 2}]"#), entity: "Node")
            #expect(try test.store.count("Label") == 0, "round \(round)")
            #expect(switched.changesByEntity["Label"]?.deleted == 1, "round \(round): \(switched.changesByEntity)")
        }
        #expect(try Self.keyless(test.store, table: "Label", column: "box") == 0)
    }

    @Test("Nested in the owner's to-many, the key's inverse, every element is the one record: the last wins")
    func nestedInTheInverseToManyIsTheOneRecord() throws {
        let test = try Self.store()
        let first = try test.store.populate(
            json(#"[{"id": 1, "stats": [{"hits": 1}, {"hits": 2}]}, {"id": 2, "stats": [{"hits": 5}]}]"#),
            entity: "Feed")
        #expect(!first.debugger.contains(.missingPrimaryKey), "\(first.debugger.errors)")
        #expect(first.changesByEntity["Stats"]?.inserted == 2, "\(first.changesByEntity)")
        let stats = try test.store.fetch("Stats", orderBy: [.ascending("hits")])
        #expect(stats.map { $0["hits"] as Int? } == [2, 5])
        #expect(stats.map { $0.related("feed")?["id"] as Int? } == [1, 2])
        // Found through the feed again: updated, never duplicated.
        let again = try test.store.populate(json(#"[{"id": 1, "stats": [{"hits": 3}]}]"#), entity: "Feed")
        #expect(again.changesByEntity["Stats"]?.updated == 1 && again.changes.inserted == 0, "\(again.changesByEntity)")
        #expect(try test.store.count("Stats") == 2)
        #expect(
            try test.store.fetchOne("Feed", primaryKey: 1)?.relatedRecords("stats", as: Record.self).map {
                $0["hits"] as Int?
            } == [3])
    }

    @Test("Foursquare: a venue's photo group, keyed by the venue, is stored with its items, once")
    func foursquarePhotoGroupIsStored() throws {
        let store = try RecordStore(
            inMemory: Schema(contentsOf: Reliability.packageRoot.appendingPathComponent("Schemas/Foursquare.json")))
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let data = try Data(contentsOf: fixtures.appendingPathComponent("mmrecord/foursquare-venue.json"))
        var options = PopulationOptions()
        options.keyPath = "response.venue"
        let first = try store.populate(JSONReader().read(data), entity: "Venue", options: options)
        #expect(!first.debugger.contains(.missingPrimaryKey), "\(first.debugger.errors)")
        let groups = try store.fetch("PhotoGroup")
        #expect(groups.count == 1)
        #expect(groups.first?["name"] as String? == "Venue photos")
        #expect(groups.first?.relatedRecords("items", as: Record.self).count == 6)
        let again = try store.populate(JSONReader().read(data), entity: "Venue", options: options)
        #expect(again.changes.inserted == 0 && again.changes.updated == 0, "\(again.changesByEntity)")
        #expect(try store.count("PhotoGroup") == 1)
    }

    @Test("App.net: a post whose source is set to null loses it, and gets one source back, never two")
    func appNetSourceCycles() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        let withSource = #"{"data": [{"id": "1", "text": "hi", "source": {"name": "Web", "link": "http://a"}}]}"#
        let withoutSource = #"{"data": [{"id": "1", "source": null}]}"#
        for _ in 1...3 {
            _ = try store.populate(json(withSource), entity: "Post")
            _ = try store.populate(json(withoutSource), entity: "Post")
        }
        #expect(try store.count("Source") == 0)
        _ = try store.populate(json(withSource), entity: "Post")
        let sources = try store.fetch("Source")
        #expect(sources.count == 1)
        #expect(sources.first?.related("post")?.primaryKeyValue == "1")
    }
}
