import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Many workers populating one PostgreSQL database at once: the result is that of running
/// their responses one after another in some order, and conflicts are retried.
@Suite("PostgreSQL: concurrent workers")
struct PostgreSQLConcurrencyTests {
    static var schemaFile: URL { PostgreSQLStores.packageRoot.appendingPathComponent("Schemas/AppNet.json") }

    /// The users every worker's posts share.
    static let userCount = 40

    /// The author of worker `worker`'s post `index`.
    static func author(worker: Int, post index: Int) -> Int { (index * 7 + worker * 3) % userCount }

    /// Whether worker `worker` gives user `user` a name (else an avatar): each worker names half
    /// the users and gives the other half an avatar, leaving out the other value, which keeps
    /// what is stored.
    static func names(worker: Int, user: Int) -> Bool { (worker + user) % 2 == 0 }

    /// Worker `worker`'s response: `postCount` posts of its own, whose authors come from the
    /// users every worker shares, with names or avatars (``names(worker:user:)``) and counts of
    /// the worker's own.
    static func response(worker: Int) -> JSONValue {
        var data: [JSONValue] = []
        for index in 0..<postCount {
            let user = author(worker: worker, post: index)
            var author: JSONObject = [
                "id": .string("u\(user)"),
                "counts": ["followers": .integer(Int64(worker * 1_000 + user)), "posts": .integer(Int64(index))],
            ]
            if names(worker: worker, user: user) {
                author["name"] = .string("user \(user) as worker \(worker) saw it")
            } else {
                author["avatar_image"] = ["url": .string("https://example.com/\(worker)/\(user).png")]
            }
            data.append([
                "id": .string("\(worker)-\(index)"),
                "text": .string("post \(index) of worker \(worker)"),
                "created_at": "2012-11-21T02:33:42Z",
                "user": .object(author),
            ])
        }
        return ["data": .array(data)]
    }

    /// Each user's name, avatar, followers and post count as the workers' responses, populated
    /// one after another in `order`, leave them: the last to name it, the last to give it an
    /// avatar, the last for its counts.
    static func users(after order: [Int]) -> [String: [JSONValue]] {
        var users: [String: [JSONValue]] = [:]
        for user in 0..<userCount {
            let namer = order.last { names(worker: $0, user: user) }
            let painter = order.last { !names(worker: $0, user: user) }
            let last = order[order.count - 1]
            let lastPost = (0..<postCount).last { author(worker: last, post: $0) == user } ?? 0
            users["u\(user)"] = [
                namer.map { .string("user \(user) as worker \($0) saw it") } ?? .null,
                painter.map { .string("https://example.com/\($0)/\(user).png") } ?? .null,
                .integer(Int64(last * 1_000 + user)), .integer(Int64(lastPost)),
            ]
        }
        return users
    }

    /// Each user's name, avatar, followers and post count in `store`.
    static func users(in store: RecordStore) throws -> [String: [JSONValue]] {
        var users: [String: [JSONValue]] = [:]
        for user in try store.exportJSON(entity: "User").arrayValue ?? [] {
            guard let id = user["id"]?.stringValue else { continue }
            users[id] = [user["name"] ?? .null, user["avatarImagePath"] ?? .null]
        }
        for counts in try store.exportJSON(entity: "Counts").arrayValue ?? [] {
            guard let id = counts["user"]?.stringValue else { continue }
            users[id, default: [.null, .null]] += [counts["followers"] ?? .null, counts["posts"] ?? .null]
        }
        return users
    }

    /// Every order of `items`.
    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[Int]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The posts of each worker's response.
    static let postCount = 2_000

