import Foundation
import TestSupport
import Testing

/// `webrecord watch`, run as a binary against a store that other processes populate: its first
/// line, one line per change, SIGINT and a closed pipe.
@Suite struct WatchCommandTests {
    static let schema = """
        {"entities": {"Post": {"primaryKey": "id",
          "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}, "rank": {"type": "integer"}}}}}
        """

    let directory: TemporaryDirectory
    let schemaPath: String
    let storePath: String

    init() throws {
        directory = try TemporaryDirectory()
        schemaPath = try directory.write("schema.json", Self.schema)
        storePath = directory.path("posts.sqlite")
    }

    /// Populates the store from another process, as a shell would.
    func populate(_ posts: String, name: String) async throws {
        let source = try directory.write(name, posts)
        let result = try await CLI.run(
            ["populate", "--schema", schemaPath, "--db", storePath, "--entity", "Post", source])
        #expect(result.status == 0, "\(result)")
    }

    func watch(_ extra: [String] = []) throws -> ChildProcess.Running {
        try ChildProcess.Running(
            try CLI.executable(), ["watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post"] + extra)
    }

    @Test func itPrintsTheCountThenOneLinePerChangeUntilInterrupted() async throws {
        try await populate(
            #"[{"id": 1, "title": "a", "rank": 5}, {"id": 2, "title": "b", "rank": 50}]"#, name: "1.json")
        let watching = try watch(["--where", "rank < ?", "--arg", "10", "--order-by", "rank:desc"])
        #expect(await watching.waitForOutput("{\"count\":1}\n"), "\(watching.stdout)")

        // 1 changes, 3 arrives inside the condition, 2 stays outside it.
        try await populate(
            #"[{"id": 1, "title": "a2", "rank": 5}, {"id": 3, "title": "c", "rank": 1}, {"id": 2, "title": "b2", "rank": 60}]"#,
            name: "2.json")
        #expect(await watching.waitForOutput("\"modified\""), "\(watching.stdout)")
        try await populate(#"[{"id": 3, "title": "c", "rank": 70}]"#, name: "3.json")
        #expect(await watching.waitForOutput("\"deleted\":[3]"), "\(watching.stdout)")

        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(result.status == 0, "\(result)")
        #expect(!result.killedBySignal)
        #expect(
            result.stdoutLines == [
                #"{"count":1}"#,
                #"{"deleted":[],"inserted":[3],"modified":[1]}"#,
                #"{"deleted":[3],"inserted":[],"modified":[]}"#,
            ])
        #expect(result.stderr == "")
    }

    /// CLI.md, `watch`: a decimal column holds text on SQLite, so `--where` compares it as text
    /// unless it names the `webrecord_decimal` collation, which the watch's connection knows.
    @Test func aDecimalConditionComparesValuesThroughTheCollation() async throws {
        let schema = try directory.write(
            "prices.json",
            """
            {"entities": {"Item": {"primaryKey": "id",
              "attributes": {"id": {"type": "integer"}, "price": {"type": "decimal"}}}}}
            """)
        let source = try directory.write("prices-1.json", #"[{"id": 1, "price": "10.00"}, {"id": 2, "price": "2.5"}]"#)
        let populated = try await CLI.run(
            ["populate", "--schema", schema, "--db", storePath, "--entity", "Item", source])
        #expect(populated.status == 0, "\(populated)")
        for (condition, count) in [(#""price" > ?"#, 0), (#""price" COLLATE webrecord_decimal > ?"#, 1)] {
            let watching = try ChildProcess.Running(
                try CLI.executable(),
                [
                    "watch", "--schema", schema, "--db", storePath, "--entity", "Item", "--where", condition, "--arg",
                    "3",
                ])
            #expect(await watching.waitForOutput("{\"count\":\(count)}\n"), "\(condition): \(watching.stdout)")
            kill(watching.process.processIdentifier, SIGINT)
            let result = try await watching.wait()
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines == [#"{"count":\#(count)}"#], "\(condition)")
        }
    }

    @Test func aRecordKeyedByItsOwnerAndDeletedWithItIsNamedByTheOwnersKey() async throws {
        let schema = try directory.write(
            "owners.json",
            """
            {"entities": {
              "Owner": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                "relationships": {"stat": {"destination": "Stat", "inverse": "owner"}}},
              "Stat": {"primaryKey": "owner", "attributes": {"n": {"type": "integer"}},
                "relationships": {"owner": {"destination": "Owner", "inverse": "stat"}}}}}
            """)
        func populate(_ json: String, _ name: String, _ extra: [String] = []) async throws {
            let source = try directory.write(name, json)
            let result = try await CLI.run(
                ["populate", "--schema", schema, "--db", storePath, "--entity", "Owner"] + extra + [source])
            #expect(result.status == 0, "\(result)")
        }
        // Owner 2 is stored first, so its Stat's `_id` is 1: the key of the Stat that stays.
        try await populate(#"[{"id": 2, "stat": {"n": 20}}, {"id": 1, "stat": {"n": 10}}]"#, "1.json")
        let watching = try ChildProcess.Running(
            try CLI.executable(), ["watch", "--schema", schema, "--db", storePath, "--entity", "Stat"])
        #expect(await watching.waitForOutput("{\"count\":2}\n"), "\(watching.stdout)")
        try await populate(#"[{"id": 1}]"#, "2.json", ["--delete-orphans"])
        #expect(await watching.waitForOutput("\"deleted\""), "\(watching.stdout)")
        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(result.stdoutLines == [#"{"count":2}"#, #"{"deleted":[2],"inserted":[],"modified":[]}"#], "\(result)")
    }

    @Test(arguments: [false, true])
    func aStoreFileDeletedOrReplacedEndsItWithAnError(replaced: Bool) async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let watching = try watch()
        #expect(await watching.waitForOutput("{\"count\":1}\n"), "\(watching.stdout)")
        if replaced {
            // Another store moved into its place (an atomic `mv`): its changes are not the
            // watched file's.
            let other = directory.path("other.sqlite")
            let source = try directory.write("2.json", #"[{"id": 2, "title": "b", "rank": 5}]"#)
            let made = try await CLI.run([
                "populate", "--schema", schemaPath, "--db", other, "--entity", "Post", source,
            ])
            #expect(made.status == 0, "\(made)")
            #expect(rename(other, storePath) == 0)
        } else {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        }
        let result = try await watching.wait()
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the store file was deleted or replaced"), "\(result)")
        #expect(result.stdoutLines == [#"{"count":1}"#], "\(result)")
    }

    @Test func aClosedPipeEndsItWithStatusZero() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let command =
            "set -o pipefail; '\(try CLI.executable().path)' watch --schema '\(schemaPath)' --db '\(storePath)' "
            + "--entity Post | head -n 1; echo \"watch ${PIPESTATUS[0]}\""
        let shell = try ChildProcess.Running(try ChildProcess.onPath("bash"), ["-c", command])
        #expect(await shell.waitForOutput("{\"count\":1}"), "\(shell.stdout)")
        // head has gone, and nothing changes: watch notices the closed pipe by itself.
        let result = try await shell.wait()
        #expect(result.stdoutLines == [#"{"count":1}"#, "watch 0"], "\(result)")
    }

    /// A reader that has gone before the first line (`watch | true`), while the first fetch of a
    /// large store is still being read: the closed pipe cancels that read, which ends the command
    /// with status 0 as any closed pipe does, not with a `cancelled` error.
    @Test func aPipeClosedDuringTheFirstFetchEndsItWithStatusZero() async throws {
        let posts = (1...40_000).map { #"{"id": \#($0), "title": "t\#($0)", "rank": \#($0 % 97)}"# }
        try await populate("[" + posts.joined(separator: ", ") + "]", name: "1.json")
        let command =
            "'\(try CLI.executable().path)' watch --schema '\(schemaPath)' --db '\(storePath)' "
            + "--entity Post --order-by rank | true; echo \"watch ${PIPESTATUS[0]}\""
        for _ in 0..<3 {
            let result = try await ChildProcess.Running(try ChildProcess.onPath("bash"), ["-c", command]).wait()
            #expect(result.stdoutLines == ["watch 0"], "\(result)")
            #expect(!result.stderr.contains("cancelled"), "\(result)")
        }
    }

    @Test func aMissingStoreOrAStrayArgAreErrors() async throws {
        let missing = try await CLI.run(
            ["watch", "--schema", schemaPath, "--db", directory.path("none.sqlite"), "--entity", "Post"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no such store"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.sqlite")))
        let stray = try await CLI.run(
            ["watch", "--schema", schemaPath, "--db", storePath, "--entity", "Post", "--arg", "1"])
        #expect(stray.status == 2)
        #expect(stray.stderr.contains("--arg needs --where"), "\(stray.stderr)")
    }
}
