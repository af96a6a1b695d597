import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// `webrecord populate`'s progress line: drawn on a real pseudo-terminal while one large
/// response populates, ending on a clean line; nothing at all in a pipe.
@Suite(.measuresTime) struct ProgressLineTests {
    let directory: TemporaryDirectory
    let schema: String
    /// Posts in the large response: enough that a debug build populates it for well over the
    /// line's tenth of a second.
    static let postCount = 20_000

    init() throws {
        directory = try TemporaryDirectory()
        schema = try CLI.fixture("appnet-schema.json").path
    }

    var db: String { directory.path("appnet.sqlite") }

    /// The fixture's 20 posts, repeated with new ids into one response of `count` posts, written
    /// on a thread of its own: built as text, each post serialized once, so that it takes no
    /// time from the suites that measure it.
    func largeResponse(_ count: Int) async throws -> String {
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        let posts = try JSONReader().read(data)["data"]?.arrayValue ?? []
        try #require(!posts.isEmpty)
        let marker = "\"progress-id\""
        let halves: [[String]] = posts.map { post in
            var object = post.objectValue ?? JSONObject()
            object["id"] = .string("progress-id")
            return JSONValue.object(object).serialized().components(separatedBy: marker)
        }
        try #require(halves.allSatisfy { $0.count == 2 })
        let path = directory.path("large.json")
        try await ChildProcess.onThread {
            var text = #"{"data": ["#
            for index in 0..<count {
                let post = halves[index % halves.count]
                text += (index == 0 ? "" : ",") + post[0] + "\"progress-\(index)\"" + post[1]
            }
            text += "]}"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        return path
    }

    /// Runs `webrecord` with its standard error on a new pseudo-terminal, its standard output in
    /// a file, and returns everything drawn on the terminal (python3's `pty`, as a terminal
    /// emulator would read it).
    func runOnATerminal(_ arguments: [String]) async throws -> (status: Int32, drawn: String, stdout: String) {
        let script = """
            import os, pty, subprocess, sys
            master, slave = pty.openpty()
            with open(sys.argv[1], "wb") as out:
                child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
            os.close(slave)
            drawn = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child has exited and closed the terminal
                    break
                if not chunk:
                    break
                drawn += chunk
            sys.stdout.buffer.write(drawn)
            sys.exit(child.wait())
            """
        let stdout = directory.path("stdout.txt")
        let result = try await ChildProcess.python(script, [stdout, try CLI.executable().path] + arguments)
            .wait(timeout: 300)
        return (result.status, result.stdout, try String(contentsOfFile: stdout, encoding: .utf8))
    }

    @Test func aLargeResponseDrawsRecordsPerSecondWhileItPopulatesAndEndsOnACleanLine() async throws {
        let file = try await largeResponse(Self.postCount)

        let run = try await runOnATerminal(["populate", "--schema", schema, "--db", db, "--entity", "Post", file])

        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("Populated \(Self.postCount) Post records"), "\(run.stdout)")
        // Each redraw goes back to the start of the row, draws, and clears what is left of it.
        let clear = "\u{1B}[K"
        let draws = run.drawn.split(separator: "\r", omittingEmptySubsequences: true).map(String.init)
        #expect(draws.count >= 3, "\(run.drawn.debugDescription)")
        #expect(draws.allSatisfy { $0.hasSuffix(clear) && !$0.contains("\n") }, "\(run.drawn.debugDescription)")
        // Drawn from inside the population: some records populated, not all of them yet. A file
        // is streamed, so the line counts the bytes read of the file's size, and the records so
        // far (their total is known only at the end).
        let counts = draws.filter { $0.hasPrefix("populating, ") }.compactMap { draw -> Int? in
            guard let range = draw.range(of: #"\d+ records, "#, options: .regularExpression) else { return nil }
            return Int(draw[range].prefix { $0.isNumber })
        }
        #expect(counts.contains { $0 > 0 && $0 < Self.postCount }, "\(run.drawn.debugDescription)")
        #expect(counts == counts.sorted())
        #expect(draws.contains { $0.range(of: #", \d+ records/s"#, options: .regularExpression) != nil })
        #expect(
            draws.contains {
                $0.range(of: #"populating, \d+\.\d of \d+\.\d MB, "#, options: .regularExpression) != nil
            },
            "the bytes read of the file's size: \(run.drawn.debugDescription)")
        // The last thing drawn erases the line: the cursor ends at the start of a clean row.
        #expect(run.drawn.hasSuffix("\r" + clear), "\(run.drawn.suffix(200).debugDescription)")
    }

    @Test func pagesAreCountedOnTheLine() async throws {
        let server = try LoopbackHTTPServer()
        let data = try Data(contentsOf: try CLI.fixture("appnet-posts.json"))
        let posts = try JSONReader().read(data)["data"]?.arrayValue ?? []
        try #require(posts.count == 20)
        for number in 1...4 {
            let next: JSONValue = number < 4 ? .string(server.url("/page\(number + 1)").absoluteString) : .null
            let body: JSONValue = ["data": .array(Array(posts[(number - 1) * 5..<number * 5])), "meta": ["next": next]]
            server.route("/page\(number)", .json(body.serialized()))
        }

        let run = try await runOnATerminal([
            "populate", "--schema", schema, "--db", db, "--entity", "Post", "--paginate", "next-url:meta.next",
            server.url("/page1").absoluteString,
        ])

        #expect(run.status == 0, "\(run)")
        // Each page's last call is drawn, however quick the page.
        let draws = run.drawn.split(separator: "\r", omittingEmptySubsequences: true)
        for number in 1...4 {
            #expect(draws.contains { $0.hasPrefix("page \(number), ") }, "\(run.drawn.debugDescription)")
        }
        #expect(draws.contains { $0.contains(", 20 records, ") }, "\(run.drawn.debugDescription)")
        #expect(run.drawn.hasSuffix("\r\u{1B}[K"))
    }

    @Test func theSameRunInAPipeDrawsNothing() async throws {
        let file = try await largeResponse(Self.postCount)

        let result = try await CLI.run(
            ["populate", "--schema", schema, "--db", db, "--entity", "Post", file], in: directory.url)

        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Populated \(Self.postCount) Post records"), "\(result)")
        #expect(result.stderrData.isEmpty, "\(result.stderr.debugDescription)")
    }

    @Test func quietAndJSONDrawNothingOnATerminal() async throws {
        let file = try directory.write("small.json", #"{"data": [{"id": "1", "text": "one"}]}"#)
        for flag in ["--quiet", "--json"] {
            let run = try await runOnATerminal(
                ["populate", "--schema", schema, "--db", db, "--entity", "Post", flag, file])
            #expect(run.status == 0, "\(run)")
            #expect(run.drawn.isEmpty, "\(flag): \(run.drawn.debugDescription)")
        }
    }
}
