import Foundation
import TestSupport
import Testing
import WebRecord

/// `webrecord lint SCHEMA...`
@Suite struct LintCommandTests {
    @Test(arguments: [
        ("appnet-schema.json", "5 entities, 8 relationships"), ("shop-schema.json", "5 entities, 6 relationships"),
    ])
    func aValidSchemaPrintsOneSummaryLinePerFile(fixture: String, counts: String) async throws {
        let path = try CLI.fixture(fixture).path
        let result = try await CLI.run(["lint", path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(path): \(counts): ok\n")
        #expect(result.stderr == "")

        let quiet = try await CLI.run(["lint", "--quiet", path])
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.stdout == "")
        #expect(quiet.stderr == "")
    }

    static let posts = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" } },
              "relationships": { "user": { "destination": "User", "inverse": "posts" } }
            }
          }
        }
        """

    static let users = """
        {
          "version": 1,
          "entities": {
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "user" } }
            }
          }
        }
        """

    @Test func filesAreLoadedAsOneSchema() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("posts.json", Self.posts)
        try directory.write("users.json", Self.users)
        let together = try await CLI.run(["lint", "posts.json", "users.json"], in: directory.url)
        #expect(together.status == 0, "\(together)")
        #expect(
            together.stdoutLines == [
                "posts.json: 1 entity, 1 relationship: ok", "users.json: 1 entity, 1 relationship: ok",
            ])

        // Alone, each file names an entity it does not declare.
        let alone = try await CLI.run(["lint", "posts.json"], in: directory.url)
        #expect(alone.status == 1)
        #expect(alone.stdoutLines.count == 1)
        #expect(alone.stdoutLines.first?.hasPrefix("posts.json: Post.user: ") == true, "\(alone)")
    }

    static let invalid = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "ident",
              "attributes": {
                "id": { "type": "string" },
                "date": { "type": "dte" }
              },
              "relationships": {
                "user": { "destination": "Usr" }
              }
            }
          }
        }
        """

    @Test func invalidSchemaPrintsOneLinePerProblem() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("bad.json", Self.invalid)
        let result = try await CLI.run(["lint", "bad.json"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr == "")

        // Exactly the library's problems, one `FILE: Entity.property: message` line each.
        var expected: [String] = []
        do {
            _ = try Schema(json: Self.invalid, fileName: "bad.json")
        } catch {
            expected = error.problems.map(\.locatedMessage)
        }
        #expect(expected.count >= 3)
        #expect(result.stdoutLines == expected)
        for property in ["Post.date: ", "Post.user: ", "Post.ident: "] {
            #expect(
                result.stdoutLines.contains { $0.hasPrefix("bad.json: \(property)") },
                "no problem for \(property): \(result)")
        }
        #expect(
            result.stdoutLines.contains {
                $0.hasPrefix("bad.json: Post.date: ") && $0.contains("'dte'") && $0.contains("'date'")
            })
    }

    @Test func malformedSchemaNamesLineAndColumn() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("broken.json", "{\n  \"version\": 1,\n  \"entities\": {,}\n}\n")
        let result = try await CLI.run(["lint", "broken.json"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdoutLines.first?.hasPrefix("broken.json: line 3, column 16: ") == true, "\(result)")
    }

    @Test func missingFileIsAProblem() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["lint", "missing.json"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "missing.json: no such file\n")
        #expect(result.stderr == "")
    }

    @Test func missingFileAmongValidOnes() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("posts.json", Self.posts)
        let result = try await CLI.run(["lint", "posts.json", "users.json"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdoutLines == ["users.json: no such file"])
    }

    @Test func noArgumentsIsAUsageError() async throws {
        let result = try await CLI.run(["lint"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderrLines == [
                "webrecord: error: missing expected argument '<schema> ...'",
                "Usage: webrecord lint [--quiet] [--backend <backend>] <schema> ...",
                "  See 'webrecord lint --help' for more information.",
            ])
    }
}
