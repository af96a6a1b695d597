import Foundation
import TestSupport
import Testing
import WebRecord

/// The runnable examples under `Examples/`, run as a user runs them: the built binaries, their
/// output and their exit status. The expected counts come from the recorded responses the
/// examples serve, copied in `Fixtures/mmrecord/`.
@Suite struct ExamplesTests {
    // MARK: - JSON:API

    @Test func jsonAPIExamplePopulatesCompoundPagesAndWritesNothingTheSecondTime() async throws {
        let run = try await ExampleProcess.run("jsonapi-example")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(
            run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [
                "Pages:",
                "  page 1: 1, 2; Article +2, Person +2, Comment +2",
                "  page 2: 3; Article +1, Person +0, Comment +1",
                "",
                "Articles:",
                "  1 JSON:API paints my bikeshed! — by Dan Gebhardt — \"First!\" by Yehuda Katz; "
                    + "\"I like XML better\" by Dan Gebhardt",
                "  2 Sideloading, or compound documents — by Dan Gebhardt — no comments",
                "  3 An article with no author yet — by no author — \"Who wrote this?\" by nobody",
                "  Yehuda Katz wrote 0 article(s)",
                "  Dan Gebhardt wrote 2 article(s)",
                "",
                "Again: 0 inserted, 0 updated, 8 unchanged", "",
            ], "\(run)")
    }

    // MARK: - App.net

    @Test func appNetExamplePagesThroughTheStreamAndReadsTheGraphBack() async throws {
        let stream = try AppNetFixture()
        let run = try await ExampleProcess.run("appnet-example")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")

        #expect(run.lines.contains("\(stream.pageCount) pages, \(stream.posts.count) posts"), "\(run)")
        #expect(run.lines.filter { $0.hasPrefix("  page ") }.count == stream.pageCount, "\(run)")
        #expect(
            run.lines.contains(
                "In the store: \(stream.posts.count) posts, \(stream.userCount) users, \(stream.userCount) counts"),
            "\(run)")

        // The first page alone, then every page, each after the min_id of the page before.
        let requests = run.lines.filter { $0.hasPrefix("  GET /stream/0/posts/stream/global") }
        #expect(requests.count == 1 + stream.pageCount, "\(run)")
        #expect(requests.allSatisfy { $0.hasSuffix("[Bearer dummy-token]") }, "\(run)")
        let cursors = requests.map { line in
            line.split(separator: "=").dropFirst().first.map { String($0.prefix { $0.isNumber }) }
        }
        #expect(cursors == [nil, nil] + stream.beforeIDs, "\(run)")

        // Every post comes back from the store with its user's name and follower count.
        for post in stream.posts {
            let prefix = "  \(post.id)  \(post.userName) (\(post.followers) followers): "
            #expect(run.lines.contains { $0.hasPrefix(prefix) }, "no line starting \(prefix)")
        }
    }

    @Test func appNetExampleKeepsItsStoreWithDB() async throws {
        let stream = try AppNetFixture()
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("appnet.sqlite").path

        let first = try await ExampleProcess.run("appnet-example", ["--db", path])
        #expect(first.status == 0, "\(first)")
        #expect(FileManager.default.fileExists(atPath: path))
        let second = try await ExampleProcess.run("appnet-example", ["--db", path])
        #expect(second.status == 0, "\(second)")

        // The second run finds every record already stored: nothing new, nothing duplicated.
        let pages = second.lines.filter { $0.hasPrefix("  page ") }
        #expect(pages.count == stream.pageCount, "\(second)")
        #expect(pages.allSatisfy { $0.contains("records 0 new, 0 updated") }, "\(second)")
        #expect(
            second.lines.contains(
                "In the store: \(stream.posts.count) posts, \(stream.userCount) users, \(stream.userCount) counts"),
            "\(second)")
    }

    // MARK: - Foursquare

    @Test func foursquareExampleListsVenuesAndTheSharedCategory() async throws {
        let search = try FoursquareFixture()
        let run = try await ExampleProcess.run("foursquare-example")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")

        #expect(
            run.lines.contains { $0.hasPrefix("GET /v2/venues/search?") && $0.contains("oauth_token=dummy-token") },
            "\(run)")
        #expect(run.lines.contains { $0.hasPrefix("\(search.venues.count) venues; ") }, "\(run)")
        #expect(
            run.lines.contains(
                "In the store: \(search.venues.count) venues, \(search.categoryCount) categories, \(search.venues.count) locations"
            ),
            "\(run)")

        // One line per venue, in response order.
        let venueLines = run.lines.filter { $0.range(of: #"^ *[0-9]+\. "#, options: .regularExpression) != nil }
        #expect(venueLines.count == search.venues.count, "\(run)")
        for (line, venue) in zip(venueLines, search.venues) {
            #expect(line.contains(". \(venue.name) — "), "\(line) is not \(venue.name)")
        }

        // The category listed by the most venues is stored once, with the last of them.
        let shared = search.mostSharedCategory
        let owner = try #require(shared.venues.last)
        #expect(run.lines.contains("One category, \(shared.venues.count) venues:"), "\(run)")
        #expect(
            run.lines.contains(
                "  The store keeps 1 \"\(shared.name)\" category, and it belongs to one venue: \(owner)."),
            "\(run)")
        for (line, venue) in zip(venueLines, search.venues) where shared.venues.contains(venue.name) {
            let expected = venue.name == owner ? "— \(shared.name) —" : "— no category —"
            #expect(line.contains(expected), "\(line) lacks \(expected)")
        }
    }

    // MARK: - Both

    @Test(arguments: ["appnet-example", "foursquare-example"])
    func unknownArgumentsAreAUsageError(example: String) async throws {
        let run = try await ExampleProcess.run(example, ["--no-such-flag"])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.hasPrefix("usage: \(example)"), "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
    }
}