    @Test("four webrecord processes populating overlapping users at once end as some serial order does")
    func workersAreSerializable() async throws {
        let schema = try Schema(contentsOf: Self.schemaFile)
        let directory = try TemporaryDirectory()
        let workers = Array(0..<4)
        var files: [String] = []
        for worker in workers {
            let path = directory.path("worker-\(worker).json")
            try Data(Self.response(worker: worker).serializedBytes()).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        // What each of the 24 orders of the four, one after another, leaves. Every worker's
        // posts name every user.
        #expect(Set((0..<Self.postCount).map { Self.author(worker: 0, post: $0) }).count == Self.userCount)
        let serial = Self.permutations(workers).map(Self.users(after:))
        #expect(
            Set(serial).count == 8,
            "orders that end with the same namer, painter and last worker for every user leave the same state")
        // The model of a serial order agrees with a population in that order.
        let check = try RecordStore(inMemory: schema)
        for worker in [2, 0, 3, 1] { _ = try await check.populate(Self.response(worker: worker), entity: "Post") }
        #expect(try Self.users(in: check) == Self.users(after: [2, 0, 3, 1]))

        let server = try PostgreSQLTestServer.shared()
        let webrecord = try BuiltExecutables.executable("webrecord", besides: Bundle.main)
        for round in 0..<4 {
            let url = server.url(database: try server.makeDatabase())
            if round > 0 {
                // The tables made before the workers start, so that their transactions overlap
                // from the first statement (round 0 starts them on an empty database); from
                // round 2 on, every user is there before.
                let store = try RecordStore(postgreSQL: url, schema: schema)
                #expect(try store.count("Post") == 0)
                if round >= 2 { _ = try await store.populate(Self.response(worker: 0), entity: "Post") }
            }
            let running = try workers.map { worker in
                try ChildProcess.Running(
                    webrecord,
                    [
                        "populate", "--schema", Self.schemaFile.path, "--db", url, "--entity", "Post", "--json",
                        files[worker],
                    ])
            }
            var retries = 0
            for process in running {
                let result = try await process.wait(timeout: 300)
                #expect(result.status == 0, "round \(round): \(result)")
                if case .integer(let count)? = (try? JSONReader().read(result.stdoutData))?["retries"] {
                    retries += Int(count)
                }
            }
            let store = try RecordStore(postgreSQL: url, schema: schema)
            let posts = try store.exportJSON(entity: "Post").arrayValue ?? []
            #expect(posts.count == 4 * Self.postCount, "round \(round)")
            let authors = posts.compactMap { post -> Bool? in
                guard let id = post["id"]?.stringValue, case let parts = id.split(separator: "-"), parts.count == 2,
                    let worker = Int(parts[0]), let index = Int(parts[1])
                else { return nil }
                return post["user"] == .string("u\(Self.author(worker: worker, post: index))")
            }
            #expect(
                authors.count == 4 * Self.postCount && authors.allSatisfy { $0 },
                "round \(round): every post keeps its author")
            let users = try Self.users(in: store)
            #expect(
                serial.contains(users),
                "round \(round): no order of the four workers leaves these users (\(retries) retries)")
        }
    }

    /// A population of user `u1`, the one a test's other transaction holds.
    static let oneUser: JSONValue = [
        "data": [["id": "p1", "text": "hello", "user": ["id": "u1", "name": "from the population"]]]
    ]

    /// Waits until a backend of `connection`'s database (other tests use other databases of
    /// the server) waits for a lock, for at most ``MachineLoad/hangTimeout``: the population
    /// that will wait runs on a task, which a full test run can start tens of seconds late.
    static func waitForLockWait(_ connection: PostgreSQLConnection) async throws {
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        while Date() < deadline {
            if try isWaitingForALock(connection) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no backend waited for a lock")
    }

    /// Whether a backend of `connection`'s database waits for a lock.
    static func isWaitingForALock(_ connection: PostgreSQLConnection) throws -> Bool {
        let waiting = try connection.scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        guard case .integer(let count)? = waiting else { return false }
        return count > 0
    }

    /// An error of the deadlock test's other worker.
    struct OtherWorkerFailure: Error, CustomStringConvertible {
        let description: String
    }

    @Test(
        "a key another worker inserted first is retried: the population updates that row, and the debugger counts the retry"
    )
    func uniqueConflictIsRetried() async throws {
        let schema = try Schema(contentsOf: Self.schemaFile)
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        let log = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: log, level: .debug)
        let store = try RecordStore(
            postgreSQL: server.url(database: database), schema: schema, configuration: configuration)
        _ = try store.count("User")  // the tables exist

        let other = try PostgreSQLConnection(server.conninfo(database: database))
        let watcher = try PostgreSQLConnection(server.conninfo(database: database))
        try other.execute("BEGIN")
        try other.execute(
            #"INSERT INTO "User" ("_id", "_entity", "id", "name") VALUES (1000, 'User', 'u1', 'from the other worker')"#
        )
        let population = Task { Handed(try await store.populate(Self.oneUser, entity: "Post")) }
        try await Self.waitForLockWait(watcher)
        try other.execute("COMMIT")
        let result = try await population.value.value

        #expect(result.debugger.retries.count == 1)
        #expect(result.debugger.retries.first?.sqlState == "23505")
        #expect(result.debugger.errors.isEmpty)
        #expect(log.messages.contains { $0.contains("retrying the population (retry 1 of 8)") }, "\(log.messages)")
        // The conflict is a warning, not an error: the population succeeded.
        #expect(!log.events.contains { $0.level == .error }, "\(log.messages)")
        let users = try store.fetch("User")
        #expect(users.count == 1)
        #expect(users.first?.rowID == 1000, "the other worker's row was updated, not duplicated")
        #expect(users.first?["name"] == "from the population")
    }

    @Test("a deadlock with another worker is retried, and the population then commits")
    func deadlockIsRetried() async throws {
        let schema = try Schema(contentsOf: Self.schemaFile)
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        // Which of two deadlocked transactions fails is the one whose backend checks first, after
        // waiting `deadlock_timeout`: the population's checks after 20 s, by when the cycle has
        // formed (the other worker asks for its lock as soon as it sees the population wait,
        // which takes milliseconds, and a loaded machine seconds), and the other worker's after
        // ten minutes (a bound, should the machine be so slow that the cycle forms after the
        // population's check: then the test fails, not hangs).
        try PostgreSQLConnection(server.conninfo(database: database)).execute(
            "ALTER DATABASE \(database) SET deadlock_timeout = '20s'")
        let store = try RecordStore(postgreSQL: server.url(database: database), schema: schema)
        let two: JSONValue = [
            "data": [
                ["id": "p1", "text": "a", "user": ["id": "u1", "name": "one"]],
                ["id": "p2", "text": "b", "user": ["id": "u2", "name": "two"]],
            ]
        ]
        _ = try await store.populate(two, entity: "Post")

        // The other worker holds the user with the larger `_id`; the population, locking in
        // `_id` order, holds the other user, then waits for it; the other worker then asks for
        // the population's: a deadlock.
        let users = try store.fetch("User").sorted { $0.rowID < $1.rowID }
        let first = try #require(users.first?["id"] as String?)
        let second = try #require(users.last?["id"] as String?)
        let other = try PostgreSQLConnection(server.conninfo(database: database))
        let watcher = try PostgreSQLConnection(server.conninfo(database: database))
        try other.execute("SET deadlock_timeout = '10min'")
        try other.execute("BEGIN")
        try other.execute(#"SELECT 1 FROM "User" WHERE "id" = $1 FOR UPDATE"#, [.text(second)])
        let changed: JSONValue = [
            "data": [
                ["id": "p1", "text": "a", "user": ["id": "u1", "name": "one, renamed"]],
                ["id": "p2", "text": "b", "user": ["id": "u2", "name": "two, renamed"]],
            ]
        ]
        // The other worker runs on a thread of its own, started before the population: as soon
        // as the population waits for its lock, it asks for the population's, so that the cycle
        // forms well before the population's deadlock check, whatever the task pool's threads
        // are busy with (a task could start seconds late in a full test run). Its statement
        // waits for the population's lock, on that thread, not on one of the pool's.
        let held = Handed((other, watcher))
        let otherWorker = StartedThread {
            let (other, watcher) = held.value
            let deadline = ContinuousClock.now + .seconds(MachineLoad.hangTimeout)
            do {
                while try !Self.isWaitingForALock(watcher) {
                    guard ContinuousClock.now < deadline else {
                        throw OtherWorkerFailure(description: "the population never waited for the other worker's lock")
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                }
            } catch {
                // Giving up, the other worker lets its lock go, so that the population ends and
                // the test fails, instead of both waiting for each other for good.
                _ = try? other.execute("ROLLBACK")
                throw error
            }
            try other.execute(#"SELECT 1 FROM "User" WHERE "id" = $1 FOR UPDATE"#, [.text(first)])
            try other.execute("COMMIT")
        }
        let population = Task { Handed(try await store.populate(changed, entity: "Post")) }
        let result = try await population.value.value
        try await otherWorker.value()

        #expect(result.debugger.retries.map(\.sqlState) == ["40P01"])
        #expect(try store.fetchOne("User", primaryKey: "u1")?["name"] == "one, renamed")
        #expect(try store.fetchOne("User", primaryKey: "u2")?["name"] == "two, renamed")
    }

    @Test("when every attempt conflicts, the error says how many, and the store keeps the other worker's rows")
    func retriesRunOut() async throws {
        let schema = try Schema(contentsOf: Self.schemaFile)
        let server = try PostgreSQLTestServer.shared()
        let database = try server.makeDatabase()
        let log = InMemoryLogHandler()
        var configuration = RecordStore.Configuration()
        configuration.logging = LogSettings(handler: log, level: .debug)
        let store = try RecordStore(
            postgreSQL: server.url(database: database), schema: schema, configuration: configuration)
        _ = try store.count("User")
        // A unique index no population can satisfy: every insert of a user conflicts.
        let other = try PostgreSQLConnection(server.conninfo(database: database))
        try other.execute(#"CREATE UNIQUE INDEX one_user ON "User" ((1))"#)
        try other.execute(#"INSERT INTO "User" ("_id", "_entity", "id") VALUES (1000, 'User', 'u0')"#)
        let error = await #expect(throws: WebRecordError.self) {
            try await store.populate(Self.oneUser, entity: "Post")
        }
        #expect(error?.sqlState == "23505")
        #expect(
            error?.message.contains("conflicted with this population 9 times (retried 8)") == true,
            "\(String(describing: error))")
        #expect(error?.debugger?.retries.count == 8)
        // Eight warnings, one for each retry, and the last conflict as the one error.
        #expect(log.events.filter { $0.message.contains("retrying the population") }.count == 8)
        let errors = log.events.filter { $0.level == .error }.map(\.message)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains("conflicted with this population 9 times (retried 8)") == true, "\(errors)")
        #expect(try store.count("User") == 1)
        #expect(try store.count("Post") == 0)
    }
}

/// A value handed to one other task, which alone uses it from then on.
private struct Handed<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
