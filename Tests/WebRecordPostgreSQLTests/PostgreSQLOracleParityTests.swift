import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// The re-syncs of `OracleSyncTests` (the WebRecordTests target: seeded random sequences of
/// responses of posts, their authors, tags, labels, comments and stats) populated into a
/// SQLite store and a PostgreSQL one, each sync whole or streamed, with and without orphan
/// deletion. Docs/PostgreSQL.md: a PostgreSQL store "populates with the same semantics", and
/// "both stores give the same rows the same `_id`s in the same order" (only a deleted last
/// `_id` is not given again). So after every sync both stores must hold the same records, by
/// key, with the same links and the same list order, the same rows (`_id`s ranked, as
/// ``PostgreSQLStores/content(of:rows:)`` ranks them), and the sync must report the same
/// counts, or fail on both.
///
/// Besides sequences like the model's (a few posts, small keys), the generator makes ones that
/// reach what PostgreSQL does its own way: many records in a response (its lookups, `COPY`
/// and `UPDATE`s over arrays, 5,000 rows to a statement; its 8 MB batches against SQLite's
/// 2 MB), comments moving between posts, long texts, keys that need escaping in an array or
/// a `COPY` (quotes, backslashes, `NULL`, braces, blanks, tabs, line ends, unicode), integers
/// at the ends of 64 bits, decimals of 38 digits and doubles at the ends of their range.
@Suite(.serialized, .timeLimit(MachineLoad.hangTimeLimit))
struct PostgreSQLOracleParityTests {
    // MARK: - The schema

