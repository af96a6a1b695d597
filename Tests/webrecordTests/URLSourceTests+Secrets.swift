import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate` never prints a secret it was given, on stdout or stderr, at any logging
/// level: not a token passed with `--header`, not an `access_token` in a source URL, not a
/// URL's password, even when the server echoes them back in an error.
extension URLSourceTests {
    static let secret = "S3cr3tT0kenValue"

    /// Routes for servers that echo what they were sent, as some do in their error bodies.
    func routeEchoingServers() {
        server.route(
            "/unauthorized",
            .json(
                #"{"message": "Bad credentials: token \#(Self.secret)", "access_token": "\#(Self.secret)"}"#,
                status: 401))
        server.route(
            "/broken", .text("internal error for access_token=\(Self.secret) (token \(Self.secret))", status: 500))
        server.route("/posts", .json(posts))
        server.route(
            "/paged",
            .json(
                #"{"data": [{"id": "1"}], "next": "\#(server.url("/paged-2?access_token=\(Self.secret)").absoluteString)"}"#
            ))
        server.route("/paged-2", .json(#"{"data": [{"id": "2"}]}"#))
    }

    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case headerAgainst401, headerAgainst500, queryAgainst401, queryAgainst500, passwordAgainst500
        case headerAndQuerySucceeding, nextPageURLWithAToken

        var testDescription: String { rawValue }
    }

    func arguments(for scenario: Scenario) -> (sources: [String], extra: [String], succeeds: Bool) {
        let header = ["--header", "Authorization: token \(Self.secret)"]
        func url(_ path: String) -> String { server.url(path).absoluteString }
        switch scenario {
        case .headerAgainst401: return ([url("/unauthorized")], header, false)
        case .headerAgainst500: return ([url("/broken")], header, false)
        case .queryAgainst401: return ([url("/unauthorized?count=2&access_token=\(Self.secret)")], [], false)
        case .queryAgainst500:
            return ([url("/broken?access_token=\(Self.secret)")], ["--paginate", "link-header"], false)
        case .passwordAgainst500:
            return (["http://alice:\(Self.secret)@127.0.0.1:\(server.port)/broken"], [], false)
        case .headerAndQuerySucceeding: return ([url("/posts?access_token=\(Self.secret)")], header, true)
        case .nextPageURLWithAToken: return ([url("/paged")], header + ["--paginate", "next-url:next"], true)
        }
    }

    @Test(arguments: Scenario.allCases, ["none", "info", "debug", "all"])
    func noSecretIsPrinted(scenario: Scenario, level: String) async throws {
        routeEchoingServers()
        let (sources, extra, succeeds) = arguments(for: scenario)
        let db = directory.path("\(scenario.rawValue)-\(level).sqlite")
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post"] + extra + sources, in: directory.url,
            environment: ["WEBRECORD_LOGGING_LEVEL": level])
        #expect(result.status == (succeeds ? 0 : 1), "\(result)")
        #expect(!result.stdout.contains(Self.secret), "\(result)")
        #expect(!result.stderr.contains(Self.secret), "\(result)")
        if !succeeds {
            #expect(result.stderr.contains("webrecord: error: "), "\(result)")
            #expect(result.stderr.contains("redacted"), "the failure says something was redacted: \(result)")
        }
        if level == "all" {
            // The HTTP traffic is logged, with the secrets taken out.
            #expect(result.stderr.contains("HTTP GET request"), "\(result)")
            #expect(result.stderr.contains("redacted"), "\(result)")
        }
        if scenario != .passwordAgainst500 {
            // The server did receive the secret: it was sent, only never shown.
            let received = server.requests.contains { request in
                request.header("Authorization")?.contains(Self.secret) == true
                    || request.query?.contains(Self.secret) == true
            }
            #expect(received, "\(server.requests.map(\.path))")
        }
    }
}
