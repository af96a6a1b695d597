import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A response populated a second time into the store its first population left changes
/// nothing: every table keeps its rows, `_id`s, join rows and positions, and every record the
/// response names counts as `unchanged` ([CLI](Docs/CLI.md), the summary: "Populating the same
/// response again gives `inserted` 0, `updated` 0 and every record `unchanged`"), whole and
/// streamed at any batch size, from a stream that cannot be read again. The one documented
/// exception, a to-one set to `null` and then given an object without a key in the same
/// response (Docs/Population.md, decision 6), is never generated.
@Suite struct IdempotentReimportTests {
    // MARK: - Populating twice

    /// One population's rows and counts, or its failure.
    struct Snapshot: Equatable, CustomStringConvertible {
        var rows: [String]
        var counts: [String: ChangeCounts]
        var failure: String?

        var description: String {
            (failure.map { "failure: \($0)\n" } ?? "") + "counts: \(StreamedDifferentialTests.describe(counts))\n"
                + rows.joined(separator: "\n")
        }
    }

    /// A schema with the entity its responses populate and the transformers it names.
    struct Layout: Sendable {
        let schema: Schema
        let entity: String
        var configuration: RecordStore.Configuration {
            var configuration = RecordStore.Configuration()
            configuration.transformers["lowercased"] = { value in value.stringValue.map { .string($0.lowercased()) } }
            return configuration
        }
    }

    /// Whether a streamed population's failure is the documented refusal of a stream that cannot
    /// be read again.
    static func isRefusal(_ failure: String) -> Bool {
        failure.contains("Populate the response whole") || failure.contains("save it to a file")
            || failure.contains("cannot be read again")
    }

    /// Populates `text` into `store` whole (`batchBytes` nil) or streamed in batches of
    /// `batchBytes` bytes from a reader that cannot be opened twice; a stream refused as
    /// documented (nothing written) is populated again from a reader that can be.
    static func populate(_ text: String, into store: RecordStore, entity: String, batchBytes: Int?) async throws
        -> Snapshot
    {
        let once = try await populate(text, into: store, entity: entity, batchBytes: batchBytes, reopens: false)
        guard batchBytes != nil, let failure = once.failure, isRefusal(failure) else { return once }
        return try await populate(text, into: store, entity: entity, batchBytes: batchBytes, reopens: true)
    }

