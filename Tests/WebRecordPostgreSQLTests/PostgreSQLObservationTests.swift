import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Observations of a PostgreSQL store: commits announce themselves with `NOTIFY` as they commit,
/// and a listener of the observing process hears every worker's, in this process or another.
/// (The time limit guards against a delivery that never comes, not against a loaded machine.)
@Suite("Observation on PostgreSQL", .timeLimit(MachineLoad.hangTimeLimit))
struct PostgreSQLObservationTests {
    static let schemaJSON = observationSchemaJSON

    let server: PostgreSQLTestServer
    let database: String
    /// The new database's connection URL.
    var url: String { server.url(database: database) }

    /// Waits for the server (started on first use) and makes the database on a thread of its
    /// own, so that the tasks' few threads go on with the other tests meanwhile.
    init() async throws {
        (server, database) = try await ChildProcess.onThread {
            let server = try PostgreSQLTestServer.shared()
            return (server, try server.makeDatabase())
        }
    }

    /// A store on the test's database; each call opens another, with a connection of its own.
    func store(_ configuration: RecordStore.Configuration = RecordStore.Configuration()) throws -> RecordStore {
        try RecordStore(postgreSQL: url, schema: Schema(json: Self.schemaJSON), configuration: configuration)
    }

    /// A post as a response gives it.
    static func post(_ id: Int, title: String? = nil, rank: Int = 0, author: Int? = nil) -> JSONValue {
        var object: JSONObject = [
            "id": .integer(Int64(id)), "title": .string(title ?? "post \(id)"), "rank": .integer(Int64(rank)),
        ]
        if let author { object["author"] = ["id": .integer(Int64(author)), "name": .string("author \(author)")] }
        return .object(object)
    }

    /// The ids of records, in order.
    static func ids(_ records: [Record]) -> [Int64] {
        records.compactMap { $0["id"] as Int64? }
    }

    /// The sessions of this test's database that listen for an observation.
    func listenerSessions() throws -> [Int64] {
        let connection = try PostgreSQLConnection(server.conninfo(database: database))
        return try connection.rows(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
            [.text(PostgreSQLListener.applicationName)]
        ).compactMap { row in
            if case .integer(let pid) = row.first { pid } else { nil }
        }
    }

    // MARK: - Deliveries

    @Test("the initial results, then a change set after another store of the process populates")
    func anotherStoreOfTheProcess() async throws {
        let observing = try store()
        let writer = try store()
        _ = try await writer.populate(.array([Self.post(1, rank: 1), Self.post(2, rank: 2)]), entity: "Post")
        var iterator = observing.observe("Post", orderBy: [.ascending("rank")]).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(Self.ids(initial.records) == [1, 2])
        #expect(initial.changes == nil)

        // 2 is renamed, 3 arrives first.
        _ = try await writer.populate(
            .array([Self.post(2, title: "renamed", rank: 2), Self.post(3, rank: 0)]), entity: "Post")
        let next = try #require(try await iterator.next())
        #expect(Self.ids(next.records) == [3, 1, 2])
        let changes = try #require(next.changes)
        #expect(changes.insertions == [0])
        #expect(changes.deletions == [])
        #expect(changes.modifications == [ChangeSet.Modification(old: 1, new: 2)])
        #expect(next.records[2]["title"] as String? == "renamed")
    }

