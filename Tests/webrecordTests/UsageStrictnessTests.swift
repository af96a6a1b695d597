import Foundation
import TestSupport
import Testing

/// Flag values that only look like what they mean are usage errors, found before anything is
/// read or written.
@Suite struct UsageStrictnessTests {
    @Test(arguments: [
        (["--timeout", "0x10"], "--timeout"), (["--timeout", "1e2_0"], "--timeout"),
        (["--key-path", "data."], "--key-path"), (["--key-path", ".data"], "--key-path"),
        (["--key-path", "a..b"], "--key-path"),
    ])
    func aValueThatIsNotWhatTheFlagTakesIsAUsageError(flag: [String], name: String) async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(
            "S.json", #"{"entities": {"T": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}}}}}"#)
        let source = try directory.write("r.json", #"{"data": [{"id": 1}]}"#)
        let db = directory.path("s.sqlite")
        let result = try await CLI.run(["populate", "--schema", schema, "--db", db, "--entity", "T"] + flag + [source])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(name), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
