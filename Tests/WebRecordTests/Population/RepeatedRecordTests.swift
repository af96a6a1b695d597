import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record named twice in one response keeps every value it was given (DESIGN §3.7): the
/// occurrences are merged per attribute and per relationship after key paths are read, so a
/// short copy nested under the same key as the full one (Jira's `fields`) hides nothing, in
/// either order, at every depth, within a batch and across batches, whatever the page size.
@Suite struct RepeatedRecordTests {
    typealias Way = JiraIssues.Way

    static let cases: [(JiraIssues.Order, Way)] = JiraIssues.Order.allCases.flatMap { order in
        Way.all.map { (order, $0) }
    }

    /// The Jira page, with short copies before and after full ones, as a sub-task's parent, in
    /// a parent's sub-tasks and as a link's other end: every issue keeps its dates, due date,
    /// story points, description and sub-entity. Before the merge per attribute, the short
    /// copy's `fields` replaced the full copy's whole, and PRJ-1 lost them.
    @Test(arguments: cases)
    func aShortCopyNeverHidesWhatTheFullIssueGave(order: JiraIssues.Order, way: Way) async throws {
        let test = try RecordingStore(schema: JiraIssues.schema())
        let results = try await JiraIssues.populate(JiraIssues.issues(order), into: test.store, way: way)
        #expect(try JiraIssues.facts(in: test.store) == JiraIssues.expectedFacts, "\(order), \(way)")
        for result in results {
            #expect(!result.debugger.contains(.typeMismatch), "\(result.debugger.errors)")
            #expect(!result.debugger.contains(.missingPrimaryKey), "\(result.debugger.errors)")
        }
        // A later sync of the same page changes nothing.
        let again = try await JiraIssues.populate(JiraIssues.issues(order), into: test.store, way: way)
        #expect(again.allSatisfy { $0.changes.inserted == 0 && $0.changes.updated == 0 }, "\(order), \(way)")
        #expect(try JiraIssues.facts(in: test.store) == JiraIssues.expectedFacts)
    }

