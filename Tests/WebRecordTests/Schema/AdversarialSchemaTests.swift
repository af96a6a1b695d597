import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial schemas: schemas that `webrecord lint` accepts (they load without a problem), then
/// populated with realistic responses, first import and re-imports, whose stored rows must be
/// what the server sent: never a duplicate, a lost value, a value in another column or table, or
/// an unclear failure (DESIGN §3.3: "A schema that lints never duplicates a record on
/// re-import").
@Suite("Schema: adversarial schemas that lint")
struct AdversarialSchemaTests {
    // MARK: - Support

    /// The schema whose `entities` object has `body`; it must lint, as `webrecord lint` (SQLite)
    /// checks: loading it reports every problem.
    static func schema(_ body: String) throws -> Schema {
        try Schema(json: #"{"version": 1, "entities": {"# + body + "}}", fileName: "adversarial.json")
    }

    /// Every row of every table, byte exact (``AdversarialStreamTests/rows(of:)``).
    static func rows(_ store: RecordStore) throws -> [String] { try AdversarialStreamTests.rows(of: store) }

    /// What one population did: its result, or the failure's message.
    struct Outcome {
        var result: PopulationResult?
        var failure: String?
        var warnings: [String] { result?.debugger.warnings.map(\.message) ?? [] }
    }

    /// Populates `text` as `entity` records into `store`.
    @discardableResult
    static func populate(_ store: RecordStore, _ text: String, entity: String) async throws -> Outcome {
        do {
            return Outcome(result: try await store.populate(try JSONReader().read(text), entity: entity))
        } catch let error as WebRecordError {
            return Outcome(failure: error.message)
        }
    }

    /// `responses` populated in turn into a new store of `schema`, each twice (an import, then a
    /// re-import of the same response); the rows after each, which a re-import must not change,
    /// and the failures, which there must be none of.
    static func importTwice(
        _ responses: [String], schema: Schema, entity: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let store = try RecordStore(inMemory: schema)
        for response in responses {
            let first = try await populate(store, response, entity: entity)
            #expect(first.failure == nil, "import of \(response)", sourceLocation: sourceLocation)
            let afterFirst = try rows(store)
            let again = try await populate(store, response, entity: entity)
            #expect(again.failure == nil, "re-import of \(response)", sourceLocation: sourceLocation)
            #expect(try rows(store) == afterFirst, "re-import of \(response)", sourceLocation: sourceLocation)
        }
        return try rows(store)
    }

    // MARK: - Keys of every type: normalized alike inside a response, across responses, in the store

    @Test func uuidKeysInEitherCaseAreOneRecord() async throws {
        let schema = try Self.schema(
            #""Item": {"primaryKey": "id", "attributes": {"id": {"type": "uuid"}, "n": {"type": "string"}}}"#)
        let rows = try await Self.importTwice(
            [
                #"[{"id": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "n": "a"}, {"id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "n": "b"}]"#,
                #"[{"id": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "n": "c"}]"#,
            ], schema: schema, entity: "Item")
        #expect(rows == ["Item: 1 | 'Item' | 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F' | 'c'"])
    }

    @Test func doubleKeysCompareAsNumbersAndRefuseRounding() async throws {
        let schema = try Self.schema(
            #""Item": {"primaryKey": "id", "attributes": {"id": {"type": "double"}, "n": {"type": "string"}}}"#)
        let store = try RecordStore(inMemory: schema)
        // 0.0 and -0.0, 1 and 1.0 and "1e0", are one key each.
        try await Self.populate(store, #"[{"id": 0.0, "n": "a"}, {"id": -0.0, "n": "b"}]"#, entity: "Item")
        try await Self.populate(
            store, #"[{"id": 1, "n": "a"}, {"id": 1.0, "n": "b"}, {"id": "1e0", "n": "c"}]"#, entity: "Item")
        try await Self.populate(store, #"[{"id": -0.0, "n": "d"}]"#, entity: "Item")
        // 2^53 + 1 is not a double: refused, never rounded into 2^53's record.
        let big = try await Self.populate(
            store, #"[{"id": 9007199254740992, "n": "e"}, {"id": 9007199254740993, "n": "f"}]"#, entity: "Item")
        #expect(big.warnings.contains { $0.contains("9007199254740993") })
        #expect(
            try Self.rows(store) == [
                "Item: 1 | 'Item' | 0.0 | 'd'", "Item: 2 | 'Item' | 1.0 | 'c'",
                "Item: 3 | 'Item' | 9007199254740992.0 | 'e'",
            ])
    }

    @Test func decimalIntegerAndDateKeysNormalizeBeforeMatching() async throws {
        for (type, responses, expected) in [
            (
                "decimal",
                [
                    #"[{"id": "1.0", "n": "a"}, {"id": 1.00, "n": "b"}, {"id": 1, "n": "c"}]"#,
                    #"[{"id": "1e0", "n": "d"}]"#,
                ],
                ["Item: 1 | 'Item' | '1' | 'd'"]
            ),
            (
                "integer",
                [
                    #"[{"id": "05", "n": "a"}, {"id": 5, "n": "b"}, {"id": 5.0, "n": "c"}]"#,
                    #"[{"id": "+5", "n": "d"}]"#,
                ],
                ["Item: 1 | 'Item' | 5 | 'd'"]
            ),
            (
                "date",
                [
                    #"[{"id": "2012-01-01T00:00:00Z", "n": "a"}, {"id": "2012-01-01T01:00:00+01:00", "n": "b"}, {"id": 1325376000, "n": "c"}]"#,
                    #"[{"id": "2012-01-01T00:00:00.000Z", "n": "d"}]"#,
                ],
                ["Item: 1 | 'Item' | '2012-01-01T00:00:00.000000000Z' | 'd'"]
            ),
        ] {
            let schema = try Self.schema(
                #""Item": {"primaryKey": "id", "attributes": {"id": {"type": "\#(type)"}, "n": {"type": "string"}}}"#)
            let rows = try await Self.importTwice(responses, schema: schema, entity: "Item")
            #expect(rows == expected, "\(type)")
        }
    }

    // MARK: - Keys that are relationships

    /// The App.net shape (Counts keyed by its user, with an inverse): found through its owner on
    /// every re-import, nested or named apart, by object or by key.
    @Test func aRelationshipKeyWithAnInverseIsFoundAgain() async throws {
        let schema = try Self.schema(
            #"""
            "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
                     "relationships": {"counts": {"destination": "Counts", "inverse": "user"}}},
            "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
                       "relationships": {"user": {"destination": "User", "inverse": "counts"}}}
            """#)
        let rows = try await Self.importTwice(
            [#"[{"user": {"id": 5, "name": "x"}, "followers": 1}]"#, #"[{"user": 5, "followers": 2}]"#],
            schema: schema, entity: "Counts")
        #expect(rows == ["Counts: 1 | 'Counts' | 2 | 1", "User: 1 | 'User' | 5 | 'x'"])
    }

    /// A key relationship whose destination is itself keyed by a relationship, with inverses.
    @Test func aChainOfRelationshipKeysWithInversesIsFoundAgain() async throws {
        let schema = try Self.schema(
            #"""
            "Account": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                        "relationships": {"user": {"destination": "User", "inverse": "account"}}},
            "User": {"primaryKey": "account", "attributes": {"name": {"type": "string"}},
                     "relationships": {"account": {"destination": "Account", "inverse": "user"},
                                       "counts": {"destination": "Counts", "inverse": "user"}}},
            "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
                       "relationships": {"user": {"destination": "User", "inverse": "counts"}}}
            """#)
        let rows = try await Self.importTwice(
            [#"[{"user": {"account": {"id": 1}, "name": "x"}, "followers": 3}]"#], schema: schema, entity: "Counts")
        #expect(
            rows == ["Account: 1 | 'Account' | 1", "Counts: 1 | 'Counts' | 3 | 1", "User: 1 | 'User' | 'x' | 1"])
    }

    /// An entity keyed by a to-one relationship that has no inverse: the record it identifies is
    /// found again through its owner's side of the link, which it lacks, so every import after
    /// the first would make it anew, and its key's unique index refuse it ("UNIQUE constraint
    /// failed: Counts.user"). The schema is refused, naming the entity and the relationship, for
    /// a destination keyed by an attribute, by a relationship, or by a composite key.
    @Test(arguments: [
        (
            #"""
            "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}}},
            "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
                       "relationships": {"user": {"destination": "User"}}}
            """#, "Counts", "user"
        ),
        (
            #"""
            "Account": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}},
            "User": {"primaryKey": "account", "attributes": {"name": {"type": "string"}},
                     "relationships": {"account": {"destination": "Account"}}}
            """#, "User", "account"
        ),
        (
            #"""
            "User": {"primaryKey": ["a", "b"], "attributes": {"a": {"type": "integer"}, "b": {"type": "string"}}},
            "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
                       "relationships": {"user": {"destination": "User"}}}
            """#, "Counts", "user"
        ),
    ])
    func aRelationshipKeyWithoutAnInverseIsRefused(entities: String, entity: String, property: String) throws {
        #expect {
            _ = try Self.schema(entities)
        } throws: { error in
            (error as? WebRecordError)?.problems.contains {
                $0.entity == entity && $0.property == property && $0.message.contains("needs an inverse")
            } == true
        }
    }

    // MARK: - Relationships to sub-entities

    static let people = #"""
        "Person": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
                   "subentities": {"key": "kind", "map": {"admin": "Admin", "member": "Member"}}},
        "Admin": {"parent": "Person", "attributes": {"level": {"type": "integer"}}},
        "Member": {"parent": "Person", "attributes": {"since": {"type": "integer"}},
                   "relationships": {"group": {"destination": "Group", "inverse": "members"}}},
        "Group": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                  "relationships": {"members": {"destination": "Member", "toMany": true, "inverse": "group"},
                                    "boss": {"destination": "Admin"}}}
        """#

    /// A reference by key to a stored record of another branch links nothing, with a warning
    /// (Docs/Population.md, decision 13).
    @Test func aReferenceToAStoredRecordOfAnotherBranchLinksNothing() async throws {
        let store = try RecordStore(inMemory: try Self.schema(Self.people))
        try await Self.populate(store, #"[{"id": 5, "kind": "admin", "level": 3}]"#, entity: "Person")
        for _ in 0..<2 {
            let outcome = try await Self.populate(store, #"[{"id": 1, "members": [5]}]"#, entity: "Group")
            #expect(
                outcome.warnings.contains {
                    $0.contains("members of Group(1) names Admin 5, a stored Admin, not a kind of Member")
                })
        }
        #expect(
            try Self.rows(store) == [
                "Group: 1 | 'Group' | 1 | NULL", "Person: 1 | 'Admin' | 5 | NULL | 3 | NULL | NULL",
            ])
    }

    /// Two references by key to one new record in one response, through relationships whose
    /// destinations are sibling sub-entities (`boss` to an Admin, `members` to Members): one row
    /// is made, a Member, and `Group.boss`, whose destination is Admin, does not hold it; a
    /// `typeMismatch` says so, as for a stored record of another branch (the test above).
    @Test func twoReferencesOfSiblingBranchesNeverLinkTheWrongEntity() async throws {
        let store = try RecordStore(inMemory: try Self.schema(Self.people))
        let outcome = try await Self.populate(store, #"[{"id": 2, "boss": 6, "members": [6]}]"#, entity: "Group")
        #expect(outcome.failure == nil)
        let rows = try Self.rows(store)
        // Person 6 is a Member of group 2, and Group.boss (to Admin) holds nothing.
        #expect(rows.contains { $0.hasPrefix("Person: 1 | 'Member' | 6") && $0.hasSuffix("| 1") }, "\(rows)")
        #expect(rows.contains("Group: 1 | 'Group' | 2 | NULL"), "Group.boss (to Admin) holds a Member: \(rows)")
        #expect(
            outcome.warnings.contains { $0.contains("which the response makes a Member, not a kind of Admin") },
            "\(outcome.warnings)")
    }

    /// A stored Admin, then an object with its key and no discriminator nested in a
    /// Member-typed to-many: DESIGN §3.13, a missing discriminator keeps the stored sub-entity,
    /// which the list cannot hold, so the Admin is kept as it is (its `level` too), nothing is
    /// linked to it, and a warning says so, as for a reference of another branch.
    @Test func aNestedObjectWithoutADiscriminatorKeepsTheStoredBranch() async throws {
        let store = try RecordStore(inMemory: try Self.schema(Self.people))
        try await Self.populate(store, #"[{"id": 5, "kind": "admin", "level": 3}]"#, entity: "Person")
        let outcome = try await Self.populate(
            store, #"[{"id": 1, "members": [{"id": 5, "since": 2000}]}]"#, entity: "Group")
        #expect(outcome.failure == nil)
        let person = try Self.rows(store).filter { $0.hasPrefix("Person: ") }
        #expect(person == ["Person: 1 | 'Admin' | 5 | NULL | 3 | NULL | NULL"])
        #expect(
            outcome.warnings.contains {
                $0.contains("gives no discriminator and is a stored Admin, not a kind of Member")
            },
            "\(outcome.warnings)")
    }

    // MARK: - Keys read twice

    /// An attribute and three relationships reading one key, and an attribute through it: each
    /// takes what its type allows, and the re-import changes nothing.
    @Test func oneKeyReadByAnAttributeAndRelationships() async throws {
        let schema = try Self.schema(
            #"""
            "User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}}},
            "Post": {"primaryKey": "id",
                     "attributes": {"id": {"type": "integer"}, "userID": {"type": "integer", "key": "user"},
                                    "userName": {"type": "string", "key": "user.name"}},
                     "relationships": {"author": {"destination": "User", "key": "user"},
                                       "owner": {"destination": "User", "key": "user"},
                                       "user": {"destination": "User"}}}
            """#)
        let rows = try await Self.importTwice(
            [#"[{"id": 1, "user": 5}, {"id": 2, "user": {"id": 6, "name": "x"}}]"#], schema: schema, entity: "Post")
        #expect(
            rows == [
                "Post: 1 | 'Post' | 1 | 5 | NULL | 1 | 1 | 1", "Post: 2 | 'Post' | 2 | NULL | 'x' | 2 | 2 | 2",
                "User: 1 | 'User' | 5 | NULL", "User: 2 | 'User' | 6 | 'x'",
            ])
    }

    /// A key read from candidates, the first a nested path: the copies are one record.
    @Test func aKeyReadFromCandidateKeyPaths() async throws {
        let schema = try Self.schema(
            #""Item": {"primaryKey": "id", "attributes": {"id": {"type": "integer", "key": ["meta.id", "uid"]}, "n": {"type": "string"}}}"#
        )
        let rows = try await Self.importTwice(
            [#"[{"meta": {"id": 1}, "n": "a"}, {"uid": 1, "n": "b"}, {"id": 1, "n": "c"}]"#], schema: schema,
            entity: "Item")
        #expect(rows == ["Item: 1 | 'Item' | 1 | 'c'"])
    }

    /// The response key path indexes an array, and `included` names the same path and entity:
    /// the records are stored once, and counted once.
    @Test func includedAtTheResponseKeyPathStoresOnce() async throws {
        let schema = try Self.schema(
            #"""
            "Item": {"primaryKey": "id", "keyPathForResponseObject": "data.0.items",
                     "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
                     "included": [{"keyPath": "data.0.items", "entity": "Item"}]}
            """#)
        let store = try RecordStore(inMemory: schema)
        let first = try await Self.populate(store, #"{"data": [{"items": [{"id": 1, "n": "a"}]}]}"#, entity: "Item")
        #expect(first.result?.changesByEntity["Item"]?.inserted == 1)
        try await Self.populate(store, #"{"data": [{"items": [{"id": 1, "n": "b"}]}]}"#, entity: "Item")
        #expect(try Self.rows(store) == ["Item: 1 | 'Item' | 1 | 'b'"])
    }

    /// Counts keyed by its `user`, and User with no key: each import of a top-level Counts would
    /// make a new keyless User (keyless records are new on each import) and so a new Counts too,
    /// duplicating a keyed entity (DESIGN §3.3: a schema that lints never duplicates a record).
    /// The schema is refused, naming Counts.user.
    @Test func aRelationshipKeyToAKeylessEntityNeverDuplicates() async throws {
        let body = #"""
            "User": {"attributes": {"name": {"type": "string"}},
                     "relationships": {"counts": {"destination": "Counts", "inverse": "user"}}},
            "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
                       "relationships": {"user": {"destination": "User", "inverse": "counts"}}}
            """#
        #expect {
            _ = try Self.schema(body)
        } throws: { error in
            (error as? WebRecordError)?.problems.contains {
                $0.entity == "Counts" && $0.property == "user"
                    && $0.message.contains("must lead to an entity with a primary key; User has none")
            } == true
        }
    }
}
