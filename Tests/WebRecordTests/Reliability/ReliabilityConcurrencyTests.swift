import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Eight tasks populate overlapping responses into one file store while another process reads
/// it in a loop: no `SQLITE_BUSY` reaches anyone, no update is lost, and the final state is the
/// same as populating the same responses one after another.
@Suite("Reliability: concurrency", .loadsTheMachine)
struct ReliabilityConcurrencyTests {
    static let tasks = 8
    static let rounds = 6
    static let postsPerResponse = 60

    /// The response task `task` populates in round `round`.
    ///
    /// Each task owns 60 posts; its first 20 are also the previous task's last 20, so tasks
    /// overlap. All posts share 13 users. A post's or user's content depends only on its id and
    /// the round, so whichever task writes last in the last round, the result is the same. Each
    /// response also carries one post unique to the task and round, which must never be lost.
    static func response(task: Int, round: Int) -> JSONValue {
        var posts: [JSONValue] = []
        let first = task * (postsPerResponse - 20)
        for id in first..<(first + postsPerResponse) {
            posts.append(
                AppNetResponses.post(
                    id: 1 + id, userID: 1 + id % 13, text: "post \(1 + id) round \(round)", version: round))
        }
        let unique = 100_000 + task * 1_000 + round
        posts.append(
            AppNetResponses.post(id: unique, userID: 1 + unique % 13, text: "unique \(task)/\(round)", version: round))
        return ["data": .array(posts)]
    }

    /// A python reader: reads the store in a loop until `argv[2]` exists, then prints how many
    /// reads succeeded and every error it met.
    static let reader = """
        import os, sqlite3, sys, time
        reads, errors = 0, []
        deadline = time.time() + 300
        connection = sqlite3.connect(sys.argv[1], timeout=5)
        while not os.path.exists(sys.argv[2]) and time.time() < deadline:
            try:
                connection.execute("SELECT count(*) FROM Post").fetchall()
                connection.execute("SELECT u.id, count(p._id) FROM User u LEFT JOIN Post p ON p.user = u._id GROUP BY u.id").fetchall()
                connection.execute("SELECT * FROM Counts").fetchall()
                reads += 1
            except Exception as error:
                errors.append(str(error))
        print("reads", reads)
        print("errors", len(errors))
        for error in errors[:10]:
            print("error", error)
        """

    @Test(
        "8 tasks populate overlapping responses into one store while another process reads",
        .enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with its sqlite3 module"))
    func concurrentPopulationsWithAReaderProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        // The reader starts on an existing store.
        _ = try await store.populate(Self.response(task: 0, round: 0), entity: "Post")

        let stop = directory.path("stop")
        let reader = try ChildProcess.python(Self.reader, [path, stop])
        let failures = Locked<[String]>([])
        let populations = Locked(0)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for round in 0..<Self.rounds {
                        do {
                            let result = try await store.populate(
                                Self.response(task: task, round: round), entity: "Post")
                            if result.records.count != Self.postsPerResponse + 1 {
                                failures.withLock {
                                    $0.append("task \(task) round \(round): \(result.records.count) records")
                                }
                            }
                            populations.withLock { $0 += 1 }
                        } catch {
                            failures.withLock { $0.append("task \(task) round \(round): \(error)") }
                        }
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        let read = try await reader.wait()

        #expect(failures.value == [], "no population may fail, SQLITE_BUSY included")
        #expect(populations.value == Self.tasks * Self.rounds)
        #expect(read.stdout.contains("errors 0"), "the reading process met errors: \(read)")
        let reads =
            read.stdout.split(separator: "\n").first { $0.hasPrefix("reads ") }.flatMap { Int($0.dropFirst(6)) } ?? 0
        #expect(reads > 0, "the reading process read nothing: \(read)")

        // No update lost: every unique post is there, and every shared post has its last round.
        let lastRound = Self.rounds - 1
        for task in 0..<Self.tasks {
            for round in 0..<Self.rounds {
                let id = 100_000 + task * 1_000 + round
                #expect(
                    try store.fetchOne("Post", primaryKey: .string(String(id)))?["text"] as String?
                        == "unique \(task)/\(round)")
            }
        }
        #expect(
            try store.count(
                "Post", where: "text LIKE ? AND text NOT LIKE ?", arguments: ["post %", "% round \(lastRound)"]) == 0)
        #expect(try Reliability.integrity(store) == ["ok"])

        // Deterministic: the same content as the same responses populated one after another.
        let reference = try RecordStore(inMemory: Reliability.appNetSchema())
        _ = try await reference.populate(Self.response(task: 0, round: 0), entity: "Post")
        for task in 0..<Self.tasks {
            for round in 0..<Self.rounds {
                _ = try await reference.populate(Self.response(task: task, round: round), entity: "Post")
            }
        }
        let concurrent = try Reliability.export(store)
        let sequential = try Reliability.export(reference)
        for entity in Reliability.appNetEntities {
            #expect(concurrent[entity] == sequential[entity], "\(entity) differs from the sequential result")
        }
        print(
            "[reliability] concurrency: \(Self.tasks * Self.rounds) populations by \(Self.tasks) tasks, \(reads) reads by another process, 0 errors"
        )
    }

    @Test("Populations from several RecordStore instances on one file wait for each other instead of failing")
    func severalStoresOnOneFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("several.sqlite")
        let stores = try (0..<4).map { _ in try RecordStore(path: path, schema: Reliability.appNetSchema()) }
        let failures = Locked<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    for round in 0..<4 {
                        do {
                            _ = try store.populate(Self.response(task: index, round: round), entity: "Post")
                        } catch {
                            failures.withLock { $0.append("store \(index) round \(round): \(error)") }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(failures.value == [])
        for index in 0..<4 {
            for round in 0..<4 {
                #expect(
                    try stores[0].count("Post", where: "id = ?", arguments: [String(100_000 + index * 1_000 + round)])
                        == 1)
            }
        }
        #expect(try Reliability.integrity(stores[0]) == ["ok"])
    }
}
