import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Faults outside WebRecord's control: a full disk, a store another process holds locked, a
/// read-only file, a schema that no longer matches the file. Each must fail with a clear error
/// and lose nothing: the store keeps exactly the content it had, and stays sound.
///
/// Server faults (refused connections, timeouts, 4xx/5xx, truncated and non-JSON bodies,
/// cancellation) are covered by `HTTPServerTests` and `JSONFileServerTests`.
@Suite("Reliability: faults", .loadsTheMachine)
struct ReliabilityFaultTests {
    /// A store at `path` holding the first 40 posts of a generated stream.
    static func populatedStore(
        at path: String, configuration: RecordStore.Configuration = RecordStore.Configuration()
    ) throws -> RecordStore {
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema(), configuration: configuration)
        _ = try store.populate(AppNetResponses.response(posts: 40, seed: 1), entity: "Post")
        return store
    }

    // MARK: - Disk full

    @Test("A full disk (max_page_count) rolls the population back with SQLITE_FULL")
    func diskFullRollsBack() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.populatedStore(at: directory.path("full.sqlite"))
        let before = try Reliability.dump(store)
        #expect(before.count > 80)

        // Allow the file to grow by two pages only: a 2,000-post response needs hundreds.
        let pages = try store.write { connection -> Int64 in
            guard case .integer(let count)? = try connection.scalar("PRAGMA page_count") else { return 0 }
            try connection.execute("PRAGMA max_page_count = \(count + 2)")
            return count
        }
        #expect(pages > 0)

        let big = AppNetResponses.response(posts: 2_000, firstID: 10_000, seed: 2)
        do {
            _ = try store.populate(big, entity: "Post")
            Issue.record("a population larger than the disk succeeded")
        } catch {
            #expect(error.code == .storeError)
            #expect(error.sqliteCode.map { $0 & 0xFF } == 13, "SQLITE_FULL expected: \(error)")
            #expect(error.description.contains("full"), "the message should say the disk is full: \(error)")
            #expect(error.debugger?.primaryError?.code == .storeError)
        }
        #expect(try Reliability.dump(store) == before)
        #expect(try Reliability.integrity(store) == ["ok"])

        // Room again: the same response now populates completely.
        try store.write { try $0.execute("PRAGMA max_page_count = 1073741823") }
        let result = try store.populate(big, entity: "Post")
        #expect(result.records.count == 2_000)
        #expect(try store.count("Post") == 2_040)
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    // MARK: - Locked by another process

    /// A python script that takes the write lock on the store `argv[1]`, makes an uncommitted
    /// change and says `locked`; once the file `argv[2]` exists it holds the lock `argv[3]`
    /// seconds more, then rolls back and says `released`. (It gives up once the test process is
    /// gone, or after ten minutes.)
    ///
    /// The lock lasts until the test says so, because a test task may resume late when the
    /// machine is busy: a lock timed from its start could be gone before the test looks.
    static let lockHolder = """
        import os, sqlite3, sys, time
        c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
        c.execute("BEGIN IMMEDIATE")
        c.execute("UPDATE Post SET text = 'uncommitted by another process'")
        print("locked", flush=True)
        parent, deadline = os.getppid(), time.time() + 600
        while not os.path.exists(sys.argv[2]) and os.getppid() == parent and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(float(sys.argv[3]))
        c.execute("ROLLBACK")
        c.close()
        print("released", flush=True)
        """

    @Test(
        "A store locked by another writing process: the busy timeout is waited out, then a clear storeError",
        .enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with its sqlite3 module"))
    func lockedStoreFailsAfterTheBusyTimeout() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("locked.sqlite")
        var configuration = RecordStore.Configuration()
        configuration.busyTimeout = 1
        let store = try Self.populatedStore(at: path, configuration: configuration)
        let before = try Reliability.dump(store)

        let release = directory.path("release")
        let holder = try ChildProcess.python(Self.lockHolder, [path, release, "0"])
        let ready = await holder.waitForOutput("locked")
        #expect(ready, "python could not lock the store")

        // The lock is held until the test releases it: only the busy timeout can end the wait.
        // (A busy machine can only lengthen the wait, never shorten it below the timeout.)
        let response = AppNetResponses.response(posts: 50, firstID: 500, seed: 3)
        let start = Date()
        do {
            _ = try await store.populate(response, entity: "Post")
            Issue.record("population succeeded while another process held the write lock")
        } catch {
            let waited = Date().timeIntervalSince(start)
            #expect(error.code == .storeError)
            #expect(error.sqliteCode.map { $0 & 0xFF } == 5, "SQLITE_BUSY expected: \(error)")
            #expect(error.description.contains("locked"), "the message should say the store is locked: \(error)")
            #expect(waited >= 0.9, "the busy timeout (1 s) should be waited out; waited \(waited) s")
        }
        // The other process's uncommitted change is invisible, and ours is not half there.
        #expect(try Reliability.dump(store) == before)

        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        let finished = try await holder.wait()
        #expect(finished.stdout.contains("released"), "\(finished)")
        #expect(try Reliability.dump(store) == before)
        #expect(try Reliability.integrity(store) == ["ok"])
        // Which timeout applied is read from the store's connection, not from the clock: no
        // upper bound on the wait holds on a machine loaded enough.
        #expect(
            try await store.write { try $0.scalar("PRAGMA busy_timeout") } == .integer(1_000),
            "the configured timeout (1 s), not the default (5 s), applies")
        let result = try await store.populate(
            AppNetResponses.response(posts: 50, firstID: 500, seed: 3), entity: "Post")
        #expect(result.records.count == 50)
    }

    @Test(
        "A population waits for another process's short write lock and then succeeds",
        .enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with its sqlite3 module"))
    func shortLockIsWaitedFor() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("waits.sqlite")
        // A busy timeout only a hang exhausts: the lock goes 1.5 s after the release below.
        var configuration = RecordStore.Configuration()
        configuration.busyTimeout = MachineLoad.hangTimeout
        let store = try Self.populatedStore(at: path, configuration: configuration)

        let release = directory.path("release")
        let holder = try ChildProcess.python(Self.lockHolder, [path, release, "1.5"])
        let ready = await holder.waitForOutput("locked")
        #expect(ready, "python could not lock the store")
        // The lock is held 1.5 s more from now: the population must wait for it. (The clock
        // starts before the release, so however late the population begins, the lock goes at
        // least 1.5 s after the start.)
        let start = Date()
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        let result = try await store.populate(
            AppNetResponses.response(posts: 30, firstID: 900, seed: 4), entity: "Post")
        let waited = Date().timeIntervalSince(start)
        #expect(result.records.count == 30)
        #expect(waited >= 1, "the population should have waited for the lock; waited \(waited) s")
        let released = try await holder.wait()
        #expect(released.stdout.contains("released"))
        #expect(try store.count("Post") == 70)
        #expect(try store.count("Post", where: "text = ?", arguments: ["uncommitted by another process"]) == 0)
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    @Test(
        "webrecord populate on a locked store exits 1 with one clear line and changes nothing",
        .enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with its sqlite3 module"))
    func cliOnALockedStore() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let path = directory.path("cli-locked.sqlite")
        do { _ = try Self.populatedStore(at: path) }
        let source = try directory.write(
            "more.json", AppNetResponses.bytes(AppNetResponses.response(posts: 25, firstID: 700, seed: 5)))

        let release = directory.path("release")
        let holder = try ChildProcess.python(Self.lockHolder, [path, release, "0"])
        let ready = await holder.waitForOutput("locked")
        #expect(ready, "python could not lock the store")
        let result = try await ChildProcess.run(
            webrecord,
            ["populate", "--schema", Reliability.appNetSchemaURL.path, "--db", path, "--entity", "Post", source])
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        _ = try await holder.wait()

        #expect(result.status == 1, "\(result)")
        #expect(!result.killedBySignal)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line of reason expected: \(result.stderr)")
        #expect(result.stderr.contains("locked"), "\(result.stderr)")
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        #expect(try store.count("Post") == 40)
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    // MARK: - Read-only

    @Test("A store opened read-only (file: URI, mode=ro) refuses the population with SQLITE_READONLY")
    func readOnlyConnectionRefusesThePopulation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readonly-uri.sqlite")
        let before: [String]
        do {
            let store = try Self.populatedStore(at: path)
            before = try Reliability.dump(store)
        }
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: path))

        let store = try RecordStore(path: "file:\(path)?mode=ro", schema: Reliability.appNetSchema())
        do {
            _ = try store.populate(AppNetResponses.response(posts: 10, firstID: 300, seed: 6), entity: "Post")
            Issue.record("a read-only store accepted a population")
        } catch {
            #expect(error.code == .storeError)
            #expect(error.sqliteCode.map { $0 & 0xFF } == 8, "SQLITE_READONLY expected: \(error)")
            #expect(error.description.contains("readonly"), "\(error)")
        }
        #expect(try Reliability.dump(store) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)
    }

    /// Makes the store file read-only (0444) and runs `webrecord populate` on it as an ordinary
    /// user: as this user when it is not root, else as `nobody` through `setpriv` (root ignores
    /// file permissions).
    @Test("A read-only store file (0444): webrecord populate fails clearly and the file is unchanged")
    func readOnlyFileIsRefused() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let path = directory.path("readonly.sqlite")
        do { _ = try Self.populatedStore(at: path) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closing the store should remove its WAL")
        let source = try directory.write(
            "more.json", AppNetResponses.bytes(AppNetResponses.response(posts: 10, firstID: 300, seed: 6)))
        chmod(source, 0o644)
        chmod(path, 0o444)
        chmod(directory.url.path, 0o755)
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: path))

        var command = [
            webrecord.path, "populate", "--schema", Reliability.appNetSchemaURL.path, "--db", path, "--entity", "Post",
            source,
        ]
        if geteuid() == 0 {
            let setpriv = try ChildProcess.onPath("setpriv")
            command = [setpriv.path, "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
        }
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
        #expect(result.status == 1, "\(result)")
        #expect(!result.killedBySignal)
        #expect(result.stderr.split(separator: "\n").count == 1, "one line of reason expected: \(result.stderr)")
        #expect(
            result.stderr.contains("readonly") || result.stderr.contains("read-only")
                || result.stderr.contains("unable to open"),
            "the reason should say the store cannot be written: \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)

        chmod(path, 0o600)
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        #expect(try store.count("Post") == 40)
        #expect(try Reliability.integrity(store) == ["ok"])
    }

    /// The in-process form of the 0444 test, for a user whom permissions bind (not root).
    @Test(
        "A read-only store file (0444) refuses the population in process",
        .enabled(if: geteuid() != 0, "root ignores file permissions; the setpriv test covers it"))
    func readOnlyFileIsRefusedInProcess() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readonly-in-process.sqlite")
        let before: [String]
        do { before = try Reliability.dump(Self.populatedStore(at: path)) }
        chmod(path, 0o444)
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
            do {
                _ = try store.populate(AppNetResponses.response(posts: 10, firstID: 300, seed: 6), entity: "Post")
                Issue.record("a read-only file accepted a population")
            } catch {
                #expect(error.code == .storeError)
            }
            #expect(try Reliability.dump(store) == before)
        } catch let error as WebRecordError {
            // Refusing at open is as good: a clear storeError.
            #expect(error.code == .storeError)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)
    }

    // MARK: - Incompatible schema

    /// `value` with the member at `path` (object keys) set to `newValue`.
    static func setting(_ path: [String], in value: JSONValue, to newValue: JSONValue) -> JSONValue {
        guard let key = path.first else { return newValue }
        var object = value.objectValue ?? JSONObject()
        object[key] = setting(Array(path.dropFirst()), in: object[key] ?? .null, to: newValue)
        return .object(object)
    }

    @Test("A schema changed incompatibly since the store was made: incompatibleStore, file unchanged")
    func incompatibleSchemaLeavesTheFileUnchanged() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("incompatible.sqlite")
        let before: [String]
        do { before = try Reliability.dump(Self.populatedStore(at: path)) }
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: path))

        // Post.text becomes an integer, and User's key changes from id to name.
        var changedValue = try JSONReader().read(Data(contentsOf: Reliability.appNetSchemaURL))
        changedValue = Self.setting(
            ["entities", "Post", "attributes", "text", "type"], in: changedValue, to: "integer")
        changedValue = Self.setting(["entities", "User", "primaryKey"], in: changedValue, to: "name")
        let text = changedValue.serialized(prettyPrinted: true)
        let changed = try Schema(json: text, fileName: "AppNet.json")
        #expect(
            changed.entity(named: "User")?.primaryKey
                != (try Reliability.appNetSchema()).entity(named: "User")?.primaryKey)

        do {
            _ = try RecordStore(path: path, schema: changed)
            Issue.record("an incompatible schema opened the store")
        } catch {
            #expect(error.code == .incompatibleStore)
            #expect(error.message.contains("Post.text"), "\(error.message)")
            #expect(error.message.contains("User"), "\(error.message)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        // Through the command-line tool: exit 1, one line naming the change.
        let webrecord = try ChildProcess.webrecord()
        let changedSchema = try directory.write("Changed.json", Data(text.utf8))
        let source = try directory.write(
            "more.json", AppNetResponses.bytes(AppNetResponses.response(posts: 5, seed: 9)))
        let result = try await ChildProcess.run(
            webrecord, ["populate", "--schema", changedSchema, "--db", path, "--entity", "Post", source])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("Post.text"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)

        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        #expect(try Reliability.dump(store) == before)
    }
}
