import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A third store needs only the primitives of ``RecordStorageTransaction``: the in-memory store
/// of the tests (`Store/InMemoryRecordStorage.swift`), whose transaction implements nothing
/// else, is populated with the responses of the existing tests next to a SQLite store. After
/// each response the two hold the same rows (every table's `_id`, `_entity` and columns, and
/// every join row) and report the same changes, records and errors; each scenario then checks
/// that the response did what it is there for.
@Suite struct ThirdStoreTests {
    /// A SQLite store and an in-memory one, for one schema.
    struct Stores {
        let recording: RecordingStore
        let sqlite: SQLiteDatabase
        let memory: InMemoryRecordStorage

        init(_ schema: Schema) throws {
            recording = try RecordingStore(schema: schema)
            sqlite = try #require(recording.store.sqlite)
            memory = InMemoryRecordStorage(schema: schema)
        }

        init(json: String) throws { try self.init(Schema(json: json)) }

        /// Populates `response` into both stores, expects the same outcome, and returns the
        /// in-memory store's.
        @discardableResult
        func populate(
            _ response: JSONValue, entity: String, options: PopulationOptions = PopulationOptions(),
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> PopulationResult {
            let expected = try ResponsePopulation(store: sqlite, options: options).populate(response, entity: entity)
            memory.writes.withLock { $0 = [] }
            let result = try ResponsePopulation(store: memory, options: options).populate(response, entity: entity)
            expectSame(result, expected, sourceLocation: sourceLocation)
            return result
        }

        /// ``populate(_:entity:options:sourceLocation:)`` of JSON text.
        @discardableResult
        func populate(
            _ text: String, entity: String, options: PopulationOptions = PopulationOptions(),
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> PopulationResult {
            try populate(json(text), entity: entity, options: options, sourceLocation: sourceLocation)
        }

        /// The writes the in-memory store made for the last response.
        var writes: [String] { memory.writes.withLock { $0 } }

        /// Expects `result` (the in-memory store's) to be `expected` (SQLite's), and the two
        /// stores to hold the same rows.
        func expectSame(
            _ result: PopulationResult, _ expected: PopulationResult, sourceLocation: SourceLocation
        ) {
            #expect(result.changesByEntity == expected.changesByEntity, sourceLocation: sourceLocation)
            #expect(
                result.records.map(Summary.init) == expected.records.map(Summary.init), sourceLocation: sourceLocation)
            #expect(
                result.debugger.errors.map(\.message) == expected.debugger.errors.map(\.message),
                sourceLocation: sourceLocation)
            #expect(
                result.debugger.warnings.map(\.message) == expected.debugger.warnings.map(\.message),
                sourceLocation: sourceLocation)
            let rows = memoryRows
            let sqliteRows = (try? sqliteRows()) ?? [:]
            #expect(rows.keys.sorted() == sqliteRows.keys.sorted(), sourceLocation: sourceLocation)
            for table in sqliteRows.keys.sorted() {
                #expect(rows[table] == sqliteRows[table], "table \(table)", sourceLocation: sourceLocation)
            }
        }

        /// Every table of the layout, record tables by `_id` and join tables by value: each row
        /// the values of the table's columns in layout order.
        static func rows(
            of layout: StorageLayout, _ read: (_ table: String, _ columns: [String]) throws -> [[DatabaseValue]]
        ) rethrows -> [String: [[DatabaseValue]]] {
            var content: [String: [[DatabaseValue]]] = [:]
            for table in layout.tables {
                content[table.name] = try read(table.name, table.columns.map(\.name)).sorted {
                    rowID($0) < rowID($1)
                }
            }
            for join in layout.joinTables {
                content[join.name] = try read(join.name, join.columnNames).sorted { "\($0)" < "\($1)" }
            }
            return content
        }

        /// The `_id` a record table's row starts with.
        static func rowID(_ row: [DatabaseValue]) -> Int64 {
            if case .integer(let id)? = row.first { return id }
            return .min
        }

