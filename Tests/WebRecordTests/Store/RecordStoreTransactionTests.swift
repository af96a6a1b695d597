import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// Write transactions: commit on return, rollback on throw, BEGIN IMMEDIATE and the busy timeout.
@Suite struct RecordStoreTransactionTests {
    struct Abort: Error, Equatable {}

    @Test func writeCommitsWhenTheClosureReturns() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        let rowID = try store.write { connection in
            #expect(connection.isInTransaction)
            return try connection.insertRow("Tag", ["_entity": "Tag", "name": "swift"])
        }
        #expect(rowID == 1)
        // The reader (a separate connection) sees the commit, and so does a new store.
        #expect(try store.count("Tag") == 1)
        #expect(try store.read { $0.isInTransaction } == false)
        let other = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        #expect(try other.fetchOne("Tag", primaryKey: "swift") != nil)
    }

    @Test func newRowIDsFollowTheLargestAndEachOtherWithinATransaction() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        try store.write { connection in
            _ = try connection.insertRow("Tag", ["_id": 7, "_entity": "Tag", "name": "swift"])
        }
        var statements: [String] = []
        let reserved = try store.sqlite!.inTransaction { transaction in
            let observer = Locked<[String]>([])
            transaction.connection.sqlObserver = { sql in observer.withLock { $0.append(sql) } }
            defer { transaction.connection.sqlObserver = nil }
            let first = try transaction.reserveRowIDs(in: "Tag", count: 3)
            let second = try transaction.reserveRowIDs(in: "Tag", count: 2)
            let empty = try transaction.reserveRowIDs(in: "Tag", count: 0)
            let otherTable = try transaction.reserveRowIDs(in: "User", count: 2)
            statements = observer.withLock { $0 }
            return [first, second, empty, otherTable]
        }
        #expect(reserved == [[8, 9, 10], [11, 12], [], [1, 2]])
        // The largest _id is read once per table; later reservations need no statement.
        #expect(statements.filter { $0.contains("max(") }.count == 2)
        // Reserving writes nothing: the next transaction starts again from the largest _id.
        let again = try store.sqlite!.inTransaction { try $0.reserveRowIDs(in: "Tag", count: 1) }
        #expect(again == [8])
    }

    @Test func writeRollsBackWhenTheClosureThrows() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        try store.write { connection in
            let user = try connection.insertRow("User", ["_entity": "User", "id": "u1", "name": "Ann"])
            try connection.insert("Post", ["_entity": "Post", "id": 1, "title": "Kept", "author": user])
        }
        let before = try ["User", "Post", "Tag", "_Post_tags"].map { try store.dump($0) }

        expectClosureFailure(causedBy: Abort.self) {
            try store.write { connection in
                try connection.execute("UPDATE \"User\" SET \"name\" = ?", [.text("Changed")])
                let tag = try connection.insertRow("Tag", ["_entity": "Tag", "name": "lost"])
                try connection.insert("_Post_tags", ["owner": 1, "target": tag])
                try connection.execute("DELETE FROM \"Post\"")
                #expect(try connection.scalar("SELECT count(*) FROM \"Post\"") == .integer(0))
                throw Abort()
            }
        }
        let after = try ["User", "Post", "Tag", "_Post_tags"].map { try store.dump($0) }
        #expect(after == before)
        #expect(try store.sqlite!.withWriter { $0.isInTransaction } == false)
        // The writer is usable again afterwards.
        try store.write { try $0.insert("Tag", ["_entity": "Tag", "name": "after"]) }
        #expect(try store.count("Tag") == 1)
    }

    @Test func anSQLErrorInsideWriteRollsBackTheWholeTransaction() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        let error = #expect(throws: WebRecordError.self) {
            try store.write { connection in
                try connection.insert("Tag", ["_entity": "Tag", "name": "one"])
                try connection.insert("Tag", ["_entity": "Tag", "name": "one"])  // unique index
            }
        }
        #expect(error?.code == .storeError)
        #expect(error?.sql?.hasPrefix("INSERT INTO \"Tag\"") == true)
        #expect(try store.count("Tag") == 0)
    }

    @Test func theReaderConnectionIsReadOnly() throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        let error = #expect(throws: WebRecordError.self) {
            try store.read { try $0.execute("INSERT INTO \"Tag\" (\"_entity\", \"name\") VALUES ('Tag', 'x')") }
        }
        #expect(error?.code == .storeError)
        #expect(try store.count("Tag") == 0)
    }

    @Test func aSecondWriterOnTheSameFileFailsWithBusyAfterTheTimeout() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let holder = try RecordStore(path: path, schema: StoreSchemas.blog())
        var configuration = RecordStore.Configuration()
        configuration.busyTimeout = 0.2
        let waiter = try RecordStore(path: path, schema: StoreSchemas.blog(), configuration: configuration)

        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let holderResult = Locked<Result<Int64, any Error>?>(nil)
        let thread = Thread {
            let result = Result {
                try holder.write { connection in
                    let id = try connection.insertRow("Tag", ["_entity": "Tag", "name": "held"])
                    holding.signal()
                    release.wait()
                    return id
                }
            }
            holderResult.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
        holding.wait()

        let start = Date()
        let error = #expect(throws: WebRecordError.self) {
            try waiter.write { try $0.insert("Tag", ["_entity": "Tag", "name": "blocked"]) }
        }
        let waited = Date().timeIntervalSince(start)
        release.signal()
        finished.wait()

        #expect(error?.code == .storeError)
        #expect(error.flatMap(\.sqliteCode).map { $0 & 0xFF } == 5)  // SQLITE_BUSY family
        #expect(error?.sql == "BEGIN IMMEDIATE")
        // A loaded machine can only lengthen the wait. Which timeout applied is read from the
        // connection, not from the clock: no upper bound holds on a machine loaded enough.
        #expect(waited >= 0.15, "the busy timeout should be waited out, waited \(waited)s")
        #expect(try holderResult.withLock { try $0?.get() } == 1)
        #expect(
            try waiter.write { try $0.scalar("PRAGMA busy_timeout") } == .integer(200),
            "the configured busy timeout (0.2 s), not the default (5 s), applies")

        // Nothing is corrupt; the holder's write is there and the blocked one is not.
        #expect(try waiter.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try waiter.fetch("Tag").map { $0["name"] as String? } == ["held"])
        // Once the lock is free the second store writes normally.
        try waiter.write { try $0.insert("Tag", ["_entity": "Tag", "name": "later"]) }
        #expect(try holder.count("Tag") == 2)
    }

    @Test func concurrentWritesWithinOneStoreAreSerialized() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: StoreSchemas.blog())
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    _ = try? store.write { connection in
                        let count = try connection.scalar("SELECT count(*) FROM \"Tag\"")?.integer ?? -1
                        try connection.insert("Tag", ["_entity": "Tag", "name": "t\(index)"])
                        return count
                    }
                }
            }
        }
        #expect(try store.count("Tag") == 20)
        #expect(try store.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}