    static func populate(
        _ text: String, into store: RecordStore, entity: String, batchBytes: Int?, reopens: Bool
    ) async throws -> Snapshot {
        let result: PopulationResult
        do {
            if let batchBytes {
                let data = Data(text.utf8)
                let population = ResponsePopulation(store: try #require(store.sqlite))
                if reopens {
                    result = try await population.populate(
                        streaming: { JSONStreamReader(data: data, keyPath: $0, batchByteLimit: batchBytes) },
                        entity: entity)
                } else {
                    result = try await population.populate(
                        streaming: readingOnce(data, batchByteLimit: batchBytes), entity: entity, reopens: false)
                }
            } else {
                result = try await store.populate(try JSONReader().read(text), entity: entity)
            }
        } catch let error as WebRecordError {
            return Snapshot(rows: try StreamedDifferentialTests.rows(store), counts: [:], failure: error.message)
        }
        return Snapshot(rows: try StreamedDifferentialTests.rows(store), counts: result.changesByEntity)
    }

    /// `earlier` populated whole into a new store file, then `text` twice the given way.
    static func twice(_ text: String, after earlier: String, layout: Layout, batchBytes: Int?) async throws -> (
        first: Snapshot, second: Snapshot
    ) {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(
            path: directory.path(), schema: layout.schema, configuration: layout.configuration)
        _ = try? await store.populate(try JSONReader().read(earlier), entity: layout.entity)
        let first = try await populate(text, into: store, entity: layout.entity, batchBytes: batchBytes)
        let second = try await populate(text, into: store, entity: layout.entity, batchBytes: batchBytes)
        return (first, second)
    }

    /// What is wrong with a second population, or nil: rows that differ from the first's, a
    /// record counted otherwise than `unchanged`, or as many `unchanged` as the first counted
    /// records it stored.
    static func problems(_ first: Snapshot, _ second: Snapshot) -> String? {
        var lines: [String] = []
        if first.failure != second.failure {
            lines.append("failures: \(first.failure ?? "none") / \(second.failure ?? "none")")
        }
        let before = Set(first.rows)
        let after = Set(second.rows)
        lines += first.rows.filter { !after.contains($0) }.map { "only after the first: \($0)" }
        lines += second.rows.filter { !before.contains($0) }.map { "only after the second: \($0)" }
        for (entity, counts) in second.counts.sorted(by: { $0.key < $1.key }) {
            let earlier = first.counts[entity] ?? ChangeCounts()
            let named = earlier.inserted + earlier.updated + earlier.unchanged
            if counts.inserted != 0 || counts.updated != 0 || counts.deleted != 0 || counts.unchanged != named {
                lines.append(
                    "\(entity): second +\(counts.inserted) ~\(counts.updated) =\(counts.unchanged) -\(counts.deleted), "
                        + "first named \(named)")
            }
        }
        for (entity, counts) in first.counts where second.counts[entity] == nil {
            if counts.inserted + counts.updated + counts.unchanged != 0 { lines.append("\(entity): not counted again") }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Checks that `text`, populated twice after `earlier`, changes nothing the second time,
    /// whole and streamed at each of `batchSizes`, and that each stream's first population
    /// leaves the whole one's rows and counts. Returns the problems found, or nil.
    static func reimportProblems(
        _ text: String, after earlier: String, layout: Layout, batchSizes: [Int] = [1, 120]
    ) async throws -> String? {
        var found: [String] = []
        let whole = try await twice(text, after: earlier, layout: layout, batchBytes: nil)
        if let problem = problems(whole.first, whole.second) { found.append("whole, again:\n\(problem)") }
        for batchBytes in batchSizes {
            let streamed = try await twice(text, after: earlier, layout: layout, batchBytes: batchBytes)
            if streamed.first != whole.first {
                found.append(
                    "batches of \(batchBytes) bytes, first population:\n\(StreamedDifferentialTests.difference(streamed.first, whole.first))"
                )
            }
            if let problem = problems(streamed.first, streamed.second) {
                found.append("batches of \(batchBytes) bytes, again:\n\(problem)")
            }
        }
        if found.isEmpty { return nil }
        return "earlier: \(earlier)\nresponse: \(text)\n" + found.joined(separator: "\n")
            + "\nwhole, first:\n\(whole.first)"
    }
}

extension StreamedDifferentialTests {
    /// `difference(_:_:_:)` for two snapshots.
    static func difference(_ lhs: IdempotentReimportTests.Snapshot, _ rhs: IdempotentReimportTests.Snapshot) -> String {
        difference(
            Outcome(rows: lhs.rows, counts: lhs.counts, recordIDs: [], recordValues: [], failure: lhs.failure),
            Outcome(rows: rhs.rows, counts: rhs.counts, recordIDs: [], recordValues: [], failure: rhs.failure),
            ("streamed", "whole"))
    }
}

// MARK: - Posts: owner-keyed children, keyless children, lists, one-to-ones, a spouse

extension IdempotentReimportTests {
    static let postsSchema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Post": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "title": { "type": "string" }, "body": { "type": "string" } },
                          "relationships": {
                            "user": { "destination": "User", "inverse": "posts" },
                            "stats": { "destination": "Stats", "inverse": "post" },
                            "cover": { "destination": "Cover", "inverse": "post" },
                            "tags": { "destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts", "merge": "union" },
                            "labels": { "destination": "Tag", "toMany": true },
                            "comments": { "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post" },
                            "notes": { "destination": "Note", "toMany": true, "inverse": "post", "merge": "union" },
                            "pin": { "destination": "Pin", "inverse": "post" },
                            "twin": { "destination": "Post", "inverse": "twin" }
                          }
                        },
                        "User": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
                          "relationships": {
                            "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
                            "profile": { "destination": "Profile", "inverse": "user" }
                          }
                        },
                        "Profile": {
                          "primaryKey": "user",
                          "attributes": { "bio": { "type": "string" } },
                          "relationships": { "user": { "destination": "User", "inverse": "profile" } }
                        },
                        "Stats": {
                          "primaryKey": "post",
                          "attributes": { "views": { "type": "integer" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "stats" } }
                        },
                        "Cover": {
                          "attributes": { "w": { "type": "integer" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "cover" } }
                        },
                        "Tag": {
                          "primaryKey": "code",
                          "attributes": { "code": { "type": "string", "transformer": "lowercased" }, "weight": { "type": "integer" } },
                          "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } }
                        },
                        "Comment": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "text": { "type": "string" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
                        },
                        "Note": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "text": { "type": "string" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "notes" } }
                        },
                        "Pin": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "pin" } }
                        }
                      }
                    }
                    """, fileName: "IdempotentPosts.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let posts = Layout(schema: postsSchema, entity: "Post")

    /// Random text for the generators.
    struct Maker {
        var random: SeededRandom

        mutating func chance(_ percent: Int) -> Bool { random.next(below: 100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[random.next(below: values.count)] }

        /// A JSON list of `count` or fewer elements.
        mutating func list(_ count: Int, _ element: (inout Maker) -> String) -> String {
            "[" + (0..<random.next(below: count + 1)).map { _ in element(&self) }.joined(separator: ", ") + "]"
        }

        /// Appends `"key": value` to `members`, `percent` times in a hundred.
        mutating func add(
            _ members: inout [String], _ percent: Int, _ key: String, _ value: (inout Maker) -> String
        ) {
            guard chance(percent) else { return }
            let text = value(&self)
            members.append("\"\(key)\": " + text)
        }

        static func object(_ members: [String]) -> String { "{" + members.joined(separator: ", ") + "}" }

        /// `text` as a JSON string.
        static func quoted(_ text: String) -> String { "\"" + text + "\"" }

        /// A number in `base..<base + count`, as JSON.
        mutating func number(_ base: Int, _ count: Int) -> String { String(base + random.next(below: count)) }

        /// A JSON string `prefix` and a digit below `count`.
        mutating func word(_ prefix: String, _ count: Int) -> String { Self.quoted(prefix + number(0, count)) }

        // Posts.

        mutating func tag() -> String {
            let code = Self.quoted(pick(["a", "A", "b", "B", "c"]))
            if chance(50) { return code }
            var members = ["\"code\": " + code]
            add(&members, 60, "weight") { $0.number(0, 3) }
            add(&members, 30, "posts") { $0.list(3) { $0.number(1, 5) } }
            return Self.object(members)
        }

        mutating func user() -> String {
            let id = word("u", 3)
            if chance(30) { return id }
            var members = ["\"id\": " + id]
            add(&members, 50, "name") { $0.word("n", 2) }
            add(&members, 30, "profile") { $0.chance(20) ? "null" : "{\"bio\": " + $0.word("b", 2) + "}" }
            add(&members, 25, "posts") { $0.list(3) { $0.number(1, 5) } }
            return Self.object(members)
        }

        mutating func comment() -> String {
            let id = number(10, 5)
            if chance(40) { return id }
            var members = ["\"id\": " + id]
            add(&members, 50, "text") { $0.word("t", 2) }
            add(&members, 15, "post") { $0.number(1, 5) }
            return Self.object(members)
        }

        mutating func note() -> String {
            let id = number(20, 4)
            if chance(40) { return id }
            var members = ["\"id\": " + id]
            add(&members, 50, "text") { $0.word("t", 2) }
            return Self.object(members)
        }

        /// A post; `nested` posts name their twin by key only.
        mutating func post(nested: Bool = false) -> String {
            var members = ["\"id\": " + number(1, 5)]
            add(&members, 50, "title") { $0.word("t", 3) }
            add(&members, 20, "body") { $0.chance(20) ? "null" : $0.word("b", 2) }
            add(&members, 40, "user") { $0.chance(10) ? "null" : $0.user() }
            add(&members, 25, "stats") { $0.chance(25) ? "null" : "{\"views\": " + $0.number(0, 3) + "}" }
            // Never `null`: a keyless cover after a `null` is a new record each time (decision 6).
            add(&members, 25, "cover") { "{\"w\": " + $0.number(0, 3) + "}" }
            add(&members, 35, "tags") { $0.chance(10) ? "null" : $0.list(3) { $0.tag() } }
            add(&members, 25, "labels") {
                $0.chance(10) ? "null" : $0.list(3) { Self.quoted($0.pick(["a", "B", "c"])) }
            }
            add(&members, 30, "comments") { $0.chance(10) ? "null" : $0.list(3) { $0.comment() } }
            add(&members, 25, "notes") { $0.chance(10) ? "null" : $0.list(2) { $0.note() } }
            add(&members, 25, "pin") { $0.chance(20) ? "null" : $0.pick(["30", "31", "{\"id\": 30}", "{\"id\": 31}"]) }
            add(&members, 25, "twin") { maker in
                if maker.chance(20) { return "null" }
                if nested || maker.chance(60) { return maker.number(1, 5) }
                return maker.post(nested: true)
            }
            return Self.object(members)
        }

        mutating func posts() -> String {
            "[" + (0..<(3 + random.next(below: 6))).map { _ in post() }.joined(separator: ", ") + "]"
        }
    }

    /// The seeds that once found a known issue, all mended: 27, 109, 142 and 203 the positions
    /// of ``anOrderedUnionMemberTheOtherSideDropsLeavesNoGap()``, 203 the count of
    /// ``aJoinRowAddedAndRemovedCountsAsBatchingDecides()``, 169 the count of
    /// ``aStreamedReimportCountsBothPostsUnchanged()``, and 26 those positions and a twin taken
    /// and let go across batches of its streamed re-import
    /// (``aTwinTakenFromARowOfItsBatchAndLetGoLaterKeepsItsPartner()``), a stream now read again
    /// whole, which ends as one batch.
    static let postSeedsWithKnownIssues: Set<Int> = []

    @Test(arguments: 0..<300)
    func postsPopulatedAgainChangeNothing(seed: Int) async throws {
        var maker = Maker(random: SeededRandom(seed: UInt64(seed) &+ 0x1DE3))
        let earlier = maker.posts()
        let response = maker.posts()
        let check = {
            let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
            #expect(problems == nil, "\(problems ?? "")")
        }
        if Self.postSeedsWithKnownIssues.contains(seed) {
            await withKnownIssue("a re-import that changes something: \(response)") { try await check() }
        } else {
            try await check()
        }
    }
}

// MARK: - Boards: a hierarchy with a discriminator, join tables, a self-inverse list

extension IdempotentReimportTests {
    static let boardsSchema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Board": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
                          "relationships": {
                            "shapes": { "destination": "Shape", "toMany": true, "ordered": true, "inverse": "boards" },
                            "pinned": { "destination": "Shape", "toMany": true, "inverse": "pinnedOn", "merge": "union" },
                            "main": { "destination": "Shape", "inverse": "mainOf" },
                            "friends": { "destination": "Board", "toMany": true, "inverse": "friends" },
                            "rivals": { "destination": "Board", "toMany": true, "inverse": "rivals", "merge": "union" }
                          }
                        },
                        "Shape": {
                          "primaryKey": "id",
                          "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
                          "attributes": { "id": { "type": "integer" }, "label": { "type": "string" } },
                          "relationships": {
                            "boards": { "destination": "Board", "toMany": true, "inverse": "shapes", "merge": "union" },
                            "pinnedOn": { "destination": "Board", "toMany": true, "ordered": true, "inverse": "pinned" },
                            "mainOf": { "destination": "Board", "toMany": true, "inverse": "main" }
                          }
                        },
                        "Circle": {
                          "parent": "Shape",
                          "attributes": { "radius": { "type": "double" } },
                          "relationships": { "dots": { "destination": "Dot", "toMany": true, "ordered": true, "inverse": "circle" } }
                        },
                        "Square": {
                          "parent": "Shape",
                          "attributes": { "side": { "type": "double" } },
                          "relationships": { "badge": { "destination": "Badge", "inverse": "square" } }
                        },
                        "Dot": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "integer" } },
                          "relationships": { "circle": { "destination": "Circle", "inverse": "dots" } }
                        },
                        "Badge": {
                          "primaryKey": "square",
                          "attributes": { "color": { "type": "string" } },
                          "relationships": { "square": { "destination": "Square", "inverse": "badge" } }
                        }
                      }
                    }
                    """, fileName: "IdempotentBoards.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let boards = Layout(schema: boardsSchema, entity: "Board")
}

