import Foundation
import Testing
import WebRecord

/// A record identified by its owner (its primary key is a to-one, as App.net's `Source` is
/// identified by its `post`) is deleted with its owner, whatever the owner's delete rule: left
/// behind, it would have no key that anything could find it by.
@Suite struct OwnerIdentifiedDeletionTests {
    static let schema = """
        {"entities": {
          "Post": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"source": {"destination": "Source", "inverse": "post"}}},
          "Source": {"primaryKey": "post", "attributes": {"name": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "source"}}}
        }}
        """

    static func post(_ id: Int) -> JSONValue {
        ["id": .integer(Int64(id)), "source": ["name": .string("client \(id)")]]
    }

    @Test func orphanDeletionTakesTheOwnedRecordsWithIt() throws {
        let store = try RecordStore(inMemory: Schema(json: Self.schema))
        _ = try store.populate([Self.post(1), Self.post(2), Self.post(3)], entity: "Post")
        #expect(try store.count("Source") == 3)

        var options = PopulationOptions()
        options.deleteOrphans = .all
        let result = try store.populate([Self.post(1)], entity: "Post", options: options)
        #expect(result.changesByEntity["Post"]?.deleted == 2)
        #expect(result.changesByEntity["Source"]?.deleted == 2, "the deleted posts' sources went with them")
        #expect(try store.count("Source") == 1)
        #expect(try store.count("Source", where: "post IS NULL") == 0, "no source is left without its key")
    }

    @Test func aDeleteThroughSQLStillOnlyClearsTheLink() throws {
        // The rule is the population's: SQLite's own foreign-key action (SET NULL) is unchanged
        // for SQL a caller runs, as Docs/StorageLayout.md says.
        let store = try RecordStore(inMemory: Schema(json: Self.schema))
        _ = try store.populate([Self.post(1)], entity: "Post")
        try store.write { try $0.execute(#"DELETE FROM "Post" WHERE "id" = 1"#) }
        #expect(try store.count("Source", where: "post IS NULL") == 1)
    }
}