    @Test("a population by another process, webrecord populate --db URL, reaches the observation")
    func anotherProcess() async throws {
        let store = try store()
        _ = try await store.populate(.array([Self.post(1)]), entity: "Post")
        var iterator = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        let directory = try TemporaryDirectory()
        let schema = try directory.write("schema.json", Self.schemaJSON)
        let response = try directory.write("posts.json", JSONValue.array([Self.post(2), Self.post(3)]).serialized())
        let populated = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord", besides: Bundle.main),
            ["populate", "--schema", schema, "--db", url, "--entity", "Post", response])
        #expect(populated.status == 0, "\(populated)")
        let next = try #require(try await iterator.next())
        #expect(Self.ids(next.records) == [1, 2, 3])
        #expect(next.changes?.insertions == [1, 2])
    }

    @Test("to-many memberships, key paths, sections and a key are observed as on SQLite")
    func relationshipsSectionsAndKeys() async throws {
        let observing = try store()
        let writer = try store()
        _ = try await writer.populate(.array([Self.post(1, author: 1), Self.post(2, author: 2)]), entity: "Post")
        var authors = observing.observe("Author", orderBy: [.ascending("id")]).makeAsyncIterator()
        var posts = observing.observe("Post", keyPaths: ["author.name"]).makeAsyncIterator()
        var byRank = observing.observe("Post", sectionKey: "rank").makeAsyncIterator()
        var one = observing.observe("Post", where: "id = ?", arguments: [2], limit: 1).makeAsyncIterator()
        _ = try await authors.next()
        _ = try await posts.next()
        #expect(try await byRank.next()?.sections.count == 1)
        #expect(Self.ids(try #require(try await one.next()).records) == [2])

        // Post 2 moves to author 1, whose posts change, and into rank 5's section; author 1 is
        // renamed, which changes post 1 by its key path.
        _ = try await writer.populate(
            .array([
                Self.post(2, rank: 5, author: 1),
                ["id": 9, "title": "post 9", "rank": 0, "author": ["id": 1, "name": "renamed"]],
            ]), entity: "Post")
        let changedAuthors = try #require(try await authors.next())
        #expect(changedAuthors.changes?.modifications.map(\.new).sorted() == [0, 1])
        let changedPosts = try #require(try await posts.next())
        #expect(Self.ids(changedPosts.records) == [1, 2, 9])
        #expect(changedPosts.changes?.modifications.map(\.new).sorted() == [0, 1])
        #expect(changedPosts.changes?.insertions == [2])
        let sectioned = try #require(try await byRank.next())
        #expect(sectioned.sections.map(\.key) == [0, 5])
        #expect(sectioned.sectionChanges?.insertedSections == [1])
        let changedOne = try #require(try await one.next())
        #expect(changedOne.changes?.modifications == [ChangeSet.Modification(old: 0, new: 0)])
        #expect(changedOne.records.first?["rank"] as Int64? == 5)
    }

    // MARK: - What is announced

    /// Subscribes to `store`'s commits and returns what it hears, as a stream.
    func heard(on store: RecordStore) async throws -> (AsyncStream<StoreChange>, ChangeFeed.Subscription) {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
        let subscription = try await store.database.subscribeToCommits(
            onChange: { continuation.yield($0) }, onFailure: { _ in continuation.finish() })
        return (stream, subscription)
    }

    /// What `stream` hears up to and including `marker`: notifications arrive in commit order,
    /// so nothing committed before the marker can come after it.
    func changes(in stream: AsyncStream<StoreChange>, through marker: StoreChange) async -> [StoreChange] {
        var changes: [StoreChange] = []
        for await change in stream {
            changes.append(change)
            if change == marker { break }
        }
        return changes
    }

    static let tagMarker = StoreChange.tables(["Tag": nil])

    @Test("a commit announces the tables it changed, and an unchanged re-import announces nothing")
    func announcedTables() async throws {
        let statements = Locked<[String]>([])
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = { sql in statements.withLock { $0.append(sql) } }
        let writer = try store(configuration)
        let posts = JSONValue.array([Self.post(1, author: 1), Self.post(2, author: 2)])
        _ = try await writer.populate(posts, entity: "Post")
        #expect(statements.value.contains { $0.contains("pg_notify") }, "the first population notifies")
        let (stream, subscription) = try await heard(on: try store())
        defer { subscription.cancel() }

        statements.value = []
        _ = try await writer.populate(posts, entity: "Post")
        #expect(!statements.value.contains { $0.contains("pg_notify") }, "an unchanged re-import notifies nothing")
        _ = try await writer.populate(.array([Self.post(3, author: 1)]), entity: "Post")
        _ = try await writer.populate(["name": "swift"], entity: "Tag")
        let changes = await changes(in: stream, through: Self.tagMarker)
        #expect(changes == [.tables(["Post": nil]), Self.tagMarker])
    }

    @Test("a population that adds an author announces both its tables")
    func announcedTablesOfARelationship() async throws {
        let writer = try store()
        _ = try await writer.populate(.array([Self.post(1)]), entity: "Post")
        let (stream, subscription) = try await heard(on: try store())
        defer { subscription.cancel() }
        _ = try await writer.populate(.array([Self.post(1, author: 7)]), entity: "Post")
        _ = try await writer.populate(["name": "swift"], entity: "Tag")
        let changes = await changes(in: stream, through: Self.tagMarker)
        #expect(changes == [.tables(["Author": nil, "Post": nil]), Self.tagMarker])
    }

    @Test("a transaction that rolls back, even one its COMMIT fails, announces nothing and delivers nothing")
    func rollback() async throws {
        let statements = Locked<[String]>([])
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = { sql in statements.withLock { $0.append(sql) } }
        let writer = try store(configuration)
        _ = try await writer.populate(.array([Self.post(1)]), entity: "Post")
        let observing = try store()
        var iterator = observing.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        let (stream, subscription) = try await heard(on: observing)
        defer { subscription.cancel() }

        // A post whose author does not exist: the foreign key, checked at COMMIT, refuses it
        // after the transaction has notified.
        let database = try #require(writer.database as? PostgreSQLDatabase)
        let table = try #require(database.layout.table(named: "Post"))
        statements.value = []
        let error = #expect(throws: WebRecordError.self) {
            try database.inTransaction { transaction in
                let rowID = try #require(try transaction.reserveRowIDs(in: "Post", count: 1).first)
                let values: [String: DatabaseValue] = [
                    "id": .integer(2), "title": .text("orphan"), "author": .integer(999_999),
                ]
                let row = TableRow(
                    rowID: rowID, entityName: "Post", values: table.valueColumns.map { values[$0] ?? .null })
                try transaction.writeRows(inserted: [TableRows(table: "Post", rows: [row])], updated: [])
            }
        }
        #expect(error?.sqlState == "23503", "\(String(describing: error))")
        #expect(statements.value.contains { $0.contains("pg_notify") }, "the transaction notified before it failed")
        // A transaction whose work throws rolls back before it could notify.
        #expect(throws: CancellationError.self) {
            try database.inTransaction { transaction in
                _ = try transaction.reserveRowIDs(in: "Post", count: 1)
                throw CancellationError()
            }
        }

        _ = try await writer.populate(["name": "swift"], entity: "Tag")
        #expect(await changes(in: stream, through: Self.tagMarker) == [Self.tagMarker])
        _ = try await writer.populate(.array([Self.post(3)]), entity: "Post")
        let next = try #require(try await iterator.next())
        #expect(Self.ids(next.records) == [1, 3])
        #expect(next.changes?.insertions == [1])
    }

    @Test("a program writing outside WebRecord announces its commit with a plain NOTIFY webrecord")
    func outsideWriter() async throws {
        let store = try store()
        _ = try await store.populate(.array([Self.post(1)]), entity: "Post")
        var iterator = store.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        let outside = try PostgreSQLConnection(server.conninfo(database: database))
        try outside.inTransaction {
            try outside.execute(#"INSERT INTO "Post" ("_entity", "id", "title") VALUES ('Post', 5, 'by hand')"#)
            try outside.execute("NOTIFY webrecord")
        }
        let next = try #require(try await iterator.next())
        #expect(Self.ids(next.records) == [1, 5])
        #expect(next.changes?.insertions == [1])
    }

    @Test("payloads: the tables, or none when they do not fit; another schema's are ignored")
    func payloads() throws {
        let payload = PostgreSQLCommitNotice.payload(namespace: "mirror", tables: ["Post", "User"])
        #expect(payload == #"{"schema":"mirror","tables":["Post","User"]}"#)
        #expect(
            PostgreSQLCommitNotice.change(fromPayload: payload, namespace: "mirror")
                == .tables(["Post": nil, "User": nil]))
        #expect(PostgreSQLCommitNotice.change(fromPayload: payload, namespace: "public") == nil)

        let many = (0..<400).map { "Table_\($0)_with_a_long_name" }
        let long = PostgreSQLCommitNotice.payload(namespace: "mirror", tables: many)
        #expect(long == #"{"schema":"mirror"}"#)
        #expect(PostgreSQLCommitNotice.change(fromPayload: long, namespace: "mirror") == .unknown)
        #expect(PostgreSQLCommitNotice.payload(namespace: "mirror", tables: nil) == long)

        for other in ["", "not json", #"{"tables":["Post"]}"#, #"{"schema":"mirror","tables":[1]}"#] {
            #expect(PostgreSQLCommitNotice.change(fromPayload: other, namespace: "mirror") == .unknown, "\(other)")
        }
    }

    // MARK: - The listener

    @Test("observations of one store share a listener, which stops when the last one ends")
    func oneListenerStartedAndStopped() async throws {
        let store = try store()
        _ = try await store.populate(.array([Self.post(1)]), entity: "Post")
        #expect(try listenerSessions().isEmpty)
        do {
            var first = store.observe("Post").makeAsyncIterator()
            var second = ObservedPost.observe(in: store).makeAsyncIterator()
            _ = try await first.next()
            _ = try await second.next()
            #expect(try listenerSessions().count == 1)
        }
        // The listener's thread closes its connection as soon as it is told to stop.
        let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
        while try !listenerSessions().isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try listenerSessions().isEmpty)
    }

    @Test("a listener whose session is ended reconnects, and the observation goes on")
    func reconnect() async throws {
        let observing = try store()
        let writer = try store()
        _ = try await writer.populate(.array([Self.post(1)]), entity: "Post")
        var iterator = observing.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        let sessions = try listenerSessions()
        #expect(sessions.count == 1)

        let admin = try PostgreSQLConnection(server.conninfo(database: database))
        let terminated = try admin.rows(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
            [.text(PostgreSQLListener.applicationName)])
        #expect(terminated == [[.integer(1)]])
        _ = try await writer.populate(.array([Self.post(2)]), entity: "Post")
        let afterDrop = try #require(try await iterator.next())
        #expect(Self.ids(afterDrop.records) == [1, 2])
        _ = try await writer.populate(.array([Self.post(3)]), entity: "Post")
        let later = try #require(try await iterator.next())
        #expect(Self.ids(later.records) == [1, 2, 3])
        let reconnected = try listenerSessions()
        #expect(reconnected.count == 1)
        #expect(reconnected != sessions)
    }

    @Test("an observation whose server is gone for good fails with the reason")
    func serverGone() async throws {
        // Starting and stopping a server waits for its tools: on a thread of its own, not the
        // tasks' few.
        let ownServer = try await ChildProcess.onThread { try PostgreSQLTestServer() }
        defer { ownServer.stop() }
        let store = try RecordStore(
            postgreSQL: ownServer.url(database: try ownServer.makeDatabase()), schema: Schema(json: Self.schemaJSON))
        _ = try await store.populate(.array([Self.post(1)]), entity: "Post")
        var iterator = store.observe("Post").makeAsyncIterator()
        _ = try await iterator.next()
        try await ChildProcess.onThread { ownServer.stop() }
        let error = await #expect(throws: WebRecordError.self) { _ = try await iterator.next() }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("could not reconnect") == true, "\(String(describing: error))")
        #expect(try await iterator.next() == nil)
    }

    @Test("an observation of a server that refuses the listener fails its first delivery")
    func listenerRefused() async throws {
        let store = try store()
        _ = try await store.populate(.array([Self.post(1)]), entity: "Post")
        // The database takes no new session: the store's is open already, the listener's is refused.
        let admin = try PostgreSQLConnection(server.conninfo())
        try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        defer { _ = try? admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS true") }
        var iterator = store.observe("Post").makeAsyncIterator()
        let error = await #expect(throws: WebRecordError.self) { _ = try await iterator.next() }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("to observe") == true, "\(String(describing: error))")
    }

    // MARK: - Latency

    @Test("twenty commits in a row each reach the observation (and their latency is reported)")
    func latency() async throws {
        let observing = try store()
        let writer = try store()
        _ = try await writer.populate(.array([Self.post(0)]), entity: "Post")
        var iterator = observing.observe("Post", orderBy: [.ascending("id")]).makeAsyncIterator()
        _ = try await iterator.next()
        var latencies: [Duration] = []
        let clock = ContinuousClock()
        for id in 1...20 {
            _ = try await writer.populate(.array([Self.post(id)]), entity: "Post")
            let committed = clock.now
            let next = try #require(try await iterator.next())
            latencies.append(clock.now - committed)
            #expect(next.changes?.insertions == [id])
            #expect(next.records.count == id + 1)
        }
        latencies.sort()
        print("PostgreSQL observation, commit to delivery: median \(latencies[10]), slowest \(latencies[19])")
    }

    // MARK: - webrecord watch

    @Test("webrecord watch --db URL prints the count, then a line per change another process makes")
    func watchCommand() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("schema.json", Self.schemaJSON)
        let webrecord = try BuiltExecutables.executable("webrecord", besides: Bundle.main)
        func populate(_ posts: JSONValue, name: String) async throws {
            let response = try directory.write(name, posts.serialized())
            let result = try await ChildProcess.run(
                webrecord, ["populate", "--schema", schema, "--db", url, "--entity", "Post", response])
            #expect(result.status == 0, "\(result)")
        }
        try await populate(.array([Self.post(1, rank: 5), Self.post(2, rank: 50)]), name: "1.json")
        let watching = try ChildProcess.Running(
            webrecord,
            [
                "watch", "--schema", schema, "--db", url, "--entity", "Post", "--where", "rank < ?", "--arg", "10",
                "--order-by", "rank:desc",
            ])
        #expect(await watching.waitForOutput("{\"count\":1}\n"), "\(watching.stdout)")
        try await populate(
            .array([Self.post(1, title: "a2", rank: 5), Self.post(3, rank: 1), Self.post(2, title: "b2", rank: 60)]),
            name: "2.json")
        #expect(await watching.waitForOutput("\"modified\""), "\(watching.stdout)")
        try await populate(.array([Self.post(3, rank: 70)]), name: "3.json")
        #expect(await watching.waitForOutput("\"deleted\":[3]"), "\(watching.stdout)")

        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                #"{"count":1}"#,
                #"{"deleted":[],"inserted":[3],"modified":[1]}"#,
                #"{"deleted":[3],"inserted":[],"modified":[]}"#,
            ])
        #expect(result.stderr == "")
    }
}

/// Posts, typed.
private final class ObservedPost: Record {
    override class var entityName: String { "Post" }
}