extension IdempotentReimportTests.Maker {
    mutating func shape() -> String {
        let id = 50 + random.next(below: 4)
        if chance(30) { return String(id) }
        var members = ["\"id\": " + String(id)]
        // A shape mostly keeps its kind, by its id, and now and then is given as another.
        var circle = id % 2 == 0
        if chance(15) { circle.toggle() }
        if chance(70) { members.append("\"kind\": " + Self.quoted(circle ? "circle" : "square")) }
        if chance(3) { members.append("\"kind\": \"hexagon\"") }
        add(&members, 40, "label") { $0.word("l", 2) }
        add(&members, 30, circle ? "radius" : "side") { $0.number(0, 3) }
        if circle {
            add(&members, 35, "dots") { $0.list(3) { $0.number(60, 4) } }
        } else {
            add(&members, 35, "badge") { $0.chance(20) ? "null" : "{\"color\": " + $0.word("c", 2) + "}" }
        }
        add(&members, 15, "boards") { $0.list(2) { $0.number(1, 4) } }
        return Self.object(members)
    }

    mutating func board(nested: Bool = false) -> String {
        let id = number(1, 4)
        if nested, chance(50) { return id }
        var members = ["\"id\": " + id]
        add(&members, 40, "title") { $0.word("t", 3) }
        add(&members, 40, "shapes") { $0.chance(10) ? "null" : $0.list(3) { $0.shape() } }
        add(&members, 30, "pinned") { $0.chance(10) ? "null" : $0.list(2) { $0.shape() } }
        add(&members, 30, "main") { $0.chance(15) ? "null" : $0.shape() }
        if !nested {
            add(&members, 25, "friends") { $0.chance(10) ? "null" : $0.list(2) { $0.board(nested: true) } }
            add(&members, 25, "rivals") { $0.list(2) { $0.board(nested: true) } }
        }
        return Self.object(members)
    }

