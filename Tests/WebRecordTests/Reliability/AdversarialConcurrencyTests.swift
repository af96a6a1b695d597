import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// Concurrency inside one process, pushed where it hurts: overlapping populations of shared
/// records and lists, several stores on one file, readers during long populations,
/// cancellations at any moment, observations beside all of it, and stores closed while work is
/// in flight. Every outcome is the one the documentation promises: a population is one
/// transaction, writes are serialized, readers see committed state only, a cancelled
/// population leaves the store as it was, and an observation always delivers the final state.
@Suite("Reliability: adversarial concurrency", .serialized)
struct AdversarialConcurrencyTests {
    // MARK: - Schema and responses

    /// Posts by users, with tags (a many-to-many, kept in a join table).
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" }, "text": { "type": "string" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "tags": { "destination": "Tag", "toMany": true, "inverse": "posts" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user" }
              }
            },
            "Tag": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "label": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "tags" }
              }
            }
          }
        }
        """

    static func schema() throws -> Schema {
        try Schema(json: schemaJSON, fileName: "Adversarial.json")
    }

    static let userCount = 5
    static let postCount = 20

    /// The user post `post` belongs to in population (`task`, `round`).
    static func owner(of post: Int, task: Int, round: Int) -> Int { (post + task + round) % userCount }

    /// The tags of post `post` in population (`task`, `round`): one of t0–t3 and one of t4–t6.
    static func tags(of post: Int, task: Int, round: Int) -> Set<String> {
        ["t\((post + task) % 4)", "t\((post + round + task) % 3 + 4)"]
    }

    /// A list of every user, each with its posts (every post once), each post with its tags:
    /// what population (`task`, `round`) says the whole graph is. Under `replace` (the default)
    /// it alone decides the whole state.
    static func users(task: Int, round: Int) -> JSONValue {
        let label = "task \(task) round \(round)"
        return .array(
            (0..<userCount).map { user -> JSONValue in
                let posts = (0..<postCount).filter { owner(of: $0, task: task, round: round) == user }
                return [
                    "id": .string("u\(user)"),
                    "name": .string(label),
                    "posts": .array(
                        posts.map { post -> JSONValue in
                            [
                                "id": .integer(Int64(post)),
                                "text": .string(label),
                                "tags": .array(
                                    tags(of: post, task: task, round: round).sorted().map { tag -> JSONValue in
                                        ["id": .string(tag), "label": .string(label)]
                                    }),
                            ]
                        }),
                ]
            })
    }

    /// The whole object graph as values, read through the public API.
    struct Graph: Equatable, Sendable, CustomStringConvertible {
        var userNames: [String: String] = [:]
        var userPosts: [String: Set<Int>] = [:]
        var postTexts: [Int: String] = [:]
        var postUser: [Int: String] = [:]
        var postTags: [Int: Set<String>] = [:]
        var tagLabels: [String: String] = [:]
        var tagPosts: [String: Set<Int>] = [:]

        var description: String {
            "users \(userNames.sorted { $0.key < $1.key }), posts of users \(userPosts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sorted())" })"
        }
    }

    static func graph(_ store: RecordStore) throws -> Graph {
        var graph = Graph()
        for user in try store.fetch("User") {
            let id = user["id"] as String? ?? "?"
            graph.userNames[id] = user["name"] as String? ?? "nil"
            graph.userPosts[id] = Set(user.relatedRecords("posts").compactMap { $0["id"] as Int? })
        }
        for post in try store.fetch("Post") {
            let id = post["id"] as Int? ?? -1
            graph.postTexts[id] = post["text"] as String? ?? "nil"
            graph.postUser[id] = post.related("user")?["id"] as String? ?? "nil"
            graph.postTags[id] = Set(post.relatedRecords("tags").compactMap { $0["id"] as String? })
        }
        for tag in try store.fetch("Tag") {
            let id = tag["id"] as String? ?? "?"
            graph.tagLabels[id] = tag["label"] as String? ?? "nil"
            graph.tagPosts[id] = Set(tag.relatedRecords("posts").compactMap { $0["id"] as Int? })
        }
        return graph
    }

    /// The graph population (`task`, `round`) leaves, whatever came before it.
    static func expectedGraph(task: Int, round: Int) -> Graph {
        let label = "task \(task) round \(round)"
        var graph = Graph()
        for user in 0..<userCount {
            graph.userNames["u\(user)"] = label
            graph.userPosts["u\(user)"] = Set(
                (0..<postCount).filter { owner(of: $0, task: task, round: round) == user })
        }
        var tagPosts: [String: Set<Int>] = [:]
        for post in 0..<postCount {
            graph.postTexts[post] = label
            graph.postUser[post] = "u\(owner(of: post, task: task, round: round))"
            let tags = tags(of: post, task: task, round: round)
            graph.postTags[post] = tags
            for tag in tags { tagPosts[tag, default: []].insert(post) }
        }
        graph.tagPosts = tagPosts
        for tag in tagPosts.keys { graph.tagLabels[tag] = label }
        return graph
    }

    /// The population (`task`, `round`) whose graph `graph` is, if any.
    static func serialWitness(of graph: Graph, tasks: Int, rounds: Int) -> (task: Int, round: Int)? {
        guard let name = graph.userNames["u0"] else { return nil }
        for task in 0..<tasks {
            for round in 0..<rounds where name == "task \(task) round \(round)" {
                return graph == expectedGraph(task: task, round: round) ? (task, round) : nil
            }
        }
        return nil
    }

    /// `{"data": [...]}`-less list of posts `ids`, each with text `text` and no relationship.
    static func posts(_ ids: Range<Int>, text: String) -> JSONValue {
        .array(ids.map { ["id": .integer(Int64($0)), "text": .string(text)] })
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func waitUntil(seconds: Double, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return try condition()
    }

    // MARK: - Overlapping populations

    @Test("Ten tasks populating the same users, lists and tags at once leave the graph of one population")
    func overlappingPopulationsEqualOneSerialOrder() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("overlap.sqlite"), schema: Self.schema())
        let (tasks, rounds) = (10, 3)
        let failures = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for round in 0..<rounds {
                        do {
                            let result = try await store.populate(Self.users(task: task, round: round), entity: "User")
                            if result.records.count != Self.userCount {
                                failures.withLock { $0.append("\(task)/\(round): \(result.records.count) records") }
                            }
                        } catch {
                            failures.withLock { $0.append("\(task)/\(round): \(error)") }
                        }
                    }
                }
            }
        }
        #expect(failures.value == [])
        #expect(try store.count("User") == Self.userCount)
        #expect(try store.count("Post") == Self.postCount)
        #expect(try store.count("Tag") == 7)
        let graph = try Self.graph(store)
        #expect(
            Self.serialWitness(of: graph, tasks: tasks, rounds: rounds) != nil,
            "the graph is no population's: \(graph)")
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    @Test("Two RecordStore instances on one file populating at once leave the graph of one population")
    func twoStoresOnOneFileEqualOneSerialOrder() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("two.sqlite")
        let stores = try [
            RecordStore(path: path, schema: Self.schema()), RecordStore(path: path, schema: Self.schema()),
        ]
        let (tasks, rounds) = (8, 3)
        let failures = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for round in 0..<rounds {
                        do {
                            _ = try await stores[task % 2].populate(
                                Self.users(task: task, round: round), entity: "User")
                        } catch {
                            failures.withLock { $0.append("\(task)/\(round): \(error)") }
                        }
                    }
                }
            }
        }
        #expect(failures.value == [])
        let first = try Self.graph(stores[0])
        let second = try Self.graph(stores[1])
        #expect(first == second, "both stores read the same file")
        #expect(
            Self.serialWitness(of: first, tasks: tasks, rounds: rounds) != nil, "the graph is no population's: \(first)"
        )
        for store in stores { store.close() }
        let reopened = try RecordStore(path: path, schema: Self.schema())
        #expect(try Self.graph(reopened) == first)
        #expect(try Reliability.integrity(reopened) == ["ok"])
    }

    // MARK: - Opening while another instance migrates

    @Test("A store opened while another makes the file's tables reads nothing or everything, and its writes stay")
    func aStoreOpenedDuringTheFirstPopulationSeesBeforeOrAfter() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("migrating.sqlite")
        let first = try RecordStore(path: path, schema: Self.schema())
        let big = Self.posts(0..<4_000, text: "first")
        let population = Task { try await first.populate(big, entity: "Post").records.count }
        // Open the second store while the first population (which creates the tables) runs.
        var observedCounts = Set<Int>()
        var readErrors: [String] = []
        let second = try RecordStore(path: path, schema: Self.schema())
        var populated: Int?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            do {
                observedCounts.insert(try second.count("Post"))
            } catch {
                readErrors.append("\(error)")
            }
            if populated == nil, observedCounts.contains(4_000) {
                populated = try await population.value
            }
            if populated != nil { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        if populated == nil { populated = try await population.value }
        #expect(populated == 4_000)
        #expect(readErrors == [])
        #expect(
            observedCounts.isSubset(of: [0, 4_000]), "a reader saw part of the population: \(observedCounts.sorted())")
        _ = try await second.populate(Self.posts(10_000..<10_010, text: "second"), entity: "Post")
        #expect(try first.count("Post") == 4_010)
        first.close()
        second.close()
        let fresh = try RecordStore(path: path, schema: Self.schema())
        #expect(try fresh.count("Post") == 4_010)
        #expect(try fresh.count("Post", where: "text = ?", arguments: ["second"]) == 10)
    }

    @Test("A first write cancelled in the store that made the file does not remove another store's committed rows")
    func aCancelledFirstWriteKeepsAnotherStoresRows() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("created.sqlite")
        let creator = try RecordStore(path: path, schema: Self.schema())
        let other = try RecordStore(path: path, schema: Self.schema())
        let started = Locked(false)
        // The creator's first write holds the lock until it is cancelled.
        let blocked = Task {
            try await creator.write { connection in
                try connection.execute(
                    "INSERT INTO \"Post\" (\"_entity\", \"id\", \"text\") VALUES ('Post', 1, 'never')")
                started.value = true
                let deadline = Date().addingTimeInterval(20)
                while !Task.isCancelled, Date() < deadline { usleep(1_000) }
                throw CancellationError()
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { started.value })
        // The other store's population waits for the lock, within its busy timeout.
        let otherPopulation = Task {
            try await other.populate(Self.posts(100..<110, text: "kept"), entity: "Post").records.count
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        blocked.cancel()
        let failure = await RequestSupport.failure { _ = try await blocked.value }
        #expect(failure?.code == .cancelled)
        #expect(try await otherPopulation.value == 10)
        #expect(try other.count("Post") == 10)
        #expect(FileManager.default.fileExists(atPath: path), "the file holds the other store's commit")
        creator.close()
        other.close()
        let fresh = try RecordStore(path: path, schema: Self.schema())
        #expect(try fresh.count("Post") == 10)
        #expect(try fresh.count("Post", where: "text = ?", arguments: ["never"]) == 0)
    }

    @Test("A store whose file another instance removed after a failed first write keeps its own later writes")
    func aWriteAfterTheCreatorRemovedTheFileIsKept() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("removed.sqlite")
        let creator = try RecordStore(path: path, schema: Self.schema())
        let other = try RecordStore(path: path, schema: Self.schema())
        // The creator's first write fails: the file it made, holding nothing, goes.
        let failure = await RequestSupport.failure {
            try await creator.write { _ -> Int in throw CancellationError() }
        }
        #expect(failure != nil)
        // The other store, opened on the file before it went, writes: its rows must be at the path.
        _ = try await other.populate(Self.posts(0..<5, text: "other"), entity: "Post")
        #expect(try other.count("Post") == 5)
        #expect(try creator.count("Post") == 5, "the creator reads the file at its path")
        _ = try await creator.populate(Self.posts(5..<7, text: "creator"), entity: "Post")
        #expect(try other.count("Post") == 7)
        creator.close()
        other.close()
        let fresh = try RecordStore(path: path, schema: Self.schema())
        #expect(try fresh.count("Post") == 7)
    }

    // MARK: - Readers during a long population

    @Test("Fetches, counts, navigation and exports during a long population see it whole or not at all")
    func readersNeverSeePartOfAPopulation() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("readers.sqlite"), schema: Self.schema())
        // Before: 1,500 posts by 10 users, text "before". After: the same posts with text
        // "after", moved to the next user, and 1,500 more.
        func response(_ ids: Range<Int>, text: String, shift: Int) -> JSONValue {
            .array(
                ids.map { id -> JSONValue in
                    [
                        "id": .integer(Int64(id)), "text": .string(text),
                        "user": ["id": .string("u\((id + shift) % 10)"), "name": .string(text)],
                    ]
                })
        }
        _ = try await store.populate(response(0..<1_500, text: "before", shift: 0), entity: "Post")
        let after = response(0..<3_000, text: "after", shift: 1)
        let done = Locked(false)
        let population = Task {
            defer { done.value = true }
            return try await store.populate(after, entity: "Post").records.count
        }
        var anomalies: [String] = []
        var reads = 0
        while !done.value, reads < 100_000 {
            reads += 1
            let count = try store.count("Post")
            if count != 1_500, count != 3_000 { anomalies.append("count \(count)") }
            let texts = Set(try store.fetch("Post").compactMap { $0["text"] as String? })
            if texts.count != 1 { anomalies.append("texts \(texts.sorted())") }
            if let user = try store.fetchOne("User", primaryKey: "u3") {
                let posts = user.relatedRecords("posts").count
                if posts != 150, posts != 300 { anomalies.append("u3 has \(posts) posts") }
            }
            let exported = try store.exportJSON(entity: "Post")
            if case .array(let items) = exported {
                let exportedTexts = Set(
                    items.compactMap { item -> String? in
                        if case .string(let text)? = item["text"] { return text }
                        return nil
                    })
                if exportedTexts.count != 1 || (items.count != 1_500 && items.count != 3_000) {
                    anomalies.append("export \(items.count) \(exportedTexts.sorted())")
                }
            }
            let users = try await store.read { _ in try store.fetch("User").map { $0["name"] as String? } }
            if Set(users).count != 1 { anomalies.append("user names \(Set(users))") }
            if anomalies.count > 10 { break }
        }
        #expect(try await population.value == 3_000)
        #expect(anomalies == [], "readers saw part of the population")
        #expect(try store.count("Post", where: "text = ?", arguments: ["after"]) == 3_000)
    }

    // MARK: - Cancellation at any moment

    @Test("Populations cancelled at random moments leave the store before or after, as their outcome says")
    func cancellationsAtRandomMomentsAgreeWithTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("cancel.sqlite"), schema: Self.schema())
        let size = 800
        func response(_ version: Int) -> JSONValue {
            var posts = (0..<size).map { id -> JSONValue in
                [
                    "id": .integer(Int64(id)), "text": .string("v\(version)"),
                    "user": ["id": .string("u\(id % 7)"), "name": .string("v\(version)")],
                ]
            }
            posts.append(["id": .integer(Int64(100_000 + version)), "text": .string("v\(version)")])
            return .array(posts)
        }
        _ = try await store.populate(response(0), entity: "Post")
        // How long one population takes here, to spread the cancellations over it and past it.
        let clock = ContinuousClock()
        let measured = try await clock.measure { _ = try await store.populate(response(1), entity: "Post") }
        let span = max(1, Int(measured / .milliseconds(1) * 1.4))
        var random = SeededRandom(seed: 20_261_206)
        var committedVersion = 1
        var outcomes: [String: Int] = ["committed": 0, "cancelled": 0]
        var mismatches: [String] = []
        for version in 2..<32 {
            let delay = Int.random(in: 0...span, using: &random)
            let body = response(version)
            let task = Task { try await store.populate(body, entity: "Post").records.count }
            try await Task.sleep(for: .milliseconds(delay))
            task.cancel()
            let outcome: Result<Int, WebRecordError>
            do {
                outcome = .success(try await task.value)
            } catch let error as WebRecordError {
                outcome = .failure(error)
            }
            let current = try store.count("Post", where: "text = ?", arguments: ["v\(version)"])
            let previous = try store.count("Post", where: "text = ?", arguments: ["v\(committedVersion)"])
            let marker = try store.count("Post", where: "id = ?", arguments: [100_000 + version])
            switch outcome {
            case .success(let count):
                outcomes["committed", default: 0] += 1
                if count != size + 1 || current != size + 1 || marker != 1 {
                    mismatches.append(
                        "v\(version) returned \(count) records; store has \(current) at v\(version), marker \(marker)")
                }
                committedVersion = version
            case .failure(let error):
                outcomes["cancelled", default: 0] += 1
                if error.code != .cancelled || current != 0 || marker != 0 || previous != size + 1 {
                    mismatches.append(
                        "v\(version) failed with \(error.code); store has \(current) at v\(version), \(previous) at v\(committedVersion), marker \(marker)"
                    )
                }
            }
        }
        #expect(mismatches == [])
        // The writer is left usable: no transaction of a cancelled population stays open.
        _ = try await store.populate(response(99), entity: "Post")
        #expect(try store.count("Post", where: "text = ?", arguments: ["v99"]) == size + 1)
        #expect(try Reliability.integrity(store) == ["ok"])
        print("[adversarial] cancellations: \(outcomes), span \(span) ms")
    }

    @Test("Streamed populations from files, read during and cancelled at random moments, are whole or absent")
    func streamedPopulationsAreWholeOrAbsent() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("streamed.sqlite"), schema: Self.schema())
        let size = 8_000
        _ = try await store.populate(Self.posts(0..<10, text: "v0"), entity: "Post")
        var random = SeededRandom(seed: 31)
        var span = 1
        var committed = 0
        var anomalies: [String] = []
        var outcomes = (committed: 0, cancelled: 0)
        for version in 1...10 {
            let file = directory.url.appendingPathComponent("posts-\(version).json")
            let body = JSONValue.array(
                (0..<size).map { id -> JSONValue in
                    [
                        "id": .integer(Int64(id)), "text": .string("v\(version)"),
                        "user": ["id": .string("u\(id % 9)"), "name": .string("v\(version)")],
                    ]
                })
            try Data(body.serialized().utf8).write(to: file)
            let before = try store.count("Post")
            let done = Locked(false)
            let task = Task {
                defer { done.value = true }
                return try await store.populate(contentsOf: file, entity: "Post").records.count
            }
            // The first population runs whole and is timed; the others are cancelled across that time.
            let cancelAt =
                version == 1
                ? Date.distantFuture
                : Date().addingTimeInterval(Double(Int.random(in: 0...span, using: &random)) / 1_000)
            let started = Date()
            var seen = Set<Int>()
            var cancelled = false
            while !done.value {
                let count = try store.count("Post")
                let current = try store.count("Post", where: "text = ?", arguments: ["v\(version)"])
                seen.insert(count)
                if current != 0, current != size {
                    anomalies.append("v\(version): \(current) posts of the population visible")
                }
                if !cancelled, Date() >= cancelAt {
                    task.cancel()
                    cancelled = true
                }
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            let failure = await RequestSupport.failure { _ = try await task.value }
            if version == 1 { span = max(1, Int(Date().timeIntervalSince(started) * 2_000)) }
            let current = try store.count("Post", where: "text = ?", arguments: ["v\(version)"])
            let after = Set([before, size])
            if !seen.isSubset(of: after) {
                anomalies.append("v\(version): counts \(seen.sorted()) seen, only \(after.sorted()) allowed")
            }
            if let failure {
                outcomes.cancelled += 1
                let previous = try store.count("Post", where: "text = ?", arguments: ["v\(committed)"])
                let total = try store.count("Post")
                if failure.code != .cancelled || current != 0 || total != before {
                    anomalies.append(
                        "v\(version) failed (\(failure.code)); \(current) rows at v\(version), \(previous) at v\(committed)"
                    )
                }
            } else {
                outcomes.committed += 1
                if current != size { anomalies.append("v\(version) returned; \(current) rows at v\(version)") }
                committed = version
            }
        }
        #expect(anomalies.prefix(5) == [], "\(anomalies.count) anomalies")
        #expect(try Reliability.integrity(store) == ["ok"])
        print("[adversarial] streamed: \(outcomes)")
    }

    // MARK: - Observation beside populations and cancellations

    /// One delivery, as values: each record's `_id` and text, and the change set.
    struct Delivery: Sendable {
        var rows: [Int64]
        var texts: [String]
        var changes: ChangeSet<Int>?
    }

    /// The rows `changes` makes of `old` by the documented rule, or nil when it does not apply.
    static func apply(_ changes: ChangeSet<Int>, to old: [Int64], giving new: [Int64]) -> [Int64]? {
        var rows = old
        let removed = Set(changes.deletions + changes.moves.map(\.from))
        guard removed.allSatisfy({ $0 >= 0 && $0 < old.count }) else { return nil }
        for index in removed.sorted(by: >) { rows.remove(at: index) }
        let inserted = (changes.insertions + changes.moves.map(\.to)).sorted()
        for index in inserted {
            guard index >= 0, index <= rows.count, index < new.count else { return nil }
            rows.insert(new[index], at: index)
        }
        return rows
    }

    @Test("An observation beside populations and cancellations delivers consistent change sets and the final state")
    func observationBesidePopulationsAndCancellations() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("observed.sqlite"), schema: Self.schema())
        _ = try await store.populate(Self.posts(0..<50, text: "start"), entity: "Post")
        let deliveries = Locked<[Delivery]>([])
        let observer = Task {
            for try await results in store.observe("Post", orderBy: [.ascending("text"), .descending("id")]) {
                let delivery = Delivery(
                    rows: results.records.map(\.rowID), texts: results.records.map { $0["text"] as String? ?? "nil" },
                    changes: results.changes)
                deliveries.withLock { $0.append(delivery) }
                try? await Task.sleep(nanoseconds: 3_000_000)  // a consumer slower than the writes
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { !deliveries.value.isEmpty })
        var random = SeededRandom(seed: 7)
        for round in 0..<40 {
            let lower = Int.random(in: 0..<60, using: &random)
            let body = Self.posts(lower..<(lower + Int.random(in: 1...40, using: &random)), text: "r\(round % 7)")
            let task = Task { _ = try await store.populate(body, entity: "Post") }
            if round % 3 == 0 {
                try await Task.sleep(nanoseconds: UInt64(Int.random(in: 0...3_000_000, using: &random)))
                task.cancel()
            }
            _ = await RequestSupport.failure { try await task.value }
            if round % 5 == 0 {
                try await store.write { connection in
                    try connection.execute("DELETE FROM \"Post\" WHERE \"id\" % 11 = \(round % 11)")
                }
            }
        }
        let final = try store.fetch("Post", orderBy: [.ascending("text"), .descending("id")])
        let finalRows = final.map(\.rowID)
        let finalTexts = final.map { $0["text"] as String? ?? "nil" }
        let reached = await Self.waitUntil(seconds: 10) {
            deliveries.withLock { $0.last.map { $0.rows == finalRows && $0.texts == finalTexts } ?? false }
        }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(reached, "the final state was not delivered")
        let all = deliveries.value
        var inconsistent: [String] = []
        for (previous, delivery) in zip(all, all.dropFirst()) {
            guard let changes = delivery.changes else {
                inconsistent.append("a delivery after the first has no change set")
                continue
            }
            if Self.apply(changes, to: previous.rows, giving: delivery.rows) != delivery.rows {
                inconsistent.append("changes \(changes) do not turn \(previous.rows) into \(delivery.rows)")
            }
            // A record in both deliveries whose text changed is a modification at its new index.
            let oldTexts = Dictionary(zip(previous.rows, previous.texts), uniquingKeysWith: { a, _ in a })
            let modified = Set(changes.modifications.map(\.new))
            let inserted = Set(changes.insertions)
            for (index, row) in delivery.rows.enumerated() where !inserted.contains(index) {
                if let old = oldTexts[row], old != delivery.texts[index], !modified.contains(index) {
                    inconsistent.append("row \(row) changed from \(old) to \(delivery.texts[index]) unreported")
                }
            }
        }
        #expect(inconsistent.prefix(5) == [], "\(inconsistent.count) inconsistent deliveries of \(all.count)")
    }

    @Test("A commit by another connection, made while the consumer is busy, is not lost beside this store's own commit")
    func anotherConnectionsCommitIsDeliveredBesideOwnCommit() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("external.sqlite")
        let store = try RecordStore(path: path, schema: Self.schema())
        _ = try await store.populate(Self.posts(1..<3, text: "v0"), entity: "Post")
        let deliveries = Locked<[[String]]>([])
        let gate = Gate()
        let observer = Task {
            for try await results in store.observe("Post", orderBy: [.ascending("id")]) {
                let texts = results.records.map { "\($0["id"] as Int? ?? -1)=\($0["text"] as String? ?? "nil")" }
                let count = deliveries.withLock { state -> Int in
                    state.append(texts)
                    return state.count
                }
                if count == 1 { await gate.wait() }  // busy with the first delivery
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { deliveries.value.count == 1 })
        // Another connection to the file (another process would do the same) commits, then this
        // store commits, both while the consumer is busy.
        do {
            let external = try Connection(path: path)
            try external.execute("UPDATE \"Post\" SET \"text\" = 'external' WHERE \"id\" = 1")
        }
        _ = try await store.populate(Self.posts(2..<3, text: "v1"), entity: "Post")
        #expect(
            try store.fetch("Post", orderBy: [.ascending("id")]).map { $0["text"] as String? } == ["external", "v1"])
        gate.open()
        // External commits arrive within about 250 ms on an idle machine; the whole suite's load
        // has delayed them by seconds, so the wait is long (a lost commit never arrives at all).
        let reached = await Self.waitUntil(seconds: 20) { deliveries.value.last == ["1=external", "2=v1"] }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(reached, "the final state was never delivered: \(deliveries.value)")
    }

    @Test("A commit by another connection just before this store's own commit is delivered, with no consumer delay")
    func anotherConnectionsCommitRightBeforeOwnCommitIsDelivered() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("external-fast.sqlite")
        let store = try RecordStore(path: path, schema: Self.schema())
        _ = try await store.populate(Self.posts(1..<3, text: "v0"), entity: "Post")
        let deliveries = Locked<[[String]]>([])
        let observer = Task {
            for try await results in store.observe("Post", orderBy: [.ascending("id")]) {
                let texts = results.records.map { "\($0["id"] as Int? ?? -1)=\($0["text"] as String? ?? "nil")" }
                deliveries.withLock { $0.append(texts) }
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { deliveries.value.count == 1 })
        // A raw connection to the file, as another process or library would hold, then a population.
        do {
            let external = try Connection(path: path)
            try external.execute("UPDATE \"Post\" SET \"text\" = 'external' WHERE \"id\" = 1")
        }
        _ = try await store.populate(Self.posts(2..<3, text: "v1"), entity: "Post")
        let reached = await Self.waitUntil(seconds: 20) { deliveries.value.last == ["1=external", "2=v1"] }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(reached, "the final state was never delivered: \(deliveries.value)")
    }

    @Test("With a limit (results read whole), another connection's commit beside this store's own is delivered")
    func anotherConnectionsCommitIsDeliveredWhenResultsAreReadWhole() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("external-limit.sqlite")
        let store = try RecordStore(path: path, schema: Self.schema())
        _ = try await store.populate(Self.posts(1..<3, text: "v0"), entity: "Post")
        let deliveries = Locked<[[String]]>([])
        let observer = Task {
            for try await results in store.observe("Post", orderBy: [.ascending("id")], limit: 10) {
                let texts = results.records.map { "\($0["id"] as Int? ?? -1)=\($0["text"] as String? ?? "nil")" }
                deliveries.withLock { $0.append(texts) }
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { deliveries.value.count == 1 })
        do {
            let external = try Connection(path: path)
            try external.execute("UPDATE \"Post\" SET \"text\" = 'external' WHERE \"id\" = 1")
        }
        _ = try await store.populate(Self.posts(2..<3, text: "v1"), entity: "Post")
        let reached = await Self.waitUntil(seconds: 20) { deliveries.value.last == ["1=external", "2=v1"] }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(reached, "the final state was never delivered: \(deliveries.value)")
    }

    @Test("Two stores on one file, one opened by a file: URI: each one's commits reach the other's observation")
    func storesOnOneFileByPathAndByURIObserveEachOther() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("uri.sqlite")
        let byPath = try RecordStore(path: path, schema: Self.schema())
        _ = try await byPath.populate(Self.posts(1..<3, text: "v0"), entity: "Post")
        let byURI = try RecordStore(path: "file:" + path, schema: Self.schema())
        #expect(try byURI.count("Post") == 2, "both open the same file")
        let deliveries = Locked<[[String]]>([])
        let observer = Task {
            for try await results in byPath.observe("Post", orderBy: [.ascending("id")]) {
                let texts = results.records.map { "\($0["id"] as Int? ?? -1)=\($0["text"] as String? ?? "nil")" }
                deliveries.withLock { $0.append(texts) }
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { deliveries.value.count == 1 })
        // One population through each store, one right after the other.
        _ = try await byURI.populate(Self.posts(1..<2, text: "through the URI"), entity: "Post")
        _ = try await byPath.populate(Self.posts(2..<3, text: "through the path"), entity: "Post")
        let expected = ["1=through the URI", "2=through the path"]
        let reached = await Self.waitUntil(seconds: 20) { deliveries.value.last == expected }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(
            try byPath.fetch("Post", orderBy: [.ascending("id")]).map { $0["text"] as String? }
                == expected.map { String($0.dropFirst(2)) })
        #expect(reached, "the final state was never delivered: \(deliveries.value)")
    }

    @Test("An observation on a store opened before the file had tables delivers another instance's first population")
    func observationOnAStoreOpenedBeforeTheTablesExist() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed-new.sqlite")
        let creator = try RecordStore(path: path, schema: Self.schema())
        let watcher = try RecordStore(path: path, schema: Self.schema())
        let deliveries = Locked<[Int]>([])
        let observer = Task {
            for try await results in watcher.observe("Post", orderBy: [.ascending("id")]) {
                deliveries.withLock { $0.append(results.records.count) }
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { deliveries.value == [0] })
        _ = try await creator.populate(Self.posts(0..<25, text: "first"), entity: "Post")
        let reached = await Self.waitUntil(seconds: 20) { deliveries.value.last == 25 }
        observer.cancel()
        _ = await RequestSupport.failure { try await observer.value }
        #expect(reached, "deliveries: \(deliveries.value)")
        #expect(try watcher.count("Post") == 25)
    }

    @Test("Requests cancelled by domain at random moments leave the store before or after, as their outcome says")
    func domainCancellationsAtRandomMomentsAgreeWithTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("domains.sqlite"), schema: Self.schema())
        let size = 600
        func body(_ version: Int) -> JSONValue {
            var posts = (0..<size).map { id -> JSONValue in
                [
                    "id": .integer(Int64(id)), "text": .string("v\(version)"),
                    "user": ["id": .string("u\(id % 5)"), "name": .string("v\(version)")],
                ]
            }
            posts.append(["id": .integer(Int64(100_000 + version)), "text": .string("v\(version)")])
            return .array(posts)
        }
        _ = try await store.populate(body(0), entity: "Post")
        var random = SeededRandom(seed: 99)
        var committed = 0
        var mismatches: [String] = []
        var outcomes = (committed: 0, cancelled: 0)
        for version in 1..<25 {
            let server = CannedServer()
            server.enqueue(body(version))
            let domain = "adversarial-\(version)-\(UUID().uuidString)"
            let request = Task {
                try await store.startRequest(
                    entity: "Post", urn: "posts", options: RequestOptions(server: server, domain: domain)
                ).records.count
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &random)))
            store.cancelRequests(inDomain: domain)
            let failure = await RequestSupport.failure { _ = try await request.value }
            let current = try store.count("Post", where: "text = ?", arguments: ["v\(version)"])
            let previous = try store.count("Post", where: "text = ?", arguments: ["v\(committed)"])
            if let failure {
                outcomes.cancelled += 1
                if failure.code != .cancelled || current != 0 || previous != size + 1 {
                    mismatches.append(
                        "v\(version) failed (\(failure.code)) but the store has \(current) at v\(version), \(previous) at v\(committed)"
                    )
                }
            } else {
                outcomes.committed += 1
                if current != size + 1 {
                    mismatches.append("v\(version) returned but the store has \(current) at v\(version)")
                }
                committed = version
            }
        }
        #expect(mismatches == [])
        #expect(try Reliability.integrity(store) == ["ok"])
        print("[adversarial] domain cancellations: \(outcomes)")
    }

    @Test("A batch cancelled at random moments reports, for each request, exactly what the store holds")
    func cancelledBatchesAgreeWithTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("batch.sqlite"), schema: Self.schema())
        let server = CallbackServer { request in
            let index = Int(request.urn.split(separator: "/").last ?? "") ?? -1
            var posts = (0..<800).map { id -> JSONValue in
                [
                    "id": .integer(Int64(id)), "text": .string("shared"),
                    "user": ["id": .string("u\(id % 4)"), "name": .string("shared")],
                ]
            }
            posts.append(["id": .integer(Int64(1_000_000 + index)), "text": .string("marker")])
            return ServerResponse(body: .array(posts))
        }
        var random = SeededRandom(seed: 4_242)
        var mismatches: [String] = []
        var outcomes = (succeeded: 0, cancelled: 0)
        for round in 0..<6 {
            let requests = (0..<10).map { index in
                BatchRequest<Record>(
                    entity: "Post", urn: "batch/\(round * 100 + index)", options: RequestOptions(server: server))
            }
            let batch = Task { () -> [Bool?] in
                await store.startBatch(requests, maximumConcurrentRequests: 3).map { result -> Bool? in
                    switch result {
                    case .success: return true
                    case .failure(let error): return error.code == .cancelled ? false : nil
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...120, using: &random)))
            batch.cancel()
            let reported = await batch.value
            for (index, outcome) in reported.enumerated() {
                let stored = try store.count("Post", where: "id = ?", arguments: [1_000_000 + round * 100 + index])
                switch outcome {
                case true?:
                    outcomes.succeeded += 1
                    if stored != 1 {
                        mismatches.append("request \(round)/\(index) succeeded, marker stored \(stored) times")
                    }
                case false?:
                    outcomes.cancelled += 1
                    if stored != 0 {
                        mismatches.append("request \(round)/\(index) was cancelled, yet its marker is stored")
                    }
                case nil:
                    mismatches.append("request \(round)/\(index) failed with another error")
                }
            }
        }
        #expect(mismatches == [])
        // The shared records are there once any request succeeded, and only then: on a loaded
        // machine every request of every round can be cancelled before it commits.
        let succeeded = outcomes.succeeded > 0
        #expect(
            try store.count("Post", where: "text = ?", arguments: ["shared"]) == (succeeded ? 800 : 0), "\(outcomes)")
        #expect(try store.count("User") == (succeeded ? 4 : 0), "\(outcomes)")
        #expect(try Reliability.integrity(store) == ["ok"])
        print("[adversarial] batches: \(outcomes)")
    }

    // MARK: - Closing while work is in flight

    @Test("Closing a store while its request waits for the server fails the request and writes nothing")
    func closingBeforeTheServerAnswers() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("closing.sqlite")
        let store = try RecordStore(path: path, schema: Self.schema())
        _ = try await store.populate(Self.posts(0..<3, text: "kept"), entity: "Post")
        let gate = Gate()
        let server = CallbackServer { _ in
            await gate.wait()
            return ServerResponse(body: Self.posts(10..<20, text: "late"))
        }
        let request = Task {
            try await store.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: server)).records
                .count
        }
        #expect(await Self.waitUntil(seconds: 20) { gate.isWaiting })
        store.close()
        gate.open()
        let failure = await RequestSupport.failure { _ = try await request.value }
        #expect(failure?.code == .storeError, "a closed store writes nothing: \(String(describing: failure))")
        let fresh = try RecordStore(path: path, schema: Self.schema())
        #expect(try fresh.count("Post") == 3)
        #expect(try fresh.count("Post", where: "text = ?", arguments: ["late"]) == 0)
    }

    @Test("Closing a store during a population waits for it: the population commits and returns, and the file holds it")
    func closingDuringAPopulation() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("closing-during.sqlite")
        let store = try RecordStore(path: path, schema: Self.schema())
        _ = try await store.populate(Self.posts(0..<3, text: "kept"), entity: "Post")
        let writing = Locked(false)
        var options = PopulationOptions()
        options.progress = { progress in if progress.phase == .writing { writing.value = true } }
        let body = Self.posts(100..<6_100, text: "big")
        let population = Task { try await store.populate(body, entity: "Post", options: options).records.count }
        _ = await Self.waitUntil(seconds: 20) { writing.value }
        store.close()
        let outcome = await RequestSupport.failure { _ = try await population.value }
        let fresh = try RecordStore(path: path, schema: Self.schema())
        let big = try fresh.count("Post", where: "text = ?", arguments: ["big"])
        // The population was in its write transaction when `close()` was called: it commits
        // first, and returns its records.
        #expect(outcome == nil, "the population failed: \(String(describing: outcome))")
        #expect(big == 6_000, "the file holds \(big) of the population's rows")
        #expect(try fresh.count("Post", where: "text = ?", arguments: ["kept"]) == 3)
        #expect(try Reliability.integrity(fresh) == ["ok"])
    }

    @Test("Closing a store ends its observation with an error instead of leaving it waiting")
    func closingEndsAnObservation() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path("closing-observed.sqlite"), schema: Self.schema())
        _ = try await store.populate(Self.posts(0..<3, text: "kept"), entity: "Post")
        let state = Locked<(deliveries: Int, ended: String?)>((0, nil))
        let observer = Task {
            do {
                for try await _ in store.observe("Post") { state.withLock { $0.deliveries += 1 } }
                state.withLock { $0.ended = "finished" }
            } catch {
                let described = (error as? WebRecordError).map { "\($0.code)" } ?? "\(error)"
                state.withLock { $0.ended = described }
            }
        }
        #expect(await Self.waitUntil(seconds: 20) { state.value.deliveries == 1 })
        store.close()
        // Generous: under a whole suite's load the observation's next check can come late.
        let ended = await Self.waitUntil(seconds: 20) { state.value.ended != nil }
        observer.cancel()
        _ = await observer.value
        #expect(ended, "the observation still waits on a closed store")
        #expect(state.value.ended == "storeError")
    }

    @Test("Releasing every reference to a store while its request is in flight still populates the file")
    func releasingTheStoreDuringARequest() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("released.sqlite")
        let gate = Gate()
        let server = CallbackServer { _ in
            await gate.wait()
            return ServerResponse(body: Self.posts(0..<50, text: "released"))
        }
        var store: RecordStore? = try RecordStore(path: path, schema: Self.schema())
        let request = Task { [store] in
            try await store!.startRequest(entity: "Post", urn: "posts", options: RequestOptions(server: server))
                .records.count
        }
        store = nil
        #expect(await Self.waitUntil(seconds: 20) { gate.isWaiting })
        gate.open()
        #expect(try await request.value == 50)
        let fresh = try RecordStore(path: path, schema: Self.schema())
        #expect(try fresh.count("Post", where: "text = ?", arguments: ["released"]) == 50)
    }
}
