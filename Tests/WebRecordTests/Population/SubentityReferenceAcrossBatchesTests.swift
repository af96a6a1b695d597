import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// References by key through a relationship whose destination is a sub-entity (`Person.favorite`,
/// a `Disc`), met in one batch of a streamed population while the record's data, or an earlier
/// occurrence of the link, is in another (Docs/Population.md, decision 13): whatever the batch
/// size, down to one record a batch, from a stream that cannot be read again, the store ends as
/// the whole response leaves it, row for row with `_id`s and counts, and as the documented rule
/// says.
///
/// The schema: `Shape` with the sub-entities `Circle` (and its `Disc`), `Square` and `Tile`;
/// `Person.favorite` to a `Disc` (no inverse), `Person.rings` to `Circle`s, and two one-to-ones
/// to a `Disc`: `Person.badge` (inverse `Disc.wearer`, kept in the disc's row) and `Agent.pin`
/// (inverse `Disc.pinnedBy`, kept in the agent's row); and `Token` with `Coin` (whose `metal`
/// is non-optional, without a default) and `Chip`, which `Person.lucky` (a `Coin`) and
/// `Person.spare` (a `Token`) name.
@Suite struct SubentityReferenceAcrossBatchesTests {
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
                          "subentities": {
                            "key": "kind", "map": { "circle": "Circle", "disc": "Disc", "square": "Square", "tile": "Tile" }
                          },
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": { "owner": { "destination": "Person", "inverse": "shapes" } }
                        },
                        "Circle": { "parent": "Shape", "attributes": { "radius": { "type": "double" } } },
                        "Disc": {
                          "parent": "Circle",
                          "attributes": { "t": { "type": "integer" } },
                          "relationships": {
                            "wearer": { "destination": "Person", "inverse": "badge" },
                            "pinnedBy": { "destination": "Agent", "inverse": "pin" }
                          }
                        },
                        "Square": { "parent": "Shape", "attributes": { "side": { "type": "integer" } } },
                        "Tile": { "parent": "Shape", "attributes": { "label": { "type": "string" } } },
                        "Person": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": {
                            "shapes": { "destination": "Shape", "toMany": true, "inverse": "owner" },
                            "favorite": { "destination": "Disc" },
                            "badge": { "destination": "Disc", "inverse": "wearer" },
                            "rings": { "destination": "Circle", "toMany": true },
                            "lucky": { "destination": "Coin" },
                            "spare": { "destination": "Token" }
                          }
                        },
                        "Agent": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": {
                            "pin": { "destination": "Disc", "inverse": "pinnedBy" },
                            "things": { "destination": "Shape", "toMany": true }
                          }
                        },
                        "Token": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "subentities": { "key": "kind", "map": { "coin": "Coin", "chip": "Chip" } },
                          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
                          "relationships": { "holder": { "destination": "Person" } }
                        },
                        "Coin": { "parent": "Token", "attributes": { "metal": { "type": "string", "optional": false } } },
                        "Chip": { "parent": "Token", "attributes": { "value": { "type": "integer" } } }
                      }
                    }
                    """, fileName: "SubentityReferenceAcrossBatches.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// One record a batch, a few, and the whole response in one batch.
    static let batchSizes = [1, 40, 120, 1 << 20]

    static func outcome(
        of list: String, after earlier: String, entity: String, batchBytes: Int?, reopens: Bool = false
    ) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: schema, entity: entity,
            batchBytes: batchBytes, reopens: reopens)
    }

    /// The first difference between the whole response and a stream of it, or nil: a stream
    /// equals the whole response, or refuses as documented, writes nothing and equals it when
    /// read again.
    static func difference(_ list: String, after earlier: String, entity: String) async throws -> String? {
        let whole = try await outcome(of: list, after: earlier, entity: entity, batchBytes: nil)
        if let failure = whole.failure { return "the whole response failed: \(failure)" }
        let before = try await outcome(of: "[]", after: earlier, entity: entity, batchBytes: nil)
        for batchBytes in batchSizes {
            let streamed = try await outcome(of: list, after: earlier, entity: entity, batchBytes: batchBytes)
            if let failure = streamed.failure, AdversarialHierarchyStreamTests.isRefusal(failure) {
                if streamed.rows != before.rows { return "batches of \(batchBytes) bytes: a refused stream wrote" }
                let again = try await outcome(
                    of: list, after: earlier, entity: entity, batchBytes: batchBytes, reopens: true)
                if again != whole {
                    return "batches of \(batchBytes) bytes, read again:\n\(again)\nwhole:\n\(whole)"
                }
                continue
            }
            if streamed != whole {
                return "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)"
            }
        }
        return nil
    }

    static func expectEqual(
        _ list: String, after earlier: String, entity: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        if let difference = try await difference(list, after: earlier, entity: entity) {
            Issue.record("\(difference)\nearlier: \(earlier)\nresponse: \(list)", sourceLocation: sourceLocation)
        }
    }

    /// The rows of `sql` once `list` is populated whole as `entity` records into a store that
    /// holds `earlier`, each row as its values' descriptions joined by spaces.
    static func query(_ sql: String, _ list: String, after earlier: String, entity: String) async throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(earlier)}"#), entity: entity)
        _ = try await store.populate(try JSONReader().read(#"{"data": \#(list)}"#), entity: entity)
        let rows = try await store.read { try $0.rows(sql, []) }
        return rows.map { $0.map(\.description).joined(separator: " ") }
    }

    // MARK: - The entity of a record a reference named, whose data states none

    /// Decision 13: a missing discriminator keeps the stored sub-entity, and so does a
    /// reference by key through a relationship to a sub-entity for the record's data given
    /// elsewhere without a discriminator as a more general entity: a new record is the `Disc`
    /// the reference named, a stored one stays what it was whenever it is a kind of what the
    /// data was given as (a reference never changes a stored record's entity, and neither does
    /// data without a discriminator). `favorite` links it where that entity may be linked there.
    /// Whole and streamed alike, whichever batches hold the reference and the data.
    @Test(
        "a reference to a sub-entity, then the record's data stating no entity",
        arguments: [
            // New: the reference, then the data as a `Shape`, in one batch or two.
            ("[]", #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}]"#, "'Disc'", true),
            (
                "[]", #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6}, {"id": 1, "name": "x"}]"#, "'Disc'",
                true
            ),
            // New: the data first, then the reference: it stays the `Shape` the data made it.
            ("[]", #"[{"id": 1, "name": "x"}, {"id": 5, "owner": {"id": 7, "favorite": 1}}]"#, "'Shape'", true),
            // Then the data as a `Circle` (a `Circle`-typed list), stating none.
            (
                "[]",
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
                "'Disc'", true
            ),
            // Stored as a `Circle`, an ancestor of `Disc` and a kind of `Shape`: it stays a circle.
            (
                #"[{"id": 1, "kind": "circle"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}]"#,
                "'Circle'", true
            ),
            (
                #"[{"id": 1, "kind": "circle"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6}, {"id": 1, "name": "x"}]"#, "'Circle'", true
            ),
            (
                #"[{"id": 1, "kind": "circle"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
                "'Circle'", true
            ),
            // Stored as a plain `Shape`: it stays a shape.
            (
                #"[{"id": 1}]"#, #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}]"#, "'Shape'",
                true
            ),
            (
                #"[{"id": 1, "kind": null}]"#,
                #"[{"id": 1, "name": "x"}, {"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "y"}]"#,
                "'Shape'", true
            ),
            // Stored as a plain `Shape`, given as a `Circle`: the data makes it a circle, as it
            // would alone.
            (
                #"[{"id": 1}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
                "'Circle'", true
            ),
            // Named first by a `Circle`-typed reference (`rings`), then given as a `Shape`, then
            // as a `Circle` or a `Disc` (a `Disc`-typed object): the most specific the data was
            // given as decides, as the data alone would.
            (
                #"[{"id": 1}]"#,
                #"[{"id": 2, "owner": {"id": 7, "rings": [1]}}, {"id": 1, "name": "x"}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
                "'Circle'", false
            ),
            (
                #"[{"id": 1}]"#,
                #"[{"id": 2, "owner": {"id": 7, "rings": [1]}}, {"id": 1, "name": "x"}, {"id": 4, "owner": {"id": 7, "favorite": {"id": 1, "name": "d"}}}]"#,
                "'Disc'", true
            ),
            // Stored as a `Square`, another branch: it stays a square, and `favorite` links nothing.
            (
                #"[{"id": 1, "kind": "square"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}]"#, "'Square'", false
            ),
            (
                #"[{"id": 1, "kind": "square"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6}, {"id": 1, "name": "x"}]"#, "'Square'", false
            ),
            // Given as a `Circle`, which a stored square is not: kept as stored, not updated.
            (
                #"[{"id": 1, "kind": "square", "name": "s"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
                "'Square'", false
            ),
            // Stored as a `Disc`.
            (
                #"[{"id": 1, "kind": "disc"}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}]"#,
                "'Disc'", true
            ),
            // Data that states its entity decides.
            (
                #"[{"id": 1}]"#,
                #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 1, "name": "x"}, {"id": 1, "kind": "disc"}]"#,
                "'Disc'", true
            ),
        ] as [(String, String, String, Bool)])
    func referenceThenDataStatingNoEntity(earlier: String, list: String, entity: String, linked: Bool) async throws {
        let shape = try await Self.query(
            #"SELECT "_entity", "name" FROM "Shape" WHERE "id" = 1"#, list, after: earlier, entity: "Shape")
        #expect(shape.first?.hasPrefix(entity + " ") == true, "\(shape)")
        let favorite = try await Self.query(
            #"SELECT s."id" FROM "Person" p JOIN "Shape" s ON s."_id" = p."favorite" WHERE p."id" = 7"#, list,
            after: earlier, entity: "Shape")
        #expect(favorite == (linked ? ["1"] : []), "\(favorite)")
        try await Self.expectEqual(list, after: earlier, entity: "Shape")
    }

    /// The same where the record's data leaves it incomplete where it is given (a `Coin`
    /// without its non-optional `metal`) and a later occurrence completes it. A stream drops it
    /// and carries what its batch gave to the batch that completes it ("Carried as another
    /// entity", `carried`), or, where an earlier batch stored it from the reference alone,
    /// refuses as documented ("... was stored from a reference by key where it first occurs
    /// ...") and reads the response again: either way it ends as the whole response leaves it,
    /// the `Coin` the reference named, or what a stored record was.
    @Test(
        "a reference to a sub-entity, then data stating no entity that a later occurrence completes",
        arguments: [
            // The reference and the data in one record (`lucky` is read before `spare`), which a
            // stream carries, person 7 stored.
            (
                #"[{"id": 50, "holder": {"id": 7}}]"#,
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1, "spare": {"id": 1, "name": "t"}}}, {"id": 1, "metal": "gold"}]"#,
                "'Coin'", true, true
            ),
            (
                #"[{"id": 50, "holder": {"id": 7}}]"#,
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1, "spare": {"id": 1, "name": "t"}}}, {"id": 9}, {"id": 1, "name": "u"}, {"id": 1, "metal": "gold"}]"#,
                "'Coin'", true, true
            ),
            // The data first: it stays the `Token` the data made it.
            (
                "[]",
                #"[{"id": 1, "name": "t", "holder": {"id": 7, "lucky": 1}}, {"id": 9, "kind": "chip"}, {"id": 1, "metal": "gold"}]"#,
                "'Token'", true, true
            ),
            // The reference in a batch of its own: a stub, which the incomplete data drops and
            // the complete data stores again, without reading the response again
            // (Docs/Population.md, "A stub given incomplete data later").
            (
                "[]",
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1}}, {"id": 1, "name": "t"}, {"id": 1, "metal": "gold"}]"#,
                "'Coin'", true, true
            ),
            (
                "[]",
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1}}, {"id": 1, "name": "t"}, {"id": 9, "kind": "chip"}, {"id": 1, "kind": "coin", "metal": "gold"}]"#,
                "'Coin'", true, true
            ),
            // Stored before: a stored record may omit any attribute; it stays what it was.
            (
                #"[{"id": 1}]"#,
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1}}, {"id": 1, "name": "t"}, {"id": 1, "metal": "gold"}]"#,
                "'Token'", true, true
            ),
            (
                #"[{"id": 1, "kind": "chip"}]"#,
                #"[{"id": 5, "kind": "chip", "holder": {"id": 7, "lucky": 1}}, {"id": 1, "name": "t"}, {"id": 1, "metal": "gold"}]"#,
                "'Chip'", false, true
            ),
        ] as [(String, String, String, Bool, Bool)])
    func referenceThenIncompleteData(earlier: String, list: String, entity: String, linked: Bool, carried: Bool)
        async throws
    {
        let token = try await Self.query(
            #"SELECT "_entity" FROM "Token" WHERE "id" = 1"#, list, after: earlier, entity: "Token")
        #expect(token == [entity], "\(token)")
        let lucky = try await Self.query(
            #"SELECT t."id" FROM "Person" p JOIN "Token" t ON t."_id" = p."lucky" WHERE p."id" = 7"#, list,
            after: earlier, entity: "Token")
        #expect(lucky == (linked ? ["1"] : []), "\(lucky)")
        // One record a batch, read once: completed without reading the response again, or refused.
        let streamed = try await Self.outcome(of: list, after: earlier, entity: "Token", batchBytes: 1)
        #expect((streamed.failure == nil) == carried, "\(streamed)")
        try await Self.expectEqual(list, after: earlier, entity: "Token")
    }

    // MARK: - A refused reference on a one-to-one, after a `null`

    /// Decision 13: a to-one whose latest occurrence names a record of another branch "keeps
    /// what the occurrence before it left it"; that occurrence's `null` then clears the
    /// one-to-one as a plain `null` does: the disc person 8 wore before is worn by no one (or by
    /// whoever claims it after the `null`), and the refused record is not linked. Whole and
    /// streamed alike. `wearer` is kept in the disc's row.
    @Test(
        "a refused reference on a one-to-one kept in the other row falls back on a null",
        arguments: [
            (#"[{"id": 8, "badge": null}, {"id": 8, "badge": 2}]"#, [String]()),
            (#"[{"id": 8, "badge": null}, {"id": 9, "name": "n"}, {"id": 8, "badge": 2}]"#, []),
            // Another occurrence before: it falls back on the latest, the disc 3.
            (#"[{"id": 8, "badge": 3}, {"id": 8, "badge": 2}]"#, ["3 8"]),
            (#"[{"id": 8, "badge": null}, {"id": 8, "badge": 3}, {"id": 8, "badge": 2}]"#, ["3 8"]),
            (#"[{"id": 8, "badge": 3}, {"id": 8, "badge": null}, {"id": 8, "badge": 2}]"#, []),
            // Another person claims the disc before the `null`, or after it.
            (#"[{"id": 9, "badge": 1}, {"id": 8, "badge": null}, {"id": 8, "badge": 2}]"#, ["1 9"]),
            (#"[{"id": 8, "badge": null}, {"id": 9, "badge": 1}, {"id": 8, "badge": 2}]"#, ["1 9"]),
            (#"[{"id": 8, "badge": null}, {"id": 8, "badge": 2}, {"id": 9, "badge": 1}]"#, ["1 9"]),
            // The disc it falls back on, which another person claims in between, stays theirs.
            (#"[{"id": 8, "badge": 3}, {"id": 9, "badge": 3}, {"id": 8, "badge": 2}]"#, ["3 9"]),
            (#"[{"id": 8, "badge": 3}, {"id": 8, "badge": 2}, {"id": 9, "badge": 3}]"#, ["3 9"]),
            // A new record, made a tile before or after the reference.
            (
                #"[{"id": 8, "badge": null}, {"id": 9, "shapes": [{"id": 5, "kind": "tile"}]}, {"id": 8, "badge": 5}]"#,
                []
            ),
            (
                #"[{"id": 8, "badge": 3}, {"id": 9, "shapes": [{"id": 5, "kind": "tile"}]}, {"id": 8, "badge": 5}]"#,
                ["3 8"]
            ),
            (
                #"[{"id": 8, "badge": null}, {"id": 8, "badge": 5}, {"id": 9, "shapes": [{"id": 5, "kind": "tile"}]}]"#,
                []
            ),
            (#"[{"id": 8, "badge": 5}, {"id": 9, "shapes": [{"id": 5, "kind": "tile"}]}]"#, []),
        ] as [(String, [String])])
    func refusedReferenceOnAOneToOneKeptThere(list: String, worn: [String]) async throws {
        let layout = StorageLayout(schema: Self.schema)
        guard case .foreignKeyThere? = layout.storage(of: "badge", in: "Person") else {
            Issue.record("Person.badge is expected to be kept in the disc's row")
            return
        }
        // Disc 1 worn by person 8, a tile 2 and a disc 3.
        let earlier =
            #"[{"id": 8, "badge": {"id": 1, "kind": "disc"}}, {"id": 9, "shapes": [{"id": 2, "kind": "tile"}, {"id": 3, "kind": "disc"}]}]"#
        let wearers = try await Self.query(
            #"SELECT s."id", p."id" FROM "Shape" s JOIN "Person" p ON p."_id" = s."wearer" ORDER BY s."id""#, list,
            after: earlier, entity: "Person")
        #expect(wearers == worn, "\(wearers)")
        try await Self.expectEqual(list, after: earlier, entity: "Person")
    }

    /// The same, for a one-to-one kept in the linking record's row (`Agent.pin`).
    @Test(
        "a refused reference on a one-to-one kept here falls back on a null",
        arguments: [
            (#"[{"id": 8, "pin": null}, {"id": 8, "pin": 2}]"#, [String]()),
            (#"[{"id": 8, "pin": null}, {"id": 9, "name": "n"}, {"id": 8, "pin": 2}]"#, []),
            (#"[{"id": 8, "pin": 3}, {"id": 8, "pin": 2}]"#, ["8 3"]),
            (#"[{"id": 9, "pin": 1}, {"id": 8, "pin": null}, {"id": 8, "pin": 2}]"#, ["9 1"]),
            (#"[{"id": 8, "pin": null}, {"id": 8, "pin": 2}, {"id": 9, "pin": 1}]"#, ["9 1"]),
            (#"[{"id": 8, "pin": 3}, {"id": 9, "pin": 3}, {"id": 8, "pin": 2}]"#, ["9 3"]),
            (#"[{"id": 8, "pin": 3}, {"id": 8, "pin": 2}, {"id": 9, "pin": 3}]"#, ["9 3"]),
            (#"[{"id": 8, "pin": null}, {"id": 9, "things": [{"id": 5, "kind": "tile"}]}, {"id": 8, "pin": 5}]"#, []),
            (#"[{"id": 8, "pin": 3}, {"id": 9, "things": [{"id": 5, "kind": "tile"}]}, {"id": 8, "pin": 5}]"#, ["8 3"]),
        ] as [(String, [String])])
    func refusedReferenceOnAOneToOneKeptHere(list: String, pinned: [String]) async throws {
        let layout = StorageLayout(schema: Self.schema)
        guard case .foreignKeyHere? = layout.storage(of: "pin", in: "Agent") else {
            Issue.record("Agent.pin is expected to be kept in the agent's row")
            return
        }
        let earlier =
            #"[{"id": 8, "pin": {"id": 1, "kind": "disc"}}, {"id": 9, "things": [{"id": 2, "kind": "tile"}, {"id": 3, "kind": "disc"}]}]"#
        let pins = try await Self.query(
            #"SELECT a."id", s."id" FROM "Agent" a JOIN "Shape" s ON s."_id" = a."pin" ORDER BY a."id""#, list,
            after: earlier, entity: "Agent")
        #expect(pins == pinned, "\(pins)")
        try await Self.expectEqual(list, after: earlier, entity: "Agent")
    }

    // MARK: - A stored record kept as stored where the place it is given cannot hold it

    /// Decision 13: a stored record given without a discriminator where the place cannot hold
    /// it (a stored `Tile` in a `Circle`-typed list) is kept as stored, not updated, and nothing
    /// is linked to it. The response contained it all the same (decision 14: "as an object or
    /// as a reference by key"): orphan deletion keeps it, and it counts as unchanged, as a
    /// reference by key to it does, so that a stream whose batch names it by key alone counts
    /// it as the whole response does. Whole and streamed alike.
    @Test(
        "a stored record kept as stored where it is given is contained and unchanged",
        arguments: [
            #"[{"id": 6, "owner": {"id": 9, "rings": [{"id": 1}]}}]"#,
            #"[{"id": 2, "owner": {"id": 8, "rings": [1]}}, {"id": 6, "owner": {"id": 9, "rings": [{"id": 1}]}}]"#,
            #"[{"id": 6, "owner": {"id": 9, "rings": [{"id": 1}]}}, {"id": 2, "owner": {"id": 8, "rings": [1]}}]"#,
            #"[{"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1, "name": "r"}]}}]"#,
        ])
    func keptAsStored(list: String) async throws {
        let earlier = #"[{"id": 1, "kind": "tile", "name": "t"}, {"id": 3, "kind": "tile"}]"#
        var options = PopulationOptions()
        options.deleteOrphans = .all
        for deletes in [false, true] {
            let whole = try await PopulatedStore.populating(
                #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: Self.schema, entity: "Shape",
                batchBytes: nil, options: deletes ? options : PopulationOptions())
            #expect(whole.failure == nil, "\(whole)")
            // Tile 1 stays as stored; tile 3, which the response does not name, is an orphan.
            #expect(whole.rows.contains { $0.hasPrefix("Shape: 1 | 'Tile' | 1 | 't' |") }, "\(whole)")
            var tiles = ChangeCounts()
            tiles.unchanged = 1
            tiles.deleted = deletes ? 1 : 0
            #expect(whole.counts["Tile"] == tiles, "\(whole)")
            for batchBytes in Self.batchSizes {
                let streamed = try await PopulatedStore.populating(
                    #"{"data": \#(list)}"#, after: #"{"data": \#(earlier)}"#, schema: Self.schema, entity: "Shape",
                    batchBytes: batchBytes, options: deletes ? options : PopulationOptions())
                #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
            }
        }
    }
}

extension SubentityReferenceAcrossBatchesTests {
    /// A stored record of another branch (a `Square`) given in one response both where it can be
    /// held (a `Shape`, or with its discriminator) and, without a discriminator, where it cannot
    /// (a `Circle`-typed list). One batch merges the occurrences and keeps the record as stored,
    /// not updated, or takes the stated entity for every link; a stream whose batches held one
    /// occurrence each applied the one it could and refused the other alone. Such a stream is
    /// now read again whole (`StreamTotals.noteKeptAsStored`), and from a stream that cannot be
    /// read again refused, writing nothing.
    @Test(
        "a stored record given where it can be held and where it cannot, in one batch",
        arguments: [
            // Whole: not updated (`name` NULL).
            #"[{"id": 1, "name": "x"}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}]"#,
            // Whole: `rings` links the disc.
            #"[{"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}, {"id": 1, "kind": "disc"}]"#,
        ])
    func storedRecordGivenWhereItCannotBeHeld(list: String) async throws {
        let difference = try await Self.difference(list, after: #"[{"id": 1, "kind": "square"}]"#, entity: "Shape")
        #expect(difference == nil, "\(difference ?? "")")
        // Parted into batches of one record, the stream is refused, and writes nothing.
        let before = try await Self.outcome(
            of: "[]", after: #"[{"id": 1, "kind": "square"}]"#, entity: "Shape", batchBytes: nil)
        let once = try await Self.outcome(
            of: list, after: #"[{"id": 1, "kind": "square"}]"#, entity: "Shape", batchBytes: 1)
        #expect(once.failure.map(AdversarialHierarchyStreamTests.isRefusal) == true, "\(once)")
        #expect(once.rows == before.rows, "\(once)")
    }

    /// Sibling shapes: the data after the place that cannot hold it, or before it nested where
    /// it can be held; the place a one-to-one (`badge`, a `Disc`); a stated entity that the
    /// place cannot hold either; three batches. Each ends as the whole response, or is refused
    /// and equals it read again.
    @Test(
        "a stored record given where it can be held and where it cannot, sibling shapes",
        arguments: [
            #"[{"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}, {"id": 1, "name": "x"}]"#,
            #"[{"id": 6, "owner": {"id": 9, "shapes": [{"id": 1, "name": "y"}]}}, {"id": 7, "owner": {"id": 8, "rings": [{"id": 1}]}}]"#,
            #"[{"id": 1, "name": "x"}, {"id": 6, "owner": {"id": 8, "badge": {"id": 1}}}]"#,
            #"[{"id": 6, "owner": {"id": 8, "badge": {"id": 1}}}, {"id": 1, "name": "x", "kind": "disc"}]"#,
            #"[{"id": 1, "kind": "square", "name": "x"}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}]"#,
            #"[{"id": 1, "name": "x"}, {"id": 2, "name": "p"}, {"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}]"#,
            #"[{"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}, {"id": 7, "owner": {"id": 9, "rings": [{"id": 1}]}}]"#,
        ])
    func storedRecordGivenWhereItCannotBeHeldSiblings(list: String) async throws {
        let difference = try await Self.difference(
            list, after: #"[{"id": 1, "kind": "square"}, {"id": 2, "kind": "tile"}]"#, entity: "Shape")
        #expect(difference == nil, "\(difference ?? "")")
    }

    /// A record kept as stored in two batches, and named by key elsewhere, is not read again:
    /// no batch gives it data where it can be held.
    @Test func keptAsStoredInTwoBatchesIsNotReadAgain() async throws {
        let list =
            #"[{"id": 6, "owner": {"id": 8, "rings": [{"id": 1}]}}, {"id": 5, "owner": {"id": 7, "favorite": 1}}, {"id": 7, "owner": {"id": 9, "rings": [{"id": 1}]}}]"#
        let whole = try await Self.outcome(
            of: list, after: #"[{"id": 1, "kind": "square"}]"#, entity: "Shape", batchBytes: nil)
        let streamed = try await Self.outcome(
            of: list, after: #"[{"id": 1, "kind": "square"}]"#, entity: "Shape", batchBytes: 1)
        #expect(streamed.failure == nil, "\(streamed)")
        #expect(streamed == whole, "\(streamed)\nwhole:\n\(whole)")
    }
}