    mutating func boards() -> String {
        "[" + (0..<(3 + random.next(below: 6))).map { _ in board() }.joined(separator: ", ") + "]"
    }
}

extension IdempotentReimportTests {
    /// The seeds that find a known issue: 22, the counts of
    /// ``aJoinRowAddedAndRemovedCountsAsBatchingDecides()`` (91 found another case of it, mended).
    static let boardSeedsWithKnownIssues: Set<Int> = []

    @Test(arguments: 0..<300)
    func boardsPopulatedAgainChangeNothing(seed: Int) async throws {
        var maker = Maker(random: SeededRandom(seed: UInt64(seed) &+ 0xB0A2))
        let earlier = maker.boards()
        let response = maker.boards()
        let check = {
            let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.boards)
            #expect(problems == nil, "\(problems ?? "")")
        }
        if Self.boardSeedsWithKnownIssues.contains(seed) {
            await withKnownIssue("a re-import that changes something: \(response)") { try await check() }
        } else {
            try await check()
        }
    }
}

// MARK: - The cases the seeds found

extension IdempotentReimportTests {
    /// An ordered list merged by `union`, kept in a join table, whose member's own replaced list
    /// drops the record in a later occurrence (tag `b`'s `posts: []`): post 4 keeps tag `c`, and
    /// the list reads `[c]` either way. One batch leaves `b` out of the united list and gives `c`
    /// position 0; a stream of one record a batch applies `[b, c]` and then drops `b`, which left
    /// its place empty (`c` at 1). The positions of a list that the other side took a join row
    /// from are numbered again at the end (`StreamTotals.renumberGappedJoinLists`): 0 both ways.
    /// Seeds 26, 27, 109 and 142, and 22 of 800 more.
    @Test func anOrderedUnionMemberTheOtherSideDropsLeavesNoGap() async throws {
        let response = #"[{"id": 4, "tags": ["c"]}, {"id": 4, "tags": [{"code": "B", "posts": []}]}]"#
        let problems = try await Self.reimportProblems(response, after: "[]", layout: Self.posts, batchSizes: [1])
        #expect(problems == nil, "\(problems ?? "")")
        let streamed = try await Self.twice(response, after: "[]", layout: Self.posts, batchBytes: 1)
        #expect(streamed.first.rows.filter { $0.hasPrefix("_Post_tags:") } == ["_Post_tags: 1 | 1 | 0"])
    }

