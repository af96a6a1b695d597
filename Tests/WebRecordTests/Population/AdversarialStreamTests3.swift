import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A third adversarial round (Docs/Population.md): mainly whole populations checked row for row
/// against the documented decisions, each also streamed at every batch size with the first
/// round's support (`AdversarialStreamTests`).
@Suite("Population: adversarial, third round")
struct AdversarialStreamTests3 {
    typealias A = AdversarialStreamTests

    static func data(_ elements: [String]) -> String { A.data(elements) }

    static let catalog = A.schema(AdversarialSchemaJSON.catalog)

    static let shapes = A.schema(
        #"""
        {"entities": {
          "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "subentities": {"key": "kind", "map": {"circle": "Circle", "poly": "Polygon"}},
            "attributes": {"id": {"type": "integer"}, "label": {"type": "string"}, "color": {"type": "string", "default": "black"}},
            "relationships": {"box": {"destination": "Box", "inverse": "shapes"}}},
          "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double"}},
            "relationships": {"boxes": {"destination": "Box", "toMany": true, "inverse": "circles"}}},
          "Polygon": {"parent": "Shape", "subentities": {"key": "sides", "map": {"4": "Quad"}},
            "attributes": {"sides": {"type": "integer"}}},
          "Quad": {"parent": "Polygon", "attributes": {"diag": {"type": "double"}}},
          "Box": {"primaryKey": "id", "keyPathForResponseObject": "data", "attributes": {"id": {"type": "integer"}},
            "relationships": {"shapes": {"destination": "Shape", "toMany": true, "inverse": "box"},
              "circles": {"destination": "Circle", "toMany": true, "inverse": "boxes"}}}
        }}
        """#)

    static let compound = A.schema(AdversarialSchemaJSON.compound)

    static func item(_ rows: [String]) -> [String] { rows.filter { $0.hasPrefix("Item:") } }

    // MARK: - Defaults and non-optional attributes of new records

    /// Docs/Population.md ("A new record left without a value for a non-optional attribute that
    /// has no default is not stored"): `level` has a default, so a new item whose `level` is
    /// `null` or refused is stored, with the default. It used to be dropped as incomplete.
    @Test("A new record whose non-optional attribute with a default is null or refused is stored with the default")
    func nonOptionalWithADefaultGivenNullOrRefused() async throws {
        for value in ["null", #""x""#] {
            let text = Self.data([#"{"id": 1, "name": "a", "level": \#(value)}"#, #"{"id": 2, "name": "b"}"#])
            let whole = try await A.expectSameAtEveryBatchSize(text, schema: Self.catalog, entity: "Item")
            #expect(
                Self.item(whole.rows).contains("Item: 1 | 'Item' | 1 | 'a' | 3 | 1 | NULL | NULL | NULL | NULL | NULL"),
                "level \(value): item 1 must be stored with the default level 1\n\(whole)")
        }
    }

    /// Docs/Population.md (defaults apply when a record is created and the response does not
    /// give the attribute; a value the attribute refuses never replaces a valid one): a refused
    /// `n` gives nothing, so a new item gets `n`'s default 3, whole and streamed. Whole, it used
    /// to store NULL, where a record a batch stored 3.
    @Test("A new record given only a refused value for an attribute with a default gets the default")
    func refusedValueOfANewRecordLosesTheDefault() async throws {
        let cases = [
            [#"{"id": 1, "name": "a", "n": "bad"}"#],
            [#"{"id": 1, "name": "a"}"#, #"{"id": 1, "n": "bad"}"#],
        ]
        for elements in cases {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), schema: Self.catalog, entity: "Item")
            #expect(
                whole.rows == ["Item: 1 | 'Item' | 1 | 'a' | 3 | 1 | NULL | NULL | NULL | NULL | NULL"],
                "\(elements): n must be its default 3\n\(whole)")
        }
    }

    // MARK: - Merging occurrences (passing)

    @Test("Occurrences merge null, absent and refused values, json values whole, and defaults only on create")
    func mergedValuesAndDefaults() async throws {
        let cases: [([String], [String], String)] = [
            // A json value is the later one, not the two merged key by key.
            (
                [
                    #"{"id": 1, "name": "a", "extra": {"x": {"a": 1}, "k": 1}}"#,
                    #"{"id": 1, "extra": {"x": {"b": 2}}}"#,
                ], [],
                #"Item: 1 | 'Item' | 1 | 'a' | 3 | 1 | '{"x":{"b":2}}' | NULL | NULL | NULL | NULL"#
            ),
            // null is a valid value for an optional attribute: a later refused one keeps it.
            (
                [#"{"id": 1, "name": "a", "n": null}"#, #"{"id": 1, "n": "bad"}"#], [],
                "Item: 1 | 'Item' | 1 | 'a' | NULL | 1 | NULL | NULL | NULL | NULL | NULL"
            ),
            // A non-optional value survives a later null either way round; a later valid one wins.
            (
                [#"{"id": 1, "name": null, "level": 5}"#, #"{"id": 1, "name": "a", "level": null}"#], [],
                "Item: 1 | 'Item' | 1 | 'a' | 3 | 5 | NULL | NULL | NULL | NULL | NULL"
            ),
            // A null met on the key path clears; a step into a string is absent.
            (
                [
                    #"{"id": 1, "name": "a", "profile": {"bio": "x"}, "images": ["p"]}"#,
                    #"{"id": 1, "profile": "s", "images": null, "image": "q"}"#,
                ], [],
                "Item: 1 | 'Item' | 1 | 'a' | 3 | 1 | NULL | 'x' | NULL | NULL | NULL"
            ),
            // A stored record gets no default for what the response leaves out.
            (
                [#"{"id": 1, "name": "b"}"#], [#"{"id": 1, "name": "a", "n": null, "level": 7}"#],
                "Item: 1 | 'Item' | 1 | 'b' | NULL | 7 | NULL | NULL | NULL | NULL | NULL"
            ),
        ]
        for (elements, earlier, row) in cases {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: earlier.isEmpty ? "[]" : Self.data(earlier), schema: Self.catalog,
                entity: "Item")
            #expect(whole.rows == [row], "\(elements)\n\(whole)")
        }
    }

    // MARK: - Decision 6 through several levels (passing)

    @Test("A keyless to-one with a keyless to-one of its own is updated in place at both levels, defaults kept")
    func keylessToOneTwoLevelsDeep() async throws {
        let earlier = Self.data([#"{"id": 1, "name": "a", "cover": {"url": "old", "alt": "mine", "thumb": {"w": 1}}}"#])
        let text = Self.data([#"{"id": 1, "cover": {"url": "new", "thumb": {"w": 2}}}"#])
        let updated = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: Self.catalog, entity: "Item")
        #expect(
            updated.rows.filter { !$0.hasPrefix("Item:") } == [
                "Cover: 1 | 'Cover' | 'new' | 'mine' | 1 | 1", "Thumb: 1 | 'Thumb' | 2",
            ], "\(updated)")
        #expect(updated.counts["Cover"]?.updated == 1 && updated.counts["Thumb"]?.updated == 1, "\(updated)")
        // Within one response: the later occurrence's thumb is the same record; a later null
        // leaves a new one unstored.
        let merged = try await A.expectSameAtEveryBatchSize(
            Self.data([
                #"{"id": 1, "name": "a", "cover": {"url": "u", "thumb": {"w": 1}}}"#,
                #"{"id": 1, "cover": {"thumb": {"w": 2}}}"#,
            ]),
            schema: Self.catalog, entity: "Item")
        #expect(
            merged.rows.filter { !$0.hasPrefix("Item:") } == [
                "Cover: 1 | 'Cover' | 'u' | 'd' | 1 | 1", "Thumb: 1 | 'Thumb' | 2",
            ], "\(merged)")
        let cleared = try await A.expectSameAtEveryBatchSize(
            Self.data([
                #"{"id": 1, "name": "a", "cover": {"url": "u", "thumb": {"w": 1}}}"#,
                #"{"id": 1, "cover": {"url": "v", "thumb": null}}"#,
            ]),
            schema: Self.catalog, entity: "Item")
        #expect(!cleared.rows.contains { $0.hasPrefix("Thumb:") }, "\(cleared)")
    }

    @Test("An owner named without its key on one item and with it on another is one record, its keyless badge one too")
    func ownerNamedBothWaysWithAKeylessChild() async throws {
        let earlier = Self.data([#"{"id": 1, "name": "a", "owner": {"id": "o1", "name": "A"}}"#])
        let text = Self.data([
            #"{"id": 1, "owner": {"name": "B", "badge": {"t": "x"}}}"#,
            #"{"id": 2, "name": "n", "owner": {"id": "o1", "name": "C", "badge": {"t": "y"}}}"#,
        ])
        let whole = try await A.expectSameAtEveryBatchSize(text, after: earlier, schema: Self.catalog, entity: "Item")
        #expect(whole.rows.contains("Owner: 1 | 'Owner' | 'o1' | 'C'"), "\(whole)")
        #expect(
            whole.rows.filter { $0.hasPrefix("Owner:") || $0.hasPrefix("Badge:") } == [
                "Badge: 1 | 'Badge' | 'y' | 1", "Owner: 1 | 'Owner' | 'o1' | 'C'",
            ], "\(whole)")
        let owner = try #require(whole.counts["Owner"])
        let badge = try #require(whole.counts["Badge"])
        #expect(owner.inserted == 0 && owner.updated == 1 && owner.unchanged == 0, "\(whole)")
        #expect(badge.inserted == 1 && badge.updated == 0 && badge.unchanged == 0, "\(whole)")
    }

    // MARK: - Lists with refused elements (passing)

    @Test("Replaced lists with refused elements add only, and an earlier whole list still replaces")
    func replacedListsWithRefusedElements() async throws {
        let earlier = Self.data([#"{"id": 1, "name": "a", "tags": ["z", "a"], "parts": [1, 2]}"#])
        // Tags z, a, b, c are _ids 1 to 4; parts 1, 2 are _ids 1, 2.
        let cases: [([String], [String])] = [
            ([#"{"id": 1, "tags": ["b", null]}"#], ["_Item_tags: 1 | 1", "_Item_tags: 1 | 2", "_Item_tags: 1 | 3"]),
            ([#"{"id": 1, "tags": ["b"]}"#, #"{"id": 1, "tags": [null]}"#], ["_Item_tags: 1 | 3"]),
            (
                [#"{"id": 1, "tags": ["b"]}"#, #"{"id": 1, "tags": ["c", {"weight": 1}]}"#],
                ["_Item_tags: 1 | 3", "_Item_tags: 1 | 4"]
            ),
            (
                [#"{"id": 1, "parts": [3, "x"]}"#],
                [
                    "Part: 1 | 'Part' | 1 | NULL | 1", "Part: 2 | 'Part' | 2 | NULL | 1",
                    "Part: 3 | 'Part' | 3 | NULL | 1",
                ]
            ),
            (
                [#"{"id": 1, "parts": [3]}"#, #"{"id": 1, "parts": [4, 1.5]}"#],
                [
                    "Part: 1 | 'Part' | 1 | NULL | NULL", "Part: 2 | 'Part' | 2 | NULL | NULL",
                    "Part: 3 | 'Part' | 3 | NULL | 1", "Part: 4 | 'Part' | 4 | NULL | 1",
                ]
            ),
        ]
        for (elements, expected) in cases {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: earlier, schema: Self.catalog, entity: "Item")
            let prefix = expected[0].hasPrefix("Part") ? "Part:" : "_Item_tags:"
            #expect(whole.rows.filter { $0.hasPrefix(prefix) } == expected, "\(elements)\n\(whole)")
        }
    }

    // MARK: - Re-import (passing)

    static let rich = [
        #"{"id": 1, "name": "a", "extra": {"b": [1, {"y": 2, "x": 1}], "a": "\u00e9"}, "profile": {"bio": "b"}, "images": ["p"], "owner": {"id": "o1", "name": "O", "badge": {"t": "x"}}, "cover": {"url": "u", "thumb": {"w": 1}}, "tags": ["t1", {"name": "t2", "weight": 2}], "marks": [5, {"id": 6, "text": "six"}], "parts": [{"id": 7, "label": "p7"}], "stats": {"views": 3}}"#,
        #"{"id": 2, "name": "b", "owner": {"name": "keyless"}, "tags": ["t2", null], "marks": [], "parts": [7], "count": 4}"#,
        #"{"id": 1, "tags": ["t3"], "marks": [{"id": 8}], "cover": {"thumb": {"w": 2}}, "stats": {"kind": null}}"#,
        #"{"id": 3, "name": "c", "owner": "o2", "level": 9, "n": null}"#,
    ]

    @Test(
        "Re-importing a response with repeats, keyless and owner-keyed children, stubs and refused elements changes nothing"
    )
    func reimportChangesNothing() async throws {
        let text = Self.data(Self.rich)
        let once = try await A.populate(text, schema: Self.catalog, entity: "Item", batchBytes: nil)
        let twice = try await A.expectSameAtEveryBatchSize(text, after: text, schema: Self.catalog, entity: "Item")
        #expect(twice.rows == once.rows, "\(twice.difference(from: once))")
        for (entity, counts) in twice.counts {
            #expect(counts.inserted == 0 && counts.updated == 0 && counts.deleted == 0, "\(entity): \(counts)")
        }
        #expect(twice.counts["Item"]?.unchanged == 3 && twice.counts["Owner"]?.unchanged == 3, "\(twice.counts)")
    }

    // MARK: - Sub-entities two levels deep (passing)

    @Test("A second-level discriminator: a short copy keeps it, an unmapped value makes the middle entity")
    func secondLevelDiscriminator() async throws {
        let cases: [([String], [String], String)] = [
            (
                [#"{"id": 1, "kind": "poly", "sides": 4, "diag": 2}"#, #"{"id": 1, "kind": "poly"}"#], [],
                "Shape: 1 | 'Quad' | 1 | NULL | 'black' | NULL | 4 | 2.0 | NULL"
            ),
            (
                [#"{"id": 1, "kind": "poly", "sides": 4, "diag": 2}"#, #"{"id": 1, "kind": "poly", "sides": 5}"#], [],
                "Shape: 1 | 'Polygon' | 1 | NULL | 'black' | NULL | 5 | NULL | NULL"
            ),
            (
                [#"{"id": 1, "kind": "poly", "sides": 5}"#], [#"{"id": 1, "kind": "poly", "sides": 4, "diag": 2}"#],
                "Shape: 1 | 'Polygon' | 1 | NULL | 'black' | NULL | 5 | NULL | NULL"
            ),
            (
                [
                    #"{"id": 1, "kind": "circle", "radius": 2}"#, #"{"id": 1, "kind": "poly", "sides": 4}"#,
                    #"{"id": 1, "kind": "circle"}"#,
                ], [],
                "Shape: 1 | 'Circle' | 1 | NULL | 'black' | 2.0 | NULL | NULL | NULL"
            ),
        ]
        for (elements, earlier, row) in cases {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: earlier.isEmpty ? "[]" : Self.data(earlier), schema: Self.shapes,
                entity: "Shape")
            #expect(whole.rows == [row], "\(elements)\n\(whole)")
        }
    }

    // MARK: - Included records, injection, deny (passing)

    @Test("Orphan deletion spares the requested entity's records in included and those named by key there")
    func includedRecordsAreNotOrphans() async throws {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let text =
            #"{"data": [{"id": "1", "author": {"id": 9}}], "included": [{"type": "articles", "id": "2", "title": "t2"}, {"type": "people", "id": "9", "name": "N", "articles": ["3"]}]}"#
        let earlier = #"{"data": [{"id": "1"}, {"id": "2"}, {"id": "3"}, {"id": "4"}]}"#
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.compound, entity: "Article", options: options)
        #expect(
            whole.rows == [
                "Article: 1 | 'Article' | '1' | NULL | 1", "Article: 2 | 'Article' | '2' | 't2' | NULL",
                "Article: 3 | 'Article' | '3' | NULL | 1", "Person: 1 | 'Person' | '9' | 'N'",
            ], "\(whole)")
        #expect(whole.counts["Article"]?.deleted == 1, "\(whole)")
    }

    @Test("An injected key is coerced before matching; an injected key the type refuses is a refused element")
    func injectedKeysCoercedOrRefused() async throws {
        var options = PopulationOptions()
        options.primaryKeyInjection = { entity, dictionary, _ in
            guard entity.name == "Part", case .string(let label)? = dictionary["label"] else { return nil }
            return .string(label)
        }
        let earlier = Self.data([#"{"id": 1, "name": "a", "parts": [7, 8]}"#])
        let matched = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "parts": [{"label": "7"}]}"#]), after: earlier, schema: Self.catalog, entity: "Item",
            options: options)
        #expect(
            matched.rows.filter { $0.hasPrefix("Part:") } == [
                "Part: 1 | 'Part' | 7 | '7' | 1", "Part: 2 | 'Part' | 8 | NULL | NULL",
            ], "\(matched)")
        let refused = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "parts": [{"label": "x"}]}"#]), after: earlier, schema: Self.catalog, entity: "Item",
            options: options)
        #expect(
            refused.rows.filter { $0.hasPrefix("Part:") } == [
                "Part: 1 | 'Part' | 7 | NULL | 1", "Part: 2 | 'Part' | 8 | NULL | 1",
            ], "\(refused)")
        #expect(refused.counts["Item"]?.unchanged == 1, "\(refused)")
    }

    @Test("A dropped member whose cascade a deny rule refuses stays, unlinked, with what it holds")
    func denyRefusesADroppedMembersCascade() async throws {
        let earlier = Self.data([#"{"id": 1, "name": "f", "files": [{"id": 10, "locks": [100]}, {"id": 11}]}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "files": [11]}"#]), after: earlier, schema: AdversarialStreamTests2.folders,
            entity: "Folder")
        #expect(
            whole.rows == [
                "File: 1 | 'File' | 10 | NULL | NULL", "File: 2 | 'File' | 11 | NULL | 1",
                "Folder: 1 | 'Folder' | 1 | 'f'", "Lock: 1 | 'Lock' | 100 | 1",
            ], "\(whole)")
        #expect(whole.counts["File"]?.deleted == 0, "\(whole)")
    }
}
