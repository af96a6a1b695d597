import Foundation
import TestSupport
import Testing
import WebRecord

/// WebRecord's default logging level is `none`: a fresh process populating a response full of
/// problems writes nothing but its result.
@Suite struct DefaultLoggingTests {
    @Test func aFreshProcessLogsNothingByDefault() async throws {
        let directory = try TemporaryDirectory()
        let schema = try CLI.fixture("appnet-schema.json").path
        let response = try directory.write(
            "problems.json",
            #"{"data": [{"text": "no id"}, {"id": "1", "created_at": "not a date", "user": {"id": "u"}}]}"#)
        let result = try await CLI.run(
            [
                "populate", "--schema", schema, "--db", directory.path("s.sqlite"), "--entity", "Post", "--json",
                response,
            ],
            in: directory.url)
        #expect(result.status == 0, "\(result)")
        let warnings = try Summary(result).warnings.compactMap { $0["code"]?.stringValue }
        #expect(warnings.contains("missingPrimaryKey"))
        #expect(warnings.contains("typeMismatch"))
        #expect(result.stderr.isEmpty, "the library logged: \(result.stderr)")
    }
}
