import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// GRDB's connection model: each connection on its own serial executor, async access that
/// never blocks the cooperative pool, cancellation that interrupts SQLite, no reentrancy, and
/// closing.
@Suite struct ConnectionModelTests {
    static let tagSchema = #"{"entities": {"Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}}}"#

    // MARK: - Reentrancy

    /// Whether the probe was stopped by its trap: killed by the signal. Under the thread
    /// sanitizer, the sanitizer's runtime can fail one of its own checks while the trap
    /// unwinds, and ends the process with its exit status 66 instead; the message checks
    /// that follow still show which trap it was.
    static func stoppedByTheTrap(_ output: ChildProcess.Result) -> Bool {
        output.killedBySignal || (Sanitizer.isActive && output.status == 66)
    }

    @Test("A write inside a write stops the process at once, with a message, and commits nothing")
    func aWriteInsideAWriteStopsTheProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let output = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord-probe", besides: Bundle.module), ["write-inside-write", path])

        #expect(Self.stoppedByTheTrap(output), "\(output)")
        #expect(output.stderr.contains("not reentrant"), "\(output)")
        #expect(output.stderr.contains("write inside a write"))
        #expect(!output.stdout.contains("returned"))
        // The outer transaction never committed.
        let store = try RecordStore(path: path, schema: Schema(json: Self.tagSchema))
        #expect(try store.count("Tag") == 0)
    }

    @Test("A write inside a read of an in-memory store (one connection for both) stops the process, not a deadlock")
    func aWriteInsideAnInMemoryReadStopsTheProcess() async throws {
        let output = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord-probe", besides: Bundle.module), ["write-inside-read"])

        #expect(Self.stoppedByTheTrap(output), "\(output)")
        #expect(output.stderr.contains("not reentrant"), "\(output)")
        #expect(!output.stdout.contains("returned"))
    }

    @Test("A primary key another program made unreadable stops a non-optional read with a message naming it")
    func anUnreadableKeyStopsANonOptionalRead() async throws {
        let output = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord-probe", besides: Bundle.module), ["unreadable-key"])

        #expect(Self.stoppedByTheTrap(output), "\(output)")
        #expect(output.stderr.contains("the store holds no Int64 for the primary-key attribute 'id'"), "\(output)")
        #expect(output.stderr.contains("changed by another program"))
        #expect(!output.stdout.contains("read"))
    }

    // MARK: - Reads inside a write

    @Test(
        "A read inside a write sees the write's own uncommitted state, for a file and in memory alike",
        arguments: [true, false])
    func aReadInsideAWriteSeesItsUncommittedState(onFile: Bool) throws {
        let directory = try TemporaryDirectory()
        let schema = try Schema(json: Self.tagSchema)
        let store = onFile ? try RecordStore(path: directory.path(), schema: schema) : try RecordStore(inMemory: schema)
        try store.write { connection in
            try connection.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'pending')"#)
            #expect(try store.count("Tag") == 1)
            #expect(try store.fetchOne("Tag", primaryKey: "pending") != nil)
            #expect(try store.read { try $0.scalar(#"SELECT count(*) FROM "Tag""#) } == .integer(1))
        }
        #expect(try store.count("Tag") == 1)
    }

    @Test("Another thread's read during a write sees only the committed state")
    func anotherReaderSeesOnlyCommittedState() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: Schema(json: Self.tagSchema))
        try store.write { connection in
            try connection.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'pending')"#)
            let seen = Locked<Int?>(nil)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                seen.withLock { $0 = try? store.count("Tag") }
                done.signal()
            }
            done.wait()
            #expect(seen.withLock { $0 } == 0)
        }
        #expect(try store.count("Tag") == 1)
    }

    // MARK: - Async access

    @Test("Async writes waiting for a busy writer leave the cooperative pool free for other tasks")
    func asyncWritesWaitingForTheWriterLeaveThePoolFree() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: Schema(json: Self.tagSchema))
        let release = DispatchSemaphore(value: 0)
        let releasedBy = Locked<String?>(nil)
        // A synchronous write on a thread of its own holds the writer.
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                try? store.write { _ in
                    held.resume()
                    release.wait()
                }
            }
        }
        // A safety net: if the pool were blocked, the test would otherwise hang forever. The
        // watchdog releases the writer, so the test then fails, naming it. It waits as long as
        // only a hang does: in a full run on two cores another task can wait tens of seconds
        // for a thread of the pool (and its bound stretches under a sanitizer).
        Thread.detachNewThread {
            if release.wait(timeout: .now() + Sanitizer.bound(MachineLoad.hangTimeout)) == .timedOut {
                releasedBy.withLock { $0 = $0 ?? "the watchdog" }
                release.signal()
            }
        }
        // Far more waiting writes than the pool has threads.
        let writes = (0..<16).map { index in
            Task {
                try await store.write { connection in
                    try connection.execute(#"INSERT INTO "Tag" ("_entity", "name") VALUES ('Tag', 'tag \#(index)')"#)
                }
            }
        }
        // Another task still runs while all of them wait.
        let answer = await Task.detached { 6 * 7 }.value
        releasedBy.withLock { $0 = $0 ?? "the test" }
        release.signal()
        release.signal()
        for write in writes { try await write.value }

        #expect(answer == 42)
        #expect(releasedBy.withLock { $0 } == "the test")
        #expect(try await store.read { _ in try store.count("Tag") } == 16)
    }

    @Test("Cancelling a long read interrupts SQLite and throws cancelled")
    func cancellingALongReadInterruptsIt() async throws {
        let store = try RecordStore(inMemory: Schema(json: Self.tagSchema))
        let started = AsyncStream<Void>.makeStream()
        let read = Task {
            try await store.read { connection in
                started.continuation.yield()
                // Counts to ten billion: minutes of work unless interrupted.
                return try connection.scalar(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000000) SELECT count(*) FROM n"
                )
            }
        }
        for await _ in started.stream { break }
        read.cancel()
        let error = await #expect(throws: WebRecordError.self) { try await read.value }
        #expect(error?.code == .cancelled)
        // The connection is usable again.
        #expect(try await store.read { _ in try store.count("Tag") } == 0)
    }

    @Test(
        "Cancelling a population's task while it writes rolls it back: the store is unchanged and the error is cancelled"
    )
    func cancellingALongPopulationRollsItBack() async throws {
        let directory = try TemporaryDirectory()
        let statements = Locked<[String]>([])
        let population = Locked<Task<Void, any Error>?>(nil)
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = { sql in
            statements.withLock { $0.append(sql) }
            // Cancel the population once its transaction has begun.
            if sql == "BEGIN IMMEDIATE" { population.withLock { $0?.cancel() } }
        }
        let store = try RecordStore(
            path: directory.path(), schema: Reliability.appNetSchema(), configuration: configuration)
        _ = try await store.populate(AppNetResponses.response(posts: 3, firstID: 1, seed: 1), entity: "Post")
        let before = try Reliability.appNetEntities.map { try store.count($0) }
        statements.withLock { $0.removeAll() }

        let response = AppNetResponses.response(posts: 20_000, firstID: 100, seed: 2)
        let task = Task { _ = try await store.populate(response, entity: "Post") }
        population.withLock { $0 = task }
        // (do/catch rather than #expect(throws:), which takes long to describe a failure
        // carrying a 20,000-post response.)
        var failure: WebRecordError?
        do {
            _ = try await task.value
        } catch let caught as WebRecordError {
            failure = caught
        }

        #expect(failure?.code == .cancelled)
        #expect(try Reliability.appNetEntities.map { try store.count($0) } == before)
        #expect(statements.withLock { $0 }.contains("BEGIN IMMEDIATE"))
        #expect(!statements.withLock { $0 }.contains("COMMIT"))
        #expect(statements.withLock { $0 }.contains("ROLLBACK"))
    }

    // MARK: - Closing

    @Test("close() checkpoints the WAL into the file: a copy of the file alone is the whole store")
    func closeLeavesACompleteFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        _ = try await store.populate(AppNetResponses.response(posts: 40, seed: 3), entity: "Post")
        let counts = try Reliability.appNetEntities.map { try store.count($0) }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        store.close()

        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try RecordStore(path: copy, schema: Reliability.appNetSchema())
        #expect(try Reliability.appNetEntities.map { try reopened.count($0) } == counts)
        let error = #expect(throws: WebRecordError.self) { try store.count("Post") }
        #expect(error?.code == .storeError)
        #expect(error?.message.contains("closed") == true)
    }

    @Test("A store that goes away closes itself, checkpointing its WAL")
    func deinitClosesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        do {
            let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
            _ = try await store.populate(AppNetResponses.response(posts: 10, seed: 4), entity: "Post")
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