/// Values are always bound, never spliced into SQL.
@Suite struct RecordStoreBindingTests {
    static let hostileStrings = [
        "O'Reilly",
        #"She said "hi""#,
        "Robert'); DROP TABLE \"Post\"; --",
        "' OR '1'='1",
        "?; SELECT * FROM _webrecord_metadata",
        "tab\tnew\nline",
        "nul\u{0}inside",
        "emoji 🧪 and ünïcödé",
        "",
    ]

    @Test(arguments: hostileStrings)
    func hostileTextRoundTripsVerbatim(text: String) throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        try store.write { try $0.insert("Post", ["_entity": "Post", "id": 1, "title": text]) }
        try store.write { try $0.insert("Post", ["_entity": "Post", "id": 2, "title": "other"]) }

        let found = try store.fetch("Post", where: "title = ?", arguments: [text])
        #expect(found.count == 1)
        #expect(found.first?["title"] as String? == text)
        #expect(found.first?.storedValues["title"] == .text(text))
        #expect(try store.count("Post") == 2)
        #expect(try store.tableNames().contains("Post"))
    }

    @Test func blobsWithZeroBytesRoundTrip() throws {
        let store = try RecordStore(inMemory: StoreSchemas.samples())
        let bytes = Data([0, 1, 0, 255, 39, 34, 0])
        try store.write { try $0.insert("Sample", ["_entity": "Sample", "id": 1, "payload": bytes]) }
        try store.write { try $0.insert("Sample", ["_entity": "Sample", "id": 2, "payload": Data()]) }
        let found = try store.fetch("Sample", where: "payload = ?", arguments: [bytes])
        #expect(found.map { $0["payload"] as Data? } == [bytes])
        #expect(try store.fetchOne("Sample", primaryKey: 2)?["payload"] as Data? == Data())
    }

    @Test func theSQLOfAFailedStatementHoldsNoBoundValues() throws {
        let store = try RecordStore(inMemory: StoreSchemas.blog())
        let secret = "token-\(UUID().uuidString)"
        try store.write { try $0.insert("Tag", ["_entity": "Tag", "name": secret]) }
        let error = #expect(throws: WebRecordError.self) {
            try store.write { try $0.insert("Tag", ["_entity": "Tag", "name": secret]) }
        }
        #expect(error?.sql?.contains("?") == true)
        #expect(error?.sql?.contains(secret) == false)
        #expect(error.map { "\($0)" }?.contains(secret) == false)
    }
}
