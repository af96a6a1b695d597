import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A streamed population's batches on PostgreSQL: each batch's foreign keys are checked when
/// the batch ends, by a statement sent without waiting (``PostgreSQLConnection/send(_:)``),
/// whose error the next statement reports; and the store's own batch size applies unless the
/// reader was given one.
@Suite struct PostgreSQLBatchCheckTests {
    // MARK: - A statement sent without waiting

    /// A connection to a new database of the shared server.
    func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(try PostgreSQLStores.newDatabase())
    }

    @Test func aSentStatementRunsAndTheNextStatementReadsAfterIt() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"v\" bigint)")
        try connection.inTransaction {
            try connection.send("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
            // Run while the two inserts' results wait: libpq refuses a statement then, unless
            // they are read first.
            #expect(try connection.rows("SELECT \"v\" FROM t ORDER BY \"v\"") == [[.integer(1)], [.integer(2)]])
            #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(2))
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(2))
    }

    @Test func aStatementIsSentWithoutWaitingOnlyInsideATransaction() throws {
        let connection = try connect()
        let error = try #require(throws: WebRecordError.self) { try connection.send("SELECT 1") }
        #expect(error.code == .invalidArgument)
        #expect(try connection.scalar("SELECT 2") == .integer(2))
    }

    @Test func aSentStatementsErrorIsThrownByTheNextStatementAndNamesIt() throws {
        let connection = try connectWithKeyedTable()
        try connection.execute("INSERT INTO t VALUES (1)")
        var next: WebRecordError?
        #expect(throws: WebRecordError.self) {
            try connection.inTransaction {
                try connection.send("INSERT INTO t VALUES (1)")
                do throws(WebRecordError) {
                    try connection.execute("SELECT 1")
                } catch {
                    next = error
                    throw error
                }
            }
        }
        let error = try #require(next)
        #expect(error.sqlState == "23505")
        #expect(error.sql == "INSERT INTO t VALUES (1)")
        // The error was read with the statement's results, and the transaction rolled back.
        #expect(connection.isIdle)
        #expect(try connection.scalar("SELECT 2") == .integer(2))
    }

    /// A connection to a new database with an empty table `t` keyed by its one column `v`.
    func connectWithKeyedTable() throws -> PostgreSQLConnection {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (\"v\" bigint PRIMARY KEY)")
        return connection
    }

    /// Expects `connection` out of any transaction, `t` empty, and a new transaction to write.
    func expectNothingKeptAndReady(_ connection: PostgreSQLConnection) throws {
        #expect(connection.isIdle)
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
        _ = try connection.inTransaction { try connection.execute("INSERT INTO t VALUES (6)") }
        #expect(try connection.rows("SELECT \"v\" FROM t") == [[.integer(6)]])
    }

    /// The error of a transaction on a new keyed table that inserts 5, then sends `sql` and
    /// ends, and the connection.
    func transaction(insertingThenSending sql: String) throws -> (WebRecordError, PostgreSQLConnection) {
        let connection = try connectWithKeyedTable()
        let error = try #require(throws: WebRecordError.self) {
            try connection.inTransaction {
                try connection.execute("INSERT INTO t VALUES (5)")
                try connection.send(sql)
            }
        }
        return (error, connection)
    }

    @Test func aSentStatementLeftFailingFailsTheTransactionBeforeItsCommit() throws {
        let (error, connection) = try transaction(insertingThenSending: "INSERT INTO t VALUES (5)")
        #expect(error.sqlState == "23505")
        #expect(error.sql == "INSERT INTO t VALUES (5)")
        // No COMMIT was sent: the outcome is known, and nothing was kept.
        #expect(!error.message.contains("whether the transaction committed is unknown"))
        try expectNothingKeptAndReady(connection)
    }

    @Test func aConnectionLostUnderASentStatementIsNotSaidToLeaveTheCommitUnknown() throws {
        let (error, connection) = try transaction(
            insertingThenSending: "SELECT pg_terminate_backend(pg_backend_pid())")
        // Lost before any COMMIT was sent: the transaction certainly did not commit.
        #expect(error.sqlState == "57P01", "\(error)")
        #expect(!error.message.contains("whether the transaction committed is unknown"), "\(error.message)")
        // The next transaction connects again; the insert before the loss is not there.
        _ = try connection.inTransaction { try connection.execute("INSERT INTO t VALUES (6)") }
        #expect(try connection.rows("SELECT \"v\" FROM t") == [[.integer(6)]])
    }

    @Test func aBodyThatThrowsWithAFailedStatementPendingStillRollsBack() throws {
        let connection = try connectWithKeyedTable()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.inTransaction {
                try connection.execute("INSERT INTO t VALUES (5)")
                try connection.send("INSERT INTO t VALUES (5)")
                throw Stop()
            }
        }
        // The ROLLBACK went out after the failed statement's results were read.
        try expectNothingKeptAndReady(connection)
    }

    // MARK: - Foreign keys checked at a batch's end

    /// A post of the AppNet schema whose user is the row `userID`, in `table`'s column order.
    static func post(
        rowID: Int64, id: String, text: String = "a post", userID: Int64?, table: StorageLayout.Table
    ) -> TableRow {
        let values: [String: DatabaseValue] = [
            "id": .text(id), "text": .text(text), "user": userID.map { .integer($0) } ?? .null,
        ]
        return TableRow(rowID: rowID, entityName: "Post", values: table.valueColumns.map { values[$0] ?? .null })
    }

    @Test func aDanglingReferenceIsReportedByTheStatementAfterItsBatchEndsAndNothingIsKept() throws {
        let database = try PostgreSQLStores.postgreSQL(try PostgreSQLStores.shippedSchema("AppNet"))
        let table = try #require(database.layout.table(named: "Post"))
        var afterBatch: WebRecordError?
        #expect(throws: WebRecordError.self) {
            try database.inTransaction { transaction in
                let rowID = try #require(try transaction.reserveRowIDs(in: "Post", count: 1).first)
                let row = Self.post(rowID: rowID, id: "1", userID: 999_999, table: table)
                try transaction.writeRows(inserted: [TableRows(table: "Post", rows: [row])], updated: [])
                try transaction.endBatch()
                do throws(WebRecordError) {
                    // Before the commit: the batch's check has already failed.
                    _ = try transaction.entityName(ofRow: rowID, in: "Post")
                } catch {
                    afterBatch = error
                    throw error
                }
            }
        }
        let error = try #require(afterBatch)
        #expect(error.sqlState == "23503", "\(error)")
        #expect(error.sql?.hasPrefix("SET CONSTRAINTS ") == true, "\(String(describing: error.sql))")
        #expect(error.message.contains("Post_user_fkey"), "\(error.message)")
        #expect(try PostgreSQLStores.content(of: database)["Post"] == [])
    }

    @Test func aBatchWhoseReferencesHoldEndsAndTheNextBatchWritesOn() throws {
        let database = try PostgreSQLStores.postgreSQL(try PostgreSQLStores.shippedSchema("AppNet"))
        let posts = try #require(database.layout.table(named: "Post"))
        let users = try #require(database.layout.table(named: "User"))
        try database.inTransaction { transaction in
            let userID = try #require(try transaction.reserveRowIDs(in: "User", count: 1).first)
            let user = TableRow(
                rowID: userID, entityName: "User",
                values: users.valueColumns.map { $0 == "id" ? .text("7") : .null })
            // The post refers to a user inserted after it, in the same batch: checked at its end.
            let first = try #require(try transaction.reserveRowIDs(in: "Post", count: 1).first)
            try transaction.writeRows(
                inserted: [
                    TableRows(table: "Post", rows: [Self.post(rowID: first, id: "1", userID: userID, table: posts)]),
                    TableRows(table: "User", rows: [user]),
                ], updated: [])
            try transaction.endBatch()
            // The next batch too: its keys are deferred again, so its post may refer to a user
            // copied after it.
            let second = try #require(try transaction.reserveRowIDs(in: "Post", count: 1).first)
            let secondUserID = try #require(try transaction.reserveRowIDs(in: "User", count: 1).first)
            let secondUser = TableRow(
                rowID: secondUserID, entityName: "User",
                values: users.valueColumns.map { $0 == "id" ? .text("8") : .null })
            try transaction.writeRows(
                inserted: [
                    TableRows(
                        table: "Post", rows: [Self.post(rowID: second, id: "2", userID: secondUserID, table: posts)]),
                    TableRows(table: "User", rows: [secondUser]),
                ], updated: [])
            try transaction.endBatch()
        }
        #expect(try PostgreSQLStores.content(of: database)["Post"]?.count == 2)
        #expect(try PostgreSQLStores.content(of: database)["User"]?.count == 2)
    }

    /// The error of a second batch whose post has the text "one" and the user `userID` (the
    /// first batch wrote a post "one" of a user that exists), after `constraint` was added to
    /// `"Post"`; nil when the batch is written.
    func secondBatchError(under constraint: String, userID: Int64?) throws -> WebRecordError? {
        let database = try PostgreSQLStores.postgreSQL(try PostgreSQLStores.shippedSchema("AppNet"))
        try database.inTransaction { _ in }  // makes the tables
        _ = try database.withConnection { connection in
            try connection.execute("ALTER TABLE \"Post\" ADD CONSTRAINT theirs \(constraint)")
        }
        let posts = try #require(database.layout.table(named: "Post"))
        let users = try #require(database.layout.table(named: "User"))
        var refused: WebRecordError?
        _ = try? database.inTransaction { transaction in
            let rowIDs = try transaction.reserveRowIDs(in: "Post", count: 2)
            let user = try #require(try transaction.reserveRowIDs(in: "User", count: 1).first)
            try transaction.writeRows(
                inserted: [
                    TableRows(
                        table: "User",
                        rows: [
                            TableRow(
                                rowID: user, entityName: "User",
                                values: users.valueColumns.map { $0 == "id" ? .text("7") : .null })
                        ])
                ], updated: [])
            // A post of the text "one", alone in its batch.
            let insert = { (index: Int, userID: Int64?) throws(WebRecordError) in
                let post = Self.post(rowID: rowIDs[index], id: "\(index)", text: "one", userID: userID, table: posts)
                try transaction.writeRows(inserted: [TableRows(table: "Post", rows: [post])], updated: [])
            }
            try insert(0, user)
            try transaction.endBatch()
            do throws(WebRecordError) {
                try insert(1, userID)
            } catch {
                refused = error
                throw error
            }
        }
        return refused
    }

    @Test func aUniqueConstraintSomeoneElseAddedStaysCheckedAtOnce() throws {
        // The batch's end deferred the store's foreign keys again, not this constraint: the
        // copy itself is refused.
        let error = try #require(
            try secondBatchError(under: "UNIQUE (\"text\") DEFERRABLE INITIALLY IMMEDIATE", userID: nil))
        #expect(error.sqlState == "23505")
        #expect(error.sql?.hasPrefix("COPY \"Post\"") == true, "\(String(describing: error.sql))")
    }

    @Test func aForeignKeySomeoneElseAddedBetweenTheStoresTablesStaysCheckedAtOnce() throws {
        let error = try #require(
            try secondBatchError(
                under: "FOREIGN KEY (\"user\") REFERENCES \"User\" (\"_id\") DEFERRABLE INITIALLY IMMEDIATE",
                userID: 999_999))
        #expect(error.sqlState == "23503")
        #expect(error.message.contains("theirs"), "\(error.message)")
        #expect(error.sql?.hasPrefix("COPY \"Post\"") == true, "\(String(describing: error.sql))")
    }

    @Test func theCheckNamesTheStoresForeignKeysQuoted() {
        #expect(PostgreSQLRecordTransaction.checkingStatement([]) == "")
        #expect(
            PostgreSQLRecordTransaction.checkingStatement(["public.\"Post_user_fkey\"", "public.\"Source_post_fkey\""])
                == "SET CONSTRAINTS public.\"Post_user_fkey\", public.\"Source_post_fkey\" IMMEDIATE; "
                + "SET CONSTRAINTS public.\"Post_user_fkey\", public.\"Source_post_fkey\" DEFERRED")
    }

    // MARK: - Batches of a streamed population

    /// A response of `count` posts of one user, each with a text of `textBytes` bytes.
    static func response(posts count: Int, textBytes: Int) -> Data {
        let text = String(repeating: "w", count: textBytes)
        let posts = (1...count).map { index in
            #"{"id": "\#(index)", "text": "\#(text)", "user": {"id": "1", "username": "one"}}"#
        }
        return Data(#"{"data": [\#(posts.joined(separator: ", "))]}"#.utf8)
    }

    /// The statements a streamed population of `data` into a new PostgreSQL store runs, the reader
    /// made with `batchByteLimit`, or with none; `before` runs first, once the tables are made.
    func statements(
        streaming data: Data, batchByteLimit: Int?, before: (PostgreSQLConnection) throws -> Void = { _ in }
    ) async throws -> ([String], PostgreSQLDatabase) {
        let statements = Locked<[String]>([])
        var options = PostgreSQLDatabase.Options()
        options.sqlObserver = { sql in statements.withLock { $0.append(sql) } }
        let database = try PostgreSQLDatabase(
            try PostgreSQLStores.newDatabase(), schema: try PostgreSQLStores.shippedSchema("AppNet"), options: options)
        try await database.inTransaction { _ in }  // makes the tables
        try database.withConnection(before)
        let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
            JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchByteLimit)
        }
        _ = try await ResponsePopulation(store: database).populate(streaming: open, entity: "Post")
        return (statements.value, database)
    }

    @Test func eachBatchSendsItsCheckAndTheCommitComesAfterTheLast() async throws {
        // 40 posts of about 1 KB in batches of 4 KB: 10 batches, or 11.
        let (statements, database) = try await self.statements(
            streaming: Self.response(posts: 40, textBytes: 1_000), batchByteLimit: 4_000)
        let isCheck = { (sql: String) in sql.hasPrefix("SET CONSTRAINTS ") }
        let checks = statements.filter(isCheck)
        let copies = statements.filter { $0.hasPrefix("COPY \"Post\"") }
        #expect(copies.count >= 9)
        #expect(checks.count == copies.count, "one check per batch")
        // The store's foreign keys, by name, not ALL.
        #expect(checks.first?.contains("\"Post_user_fkey\"") == true, "\(checks.first ?? "")")
        #expect(checks.first?.contains("ALL") == false)
        let lastCheck = try #require(statements.lastIndex(where: isCheck))
        let commit = try #require(statements.lastIndex(of: "COMMIT"))
        #expect(lastCheck < commit)
        #expect(try PostgreSQLStores.content(of: database)["Post"]?.count == 40)
        #expect(try PostgreSQLStores.content(of: database)["User"]?.count == 1)
    }

    @Test func theCheckNamesTheStoresOwnKeysOnlyAndNoNameAnotherConstraintShares() async throws {
        let (statements, database) = try await self.statements(
            streaming: Self.response(posts: 40, textBytes: 1_000), batchByteLimit: 4_000
        ) { connection in
            // Another program's key between the store's tables, checked at the commit.
            try connection.execute(
                "ALTER TABLE \"CoverImage\" ADD CONSTRAINT theirs FOREIGN KEY (\"id\") REFERENCES \"User\" (\"_id\") DEFERRABLE INITIALLY DEFERRED NOT VALID"
            )
            // A table of another program whose key, checked at once, has the name of one of the
            // store's: SET CONSTRAINTS "Post_user_fkey" would refuse it as not deferrable.
            try connection.execute(
                "CREATE TABLE other (\"x\" bigint CONSTRAINT \"Post_user_fkey\" REFERENCES \"User\" (\"_id\"))")
        }
        let checks = statements.filter { $0.hasPrefix("SET CONSTRAINTS ") }
        #expect(checks.count >= 9)
        let check = try #require(checks.first)
        #expect(check.contains("\"Source_post_fkey\""), "\(check)")
        #expect(!check.contains("theirs"), "\(check)")
        #expect(!check.contains("\"Post_user_fkey\""), "\(check)")
        #expect(try PostgreSQLStores.content(of: database)["Post"]?.count == 40)
    }

    @Test func aReaderWithoutALimitOfItsOwnTakesTheStoresEightMegabyteBatches() async throws {
        // About 3 MB of posts: one batch of PostgreSQL's 8 MB, where SQLite's 2 MB would make two.
        let data = Self.response(posts: 300, textBytes: 10_000)
        #expect(data.count > JSONStreamReader.defaultBatchByteLimit + 500_000)
        let (whole, _) = try await statements(streaming: data, batchByteLimit: nil)
        #expect(whole.filter { $0.hasPrefix("COPY \"Post\"") }.count == 1)
        // A reader given a limit keeps it.
        let (limited, _) = try await statements(streaming: data, batchByteLimit: 1_000_000)
        #expect(limited.filter { $0.hasPrefix("COPY \"Post\"") }.count >= 3)
    }
}
