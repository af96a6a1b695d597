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
        #expect(await watching.waitForOutput("{\"count\":1}\n", timeout: 60), "\(watching.stdout)")

        // 1 changes, 3 arrives inside the condition, 2 stays outside it.
        try await populate(
            #"[{"id": 1, "title": "a2", "rank": 5}, {"id": 3, "title": "c", "rank": 1}, {"id": 2, "title": "b2", "rank": 60}]"#,
            name: "2.json")
        #expect(await watching.waitForOutput("\"modified\"", timeout: 60), "\(watching.stdout)")
        try await populate(#"[{"id": 3, "title": "c", "rank": 70}]"#, name: "3.json")
        #expect(await watching.waitForOutput("\"deleted\":[3]", timeout: 60), "\(watching.stdout)")

        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait(timeout: 60)
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

    @Test func aClosedPipeEndsItWithStatusZero() async throws {
        try await populate(#"[{"id": 1, "title": "a", "rank": 5}]"#, name: "1.json")
        let command =
            "set -o pipefail; '\(try CLI.executable().path)' watch --schema '\(schemaPath)' --db '\(storePath)' "
            + "--entity Post | head -n 1; echo \"watch ${PIPESTATUS[0]}\""
        let shell = try ChildProcess.Running(try ChildProcess.onPath("bash"), ["-c", command])
        #expect(await shell.waitForOutput("{\"count\":1}", timeout: 60), "\(shell.stdout)")
        // head has gone, and nothing changes: watch notices the closed pipe by itself.
        let result = try await shell.wait(timeout: 60)
        #expect(result.stdoutLines == [#"{"count":1}"#, "watch 0"], "\(result)")
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