        /// The SQLite store's rows, read with SQL.
        func sqliteRows() throws -> [String: [[DatabaseValue]]] {
            try sqlite.read { connection in
                try Self.rows(of: sqlite.layout) { table, columns in
                    try connection.rows("SELECT \(columns.map(quote).joined(separator: ", ")) FROM \(quote(table))")
                }
            }
        }

        /// The in-memory store's rows.
        var memoryRows: [String: [[DatabaseValue]]] {
            let tables = memory.tables.withLock { $0 }
            return Self.rows(of: memory.layout) { table, columns in
                (tables[table] ?? []).map { row in columns.map { row[$0] ?? .null } }
            }
        }

        /// The in-memory store's records of `entity`'s table, by `_id`.
        func records(_ entity: String) throws -> [Record] {
            let table = try #require(memory.schema.entity(named: entity)).rootName
            let rows = memory.tables.withLock { $0[table] ?? [] }
            return try rows.map { row throws(WebRecordError) in try memory.record(from: row) }.sorted {
                $0.rowID < $1.rowID
            }
        }

        /// The primary keys of the records related through `relationship` to each record of
        /// `entity` in the in-memory store, read through the store, by the record's key.
        func members(_ relationship: String, of entity: String) throws -> [String: [String]] {
            func key(_ record: Record) -> String {
                record.primaryKeyValue.map { $0.stringValue ?? $0.description } ?? "?"
            }
            var members: [String: [String]] = [:]
            for record in try records(entity) {
                members[key(record)] = try memory.relatedRecords(of: record, relationship: relationship, limit: nil)
                    .map(key)
            }
            return members
        }