    /// A later sync whose full copies change values the short copies lack stores the changes,
    /// whatever the order and the page size. It dropped them where the short copy came last.
    @Test(arguments: cases)
    func aLaterSyncKeepsTheChangesTheFullCopiesGive(order: JiraIssues.Order, way: Way) async throws {
        let test = try RecordingStore(schema: JiraIssues.schema())
        _ = try await JiraIssues.populate(JiraIssues.issues(order), into: test.store, way: .whole)
        let changed = try JiraIssues.issues(order).map { issue -> JSONValue in
            guard case .object(var object) = issue, case .object(var fields)? = object["fields"] else { return issue }
            fields["duedate"] = "2024-06-30"
            if fields["customfield_10016"] != nil { fields["customfield_10016"] = 21 }
            object["fields"] = .object(fields)
            return .object(object)
        }
        _ = try await JiraIssues.populate(changed, into: test.store, way: way)
        let expected = JiraIssues.expectedFacts.map { line in
            line.replacingOccurrences(
                of: #"due 20\d\d-\d\d-\d\dT00:00:00.000Z"#, with: "due 2024-06-30T00:00:00.000Z",
                options: .regularExpression
            ).replacingOccurrences(of: #"points \d+\.0"#, with: "points 21.0", options: .regularExpression)
        }
        #expect(try JiraIssues.facts(in: test.store) == expected, "\(order), \(way)")
    }

    // MARK: - Other instances

    /// An attribute's candidate keys are read before merging: a later occurrence that gives
    /// the value under another candidate wins, in either order. Merged by top-level keys, the
    /// dictionary held both, and the first candidate, the earlier value, won.
    @Test(arguments: [Way.whole, .streamed(batchBytes: 1), .pages(size: 1)])
    func aValueUnderAnotherCandidateKeyIsTheLaterValue(way: Way) async throws {
        for (first, second, expected) in [
            (#"{"fields": {"customfield_10016": 8}}"#, #"{"storyPoints": 5}"#, 5.0),
            (#"{"storyPoints": 5}"#, #"{"fields": {"customfield_10016": 8}}"#, 8.0),
        ] {
            let test = try RecordingStore(schema: JiraIssues.schema())
            let issues = try [first, second].map { text -> JSONValue in
                var object = try #require(try json(text).objectValue)
                object["id"] = "10001"
                object["key"] = "PRJ-1"
                var fields = object["fields"]?.objectValue ?? JSONObject()
                fields["issuetype"] = ["name": "Story"]
                object["fields"] = .object(fields)
                return .object(object)
            }
            _ = try await JiraIssues.populate(issues, into: test.store, way: way)
            let issue = try #require(try test.store.fetchOne("Issue", primaryKey: "10001"))
            #expect(issue.jsonValue("storyPoints")?.doubleValue == expected, "\(way): \(first) then \(second)")
        }
        // At the top level too: `issueKey` is read from `key`, then from `issueKey`.
        for (first, second, expected) in [("key", "issueKey", "PRJ-9"), ("issueKey", "key", "PRJ-9")] {
            let test = try RecordingStore(schema: JiraIssues.schema())
            let issues: [JSONValue] = [["id": "10001", first: "PRJ-1"], ["id": "10001", second: "PRJ-9"]]
            _ = try await JiraIssues.populate(issues, into: test.store, way: way)
            let issue = try #require(try test.store.fetchOne("Issue", primaryKey: "10001"))
            #expect(issue["issueKey"] as String? == expected, "\(way): \(first) then \(second)")
        }
    }

    /// An invalid later value under a key path never replaces a valid earlier one, and says so;
    /// a valid later one wins, with a debug message naming the key path. The invalid later
    /// date replaced the whole `fields`, and the stored date was lost.
    @Test func anInvalidLaterValueUnderAKeyPathKeepsTheEarlierOne() async throws {
        let test = try RecordingStore(schema: JiraIssues.schema())
        let issues = try JiraIssues.issues(.asServed)
        let later = try json(
            #"{"id": "10003", "key": "PRJ-3", "fields": {"summary": "Card vault", "created": "soon"}}"#)
        let (result, messages) = try await withLogging(.debug) {
            try test.store.populate(JiraIssues.page(issues + [later]), entity: "Issue")
        }
        let issue = try #require(try test.store.fetchOne("Issue", primaryKey: "10003"))
        #expect(issue["summary"] as String? == "Card vault")
        #expect((issue["created"] as Date?) == ISO8601DateFormatter().date(from: "2023-12-11T14:30:00Z"))
        #expect(issue.jsonValue("storyPoints")?.doubleValue == 13)
        let mismatch = try #require(result.debugger.errors.first { $0.code == .typeMismatch })
        #expect(mismatch.property == "created")
        #expect(mismatch.keyPath == "fields.created")
        #expect(mismatch.description.contains("valid earlier value, which is kept"), "\(mismatch)")
        #expect(
            messages.contains { $0.contains("'fields.summary' changes from") && $0.contains("the later value wins") },
            "\(messages)")
    }

    /// A short copy after the full one and before a record nested in the same issue whose key
    /// the injection closure reads from the parent's dictionary: the parent's merged dictionary
    /// still holds what the full copy gave under `fields`. The short copy's `fields` replaced
    /// it, the injection found no project, and the link was not stored. (A hook sees the
    /// occurrences of its batch or page: the two copies are in one here.)
    @Test(arguments: [Way.whole, .streamed(batchBytes: 1 << 20)])
    func theInjectionClosureSeesEveryValueTheParentWasGiven(way: Way) async throws {
        let test = try RecordingStore(schema: JiraIssues.schema())
        var options = PopulationOptions()
        options.primaryKeyInjection = { entity, dictionary, parent in
            guard entity.name == "IssueLink", dictionary["id"] == nil,
                let project = parent?.dictionary["fields"]?.value(atKeyPath: "project.key")?.stringValue,
                let type = JSONValue.object(dictionary).value(atKeyPath: "type.name")?.stringValue
            else { return nil }
            return .string("\(project)-\(type)")
        }
        let full = try json(
            #"{"id": "10001", "key": "PRJ-1", "fields": {"summary": "S", "created": "2024-01-02T09:15:00.000+0000", "project": {"key": "PRJ"}}}"#
        )
        let short = try json(
            #"{"id": "10001", "key": "PRJ-1", "fields": {"summary": "S", "issuelinks": [{"type": {"name": "Clones"}, "outwardIssue": {"id": "10002", "key": "PRJ-2"}}]}}"#
        )
        let results = try await JiraIssues.populate([full, short], into: test.store, way: way, options: options)
        #expect(results.allSatisfy { !$0.debugger.contains(.missingPrimaryKey) }, "\(results.map(\.debugger.errors))")
        let issue = try #require(try test.store.fetchOne("Issue", primaryKey: "10001"))
        #expect(issue.relatedRecords("links").map(\.primaryKeyValue) == ["PRJ-Clones"], "\(way)")
        #expect(issue["created"] as Date? != nil)
    }

    /// A short copy without the issue type that picks the sub-entity keeps the sub-entity the
    /// full copy chose, and its attributes (a missing discriminator keeps the record's kind).
    @Test(arguments: [Way.whole, .streamed(batchBytes: 1), .pages(size: 1)])
    func aShortCopyWithoutTheDiscriminatorKeepsTheSubentityAndItsValues(way: Way) async throws {
        for order in JiraIssues.Order.allCases {
            let test = try RecordingStore(schema: JiraIssues.schema())
            let full = try #require(try JiraIssues.issues(.asServed).first)
            let short = try json(
                #"{"id": "10001", "key": "PRJ-1", "fields": {"summary": "Checkout accepts saved cards"}}"#)
            _ = try await JiraIssues.populate(
                order == .asServed ? [full, short] : [short, full], into: test.store, way: way)
            let issue = try #require(try test.store.fetchOne("Issue", primaryKey: "10001"))
            #expect(issue.entity.name == "Story", "\(way), \(order)")
            #expect(issue.jsonValue("storyPoints")?.doubleValue == 8, "\(way), \(order)")
            #expect(issue["details"] as String? == "As a returning buyer I pay with a saved card.", "\(way), \(order)")
        }
    }
}
