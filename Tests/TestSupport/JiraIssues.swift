import Foundation
import WebRecord

/// A Jira-shaped tracker's search page (`Tests/WebRecordTests/Fixtures/jira/`): each issue's
/// values live under `fields`, and wherever an issue names another (a sub-task's parent, a
/// parent's sub-tasks, a link's other end) it nests a short copy of it, `{id, key, fields:
/// {summary, status}}`, without the issue type that picks the sub-entity. In the order served,
/// some short copies come before their issue's full copy and some after, at depths 2 and 3 and
/// in to-many lists; reversed, each comes on the other side.
public enum JiraIssues {
    /// The fixture folder, read from the checkout.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("WebRecordTests/Fixtures/jira")

    /// The schema file.
    public static var schemaURL: URL { directory.appendingPathComponent("jira-schema.json") }

    /// The schema.
    public static func schema() throws -> Schema {
        try Schema(contentsOf: schemaURL)
    }

    /// The issues in the order a response gives them.
    public enum Order: String, CaseIterable, Sendable, CustomStringConvertible {
        /// As the server served them: PRJ-1's full copy first, its sub-task's short copy inside it.
        case asServed
        /// Reversed: every short copy is on the other side of its issue's full copy.
        case reversed

        public var description: String { rawValue }
    }

    /// The issues of the page, in `order`.
    public static func issues(_ order: Order) throws -> [JSONValue] {
        let page = try JSONReader().read(Data(contentsOf: directory.appendingPathComponent("jira-issues.json")))
        let issues = page["issues"]?.arrayValue ?? []
        return order == .reversed ? issues.reversed() : issues
    }

    /// A search page holding `issues`, the `startAt`-th first, of `total`.
    public static func page(_ issues: [JSONValue], startAt: Int = 0, total: Int? = nil) -> JSONValue {
        [
            "startAt": .integer(Int64(startAt)), "maxResults": .integer(Int64(max(issues.count, 1))),
            "total": .integer(Int64(total ?? issues.count)), "issues": .array(issues),
        ]
    }

    /// How a page is populated.
    public enum Way: CustomStringConvertible, Sendable {
        case whole
        /// Streamed, in batches of about that many bytes (1: one record a batch).
        case streamed(batchBytes: Int)
        /// As pages of that many issues, one response each, in one store.
        case pages(size: Int)

        public var description: String {
            switch self {
            case .whole: "whole"
            case .streamed(let bytes): "streamed in batches of \(bytes) bytes"
            case .pages(let size): "in pages of \(size)"
            }
        }

        public static let all: [Way] = [
            .whole, .streamed(batchBytes: 1), .streamed(batchBytes: 1_500), .streamed(batchBytes: 1 << 20),
            .pages(size: 1), .pages(size: 2), .pages(size: 3),
        ]
    }

    /// Populates `issues` into `store` the given way; the results of each response.
    public static func populate(
        _ issues: [JSONValue], into store: RecordStore, way: Way, options: PopulationOptions = PopulationOptions()
    ) async throws -> [PopulationResult] {
        switch way {
        case .whole:
            return [try await store.populate(JiraIssues.page(issues), entity: "Issue", options: options)]
        case .streamed(let batchBytes):
            let data = Data(JiraIssues.page(issues).serialized().utf8)
            return [
                try await store.database.populate(
                    streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                    },
                    entity: "Issue", options: options)
            ]
        case .pages(let size):
            var results: [PopulationResult] = []
            for start in stride(from: 0, to: issues.count, by: size) {
                let chunk = Array(issues[start..<min(start + size, issues.count)])
                results.append(
                    try await store.populate(
                        JiraIssues.page(chunk, startAt: start, total: issues.count), entity: "Issue", options: options))
            }
            return results
        }
    }

    /// What a store holds, one line per issue, link and status, in key order: every value the
    /// full copies give, and every relationship.
    public static func facts(in store: RecordStore) throws -> [String] {
        func date(_ record: Record, _ name: String) -> String {
            guard let value = record[name] as Date? else { return "-" }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: value)
        }
        var lines: [String] = []
        for issue in try store.fetch("Issue", orderBy: [.ascending("id")]) {
            let points = issue.jsonValue("storyPoints")?.doubleValue.map { "\($0)" } ?? "-"
            let status = issue.related("status").map { "\($0["id"] as String? ?? "?") \($0["name"] as String? ?? "-")" }
            let subtasks = issue.relatedRecords("subtasks").map { $0["id"] as String? ?? "?" }
            let links = issue.relatedRecords("links").map { link in
                "\(link["id"] as String? ?? "?") \(link["name"] as String? ?? "-")>"
                    + (link.related("outwardIssue")?["id"] as String? ?? "-")
            }
            lines.append(
                [
                    "\(issue["id"] as String? ?? "?") \(issue.entity.name) \(issue["issueKey"] as String? ?? "-")",
                    issue["summary"] as String? ?? "-", issue["details"] as String? ?? "-",
                    "created \(date(issue, "created"))", "updated \(date(issue, "updated"))",
                    "due \(date(issue, "dueDate"))", "points \(points)", "status \(status ?? "-")",
                    "parent \(issue.related("parent")?["id"] as String? ?? "-")",
                    "subtasks \(subtasks.joined(separator: ","))", "links \(links.joined(separator: ","))",
                ].joined(separator: " | "))
        }
        for link in try store.fetch("IssueLink", orderBy: [.ascending("id")]) {
            lines.append(
                "link \(link["id"] as String? ?? "?") of \(link.related("issue")?["id"] as String? ?? "-")")
        }
        for status in try store.fetch("Status", orderBy: [.ascending("id")]) {
            lines.append("status \(status["id"] as String? ?? "?") \(status["name"] as String? ?? "-")")
        }
        return lines
    }

    /// ``facts(in:)`` of a store that holds the page, whatever the order, the batches or the pages.
    public static let expectedFacts = [
        "10001 Story PRJ-1 | Checkout accepts saved cards | As a returning buyer I pay with a saved card. | created 2024-01-02T09:15:00.000Z | updated 2024-01-20T16:40:12.250Z | due 2024-02-01T00:00:00.000Z | points 8.0 | status 3 In Progress | parent - | subtasks 10002 | links 20001 Blocks>10003",
        "10002 Subtask PRJ-2 | Store the card token | Keep the processor's token, never the number. | created 2024-01-03T11:00:00.000Z | updated 2024-01-18T08:05:30.500Z | due 2024-01-25T00:00:00.000Z | points - | status 1 To Do | parent 10001 | subtasks  | links ",
        "10003 Story PRJ-3 | Card vault service | A service that holds card tokens. | created 2023-12-11T14:30:00.000Z | updated 2024-01-15T10:00:00.000Z | due 2024-01-31T00:00:00.000Z | points 13.0 | status 3 In Progress | parent - | subtasks  | links 20002 Relates>10004",
        "10004 Story PRJ-4 | Audit log for card access | Every read of a token is logged. | created 2024-01-05T07:45:00.000Z | updated 2024-01-19T12:00:00.000Z | due 2024-03-01T00:00:00.000Z | points 3.0 | status 1 To Do | parent - | subtasks  | links 20003 Relates>10001",
        "link 20001 of 10001",
        "link 20002 of 10003",
        "link 20003 of 10004",
        "status 1 To Do",
        "status 3 In Progress",
    ]
}