    /// A whole response populated again moved a position (seed 394): the earlier population left
    /// post 4's tags `b` at 0 and `a` at 2 (tag `c`'s own list took the row at 1), and the
    /// response's tag `b` takes post 4 out of its list again. The first population left `a` at 2;
    /// the second, whose united list `[b]` gives `b` back first (and moves `a` to 1) before `b`'s
    /// list takes it away, left `a` at 1 and counted post 4 `updated`. Both now end with `a` at
    /// 0, and the second counts every post `unchanged`.
    @Test func aGapTheOtherSideLeavesIsClosedSoAReimportMovesNothing() async throws {
        let earlier = #"[{"id": 4, "tags": ["b", {"code": "c", "posts": []}, "a"]}]"#
        let response = #"[{"id": 4, "tags": [{"code": "b", "posts": []}]}]"#
        let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
        #expect(problems == nil, "\(problems ?? "")")
        let whole = try await Self.twice(response, after: earlier, layout: Self.posts, batchBytes: nil)
        #expect(whole.first.rows.filter { $0.hasPrefix("_Post_tags:") } == ["_Post_tags: 1 | 3 | 0"])
        #expect(whole.second.counts["Post"]?.unchanged == 1, "\(whole.second)")
    }

    /// A join row that the unordered side's list adds to an ordered list merged by `union` has
    /// no position, and keeps none when the ordered list is given again, as a member of a list
    /// kept on its members does (Docs/Population.md, "Ordered to-many with `union`"): post 1's
    /// tags read `[b, c]`. One batch, which wrote tag `b`'s list before post 1's, gave `b`
    /// position 1, where a stream left it none (seeds 411, 842); and populated again, post 1's
    /// united list `[c, a]`, whose `a` it adds back, gave `b` position 2 and counted post 1
    /// `updated` (seeds 510, 778).
    @Test func aJoinRowTheOtherSideAddsKeepsNoPositionWhenTheListIsGivenAgain() async throws {
        let response =
            #"[{"id": 1, "tags": ["c", {"code": "a", "posts": []}]}, {"id": 2, "tags": [{"code": "b", "posts": [1]}]}]"#
        let problems = try await Self.reimportProblems(response, after: "[]", layout: Self.posts)
        #expect(problems == nil, "\(problems ?? "")")
        let directory = try TemporaryDirectory()
        let store = try RecordStore(
            path: directory.path(), schema: Self.posts.schema, configuration: Self.posts.configuration)
        for _ in 0..<2 {
            _ = try await store.populate(try JSONReader().read(response), entity: "Post")
            let post = try #require(try store.fetchOne("Post", primaryKey: 1))
            #expect(post.relatedRecords("tags").map(\.primaryKeyValue) == ["b", "c"])
        }
    }

    /// The same lists the other way round: tag b, named by the post's ordered `union` list in
    /// its first occurrence, drops the post in that occurrence, and the second names tag c.
    /// Applied in turn, the post ends without tag b, as a stream ends, and one batch leaves tag
    /// b out of the united list too (`Marshaler.orderJoinLists`).
    @Test func anOrderedUnionMemberDroppedByTheOtherSideInItsOwnOccurrence() async throws {
        let response = #"[{"id": 4, "tags": [{"code": "B", "posts": []}]}, {"id": 4, "tags": ["c"]}]"#
        let problems = try await Self.reimportProblems(response, after: "[]", layout: Self.posts, batchSizes: [1])
        #expect(problems == nil, "\(problems ?? "")")
    }

