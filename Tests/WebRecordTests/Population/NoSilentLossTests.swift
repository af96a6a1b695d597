import Foundation
import Testing
import WebRecord
import WebRecordTesting

/// A schema for the classes of silent loss: trees of one entity, a list endpoint whose records
/// need a title, labels merged both ways, owner-keyed records, and a sub-entity hierarchy.
let silentLossSchemaJSON = """
    {
      "version": 1,
      "entities": {
        "Unit": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
          "relationships": {
            "children": { "destination": "Unit", "toMany": true, "inverse": "parent" },
            "parent": { "destination": "Unit", "inverse": "children" },
            "repostOf": { "destination": "Unit" }
          }
        },
        "Issue": {
          "primaryKey": "id",
          "attributes": {
            "id": { "type": "integer" },
            "title": { "type": "string", "optional": false },
            "state": { "type": "string", "optional": false, "default": "open" }
          },
          "relationships": {
            "labels": { "destination": "Label", "toMany": true, "inverse": "issues" },
            "author": { "destination": "Person", "inverse": "issues" },
            "stats": { "destination": "Stats", "inverse": "issue" }
          }
        },
        "Label": {
          "primaryKey": "name",
          "attributes": { "name": { "type": "string" } },
          "relationships": { "issues": { "destination": "Issue", "toMany": true, "inverse": "labels" } }
        },
        "Person": {
          "primaryKey": "login",
          "attributes": { "login": { "type": "string" }, "name": { "type": "string", "optional": false } },
          "relationships": { "issues": { "destination": "Issue", "toMany": true, "inverse": "author" } }
        },
        "Stats": {
          "primaryKey": "issue",
          "attributes": { "comments": { "type": "integer" } },
          "relationships": { "issue": { "destination": "Issue", "inverse": "stats" } }
        },
        "Item": {
          "primaryKey": "key",
          "attributes": {
            "key": { "type": "string" }, "n": { "type": "integer" }, "note": { "type": "string", "optional": false },
            "ratio": { "type": "double" }, "amount": { "type": "decimal" }
          }
        },
        "Reading": {
          "primaryKey": "value",
          "attributes": { "value": { "type": "double" } }
        },
        "Link": {
          "primaryKey": "id",
          "abstract": true,
          "subentities": { "key": "kind", "map": { "in": "InwardLink", "out": "OutwardLink" } },
          "attributes": { "id": { "type": "integer" } }
        },
        "InwardLink": {
          "parent": "Link",
          "attributes": { "inwardNote": { "type": "string" } },
          "relationships": { "inwardLabel": { "destination": "Label" }, "inwardLabels": { "destination": "Label", "toMany": true } }
        },
        "OutwardLink": {
          "parent": "Link",
          "attributes": { "outwardNote": { "type": "string" } }
        }
      }
    }
    """

func makeSilentLossStore() throws -> RecordingStore {
    try RecordingStore(schema: Schema(json: silentLossSchemaJSON, fileName: "SilentLoss.json"))
}

/// One test per class of silent loss found by the peers' suites, a real client and hostile
/// input, and per further instance of each class (DESIGN §3.3, §3.5, §3.10, §3.11, §3.13, §3.14).
@Suite struct NoSilentLossTests {
    // MARK: - Orphan deletion keeps everything the response contained (§3.14)

    func orphanOptions() -> PopulationOptions {
        var options = PopulationOptions()
        options.deleteOrphans = .all
        return options
    }

    @Test func nestedRecordsOfTheRequestedEntityAreNeverOrphans() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(
            json(#"[{"id": 1, "children": [{"id": 11}, {"id": 12, "children": [{"id": 121}]}]}]"#), entity: "Unit",
            options: orphanOptions())
        #expect(result.changes.inserted == 4)
        #expect(result.changes.deleted == 0)
        #expect(try test.store.count("Unit") == 4)
    }

