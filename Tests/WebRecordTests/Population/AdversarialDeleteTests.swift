import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial deletes (Docs/Population.md, decisions 11 and 14, and "Decisions where the design
/// is silent"): delete rules (`cascade`, `nullify`, `deny`), records identified by their owner,
/// keyless children and orphan deletion, in whole populations, streamed populations at every
/// batch size, and re-syncs. Each response must leave exactly the rows the documented decisions
/// give, whole and streamed alike, and change nothing when populated again.
@Suite("Population: adversarial deletes")
struct AdversarialDeleteTests {
    typealias A = AdversarialStreamTests
    typealias R = AdversarialResyncTests

    /// Roots whose `mids` cascade to their `leaves` (a mid's `locks` deny), identified children
    /// at two levels (`Meta` by its root, `Sub` by its meta, `Stat` by its mid), a keyless
    /// `cover` that cascades, a self-referencing `kids` tree that cascades, a many-to-many
    /// `tags` that cascades, and to-ones that name records elsewhere (`pin`, `watch`, `stat`,
    /// `draft`, whose `Draft` needs a value).
    static let chain = A.schema(chainJSON)
    /// `chain` with a `Meta`'s `watchers` under `deny`.
    static let watchedMetaDenies = A.schema(
        chainJSON.replacingOccurrences(
            of: #""inverse": "watch"}"#, with: #""inverse": "watch", "deleteRule": "deny"}"#))
    static let chainJSON =
        #"""
        {"entities": {
          "Root": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "mids": {"destination": "Mid", "toMany": true, "inverse": "root", "deleteRule": "cascade"},
              "meta": {"destination": "Meta", "inverse": "root"},
              "watch": {"destination": "Meta", "inverse": "watchers"},
              "cover": {"destination": "Cover", "inverse": "root", "deleteRule": "cascade"},
              "kids": {"destination": "Root", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
              "parent": {"destination": "Root", "inverse": "kids"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "roots", "deleteRule": "cascade"},
              "pin": {"destination": "Leaf", "inverse": "pinnedBy"},
              "stat": {"destination": "Stat", "inverse": "watchers"},
              "locks": {"destination": "Lock", "toMany": true, "inverse": "holder", "deleteRule": "cascade"},
              "draft": {"destination": "Draft", "inverse": "roots"}}},
          "Draft": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "v": {"type": "string", "optional": false}},
            "relationships": {"roots": {"destination": "Root", "toMany": true, "inverse": "draft"}}},
          "Sub": {"primaryKey": "meta", "attributes": {"w": {"type": "integer"}},
            "relationships": {"meta": {"destination": "Meta", "inverse": "sub"}}},
          "Mid": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"root": {"destination": "Root", "inverse": "mids"},
              "leaves": {"destination": "Leaf", "toMany": true, "inverse": "mid", "deleteRule": "cascade"},
              "locks": {"destination": "Lock", "toMany": true, "inverse": "mid", "deleteRule": "deny"},
              "stat": {"destination": "Stat", "inverse": "mid"}}},
          "Leaf": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "v": {"type": "string"}},
            "relationships": {"mid": {"destination": "Mid", "inverse": "leaves"},
              "pinnedBy": {"destination": "Root", "toMany": true, "inverse": "pin"}}},
          "Lock": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"mid": {"destination": "Mid", "inverse": "locks"},
              "holder": {"destination": "Root", "inverse": "locks"}}},
          "Stat": {"primaryKey": "mid", "attributes": {"n": {"type": "integer"}},
            "relationships": {"mid": {"destination": "Mid", "inverse": "stat"},
              "watchers": {"destination": "Root", "toMany": true, "inverse": "stat"}}},
          "Meta": {"primaryKey": "root", "attributes": {"n": {"type": "string"}},
            "relationships": {"root": {"destination": "Root", "inverse": "meta"},
              "watchers": {"destination": "Root", "toMany": true, "inverse": "watch"},
              "sub": {"destination": "Sub", "inverse": "meta"}}},
          "Cover": {"attributes": {"url": {"type": "string"}},
            "relationships": {"root": {"destination": "Root", "inverse": "cover"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"roots": {"destination": "Root", "toMany": true, "inverse": "tags"}}}
        }}
        """#

    static func data(_ elements: [String]) -> String { A.data(elements) }

    static var orphans: PopulationOptions {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        return options
    }

    /// Root 1 with mid 10 (leaves 100 and 101, stat), meta, cover and tags 7 and 8; root 2 with
    /// mid 20 (leaf 200) and tag 8.
    static let stored = data([
        #"{"id": 1, "name": "a", "mids": [{"id": 10, "leaves": [{"id": 100}, {"id": 101}], "stat": {"n": 1}}], "meta": {"n": "m1"}, "cover": {"url": "c1"}, "tags": [7, 8]}"#,
        #"{"id": 2, "name": "b", "mids": [{"id": 20, "leaves": [{"id": 200}]}], "tags": [8]}"#,
    ])

    /// Root 1 with mid 10 (leaf 100, lock 1000, which root 2 also holds) and a meta with a sub;
    /// root 3.
    static let locked = data([
        #"{"id": 1, "name": "a", "mids": [{"id": 10, "leaves": [{"id": 100}], "locks": [1000]}], "meta": {"n": "m1", "sub": {"w": 1}}}"#,
        #"{"id": 2, "name": "b", "locks": [1000]}"#, #"{"id": 3, "name": "c"}"#,
    ])

    /// Root 1 with a meta and a cover; root 2 watches root 1's meta.
    static let watched = data([
        #"{"id": 1, "name": "a", "meta": {"n": "m1"}, "cover": {"url": "c1"}}"#,
        #"{"id": 2, "name": "b", "watch": {"root": 1}}"#,
    ])

    static func rows(_ outcome: A.Outcome, _ table: String) -> [String] {
        outcome.rows.filter { $0.hasPrefix("\(table):") }
    }

    static func deleted(_ outcome: A.Outcome) -> [String: Int] {
        outcome.counts.compactMapValues { $0.deleted == 0 ? nil : $0.deleted }
    }

    /// The warnings of `text` populated whole into a store holding `earlier`.
    static func warnings(
        _ text: String, after earlier: String, schema: Schema, options: PopulationOptions
    ) throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        _ = try store.populate(try JSONReader().read(earlier), entity: "Root")
        let result = try store.populate(try JSONReader().read(text), entity: "Root", options: options)
        return result.debugger.warnings.map(\.message)
    }

    // MARK: - Cascades through several levels (passing)

    @Test("An orphan's cascade through two levels stops at a leaf a later record names, and re-syncs to nothing")
    func orphanCascadeStopsAtALeafNamedLater() async throws {
        let text = Self.data([#"{"id": 5, "name": "n"}"#, #"{"id": 2, "pin": 101}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: Self.stored, schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(
            whole.rows == [
                "Leaf: 2 | 'Leaf' | 101 | NULL | NULL", "Leaf: 3 | 'Leaf' | 200 | NULL | 2", "Mid: 2 | 'Mid' | 20 | 2",
                "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | 2 | NULL | NULL",
                "Root: 3 | 'Root' | 5 | 'n' | NULL | NULL | NULL | NULL | NULL",
            ], "\(whole)")
        // Root 1, its mid, leaf 100, and what each identifies or cascades to; tag 8 goes too,
        // though root 2 lists it, as a cascade through a join table deletes the member.
        #expect(
            Self.deleted(whole) == ["Root": 1, "Mid": 1, "Leaf": 1, "Stat": 1, "Meta": 1, "Cover": 1, "Tag": 2],
            "\(whole)")
        try await R.expectIdempotent(
            text, history: [Self.stored], schema: Self.chain, entity: "Root", options: Self.orphans)
    }

    @Test("A replaced list's cascade through two levels spares a leaf the response names, before or after the drop")
    func linkCascadeSparesALeafNamedBeforeOrAfter() async throws {
        let expected = [
            "Cover: 1 | 'Cover' | 'c1' | 1", "Leaf: 2 | 'Leaf' | 101 | NULL | NULL",
            "Leaf: 3 | 'Leaf' | 200 | NULL | 2",
            "Meta: 1 | 'Meta' | 'm1' | 1", "Mid: 2 | 'Mid' | 20 | 2",
            "Root: 1 | 'Root' | 1 | 'a' | NULL | NULL | NULL | NULL | NULL",
            "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | 2 | NULL | NULL", "Tag: 1 | 'Tag' | 7", "Tag: 2 | 'Tag' | 8",
            "_Root_tags: 1 | 1", "_Root_tags: 1 | 2", "_Root_tags: 2 | 2",
        ]
        for elements in [
            [#"{"id": 1, "mids": []}"#, #"{"id": 2, "pin": 101}"#],
            [#"{"id": 2, "pin": 101}"#, #"{"id": 1, "mids": []}"#],
        ] {
            let text = Self.data(elements)
            let whole = try await A.expectSameAtEveryBatchSize(
                text, after: Self.stored, schema: Self.chain, entity: "Root")
            #expect(whole.rows == expected, "\(whole)")
            #expect(Self.deleted(whole) == ["Mid": 1, "Leaf": 1, "Stat": 1], "\(whole)")
            try await R.expectIdempotent(text, history: [Self.stored], schema: Self.chain, entity: "Root")
        }
    }

    @Test("A cascading member one list drops and another takes, in either order, keeps its own cascading children")
    func memberMovedBetweenListsKeepsItsChildren() async throws {
        let expected = [
            "Cover: 1 | 'Cover' | 'c1' | 1", "Leaf: 1 | 'Leaf' | 100 | NULL | 1", "Leaf: 2 | 'Leaf' | 101 | NULL | 1",
            "Meta: 1 | 'Meta' | 'm1' | 1", "Mid: 1 | 'Mid' | 10 | 2",
            "Root: 1 | 'Root' | 1 | 'a' | NULL | NULL | NULL | NULL | NULL",
            "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | NULL | NULL | NULL", "Stat: 1 | 'Stat' | 1 | 1",
            "Tag: 1 | 'Tag' | 7", "Tag: 2 | 'Tag' | 8", "_Root_tags: 1 | 1", "_Root_tags: 1 | 2", "_Root_tags: 2 | 2",
        ]
        for elements in [
            [#"{"id": 1, "mids": []}"#, #"{"id": 2, "mids": [10]}"#],
            [#"{"id": 2, "mids": [10]}"#, #"{"id": 1, "mids": []}"#],
        ] {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: Self.stored, schema: Self.chain, entity: "Root")
            // Only root 2's own mid 20 (and its leaf 200) goes: root 2's list left it out.
            #expect(whole.rows == expected, "\(whole)")
            #expect(Self.deleted(whole) == ["Mid": 1, "Leaf": 1], "\(whole)")
        }
    }

    @Test("A record identified by its owner, named apart, names the owner: an orphan cascade stops at it")
    func ownerKeyedRecordNamedApartKeepsItsOwner() async throws {
        // Meta {"root": 1} names root 1, which is no orphan.
        let meta = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "watch": {"root": 1, "n": "z"}}"#]), after: Self.stored, schema: Self.chain,
            entity: "Root", options: Self.orphans)
        #expect(Self.rows(meta, "Root").count == 2, "\(meta)")
        #expect(Self.rows(meta, "Meta") == ["Meta: 1 | 'Meta' | 'z' | 1"], "\(meta)")
        #expect(Self.deleted(meta).isEmpty, "\(meta)")
        // Stat {"mid": 10} names mid 10: root 1's cascade stops there, and mid 10 keeps its leaves.
        let stat = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "stat": {"mid": 10, "n": 5}}"#]), after: Self.stored, schema: Self.chain,
            entity: "Root", options: Self.orphans)
        #expect(
            stat.rows == [
                "Leaf: 1 | 'Leaf' | 100 | NULL | 1", "Leaf: 2 | 'Leaf' | 101 | NULL | 1",
                "Leaf: 3 | 'Leaf' | 200 | NULL | 2", "Mid: 1 | 'Mid' | 10 | NULL", "Mid: 2 | 'Mid' | 20 | 2",
                "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | NULL | 1 | NULL", "Stat: 1 | 'Stat' | 5 | 1",
            ], "\(stat)")
        #expect(Self.deleted(stat) == ["Root": 1, "Meta": 1, "Cover": 1, "Tag": 2], "\(stat)")
    }

    // MARK: - Join tables (passing)

    @Test("An orphan's cascade through a join table deletes the members the response does not name")
    func joinTableCascade() async throws {
        let unnamed = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2}"#]), after: Self.stored, schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(!unnamed.rows.contains { $0.hasPrefix("Tag") || $0.hasPrefix("_Root_tags") }, "\(unnamed)")
        #expect(unnamed.counts["Tag"]?.deleted == 2, "\(unnamed)")
        let text = Self.data([#"{"id": 2, "tags": [8]}"#])
        let named = try await A.expectSameAtEveryBatchSize(
            text, after: Self.stored, schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(Self.rows(named, "Tag") == ["Tag: 2 | 'Tag' | 8"], "\(named)")
        #expect(Self.rows(named, "_Root_tags") == ["_Root_tags: 2 | 2"], "\(named)")
        #expect(named.counts["Tag"]?.deleted == 1, "\(named)")
        try await R.expectIdempotent(
            text, history: [Self.stored], schema: Self.chain, entity: "Root", options: Self.orphans)
        // A list that drops the tags, and another that names one, in either order.
        let later = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "tags": []}"#, #"{"id": 2, "tags": [8]}"#]), after: Self.stored,
            schema: Self.chain, entity: "Root")
        #expect(Self.rows(later, "Tag") == ["Tag: 2 | 'Tag' | 8"], "\(later)")
        #expect(Self.rows(later, "_Root_tags") == ["_Root_tags: 2 | 2"], "\(later)")
        let earlier = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "tags": [7, 8]}"#, #"{"id": 1, "tags": []}"#]), after: Self.stored,
            schema: Self.chain, entity: "Root")
        #expect(Self.rows(earlier, "Tag") == ["Tag: 1 | 'Tag' | 7", "Tag: 2 | 'Tag' | 8"], "\(earlier)")
        #expect(Self.rows(earlier, "_Root_tags") == ["_Root_tags: 2 | 1", "_Root_tags: 2 | 2"], "\(earlier)")
        #expect(Self.deleted(earlier).isEmpty, "\(earlier)")
    }

    // MARK: - Deny (passing)

    @Test("A deny rule deep in an orphan's cascade, after earlier records wrote, leaves the orphan whole")
    func denyDeepInAnOrphansCascade() async throws {
        let text = Self.data([#"{"id": 2, "name": "x"}"#, #"{"id": 3, "name": "y"}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: Self.locked, schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(
            whole.rows == [
                "Leaf: 1 | 'Leaf' | 100 | NULL | 1", "Lock: 1 | 'Lock' | 1000 | 1 | 2", "Meta: 1 | 'Meta' | 'm1' | 1",
                "Mid: 1 | 'Mid' | 10 | 1", "Root: 1 | 'Root' | 1 | 'a' | NULL | NULL | NULL | NULL | NULL",
                "Root: 2 | 'Root' | 2 | 'x' | NULL | NULL | NULL | NULL | NULL",
                "Root: 3 | 'Root' | 3 | 'y' | NULL | NULL | NULL | NULL | NULL", "Sub: 1 | 'Sub' | 1 | 1",
            ], "\(whole)")
        #expect(Self.deleted(whole).isEmpty, "\(whole)")
        #expect(
            try Self.warnings(text, after: Self.locked, schema: Self.chain, options: Self.orphans).contains {
                $0.contains("deny rule")
            })
        try await R.expectIdempotent(
            text, history: [Self.locked], schema: Self.chain, entity: "Root", options: Self.orphans)
        // The lock a list drops, before or after the orphan's record, no longer denies: the
        // deletes a response's links start go before the orphan pass.
        for elements in [[#"{"id": 2, "locks": []}"#, #"{"id": 3}"#], [#"{"id": 3}"#, #"{"id": 2, "locks": []}"#]] {
            let dropped = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: Self.locked, schema: Self.chain, entity: "Root", options: Self.orphans)
            #expect(
                dropped.rows == [
                    "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | NULL | NULL | NULL",
                    "Root: 3 | 'Root' | 3 | 'c' | NULL | NULL | NULL | NULL | NULL",
                ], "\(dropped)")
            #expect(
                Self.deleted(dropped) == ["Root": 1, "Mid": 1, "Leaf": 1, "Lock": 1, "Meta": 1, "Sub": 1],
                "\(dropped)")
        }
    }

    @Test("A deny rule on a record identified by its owner refuses its delete: it stays, linked by its key")
    func denyOnAnOwnerKeyedRecord() async throws {
        let schema = Self.watchedMetaDenies
        let text = Self.data([#"{"id": 1, "meta": null}"#])
        let cleared = try await A.expectSameAtEveryBatchSize(
            text, after: Self.watched, schema: schema, entity: "Root")
        let kept = [
            "Cover: 1 | 'Cover' | 'c1' | 1", "Meta: 1 | 'Meta' | 'm1' | 1",
            "Root: 1 | 'Root' | 1 | 'a' | NULL | NULL | NULL | NULL | NULL",
            "Root: 2 | 'Root' | 2 | 'b' | 1 | NULL | NULL | NULL | NULL",
        ]
        #expect(cleared.rows == kept, "\(cleared)")
        #expect(Self.deleted(cleared).isEmpty, "\(cleared)")
        try await R.expectIdempotent(text, history: [Self.watched], schema: schema, entity: "Root")
        // Root 1 as an orphan: its meta's deny refuses the whole delete.
        let orphan = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2}"#]), after: Self.watched, schema: schema, entity: "Root", options: Self.orphans)
        #expect(orphan.rows == kept, "\(orphan)")
        #expect(Self.deleted(orphan).isEmpty, "\(orphan)")
        // Cleared, then given again by a later occurrence: the same record, updated.
        let again = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "meta": null}"#, #"{"id": 3}"#, #"{"id": 1, "meta": {"n": "q"}}"#]),
            after: Self.watched, schema: schema, entity: "Root")
        #expect(Self.rows(again, "Meta") == ["Meta: 1 | 'Meta' | 'q' | 1"], "\(again)")
        #expect(again.counts["Meta"]?.updated == 1, "\(again)")
    }

    // MARK: - Records identified by their owner (passing)

    @Test(
        "An owner-keyed record cleared and named apart, in either order, stays linked; cleared alone, it takes its own")
    func ownerKeyedClearedAndNamedApart() async throws {
        for elements in [
            [#"{"id": 1, "meta": null}"#, #"{"id": 2, "watch": {"root": 1, "n": "z"}}"#],
            [#"{"id": 2, "watch": {"root": 1, "n": "z"}}"#, #"{"id": 1, "meta": null}"#],
        ] {
            let whole = try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: Self.locked, schema: Self.chain, entity: "Root")
            #expect(Self.rows(whole, "Meta") == ["Meta: 1 | 'Meta' | 'z' | 1"], "\(whole)")
            #expect(Self.rows(whole, "Sub") == ["Sub: 1 | 'Sub' | 1 | 1"], "\(whole)")
            #expect(Self.deleted(whole).isEmpty, "\(whole)")
        }
        // Cleared alone: the meta goes, and the sub it identifies with it.
        let text = Self.data([#"{"id": 1, "meta": null}"#])
        let alone = try await A.expectSameAtEveryBatchSize(
            text, after: Self.locked, schema: Self.chain, entity: "Root")
        #expect(!alone.rows.contains { $0.hasPrefix("Meta") || $0.hasPrefix("Sub") }, "\(alone)")
        #expect(Self.deleted(alone) == ["Meta": 1, "Sub": 1], "\(alone)")
        try await R.expectIdempotent(text, history: [Self.locked], schema: Self.chain, entity: "Root")
    }

    @Test("A record identified by a member that moves between owners, and cleared by the later one, goes")
    func ownerKeyedChildOfAMovedMember() async throws {
        let same = try await A.expectSameAtEveryBatchSize(
            Self.data([
                #"{"id": 1, "mids": [{"id": 10, "stat": {"n": 9}}]}"#,
                #"{"id": 1, "mids": [{"id": 10, "stat": null}]}"#,
            ]), after: Self.stored, schema: Self.chain, entity: "Root")
        #expect(Self.rows(same, "Stat").isEmpty, "\(same)")
        #expect(Self.rows(same, "Mid") == ["Mid: 1 | 'Mid' | 10 | 1", "Mid: 2 | 'Mid' | 20 | 2"], "\(same)")
        #expect(Self.deleted(same) == ["Stat": 1], "\(same)")
        let moved = try await A.expectSameAtEveryBatchSize(
            Self.data([
                #"{"id": 2, "mids": [{"id": 10, "stat": {"n": 9}}]}"#,
                #"{"id": 1, "mids": [{"id": 10, "stat": null}]}"#,
            ]), after: Self.stored, schema: Self.chain, entity: "Root")
        // Mid 10 ends with root 1 (named last); root 2's list dropped mid 20, which cascades.
        #expect(Self.rows(moved, "Mid") == ["Mid: 1 | 'Mid' | 10 | 1"], "\(moved)")
        #expect(Self.rows(moved, "Leaf").count == 2, "\(moved)")
        #expect(Self.deleted(moved) == ["Stat": 1, "Mid": 1, "Leaf": 1], "\(moved)")
    }

    // MARK: - Self-referencing cascades and scoped orphans (passing)

    @Test(
        "A scoped orphan's self-referencing cascade reaches records outside the scope, but not one the response names")
    func selfReferencingCascadeWithScopedOrphans() async throws {
        var scoped = PopulationOptions()
        scoped.deleteOrphans = .matching("name = ? AND id < ?", ["t", 5])
        let tree = Self.data([
            #"{"id": 1, "name": "t", "kids": [{"id": 2, "name": "u", "kids": [{"id": 3, "name": "t"}]}]}"#,
            #"{"id": 4, "name": "t", "cover": {"url": "c4"}}"#, #"{"id": 6, "name": "t"}"#,
        ])
        let text = Self.data([#"{"id": 3}"#])
        let named = try await A.expectSameAtEveryBatchSize(
            text, after: tree, schema: Self.chain, entity: "Root", options: scoped)
        // Candidates 1, 3 and 4; root 1's cascade takes 2 (outside the scope) and stops at 3.
        #expect(
            named.rows == [
                "Root: 3 | 'Root' | 3 | 't' | NULL | NULL | NULL | NULL | NULL",
                "Root: 5 | 'Root' | 6 | 't' | NULL | NULL | NULL | NULL | NULL",
            ], "\(named)")
        #expect(Self.deleted(named) == ["Root": 3, "Cover": 1], "\(named)")
        try await R.expectIdempotent(text, history: [tree], schema: Self.chain, entity: "Root", options: scoped)
        // Root 2 moved under a new root first: root 1's cascade finds nothing; 3 is an orphan.
        let moved = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 9, "kids": [2]}"#]), after: tree, schema: Self.chain, entity: "Root", options: scoped)
        #expect(
            moved.rows == [
                "Root: 2 | 'Root' | 2 | 'u' | NULL | 6 | NULL | NULL | NULL",
                "Root: 5 | 'Root' | 6 | 't' | NULL | NULL | NULL | NULL | NULL",
                "Root: 6 | 'Root' | 9 | NULL | NULL | NULL | NULL | NULL | NULL",
            ], "\(moved)")
        #expect(Self.deleted(moved) == ["Root": 3, "Cover": 1], "\(moved)")
    }

    // MARK: - Keyless children (passing)

    @Test("A keyless to-one given twice is one record; after a null, the next is a new record")
    func keylessToOneReplaced() async throws {
        let twice = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "cover": {"url": "x"}}"#, #"{"id": 1, "cover": {"url": "y"}}"#]),
            after: Self.watched, schema: Self.chain, entity: "Root")
        #expect(Self.rows(twice, "Cover") == ["Cover: 1 | 'Cover' | 'y' | 1"], "\(twice)")
        #expect(twice.counts["Cover"]?.updated == 1, "\(twice)")
        let renewed = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "cover": null}"#, #"{"id": 1, "cover": {"url": "n"}}"#]),
            after: Self.watched, schema: Self.chain, entity: "Root")
        #expect(
            Self.rows(renewed, "Cover") == ["Cover: 1 | 'Cover' | 'c1' | NULL", "Cover: 2 | 'Cover' | 'n' | 1"],
            "\(renewed)")
        #expect(renewed.counts["Cover"]?.inserted == 1, "\(renewed)")
    }

    // MARK: - Records named inside records that are not stored

    @Test("A record named inside a new record that lacks a value is no orphan, and is updated")
    func recordNamedInsideAnIncompleteRecordIsNoOrphan() async throws {
        let byKey = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "draft": {"id": 5, "roots": [1]}}"#]), after: Self.locked, schema: Self.chain,
            entity: "Root", options: Self.orphans)
        #expect(
            Self.rows(byKey, "Root").map { String($0.prefix(26)) } == [
                "Root: 1 | 'Root' | 1 | 'a'", "Root: 2 | 'Root' | 2 | 'b'",
            ], "\(byKey)")
        #expect(Self.deleted(byKey) == ["Root": 1], "\(byKey)")
        let completed = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "draft": {"id": 5, "roots": [1]}}"#, #"{"id": 3, "draft": {"id": 5, "v": "x"}}"#]),
            after: Self.locked, schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(
            Self.rows(completed, "Root") == [
                "Root: 1 | 'Root' | 1 | 'a' | NULL | NULL | NULL | NULL | 1",
                "Root: 2 | 'Root' | 2 | 'b' | NULL | NULL | NULL | NULL | NULL",
                "Root: 3 | 'Root' | 3 | 'c' | NULL | NULL | NULL | NULL | 1",
            ], "\(completed)")
        #expect(Self.deleted(completed).isEmpty, "\(completed)")
        let object = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 2, "draft": {"id": 5, "roots": [{"id": 1, "name": "q"}]}}"#]), after: Self.stored,
            schema: Self.chain, entity: "Root", options: Self.orphans)
        #expect(object.rows.contains("Root: 1 | 'Root' | 1 | 'q' | NULL | NULL | NULL | NULL | NULL"), "\(object)")
        #expect(Self.deleted(object).isEmpty, "\(object)")
    }

    /// Posts whose comments may quote another post.
    static let quotes = A.schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"comments": {"destination": "Comment", "toMany": true, "inverse": "post"},
              "quotedBy": {"destination": "Comment", "toMany": true, "inverse": "quoted"}}},
          "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "comments"},
              "quoted": {"destination": "Post", "inverse": "quotedBy"}}}
        }}
        """#)

    /// Decision 14: "contained" is every record of the entity the run named, at any depth, as an
    /// object or by key. Post 1, given whole inside a comment that has no key (not stored, with
    /// what is nested in it, decision 5), is still named by the response: the orphan pass must
    /// spare it, as it spares a record named inside a new record that lacks a value.
    @Test("A record given inside a nested record without its key is no orphan")
    func recordGivenInsideAnUnidentifiedRecordIsNoOrphan() async throws {
        let earlier = Self.data([#"{"id": 1, "title": "a"}"#, #"{"id": 2, "title": "b"}"#])
        for text in [
            Self.data([#"{"id": 2, "comments": [{"text": "x", "quoted": {"id": 1, "title": "q"}}]}"#]),
            Self.data([#"{"id": 2, "comments": [{"text": "x", "quoted": 1}]}"#]),
        ] {
            let whole = try await A.expectSameAtEveryBatchSize(
                text, after: earlier, schema: Self.quotes, entity: "Post", options: Self.orphans)
            #expect(whole.rows.contains("Post: 1 | 'Post' | 1 | 'a'"), "\(whole)")
            #expect(whole.counts["Post"]?.deleted == 0, "\(whole)")
        }
    }

    /// "What a response contained is never deleted by its own links either": mid 10, named by
    /// key inside a tag that has no key (not stored, decision 5), is still contained, so root
    /// 1's replaced `mids` (under `cascade`) must unlink it, not delete it with its leaves and
    /// the stat it identifies.
    @Test("A member a cascading list drops, named inside a nested record without its key, is kept unlinked")
    func droppedMemberNamedInsideAnUnidentifiedRecordIsKept() async throws {
        for mid in ["10", #"{"id": 10}"#] {
            let text = Self.data([
                #"{"id": 1, "mids": []}"#, #"{"id": 2, "tags": [{"roots": [{"id": 7, "mids": [\#(mid)]}]}]}"#,
            ])
            let whole = try await A.expectSameAtEveryBatchSize(
                text, after: Self.stored, schema: Self.chain, entity: "Root")
            #expect(Self.rows(whole, "Mid") == ["Mid: 1 | 'Mid' | 10 | NULL", "Mid: 2 | 'Mid' | 20 | 2"], "\(whole)")
            #expect(Self.rows(whole, "Leaf").count == 3, "\(whole)")
            #expect(Self.rows(whole, "Stat") == ["Stat: 1 | 'Stat' | 1 | 1"], "\(whole)")
            #expect(Self.deleted(whole).isEmpty, "\(whole)")
        }
    }
}

extension AdversarialDeleteTests {
    /// The blog, with a post's `user` under `cascade`.
    static let cascadingUsers = A.schema(
        AdversarialSchemaJSON.blog.replacingOccurrences(
            of: #""user": {"destination": "User", "inverse": "posts"}"#,
            with: #""user": {"destination": "User", "inverse": "posts", "deleteRule": "cascade"}"#))

    @Test(
        "An orphan's cascade to a user the response repeats as is across batches keeps the user and what it identifies")
    func cascadeToARecordRepeatedAcrossBatches() async throws {
        let user = #""user": {"id": "u1", "name": "A", "counts": {"followers": 1}}"#
        let text = Self.data((1...4).map { #"{"id": \#($0), "title": "t\#($0)", \#(user)}"# })
        for earlier in [
            Self.data([#"{"id": 9, "user": "u1"}"#]),
            Self.data([#"{"id": 9, \#(user)}"#]),
            Self.data([#"{"id": 9, "user": {"id": "u1", "name": "B", "counts": {"followers": 2}}}"#]),
        ] {
            let whole = try await A.expectSameAtEveryBatchSize(
                text, after: earlier, schema: Self.cascadingUsers, entity: "Post", options: Self.orphans)
            #expect(Self.rows(whole, "User") == ["User: 1 | 'User' | 'u1' | 'A' | NULL | NULL"], "\(whole)")
            #expect(Self.rows(whole, "Counts") == ["Counts: 1 | 'Counts' | 1 | 1"], "\(whole)")
            #expect(Self.rows(whole, "Post").count == 4, "\(whole)")
            #expect(Self.deleted(whole) == ["Post": 1], "\(whole)")
            try await R.expectIdempotent(
                text, history: [earlier], schema: Self.cascadingUsers, entity: "Post", options: Self.orphans)
        }
    }
}
