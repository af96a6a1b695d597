import Foundation
import Testing

@testable import WebRecord

/// A primary-key injection is given its parent with every occurrence met so far merged, as one
/// batch gives it, when the parent's earlier occurrences fall in earlier batches of a streamed
/// population (Docs/Population.md, "Large responses").
@Suite struct StreamedInjectionParentTests {
    static let schema: Schema = {
        do {
            return try Schema(
                json: """
                    {
                      "version": 1,
                      "entities": {
                        "Post": {
                          "primaryKey": "id",
                          "keyPathForResponseObject": "data",
                          "attributes": { "id": { "type": "integer" }, "slug": { "type": "string" } },
                          "relationships": {
                            "comments": { "destination": "Comment", "toMany": true, "inverse": "post" }
                          }
                        },
                        "Comment": {
                          "primaryKey": "id",
                          "attributes": { "id": { "type": "string" }, "body": { "type": "string" } },
                          "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
                        }
                      }
                    }
                    """, fileName: "InjectionParents.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    /// A comment's key made of its post's slug, or its key as first given, and its body.
    static let options: PopulationOptions = {
        var options = PopulationOptions()
        options.primaryKeyInjection = { entity, dictionary, parent in
            guard entity.name == "Comment", let parent, let body = dictionary["body"]?.stringValue else { return nil }
            let slug = parent.dictionary["slug"]?.stringValue ?? "none"
            return .string("\(slug)/\(parent.primaryKeyValue?.serialized() ?? "?")/\(body)")
        }
        return options
    }()

    /// `list` populated into an empty store: whole, or streamed in batches of `batchBytes` from
    /// a reader that cannot be opened twice.
    static func outcome(_ list: String, batchBytes: Int?) async throws -> PopulatedStore {
        try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": []}"#, schema: schema, entity: "Post", batchBytes: batchBytes,
            options: options)
    }

    @Test(arguments: [
        // The slug only an earlier occurrence gives.
        (#"[{"id": 1, "slug": "a"}, {"id": 1, "comments": [{"body": "x"}]}]"#, "'a/1/x'"),
        // A later slug wins; the key as first given.
        (#"[{"id": "01", "slug": "a"}, {"id": 1, "slug": "b", "comments": [{"body": "x"}]}]"#, #"'b/"01"/x'"#),
        // Three occurrences, the slug in the first, comments in the last two.
        (
            #"[{"id": 1, "slug": "a"}, {"id": 1, "comments": [{"body": "x"}]}, {"id": 2}, {"id": 1, "comments": [{"body": "y"}]}]"#,
            "'a/1/y'"
        ),
        // A parent that gives no slug anywhere.
        (#"[{"id": 1}, {"id": 1, "comments": [{"body": "x"}]}]"#, "'none/1/x'"),
    ])
    func anInjectionGetsTheParentAsOneBatchGivesIt(list: String, comment: String) async throws {
        let whole = try await Self.outcome(list, batchBytes: nil)
        #expect(whole.failure == nil && whole.rows.contains { $0.contains(comment) }, "\(whole)")
        for batchBytes in [1, 40, 1 << 20] {
            let streamed = try await Self.outcome(list, batchBytes: batchBytes)
            #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
        }
    }

    /// A parent met again past the capacity of what is kept: a stream that can be read again is
    /// read again whole, and ends as the whole response; one that cannot is refused, saying
    /// why, and writes nothing.
    @Test func aParentPastTheCapacityIsReadAgainWhole() async throws {
        // Past the capacity, a post met again some batches later.
        let past = InjectionParents.defaultCapacity + 1
        let posts = (1...past + 400).map { #"{"id": \#($0), "slug": "s\#($0)"}"# }
        let list =
            "[" + posts.joined(separator: ", ")
            + #", {"id": \#(past), "comments": [{"body": "x"}]}, {"id": 1, "comments": [{"body": "y"}]}]"#
        let whole = try await Self.outcome(list, batchBytes: nil)
        #expect(
            whole.rows.contains { $0.contains("'s\(past)/\(past)/x'") }
                && whole.rows.contains { $0.contains("'s1/1/y'") })
        let once = try await Self.outcome(list, batchBytes: 4096)
        #expect(
            once.failure?.contains(
                "Post(\(past)) is the parent of a primary-key injection in several parts of the response") == true,
            "\(once.failure ?? "stored")")
        #expect(once.rows.count == 1, "only the layout: nothing written")
        // The same post given again as is past the capacity: nothing to read again.
        let asIs = #"{"id": \#(past), "slug": "s\#(past)", "comments": [{"body": "x"}]}"#
        let again = "[" + asIs + ", " + posts.joined(separator: ", ") + ", " + asIs + "]"
        let againWhole = try await Self.outcome(again, batchBytes: nil)
        let againOnce = try await Self.outcome(again, batchBytes: 4096)
        #expect(againOnce == againWhole && againOnce.failure == nil, "\(againOnce.failure ?? "")")
        let readAgain = try await PopulatedStore.populating(
            #"{"data": \#(list)}"#, after: #"{"data": []}"#, schema: Self.schema, entity: "Post", batchBytes: 4096,
            options: Self.options, reopens: true)
        #expect(readAgain.rows == whole.rows && readAgain.failure == nil)
    }

    /// Past its capacity the store of parents only remembers a record, by hashes: one given
    /// again as is needs nothing more, one given otherwise is no longer known.
    @Test func parentsPastTheCapacityAreOnlyRemembered() throws {
        let parents = InjectionParents(capacity: 1)
        let first = ParentIdentity.key(ScopedKey(scope: 0, key: .single(.integer(1))))
        let second = ParentIdentity.key(ScopedKey(scope: 0, key: .single(.integer(2))))
        let owned = ParentIdentity.under(first, relationship: 3)
        parents.note(first, dictionary: ["slug": "a"], primaryKeyValue: .integer(1)) { $0 }
        parents.note(second, dictionary: ["slug": "b"], primaryKeyValue: .integer(2)) { $0 }
        guard case .kept(let dictionary, let key)? = parents.earlier(first) else {
            Issue.record("the first record is kept")
            return
        }
        #expect(dictionary == ["slug": "a"] && key == .integer(1))
        guard case .remembered(let hash)? = parents.earlier(second) else {
            Issue.record("the second record is only remembered")
            return
        }
        let expected: JSONObject = ["slug": "b"]
        #expect(hash == expected.hashValue)
        #expect(parents.earlier(owned) == nil)
        parents.note(first, dictionary: ["body": "x"], primaryKeyValue: nil) {
            OccurrenceMerge.mergedObjects($0, ["body": "x"])
        }
        guard case .kept(let merged, let firstKey)? = parents.earlier(first) else {
            Issue.record("the first record is still kept")
            return
        }
        #expect(merged == ["slug": "a", "body": "x"] && firstKey == .integer(1))
        // As is: still known. Otherwise: no longer.
        parents.note(second, dictionary: ["slug": "b"], primaryKeyValue: .integer(2)) { $0 }
        guard case .remembered(let same)? = parents.earlier(second), same != nil else {
            Issue.record("a record given again as is is still known")
            return
        }
        parents.note(second, dictionary: ["slug": "c"], primaryKeyValue: .integer(2)) { $0 }
        guard case .remembered(nil)? = parents.earlier(second) else {
            Issue.record("a record given otherwise is no longer known")
            return
        }
    }

    /// A parent identified by its owner: what earlier batches gave it is merged too.
    @Test func aParentIdentifiedByItsOwnerGetsWhatEarlierBatchesGave() async throws {
        let schema = try Schema(
            json: """
                {
                  "version": 1,
                  "entities": {
                    "User": {
                      "primaryKey": "id",
                      "keyPathForResponseObject": "data",
                      "attributes": { "id": { "type": "integer" } },
                      "relationships": { "profile": { "destination": "Profile", "inverse": "user" } }
                    },
                    "Profile": {
                      "primaryKey": "user",
                      "attributes": { "bio": { "type": "string" } },
                      "relationships": {
                        "user": { "destination": "User", "inverse": "profile" },
                        "links": { "destination": "Link", "toMany": true, "inverse": "profile" }
                      }
                    },
                    "Link": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "string" }, "body": { "type": "string" } },
                      "relationships": { "profile": { "destination": "Profile", "inverse": "links" } }
                    }
                  }
                }
                """, fileName: "OwnedParents.json")
        var options = PopulationOptions()
        options.primaryKeyInjection = { entity, dictionary, parent in
            guard entity.name == "Link", let body = dictionary["body"]?.stringValue else { return nil }
            return .string("\(parent?.dictionary["bio"]?.stringValue ?? "none")/\(body)")
        }
        let text = #"{"data": [{"id": 1, "profile": {"bio": "a"}}, {"id": 1, "profile": {"links": [{"body": "x"}]}}]}"#
        var dumps: [[String]] = []
        for batchBytes in [nil, 1, 40] as [Int?] {
            let outcome = try await PopulatedStore.populating(
                text, after: #"{"data": []}"#, schema: schema, entity: "User", batchBytes: batchBytes, options: options)
            dumps.append(outcome.rows)
        }
        #expect(dumps[0].contains { $0.contains("'a/x'") }, "\(dumps[0])")
        #expect(dumps[1] == dumps[0] && dumps[2] == dumps[0], "\(dumps)")
    }
}