    /// `OracleSyncTests.schemaJSON`, with a decimal and a double on posts and a 64-bit integer
    /// on authors.
    static let schemaJSON = #"""
        {"entities": {
          "Post": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
              "score": {"type": "decimal"}, "ratio": {"type": "double"}},
            "relationships": {
              "author": {"destination": "Author", "inverse": "posts"},
              "tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts"},
              "labels": {"destination": "Tag", "toMany": true, "merge": "union", "inverse": "labeled"},
              "comments": {"destination": "Comment", "toMany": true, "ordered": true, "inverse": "post"},
              "stats": {"destination": "Stats", "inverse": "post"}}},
          "Author": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}, "age": {"type": "integer"},
              "big": {"type": "integer"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "author"}}},
          "Tag": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "label": {"type": "string"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "tags"},
              "labeled": {"destination": "Post", "toMany": true, "inverse": "labels"}}},
          "Comment": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "body": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "comments"}}},
          "Stats": {"primaryKey": "post",
            "attributes": {"views": {"type": "integer"}},
            "relationships": {"post": {"destination": "Post", "inverse": "stats"}}}
        }}
        """#

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "OracleParity.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    // MARK: - Responses

    /// A member of a post's dictionary: its JSON text, or a list's elements' texts.
    enum Value: Equatable {
        case raw(String)
        case list([String])

        var json: String {
            switch self {
            case .raw(let text): text
            case .list(let elements): "[" + elements.joined(separator: ", ") + "]"
            }
        }
    }

    struct Member: Equatable {
        var name: String
        var value: Value
    }

    struct Post: Equatable {
        var members: [Member]

        var json: String { "{" + members.map { "\"\($0.name)\": \($0.value.json)" }.joined(separator: ", ") + "}" }
    }

    struct Sync: Equatable {
        var posts: [Post]
        var deleteOrphans = false

        var json: String { "[" + posts.map(\.json).joined(separator: ",\n") + "]" }
    }

    /// `text` as a JSON string.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    // MARK: - Generating sequences

    /// What a sequence draws from.
    struct Profile {
        var name: String
        var posts = 5
        var authors = 3
        var comments = 6
        var postsPerSync = 1...6
        var syncs = 3...5
        var listLength = 4
        var orphans = 25
        var tags = ["t1", "t2", "7", "8"]
        var strings = ["a", "b", "c"]
        var integers = ["1", "2", "3"]
        var decimals = ["1", "2.5", "0.1"]
        var doubles = ["1.5", "0.25", "-2"]
        /// Lists that repeat a member, and `null` for a united list: what the model leaves out.
        var repeats = 0

        /// Sequences like `OracleSyncTests`'.
        static let small = Profile(name: "small")

        /// Keys and values that need escaping or sit at the edges of their types.
        static let edges = Profile(
            name: "edges", posts: 6, authors: 4, comments: 8,
            tags: [
                "NULL", "null", "", " ", " padded ", "a,b", "{x}", "\"quoted\"", "back\\slash", "\\N", "tab\there",
                "line\nend", "cr\rlf", "é", "e\u{301}", "😀", "～", "\u{7f}\u{1}", "7", "007", "7.0", "-0",
                String(repeating: "long", count: 600), String(repeating: "é😀", count: 700),
            ],
            strings: [
                "", "NULL", "\\.", "\\N", "a\tb\nc\rd", "\"{,}\"", "é", "e\u{301}", "\u{1}\u{1f}\u{7f}",
                String(repeating: "x", count: 9000), String(repeating: "ü\\t", count: 4000),
            ],
            integers: [
                "9223372036854775807", "-9223372036854775808", "0", "-1", "9007199254740993",
                "\"9223372036854775807\"", "\"-9223372036854775808\"", "1e3", "9223372036854775806",
            ],
            decimals: [
                "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
                "0.00000000000000000000000000000000000001", "1e127", "-1e-128", "1.50", "-0", "0.0", "\"3.14\"",
                "123456789012345678901234567890.12345678", "9223372036854775808", "1E+5", "0.1",
            ],
            doubles: [
                "1e300", "-1e300", "5e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "-0.0", "0.1",
                "123456789.123456789", "9007199254740993", "1e-7",
            ],
            repeats: 10)

        /// Many records a response, comments moving between many posts.
        static let many = Profile(
            name: "many", posts: 300, authors: 40, comments: 400, postsPerSync: 80...260, syncs: 3...4,
            listLength: 7, orphans: 30, tags: (0..<60).map { "tag\($0)" } + ["7", "8", "é", "NULL"],
            strings: ["a", "b", String(repeating: "m", count: 300), "é"], repeats: 5)
    }

    struct Generator {
        var random: SeededRandom
        let profile: Profile

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        /// A key as JSON: a number, or now and then its text.
        mutating func key(_ bound: Int) -> String {
            let key = 1 + below(bound)
            return chance(20) ? "\"\(key)\"" : String(key)
        }

        /// Absent (nil), `null`, or one of `values` (JSON texts).
        mutating func field(_ values: [String], absent: Int = 30, null: Int = 15) -> String? {
            let roll = below(100)
            if roll < absent { return nil }
            if roll < absent + null { return "null" }
            return pick(values)
        }

        mutating func text(absent: Int = 30, null: Int = 15) -> String? {
            field(profile.strings.map(PostgreSQLOracleParityTests.string), absent: absent, null: null)
        }

        mutating func tag(objects: Bool) -> String {
            let id = pick(profile.tags)
            let key =
                !id.isEmpty && id.allSatisfy({ $0.isASCII && $0.isNumber }) && chance(40)
                ? id : PostgreSQLOracleParityTests.string(id)
            guard objects, chance(60) else { return key }
            var members = ["\"id\": \(key)"]
            if let label = text(absent: 20) { members.append("\"label\": \(label)") }
            return "{" + members.joined(separator: ", ") + "}"
        }

        /// `count` elements from `make`, distinct unless the profile repeats one now and then.
        mutating func list(_ count: Int, _ make: (inout Generator) -> String) -> [String] {
            var made: [String] = []
            for _ in 0..<count {
                let element = make(&self)
                if !made.contains(element) || chance(profile.repeats) { made.append(element) }
            }
            return made
        }

        mutating func post() -> Post {
            var members = [Member(name: "id", value: .raw(key(profile.posts)))]
            func add(_ name: String, _ text: String?) {
                if let text { members.append(Member(name: name, value: .raw(text))) }
            }
            add("title", text())
            add("score", field(profile.decimals, absent: 50))
            add("ratio", field(profile.doubles, absent: 50))
            let author = below(100)
            if author < 30 {
            } else if author < 40 {
                add("author", "null")
            } else if author < 65 {
                add("author", key(profile.authors))
            } else {
                var fields: [String] = []
                if author < 92 { fields.append("\"id\": \(key(profile.authors))") }
                if let name = text() { fields.append("\"name\": \(name)") }
                if let age = field(profile.integers) { fields.append("\"age\": \(age)") }
                if let big = field(profile.integers) { fields.append("\"big\": \(big)") }
                add("author", "{" + fields.joined(separator: ", ") + "}")
            }
            let tags = below(100)
            if tags < 40 {
            } else if tags < 50 {
                add("tags", "null")
            } else {
                let count = below(profile.listLength)
                members.append(Member(name: "tags", value: .list(list(count) { $0.tag(objects: true) })))
            }
            if chance(45) {
                if chance(profile.repeats) {
                    add("labels", "null")
                } else {
                    let count = below(3)
                    members.append(Member(name: "labels", value: .list(list(count) { $0.tag(objects: false) })))
                }
            }
            let comments = below(100)
            if comments < 45 {
            } else if comments < 55 {
                add("comments", "null")
            } else {
                let count = below(profile.listLength)
                let elements = list(count) { generator in
                    let id = generator.key(generator.profile.comments)
                    guard generator.chance(60) else { return id }
                    var fields = ["\"id\": \(id)"]
                    if let body = generator.text(absent: 20) { fields.append("\"body\": \(body)") }
                    return "{" + fields.joined(separator: ", ") + "}"
                }
                members.append(Member(name: "comments", value: .list(elements)))
            }
            let stats = below(100)
            if stats < 50 {
            } else if stats < 65 {
                add("stats", "null")
            } else {
                let views = field(profile.integers, absent: 20).map { "\"views\": \($0)" } ?? ""
                add("stats", "{\(views)}")
            }
            return Post(members: members)
        }

        mutating func syncs() -> [Sync] {
            (0..<(profile.syncs.lowerBound + below(profile.syncs.count))).map { _ in
                var sync = Sync(posts: [], deleteOrphans: chance(profile.orphans))
                if !(sync.deleteOrphans && chance(10)) {
                    let count = profile.postsPerSync.lowerBound + below(profile.postsPerSync.count)
                    sync.posts = (0..<count).map { _ in post() }
                }
                return sync
            }
        }
    }

    // MARK: - Running a sequence

    /// How each sync is populated: whole, or streamed in batches of `batchBytes` (nil: the
    /// store's own size, 2 MB on SQLite and 8 MB on PostgreSQL).
    enum Run: CustomStringConvertible, CaseIterable {
        case whole
        case streamedInBytes
        case streamedIn300Bytes
        case streamedAtStoreSize

        var batchBytes: Int?? {
            switch self {
            case .whole: nil
            case .streamedInBytes: .some(1)
            case .streamedIn300Bytes: .some(300)
            case .streamedAtStoreSize: .some(nil)
            }
        }

        var description: String {
            switch self {
            case .whole: "whole"
            case .streamedInBytes: "streamed in batches of 1 byte"
            case .streamedIn300Bytes: "streamed in batches of 300 bytes"
            case .streamedAtStoreSize: "streamed in each store's own batches"
            }
        }
    }

    /// `sync` populated into `store` as `run` says: the counts by entity, or the failure.
    static func populate(_ store: some RecordStorage, _ sync: Sync, run: Run) async -> Result<
        [String: ChangeCounts], WebRecordError
    > {
        var options = PopulationOptions()
        if sync.deleteOrphans { options.deleteOrphans = .all }
        let text = sync.json
        do {
            let population = ResponsePopulation(store: store, options: options)
            if case .some(let batchBytes) = run.batchBytes {
                let data = Data(text.utf8)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                }
                return .success(try await population.populate(streaming: open, entity: "Post").changesByEntity)
            }
            return .success(try await population.populate(try JSONReader().read(text), entity: "Post").changesByEntity)
        } catch {
            return .failure(error)
        }
    }

    /// The store's records by key, one line each, sorted: every attribute as exact text, each
    /// to-one as its destination's key, each list as its members' keys (ordered ones by
    /// position, then key), with the positions.
    static func records(_ rows: (String) throws -> [[DatabaseValue]]) throws -> [String] {
        func text(_ row: [DatabaseValue]) -> String { row.map(exactText).joined(separator: " | ") }
        var lines: [String] = []
        for row in try rows(#"SELECT "id", "name", "age", "big" FROM "Author""#) {
            lines.append("Author " + text(row))
        }
        for row in try rows(
            #"SELECT p."id", p."title", p."score", p."ratio", a."id" FROM "Post" p LEFT JOIN "Author" a ON a."_id" = p."author""#
        ) {
            lines.append("Post " + text(row))
        }
        for row in try rows(#"SELECT "id", "label" FROM "Tag""#) { lines.append("Tag " + text(row)) }
        for row in try rows(
            #"SELECT c."id", c."body", p."id", c."_position_post" FROM "Comment" c LEFT JOIN "Post" p ON p."_id" = c."post""#
        ) {
            lines.append("Comment " + text(row))
        }
        for row in try rows(
            #"SELECT p."id", s."views" FROM "Stats" s LEFT JOIN "Post" p ON p."_id" = s."post""#)
        {
            lines.append("Stats " + text(row))
        }
        /// Each owner's members, as one line: by position (none first), then by key.
        func lists(_ name: String, _ sql: String) throws {
            var byOwner: [String: [(position: Int64?, member: String)]] = [:]
            for row in try rows(sql) where row.count == 3 {
                var position: Int64?
                if case .integer(let value) = row[2] { position = value }
                byOwner[exactText(row[0]), default: []].append((position, exactText(row[1])))
            }
            for (owner, members) in byOwner {
                let sorted = members.sorted { left, right in
                    let (a, b) = (left.position ?? Int64.min, right.position ?? Int64.min)
                    if (left.position == nil) != (right.position == nil) { return left.position == nil }
                    return a != b ? a < b : left.member < right.member
                }
                lines.append(
                    "\(name) of Post \(owner): "
                        + sorted.map { "\($0.member)@\($0.position.map(String.init) ?? "-")" }.joined(separator: ", "))
            }
        }
        try lists(
            "tags",
            #"SELECT p."id", t."id", j."position" FROM "_Post_tags" j JOIN "Post" p ON p."_id" = j."owner" JOIN "Tag" t ON t."_id" = j."target""#
        )
        try lists(
            "labels",
            #"SELECT p."id", t."id", NULL FROM "_Post_labels" j JOIN "Post" p ON p."_id" = j."owner" JOIN "Tag" t ON t."_id" = j."target""#
        )
        try lists(
            "comments",
            #"SELECT p."id", c."id", c."_position_post" FROM "Comment" c JOIN "Post" p ON p."_id" = c."post""#)
        return lines.sorted()
    }

    /// ``records(_:)`` of a SQLite store.
    static func records(of database: SQLiteDatabase) throws -> [String] {
        try database.read { connection in try records { try connection.rows($0) } }
    }

    /// ``records(_:)`` of a PostgreSQL store.
    static func records(of database: PostgreSQLDatabase) throws -> [String] {
        try database.withConnection { connection in try records { try connection.rows($0) } }
    }

    /// What one store holds after a sync, and what the sync reported.
    struct Outcome: Equatable {
        var records: [String]
        var rows: [String]
        var counts: [String: ChangeCounts]
        var failed: Bool
    }

    /// The lines of `mine` not in `other`, each prefixed.
    static func only(_ mine: [String], notIn other: [String], _ prefix: String) -> [String] {
        let others = Set(other)
        return mine.filter { !others.contains($0) }.map { prefix + String($0.prefix(300)) }
    }

    /// What differs between PostgreSQL's outcome and SQLite's, or nil.
    static func difference(_ postgreSQL: Outcome, _ sqlite: Outcome) -> String? {
        guard postgreSQL != sqlite else { return nil }
        var lines: [String] = []
        if postgreSQL.failed != sqlite.failed {
            lines.append("failed: PostgreSQL \(postgreSQL.failed), SQLite \(sqlite.failed)")
        }
        for entity in Set(postgreSQL.counts.keys).union(sqlite.counts.keys).sorted()
        where postgreSQL.counts[entity] != sqlite.counts[entity] {
            lines.append(
                "counts of \(entity): PostgreSQL \(postgreSQL.counts[entity].map { "\($0)" } ?? "none"), "
                    + "SQLite \(sqlite.counts[entity].map { "\($0)" } ?? "none")")
        }
        lines += only(postgreSQL.records, notIn: sqlite.records, "  PostgreSQL holds: ")
        lines += only(sqlite.records, notIn: postgreSQL.records, "  SQLite holds:     ")
        if postgreSQL.records == sqlite.records {
            lines += only(postgreSQL.rows, notIn: sqlite.rows, "  PostgreSQL row: ")
            lines += only(sqlite.rows, notIn: postgreSQL.rows, "  SQLite row:     ")
        }
        return lines.joined(separator: "\n")
    }

    /// A PostgreSQL store the runs share, emptied before each (its `_id`s restarted, as a new
    /// store's).
    final class SharedStore {
        let database: PostgreSQLDatabase
        let tables: [String]
        /// The syncs populated into SQLite, and how many of those failed there: a comparison
        /// of stores that both refused every sync would compare nothing.
        var populations = 0
        var failures = 0

        init() throws {
            database = try PostgreSQLStores.postgreSQL(PostgreSQLOracleParityTests.schema)
            tables = database.layout.tables.map(\.name) + database.layout.joinTables.map(\.name)
        }

        func emptied() throws -> PostgreSQLDatabase {
            let list = tables.map { "\"\($0)\"" }.joined(separator: ", ")
            try database.write { connection in _ = try connection.execute("TRUNCATE \(list) RESTART IDENTITY") }
            return database
        }
    }

    /// The first sync after which the two stores differ, described, or nil.
    static func firstDifference(_ syncs: [Sync], run: Run, postgreSQLStore: SharedStore) async throws -> String? {
        let sqlite = try PostgreSQLStores.sqlite(schema)
        let postgreSQL = try postgreSQLStore.emptied()
        for (index, sync) in syncs.enumerated() {
            let expected = await populate(sqlite, sync, run: run)
            let result = await populate(postgreSQL, sync, run: run)
            postgreSQLStore.populations += 1
            if case .failure = expected { postgreSQLStore.failures += 1 }
            let sqliteOutcome = Outcome(
                records: try records(of: sqlite),
                rows: PostgreSQLAdversarialParityTests.lines(try PostgreSQLStores.content(of: sqlite)),
                counts: (try? expected.get()) ?? [:], failed: (try? expected.get()) == nil)
            let outcome = Outcome(
                records: try records(of: postgreSQL),
                rows: PostgreSQLAdversarialParityTests.lines(try PostgreSQLStores.content(of: postgreSQL)),
                counts: (try? result.get()) ?? [:], failed: (try? result.get()) == nil)
            if let difference = difference(outcome, sqliteOutcome) {
                var failures = ""
                if case .failure(let error) = result { failures += "\nPostgreSQL failed: \(error.message)" }
                if case .failure(let error) = expected { failures += "\nSQLite failed: \(error.message)" }
                let history = syncs[...index].map {
                    ($0.deleteOrphans ? "orphans " : "") + String($0.json.prefix(4000))
                }
                return "\(run), after sync \(index + 1) of\n" + history.joined(separator: "\n") + "\n" + difference
                    + failures
            }
        }
        return nil
    }

    // MARK: - Shrinking

    /// Smaller variants of a sequence: a sync left out, orphan deletion off, a post left out,
    /// a member of a post left out, an element of a list left out.
    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in syncs.indices where syncs[index].deleteOrphans {
            var plain = syncs
            plain[index].deleteOrphans = false
            variants.append(plain)
        }
        for index in syncs.indices {
            let posts = syncs[index].posts
            // Halves first, for the long responses.
            if posts.count > 3 {
                for half in [posts[..<(posts.count / 2)], posts[(posts.count / 2)...]] {
                    var fewer = syncs
                    fewer[index].posts = Array(half)
                    variants.append(fewer)
                }
            }
            for post in posts.indices {
                var fewer = syncs
                fewer[index].posts.remove(at: post)
                variants.append(fewer)
            }
            for post in posts.indices {
                for member in posts[post].members.indices.dropFirst() {
                    var fewer = syncs
                    fewer[index].posts[post].members.remove(at: member)
                    variants.append(fewer)
                    if case .list(let elements) = posts[post].members[member].value {
                        for element in elements.indices {
                            var shorter = syncs
                            shorter[index].posts[post].members[member].value = .list(
                                elements.enumerated().filter { $0.offset != element }.map(\.element))
                            variants.append(shorter)
                        }
                    }
                }
            }
        }
        return variants
    }

    /// `syncs` made as small as they can be while the stores still differ, within `budget`
    /// runs.
    static func shrink(_ syncs: [Sync], run: Run, store: SharedStore, budget: Int = 400) async throws -> [Sync] {
        var current = syncs
        var tries = 0
        var progress = true
        while progress && tries < budget {
            progress = false
            for variant in smaller(current) {
                tries += 1
                if tries > budget { break }
                if try await firstDifference(variant, run: run, postgreSQLStore: store) != nil {
                    current = variant
                    progress = true
                    break
                }
            }
        }
        return current
    }

    // MARK: - The randomized comparison

    /// The comparison itself: a sync the PostgreSQL store misses is a difference, in the rows,
    /// the links and the counts.
    @Test("The comparison finds a record, a link and a count that only one store has")
    func comparisonFindsADifference() async throws {
        let store = try SharedStore()
        let sync = Sync(posts: [
            Post(members: [
                Member(name: "id", value: .raw("1")), Member(name: "comments", value: .list(["2", "3"])),
            ])
        ])
        #expect(try await Self.firstDifference([sync], run: .whole, postgreSQLStore: store) == nil)
        let sqlite = try PostgreSQLStores.sqlite(Self.schema)
        let postgreSQL = try store.emptied()
        let counts = try #require(try? await Self.populate(sqlite, sync, run: .whole).get())
        let records = try Self.records(of: sqlite)
        let difference = Self.difference(
            Outcome(records: try Self.records(of: postgreSQL), rows: [], counts: [:], failed: false),
            Outcome(records: records, rows: [], counts: counts, failed: false))
        #expect(difference?.contains("SQLite holds:     comments of Post 1: 2@0, 3@1") == true, "\(difference ?? "")")
        #expect(difference?.contains("counts of Comment") == true, "\(difference ?? "")")
    }

    /// Every seed of `seeds` with `profile`, each sequence populated whole and in one streamed
    /// way (turn by turn); the first few differences shrunk and reported.
    static func compare(_ profile: Profile, seeds: ClosedRange<Int>, runs: (Int) -> [Run]) async throws {
        let store = try SharedStore()
        var failures = 0
        var reported = 0
        for seed in seeds {
            var generator = Generator(random: SeededRandom(seed: UInt64(seed)), profile: profile)
            let syncs = generator.syncs()
            for run in runs(seed) {
                guard try await firstDifference(syncs, run: run, postgreSQLStore: store) != nil else { continue }
                failures += 1
                guard reported < 3 else { continue }
                reported += 1
                let minimal = try await shrink(syncs, run: run, store: store, budget: profile.posts > 50 ? 60 : 400)
                let report =
                    try await firstDifference(minimal, run: run, postgreSQLStore: store) ?? "(no longer differs)"
                Issue.record("\(profile.name) seed \(seed), shrunk:\n\(report)")
            }
        }
        #expect(failures == 0, "\(failures) runs of \(profile.name) sequences end differently on the two stores")
        #expect(
            store.failures * 5 < store.populations,
            "\(store.failures) of \(store.populations) syncs failed on SQLite: too few compare stored records")
    }

    @Test("Random re-syncs like the model's end the same on PostgreSQL as on SQLite, whole and streamed")
    func smallSequences() async throws {
        try await Self.compare(.small, seeds: 1...140) { seed in
            [.whole, [.streamedInBytes, .streamedIn300Bytes, .streamedAtStoreSize][seed % 3]]
        }
    }

    @Test("Random re-syncs of keys and values at the edges end the same on PostgreSQL as on SQLite")
    func edgeSequences() async throws {
        try await Self.compare(.edges, seeds: 1...70) { seed in
            [.whole, [.streamedInBytes, .streamedIn300Bytes, .streamedAtStoreSize][seed % 3]]
        }
    }

    @Test("Random re-syncs of hundreds of posts whose comments move end the same on PostgreSQL as on SQLite")
    func manySequences() async throws {
        try await Self.compare(.many, seeds: 1...6) { seed in
            [.whole, [.streamedIn300Bytes, .streamedAtStoreSize][seed % 2]]
        }
    }
}

extension PostgreSQLOracleParityTests {
    /// `count` posts, each with `perPost` comments, the comments shifted by `shift` posts and
    /// their bodies and the posts' titles marked with `mark`: a response of megabytes, whose
    /// re-sync moves every comment and updates every row.
    static func large(count: Int, perPost: Int, shift: Int, mark: String, orphansFrom: Int? = nil) -> Sync {
        let padding = String(repeating: "p", count: 1800)
        let posts = (0..<count).map { index -> Post in
            let comments = (0..<perPost).map { offset in
                "{\"id\": \(((index + shift) % count) * perPost + offset + 1), \"body\": \"\(mark)\(offset)\"}"
            }
            return Post(members: [
                Member(name: "id", value: .raw(String(index + 1))),
                Member(name: "title", value: .raw(string(mark + padding))),
                Member(name: "score", value: .raw("\(index).\(mark.count)")),
                Member(
                    name: "author", value: .raw("{\"id\": \(index % 50 + 1), \"big\": \(Int64.max - Int64(index))}")),
                Member(name: "tags", value: .list(["\"t\(index % 7)\"", "\"t\((index + shift) % 11)\""])),
                Member(name: "comments", value: .list(comments)),
            ])
        }
        return Sync(posts: orphansFrom.map { Array(posts[$0...]) } ?? posts, deleteOrphans: orphansFrom != nil)
    }

    /// More than 5,000 rows of a table updated in one population (PostgreSQL's `UPDATE`s take
    /// 5,000 rows each), a response larger than SQLite's 2 MB batches and smaller than
    /// PostgreSQL's 8 MB ones, comments moving between posts, then orphans deleted.
    @Test("Re-syncs of megabytes that move and update thousands of rows end the same on PostgreSQL as on SQLite")
    func largeSequences() async throws {
        let syncs = [
            Self.large(count: 1_300, perPost: 5, shift: 0, mark: "a"),
            Self.large(count: 1_300, perPost: 5, shift: 1, mark: "bb"),
            Self.large(count: 1_300, perPost: 5, shift: 7, mark: "c", orphansFrom: 600),
        ]
        #expect(syncs[0].json.utf8.count > 2 << 20)
        let store = try SharedStore()
        for run in [Run.whole, .streamedAtStoreSize] {
            let difference = try await Self.firstDifference(syncs, run: run, postgreSQLStore: store)
            #expect(difference == nil, "\(difference.map { String($0.suffix(6000)) } ?? "")")
        }
        #expect(store.failures == 0 && store.populations == 6)
    }
}
