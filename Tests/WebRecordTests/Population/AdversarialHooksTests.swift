import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Adversarial population options and hooks (Docs/Population.md; `PopulationOptions`):
/// pre-population, primary-key injection, the orphan-deletion closure and its stop flag,
/// `deleteOrphans` with its predicate and the delete rules it meets (cascade, deny, nullify),
/// merge-policy overrides and `returnsRecords`. Each response is populated whole and streamed
/// at every batch size (`AdversarialStreamTests.expectSameAtEveryBatchSize`), and the whole
/// population is checked against what the documentation says it must leave.
@Suite("Population: adversarial options and hooks")
struct AdversarialHooksTests {
    typealias A = AdversarialStreamTests

    static func data(_ elements: [String]) -> String { A.data(elements) }

    static func rows(_ outcome: A.Outcome, _ table: String) -> [String] {
        outcome.rows.filter { $0.hasPrefix(table + ":") }
    }

    /// Posts keyed by an integer `id`, with comments (replaced), a user (whose posts unite).
    static let posts = A.schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}, "slug": {"type": "string"}},
            "relationships": {"comments": {"destination": "Comment", "toMany": true, "inverse": "post"},
              "user": {"destination": "User", "inverse": "posts"}}},
          "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "comments"}}},
          "User": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "user", "merge": "union"}}}
        }}
        """#)

    /// The same, with `Post.comments` cascading.
    static let cascadingPosts = A.schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"comments": {"destination": "Comment", "toMany": true, "inverse": "post", "deleteRule": "cascade"}}},
          "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "comments"}}}
        }}
        """#)

    /// The same, with `Post.comments` denying.
    static let denyingPosts = A.schema(
        #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"comments": {"destination": "Comment", "toMany": true, "inverse": "post", "deleteRule": "deny"}}},
          "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "comments"}}}
        }}
        """#)

    /// The delete rules of Docs/SchemaFormat.md's complete example: a project's issues cascade,
    /// an issue's comments cascade (and unite), a comment's issue denies.
    static let tracker = A.schema(
        #"""
        {"entities": {
          "Project": {"primaryKey": "key", "keyPathForResponseObject": "projects",
            "attributes": {"key": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"issues": {"destination": "Issue", "toMany": true, "inverse": "project", "deleteRule": "cascade"}}},
          "Issue": {"primaryKey": "id", "keyPathForResponseObject": "issues",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"project": {"destination": "Project", "inverse": "issues", "optional": false},
              "comments": {"destination": "Comment", "toMany": true, "ordered": true, "inverse": "issue", "deleteRule": "cascade", "merge": "union"}}},
          "Comment": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"issue": {"destination": "Issue", "inverse": "comments", "deleteRule": "deny"}}}
        }}
        """#)

    /// Shapes whose circles list keyed dots; `merge` is put in by `shapes(merge:)`.
    static func shapes(merge: String) -> Schema {
        A.schema(
            #"""
            {"entities": {
              "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data", "abstract": true,
                "subentities": {"key": "kind", "map": {"circle": "Circle", "square": "Square"}},
                "attributes": {"id": {"type": "integer"}, "kind": {"type": "string"}}},
              "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double"}},
                "relationships": {"dots": {"destination": "Dot", "toMany": true, "inverse": "circle", "merge": "MERGE"}}},
              "Square": {"parent": "Shape", "attributes": {"side": {"type": "double"}}},
              "Dot": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                "relationships": {"circle": {"destination": "Circle", "inverse": "dots"}}}
            }}
            """#.replacingOccurrences(of: "MERGE", with: merge))
    }

    static func options(_ change: (inout PopulationOptions) -> Void) -> PopulationOptions {
        var options = PopulationOptions()
        change(&options)
        return options
    }

    // MARK: - Pre-population

    /// Decision 8: "`prePopulation(entity, &dictionary)` runs on each dictionary before its key
    /// is read." A hook that gives posts their key from `slug`, and comments theirs from `n`,
    /// stores them by those keys, merging the duplicates it makes (decision 7), whole and
    /// streamed alike.
    @Test("A pre-population hook that adds the key identifies the record by it")
    func prePopulationAddsTheKey() async throws {
        let options = Self.options { options in
            options.prePopulation = { entity, dictionary in
                switch entity.name {
                case "Post": if case .string(let slug)? = dictionary["slug"] { dictionary["id"] = .string(slug) }
                case "Comment": if let n = dictionary["n"] { dictionary["id"] = n }
                default: break
                }
            }
        }
        let text = Self.data([
            #"{"slug": "7", "title": "a", "comments": [{"n": 70, "text": "x"}]}"#,
            #"{"slug": "8", "title": "b"}"#,
            #"{"slug": "7", "title": "c", "comments": [{"n": 71, "text": "y"}, {"n": 70}]}"#,
        ])
        let whole = try await A.expectSameAtEveryBatchSize(text, schema: Self.posts, entity: "Post", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.recordIDs == [1, 2], "\(whole)")
        #expect(
            Self.rows(whole, "Post") == [
                "Post: 1 | 'Post' | 7 | 'c' | '7' | NULL", "Post: 2 | 'Post' | 8 | 'b' | '8' | NULL",
            ], "\(whole)")
        // Post 7's comments are its last occurrence's list: 71 then 70.
        #expect(Self.rows(whole, "Comment").count == 2, "\(whole)")
        #expect(whole.rows.contains("Comment: 1 | 'Comment' | 70 | 'x' | 1"), "\(whole)")
        #expect(whole.rows.contains("Comment: 2 | 'Comment' | 71 | 'y' | 1"), "\(whole)")
        #expect(whole.counts["Post"]?.inserted == 2 && whole.counts["Comment"]?.inserted == 2, "\(whole)")
    }

    /// Decision 5 with decision 8: a hook that removes the key leaves the record unidentified;
    /// it is not stored, and a response none of whose records can be identified fails, writing
    /// nothing; under orphan deletion a single one fails.
    @Test("A pre-population hook that removes the key leaves the record unstored")
    func prePopulationRemovesTheKey() async throws {
        let options = Self.options { options in
            options.prePopulation = { entity, dictionary in
                if entity.name == "Post", dictionary["title"] == .string("drop") { dictionary["id"] = nil }
            }
        }
        let earlier = Self.data([#"{"id": 1, "title": "kept"}"#, #"{"id": 3, "title": "orphan"}"#])
        let some = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "title": "drop"}"#, #"{"id": 2, "title": "b"}"#]), after: earlier,
            schema: Self.posts, entity: "Post", options: options)
        #expect(some.failure == nil, "\(some)")
        #expect(some.recordIDs == [3], "\(some)")
        #expect(
            Self.rows(some, "Post") == [
                "Post: 1 | 'Post' | 1 | 'kept' | NULL | NULL", "Post: 2 | 'Post' | 3 | 'orphan' | NULL | NULL",
                "Post: 3 | 'Post' | 2 | 'b' | NULL | NULL",
            ], "\(some)")
        let none = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "title": "drop"}"#]), after: earlier, schema: Self.posts, entity: "Post",
            options: options)
        #expect(none.failure != nil, "\(none)")
        var orphaning = options
        orphaning.deleteOrphans = .all
        let orphans = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"id": 1, "title": "drop"}"#, #"{"id": 2, "title": "b"}"#]), after: earlier,
            schema: Self.posts, entity: "Post", options: orphaning)
        #expect(orphans.failure != nil, "\(orphans)")
        #expect(Self.rows(orphans, "Post").count == 2, "\(orphans)")
    }

    /// Docs/Population.md, pipeline step 2: "picks the sub-entity; runs pre-population; reads
    /// ... the primary key". A hook that rewrites the discriminator of a dictionary runs after
    /// the sub-entity was picked from it: the record is the sub-entity its own discriminator
    /// named, with the hook's values stored, whole and streamed, also when the record repeats.
    @Test("A pre-population hook that rewrites the discriminator does not re-pick the sub-entity")
    func prePopulationRewritesTheDiscriminator() async throws {
        let schema = Self.shapes(merge: "replace")
        let options = Self.options { options in
            options.prePopulation = { entity, dictionary in
                if entity.name == "Circle" {
                    dictionary["kind"] = .string("square")
                    dictionary["radius"] = .integer(2)
                }
            }
        }
        let text = Self.data([
            #"{"id": 1, "kind": "circle"}"#, #"{"id": 2, "kind": "square", "side": 3}"#,
            #"{"id": 1, "kind": "circle", "dots": [5]}"#,
        ])
        let whole = try await A.expectSameAtEveryBatchSize(text, schema: schema, entity: "Shape", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(
            Self.rows(whole, "Shape") == [
                "Shape: 1 | 'Circle' | 1 | 'square' | 2.0 | NULL", "Shape: 2 | 'Square' | 2 | 'square' | NULL | 3.0",
            ], "\(whole)")
        #expect(Self.rows(whole, "Dot") == ["Dot: 1 | 'Dot' | 5 | 1"], "\(whole)")
    }

    /// Decision 8: the hook runs on nested dictionaries too, and what it adds is populated as if
    /// the response gave it: a nested list it adds is a replaced list (decision 11), in a stored
    /// post too, whole and streamed.
    @Test("A pre-population hook that adds nested records populates them")
    func prePopulationAddsNestedRecords() async throws {
        let options = Self.options { options in
            options.prePopulation = { entity, dictionary in
                guard entity.name == "Post", case .integer(let id)? = dictionary["id"] else { return }
                dictionary["comments"] = .array([
                    .object(["id": .integer(id * 10), "text": .string("auto")])
                ])
                dictionary["user"] = .object(["id": .string("u\(id % 2)"), "name": .string("n\(id)")])
            }
        }
        let earlier = Self.data([#"{"id": 1, "title": "a", "comments": [{"id": 99, "text": "old"}]}"#])
        let text = Self.data([#"{"id": 1}"#, #"{"id": 2, "title": "b"}"#, #"{"id": 3, "title": "c"}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(
            Self.rows(whole, "Comment") == [
                "Comment: 1 | 'Comment' | 99 | 'old' | NULL", "Comment: 2 | 'Comment' | 10 | 'auto' | 1",
                "Comment: 3 | 'Comment' | 20 | 'auto' | 2", "Comment: 4 | 'Comment' | 30 | 'auto' | 3",
            ], "\(whole)")
        // User u1 is named by posts 1 and 3: its name is the last, n3.
        #expect(
            Self.rows(whole, "User") == ["User: 1 | 'User' | 'u1' | 'n3'", "User: 2 | 'User' | 'u0' | 'n2'"],
            "\(whole)")
    }

    // MARK: - Primary-key injection

    /// Decision 5: "`primaryKeyInjection(entity, dictionary, parent)` runs before duplicates are
    /// detected", and decision 3: "Values are coerced to the key attribute's type before
    /// matching (`"5"` matches 5)". Two dictionaries given the same injected key are one record,
    /// merged (decision 7), and it is the stored post 5.
    @Test("Injected keys that repeat are one record, matched to the stored one")
    func injectedDuplicateKeys() async throws {
        let options = Self.options { options in
            options.primaryKeyInjection = { entity, dictionary, _ in
                entity.name == "Post" ? dictionary["slug"] : nil
            }
        }
        let earlier = Self.data([#"{"id": 5, "title": "old"}"#])
        let text = Self.data([
            #"{"slug": "5", "title": "a", "user": "u1"}"#, #"{"slug": "6", "title": "six"}"#,
            #"{"slug": "5", "title": "b"}"#,
        ])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(whole.recordIDs == [1, 2], "\(whole)")
        #expect(
            Self.rows(whole, "Post") == [
                "Post: 1 | 'Post' | 5 | 'b' | '5' | 1", "Post: 2 | 'Post' | 6 | 'six' | '6' | NULL",
            ], "\(whole)")
        #expect(whole.counts["Post"]?.updated == 1 && whole.counts["Post"]?.inserted == 1, "\(whole)")
    }

    /// Decision 5: an injected key that is "not a valid key" leaves the record unstored (`null`
    /// too: "Return nil to leave the key missing"); a response none of whose records can be
    /// identified fails, and under orphan deletion a single one does, writing nothing.
    @Test("An injected null or invalid key leaves the record unstored")
    func injectedInvalidKeys() async throws {
        let options = Self.options { options in
            options.primaryKeyInjection = { entity, dictionary, _ in
                guard entity.name == "Post" else { return nil }
                return dictionary["slug"] ?? .null
            }
        }
        let earlier = Self.data([#"{"id": 1, "title": "kept"}"#])
        let text = Self.data([#"{"slug": "abc", "title": "x"}"#, #"{"title": "y"}"#, #"{"slug": 2, "title": "two"}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(
            Self.rows(whole, "Post") == [
                "Post: 1 | 'Post' | 1 | 'kept' | NULL | NULL", "Post: 2 | 'Post' | 2 | 'two' | '2' | NULL",
            ], "\(whole)")
        let none = try await A.expectSameAtEveryBatchSize(
            Self.data([#"{"slug": "abc", "title": "x"}"#, #"{"title": "y"}"#]), after: earlier, schema: Self.posts,
            entity: "Post", options: options)
        #expect(none.failure != nil, "\(none)")
        var orphaning = options
        orphaning.deleteOrphans = .all
        let orphans = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post", options: orphaning)
        #expect(orphans.failure != nil, "\(orphans)")
        #expect(Self.rows(orphans, "Post") == ["Post: 1 | 'Post' | 1 | 'kept' | NULL | NULL"], "\(orphans)")
    }

    /// `PopulationOptions.primaryKeyInjection`: "Called with the entity, the dictionary and the
    /// record it is nested in (nil at the top level)"; `ParentRecord.primaryKeyValue`: "The
    /// parent's primary-key value as found in (or injected into) the response". Comments keyed
    /// from their post's key (found or injected) and their `n` are stored with those keys,
    /// whole and streamed, and the parent is given as documented.
    @Test("An injection closure gets the parent, its injected key included, and keys nested records")
    func injectionFromTheParent() async throws {
        let seen = Locked<[String]>([])
        let options = Self.options { options in
            options.primaryKeyInjection = { entity, dictionary, parent in
                switch entity.name {
                case "Post":
                    seen.withLock { $0.append("Post parent \(parent == nil ? "nil" : "given")") }
                    return dictionary["slug"]
                case "Comment":
                    guard let parent, case .integer(let n)? = dictionary["n"] else { return nil }
                    seen.withLock {
                        $0.append(
                            "Comment parent \(parent.entity.name) \(parent.primaryKeyValue.map { "\($0)" } ?? "nil")")
                    }
                    switch parent.primaryKeyValue {
                    case .string(let key)?: return .string("\(key)\(n)")
                    case .integer(let key)?: return .integer(key * 10 + n)
                    default: return nil
                    }
                default: return nil
                }
            }
        }
        let text = Self.data([
            #"{"slug": "7", "title": "a", "comments": [{"n": 1, "text": "x"}, {"n": 2, "text": "y"}]}"#,
            #"{"id": 8, "title": "b", "comments": [{"n": 1, "text": "z"}]}"#,
        ])
        let whole = try await A.populate(
            text, schema: Self.posts, entity: "Post", batchBytes: nil, options: options)
        #expect(
            seen.value == [
                "Post parent nil", #"Comment parent Post "7""#, #"Comment parent Post "7""#, "Comment parent Post 8",
            ], "\(seen.value)")
        #expect(
            Self.rows(whole, "Comment") == [
                "Comment: 1 | 'Comment' | 71 | 'x' | 1", "Comment: 2 | 'Comment' | 72 | 'y' | 1",
                "Comment: 3 | 'Comment' | 81 | 'z' | 2",
            ], "\(whole)")
        try await A.expectSameAtEveryBatchSize(text, schema: Self.posts, entity: "Post", options: options)
    }

    // MARK: - The orphan-deletion closure

    /// Populates `text` whole and streamed at every batch size, each with options that `make`
    /// builds afresh (so a closure's state is the run's own); returns every outcome, whole first,
    /// with what the closure noted in each.
    static func eachWay(
        _ text: String, after earlier: String, schema: Schema, entity: String,
        make: (Locked<[Int64]>) -> PopulationOptions
    ) async throws -> [(size: Int?, outcome: A.Outcome, noted: [Int64])] {
        var outcomes: [(size: Int?, outcome: A.Outcome, noted: [Int64])] = []
        for size in [nil] + A.batchSizes {
            let noted = Locked<[Int64]>([])
            let outcome = try await A.populate(
                text, after: earlier, schema: schema, entity: entity, batchBytes: size, options: make(noted))
            outcomes.append((size, outcome, noted.value))
        }
        return outcomes
    }

    static let fivePosts = data((1...5).map { #"{"id": \#($0), "title": "t\#($0)"}"# })

    /// Decision 14: "`orphanDeletion` decides one by one". Candidates are the stored posts the
    /// response did not contain (1, 3, 4, 5); the closure deletes those with an odd `_id`: 1, 3
    /// and 5 go, 4 stays, whole and streamed, each candidate asked once.
    @Test("The orphan closure decides each candidate once")
    func orphanClosureDecidesEach() async throws {
        let text = Self.data([#"{"id": 2, "title": "t2"}"#, #"{"id": 2, "title": "again"}"#])
        let outcomes = try await Self.eachWay(text, after: Self.fivePosts, schema: Self.posts, entity: "Post") {
            noted in
            Self.options { options in
                options.orphanDeletion = { record, _, _, _ in
                    noted.withLock { $0.append(record.rowID) }
                    return record.rowID % 2 == 1
                }
            }
        }
        for (size, outcome, noted) in outcomes {
            #expect(outcome.failure == nil, "\(String(describing: size)): \(outcome)")
            #expect(noted.sorted() == [1, 3, 4, 5], "\(String(describing: size)): \(noted)")
            #expect(
                Self.rows(outcome, "Post") == [
                    "Post: 2 | 'Post' | 2 | 'again' | NULL | NULL", "Post: 4 | 'Post' | 4 | 't4' | NULL | NULL",
                ], "\(String(describing: size)): \(outcome)")
            #expect(outcome.counts["Post"]?.deleted == 3, "\(String(describing: size)): \(outcome)")
        }
    }

    /// `PopulationOptions.orphanDeletion`: "set the flag to end orphan deletion". A closure that
    /// sets it on the first candidate it is given is not asked again: returning false, nothing
    /// is deleted; returning true, that one candidate alone is; whole and streamed alike.
    @Test("The orphan closure's stop flag ends orphan deletion")
    func orphanClosureStops() async throws {
        let text = Self.data([#"{"id": 2, "title": "t2"}"#])
        for deletes in [false, true] {
            let outcomes = try await Self.eachWay(text, after: Self.fivePosts, schema: Self.posts, entity: "Post") {
                noted in
                Self.options { options in
                    options.orphanDeletion = { record, _, _, stop in
                        noted.withLock { $0.append(record.rowID) }
                        stop = true
                        return deletes
                    }
                }
            }
            for (size, outcome, noted) in outcomes {
                #expect(noted.count == 1, "\(deletes) \(String(describing: size)): \(noted)")
                #expect(
                    Self.rows(outcome, "Post").count == (deletes ? 4 : 5),
                    "\(deletes) \(String(describing: size)): \(outcome)")
                if deletes, let only = noted.first {
                    #expect(!outcome.rows.contains { $0.hasPrefix("Post: \(only) |") }, "\(outcome)")
                }
            }
        }
    }

    /// `PopulationOptions.returnsRecords`: false makes no records "unless an `orphanDeletion`
    /// closure needs them, and the result's `records` is empty"; "An ``orphanDeletion`` closure
    /// still gets them": the populated top-level records, "in response order, without repeats"
    /// (`PopulationResult.records`), across batches too.
    @Test("With returnsRecords false the orphan closure still gets the top-level records, once each")
    func orphanClosureGetsTheRecordsWithoutReturnsRecords() async throws {
        let text = Self.data([
            #"{"id": 4, "title": "a"}"#, #"{"id": 2, "title": "b"}"#, #"{"id": 4, "title": "c"}"#,
            #"{"id": 6, "title": "new"}"#,
        ])
        for returnsRecords in [false, true] {
            let outcomes = try await Self.eachWay(text, after: Self.fivePosts, schema: Self.posts, entity: "Post") {
                noted in
                Self.options { options in
                    options.returnsRecords = returnsRecords
                    options.orphanDeletion = { record, results, _, _ in
                        if record.rowID == 1 { noted.withLock { $0 = results.map(\.rowID) } }
                        return false
                    }
                }
            }
            for (size, outcome, noted) in outcomes {
                let label = "\(returnsRecords) \(String(describing: size))"
                #expect(noted == [4, 2, 6], "\(label): \(noted)")
                #expect(outcome.recordIDs == (returnsRecords ? [4, 2, 6] : []), "\(label): \(outcome)")
                #expect(outcome.counts["Post"]?.deleted ?? 0 == 0, "\(label): \(outcome)")
            }
        }
    }

    // MARK: - deleteOrphans

    /// Decision 14: "`deleteOrphans` (optionally `.matching(predicate, arguments)`) deletes every
    /// stored record of the requested entity that the response did not contain"; the predicate
    /// scopes the candidates (`.matching("user = ?", [userRowID])`). User u1's posts not in the
    /// response go; user u2's stay; so does one matching a text argument only when it matches.
    @Test("deleteOrphans matching a predicate deletes only the matching candidates")
    func deleteOrphansMatching() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "a", "user": "u1"}"#, #"{"id": 2, "title": "b", "user": "u1"}"#,
            #"{"id": 3, "title": "c", "user": "u2"}"#, #"{"id": 4, "title": "old", "user": "u1"}"#,
        ])
        let text = Self.data([#"{"id": 1, "title": "a", "user": "u1"}"#, #"{"id": 5, "title": "e", "user": "u1"}"#])
        let byUser = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post",
            options: Self.options { $0.deleteOrphans = .matching("user = ?", [Int64(1)]) })
        #expect(byUser.failure == nil, "\(byUser)")
        #expect(
            Self.rows(byUser, "Post") == [
                "Post: 1 | 'Post' | 1 | 'a' | NULL | 1", "Post: 3 | 'Post' | 3 | 'c' | NULL | 2",
                "Post: 5 | 'Post' | 5 | 'e' | NULL | 1",
            ], "\(byUser)")
        #expect(byUser.counts["Post"]?.deleted == 2, "\(byUser)")
        let byTitle = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post",
            options: Self.options { $0.deleteOrphans = .matching("title = ?", ["old"]) })
        #expect(byTitle.rows.filter { $0.hasPrefix("Post:") }.count == 4, "\(byTitle)")
        #expect(!byTitle.rows.contains { $0.contains("'old'") }, "\(byTitle)")
    }

    /// Decision 14 and "What a run contained is never deleted by the orphan pass": an orphan
    /// post's cascading comments go with it, but a comment the response names (under another
    /// post) stays, linked where the response put it; the counts name each deleted record once.
    @Test("An orphan's cascade deletes its comments but those the response contained")
    func orphanCascadeSparesContainedRecords() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "a", "comments": [{"id": 10, "text": "x"}, {"id": 11, "text": "y"}]}"#,
            #"{"id": 2, "title": "b"}"#,
        ])
        let text = Self.data([#"{"id": 2, "title": "b", "comments": [11]}"#])
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.cascadingPosts, entity: "Post",
            options: Self.options { $0.deleteOrphans = .all })
        #expect(whole.failure == nil, "\(whole)")
        #expect(Self.rows(whole, "Post") == ["Post: 2 | 'Post' | 2 | 'b'"], "\(whole)")
        #expect(Self.rows(whole, "Comment") == ["Comment: 2 | 'Comment' | 11 | 'y' | 2"], "\(whole)")
        #expect(whole.counts["Post"]?.deleted == 1 && whole.counts["Comment"]?.deleted == 1, "\(whole)")
    }

    /// Docs/SchemaFormat.md, `deleteRule`: "`deny` (the delete is refused while any exist)"; a
    /// refusal is a non-fatal warning (Docs/Population.md: "a non-fatal warning
    /// (`invalidEntityDescription`, as a `deny` rule's refusal is)"). An orphan post with a
    /// comment is kept, the other orphan deleted, and the population succeeds, whole and
    /// streamed.
    @Test("A deny rule keeps an orphan that has related records, and the population goes on")
    func denyKeepsAnOrphan() async throws {
        let earlier = Self.data([
            #"{"id": 1, "title": "a", "comments": [{"id": 10, "text": "x"}]}"#, #"{"id": 2, "title": "b"}"#,
            #"{"id": 3, "title": "c"}"#,
        ])
        let text = Self.data([#"{"id": 3, "title": "c2"}"#])
        let options = Self.options { $0.deleteOrphans = .all }
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.denyingPosts, entity: "Post", options: options)
        #expect(whole.failure == nil, "\(whole)")
        #expect(
            Self.rows(whole, "Post") == ["Post: 1 | 'Post' | 1 | 'a'", "Post: 3 | 'Post' | 3 | 'c2'"], "\(whole)")
        #expect(Self.rows(whole, "Comment") == ["Comment: 1 | 'Comment' | 10 | 'x' | 1"], "\(whole)")
        #expect(whole.counts["Post"]?.deleted == 1, "\(whole)")
        // The refusal is on the debugger, not fatal.
        let store = try RecordStore(inMemory: Self.denyingPosts)
        _ = try await store.populate(try JSONReader().read(earlier), entity: "Post")
        let result = try await store.populate(try JSONReader().read(text), entity: "Post", options: options)
        #expect(
            result.debugger.errors.contains {
                !$0.isFatal && $0.code == .invalidEntityDescription && $0.message.contains("deny")
            },
            "\(result.debugger.errors)")
    }

    /// Docs/SchemaFormat.md, "A complete example": "Deleting a project deletes its issues and
    /// their comments; deleting a comment's issue is refused while it has comments (`deny`)."
    /// With those delete rules, an orphan project goes with its issue and the issue's comment.
    @Test("An orphan project cascades to its issues and their comments under the documented example's rules")
    func orphanProjectCascadesThroughTheExampleRules() async throws {
        let earlier =
            #"{"projects": [{"key": "P", "name": "p", "issues": [{"id": 1, "title": "i", "comments": [{"id": 5, "text": "c"}]}]}, {"key": "Q", "name": "q"}]}"#
        let text = #"{"projects": [{"key": "Q", "name": "q"}]}"#
        let whole = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.tracker, entity: "Project",
            options: Self.options { $0.deleteOrphans = .all })
        #expect(whole.failure == nil, "\(whole)")
        #expect(Self.rows(whole, "Project").count == 1, "\(whole)")
        #expect(Self.rows(whole, "Issue").isEmpty, "\(whole)")
        #expect(Self.rows(whole, "Comment").isEmpty, "\(whole)")
        #expect(
            whole.counts["Project"]?.deleted == 1 && whole.counts["Issue"]?.deleted == 1
                && whole.counts["Comment"]?.deleted == 1, "\(whole)")
        // No rule refused the delete: the comment's `deny` names the issue deleted with it.
        let store = try RecordStore(inMemory: Self.tracker)
        _ = try await store.populate(try JSONReader().read(earlier), entity: "Project")
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let result = try await store.populate(try JSONReader().read(text), entity: "Project", options: options)
        #expect(result.debugger.warnings.map(\.message) == [], "\(result.debugger.warnings)")
    }

    // MARK: - Merge-policy overrides

    /// `PopulationOptions.mergePolicies`: "Per-relationship merge policies ... overriding the
    /// schema", and decision 11: under `union` "neither `[]` nor `null` removes a member". A
    /// stored circle lists dot 1; the response gives it as a square, then as a circle listing
    /// dot 2. One batch takes the last sub-entity once (decision 7, DESIGN §3.13): the circle
    /// never changes, and its united list adds dot 2 to dot 1. Streamed, the same, whether the
    /// schema or the option says `union`.
    @Test("A united list overridden by the options keeps its members across a sub-entity switch, streamed")
    func unionOverrideAcrossASubentitySwitch() async throws {
        let earlier = Self.data([#"{"id": 1, "kind": "circle", "dots": [1]}"#])
        let text = Self.data([#"{"id": 1, "kind": "square"}"#, #"{"id": 1, "kind": "circle", "dots": [2]}"#])
        // The schema says union.
        let bySchema = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.shapes(merge: "union"), entity: "Shape")
        #expect(
            bySchema.rows.contains("Dot: 1 | 'Dot' | 1 | 1") && bySchema.rows.contains("Dot: 2 | 'Dot' | 2 | 1"),
            "\(bySchema)")
        // The option says union over the schema's replace.
        let byOption = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.shapes(merge: "replace"), entity: "Shape",
            options: Self.options { $0.mergePolicies["Circle.dots"] = .union })
        #expect(
            byOption.rows.contains("Dot: 1 | 'Dot' | 1 | 1") && byOption.rows.contains("Dot: 2 | 'Dot' | 2 | 1"),
            "\(byOption)")
    }

    /// Decision 7, "Decision: lists that add", with a merge policy the options set: occurrences
    /// of one post in one response unite their lists under `union` (later list first, then the
    /// earlier members it leaves out), and under `replace` the last list is the post's; whole
    /// and streamed.
    @Test("Duplicates of a record unite or replace their lists as the options' merge policy says")
    func duplicatesUnderAnOverriddenMergePolicy() async throws {
        let earlier = Self.data([#"{"id": 1, "title": "a", "comments": [{"id": 9, "text": "s"}]}"#])
        let text = Self.data([
            #"{"id": 1, "comments": [{"id": 10, "text": "x"}]}"#, #"{"id": 2, "title": "b"}"#,
            #"{"id": 1, "comments": [11]}"#,
        ])
        let united = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post",
            options: Self.options { $0.mergePolicies["Post.comments"] = .union })
        #expect(
            Self.rows(united, "Comment") == [
                "Comment: 1 | 'Comment' | 9 | 's' | 1", "Comment: 2 | 'Comment' | 10 | 'x' | 1",
                "Comment: 3 | 'Comment' | 11 | NULL | 1",
            ], "\(united)")
        let replaced = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: Self.posts, entity: "Post")
        #expect(
            Self.rows(replaced, "Comment") == [
                "Comment: 1 | 'Comment' | 9 | 's' | NULL", "Comment: 2 | 'Comment' | 10 | 'x' | NULL",
                "Comment: 3 | 'Comment' | 11 | NULL | 1",
            ], "\(replaced)")
    }

    // MARK: - Included records

    /// Compound responses: "an empty array populates none" (`PopulationOptions.included`), and
    /// "included records are never deleted as orphans (records of the requested entity found
    /// among them count as named by the response)".
    @Test("The included option populates what it lists, and included articles are no orphans")
    func includedOption() async throws {
        let schema = A.schema(AdversarialSchemaJSON.compound)
        let earlier =
            #"{"data": [{"id": "1", "title": "one"}, {"id": "2", "title": "two"}, {"id": "3", "title": "three"}]}"#
        let text = #"""
            {"data": [{"id": "1", "title": "uno", "author": {"id": "9"}}],
             "included": [{"type": "people", "id": "9", "name": "Ann"}, {"type": "articles", "id": "2", "title": "dos"}]}
            """#
        let none = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: schema, entity: "Article", options: Self.options { $0.included = [] })
        #expect(none.failure == nil, "\(none)")
        #expect(Self.rows(none, "Person") == ["Person: 1 | 'Person' | '9' | NULL"], "\(none)")
        #expect(none.rows.contains("Article: 2 | 'Article' | '2' | 'two' | NULL"), "\(none)")
        let orphans = try await A.expectSameAtEveryBatchSize(
            text, after: earlier, schema: schema, entity: "Article", options: Self.options { $0.deleteOrphans = .all })
        #expect(orphans.failure == nil, "\(orphans)")
        #expect(
            Self.rows(orphans, "Article") == [
                "Article: 1 | 'Article' | '1' | 'uno' | 1", "Article: 2 | 'Article' | '2' | 'dos' | NULL",
            ], "\(orphans)")
        #expect(Self.rows(orphans, "Person") == ["Person: 1 | 'Person' | '9' | 'Ann'"], "\(orphans)")
    }
}
