import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Links onto a record through a relationship whose inverse a sub-entity declares (`Person.held`,
/// whose inverse is `Square.holder`), where the record ends as an entity without that inverse (a
/// `Tile`, a `Circle`, a plain `Shape`): nothing is linked there, whole as streamed, as a
/// sub-entity change clears the relationships the new entity lacks (DESIGN §3.13). Each kind of
/// link: a to-many kept on the members, a to-one kept in the linking record's row whose inverse
/// is a to-many, a one-to-one, and a many-to-many in a join table.
@Suite struct SubentityInverseLinkTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Shape": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square", "tile": "Tile" } },
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } }
                        },
                        "Circle": {
                          "parent": "Shape",
                          "relationships": { "wearer": { "destination": "Person", "inverse": "badge" } }
                        },
                        "Square": {
                          "parent": "Shape",
                          "relationships": {
                            "holder": { "destination": "Person", "inverse": "held" },
                            "pinners": { "destination": "Person", "toMany": true, "inverse": "pinned" }
                          }
                        },
                        "Tile": {
                          "parent": "Shape",
                          "relationships": { "likers": { "destination": "Person", "toMany": true, "inverse": "liked" } }
                        },
                        "Person": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": {
                            "held": { "destination": "Square", "toMany": true, "inverse": "holder" },
                            "pinned": { "destination": "Square", "inverse": "pinners" },
                            "badge": { "destination": "Circle", "inverse": "wearer" },
                            "liked": { "destination": "Tile", "toMany": true, "inverse": "likers" }
                          }
                        }
                      }
                    }
                    """, fileName: "SubentityInverseLinks.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let batchSizes = [1, 40, 1 << 20]

    static func outcome(of list: String, after earlier: String, batchBytes: Int?, reopens: Bool = false)
        async throws -> PopulatedStore
    {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: "Shape",
            batchBytes: batchBytes, reopens: reopens)
    }

    /// The rows that link record `id` of `Shape` to a person, once `list` is populated whole:
    /// its own foreign keys, the people's that name it, and the join rows that name it.
    static func links(of id: Int64, _ list: String, after earlier: String) async throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(earlier)}"#), entity: "Shape")
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(list)}"#), entity: "Shape")
        let rowID = try await store.read { connection in
            try connection.rows("SELECT _id FROM Shape WHERE id = ?", [.integer(id)]).first?.first
        }
        guard case .integer(let shape)? = rowID else { return [] }
        let layout = StorageLayout(schema: schema)
        var found: [String] = []
        for (name, storage) in [
            ("holder", layout.storage(of: "holder", in: "Square")),
            ("wearer", layout.storage(of: "wearer", in: "Circle")),
            ("pinned", layout.storage(of: "pinned", in: "Person")),
            ("liked", layout.storage(of: "liked", in: "Person")),
        ] {
            let sql: String
            switch storage {
            case .foreignKeyHere(let column, _)? where name == "holder" || name == "wearer":
                sql = "SELECT count(*) FROM Shape WHERE _id = \(shape) AND \"\(column)\" IS NOT NULL"
            case .foreignKeyHere(let column, _)?:
                sql = "SELECT count(*) FROM Person WHERE \"\(column)\" = \(shape)"
            case .foreignKeyThere(let table, let column, _)?:
                sql = "SELECT count(*) FROM \"\(table)\" WHERE \"\(column)\" = \(shape)"
            case .joinTable(let table, _, let otherColumn, _)?:
                sql = "SELECT count(*) FROM \"\(table)\" WHERE \"\(otherColumn)\" = \(shape)"
            case nil:
                continue
            }
            let count = try await store.read { try $0.rows(sql, []).first?.first }
            if count != .integer(0) { found.append(name) }
        }
        return found
    }

    static func difference(_ list: String, after earlier: String) async throws -> String? {
        let whole = try await outcome(of: list, after: earlier, batchBytes: nil)
        for batchBytes in batchSizes {
            var streamed = try await outcome(of: list, after: earlier, batchBytes: batchBytes)
            if let failure = streamed.failure, AdversarialHierarchyStreamTests.isRefusal(failure) {
                streamed = try await outcome(of: list, after: earlier, batchBytes: batchBytes, reopens: true)
            }
            if streamed != whole {
                return "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)"
            }
        }
        return nil
    }

    @Test(
        "a link onto a record that ends as an entity without the inverse links nothing, whole as streamed",
        arguments: [
            // A to-many kept on the members (`held`), the record new, then stored before.
            ("[]", #"[{"id": 2, "kind": "square", "holder": {"id": 7, "held": [1, 2]}}, {"id": 1, "kind": "tile"}]"#),
            (
                #"[{"id": 1, "kind": "square", "holder": {"id": 9}}]"#,
                #"[{"id": 2, "kind": "square", "holder": {"id": 7, "held": [2, 1]}}, {"id": 1, "kind": "circle"}]"#
            ),
            // The entity first, then the list.
            ("[]", #"[{"id": 1, "kind": "tile"}, {"id": 2, "kind": "square", "holder": {"id": 7, "held": [1, 2]}}]"#),
            // A plain `Shape` stored, named by the list, then given as a circle.
            (
                #"[{"id": 1}]"#,
                #"[{"id": 2, "kind": "square", "holder": {"id": 7, "held": [1]}}, {"id": 1, "kind": "circle"}]"#
            ),
            // A to-one kept in the person's row whose inverse is a to-many (`pinned`).
            ("[]", #"[{"id": 2, "kind": "square", "pinners": [{"id": 7, "pinned": 1}]}, {"id": 1, "kind": "tile"}]"#),
            (
                #"[{"id": 1, "kind": "square", "pinners": [{"id": 7}]}]"#,
                #"[{"id": 2, "kind": "tile", "likers": [{"id": 7, "pinned": 1}]}, {"id": 1, "kind": "circle"}]"#
            ),
            // A one-to-one (`badge`, inverse `wearer`).
            ("[]", #"[{"id": 2, "kind": "circle", "wearer": {"id": 7, "badge": 1}}, {"id": 1, "kind": "square"}]"#),
            (
                #"[{"id": 1, "kind": "circle", "wearer": {"id": 8}}]"#,
                #"[{"id": 2, "kind": "circle", "wearer": {"id": 7, "badge": 1}}, {"id": 1, "kind": "tile"}]"#
            ),
            // A many-to-many in a join table (`liked`, inverse `likers`).
            (
                "[]",
                #"[{"id": 2, "kind": "tile", "likers": [{"id": 7, "liked": [1, 2]}]}, {"id": 1, "kind": "square"}]"#
            ),
            (
                #"[{"id": 1, "kind": "tile", "likers": [{"id": 8}]}]"#,
                #"[{"id": 2, "kind": "tile", "likers": [{"id": 7, "liked": [2, 1]}]}, {"id": 1, "kind": "circle"}]"#
            ),
        ])
    func linkOntoARecordWithoutTheInverse(earlier: String, list: String) async throws {
        let links = try await Self.links(of: 1, list, after: earlier)
        #expect(links.isEmpty, "record 1 is still linked through \(links)")
        if let difference = try await Self.difference(list, after: earlier) {
            Issue.record("\(difference)\nearlier: \(earlier)\nresponse: \(list)")
        }
    }

    /// The same links onto a record whose final entity has the inverse are kept, whole as
    /// streamed (a stream that cannot give them back reads the response again).
    @Test(
        "a link onto a record that ends as an entity with the inverse is kept",
        arguments: [
            (
                "[]",
                #"[{"id": 2, "kind": "square", "holder": {"id": 7, "held": [1, 2]}}, {"id": 1, "kind": "tile"}, {"id": 1, "kind": "square"}]"#,
                "holder"
            ),
            (
                "[]", #"[{"id": 2, "kind": "circle", "wearer": {"id": 7, "badge": 1}}, {"id": 1, "kind": "circle"}]"#,
                "wearer"
            ),
            (
                "[]",
                #"[{"id": 2, "kind": "tile", "likers": [{"id": 7, "liked": [1]}]}, {"id": 1, "kind": "square"}, {"id": 1, "kind": "tile"}]"#,
                "liked"
            ),
        ])
    func linkOntoARecordWithTheInverse(earlier: String, list: String, link: String) async throws {
        let links = try await Self.links(of: 1, list, after: earlier)
        #expect(links == [link])
        if let difference = try await Self.difference(list, after: earlier) {
            Issue.record("\(difference)\nearlier: \(earlier)\nresponse: \(list)")
        }
    }
}