    /// A join row that a list adds and the other side's replaced list removes in the same
    /// response changes nothing, so the records count as their lists end (Docs/Population.md,
    /// "Unchanged rows": "A join row is weighed as it ends"). Where the record that adds it is
    /// new, its join rows are written without being noted, and one batch counted the other side
    /// `updated` on the removal alone: tag `b` here (seed 203); board 3 given `[]` after new
    /// shape 53 listed it (seed 91). A join row naming a row the population inserted was not
    /// there before it (`StreamTotals.noteJoinPairs`): both are now `unchanged`.
    @Test func aJoinRowAddedAndRemovedCountsAsBatchingDecides() async throws {
        let tag = try await Self.twice(
            #"[{"id": 2}, {"id": 2, "tags": [{"code": "b", "posts": []}]}]"#, after: #"[{"id": 5, "labels": ["B"]}]"#,
            layout: Self.posts, batchBytes: nil)
        #expect(tag.first.counts["Tag"]?.unchanged == 1, "\(tag.first)")
        let board = try await Self.twice(
            #"[{"id": 2, "shapes": [{"id": 53, "boards": [3]}]}, {"id": 2, "shapes": []}, {"id": 3, "shapes": []}]"#,
            after: #"[{"id": 3}]"#, layout: Self.boards, batchBytes: nil)
        #expect(board.first.counts["Board"]?.unchanged == 1, "\(board.first)")
    }

    /// A stored record that gives its own list through a join table counts `updated` when that
    /// list ends with a join row that a new record's list added, whole and streamed, whichever
    /// was written first (seed 22): stored shape 51 lists its `boards` by `union` (`[]` adds
    /// nothing), and new board 3 lists shape 51. One batch wrote board 3's join rows first,
    /// without noting them, and counted shape 51 `unchanged`; a stream, whose earlier batch
    /// inserted board 3, noted the join row and counted it `updated`. Likewise stored tag `a`,
    /// whose own list names new post 2, which post 2's own list had added in an earlier batch
    /// (seed 13 once the ledger weighed lists as they end): a join row that names a row the
    /// population inserted was not there before it (`StreamTotals.noteListersNamingInsertedRows`).
    @Test func aStoredListerGainingANewRecordsJoinRowCountsUpdated() async throws {
        let shape = #"[{"id": 3}, {"id": 3, "shapes": [{"id": 51, "boards": []}]}]"#
        let shapeEarlier = #"[{"id": 1, "shapes": [{"id": 51}]}]"#
        let tag = #"[{"id": 2, "tags": ["A"]}, {"id": 2, "tags": [{"code": "A", "posts": [2, 3]}]}]"#
        let tagEarlier = #"[{"id": 3, "tags": ["a"]}]"#
        for batchBytes in [nil, 1, 40] as [Int?] {
            let boards = try await Self.twice(shape, after: shapeEarlier, layout: Self.boards, batchBytes: batchBytes)
            #expect(boards.first.counts["Shape"]?.updated == 1, "batches of \(batchBytes ?? 0): \(boards.first)")
            #expect(boards.first.counts["Shape"]?.unchanged == 0, "batches of \(batchBytes ?? 0): \(boards.first)")
            #expect(boards.second.counts["Shape"]?.unchanged == 1, "batches of \(batchBytes ?? 0): \(boards.second)")
            let posts = try await Self.twice(tag, after: tagEarlier, layout: Self.posts, batchBytes: batchBytes)
            #expect(posts.first.counts["Tag"]?.updated == 1, "batches of \(batchBytes ?? 0): \(posts.first)")
            #expect(posts.second.counts["Tag"]?.unchanged == 1, "batches of \(batchBytes ?? 0): \(posts.second)")
        }
        #expect(try await Self.reimportProblems(shape, after: shapeEarlier, layout: Self.boards) == nil)
        #expect(try await Self.reimportProblems(tag, after: tagEarlier, layout: Self.posts) == nil)
    }

    /// Populated again, streamed a record a batch, a response whose tag `a` lists post 4, which
    /// post 4's own occurrence then names with the tag's `posts: []`, ends with the same rows and
    /// no join row, and counts both posts `unchanged`, as one batch does (seed 169). The first
    /// batch adds the join row; post 4's own list notes it; tag a's list in the second batch
    /// removes it again. A join row that was not there before the population and is not there
    /// at its end leaves post 4's list as it was (`StreamTotals.listsChanged`).
    @Test func aStreamedReimportCountsBothPostsUnchanged() async throws {
        let response =
            #"[{"id": 3, "tags": [{"code": "A", "posts": [4]}]}, {"id": 4, "tags": [{"code": "a", "posts": []}]}]"#
        let streamed = try await Self.twice(response, after: "[]", layout: Self.posts, batchBytes: 1)
        #expect(streamed.second.rows == streamed.first.rows)
        #expect(streamed.second.counts["Post"]?.unchanged == 2, "\(streamed.second)")
        #expect(streamed.second.counts["Post"]?.updated == 0, "\(streamed.second)")
        #expect(streamed.second.counts["Tag"]?.unchanged == 1, "\(streamed.second)")
    }
}

// MARK: - A one-to-one taken from a row of its batch

extension IdempotentReimportTests {
    /// A long title that ends a batch of 120 bytes after the records before it.
    static let padding =
        #"{"id": 1, "title": "padding padding padding padding padding padding padding padding padding padding"}"#

