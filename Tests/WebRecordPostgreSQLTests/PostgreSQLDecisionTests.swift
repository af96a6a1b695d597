import Foundation
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// DESIGN §3's decisions on the PostgreSQL store: each scenario of the decision tests
/// (`Tests/WebRecordTests/Population/PopulationDecisionTests.swift`, on the same schema,
/// `decisionSchemaJSON`) runs its responses through both stores, and after each response the
/// two hold the same rows, table by table, and report the same changes and the same errors.
/// The decision tests check what the rows must be; these check that PostgreSQL gives the same.
@Suite struct PostgreSQLDecisionTests {
    /// One response of a scenario: its records' entity, its JSON text, and its options.
    struct Step: Sendable {
        var entity: String
        var json: String
        var options = PopulationOptions()
    }

    /// Responses populated one after another.
    struct Scenario: Sendable, CustomStringConvertible {
        var description: String
        var steps: [Step]

        init(_ description: String, _ steps: [Step]) {
            self.description = description
            self.steps = steps
        }
    }

    static func options(_ change: (inout PopulationOptions) -> Void) -> PopulationOptions {
        var options = PopulationOptions()
        change(&options)
        return options
    }

    static let scenarios: [Scenario] = [
        Scenario(
            "§3.1 key paths",
            [
                Step(
                    entity: "Post", json: #"{"data": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}], "meta": {}}"#),
                Step(entity: "Post", json: #"[{"id": 3, "title": "c"}]"#),
                Step(entity: "Post", json: #"{"data": {"id": 4, "title": "d"}}"#),
                Step(
                    entity: "Post", json: #"{"response": {"items": [{"id": 5, "title": "e"}]}}"#,
                    options: options { $0.keyPath = "response.items" }),
                Step(entity: "Post", json: #"{"data": null}"#),
            ]),
        Scenario(
            "§3.3 keys normalized, composite, inherited",
            [
                Step(entity: "Post", json: #"[{"id": 5, "title": "five"}]"#),
                Step(entity: "Post", json: #"[{"id": "5", "text": "again"}]"#),
                Step(
                    entity: "Event",
                    json: #"[{"source": "a", "number": 1, "label": "x"}, {"source": "b", "number": 1, "label": "y"}]"#),
                Step(entity: "Event", json: #"[{"source": "a", "number": "1", "label": "z"}]"#),
                Step(entity: "Shape", json: #"[{"id": 1, "kind": "circle", "radius": 2}]"#),
                Step(entity: "Shape", json: #"[{"id": 1, "kind": "circle", "radius": 3}]"#),
            ]),
        Scenario(
            "§3.4 keys that are relationships",
            [
                Step(
                    entity: "Post",
                    json: #"[{"id": 1, "title": "t", "user": {"id": "u1", "counts": {"followers": 10}}}]"#),
                Step(
                    entity: "Post",
                    json: #"[{"id": 1, "title": "t", "user": {"id": "u1", "counts": {"followers": 11}}}]"#),
                Step(entity: "Counts", json: #"[{"user": "u1", "followers": 2}]"#),
            ]),
        Scenario(
            "§3.4 a record identified by its owner is deleted when unlinked, not left keyless",
            [
                Step(entity: "User", json: #"[{"id": "u1", "counts": {"followers": 1}}]"#),
                Step(entity: "User", json: #"[{"id": "u1", "counts": null}]"#),
                Step(entity: "User", json: #"[{"id": "u1", "counts": {"followers": 2}}]"#),
                Step(entity: "User", json: #"[{"id": "u1", "counts": null}, {"id": "u2", "counts": null}]"#),
            ]),
        Scenario(
            "§3.5 injection and missing keys",
            [
                Step(
                    entity: "Post", json: #"[{"slug": "same", "title": "one"}, {"slug": "same", "text": "two"}]"#,
                    options: options {
                        $0.primaryKeyInjection = { entity, dictionary, _ in
                            entity.name == "Post"
                                ? dictionary["slug"].flatMap { $0.stringValue == "same" ? .integer(42) : nil } : nil
                        }
                    }),
                Step(
                    entity: "Post", json: #"[{"id": 3, "title": "t", "attachment": {"url": "x"}}]"#,
                    options: options {
                        $0.primaryKeyInjection = { entity, _, parent in
                            entity.name == "Attachment"
                                ? parent.flatMap { $0.primaryKeyValue.flatMap { .integer(($0.int64Value ?? 0) * 100) } }
                                : nil
                        }
                    }),
                Step(entity: "Post", json: #"[{"title": "no key"}, {"id": 5, "title": "keyed"}]"#),
                Step(entity: "Post", json: #"[{"title": "no key"}, {"id": 5, "title": "keyed"}]"#),
            ]),
        Scenario(
            "§3.6 and §3.7 keyless nested objects, duplicates",
            [
                Step(entity: "Post", json: #"[{"id": 1, "title": "t", "attachment": {"url": "a"}}]"#),
                Step(entity: "Post", json: #"[{"id": 1, "title": "t", "attachment": {"url": "b"}}]"#),
                Step(
                    entity: "Post",
                    json:
                        #"[{"id": 1, "title": "first", "text": "kept"}, {"id": 2, "title": "other"}, {"id": 1, "title": "second", "score": 1.5}]"#
                ),
            ]),
        Scenario(
            "§3.9 and §3.10 attributes and coercion",
            [
                Step(entity: "User", json: #"[{"id": "u", "avatar_image": {"url": "https://example.com/a.png"}}]"#),
                Step(entity: "Post", json: #"[{"id": 1, "title": "t", "text": "x", "score": 2, "flag": "yes"}]"#),
                Step(entity: "Post", json: #"[{"id": 1, "text": null, "flag": 0}]"#),
                Step(entity: "Post", json: #"[{"id": 1, "title": null}]"#),
                Step(
                    entity: "Post",
                    json:
                        #"[{"id": 2, "title": "t", "views": "12abc", "score": "2.5", "date": "2012-11-21T02:33:42Z"}, {"id": 3, "title": "u", "date": "21/11/2012", "flag": "maybe"}]"#
                ),
            ]),
        Scenario(
            "§3.11 relationships",
            [
                Step(entity: "Post", json: #"[{"id": 1, "title": "t", "user": "u9"}]"#),
                Step(entity: "User", json: #"[{"id": "u9", "name": "Nine"}]"#),
                Step(entity: "Post", json: #"[{"id": 2, "title": "t", "user": [{"id": "a"}, {"id": "b"}]}]"#),
                Step(
                    entity: "Post",
                    json:
                        #"[{"id": 3, "title": "a", "user": {"id": "u"}}, {"id": 4, "title": "b", "user": {"id": "u"}}]"#
                ),
                Step(entity: "Post", json: #"[{"id": 4, "user": {"id": "v"}}, {"id": 3, "user": null}, {"id": 2}]"#),
            ]),
        Scenario(
            "§3.11 to-many merges",
            [
                Step(entity: "Post", json: #"[{"id": 1, "title": "t", "tags": ["c", "a", "b"]}]"#),
                Step(
                    entity: "Post", json: #"[{"id": 1, "tags": [{"name": "b"}, {"name": "c"}]}]"#,
                    options: options { $0.mergePolicies["Post.tags"] = .union }),
                Step(
                    entity: "Post", json: #"[{"id": 1, "tags": ["b"]}]"#,
                    options: options { $0.mergePolicies["Post.tags"] = .replace }),
                Step(entity: "Post", json: #"[{"id": 2, "title": "t", "comments": [{"id": 10}, {"id": 11}]}]"#),
                Step(entity: "Post", json: #"[{"id": 2, "comments": [{"id": 11}, {"id": 12}]}]"#),
                Step(entity: "Post", json: #"[{"id": 2, "comments": []}]"#),
                // An ordered union keeps the order of the members it does not list, after them.
                Step(entity: "Post", json: #"[{"id": 5, "title": "t", "tags": ["x", "y", "z"]}]"#),
                Step(entity: "Post", json: #"[{"id": 5, "tags": ["z", "y", "x"]}]"#),
                Step(
                    entity: "Post", json: #"[{"id": 5, "tags": ["q"]}]"#,
                    options: options { $0.mergePolicies["Post.tags"] = .union }),
            ]),
        Scenario(
            "§3.13 sub-entities",
            [
                Step(
                    entity: "Shape",
                    json: #"[{"id": 1, "kind": "circle", "radius": 1}, {"id": 2, "kind": "square", "side": 2}]"#),
                Step(entity: "Shape", json: #"[{"id": 1, "kind": "square", "side": 5}, {"id": 3, "kind": "hexagon"}]"#),
            ]),
        Scenario(
            "§3.14 orphan deletion",
            [
                Step(
                    entity: "Post",
                    json: #"[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}, {"id": 3, "title": "c"}]"#),
                Step(entity: "Post", json: #"[{"id": 2}]"#, options: options { $0.deleteOrphans = .all }),
                Step(
                    entity: "Post",
                    json: #"[{"id": 4, "title": "keep"}, {"id": 5, "title": "drop"}, {"id": 6, "title": "x"}]"#),
                Step(
                    entity: "Post", json: #"[{"id": 6}]"#,
                    options: options { $0.deleteOrphans = .matching("title = ?", ["drop"]) }),
                Step(
                    entity: "Post", json: #"[{"id": 6}]"#,
                    options: options {
                        $0.orphanDeletion = { orphan, _, _, stop in
                            if orphan.primaryKeyValue == 2 { stop = true }
                            return orphan.primaryKeyValue != 4
                        }
                    }),
            ]),
    ]

    @Test(arguments: scenarios)
    func aScenarioGivesTheSameRowsInBothStores(scenario: Scenario) throws {
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        var changed = false
        for (index, step) in scenario.steps.enumerated() {
            let response = try JSONReader().read(step.json)
            let expected = try ResponsePopulation(store: sqlite, options: step.options)
                .populate(response, entity: step.entity)
            let result = try ResponsePopulation(store: postgreSQL, options: step.options)
                .populate(response, entity: step.entity)
            #expect(result.changesByEntity == expected.changesByEntity, "step \(index)")
            #expect(
                result.records.map(\.primaryKeyValue) == expected.records.map(\.primaryKeyValue), "step \(index)")
            #expect(result.debugger.errors.map(\.message) == expected.debugger.errors.map(\.message), "step \(index)")
            let content = try PostgreSQLStores.content(of: postgreSQL)
            let sqliteContent = try PostgreSQLStores.content(of: sqlite)
            for table in sqliteContent.keys.sorted() {
                #expect(content[table] == sqliteContent[table], "step \(index), table \(table)")
            }
            changed = changed || result.changes != ChangeCounts()
        }
        #expect(changed, "the scenario wrote something")
    }

    @Test func aFatalErrorLeavesBothStoresAsTheyWere() throws {
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": 1, "title": "a", "user": {"id": "u"}, "tags": ["x"]}]"#), entity: "Post")
        let before = try PostgreSQLStores.content(of: postgreSQL)
        // A failure under the population: a trigger that refuses one tag.
        _ = try postgreSQL.withConnection { connection in
            try connection.execute(
                """
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW."name" = 'boom' THEN RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$
                """)
            try connection.execute(
                "CREATE TRIGGER fail AFTER INSERT ON \"Tag\" FOR EACH ROW EXECUTE FUNCTION refuse()")
        }
        let error = try #require(throws: WebRecordError.self) {
            _ = try ResponsePopulation(store: postgreSQL).populate(
                try JSONReader().read(
                    #"[{"id": 1, "title": "changed", "user": {"id": "v"}}, {"id": 2, "title": "b", "tags": ["boom"]}]"#),
                entity: "Post")
        }
        #expect(error.code == .storeError)
        #expect(error.sqlState == "P0001")
        #expect(error.message.contains("injected"))
        #expect(error.debugger?.primaryError != nil)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == before)
    }
}

/// Cancelling the task a PostgreSQL write runs for interrupts it and rolls it back, as on SQLite.
@Suite struct PostgreSQLCancellationTests {
    @Test func aPopulationInACancelledTaskIsCancelledAndWritesNothing() async throws {
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema)
        _ = try await ResponsePopulation(store: postgreSQL).populate(
            try JSONReader().read(#"[{"id": 1, "title": "a"}]"#), entity: "Post")
        let before = try PostgreSQLStores.content(of: postgreSQL)
        let response = try JSONReader().read(#"[{"id": 1, "title": "changed"}, {"id": 2, "title": "b"}]"#)
        let task = Task { () -> WebRecordError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await ResponsePopulation(store: postgreSQL).populate(response, entity: "Post")
                return nil
            } catch {
                return (error as? WebRecordError)?.code
            }
        }
        #expect(await task.value == .cancelled)
        #expect(try PostgreSQLStores.content(of: postgreSQL) == before)
    }

    @Test func cancellingTheTaskInterruptsTheStatementTheServerRuns() async throws {
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let location = try PostgreSQLStores.newDatabase()
        let postgreSQL = try PostgreSQLStores.postgreSQL(schema, at: location)
        try await postgreSQL.write { _ in }
        let task = Task {
            try await postgreSQL.write { connection in
                try connection.execute("INSERT INTO \"Tag\" (\"_entity\", \"name\") VALUES ('Tag', 'x')")
                try connection.execute("SELECT pg_sleep(600)")
            }
        }
        // Cancelled once the server runs the sleep (a busy machine can start the task late),
        // which would last ten minutes: however late the cancellation comes, it comes
        // during the sleep.
        let watcher = try PostgreSQLConnection(location)
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        var sleeping = false
        while !sleeping, Date() < deadline {
            sleeping =
                try watcher.scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
                        + "AND query LIKE '%pg_sleep(600)%'") == .integer(1)
            if !sleeping { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(sleeping, "the server never ran the sleep")
        task.cancel()
        let error = await #expect(throws: WebRecordError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        // 57014: the server cancelled the running `pg_sleep(600)`; a write that had waited for it
        // to end would have been cancelled with no such cause.
        #expect((error?.cause as? WebRecordError)?.sqlState == "57014")
        // Rolled back, and the connection goes on.
        #expect(try postgreSQL.withConnection { try $0.scalar("SELECT count(*) FROM \"Tag\"") } == .integer(0))
    }
}