// MARK: - The recorded responses

/// What the App.net example should find in posts.json, served five posts a page.
private struct AppNetFixture {
    struct Post {
        var id: Int64
        var userName: String
        var followers: Int64
    }

    /// Newest first.
    var posts: [Post]
    var userCount: Int
    let pageSize = 5

    init() throws {
        let response = try readFixture("appnet-posts.json")
        let data = response["data"]?.arrayValue ?? []
        posts = data.compactMap { post in
            guard let id = post["id"]?.stringValue.flatMap({ Int64($0) }), let user = post["user"] else { return nil }
            return Post(
                id: id, userName: user["name"]?.stringValue ?? "?",
                followers: user.value(atKeyPath: "counts.followers")?.int64Value ?? 0)
        }.sorted { $0.id > $1.id }
        userCount = Set(data.compactMap { $0.value(atKeyPath: "user.id")?.stringValue }).count
    }

    var pageCount: Int { (posts.count + pageSize - 1) / pageSize }

    /// The `before_id` of each page after the first: the oldest post of the page before.
    var beforeIDs: [String?] {
        stride(from: pageSize, to: posts.count, by: pageSize).map { String(posts[$0 - 1].id) }
    }
}

/// What the Foursquare example should find in venues.json.
private struct FoursquareFixture {
    struct Venue {
        var name: String
        var categoryIDs: [String]
    }

    /// In response order.
    var venues: [Venue]
    var categoryNames: [String: String]

    init() throws {
        let response = try readFixture("foursquare-venues.json")
        let venues = response.value(atKeyPath: "response.venues")?.arrayValue ?? []
        self.venues = venues.map { venue in
            Venue(
                name: venue["name"]?.stringValue ?? "?",
                categoryIDs: (venue["categories"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        }
        var names: [String: String] = [:]
        for category in venues.flatMap({ $0["categories"]?.arrayValue ?? [] }) {
            if let id = category["id"]?.stringValue { names[id] = category["name"]?.stringValue ?? "?" }
        }
        categoryNames = names
    }

    var categoryCount: Int { categoryNames.count }

    /// The category the most venues list, and those venues in response order.
    var mostSharedCategory: (name: String, venues: [String]) {
        let listed = Dictionary(grouping: venues.flatMap { venue in venue.categoryIDs.map { ($0, venue.name) } }) {
            $0.0
        }
        let (id, pairs) = listed.max { $0.value.count < $1.value.count } ?? ("", [])
        return (categoryNames[id] ?? "?", pairs.map(\.1))
    }
}

private struct MissingFixture: Error, CustomStringConvertible {
    var name: String
    var description: String { "no fixture named \(name)" }
}

private func readFixture(_ name: String) throws -> JSONValue {
    guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/mmrecord") else {
        throw MissingFixture(name: name)
    }
    return try JSONReader().read(Data(contentsOf: url))
}

// MARK: - Running an example

/// What one run of an example printed and how it exited.
private struct ExampleRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Runs a built example binary as a child process.
private enum ExampleProcess {
    /// Runs example `name` with `arguments`; output goes to files, so it never blocks the child.
    static func run(_ name: String, _ arguments: [String] = [], timeout: TimeInterval = MachineLoad.hangTimeout)
        async throws -> ExampleRun
    {
        let executable = try BuiltExecutables.executable(name, besides: Bundle.module)
        let output = try await ChildProcess.run(executable, arguments, timeout: timeout)
        return ExampleRun(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }
}
