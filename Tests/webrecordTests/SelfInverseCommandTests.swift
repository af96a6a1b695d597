import Foundation
import TestSupport
import Testing
import WebRecord

/// A relationship that is its own inverse, through the binary: `export` shows both sides of a
/// friendship and of a marriage, and `watch` names both records as modified.
@Suite struct SelfInverseCommandTests {
    let directory: TemporaryDirectory
    let schema: String
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        schema = try directory.write(
            "Users.json",
            """
            {"entities": {"User": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
              "relationships": {
                "friends": {"destination": "User", "toMany": true, "inverse": "friends"},
                "spouse": {"destination": "User", "inverse": "spouse"}}}}}
            """)
        db = directory.path("users.sqlite")
    }

    func populate(_ body: String) async throws {
        let source = try directory.write("response-\(UUID().uuidString).json", body)
        let result = try await CLI.run(["populate", "--schema", schema, "--db", db, "--entity", "User", source])
        #expect(result.status == 0, "\(result)")
    }

    @Test func exportShowsBothSides() async throws {
        try await populate(#"[{"id": 1, "friends": [2, 3], "spouse": 2}]"#)
        try await populate(#"[{"id": 2, "friends": [4]}, {"id": 3, "spouse": 1}]"#)
        let result = try await CLI.run(["export", "--schema", schema, "--db", db, "--entity", "User"])
        #expect(result.status == 0, "\(result)")
        let users = try JSONReader().read(result.stdoutData).arrayValue ?? []
        var byID: [JSONValue: JSONValue] = [:]
        for user in users { byID[user["id"] ?? .null] = user }
        #expect(byID[1]?["friends"] == [3])
        #expect(byID[2]?["friends"] == [4])
        #expect(byID[3]?["friends"] == [1])
        #expect(byID[4]?["friends"] == [2])
        #expect(byID[1]?["spouse"] == 3)
        #expect(byID[2]?["spouse"] == .null)
        #expect(byID[3]?["spouse"] == 1)
    }

    @Test func watchNamesBothRecordsOfALink() async throws {
        try await populate(#"[{"id": 1}, {"id": 2}, {"id": 3}]"#)
        let watching = try ChildProcess.Running(
            try CLI.executable(), ["watch", "--schema", schema, "--db", db, "--entity", "User"])
        #expect(await watching.waitForOutput("{\"count\":3}\n"), "\(watching.stdout)")
        try await populate(#"[{"id": 3, "friends": [1]}]"#)
        #expect(await watching.waitForOutput("\"modified\""), "\(watching.stdout)")
        kill(watching.process.processIdentifier, SIGINT)
        let result = try await watching.wait()
        #expect(
            result.stdoutLines == [#"{"count":3}"#, #"{"deleted":[],"inserted":[],"modified":[1,3]}"#], "\(result)")
    }
}
