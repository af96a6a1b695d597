import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// A sub-entity of a keyless parent may declare its own primary key (RestKit's `Human`, whose
/// `Parent` is keyed by `parentID` and `Child` by `childID`): the key identifies the records of
/// that sub-entity and its descendants, in lookups, references, stubs, duplicates within a
/// response, orphan deletion and observation, and the store keeps it unique (DESIGN §3.3).
@Suite struct SubentityKeyTests {
    static let schemaJSON = subentityKeySchemaJSON
    static let family = subentityKeyFamilyJSON

    static func schema() throws -> Schema { try Schema(json: schemaJSON, fileName: "Family.json") }

    let directory: TemporaryDirectory
    let store: RecordStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(path: directory.path(), schema: Self.schema())
    }

    @Test func reimportsFindTheRecordsByTheSubentityKey() throws {
        let first = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        #expect(first.changes.inserted == 5, "\(first.changes)")
        #expect(try store.count("Parent") == 2)
        #expect(try store.count("Child") == 3)
        for _ in 0..<2 {
            let again = try store.populate(try JSONReader().read(Self.family), entity: "Human")
            #expect(again.changes.inserted == 0 && again.changes.updated == 0, "\(again.changes)")
            #expect(again.changes.unchanged == 5)
        }
        #expect(try store.count("Human") == 5)
        // Each child's father is the one record of its key; Grandparent 8 is a Parent too.
        let fathers = try store.fetch("Child", orderBy: [.ascending("childID")]).map {
            $0.related("father")?.primaryKeyValue
        }
        // Children "7", "c1" and "c2", in key order.
        #expect(fathers == [.integer(8), .integer(7), .integer(7)])
        #expect(try store.fetchOne("Parent", primaryKey: 8)?.entity.name == "Grandparent")
    }

    /// A key declared on a sub-entity of a keyless root, a hundred levels above the deepest
    /// entity: every level below it is identified by that one key, however deep.
    @Test func aKeyIdentifiesDescendantsAtAnyDepth() throws {
        var entities = [
            #""L0": {"abstract": true, "subentities": {"key": "kind", "map": {"one": "L1", "leaf": "L100"}}}"#,
            #""L1": {"parent": "L0", "primaryKey": "id", "attributes": {"id": {"type": "integer"}}}"#,
        ]
        for level in 2...100 { entities.append(#""L\#(level)": {"parent": "L\#(level - 1)"}"#) }
        let schema = try Schema(json: #"{"entities": {\#(entities.joined(separator: ", "))}}"#, fileName: "Deep.json")
        #expect(schema.keyEntity(of: try #require(schema.entity(named: "L100")))?.name == "L1")
        let deep = try RecordStore(path: directory.path("deep.sqlite"), schema: schema)
        _ = try deep.populate(try JSONReader().read(#"[{"kind": "one", "id": 1}]"#), entity: "L0")
        let switched = try deep.populate(try JSONReader().read(#"[{"kind": "leaf", "id": 1}]"#), entity: "L0")
        #expect(switched.changes.inserted == 0 && switched.changes.updated == 1, "\(switched.changes)")
        #expect(try deep.count("L0") == 1)
        #expect(try deep.fetchOne("L1", primaryKey: 1)?.entity.name == "L100")
    }

    @Test func siblingKeysWithTheSameTextAreTwoRecords() throws {
        _ = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        let parent = try #require(try store.fetchOne("Parent", primaryKey: 7))
        let child = try #require(try store.fetchOne("Child", primaryKey: "7"))
        #expect(parent.rowID != child.rowID)
        #expect(parent["name"] as String? == "Dad")
        #expect(child["name"] as String? == "Seven")
    }

    @Test func aReferenceInOneResponseAndTheRecordInTheNextAreOneRecord() throws {
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "child", "childID": "c9", "father": 42}]"#), entity: "Human")
        #expect(try store.count("Parent") == 1, "the reference made a stub")
        let result = try store.populate(
            try JSONReader().read(#"[{"kind": "parent", "parentID": "42", "name": "Late"}]"#), entity: "Human")
        #expect(result.changes.inserted == 0 && result.changes.updated == 1, "\(result.changes)")
        #expect(try store.count("Parent") == 1)
        let child = try #require(try store.fetchOne("Child", primaryKey: "c9"))
        #expect(child.related("father")?["name"] as String? == "Late")
    }

    @Test func aStubOfTheKeyedSubentityBecomesItsDescendant() throws {
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "child", "childID": "c1", "father": 5}]"#), entity: "Human")
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "grandparent", "parentID": 5, "title": "Dame"}]"#), entity: "Human")
        #expect(try store.count("Parent") == 1)
        let grandparent = try #require(try store.fetchOne("Parent", primaryKey: 5))
        #expect(grandparent.entity.name == "Grandparent")
        #expect(grandparent["title"] as String? == "Dame")
    }

    @Test func aDiscriminatorThatNamesTheParentMakesAStoredGrandparentAParent() throws {
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "grandparent", "parentID": 5, "title": "Dame"}]"#), entity: "Human")
        // A child's nested father without a kind says nothing: the grandparent stays.
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "child", "childID": "c1", "father": {"parentID": 5, "name": "Ma"}}]"#),
            entity: "Human")
        #expect(try store.fetchOne("Parent", primaryKey: 5)?.entity.name == "Grandparent")
        _ = try store.populate(try JSONReader().read(#"[{"kind": "parent", "parentID": 5}]"#), entity: "Human")
        let parent = try #require(try store.fetchOne("Parent", primaryKey: 5))
        #expect(parent.entity.name == "Parent")
        #expect(parent.storedValues["title"] == .null, "the grandparent's title was cleared")
        #expect(parent["name"] as String? == "Ma")
    }

    @Test func anotherEntityReferencesAKeyedSubentityByKey() throws {
        _ = try store.populate(try JSONReader().read(#"[{"id": 1, "label": "ball", "owner": "c1"}]"#), entity: "Toy")
        _ = try store.populate(try JSONReader().read(#"[{"id": 2, "owner": "c1"}]"#), entity: "Toy")
        _ = try store.populate(
            try JSONReader().read(#"[{"kind": "child", "childID": "c1", "name": "Ann"}]"#), entity: "Human")
        #expect(try store.count("Child") == 1)
        let child = try #require(try store.fetchOne("Child", primaryKey: "c1"))
        #expect(child["name"] as String? == "Ann")
        #expect(try store.count("Toy", where: #""owner" = ?"#, arguments: [child.rowID]) == 2)
    }

    @Test func theStoreKeepsASubentityKeyUnique() throws {
        _ = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        let indexes = try store.read { connection in
            try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '_pk_%' ORDER BY name")
        }
        #expect(indexes.map { $0.first } == [.text("_pk_Human_Child"), .text("_pk_Human_Parent"), .text("_pk_Toy")])
        #expect(throws: WebRecordError.self) {
            try store.write { connection in
                try connection.execute(#"INSERT INTO "Human" ("_entity", "parentID") VALUES ('Grandparent', 7)"#)
            }
        }
        // NULLs never collide: the rows of the other branch leave the key empty.
        #expect(try store.count("Human", where: #""parentID" IS NULL"#) == 3)
    }

    @Test func orphanDeletionCountsTheRecordsTheSubentityKeyNamed() throws {
        _ = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let result = try store.populate(
            try JSONReader().read(
                #"[{"kind": "child", "childID": "c1", "name": "Ann", "father": 7}, {"kind": "parent", "parentID": 7, "name": "Dad"}]"#
            ), entity: "Human", options: options)
        #expect(result.changes.inserted == 0, "\(result.changes)")
        #expect(result.changes.deleted == 3, "c2, 7 (the child) and Grandparent 8 went: \(result.changes)")
        #expect(
            try store.fetch("Human").compactMap(\.primaryKeyValue).sorted { $0.serialized() < $1.serialized() } == [
                .string("c1"), .integer(7),
            ])
    }

    /// SQLite gives the last row's `_id` again once it is deleted: a record of another key at
    /// that `_id` is another record, though the observed entity has no key of its own.
    @Test func observationTellsRecordsApartByTheSubentityKey() async throws {
        _ = try await store.populate(
            try JSONReader().read(#"[{"kind": "parent", "parentID": 1}, {"kind": "parent", "parentID": 2}]"#),
            entity: "Human")
        let reused = try #require(try store.fetchOne("Parent", primaryKey: 2)?.rowID)
        var iterator = store.observe("Human").makeAsyncIterator()
        _ = try await iterator.next()
        try await store.write { connection in
            try connection.execute(#"DELETE FROM "Human" WHERE "parentID" = 2"#)
            try connection.execute(
                #"INSERT INTO "Human" ("_id", "_entity", "parentID") VALUES (?, 'Parent', 3)"#, [.integer(reused)])
        }
        let next = try #require(try await iterator.next())
        #expect(next.records.map(\.primaryKeyValue) == [.integer(1), .integer(3)])
        let changes = try #require(next.changes)
        #expect(changes.deletions == [1] && changes.insertions == [1], "\(changes)")
        #expect(changes.modifications.isEmpty, "\(changes)")
    }

    // MARK: - Stores made before the key was kept unique

    /// Makes the store look like one written before sub-entity keys were kept unique: no
    /// index, no key in the layout record.
    static func dropSubentityKeys(_ store: RecordStore) throws {
        try store.write { connection in
            try connection.execute(#"DROP INDEX "_pk_Human_Parent""#)
            try connection.execute(#"DROP INDEX "_pk_Human_Child""#)
            try connection.execute(
                #"UPDATE "_webrecord_metadata" SET "value" = json_remove("value", '$.tables.Human.subentityKeys') WHERE "key" = 'layout'"#
            )
        }
    }

    @Test func anOlderStoreGetsTheUniqueIndexes() throws {
        _ = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        try Self.dropSubentityKeys(store)
        store.close()
        let reopened = try RecordStore(path: directory.path(), schema: Self.schema())
        defer { reopened.close() }
        let result = try reopened.populate(try JSONReader().read(Self.family), entity: "Human")
        #expect(result.changes.inserted == 0)
        let indexes = try reopened.read { connection in
            try connection.rows(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('_pk_Human_Parent', '_pk_Human_Child')")
        }
        #expect(indexes.first?.first == .integer(2))
    }

    @Test func anOlderStoreWithRepeatedKeysIsRefusedAndLeftAsItWas() throws {
        _ = try store.populate(try JSONReader().read(Self.family), entity: "Human")
        try Self.dropSubentityKeys(store)
        try store.write { connection in
            try connection.execute(#"INSERT INTO "Human" ("_entity", "parentID", "name") VALUES ('Parent', 7, 'Dad')"#)
        }
        store.close()
        let reopened = try RecordStore(path: directory.path(), schema: Self.schema())
        defer { reopened.close() }
        let before = try dumpContent(reopened)
        let error = #expect(throws: WebRecordError.self) {
            try reopened.populate(try JSONReader().read(Self.family), entity: "Human")
        }
        #expect(error?.code == .incompatibleStore)
        #expect(
            error?.message.contains("the stored records of Parent.parentID repeat a key") == true,
            "\(String(describing: error))")
        #expect(try dumpContent(reopened) == before)
    }
}
