import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Streamed population of records in hierarchies (Docs/Population.md, "Large responses: streamed
/// population"): whatever the batch size, a stream read once must leave the store that the whole
/// response leaves, row for row (`_id`s, counts, records and failure included), or refuse with
/// the documented message, write nothing, and equal the whole response when read again.
///
/// The schema has a three-level hierarchy (`Shape`, `Circle`, `Disc`) with two siblings
/// (`Square`, `Tile`) whose attributes share the key path `size` with different types (and
/// `box.w`, one inside another's `box`), crossing candidate key path lists (`tone`, `look.tone`),
/// an entity without a hierarchy whose own attributes share one (`Gauge`), a non-optional
/// attribute with a default
/// (`Disc.thickness`) and one without (`Tile.grout`), relationships only a sub-entity has, and an
/// abstract hierarchy (`Media`) whose sub-entities share the key path `len`.
@Suite struct AdversarialHierarchyStreamTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Shape": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "subentities": {
                "key": "kind", "map": { "circle": "Circle", "square": "Square", "disc": "Disc", "tile": "Tile" }
              },
              "attributes": {
                "id": { "type": "integer" },
                "name": { "type": "string" },
                "color": { "type": "string", "default": "grey" }
              },
              "relationships": { "owner": { "destination": "Person", "inverse": "shapes" } }
            },
            "Circle": {
              "parent": "Shape",
              "attributes": {
                "radius": { "type": "double", "key": "size" },
                "filled": { "type": "boolean", "optional": false, "default": false },
                "tone": { "type": "string", "key": ["tone", "look.tone"] },
                "weight": { "type": "double", "key": "box.w" }
              }
            },
            "Disc": {
              "parent": "Circle",
              "attributes": {
                "thickness": { "type": "integer", "optional": false, "default": 2, "key": ["t", "dims.t"] }
              },
              "relationships": { "maker": { "destination": "Person", "inverse": "made" } }
            },
            "Square": {
              "parent": "Shape",
              "attributes": {
                "side": { "type": "integer", "key": "size", "default": 9 },
                "shade": { "type": "string", "key": ["look.tone", "tone"] },
                "mass": { "type": "integer", "key": "box.w" },
                "depth": { "type": "integer", "key": "box.d" }
              },
              "relationships": { "holder": { "destination": "Person", "inverse": "held" } }
            },
            "Tile": {
              "parent": "Shape",
              "attributes": {
                "label": { "type": "string", "key": "size" },
                "grout": { "type": "string", "optional": false },
                "box": { "type": "json", "key": "box" }
              }
            },
            "Person": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "shapes": { "destination": "Shape", "toMany": true, "inverse": "owner" },
                "held": { "destination": "Square", "toMany": true, "inverse": "holder" },
                "made": { "destination": "Disc", "toMany": true, "inverse": "maker" },
                "favorite": { "destination": "Disc" }
              }
            },
            "Media": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "abstract": true,
              "subentities": { "key": "kind", "map": { "song": "Song", "clip": "Clip" } },
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } }
            },
            "Song": {
              "parent": "Media",
              "attributes": { "length": { "type": "integer", "key": "len", "optional": false, "default": 60 } }
            },
            "Clip": { "parent": "Media", "attributes": { "fps": { "type": "integer", "key": "len" } } },
            "Gauge": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": {
                "id": { "type": "integer" },
                "code": { "type": "string", "key": "id" },
                "level": { "type": "integer", "key": "v" },
                "reading": { "type": "string", "key": "v" }
              }
            }
          }
        }
        """

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "AdversarialHierarchy.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let batchSizes = [1, 40, 200, 1 << 20]

    /// Whether `failure` is a stream's documented refusal.
    static func isRefusal(_ failure: String) -> Bool {
        failure.contains("occurs again later in the response") || failure.contains("Populate the response whole")
    }

    /// The store without the layout's metadata, for messages.
    static func shown(_ store: PopulatedStore) -> String {
        (store.failure.map { "failure: \($0)\n" } ?? "") + "counts: \(store.counts)\nrecords: \(store.recordIDs)\n"
            + store.rows.filter { !$0.hasPrefix("_webrecord_metadata") }.joined(separator: "\n")
    }

    /// `list` populated as `entity` records into a store that holds `earlier`: whole
    /// (`batchBytes` nil), or streamed in batches of `batchBytes` bytes from a reader opened
    /// once, unless `reopens`.
    static func outcome(
        of list: String, after earlier: String, entity: String, batchBytes: Int?, reopens: Bool = false
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: entity,
            batchBytes: batchBytes, reopens: reopens)
    }

    /// The first difference between the whole response and a stream of it, or nil: a stream
    /// equals the whole response, or refuses, writes nothing and equals it when read again.
    static func difference(_ list: String, after earlier: String = "[]", entity: String = "Shape") async throws
        -> String?
    {
        let whole = try await outcome(of: list, after: earlier, entity: entity, batchBytes: nil)
        let before = try await outcome(of: "[]", after: earlier, entity: entity, batchBytes: nil)
        for batchBytes in batchSizes {
            let streamed = try await outcome(of: list, after: earlier, entity: entity, batchBytes: batchBytes)
            if let failure = streamed.failure, isRefusal(failure), whole.failure.map(isRefusal) != true {
                if streamed.rows != before.rows {
                    return "batches of \(batchBytes) bytes: a refused stream wrote\n\(shown(streamed))"
                }
                let again = try await outcome(
                    of: list, after: earlier, entity: entity, batchBytes: batchBytes, reopens: true)
                if again != whole {
                    return "batches of \(batchBytes) bytes, read again:\n\(shown(again))\nwhole:\n\(shown(whole))"
                }
                continue
            }
            if streamed != whole {
                return "batches of \(batchBytes) bytes:\n\(shown(streamed))\nwhole:\n\(shown(whole))"
            }
        }
        return nil
    }

    static func expectEqualOrRefused(
        _ list: String, after earlier: String = "[]", entity: String = "Shape",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        if let difference = try await difference(list, after: earlier, entity: entity) {
            Issue.record("\(difference)\nearlier: \(earlier)\nresponse: \(list)", sourceLocation: sourceLocation)
        }
    }

    /// The named columns of record `id` once `list` is populated whole into a store that holds
    /// `earlier`, as text (`'Circle'`, `NULL`, `2`).
    static func stored(
        _ list: String, after earlier: String = "[]", entity: String = "Shape", table: String = "Shape",
        id: Int64 = 1, columns: [String]
    ) async throws -> [String: String] {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(earlier)}"#), entity: entity)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(list)}"#), entity: entity)
        let names = ["_entity"] + columns
        let row = try await store.read { connection in
            try connection.rows(
                "SELECT \(names.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"\(table)\" WHERE id = ?",
                [.integer(id)]
            ).first
        }
        guard let row else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(names, row.map(\.description)))
    }

    // MARK: - Documented values, whole and streamed

    /// Decision 7: "a later value the attribute would refuse ... never replaces a valid earlier
    /// one", for "the attributes of every entity of the record's hierarchy"; "the later valid
    /// value wins". Attributes that read one key path (`size`: a circle's radius, a square's side,
    /// a tile's label; `box.w`), or one inside the other (`box` and `box.d`), each keep the latest
    /// value they accept, whole as streamed, whatever entity the occurrences name.
    @Test(
        "a key path two attributes read keeps each one's valid value",
        arguments: [
            // A circle's radius 3 then 1.5: the later valid value.
            (
                #"[{"id": 1, "kind": "circle", "size": 3}, {"id": 1, "kind": "circle", "size": 1.5}]"#, "Shape",
                "radius", "1.5"
            ),
            (#"[{"id": 2, "size": 3}, {"id": 2, "kind": "disc", "size": 1.5}]"#, "Shape", "radius", "1.5"),
            // A null the radius takes, then 1.5.
            (#"[{"id": 1, "size": null}, {"id": 1, "kind": "disc", "size": 1.5}]"#, "Shape", "radius", "1.5"),
            // The radius keeps 1.5 where the record stays a circle.
            (
                #"[{"id": 1, "kind": "circle", "size": 1.5}, {"id": 1, "size": "big"}, {"id": 1, "name": "n"}]"#,
                "Shape", "radius", "1.5"
            ),
            // A square's side 4, then a circle's radius 2.5 (which an integer refuses), then a
            // square again: the side stays 4.
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "4"
            ),
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 2}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 3}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "4"
            ),
            // The same with no kind stated in between, and repeated as is.
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "size": 2.5}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "4"
            ),
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "4"
            ),
            // Given as is after the circle, the square's 4 is the circle's radius too.
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle"}]"#,
                "Shape", "radius", "4.0"
            ),
            // "big", which the radius refuses, is the later valid value of the tile's label.
            (
                #"[{"id": 1, "kind": "circle", "size": 1.5}, {"id": 1, "size": "big"}, {"id": 1, "kind": "tile", "grout": "g"}]"#,
                "Shape", "label", "'big'"
            ),
            // Three entities read `size`: each keeps the latest value it accepts.
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "tile", "grout": "g", "size": "big"}, {"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "4"
            ),
            (
                #"[{"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "tile", "grout": "g", "size": "big"}, {"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle"}]"#,
                "Shape", "radius", "4.0"
            ),
            // The circle's null is the optional label's latest valid value.
            (
                #"[{"id": 1, "kind": "tile", "grout": "g", "size": "big"}, {"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle", "size": null}, {"id": 1, "kind": "tile"}]"#,
                "Shape", "label", "NULL"
            ),
            // A null the optional side takes: it wins as a later valid value.
            (
                #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "circle", "size": null}, {"id": 1, "kind": "square"}]"#,
                "Shape", "side", "NULL"
            ),
            // A clip's null fps, which the song's non-optional length refuses: the song keeps 200.
            (
                #"[{"id": 1, "kind": "song", "len": 200}, {"id": 1, "kind": "clip", "len": null}, {"id": 1, "kind": "song"}]"#,
                "Media", "length", "200"
            ),
            // A nested key path two entities read.
            (
                #"[{"id": 1, "kind": "square", "box": {"w": 4}}, {"id": 1, "kind": "circle", "box": {"w": 2.5}}, {"id": 1, "kind": "square"}]"#,
                "Shape", "mass", "4"
            ),
            // A key path inside another's: the tile's `box` is the latest object, while the
            // square's `box.d` keeps 4 over the "x" it refuses.
            (
                #"[{"id": 1, "kind": "square", "box": {"d": 4}}, {"id": 1, "kind": "tile", "grout": "g", "box": {"d": "x"}}, {"id": 1, "kind": "square"}, {"id": 1, "kind": "tile"}]"#,
                "Shape", "box", #"'{"d":"x"}'"#
            ),
            (
                #"[{"id": 1, "kind": "square", "box": {"d": 4}}, {"id": 1, "kind": "tile", "grout": "g", "box": {"d": "x"}}, {"id": 1, "kind": "square"}]"#,
                "Shape", "depth", "4"
            ),
            // Two attributes of one entity read `v`: each keeps what it accepts; the key is
            // read as ever.
            (#"[{"id": 1, "v": 5}, {"id": 1, "v": "x"}]"#, "Gauge", "level", "5"),
            (#"[{"id": 1, "v": 5}, {"id": 1, "v": "x"}]"#, "Gauge", "reading", "'x'"),
            (#"[{"id": 1, "v": 5}, {"id": "1", "v": "x"}, {"id": 1, "v": 5}]"#, "Gauge", "code", "'1'"),
            (#"[{"id": 1, "v": "x"}, {"id": 1, "v": 5}, {"id": 1, "v": "y"}]"#, "Gauge", "level", "5"),
        ])
    func sharedKeyPathKeepsEachValidValue(list: String, entity: String, column: String, value: String) async throws {
        let id: Int64 = list.hasPrefix(#"[{"id": 2"#) ? 2 : 1
        let whole = try await Self.stored(list, entity: entity, table: entity, id: id, columns: [column])
        #expect(whole[column] == value, "\(whole)")
        try await Self.expectEqualOrRefused(list, entity: entity)
    }

    /// A stored record of a sub-entity given without a discriminator: each of its attributes
    /// takes the latest value it accepts of those its occurrences give at their shared key path.
    @Test(
        "a key path two attributes read, on a stored record given without its entity",
        arguments: [
            (
                #"[{"id": 1, "kind": "square", "size": 4}]"#, #"[{"id": 1, "size": 3}, {"id": 1, "size": 2.5}]"#,
                "side", "3"
            ),
            (
                #"[{"id": 1, "kind": "circle", "size": 4}]"#, #"[{"id": 1, "size": 3}, {"id": 1, "size": "x"}]"#,
                "radius", "3.0"
            ),
            (
                #"[{"id": 1, "kind": "square", "box": {"w": 1}}]"#,
                #"[{"id": 1, "box": {"w": 3}}, {"id": 1, "box": {"w": 2.5}}]"#,
                "mass", "3"
            ),
        ])
    func sharedKeyPathOfAStoredRecord(earlier: String, list: String, column: String, value: String) async throws {
        let whole = try await Self.stored(list, after: earlier, columns: [column])
        #expect(whole[column] == value, "\(whole)")
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    /// A record switched A → B → A keeps what A was given, as one batch does; a refused value in
    /// between does not replace it (decision 7, "A sub-entity that changes between batches:
    /// attributes kept").
    @Test(
        "a record switched and switched back keeps its values",
        arguments: [
            (
                #"[{"id": 1, "kind": "disc", "t": 7}, {"id": 1, "kind": "square", "t": "x"}, {"id": 1, "kind": "disc"}]"#,
                "thickness", "7"
            ),
            (
                #"[{"id": 1, "kind": "disc", "t": 7}, {"id": 1, "kind": "square", "t": null}, {"id": 1, "kind": "disc"}]"#,
                "thickness", "7"
            ),
            (
                #"[{"id": 1, "kind": "square", "t": 5}, {"id": 1, "t": "x"}, {"id": 1, "kind": "disc"}]"#,
                "thickness", "5"
            ),
            (
                #"[{"id": 1, "kind": "square", "dims": {"t": 5}}, {"id": 1, "t": "x"}, {"id": 1, "kind": "disc"}]"#,
                "thickness", "5"
            ),
            (
                #"[{"id": 1, "kind": "disc", "t": 3}, {"id": 1, "kind": "blob"}, {"id": 1, "kind": "disc"}]"#,
                "thickness", "3"
            ),
            (
                #"[{"id": 1, "kind": "circle", "grout": "g"}, {"id": 1, "grout": null}, {"id": 1, "kind": "tile"}]"#,
                "grout", "'g'"
            ),
            (
                #"[{"id": 1, "kind": "circle", "grout": "g"}, {"id": 2}, {"id": 1, "grout": 7}, {"id": 1, "kind": "tile"}]"#,
                "grout", "'7'"
            ),
            (
                #"[{"id": 1, "kind": "square", "look": {"tone": "blue"}}, {"id": 1, "tone": "red"}, {"id": 1, "kind": "circle"}]"#,
                "tone", "'red'"
            ),
            (
                #"[{"id": 1, "kind": "circle", "tone": "red", "look": {"tone": "blue"}}, {"id": 1, "kind": "square"}]"#,
                "shade", "'blue'"
            ),
        ])
    func switchedBackKeepsValues(list: String, column: String, value: String) async throws {
        let whole = try await Self.stored(list, columns: [column])
        #expect(whole[column] == value, "\(whole)")
        try await Self.expectEqualOrRefused(list)
    }

    /// "A record an earlier batch of the population inserted with data, that a later batch makes
    /// another sub-entity: it gets the defaults of the attributes the new entity has and the
    /// earlier one had not", also two levels down, and where the value given is refused.
    @Test(
        "a record made a deeper sub-entity later gets its defaults",
        arguments: [
            (#"[{"id": 1}, {"id": 1, "kind": "disc"}]"#, "2", "0"),
            (#"[{"id": 1, "kind": "circle", "filled": true}, {"id": 2}, {"id": 1, "kind": "disc"}]"#, "2", "1"),
            (#"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "disc", "t": "x"}]"#, "2", "0"),
            (#"[{"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "disc", "t": null}]"#, "2", "0"),
            (#"[{"id": 1, "kind": "square"}, {"id": 1, "kind": "disc", "t": "x", "dims": {"t": 5}}]"#, "2", "0"),
            (#"[{"id": 1, "kind": "blob"}, {"id": 1, "filled": "no"}, {"id": 1, "kind": "disc"}]"#, "2", "0"),
        ])
    func deeperSubentityDefaults(list: String, thickness: String, filled: String) async throws {
        let whole = try await Self.stored(list, columns: ["thickness", "filled", "color"])
        #expect(
            whole == ["_entity": "'Disc'", "thickness": thickness, "filled": filled, "color": "'grey'"], "\(whole)")
        try await Self.expectEqualOrRefused(list)
    }

    /// Stubs named by key, as the root (`Person.shapes`) or as a sub-entity (`Person.favorite`,
    /// whose destination is `Disc`), given data later: defaults where the data lacks the value or
    /// gives one refused ("A stub given its data later: defaults").
    @Test(
        "a stub given its data later gets the defaults",
        arguments: [
            #"[{"id": 2, "kind": "square", "holder": {"id": 7, "favorite": 1}}, {"id": 1, "kind": "disc"}]"#,
            #"[{"id": 2, "kind": "square", "holder": {"id": 7, "favorite": 1}}, {"id": 1, "kind": "disc", "t": "x"}]"#,
            #"[{"id": 2, "owner": {"id": 7, "shapes": [1, 2]}}, {"id": 1, "kind": "disc", "t": "x"}]"#,
            #"[{"id": 2, "owner": {"id": 7, "shapes": [1, 2]}}, {"id": 1, "kind": "disc", "filled": null}]"#,
            #"[{"id": 2, "owner": {"id": 7, "made": [1]}}, {"id": 1, "kind": "disc", "dims": {"t": "x"}}]"#,
        ])
    func stubDefaults(list: String) async throws {
        let whole = try await Self.stored(list, columns: ["thickness", "filled", "color"])
        #expect(whole == ["_entity": "'Disc'", "thickness": "2", "filled": "0", "color": "'grey'"], "\(whole)")
        try await Self.expectEqualOrRefused(list)
    }

    /// A stub made through a relationship whose destination is `Disc`, whose data comes as a
    /// top-level `Shape` that states no kind: whole and streamed, the record stays the `Disc`
    /// the reference named ("a missing or `null` discriminator keeps the stored sub-entity"; "a
    /// more general one that no discriminator states keeps the earlier").
    @Test(
        "a stub of a sub-entity given its data as the root",
        arguments: [
            #"[{"id": 2, "kind": "square", "holder": {"id": 7, "favorite": 1}}, {"id": 1}]"#,
            #"[{"id": 2, "kind": "square", "holder": {"id": 7, "favorite": 1}}, {"id": 1, "t": "x"}]"#,
            #"[{"id": 2, "owner": {"id": 7, "made": [1]}}, {"id": 1, "dims": {"t": "x"}}]"#,
            #"[{"id": 1, "owner": {"id": 7, "made": [3, 2]}}, {"id": 3}]"#,
        ])
    func stubOfASubentityGivenItsDataAsTheRoot(list: String) async throws {
        let id: Int64 = list.hasSuffix(#"{"id": 3}]"#) ? 3 : 1
        let whole = try await Self.stored(list, entity: "Shape", table: "Shape", id: id, columns: [])
        #expect(whole["_entity"] == "'Disc'", "\(whole)")
        try await Self.expectEqualOrRefused(list)
    }

    /// A record that a list whose destination is `Square` (`Person.held`) names, and that the
    /// response makes another sub-entity: the square's `holder` is not kept in the row of a
    /// `Tile`, a `Circle` or a plain `Shape`, which has no such relationship, whole as streamed,
    /// as any sub-entity change clears it (decision 13, "its card attributes and relationships
    /// cleared"). `SubentityInverseLinkTests` checks the other kinds of link.
    @Test(
        "a record a list to a sub-entity names, made another sub-entity",
        arguments: [
            ("[]", #"[{"id": 2, "owner": {"id": 7, "held": [1]}}, {"id": 1, "kind": "tile", "grout": "g"}]"#),
            (
                "[]",
                #"[{"id": 1, "kind": "square", "holder": {"id": 7, "held": [1, 2]}}, {"id": 2, "kind": "circle"}, {"id": 1, "kind": "circle"}, {"id": 2, "kind": "square"}]"#
            ),
            // The entity first, then the list.
            ("[]", #"[{"id": 1, "kind": "circle"}, {"id": 2, "owner": {"id": 7, "held": [2, 1]}}]"#),
            // Stored as a square with a holder before the population.
            (
                #"[{"id": 1, "kind": "square", "holder": {"id": 9}}]"#,
                #"[{"id": 2, "owner": {"id": 7, "held": [1]}}, {"id": 1, "kind": "tile", "grout": "g"}]"#
            ),
            // Stored as a plain shape, then given as a circle.
            (#"[{"id": 1}]"#, #"[{"id": 2, "owner": {"id": 7, "held": [1]}}, {"id": 1, "kind": "circle"}]"#),
            // Given as a plain shape only.
            ("[]", #"[{"id": 1}, {"id": 2, "owner": {"id": 7, "held": [1]}}]"#),
        ])
    func listToASubentityNamesARecordMadeAnother(earlier: String, list: String) async throws {
        let whole = try await Self.stored(list, after: earlier, columns: ["holder"])
        #expect(whole["holder"] == "NULL", "\(whole)")
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    /// The same list onto a record that ends as a `Square` links it, whole as streamed (a stream
    /// whose earlier batch made it another entity reads the response again, or gives the link
    /// back).
    @Test(
        "a record a list to a sub-entity names, made that sub-entity again",
        arguments: [
            #"[{"id": 2, "owner": {"id": 7, "held": [1]}}, {"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "square"}]"#,
            #"[{"id": 2, "owner": {"id": 7, "held": [1]}}, {"id": 1, "kind": "circle"}, {"id": 3}, {"id": 1, "kind": "square"}]"#,
        ])
    func listToASubentityNamesARecordMadeItAgain(list: String) async throws {
        let whole = try await Self.stored(list, columns: ["holder"])
        #expect(whole["_entity"] == "'Square'" && whole["holder"] != "NULL", "\(whole)")
        try await Self.expectEqualOrRefused(list)
    }

    /// The abstract hierarchy: `Song.length` (non-optional, default 60) and `Clip.fps` read `len`.
    @Test(
        "an abstract hierarchy whose sub-entities read one key path",
        arguments: [
            (#"[{"id": 1, "kind": "clip", "len": 24}, {"id": 1, "kind": "song"}]"#, "24"),
            (#"[{"id": 1, "kind": "clip", "len": 24}, {"id": 2, "kind": "song"}, {"id": 1, "kind": "song"}]"#, "24"),
            (#"[{"id": 1, "kind": "song"}, {"id": 1, "kind": "clip", "len": "x"}, {"id": 1, "kind": "song"}]"#, "60"),
            (#"[{"id": 1, "kind": "clip"}, {"id": 2, "kind": "song"}, {"id": 1, "kind": "song", "len": "x"}]"#, "60"),
        ])
    func abstractHierarchy(list: String, length: String) async throws {
        let whole = try await Self.stored(list, entity: "Media", table: "Media", columns: ["length"])
        #expect(whole == ["_entity": "'Song'", "length": length], "\(whole)")
        try await Self.expectEqualOrRefused(list, entity: "Media")
    }

    /// A reference by key through `Person.favorite` (destination `Disc`) to a record that the
    /// response gave earlier as another entity, or without a discriminator. Decision 13: "A
    /// reference by key to a stored record of another branch ... links nothing"; a missing
    /// discriminator keeps the stored sub-entity. Each reference is judged once its record is
    /// resolved, against the entity the record has when the reference is given, whole and
    /// streamed alike: `favorite` of person `person` ends as the shape `favorite` (nil: none).
    @Test(
        "a reference by key to a sub-entity naming a record given as another entity",
        arguments: [
            (
                "[]", #"[{"id": 1, "kind": "tile", "grout": "h"}, {"id": 1, "owner": {"id": 8, "favorite": 1}}]"#,
                8, nil
            ),
            // A plain shape, named by a `Square`-typed list and by `favorite`: an ancestor of both.
            (
                #"[{"id": 2, "kind": null, "color": "red", "holder": {"id": 7}}, {"id": 3, "kind": "tile"}]"#,
                #"[{"id": 1}, {"id": 3, "owner": {"id": 8, "held": [1, 1], "favorite": 1}}]"#, 8, 1
            ),
            // A tile stored before, given without a discriminator, then named by the reference.
            (
                #"[{"id": 1, "kind": "tile", "grout": "h"}]"#,
                #"[{"id": 1, "name": "x"}, {"id": 2, "owner": {"id": 8, "favorite": 1}}]"#, 8, nil
            ),
            // The reference first, then data without a discriminator, for a stored square.
            (
                #"[{"id": 2, "kind": "square"}]"#,
                #"[{"id": 1, "owner": {"id": 7, "favorite": 2}}, {"id": 2, "name": "x"}]"#, 7, nil
            ),
            // The reference first, to a stored tile, then data that makes it a disc: the
            // reference named a stored tile, so it links nothing.
            (
                #"[{"id": 2, "kind": "tile", "grout": "g"}]"#,
                #"[{"id": 1, "owner": {"id": 7, "favorite": 2}}, {"id": 2, "kind": "disc"}]"#, 7, nil
            ),
        ] as [(String, String, Int64, Int?)])
    func referenceToASubentityNamingAnotherEntity(earlier: String, list: String, person: Int64, favorite: Int?)
        async throws
    {
        #expect(try await Self.favorite(of: person, list, after: earlier) == favorite)
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    /// The `id` of the shape that `Person.favorite` of person `person` links, once `earlier`
    /// then `list` are populated whole.
    static func favorite(of person: Int64, _ list: String, after earlier: String) async throws -> Int? {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(earlier)}"#), entity: "Shape")
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(list)}"#), entity: "Shape")
        let row = try await store.read { connection in
            try connection.rows(
                #"SELECT s."id" FROM "Person" p JOIN "Shape" s ON s."_id" = p."favorite" WHERE p."id" = ?"#,
                [.integer(person)]
            ).first
        }
        guard let value = row?.first else { return nil }
        return Int(value.description)
    }

    /// Decision 13: "A reference by key to a stored record of another branch ... links nothing";
    /// one to a stored record of the relationship's destination, or of an ancestor of it, links
    /// it. Each reference is judged against the stored entity, where the record is given without
    /// a discriminator or named by another reference first, per link: a `Square`-typed list that
    /// names a stored disc links nothing, and leaves `favorite` its link.
    @Test(
        "a reference by key to a sub-entity, judged against the stored record",
        arguments: [
            // A stored tile, given without a discriminator: `favorite` (a `Disc`) must link nothing.
            (#"[{"id": 1, "kind": "tile", "grout": "h"}]"#, #"[{"id": 1, "owner": {"id": 8, "favorite": 1}}]"#, false),
            // A stored disc, named by a `Square`-typed list first: `favorite` must link it.
            (#"[{"id": 1, "kind": "disc"}]"#, #"[{"id": 3, "owner": {"id": 8, "held": [1], "favorite": 1}}]"#, true),
            // A stored plain shape (an ancestor of `Disc`), named the same way: linked.
            (#"[{"id": 1}]"#, #"[{"id": 3, "owner": {"id": 8, "held": [1], "favorite": 1}}]"#, true),
            // A stored square, named by `favorite` first, then by `held`.
            (#"[{"id": 1, "kind": "square"}]"#, #"[{"id": 3, "owner": {"id": 8, "favorite": 1, "held": [1]}}]"#, false),
            // A stored tile, named by a `Disc`-typed list (`made`), then by `favorite`.
            (
                #"[{"id": 1, "kind": "tile", "grout": "h"}]"#,
                #"[{"id": 3, "owner": {"id": 8, "made": [1], "favorite": 1}}]"#, false
            ),
            // A stored disc, named by `made`, given without a discriminator, then by `favorite`.
            (
                #"[{"id": 1, "kind": "disc"}]"#,
                #"[{"id": 3, "owner": {"id": 8, "made": [1]}}, {"id": 1, "name": "n"}, {"id": 4, "owner": {"id": 8, "favorite": 1}}]"#,
                true
            ),
        ])
    func referenceToAStoredRecordOfAnotherBranch(earlier: String, list: String, links: Bool) async throws {
        let person = try await Self.stored(list, after: earlier, table: "Person", id: 8, columns: ["favorite"])
        #expect((person["favorite"] != "NULL") == links, "\(person)")
        try await Self.expectEqualOrRefused(list, after: earlier)
    }

    // MARK: - Equal, or refused as documented

    static let earlierStores = [
        "[]",
        #"[{"id": 1, "kind": "circle", "size": 1.5, "tone": "t"}, {"id": 2, "kind": "square", "size": 3, "holder": {"id": 7}}, {"id": 3, "kind": "disc", "t": 4, "maker": {"id": 8}}]"#,
    ]

    @Test(arguments: [
        // A record whose sub-entity changes A -> B -> A with values, at three levels.
        #"[{"id": 1, "kind": "disc", "t": 7, "size": 2}, {"id": 1, "kind": "square", "size": 3}, {"id": 1, "kind": "disc"}]"#,
        #"[{"id": 1, "kind": "disc"}, {"id": 1, "kind": "circle"}, {"id": 1, "kind": "disc"}]"#,
        #"[{"id": 1, "kind": "circle", "size": 2.5}, {"id": 1, "kind": "square", "size": 3}, {"id": 1, "kind": "circle"}]"#,
        // A record made a sub-entity without a non-optional value later, or given it by another.
        #"[{"id": 1, "kind": "circle"}, {"id": 9}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "circle", "grout": "g"}, {"id": 9}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "circle", "grout": "g"}, {"id": 9}, {"id": 1, "grout": null}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "circle"}, {"id": 9}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "circle", "grout": null}, {"id": 9}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "blob"}, {"id": 9}, {"id": 1, "kind": "tile"}]"#,
        // Relationships only a sub-entity has.
        #"[{"id": 1, "kind": "square", "holder": {"id": 7, "name": "p"}}, {"id": 1, "kind": "circle"}, {"id": 1, "kind": "square"}]"#,
        #"[{"id": 1, "kind": "disc", "maker": {"id": 7}}, {"id": 1, "kind": "circle"}, {"id": 1, "kind": "disc"}]"#,
        #"[{"id": 1, "kind": "disc", "maker": {"id": 7}}, {"id": 1, "kind": "square", "holder": 7}, {"id": 1, "kind": "disc", "maker": null}]"#,
        // Stubs through a relationship to a sub-entity, switched by their data.
        #"[{"id": 2, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "kind": "square", "size": 3}]"#,
        #"[{"id": 2, "owner": {"id": 7, "favorite": 1, "made": [1]}}, {"id": 1, "kind": "circle"}, {"id": 1, "kind": "disc", "t": "x"}]"#,
        // Shared key paths across batches.
        #"[{"id": 1, "kind": "tile", "grout": "g", "size": "big"}, {"id": 1, "kind": "circle", "size": 1}, {"id": 1, "kind": "square"}, {"id": 1, "kind": "tile"}]"#,
        #"[{"id": 1, "kind": "square", "size": 3}, {"id": 1, "size": "x"}, {"id": 1, "kind": "tile", "grout": "g"}, {"id": 1, "kind": "square"}]"#,
        #"[{"id": 1, "kind": "circle", "size": 1.5}, {"id": 1, "size": null}, {"id": 1, "kind": "square"}]"#,
        #"[{"id": 1, "kind": "circle", "tone": "a"}, {"id": 1, "look": {"tone": "b"}}, {"id": 1, "kind": "square", "tone": "c"}, {"id": 1, "kind": "circle"}]"#,
        // A new record left incomplete by one batch, carried with what each attribute chose.
        #"[{"id": 1, "kind": "circle", "size": 1.5}, {"id": 1, "kind": "tile", "size": "big"}, {"id": 9}, {"id": 1, "kind": "circle"}]"#,
        #"[{"id": 1, "kind": "square", "size": 4}, {"id": 1, "kind": "tile", "size": 2.5}, {"id": 9}, {"id": 1, "kind": "square"}]"#,
        #"[{"id": 1, "kind": "tile", "size": "big", "box": {"d": "x"}}, {"id": 1, "kind": "square", "size": 4, "box": {"d": 3}}, {"id": 1, "kind": "tile"}, {"id": 9}, {"id": 1, "kind": "tile", "grout": "g"}]"#,
    ])
    func equalOrRefused(list: String) async throws {
        for earlier in Self.earlierStores {
            try await Self.expectEqualOrRefused(list, after: earlier)
        }
    }

    /// Known issue (Docs/Population.md, "A replaced list and its members' own links, in response
    /// order", across batches): shape 1 is given three times, the second time as a tile naming
    /// person 8 as its owner, whose nested `shapes` list, given after that link, leaves shape 1
    /// out. Whole, the list named last drops it: shape 1 ends without an owner. Streamed in
    /// batches of 40 bytes, shape 1 is carried to its last occurrence's batch and its owner link
    /// is written there, after person 8's list: it ends with person 8.
    @Test("a record whose nested owner's list drops it ends without the owner when streamed")
    func ownerListNestedInAnOccurrenceOfACarriedRecord() async throws {
        let earlier =
            #"[{"id": 3, "kind": "circle", "t": {"t": 6}, "color": null, "holder": {"id": 7, "favorite": 2}, "owner": {"id": 8}}]"#
        let list =
            #"[{"id": 1}, {"id": 1, "kind": "tile", "owner": {"id": 8, "name": "p1", "shapes": [3, 2]}}, {"id": 1, "kind": "circle"}]"#
        let whole = try await Self.outcome(of: list, after: earlier, entity: "Shape", batchBytes: nil)
        #expect(whole.failure == nil, "\(Self.shown(whole))")
        var differing: [Int] = []
        for batchBytes in [1, 40, 200, 1 << 20] {
            let streamed = try await Self.outcome(of: list, after: earlier, entity: "Shape", batchBytes: batchBytes)
            if streamed != whole { differing.append(batchBytes) }
        }
        #expect(!differing.contains(1 << 20), "one batch of 1 MB")
        withKnownIssue("a carried record's owner link is written after the owner's list that dropped it") {
            #expect(differing.isEmpty, "batches of \(differing) bytes differ from whole")
        }
    }

    // MARK: - Random responses

    /// Random shapes of ids 1 to 3 whose occurrences state a kind or not, and give values for
    /// each sub-entity's attributes, valid, refused, `null` or absent; some name others by key
    /// through a person's lists and to-ones.
    struct Generator {
        var random: SeededRandom

        mutating func chance(_ percent: Int) -> Bool { random.next(below: 100) < percent }

        mutating func pick(_ choices: [String]) -> String { choices[random.next(below: choices.count)] }

        mutating func person() -> String {
            var members = ["\"id\": \(7 + random.next(below: 2))"]
            if chance(40) { members.append("\"name\": \"p\(random.next(below: 2))\"") }
            if chance(20) {
                let ids = (0..<random.next(below: 3)).map { _ in "\(1 + random.next(below: 3))" }
                members.append("\"\(pick(["shapes", "held", "made"]))\": [\(ids.joined(separator: ", "))]")
            }
            if chance(20) { members.append("\"favorite\": \(1 + random.next(below: 3))") }
            return "{" + members.joined(separator: ", ") + "}"
        }

        mutating func shape() -> [String] {
            var members = ["\"id\": \(1 + random.next(below: 3))"]
            if chance(60) {
                members.append(
                    "\"kind\": " + pick(["\"circle\"", "\"square\"", "\"disc\"", "\"tile\"", "\"blob\"", "null"]))
            }
            if chance(45) { members.append("\"size\": " + pick(["1.5", "3", "\"big\"", "null", "4"])) }
            if chance(35) {
                members.append("\"\(pick(["t", "t", "dims"]))\": " + pick(["5", "\"x\"", "null", "{\"t\": 6}"]))
            }
            if chance(35) { members.append("\"grout\": " + pick(["\"g\"", "\"h\"", "null", "{}"])) }
            if chance(20) { members.append("\"tone\": " + pick(["\"a\"", "null"])) }
            if chance(20) { members.append("\"look\": {\"tone\": " + pick(["\"b\"", "null"]) + "}") }
            if chance(20) { members.append("\"filled\": " + pick(["true", "\"no\"", "null"])) }
            if chance(15) { members.append("\"color\": " + pick(["\"red\"", "null"])) }
            if chance(12) { members.append("\"holder\": " + (chance(30) ? "null" : person())) }
            if chance(12) { members.append("\"maker\": " + (chance(30) ? "null" : person())) }
            if chance(12) { members.append("\"owner\": " + person()) }
            return members
        }

        mutating func response(count: Int) -> [[String]] {
            var shapes: [[String]] = []
            for _ in 0..<count {
                if !shapes.isEmpty, chance(10) {
                    shapes.append(shapes[random.next(below: shapes.count)])
                } else {
                    shapes.append(shape())
                }
            }
            return shapes
        }
    }

    static func text(_ shapes: [[String]]) -> String {
        "[" + shapes.map { "{" + $0.joined(separator: ", ") + "}" }.joined(separator: ", ") + "]"
    }

    /// Smaller responses than `shapes`: a record left out, or a member of one (never its `id`).
    static func smaller(_ shapes: [[String]]) -> [[[String]]] {
        var variants: [[[String]]] = []
        for index in shapes.indices {
            var fewer = shapes
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in shapes.indices {
            for member in shapes[index].indices.dropFirst() {
                var fewer = shapes
                fewer[index].remove(at: member)
                variants.append(fewer)
            }
        }
        return variants
    }

    static func shrink(_ shapes: [[String]], earlier: String) async throws -> [[String]] {
        var current = shapes
        var progress = true
        while progress {
            progress = false
            for variant in smaller(current) where try await difference(text(variant), after: earlier) != nil {
                current = variant
                progress = true
                break
            }
        }
        return current
    }

    /// Seeds whose response shows a known issue, found by ``randomShapes()``.
    static let seedsWithKnownIssues: Set<UInt64> = []

    @Test func randomShapes() async throws {
        var failures: [String] = []
        var known: [UInt64] = []
        for seed in UInt64(1)...UInt64(300) {
            var generator = Generator(random: SeededRandom(seed: seed &* 7_919))
            var earlier =
                generator.chance(40) ? Self.text(generator.response(count: 1 + generator.random.next(below: 3))) : "[]"
            if try await Self.outcome(of: earlier, after: "[]", entity: "Shape", batchBytes: nil).failure != nil {
                earlier = "[]"
            }
            let shapes = generator.response(count: 2 + generator.random.next(below: 6))
            guard try await Self.difference(Self.text(shapes), after: earlier) != nil else { continue }
            if Self.seedsWithKnownIssues.contains(seed) {
                known.append(seed)
                continue
            }
            if failures.count < 3 {
                let minimal = try await Self.shrink(shapes, earlier: earlier)
                let shown = try await Self.difference(Self.text(minimal), after: earlier) ?? "(no longer fails)"
                failures.append("seed \(seed), shrunk to \(Self.text(minimal)) after \(earlier):\n\(shown)")
            } else {
                failures.append("seed \(seed)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) seeds differ:\n\(failures.joined(separator: "\n\n"))")
        if !known.isEmpty {
            withKnownIssue(
                "a reference by key to a sub-entity naming a record of another entity"
            ) {
                Issue.record("seeds \(known) differ")
            }
        }
    }
}