    /// A one-to-one that is its own inverse (`twin`), taken from the partner it had by an
    /// earlier occurrence of a record whose later occurrence lets go of it (clears it, moves to
    /// another post or to itself), ends as one batch leaves it: one batch wires only the link's
    /// latest occurrence, so the pair it was taken from stays linked (Docs/Population.md, "A
    /// member a list takes from another record and a later occurrence drops"), and a stream that
    /// splits the two occurrences is read again whole. It was not when the row that lost its
    /// partner was a row of the same batch that named it only as stored (a member of a user's
    /// list, a record of the batch, the partner of a nested post): no claim of the batch noted
    /// the take (`PopulationWriter.notePairings`), nor when another record of the batch then
    /// took the taker, leaving the partner it took without one, and the stream left both posts
    /// without a twin and counted them `updated` (seeds 420, 507 and 618 of 300 to 1,099).
    @Test func aTwinTakenFromARowOfItsBatchAndLetGoLaterKeepsItsPartner() async throws {
        let cases: [(earlier: String, response: String)] = [
            // Seed 420: post 2, a member of the new user's list, loses post 1 to post 3.
            (
                #"[{"id": 2, "twin": 1}]"#,
                #"[{"id": 3, "twin": {"id": 1, "user": {"id": "u0", "posts": [2]}}}, {"id": 3, "twin": 3}]"#
            ),
            (
                #"[{"id": 2, "twin": 1}]"#,
                #"[{"id": 3, "twin": 1, "user": {"id": "u0", "posts": [2]}}, {"id": 3, "twin": null}]"#
            ),
            (
                #"[{"id": 2, "twin": 1}]"#,
                #"[{"id": 3, "twin": 1, "user": {"id": "u0", "posts": [2]}}, {"id": 3, "twin": 4}]"#
            ),
            // Seed 507: post 2, a record of the first batch of 120 bytes, loses post 3 to post 4.
            (
                #"[{"id": 2, "twin": 3}]"#,
                #"[{"id": 2, "title": "t0"}, {"id": 4, "twin": 3}, "# + Self.padding + #", {"id": 4, "twin": 5}]"#
            ),
            // Seed 618: nested post 2 takes post 5 from post 1, a row of its batch.
            (
                #"[{"id": 1, "twin": 5}]"#,
                #"[{"id": 1}, {"id": 4, "twin": {"id": 2, "twin": 5}}, "# + Self.padding + #", {"id": 2, "twin": 3}]"#
            ),
            (
                #"[{"id": 1, "twin": 5}]"#,
                #"[{"id": 4, "user": {"id": "u0", "posts": [1]}, "twin": {"id": 2, "twin": 5}}, {"id": 2, "twin": 3}]"#
            ),
            // Seed 507 again: post 4 takes post 3 from post 2, then post 1 takes post 4 in the
            // same batch, leaving post 3 without a twin; post 4's later occurrence lets go.
            (
                #"[{"id": 2, "twin": 3}]"#,
                #"[{"id": 4, "twin": 3}, {"id": 1, "twin": 4}, "# + Self.padding + #", {"id": 4, "twin": 5}]"#
            ),
            (
                #"[{"id": 2, "twin": 3}]"#,
                #"[{"id": 4, "twin": 3}, {"id": 1, "twin": 4}, "# + Self.padding + #", {"id": 4, "twin": null}]"#
            ),
            // A later occurrence of post 4 that sets no twin supersedes nothing.
            (
                #"[{"id": 2, "twin": 3}]"#,
                #"[{"id": 4, "twin": 3}, {"id": 1, "twin": 4}, "# + Self.padding + #", {"id": 4, "title": "x"}]"#
            ),
        ]
        for (earlier, response) in cases {
            let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
            #expect(problems == nil, "\(problems ?? "")")
        }
        // The pair the first occurrence broke up stays linked, and both posts are unchanged.
        let whole = try await Self.twice(
            cases[0].response, after: cases[0].earlier, layout: Self.posts, batchBytes: nil)
        #expect(whole.first.rows.contains("Post: 1 | 'Post' | 2 | NULL | NULL | 1 | 2"), "\(whole.first)")
        #expect(whole.first.rows.contains("Post: 2 | 'Post' | 1 | NULL | NULL | NULL | 1"), "\(whole.first)")
        #expect(whole.first.counts["Post"]?.unchanged == 1, "\(whole.first)")
    }

    /// The same occurrences through a one-to-one between two entities (a post's `pin`): the pin
    /// taken from post 2, a row of the batch, by an occurrence of post 3 whose later occurrence
    /// names another pin or none, stays with post 2, whole and streamed.
    @Test func aPinTakenFromARowOfItsBatchAndLetGoLaterStaysWithItsPost() async throws {
        let cases: [(earlier: String, response: String)] = [
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 3, "pin": 30, "user": {"id": "u0", "posts": [2]}}, {"id": 3, "pin": 31}]"#
            ),
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 3, "pin": {"id": 30}, "user": {"id": "u0", "posts": [2]}}, {"id": 3, "pin": null}]"#
            ),
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 2, "title": "t0"}, {"id": 3, "pin": 30}, "# + Self.padding + #", {"id": 3, "pin": 31}]"#
            ),
        ]
        for (earlier, response) in cases {
            let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
            #expect(problems == nil, "\(problems ?? "")")
        }
    }
}

extension IdempotentReimportTests {
    /// Post 4 takes post 3 from post 2, post 1 then takes post 4 in the same batch, and a later
    /// batch's occurrence of post 4 names post 1 again, the partner it ended that batch with:
    /// one batch, which wires only post 4's latest occurrence, leaves posts 2 and 3 paired. The
    /// stream, which saw no change in post 4's row, left both without a twin; a later occurrence
    /// of such a taker that sets the one-to-one at all is now read again whole
    /// (`StreamTotals.noteTakersTaken`; Docs/Population.md, "A member a list takes from another
    /// record and a later occurrence drops").
    @Test func aTwinTakenThenTakerTakenAndNamedAgainIsReadAgain() async throws {
        let response =
            #"[{"id": 4, "twin": 3}, {"id": 1, "twin": 4}, "# + Self.padding + #", {"id": 4, "twin": 1}]"#
        let earlier = #"[{"id": 2, "twin": 3}]"#
        let problems = try await Self.reimportProblems(
            response, after: earlier, layout: Self.posts, batchSizes: [1, 120])
        #expect(problems == nil, "\(problems ?? "")")
        // The stream that cannot be read again is refused, and writes nothing.
        let directory = try TemporaryDirectory()
        let store = try RecordStore(
            path: directory.path(), schema: Self.postsSchema, configuration: Self.posts.configuration)
        _ = try await store.populate(try JSONReader().read(earlier), entity: "Post")
        let before = try StreamedDifferentialTests.rows(store)
        let once = try await Self.populate(response, into: store, entity: "Post", batchBytes: 120, reopens: false)
        #expect(once.failure.map(Self.isRefusal) == true, "\(once)")
        #expect(once.rows == before, "\(once)")
    }