        /// The value of `column` in each row of the in-memory store's `table`, by `_id`.
        func column(_ column: String, of table: String) -> [DatabaseValue] {
            memory.tables.withLock { $0[table] ?? [] }.sorted {
                Self.rowID([$0["_id"] ?? .null]) < Self.rowID([$1["_id"] ?? .null])
            }
            .map { $0[column] ?? .null }
        }
    }

    /// What a population's result says of a record.
    struct Summary: Equatable {
        var entity: String
        var rowID: Int64
        var values: [String: DatabaseValue]

        init(_ record: Record) {
            entity = record.entity.name
            rowID = record.rowID
            values = record.storedValues
        }
    }

    static func options(_ change: (inout PopulationOptions) -> Void) -> PopulationOptions {
        var options = PopulationOptions()
        change(&options)
        return options
    }

    // MARK: - App.net

    /// `FixtureConformanceTests`' App.net response: inserts, a re-import that changes nothing,
    /// updates of a post, its user and the user's counts (identified by the user), and orphan
    /// deletion of the posts a shorter response leaves out, with the sources they identify.
    @Test func appNetInsertsReimportsUpdatesAndDeletesOrphans() throws {
        let stores = try Stores(Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/AppNet.json")))
        let text = try String(contentsOf: fixtureURL("mmrecord/appnet-posts.json"), encoding: .utf8)
        let inserted = try stores.populate(text, entity: "Post")
        #expect(inserted.changes.inserted == 20 + 18 + 18 + 20 + 18)

        let again = try stores.populate(text, entity: "Post")
        #expect(again.changes.inserted == 0 && again.changes.updated == 0 && again.changes.deleted == 0)
        #expect(again.changes.unchanged == 20 + 18 + 18 + 20 + 18)
        #expect(stores.writes.isEmpty, "a re-import writes nothing: \(stores.writes)")

        let edited = text.replacingOccurrences(of: "30 min in only", with: "an hour in")
            .replacingOccurrences(of: #""name": "sensei""#, with: #""name": "Sensei""#)
            .replacingOccurrences(of: #""followers": 374,"#, with: #""followers": 375,"#)
        let updated = try stores.populate(edited, entity: "Post")
        #expect(updated.changesByEntity["Post"]?.updated == 1)
        #expect(updated.changesByEntity["User"]?.updated == 1)
        #expect(updated.changesByEntity["Counts"]?.updated == 1)
        #expect(updated.changes.inserted == 0)

        let posts = try #require(try json(edited)["data"]?.arrayValue)
        let orphans = try stores.populate(
            ["data": .array(Array(posts.prefix(5)))], entity: "Post", options: Self.options { $0.deleteOrphans = .all })
        #expect(orphans.changesByEntity["Post"]?.deleted == 15)
        #expect(try stores.records("Post").count == 5)
        #expect(try stores.records("Source").count == 5, "a source goes with the post that identifies it")
        #expect(stores.writes.contains("delete Source where _id"))
        #expect(try stores.records("User").count == 18)
    }

    /// The same response streamed in small batches (which reserves `_id`s for every batch up
    /// front and ends each batch), with the async transaction, gives the same rows too.
    @Test func appNetStreamedInBatchesGivesTheSameRows() async throws {
        let stores = try Stores(Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/AppNet.json")))
        let data = try Data(contentsOf: fixtureURL("mmrecord/appnet-posts.json"))
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: 4096)
        }
        let expected = try await ResponsePopulation(store: stores.sqlite).populate(streaming: open, entity: "Post")
        let result = try await ResponsePopulation(store: stores.memory).populate(streaming: open, entity: "Post")
        stores.expectSame(result, expected, sourceLocation: #_sourceLocation)
        #expect(result.changes.inserted == 20 + 18 + 18 + 20 + 18)
        #expect(stores.writes.filter { $0.hasPrefix("insert Post ") }.count > 1, "several batches")
        let again = try await ResponsePopulation(store: stores.memory).populate(
            try json(String(decoding: data, as: UTF8.self)), entity: "Post")
        #expect(again.changes.updated == 0 && again.changes.inserted == 0)
    }

    // MARK: - Relationships

    /// `PopulationDecisionTests`' to-many merges (`orderedToManyKeepsResponseOrder`,
    /// `aMergePolicyOptionOverridesTheSchema`, `replaceMergeRemovesMembersAndCascadeDeletesThem`):
    /// an ordered many-to-many's join rows listed, merged by union (the members not listed
    /// renumbered after the listed ones) and replaced; a to-many kept on its members replaced,
    /// the dropped member deleted by the cascade rule, then emptied.
    @Test func joinRowsAndReplacedMembersWithCascade() throws {
        let stores = try Stores(Schema(json: decisionSchemaJSON, fileName: "Decisions.json"))
        try stores.populate(#"[{"id": 1, "title": "t", "tags": ["c", "a", "b"]}]"#, entity: "Post")
        #expect(try stores.members("tags", of: "Post") == ["1": ["c", "a", "b"]])

        let union = try stores.populate(
            #"[{"id": 1, "tags": [{"name": "b"}, {"name": "c"}]}]"#, entity: "Post",
            options: Self.options { $0.mergePolicies["Post.tags"] = .union })
        #expect(try stores.members("tags", of: "Post") == ["1": ["b", "c", "a"]])
        #expect(union.changesByEntity["Post"]?.updated == 1)
        #expect(stores.writes.contains("update _Post_tags set position where owner target"))

        try stores.populate(
            #"[{"id": 1, "tags": ["b"]}]"#, entity: "Post",
            options: Self.options { $0.mergePolicies["Post.tags"] = .replace })
        #expect(try stores.members("tags", of: "Post") == ["1": ["b"]])
        #expect(try stores.records("Tag").count == 3, "replacing unlinks tags, it does not delete them")
        #expect(stores.writes.contains("delete _Post_tags where owner target"))

        try stores.populate(#"[{"id": 2, "title": "t", "comments": [{"id": 10}, {"id": 11}]}]"#, entity: "Post")
        let replaced = try stores.populate(#"[{"id": 2, "comments": [{"id": 11}, {"id": 12}]}]"#, entity: "Post")
        #expect(replaced.changesByEntity["Comment"]?.deleted == 1)
        #expect(stores.writes.contains("delete Comment where _id"))
        #expect(try stores.records("Comment").map(\.primaryKeyValue) == [11, 12])
        let emptied = try stores.populate(#"[{"id": 2, "comments": []}]"#, entity: "Post")
        #expect(emptied.changesByEntity["Comment"]?.deleted == 2)
        #expect(try stores.records("Comment").isEmpty)
    }

    /// `StoreSchemas.blog`'s ordered one-to-many (`Post.comments`, key and position in
    /// `Comment`): merged by union, the members not listed move after the listed ones; replaced
    /// (the default, with no cascade), the dropped ones are unlinked, position and all.
    @Test func anOrderedToManyKeptOnItsMembersMergedAndReplaced() throws {
        let stores = try Stores(StoreSchemas.blog())
        try stores.populate(#"[{"id": 1, "comments": [{"id": 1}, {"id": 2}, {"id": 3}]}]"#, entity: "Post")
        #expect(try stores.members("comments", of: "Post") == ["1": ["1", "2", "3"]])

        let union = try stores.populate(
            #"[{"id": 1, "comments": [{"id": 3}, {"id": 4}]}]"#, entity: "Post",
            options: Self.options { $0.mergePolicies["Post.comments"] = .union })
        #expect(try stores.members("comments", of: "Post") == ["1": ["3", "4", "1", "2"]])
        #expect(union.changesByEntity["Post"]?.updated == 1)
        #expect(
            stores.writes.contains("update Comment set _position_post where _id post _position_post"),
            "the others moved")

        try stores.populate(#"[{"id": 1, "comments": [{"id": 4}, {"id": 1}]}]"#, entity: "Post")
        #expect(try stores.members("comments", of: "Post") == ["1": ["4", "1"]])
        let unlinked = try stores.records("Comment").filter { $0.storedValues["post"] == .null }
        #expect(unlinked.map(\.primaryKeyValue) == [2, 3])
        #expect(unlinked.allSatisfy { $0.storedValues["_position_post"] == .null })
        #expect(stores.writes.contains("update Comment set post _position_post where _id post"))
    }

    /// Docs/Population.md: with an ordered `union` the "members it did not list keep their
    /// relative order after them", kept on the members (`moveMembers`: `[1, 2, 3, 4]` merged
    /// with `[4, 5]`) and in a join table (`setJoinRows`: `[z, y, x]` merged with `[q]`). Both
    /// stores once broke the order: a moved member could tie with one not moved, the tie going
    /// by `_id`, and a join table's others were renumbered in `_id` order.
    @Test func anOrderedUnionKeepsTheOrderOfTheMembersNotListed() throws {
        let union = Self.options {
            $0.mergePolicies["Post.comments"] = .union
            $0.mergePolicies["Post.tags"] = .union
        }
        let blog = try Stores(StoreSchemas.blog())
        try blog.populate(#"[{"id": 1, "comments": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]}]"#, entity: "Post")
        try blog.populate(#"[{"id": 1, "comments": [{"id": 4}, {"id": 5}]}]"#, entity: "Post", options: union)
        let decisions = try Stores(Schema(json: decisionSchemaJSON, fileName: "Decisions.json"))
        try decisions.populate(#"[{"id": 1, "title": "t", "tags": ["x", "y", "z"]}]"#, entity: "Post")
        try decisions.populate(#"[{"id": 1, "tags": ["z", "y", "x"]}]"#, entity: "Post")
        try decisions.populate(#"[{"id": 1, "tags": ["q"]}]"#, entity: "Post", options: union)
        let comments = try blog.members("comments", of: "Post")["1"]
        let tags = try decisions.members("tags", of: "Post")["1"]
        #expect(comments == ["4", "5", "1", "2", "3"])
        #expect(tags == ["q", "z", "y", "x"])
    }

    /// `StoreSchemas.blog`'s one-to-one `User.passport` / `Passport.holder` (the key in
    /// `Passport`): a passport claimed from the user's side moves to the new holder, and a
    /// holder given another passport from the passport's side clears the old one's reference.
    @Test func aOneToOneMovesAndClearsTheOldReference() throws {
        let stores = try Stores(StoreSchemas.blog())
        try stores.populate(#"[{"id": "u1", "passport": {"number": "P1"}}]"#, entity: "User")
        let moved = try stores.populate(#"[{"id": "u2", "passport": {"number": "P1"}}]"#, entity: "User")
        #expect(try stores.members("passport", of: "User") == ["u1": [], "u2": ["P1"]])
        #expect(moved.changesByEntity["Passport"]?.updated == 1)

        let cleared = try stores.populate(#"[{"number": "P2", "holder": "u2"}]"#, entity: "Passport")
        #expect(try stores.members("holder", of: "Passport") == ["P1": [], "P2": ["u2"]])
        #expect(cleared.changesByEntity["Passport"]?.inserted == 1)
        #expect(try stores.members("passport", of: "User") == ["u1": [], "u2": ["P2"]])
        #expect(stores.writes.contains("update Passport set holder where _id holder"), "P1's holder cleared")
    }

    /// `SelfInverseRelationshipTests`' schema, with the responses of
    /// `PostgreSQLSymmetryAndSparingTests`: a many-to-many that is its own inverse mirrored
    /// (replaced, ordered, merged by union) and a one-to-one that is its own inverse paired
    /// and exclusive.
    @Test func relationshipsThatAreTheirOwnInverse() throws {
        let stores = try Stores(json: SelfInverseRelationshipTests.schema)
        try stores.populate(#"[{"id": 1, "friends": [2, 3]}]"#, entity: "User")
        try stores.populate(#"[{"id": 2, "friends": [4]}]"#, entity: "User")
        #expect(stores.writes.contains("delete _User_friends where owner target"), "1 no longer lists 2")
        #expect(try stores.members("friends", of: "User") == ["1": ["3"], "2": ["4"], "3": ["1"], "4": ["2"]])

        try stores.populate(#"[{"id": 2, "ranked": [5, 6]}]"#, entity: "User")
        try stores.populate(#"[{"id": 1, "ranked": [3, 2]}]"#, entity: "User")
        let ranked = try stores.members("ranked", of: "User")
        #expect(ranked["1"] == ["3", "2"] && ranked["2"] == ["5", "6", "1"])

        try stores.populate(#"[{"id": 1, "pals": [2]}]"#, entity: "User")
        try stores.populate(#"[{"id": 1, "pals": [3]}]"#, entity: "User")
        let pals = try stores.members("pals", of: "User")
        #expect(pals["1"] == ["2", "3"] && pals["3"] == ["1"])

        try stores.populate(#"[{"id": 1, "spouse": 2}]"#, entity: "User")
        try stores.populate(#"[{"id": 3, "spouse": 1}]"#, entity: "User")
        #expect(
            stores.writes.filter { $0 == "update User set spouse where _id spouse" }.count == 1, "paired, 2 unlinked")
        try stores.populate(#"[{"id": 4, "spouse": 5}, {"id": 5, "spouse": 6}]"#, entity: "User")
        let spouses = try stores.members("spouse", of: "User")
        #expect(spouses["1"] == ["3"] && spouses["3"] == ["1"] && spouses["2"] == [])
        #expect(spouses["4"] == [] && spouses["5"] == ["6"] && spouses["6"] == ["5"])
    }

    // MARK: - Seeded responses

    /// `StreamedDifferentialTests`' seeded random responses over its schema (every kind of key
    /// and relationship; records repeated with differing values, nulls, absent keys and values
    /// of the wrong type), two after another into both stores, the second deleting orphans for
    /// some seeds (by no predicate, or by the closure): the stores must agree, failures included.
    @Test(arguments: Array(UInt64(1)...48))
    func seededResponsesGiveTheSameRows(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 7919)
        var options = PopulationOptions()
        switch random.next(below: 3) {
        case 0: options.deleteOrphans = .all
        case 1: options.orphanDeletion = { orphan, _, _, _ in (orphan["id"] as Int64?).map { $0 % 2 == 0 } ?? false }
        default: break
        }
        let orphans = options.deleteOrphans != nil || options.orphanDeletion != nil
        var generator = StreamedDifferentialTests.Generator(
            seed: seed, relationshipsDiffer: seed % 2 == 0, keysRequired: orphans && seed % 4 != 0)
        let stores = try Stores(StreamedDifferentialTests.schema)
        var wrote = false
        let earlier = generator.response(count: 6 + generator.random.next(below: 10))
        let text = generator.response(count: 8 + generator.random.next(below: 16))
        for (text, options) in [(earlier, PopulationOptions()), (text, options)] {
            let response = try json(text)
            let expected = Result { () throws(WebRecordError) in
                try ResponsePopulation(store: stores.sqlite, options: options).populate(response, entity: "Post")
            }
            let result = Result { () throws(WebRecordError) in
                try ResponsePopulation(store: stores.memory, options: options).populate(response, entity: "Post")
            }
            switch (result, expected) {
            case (.success(let result), .success(let expected)):
                stores.expectSame(result, expected, sourceLocation: #_sourceLocation)
                wrote = wrote || result.changes != ChangeCounts()
            case (.failure(let error), .failure(let expected)):
                #expect(error.code == expected.code && error.message == expected.message, "seed \(seed)")
                #expect(stores.memoryRows == (try stores.sqliteRows()), "seed \(seed)")
            default:
                Issue.record("seed \(seed): in memory \(result), in SQLite \(expected)")
            }
        }
        #expect(wrote, "seed \(seed) wrote something")
    }

    // MARK: - Deletes

    /// `PostgreSQLSymmetryAndSparingTests`' cascades: orphan deletion (no predicate) deletes a
    /// folder, which cascades to its children and tags but spares what the response held; the
    /// spared child's reference to the deleted parent is cleared by the store's delete. Then a
    /// cascade cycle stops at what the response held.
    @Test func orphanDeletionCascadesAndSparesWhatTheResponseHeld() throws {
        let orphans = Self.options { $0.deleteOrphans = .all }
        let stores = try Stores(json: OrphanSparingTests.schema)
        try stores.populate(
            #"[{"id": 1, "children": [{"id": 2}], "tags": [{"id": "a"}, {"id": "b"}]}]"#, entity: "Folder")
        let deleted = try stores.populate(#"[{"id": 2, "tags": ["a"]}]"#, entity: "Folder", options: orphans)
        #expect(deleted.changesByEntity["Folder"]?.deleted == 1)
        #expect(stores.writes.contains("delete Folder where _id"))
        #expect(deleted.changesByEntity["Tag"]?.deleted == 1)
        #expect(try stores.members("parent", of: "Folder") == ["2": []])
        #expect(try stores.members("tags", of: "Folder") == ["2": ["a"]])

        let cycle = try Stores(json: OrphanSparingTests.schema)
        try cycle.populate(
            #"[{"id": 1, "children": [{"id": 2, "children": [{"id": 3, "children": [{"id": 1}]}]}]}]"#, entity: "Folder"
        )
        let stopped = try cycle.populate(#"[{"id": 2}]"#, entity: "Folder", options: orphans)
        #expect(stopped.changesByEntity["Folder"]?.deleted == 2)
        #expect(try cycle.members("parent", of: "Folder") == ["2": []])
    }

    /// A predicate the in-memory store cannot read fails the population with a clear error, and
    /// the transaction's writes before it are rolled back.
    @Test func aPredicateFailsClearlyAndRollsBack() throws {
        let stores = try Stores(Schema(json: decisionSchemaJSON, fileName: "Decisions.json"))
        try stores.populate(#"[{"id": 1, "title": "keep"}, {"id": 2, "title": "drop"}]"#, entity: "Post")
        let before = stores.memoryRows
        let error = try #require(throws: WebRecordError.self) {
            try ResponsePopulation(
                store: stores.memory, options: Self.options { $0.deleteOrphans = .matching("title = ?", ["drop"]) }
            )
            .populate(try json(#"[{"id": 1, "title": "changed"}, {"id": 3, "title": "new"}]"#), entity: "Post")
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("title = ?"), "\(error.message)")
        #expect(stores.memoryRows == before)
        #expect(try stores.records("Post").map(\.primaryKeyValue) == [1, 2])
    }

    // MARK: - The store's own promises

    /// The primitives themselves, against SQLite's: deleting a row clears the foreign keys to
    /// it and removes its join rows, reports which keys had a row, and a reference to no row
    /// fails the commit and rolls everything back.
    @Test func deletesClearReferencesAndRemoveJoinRowsAsSQLiteDoes() throws {
        let stores = try Stores(StoreSchemas.blog())
        func write<S: RecordStorage>(_ store: S) throws -> [[Bool]] {
            try store.inTransaction { transaction in
                try transaction.insert(
                    into: "User", columns: ["_id", "_entity", "id"], values: [.integer(1), .text("User"), .text("u")])
                try transaction.insert(
                    into: "Post", columns: ["_id", "_entity", "id", "author"],
                    values: [
                        .integer(1), .text("Post"), .integer(7), .integer(1), .integer(2), .text("Post"), .integer(8),
                        .integer(1),
                    ])
                try transaction.insert(
                    into: "Comment", columns: ["_id", "_entity", "id", "post", "_position_post"],
                    values: [.integer(1), .text("Comment"), .integer(3), .integer(1), .integer(0)])
                try transaction.insert(
                    into: "Tag", columns: ["_id", "_entity", "name"], values: [.integer(1), .text("Tag"), .text("t")])
                try transaction.insert(
                    into: "_Post_tags", columns: ["owner", "target"],
                    values: [.integer(1), .integer(1), .integer(2), .integer(1)])
                return [
                    try transaction.delete(from: "User", where: ["_id"], areIn: KeyTuples(rowIDs: [1, 99])),
                    try transaction.delete(from: "Post", where: ["id"], areIn: KeyTuples([.integer(7)])),
                ]
            }
        }
        let deleted = try write(stores.memory)
        #expect(deleted == (try write(stores.sqlite)))
        #expect(deleted == [[true, false], [true]])
        let rows = stores.memoryRows
        #expect(rows == (try stores.sqliteRows()))
        #expect(stores.column("author", of: "Post") == [.null], "the author's deletion cleared Post.author")
        #expect(stores.column("post", of: "Comment") == [.null], "the post's deletion cleared Comment.post")
        #expect(stores.column("_position_post", of: "Comment") == [.integer(0)], "a position is no reference")
        #expect(rows["_Post_tags"] == [[.integer(2), .integer(1)]], "the post's deletion removed its join row")

        func dangle<S: RecordStorage>(_ store: S) throws {
            try store.inTransaction { transaction in
                try transaction.insert(
                    into: "Tag", columns: ["_id", "_entity", "name"], values: [.integer(2), .text("Tag"), .text("x")])
                try transaction.insert(
                    into: "_Post_tags", columns: ["owner", "target"], values: [.integer(9), .integer(2)])
            }
        }
        #expect(throws: WebRecordError.self) { try dangle(stores.memory) }
        #expect(throws: WebRecordError.self) { try dangle(stores.sqlite) }
        #expect(stores.memoryRows == rows)
        #expect(try stores.sqliteRows() == rows)
    }
}