    @Test func recordsNamedOnlyByKeyOrThroughAnotherRelationshipAreNotOrphans() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 5}, {"id": 6}, {"id": 7}, {"id": 8}]"#), entity: "Unit")
        // 5 is named by key as a parent, 6 as a repost (a relationship without an inverse), 7 by
        // key in a to-many; 8 is not named anywhere.
        let result = try test.store.populate(
            json(#"[{"id": 1, "parent": 5, "repostOf": {"id": 6}, "children": [7]}]"#), entity: "Unit",
            options: orphanOptions())
        #expect(result.changes.deleted == 1)
        #expect(
            try test.store.fetch("Unit", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? } == [1, 5, 6, 7])
    }

    @Test func theOrphanClosureIsOfferedOnlyRecordsTheResponseDidNotContain() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 9}]"#), entity: "Unit")
        var options = PopulationOptions()
        let offered = Locked<[Int]>([])
        options.orphanDeletion = { orphan, _, _, _ in
            offered.withLock { $0.append(orphan["id"] as Int? ?? -1) }
            return false
        }
        _ = try test.store.populate(json(#"[{"id": 1, "children": [{"id": 2}]}]"#), entity: "Unit", options: options)
        #expect(offered.withLock { $0 } == [9])
    }

    @Test func pagedOrphanDeletionKeepsRecordsNestedOnEveryPage() async throws {
        let test = try makeSilentLossStore()
        _ = try await test.store.populate(json(#"[{"id": 99}]"#), entity: "Unit")
        let server = CannedServer()
        server.enqueue(try json(#"{"units": [{"id": 1, "children": [{"id": 11}]}], "next": "p2"}"#), for: "p1")
        server.enqueue(try json(#"{"units": [{"id": 2, "children": [12]}], "next": null}"#), for: "p2")
        test.store.register(server, forEntity: "Unit")
        var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
        options.request.population.keyPath = "units"
        options.request.population.deleteOrphans = .all
        var deleted = 0
        for try await page in test.store.pages(entity: "Unit", urn: "p1", options: options) {
            deleted += page.orphansDeleted["Unit"] ?? 0
        }
        #expect(deleted == 1)
        #expect(
            try test.store.fetch("Unit", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? } == [1, 2, 11, 12])
    }

    // MARK: - Unidentified records and unexpected responses (§3.5)

    @Test func anErrorObjectFromAListEndpointWritesNothing() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "title": "real"}]"#), entity: "Issue")
        let before = try dumpContent(test.store)
        for options in [PopulationOptions(), orphanOptions()] {
            let failure = try #require(throws: WebRecordError.self) {
                try test.store.populate(json(#"{"message": "Bad credentials"}"#), entity: "Issue", options: options)
            }
            #expect(failure.code == .invalidResponseFormat)
            #expect(failure.message.contains("could be identified"))
            #expect(failure.value == (try json(#"{"message": "Bad credentials"}"#)))
            #expect(try dumpContent(test.store) == before)
        }
    }

    @Test func underOrphanDeletionOneUnidentifiedTopLevelRecordFailsTheWholeResponse() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]"#), entity: "Issue")
        let before = try dumpContent(test.store)
        let failure = try #require(throws: WebRecordError.self) {
            try test.store.populate(
                json(#"[{"id": 1, "title": "a"}, {"title": "no id"}]"#), entity: "Issue", options: orphanOptions())
        }
        #expect(failure.code == .invalidResponseFormat)
        #expect(failure.message.contains("1 of the 2"))
        #expect(try dumpContent(test.store) == before)
        // Without orphan deletion the identified record is stored and the other reported.
        let result = try test.store.populate(json(#"[{"id": 3, "title": "c"}, {"title": "no id"}]"#), entity: "Issue")
        #expect(result.changes.inserted == 1)
        #expect(result.debugger.contains(.missingPrimaryKey))
        // The warning says which record: its place in the list, and what it holds.
        let warning = try #require(result.debugger.errors.first { $0.code == .missingPrimaryKey })
        #expect(warning.message.contains("at index 1 of the list"), "\(warning.message)")
        #expect(warning.message.contains(#"{"title":"no id"}"#), "\(warning.message)")
    }

    @Test func aKeyThatIsNotAValidKeyCountsAsUnidentified() throws {
        let test = try makeSilentLossStore()
        let failure = try #require(throws: WebRecordError.self) {
            try test.store.populate(json(#"[{"id": [1], "title": "a"}, {"id": "x", "title": "b"}]"#), entity: "Issue")
        }
        #expect(failure.code == .invalidResponseFormat)
        #expect(try test.store.count("Issue") == 0)
        // The warning names the key as it was read.
        let schema = try Schema(
            json:
                #"{"entities": {"T": {"primaryKey": "id", "attributes": {"id": {"type": "integer", "key": ["ID", "id"]}}}}}"#
        )
        let other = try RecordingStore(schema: schema)
        let result = try other.store.populate(json(#"[{"ID": "x"}, {"ID": 2}]"#), entity: "T")
        let warning = try #require(result.debugger.errors.first { $0.code == .typeMismatch })
        #expect(warning.keyPath == "ID" && warning.property == "id")
        // Top-level scalars that are not keys of the entity are unidentified too.
        #expect(throws: WebRecordError.self) { try test.store.populate(json(#"[true, "x"]"#), entity: "Issue") }
    }

    @Test func underOrphanDeletionARecordOfNoKnownSubentityIsFatalNotAnOrphan() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "out"}]"#), entity: "Link")
        let before = try dumpContent(test.store)
        // Link 2 comes back with a kind this schema does not know: skipped, so it must not be
        // taken for an orphan and deleted.
        let failure = try #require(throws: WebRecordError.self) {
            try test.store.populate(
                json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "sideways"}]"#), entity: "Link",
                options: orphanOptions())
        }
        #expect(failure.message.contains("1 of the 2"))
        #expect(try dumpContent(test.store) == before)
        // Without orphan deletion it is a non-fatal skip.
        let result = try test.store.populate(
            json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "sideways"}]"#), entity: "Link")
        #expect(result.debugger.contains(.invalidEntityDescription) && result.records.count == 1)
    }

    @Test func underOrphanDeletionAMissingOrNullKeyPathIsFatalAndAnEmptyArrayDeletesAll() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "title": "a"}]"#), entity: "Issue")
        let before = try dumpContent(test.store)
        var options = orphanOptions()
        options.keyPath = "items"
        for body in [#"{"message": "rate limited"}"#, #"{"items": null}"#] {
            let failure = try #require(throws: WebRecordError.self) {
                try test.store.populate(json(body), entity: "Issue", options: options)
            }
            #expect(failure.code == .invalidResponseFormat)
            #expect(failure.keyPath == "items")
            #expect(try dumpContent(test.store) == before)
        }
        // Without orphan deletion, a missing key path fails too (DESIGN §3.1); null is an empty result.
        var plain = PopulationOptions()
        plain.keyPath = "items"
        let missing = try #require(throws: WebRecordError.self) {
            try test.store.populate(json(#"{"message": "x"}"#), entity: "Issue", options: plain)
        }
        #expect(missing.code == .invalidResponseFormat && missing.message.contains("'message'"))
        #expect(try dumpContent(test.store) == before)
        #expect(
            try test.store.populate(json(#"{"items": null}"#), entity: "Issue", options: plain).debugger.contains(
                .emptyResultSet))
        // An explicit empty array means the server has none.
        let emptied = try test.store.populate(json(#"{"items": []}"#), entity: "Issue", options: options)
        #expect(emptied.changes.deleted == 1)
        #expect(try test.store.count("Issue") == 0)
    }

    @Test func aPagedRunWithAnUnidentifiedRecordKeepsEarlierPagesAndDeletesNothing() async throws {
        let test = try makeSilentLossStore()
        _ = try await test.store.populate(json(#"[{"id": 99, "title": "old"}]"#), entity: "Issue")
        let server = CannedServer()
        server.enqueue(try json(#"{"items": [{"id": 1, "title": "a"}], "next": "p2"}"#), for: "p1")
        server.enqueue(try json(#"{"items": [{"id": 2, "title": "b"}, {"title": "no id"}], "next": null}"#), for: "p2")
        test.store.register(server, forEntity: "Issue")
        var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
        options.request.population.keyPath = "items"
        options.request.population.deleteOrphans = .all
        var pages = 0
        let failure = await #expect(throws: WebRecordError.self) {
            for try await _ in test.store.pages(entity: "Issue", urn: "p1", options: options) { pages += 1 }
        }
        #expect(failure?.code == .invalidResponseFormat)
        #expect(pages == 1)
        #expect(try test.store.fetch("Issue", orderBy: [.ascending("id")]).compactMap { $0["id"] as Int? } == [1, 99])
    }

    @Test func aNewRecordMissingANonOptionalAttributeIsNotStored() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(json(#"[{"id": 1}, {"id": 2, "title": "t"}]"#), entity: "Issue")
        let warning = try #require(result.debugger.errors.first { $0.message.contains("non-optional") })
        #expect(warning.entity == "Issue" && warning.property == "title" && !warning.isFatal)
        #expect(warning.message.contains("Issue(1)"))
        #expect(result.records.compactMap { $0["id"] as Int? } == [2])
        #expect(try test.store.count("Issue") == 1)
        // A non-optional attribute with a default is filled by it; an existing record may omit it.
        #expect(try test.store.fetchOne("Issue", primaryKey: 2)?["state"] as String? == "open")
        let update = try test.store.populate(json(#"[{"id": 2, "state": "closed"}]"#), entity: "Issue")
        #expect(update.changes.updated == 1)
    }

    @Test func anIncompleteNestedRecordLeavesItsOwnersLinksAsTheyWere() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(
            json(#"[{"id": 1, "title": "t", "author": {"login": "ann", "name": "Ann"}}]"#), entity: "Issue")
        // The new author has no name: not stored, and the issue keeps Ann.
        let result = try test.store.populate(json(#"[{"id": 1, "author": {"login": "bob"}}]"#), entity: "Issue")
        #expect(result.debugger.errors.contains { $0.entity == "Person" && $0.property == "name" })
        #expect(try test.store.fetchOne("Issue", primaryKey: 1)?.related("author")?["login"] as String? == "ann")
        #expect(try test.store.count("Person") == 1)
        // A reference by key (a stub) is exempt until its data arrives.
        _ = try test.store.populate(json(#"[{"id": 1, "author": "carl"}]"#), entity: "Issue")
        #expect(try test.store.fetchOne("Person", primaryKey: "carl") != nil)
    }

    @Test func aRecordIdentifiedByADroppedOwnerIsDroppedWithIt() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(
            json(#"[{"id": 4, "stats": {"comments": 3}}, {"id": 5, "title": "kept"}]"#), entity: "Issue")
        #expect(try test.store.count("Issue") == 1)
        #expect(try test.store.count("Stats") == 0)
        #expect(result.debugger.errors.contains { $0.entity == "Stats" })
    }

    @Test func anOwnerKeyedRecordNamingAnotherOwnerIsSkippedWithAClearError() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 2, "title": "two"}]"#), entity: "Issue")
        let result = try test.store.populate(
            json(#"[{"id": 1, "title": "one", "stats": {"issue": 2, "comments": 5}}]"#), entity: "Issue")
        let error = try #require(result.debugger.errors.first { $0.entity == "Stats" })
        #expect(!error.isFatal && error.code == .invalidResponseFormat)
        #expect(error.message.contains("Issue(1)") && error.message.contains("2"))
        #expect(error.keyPath == "issue")
        #expect(try test.store.count("Stats") == 0)
        // Naming the owner it is nested in is consistent.
        _ = try test.store.populate(json(#"[{"id": 1, "stats": {"issue": 1, "comments": 6}}]"#), entity: "Issue")
        #expect(try test.store.fetchOne("Issue", primaryKey: 1)?.related("stats")?["comments"] as Int? == 6)
    }

    @Test func anErrorObjectThatHasTheKeyFieldIsNotAListEither() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]"#), entity: "Issue")
        let before = try dumpContent(test.store)
        // "none of the N ... could be stored" when no record could; "M of the N ... could not be
        // stored" when some could, with orphan deletion.
        for (body, options, says) in [
            (#"{"id": 0, "error": "Bad credentials"}"#, orphanOptions(), "could be stored"),
            (#"{"id": 0, "error": "Bad credentials"}"#, PopulationOptions(), "could be stored"),
            (#"[{"id": 3}, {"id": 4}]"#, PopulationOptions(), "could be stored"),
            (#"[{"id": 3, "title": "c"}, {"id": 4}]"#, orphanOptions(), "could not be stored"),
        ] {
            let failure = try #require(throws: WebRecordError.self) {
                try test.store.populate(json(body), entity: "Issue", options: options)
            }
            #expect(failure.code == .invalidResponseFormat, "\(body)")
            #expect(failure.message.contains(says), "\(body): \(failure.message)")
            #expect(try dumpContent(test.store) == before, "\(body)")
        }
    }

    @Test func aNestedToOneWithANullOrInvalidKeyIsNotTakenForTheRecordRelatedThere() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "name": "one", "children": [{"id": 11}]}]"#), entity: "Unit")
        for nested in [
            #"{"id": null, "name": "Z"}"#, #"{"id": "abc", "name": "Z"}"#,
            #"{"id": 99999999999999999999, "name": "Z"}"#,
        ] {
            let result = try test.store.populate(json(#"[{"id": 11, "parent": \#(nested)}]"#), entity: "Unit")
            #expect(result.debugger.contains(.missingPrimaryKey), "\(nested)")
            let warning = result.debugger.errors.first { $0.code == .missingPrimaryKey }
            #expect(warning?.message.contains("in Unit(11).parent") == true, "\(String(describing: warning))")
            let one = try #require(try test.store.fetchOne("Unit", primaryKey: 1), "unit 1 lost its key: \(nested)")
            #expect(one["name"] as String? == "one", "\(nested)")
            #expect(try test.store.fetchOne("Unit", primaryKey: 11)?.related("parent")?["id"] as Int? == 1, "\(nested)")
        }
        // An owner-keyed record whose key relationship is null stays its owner's.
        _ = try test.store.populate(json(#"[{"id": 5, "title": "t", "stats": {"comments": 1}}]"#), entity: "Issue")
        let result = try test.store.populate(
            json(#"[{"id": 5, "stats": {"issue": null, "comments": 9}}]"#), entity: "Issue")
        #expect(result.debugger.errors.contains { $0.entity == "Stats" && $0.property == "issue" })
        let stats = try #require(try test.store.fetchOne("Issue", primaryKey: 5)?.related("stats"))
        #expect(stats["comments"] as Int? == 9)
        #expect(stats.related("issue")?["id"] as Int? == 5)
    }

    @Test func aRejectedRelationshipValueKeepsWhatIsStored() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "parent": 2, "children": [3, 4]}]"#), entity: "Unit")
        func unit() throws -> Record { try #require(try test.store.fetchOne("Unit", primaryKey: 1)) }
        for bad in [#""bad""#, "true", "[]", "[null]", #"[[2]]"#, #"{"id": "x"}"#] {
            _ = try test.store.populate(json(#"[{"id": 1, "parent": \#(bad)}]"#), entity: "Unit")
            #expect(try unit().related("parent")?["id"] as Int? == 2, "parent: \(bad)")
        }
        for bad in [#""bad""#, "true", "{}", #"[{"id": "bad"}]"#, #"[null, true, 1.5, "zz", [3]]"#] {
            let result = try test.store.populate(json(#"[{"id": 1, "children": \#(bad)}]"#), entity: "Unit")
            #expect(!result.debugger.warnings.isEmpty, "children: \(bad)")
            #expect(
                try unit().relatedRecords("children").compactMap { $0["id"] as Int? }.sorted() == [3, 4],
                "children: \(bad)")
        }
        // Valid members among rejected ones are added, and remove none (whatever the merge rule).
        _ = try test.store.populate(json(#"[{"id": 1, "children": [5, "bad"]}]"#), entity: "Unit")
        #expect(try unit().relatedRecords("children").compactMap { $0["id"] as Int? }.sorted() == [3, 4, 5])
        // Within one response, an invalid later duplicate never replaces a valid earlier link.
        _ = try test.store.populate(
            json(#"[{"id": 1, "parent": 7, "children": [8]}, {"id": 1, "parent": "bad", "children": "bad"}]"#),
            entity: "Unit")
        #expect(try unit().related("parent")?["id"] as Int? == 7)
        #expect(try unit().relatedRecords("children").compactMap { $0["id"] as Int? } == [8])
        // An explicit null still clears, and [] still empties a to-many (replace).
        _ = try test.store.populate(json(#"[{"id": 1, "parent": null, "children": []}]"#), entity: "Unit")
        #expect(try unit().related("parent") == nil)
        #expect(try unit().relatedRecords("children").isEmpty)
    }

    // MARK: - Identity is exact (§3.3)

    @Test func keysThatDifferOnlyInUnicodeNormalizationAreTwoRecordsEverywhere() throws {
        let test = try makeSilentLossStore()
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift's String equality: canonical equivalence
        let both = JSONValue.array([
            ["key": .string(nfc), "note": "composed"], ["key": .string(nfd), "note": "decomposed"],
        ])
        let result = try test.store.populate(both, entity: "Item")
        #expect(result.changes.inserted == 2)
        // Across responses, each updates its own row.
        _ = try test.store.populate(.array([["key": .string(nfd), "note": "decomposed, updated"]]), entity: "Item")
        let stored = try test.store.fetch("Item").map { ($0["key"] as String? ?? "", $0["note"] as String? ?? "") }
        #expect(stored.count == 2)
        #expect(stored.contains { Array($0.0.utf8) == Array(nfc.utf8) && $0.1 == "composed" })
        #expect(stored.contains { Array($0.0.utf8) == Array(nfd.utf8) && $0.1 == "decomposed, updated" })
        // And as references by key.
        _ = try test.store.populate(.array([.string(nfc), .string(nfd)]), entity: "Item")
        #expect(try test.store.count("Item") == 2)
    }

    @Test func integerIDsBeyondInt64KeepTheirDigitsInAStringKey() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(
            json(#"[{"key": 18446744073709551615, "note": "a"}, {"key": 18446744073709551614, "note": "b"}]"#),
            entity: "Item")
        #expect(result.changes.inserted == 2)
        let keys = try test.store.fetch("Item", orderBy: [.ascending("key")]).compactMap { $0["key"] as String? }
        #expect(keys == ["18446744073709551614", "18446744073709551615"])
        // The same id written as a string is the same record.
        let again = try test.store.populate(json(#"[{"key": "18446744073709551615", "note": "a"}]"#), entity: "Item")
        #expect(again.changes.unchanged == 1 && again.changes.inserted == 0)
    }

    @Test func aNumberThatCannotBeRepresentedIsRefusedAsAKeyNeverRounded() throws {
        let test = try makeSilentLossStore()
        // An integer key beyond Int64, and a double key a double cannot hold exactly.
        #expect(throws: WebRecordError.self) {
            try test.store.populate(json(#"[{"id": 9223372036854775808, "title": "t"}]"#), entity: "Issue")
        }
        let readings = try test.store.populate(
            json(
                #"[{"value": 9007199254740993}, {"value": 9007199254740992}, {"value": 0.5}, {"value": 1e2}, {"value": 100.0}]"#
            ),
            entity: "Reading")
        #expect(readings.changes.inserted == 3)  // 1e2 and 100.0 are one exact double key
        #expect(readings.debugger.contains(.missingPrimaryKey))
        #expect(try test.store.count("Issue") == 0)
    }

    @Test func aSchemaNamingAnUnregisteredTransformerIsRefusedBeforeAnythingIsWritten() throws {
        let schema = try Schema(
            json: """
                {"entities": {
                  "Thing": {"primaryKey": "id", "attributes": {"id": {"type": "string", "transformer": "nobodyRegisteredThis"}}},
                  "Other": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "v": {"type": "string", "transformer": "norThis"}}}
                }}
                """)
        let test = try RecordingStore(schema: schema)
        // The whole schema is checked, in its order, whatever the entity populated: both name
        // the first transformer missing, Thing's.
        for entity in ["Thing", "Other"] {
            let failure = try #require(throws: WebRecordError.self) {
                try test.store.populate(json(#"[{"id": 1}]"#), entity: entity)
            }
            #expect(failure.code == .invalidEntityDescription)
            #expect(failure.message.contains("nobodyRegisteredThis"), "\(entity): \(failure.message)")
        }
        #expect(try test.store.count("Thing") == 0 && test.store.count("Other") == 0)
    }

    @Test func aBadReferenceIsNamedByTheRelationshipThatHeldIt() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(json(#"[{"id": 1, "parent": true, "children": [false]}]"#), entity: "Unit")
        let mismatches = result.debugger.errors.filter { $0.code == .typeMismatch }
        #expect(Set(mismatches.compactMap(\.property)) == ["parent", "children"])
        #expect(mismatches.allSatisfy { $0.entity == "Unit" && $0.message.contains("an integer") })
        #expect(Set(mismatches.compactMap(\.keyPath)) == ["parent", "children.0"])
    }

    // MARK: - Coercion and duplicates (§3.7, §3.10)

    @Test func anInvalidLaterDuplicateNeverReplacesAValidEarlierValue() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(
            json(#"[{"key": "a", "n": 5, "note": "x"}, {"key": "a", "n": "bad", "note": null}]"#), entity: "Item")
        let item = try #require(try test.store.fetchOne("Item", primaryKey: "a"))
        #expect(item["n"] as Int? == 5)
        #expect(item["note"] as String? == "x")
        #expect(result.changes.inserted == 1)
        // A valid later value still wins.
        _ = try test.store.populate(
            json(#"[{"key": "a", "n": 5, "note": "x"}, {"key": "a", "n": "6"}]"#), entity: "Item")
        #expect(try test.store.fetchOne("Item", primaryKey: "a")?["n"] as Int? == 6)
    }

    @Test func readingAStoredNumberAsAnotherTypeNeverRounds() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(
            json(
                #"[{"key": "a", "note": "x", "ratio": 0.1, "amount": "12.0"}, {"key": "b", "note": "y", "ratio": 1.5, "amount": "1.5"}]"#
            ),
            entity: "Item")
        let a = try #require(try test.store.fetchOne("Item", primaryKey: "a"))
        let b = try #require(try test.store.fetchOne("Item", primaryKey: "b"))
        #expect(a["ratio"] as Decimal? == Decimal(string: "0.1", locale: Locale(identifier: "en_US_POSIX")))
        #expect(a["amount"] as Int? == 12)
        #expect(b["ratio"] as Int? == nil)
        #expect(b["amount"] as Int? == nil)
        #expect(b["amount"] as Double? == 1.5)
    }

    // MARK: - To-many merges (§3.11)

    @Test func replaceIsTheDefaultAndEmptiesOnAnEmptyListOrNull() throws {
        let test = try makeSilentLossStore()
        for emptying in ["[]", "null"] {
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "labels": ["bug", "ui"]}]"#), entity: "Issue")
            #expect(try test.store.fetchOne("Issue", primaryKey: 1)?.relatedRecords("labels").count == 2)
            let result = try test.store.populate(json(#"[{"id": 1, "labels": \#(emptying)}]"#), entity: "Issue")
            #expect(result.changesByEntity["Issue"]?.updated == 1, "labels: \(emptying)")
            #expect(try test.store.fetchOne("Issue", primaryKey: 1)?.relatedRecords("labels").isEmpty == true)
        }
        // A shorter list removes the others.
        _ = try test.store.populate(json(#"[{"id": 1, "labels": ["bug", "ui"]}]"#), entity: "Issue")
        _ = try test.store.populate(json(#"[{"id": 1, "labels": ["ui"]}]"#), entity: "Issue")
        #expect(
            try test.store.fetchOne("Issue", primaryKey: 1)?.relatedRecords("labels").map { $0["name"] as String? } == [
                "ui"
            ])
    }

    @Test func unionRemovesNothingOnAnEmptyListOrNull() throws {
        let test = try makeSilentLossStore()
        var union = PopulationOptions()
        union.mergePolicies["Issue.labels"] = .union
        _ = try test.store.populate(
            json(#"[{"id": 1, "title": "t", "labels": ["bug", "ui"]}]"#), entity: "Issue", options: union)
        for emptying in ["[]", "null", #"["new"]"#] {
            _ = try test.store.populate(json(#"[{"id": 1, "labels": \#(emptying)}]"#), entity: "Issue", options: union)
        }
        let names = try #require(try test.store.fetchOne("Issue", primaryKey: 1)).relatedRecords("labels").compactMap {
            $0["name"] as String?
        }
        #expect(Set(names) == ["bug", "ui", "new"])
    }

    @Test func aRecordOfAnotherBranchIsNotStoredAsTheRequestedEntity() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "out"}]"#), entity: "Link")
        let before = try dumpContent(test.store)
        // Asked for InwardLinks, the response says link 2 is an outward one: it is not turned
        // into an InwardLink, and with orphan deletion nothing is deleted.
        let result = try test.store.populate(
            json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "out"}]"#), entity: "InwardLink")
        #expect(
            result.debugger.errors.contains {
                $0.code == .invalidEntityDescription && $0.message.contains("not a kind of InwardLink")
            })
        #expect(try test.store.fetchOne("Link", primaryKey: 2)?.entity.name == "OutwardLink")
        #expect(throws: WebRecordError.self) {
            try test.store.populate(
                json(#"[{"id": 1, "kind": "in"}, {"id": 2, "kind": "out"}]"#), entity: "InwardLink",
                options: orphanOptions())
        }
        #expect(try dumpContent(test.store) == before)
        // The discriminator declared on Link governs its sub-entities too.
        let again = try test.store.populate(
            json(#"[{"id": 1, "kind": "in", "inwardNote": "x"}]"#), entity: "InwardLink")
        #expect(again.changes.updated == 1)
    }

    @Test func aReferenceByKeyToARecordOfAnotherBranchLinksNothing() throws {
        let schema = try Schema(
            json: """
                {"entities": {
                  "Item": {"primaryKey": "id", "abstract": true, "subentities": {"key": "kind", "map": {"book": "Book", "film": "Film"}},
                           "attributes": {"id": {"type": "integer"}}},
                  "Book": {"parent": "Item", "relationships": {"author": {"destination": "Person", "inverse": "books"}}},
                  "Film": {"parent": "Item", "attributes": {"minutes": {"type": "integer"}}},
                  "Person": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                             "relationships": {"books": {"destination": "Book", "toMany": true, "inverse": "author"},
                                               "best": {"destination": "Book"}}}
                }}
                """)
        let test = try RecordingStore(schema: schema)
        _ = try test.store.populate(
            json(#"[{"id": 1, "kind": "book"}, {"id": 2, "kind": "film", "minutes": 90}]"#), entity: "Item")
        let result = try test.store.populate(json(#"[{"id": 7, "books": [1, 2], "best": 2}]"#), entity: "Person")
        #expect(
            result.debugger.errors.contains { $0.code == .typeMismatch && $0.message.contains("not a kind of Book") })
        let person = try #require(try test.store.fetchOne("Person", primaryKey: 7))
        #expect(person.relatedRecords("books").compactMap { $0["id"] as Int? } == [1])
        #expect(person.related("best") == nil)
        #expect(try test.store.fetchOne("Item", primaryKey: 2)?.entity.name == "Film")
    }

    @Test func duplicatesOfTwoBranchesEndAsTheLaterOneAndSaySo() throws {
        let test = try makeSilentLossStore()
        let result = try test.store.populate(
            json(#"[{"id": 1, "kind": "in", "inwardNote": "a"}, {"id": 1, "kind": "out", "outwardNote": "b"}]"#),
            entity: "Link")
        let link = try #require(try test.store.fetchOne("Link", primaryKey: 1))
        #expect(link.entity.name == "OutwardLink" && link["outwardNote"] as String? == "b")
        #expect(result.debugger.warnings.contains { $0.message.contains("the later wins") })
    }

    // MARK: - Sub-entity switches (§3.13)

    @Test func aSubentitySwitchClearsWhatTheOldSubentityHad() throws {
        let test = try makeSilentLossStore()
        _ = try test.store.populate(
            json(
                #"[{"id": 1, "kind": "in", "inwardNote": "from A", "inwardLabel": "bug", "inwardLabels": ["x", "y"]}]"#),
            entity: "Link")
        _ = try test.store.populate(json(#"[{"id": 1, "kind": "out", "outwardNote": "to B"}]"#), entity: "Link")
        // Switching back without the inward data: none of the old values reappear.
        _ = try test.store.populate(json(#"[{"id": 1, "kind": "in"}]"#), entity: "Link")
        let link = try #require(try test.store.fetchOne("Link", primaryKey: 1))
        #expect(link.entity.name == "InwardLink")
        #expect(link["inwardNote"] as String? == nil)
        #expect(link["outwardNote"] as String? == nil)
        #expect(link.related("inwardLabel") == nil)
        #expect(link.relatedRecords("inwardLabels").isEmpty)
        // The labels themselves are not deleted: the switch nullifies.
        #expect(try test.store.count("Label") == 3)
    }
}