    /// Sibling shapes of the taker taken: the later occurrence in a third batch, nested in a
    /// user's list, naming the partner it took or another; the record that took the taker
    /// letting go in a later batch; and the same occurrences through a one-to-one between two
    /// entities (a post's `pin`). Each ends as one batch, populated again changing nothing.
    @Test func aTwinTakenThenTakerTakenSiblingShapesEndAsInOneBatch() async throws {
        let taken = #"{"id": 4, "twin": 3}, {"id": 1, "twin": 4}, "# + Self.padding
        let cases: [(earlier: String, response: String)] = [
            // A batch between that names neither post.
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + ", " + Self.padding + #", {"id": 4, "twin": 1}]"#),
            // Post 4 nested in a user's list, naming post 1 again.
            (
                #"[{"id": 2, "twin": 3}]"#,
                "[" + taken + #", {"id": 5, "user": {"id": "u0", "posts": [{"id": 4, "twin": 1}]}}]"#
            ),
            // Post 4 named again by key only, or with data but no twin: nothing superseded.
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 5, "twin": 4}]"#),
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 4, "title": "x"}]"#),
            // Post 4 names the partner it took, or another.
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 4, "twin": 3}]"#),
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 4, "twin": 6}]"#),
            // Post 1, which took the taker, names it again, or lets go of it.
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 1, "twin": 4}]"#),
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 1, "twin": null}]"#),
            (#"[{"id": 2, "twin": 3}]"#, "[" + taken + #", {"id": 1, "twin": 6}]"#),
            // Post 4 stored with no twin before: nothing was taken from a pair.
            (#"[{"id": 2, "twin": 3}, {"id": 4}]"#, "[" + taken + #", {"id": 4, "twin": 1}]"#),
            // A pin taken, then taken from the taker, then named again by the first taker.
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 4, "pin": 30}, {"id": 1, "pin": 30}, "# + Self.padding + #", {"id": 4, "pin": 30}]"#
            ),
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 4, "pin": 30}, {"id": 1, "pin": 30}, "# + Self.padding + #", {"id": 4, "pin": 31}]"#
            ),
            (
                #"[{"id": 2, "pin": 30}]"#,
                #"[{"id": 4, "pin": 30}, {"id": 1, "pin": 30}, "# + Self.padding + #", {"id": 1, "pin": null}]"#
            ),
        ]
        for (earlier, response) in cases {
            let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
            #expect(problems == nil, "\(problems ?? "")")
        }
    }
}

extension IdempotentReimportTests {
    /// A stored square's badge (a `Badge` keyed by its owner `square`), given again by an
    /// occurrence of the square that a later one makes a circle, is the stored badge: updated,
    /// then deleted with the switch, as a stream that finds it in an earlier batch has it. One
    /// batch took it for a new record, unstored, which took an `_id` and left it unused, so that
    /// the next new badge got `_id` 3 whole and 2 streamed (seeds 451 and 716 of the boards).
    @Test func aStoredOwnerKeyedChildOfAnOwnerSwitchedAwayTakesNoNewID() async throws {
        let earlier = #"[{"id": 1, "main": {"id": 53, "kind": "square", "badge": {"color": "c1"}}}]"#
        let response = #"""
            [{"id": 1, "main": {"id": 53, "kind": "square", "badge": {"color": "c0"}}}, {"id": 1, "main": {"id": 53, "kind": "circle"}},
             {"id": 2, "main": {"id": 50, "kind": "square", "badge": {"color": "c0"}}}]
            """#
        let whole = try await Self.twice(response, after: earlier, layout: Self.boards, batchBytes: nil)
        #expect(
            whole.first.rows.filter { $0.hasPrefix("Badge:") } == ["Badge: 2 | 'Badge' | 'c0' | 2"], "\(whole.first)")
        #expect(whole.first.counts["Badge"]?.inserted == 1, "\(whole.first)")
        #expect(whole.first.counts["Badge"]?.deleted == 1, "\(whole.first)")
        let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.boards)
        #expect(problems == nil, "\(problems ?? "")")
    }

    /// A stored post moved by its own link from user `u1` to user `u2`, then taken by new user
    /// `u0`'s list: `u1`, which held the post before the population, lost it to a list, and
    /// counts `updated` (Docs/Population.md, "Unchanged rows"), whole and streamed. A stream
    /// whose earlier batch had moved the post to `u2` noted the loss for `u2` alone and counted
    /// `u1` `unchanged` (seed 761 of the posts).
    @Test func aMemberMovedByItsOwnLinkThenTakenByAListCountsItsFormerOwnerUpdated() async throws {
        let earlier = #"[{"id": 3, "user": "u1"}]"#
        let response =
            #"[{"id": 3, "user": "u2"}, {"id": 5, "user": {"id": "u0", "posts": [3]}}, {"id": 1, "user": "u1"}]"#
        for batchBytes in [nil, 1, 40] as [Int?] {
            let posts = try await Self.twice(response, after: earlier, layout: Self.posts, batchBytes: batchBytes)
            #expect(posts.first.counts["User"]?.updated == 1, "batches of \(batchBytes ?? 0): \(posts.first)")
            #expect(posts.first.counts["User"]?.unchanged == 0, "batches of \(batchBytes ?? 0): \(posts.first)")
        }
        let problems = try await Self.reimportProblems(response, after: earlier, layout: Self.posts)
        #expect(problems == nil, "\(problems ?? "")")
    }
}
