import Foundation
import TestSupport
import Testing
import WebRecord

/// `Scripts/reference_import.py`, the hand-written Python reference the benchmark times
/// `webrecord populate` against, stores the same records and values as WebRecord: the
/// benchmark's ratios compare the same work.
///
/// Both import the benchmark's generated App.net stream (200 posts, from `webrecord-bench
/// --phase generate`). WebRecord's store is read with `webrecord export`, the reference's with
/// python3's `sqlite3`. For each entity the two must hold the same set of keys, and each record
/// the same values after this normalization, where the two layouts legitimately differ:
///
/// - **Dates** compare as instants: WebRecord stores ISO-8601 UTC with milliseconds
///   (`2012-11-21T02:33:42.000000000Z`), the reference keeps the response's text
///   (`2012-11-21T02:33:42Z`). Both are parsed; a date either side cannot parse stays text, so
///   it cannot match a parsed one.
/// - **CoverImage** is identified by its user on both sides. The response's `cover_image` has
///   no `id`, so WebRecord's `id` of it is null (checked) and the reference keys the table by
///   the user's id; the records are matched by `user`, and `User.coverImage`, which WebRecord
///   exports as null (a destination without a key), is left out.
/// - **Inverse relationships** the reference does not store (`User.posts`, `User.counts`,
///   `Post.source`) are derived from its tables (the posts whose `user` is the user, the
///   counts and the source keyed by the user or post) and compared with WebRecord's.
///
/// Everything else (texts, integers, keys, to-ones as the destination's key) must be equal as
/// stored. The reference's second run on the same response (its re-import) must leave its
/// store exactly as the first run did.
@Suite(.enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with sqlite3"))
struct ReferenceImportTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let schema = packageRoot.appendingPathComponent("Schemas/AppNet.json").path
    static let script = packageRoot.appendingPathComponent("Scripts/reference_import.py").path
    static let entities = ["Post", "User", "Counts", "Source", "CoverImage"]
    static let posts = 200

    /// Prints the reference's store as one JSON object: each table's rows, as objects by column.
    static let dumpScript = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.row_factory = sqlite3.Row
        tables = ("Post", "User", "Counts", "Source", "CoverImage")
        print(json.dumps({t: [dict(row) for row in db.execute(f"SELECT * FROM {t}")] for t in tables}))
        """

    /// Records by entity, then by key (as text), then values by name.
    typealias Records = [String: [String: [String: JSONValue]]]

    @Test func theReferenceStoresTheSameRecordsAndValuesAsWebRecord() async throws {
        let response = directory.path("posts.json")
        let generate = try await ChildProcess.run(
            try BuiltExecutables.executable("webrecord-bench", besides: Bundle.module),
            ["--phase", "generate", "--schema", Self.schema, "--data", response, "--posts", String(Self.posts)])
        #expect(generate.status == 0, "\(generate)")

        let webRecordStore = directory.path("webrecord.sqlite")
        let populate = try await CLI.run([
            "populate", "--schema", Self.schema, "--db", webRecordStore, "--entity", "Post", "--quiet", response,
        ])
        #expect(populate.status == 0, "\(populate)")
        var webRecord: Records = [:]
        for entity in Self.entities {
            let export = try await CLI.run([
                "export", "--schema", Self.schema, "--db", webRecordStore, "--entity", entity,
            ])
            #expect(export.status == 0, "\(export)")
            webRecord[entity] = try Self.webRecordRecords(entity, export: JSONReader().read(export.stdoutData))
        }

        let pythonStore = directory.path("reference.sqlite")
        let firstRun = try await Self.runReference(response, pythonStore)
        let firstDump = try await Self.dump(pythonStore)
        let secondRun = try await Self.runReference(response, pythonStore)
        let secondDump = try await Self.dump(pythonStore)
        #expect(firstDump == secondDump, "the reference's re-import changed its store")
        let reference = try Self.referenceRecords(firstDump)

        // 200 posts and their sources; 10 users, each with counts and a cover image.
        #expect(webRecord["Post"]?.count == Self.posts)
        #expect(webRecord["Source"]?.count == Self.posts)
        let userCount = webRecord["User"]?.count ?? 0
        #expect(userCount > 1)
        #expect(webRecord["Counts"]?.count == userCount)
        #expect(webRecord["CoverImage"]?.count == userCount)
        let recordCount = webRecord.values.reduce(0) { $0 + $1.count }
        #expect(firstRun == "records=\(recordCount)")
        #expect(secondRun == "records=\(recordCount)")

        for entity in Self.entities {
            let ours = webRecord[entity] ?? [:]
            let theirs = reference[entity] ?? [:]
            #expect(Set(ours.keys) == Set(theirs.keys), "\(entity): the keys differ")
            var mismatches: [String] = []
            for (key, values) in ours.sorted(by: { $0.key < $1.key }) where theirs[key] != values {
                mismatches.append("\(entity) \(key): WebRecord \(values), reference \(theirs[key] ?? [:])")
            }
            let differing = mismatches.count
            #expect(
                differing == 0,
                "\(entity): \(differing) records differ, first:\n\(mismatches.prefix(3).joined(separator: "\n"))")
        }
    }

    // MARK: - The two stores, normalized

    /// An entity's records from `webrecord export`, keyed as described above.
    static func webRecordRecords(_ entity: String, export: JSONValue) throws -> [String: [String: JSONValue]] {
        var records: [String: [String: JSONValue]] = [:]
        for element in export.arrayValue ?? [] {
            guard let object = element.objectValue else { continue }
            var values: [String: JSONValue] = [:]
            for key in object.keys { values[key] = object[key] }
            if entity == "CoverImage" {
                #expect(values.removeValue(forKey: "id") == .null, "a cover image got an id: \(values)")
            }
            if entity == "User" { values["coverImage"] = nil }
            normalizeDate(&values)
            records[try key(entity, values)] = values
        }
        return records
    }

    /// The reference's tables, with the inverse relationships WebRecord keeps derived from them.
    static func referenceRecords(_ dump: JSONValue) throws -> Records {
        func rows(_ table: String) -> [[String: JSONValue]] {
            (dump[table]?.arrayValue ?? []).compactMap { row in
                row.objectValue.map { object in
                    Dictionary(uniqueKeysWithValues: object.keys.map { ($0, object[$0] ?? .null) })
                }
            }
        }
        let posts = rows("Post")
        let sourceKeys = Set(rows("Source").compactMap { $0["post"]?.stringValue })
        let countsKeys = Set(rows("Counts").compactMap { $0["user"]?.stringValue })
        var postsByUser: [String: [String]] = [:]
        for post in posts {
            if let user = post["user"]?.stringValue, let id = post["id"]?.stringValue {
                postsByUser[user, default: []].append(id)
            }
        }
        var records: Records = [:]
        for entity in entities {
            for var values in rows(entity) {
                switch entity {
                case "Post":
                    let id = values["id"]?.stringValue ?? ""
                    values["source"] = sourceKeys.contains(id) ? .string(id) : .null
                case "User":
                    let id = values["id"]?.stringValue ?? ""
                    // WebRecord exports an unordered to-many ascending by the destination's key.
                    values["posts"] = .array((postsByUser[id] ?? []).sorted().map { .string($0) })
                    values["counts"] = countsKeys.contains(id) ? .string(id) : .null
                default: break
                }
                normalizeDate(&values)
                records[entity, default: [:]][try key(entity, values)] = values
            }
        }
        return records
    }

    /// The key a record is matched by: its primary key, or for a cover image its user's.
    static func key(_ entity: String, _ values: [String: JSONValue]) throws -> String {
        let name =
            switch entity {
            case "Counts", "CoverImage": "user"
            case "Source": "post"
            default: "id"
            }
        return try #require(values[name]?.stringValue, "\(entity) without a \(name): \(values)")
    }

    /// `date` as seconds since 1970, when it parses as ISO-8601 with or without fractions.
    static func normalizeDate(_ values: inout [String: JSONValue]) {
        guard let text = values["date"]?.stringValue else { return }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime]
            date = formatter.date(from: text)
        }
        if let date { values["date"] = .double(date.timeIntervalSince1970) }
    }

    // MARK: - Running the reference

    /// Runs the reference and returns the `records=N` part of its `RESULT` line.
    static func runReference(_ response: String, _ store: String) async throws -> String {
        let result = try await ChildProcess.run(
            try ChildProcess.onPath("python3"), [script, response, store])
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stdoutLines.last { $0.hasPrefix("RESULT ") }, "\(result)")
        #expect(line.contains("seconds="), "\(line)")
        return String(try #require(line.split(separator: " ").first { $0.hasPrefix("records=") }))
    }

    /// The reference's store, as ``dumpScript`` prints it.
    static func dump(_ store: String) async throws -> JSONValue {
        let result = try await ChildProcess.python(dumpScript, [store]).wait()
        #expect(result.status == 0, "\(result)")
        return try JSONReader().read(result.stdoutData)
    }
}
