import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// Re-syncs checked against a reference model of the documented semantics (DESIGN §3 and
/// Docs/Population.md, "The decisions" and "Decisions where the design is silent"): random,
/// seeded sequences of responses, each populated into one store, after each of which the whole
/// store and the result's counts must be what the model says.
///
/// The model covers: integer and string keys given in another JSON form (`"5"` for 5, `7` for
/// `"7"`); attributes absent (kept), null (cleared) and given; records repeated within a response
/// (applied in turn, later values winning); a to-one given as a nested object, a key, `null`, or
/// a nested object without its key (the record related there so far, decision 6); an ordered
/// many-to-many under `replace` (`[]` and `null` empty it); an unordered many-to-many under
/// `union` given only as keys (only adds); an ordered one-to-many under `replace` whose members
/// move between owners (the claim named last wins, and only an owner's last list in a response is
/// wired); a record identified by its owner (created,
/// updated, deleted by its owner's `null` and with its owner, and kept as it was when the same
/// sync names it again after that `null`); orphan deletion of the requested
/// entity. It leaves out what the documents leave open or where they disagree: `null` for a
/// `union` list, a nested object without its key where nothing is related, repeated members in
/// one list, and, in the counts, whether a record whose only change is the order of a list,
/// a member another record took while it gave no list, or its owner-identified record counts as
/// updated (there only inserted, deleted and the sum of updated and unchanged are compared).
@Suite("Population: re-syncs against a reference model")
struct OracleSyncTests {
    // MARK: - The schema

    static let schemaJSON = #"""
        {"entities": {
          "Post": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {
              "author": {"destination": "Author", "inverse": "posts"},
              "tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts"},
              "labels": {"destination": "Tag", "toMany": true, "merge": "union", "inverse": "labeled"},
              "comments": {"destination": "Comment", "toMany": true, "ordered": true, "inverse": "post"},
              "stats": {"destination": "Stats", "inverse": "post"}}},
          "Author": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}, "age": {"type": "integer"}},
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

    static func schema() throws -> Schema { try Schema(json: schemaJSON, fileName: "Oracle.json") }

    static let entities = ["Author", "Comment", "Post", "Stats", "Tag"]

    // MARK: - Responses, as values

    /// A member of a response's dictionary: absent, `null`, or a value.
    enum Field<Value: Equatable>: Equatable {
        case absent
        case null
        case value(Value)
    }

    enum AuthorGiven: Equatable {
        /// A reference by key; `text` writes the key as a JSON string.
        case key(Int, text: Bool)
        /// A nested object, with its key (`id`) or without (`nil`).
        case object(id: Int?, text: Bool, name: Field<String>, age: Field<Int>, ageText: Bool)
    }

    struct TagGiven: Equatable {
        var id: String
        /// Writes a numeric key as a JSON number.
        var number: Bool
        /// `nil`: a reference by key; otherwise an object with this label.
        var label: Field<String>?
    }

    struct CommentGiven: Equatable {
        var id: Int
        var text: Bool
        /// `nil`: a reference by key; otherwise an object with this body.
        var body: Field<String>?
    }

    struct PostGiven: Equatable {
        var id: Int
        var text = false
        var title: Field<String> = .absent
        var author: Field<AuthorGiven> = .absent
        var tags: Field<[TagGiven]> = .absent
        /// Absent (`nil`) or a list of keys; never `null` (see the suite's notes).
        var labels: [TagGiven]?
        var comments: Field<[CommentGiven]> = .absent
        /// Absent, `null`, or an object without a key whose `views` is the field.
        var stats: Field<Field<Int>> = .absent
    }

    struct Sync: Equatable {
        var posts: [PostGiven]
        var deleteOrphans = false
    }

    // MARK: - JSON text

    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    static func json(_ field: Field<String>, _ name: String, into members: inout [String]) {
        switch field {
        case .absent: break
        case .null: members.append("\(quoted(name)): null")
        case .value(let text): members.append("\(quoted(name)): \(quoted(text))")
        }
    }

    static func json(_ field: Field<Int>, _ name: String, text: Bool, into members: inout [String]) {
        switch field {
        case .absent: break
        case .null: members.append("\(quoted(name)): null")
        case .value(let value): members.append("\(quoted(name)): \(text ? quoted(String(value)) : String(value))")
        }
    }

    static func json(_ key: Int, text: Bool) -> String { text ? quoted(String(key)) : String(key) }

    static func json(_ tag: TagGiven) -> String {
        let key = tag.number ? tag.id : quoted(tag.id)
        guard let label = tag.label else { return key }
        var members = ["\"id\": \(key)"]
        json(label, "label", into: &members)
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ comment: CommentGiven) -> String {
        let key = json(comment.id, text: comment.text)
        guard let body = comment.body else { return key }
        var members = ["\"id\": \(key)"]
        json(body, "body", into: &members)
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ author: AuthorGiven) -> String {
        switch author {
        case .key(let key, let text): return json(key, text: text)
        case .object(let id, let text, let name, let age, let ageText):
            var members: [String] = []
            if let id { members.append("\"id\": \(json(id, text: text))") }
            json(name, "name", into: &members)
            json(age, "age", text: ageText, into: &members)
            return "{" + members.joined(separator: ", ") + "}"
        }
    }

    static func json(_ post: PostGiven) -> String {
        var members = ["\"id\": \(json(post.id, text: post.text))"]
        json(post.title, "title", into: &members)
        switch post.author {
        case .absent: break
        case .null: members.append("\"author\": null")
        case .value(let author): members.append("\"author\": \(json(author))")
        }
        switch post.tags {
        case .absent: break
        case .null: members.append("\"tags\": null")
        case .value(let tags): members.append("\"tags\": [" + tags.map { Self.json($0) }.joined(separator: ", ") + "]")
        }
        if let labels = post.labels {
            members.append("\"labels\": [" + labels.map { Self.json($0) }.joined(separator: ", ") + "]")
        }
        switch post.comments {
        case .absent: break
        case .null: members.append("\"comments\": null")
        case .value(let comments):
            members.append("\"comments\": [" + comments.map { Self.json($0) }.joined(separator: ", ") + "]")
        }
        switch post.stats {
        case .absent: break
        case .null: members.append("\"stats\": null")
        case .value(let views):
            var inner: [String] = []
            json(views, "views", text: false, into: &inner)
            members.append("\"stats\": {" + inner.joined(separator: ", ") + "}")
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ sync: Sync) -> String { "[" + sync.posts.map { Self.json($0) }.joined(separator: ", ") + "]" }

    // MARK: - The reference model

    struct AuthorRow: Equatable {
        var name: String?
        var age: Int?
    }

    struct PostRow: Equatable {
        var title: String?
        var author: Int?
        var tags: [String] = []
        var labels: Set<String> = []
        var comments: [Int] = []
    }

    struct CommentRow: Equatable {
        var body: String?
        var post: Int?
        /// The stored position; `nil` when unknown (the owner was deleted, which leaves it to
        /// the store) or cleared (`positionCleared`).
        var position: Int?
        var positionKnown = true
    }

    struct Model: Equatable {
        var authors: [Int: AuthorRow] = [:]
        var posts: [Int: PostRow] = [:]
        var tags: [String: String?] = [:]
        var comments: [Int: CommentRow] = [:]
        var stats: [Int: Int?] = [:]

        /// One line per record, sorted: what the store must hold.
        var lines: [String] {
            func text(_ value: String?) -> String { value.map { "'\($0)'" } ?? "nil" }
            func number(_ value: Int?) -> String { value.map(String.init) ?? "nil" }
            var lines: [String] = []
            for (id, row) in authors { lines.append("Author \(id): name=\(text(row.name)) age=\(number(row.age))") }
            for (id, row) in posts {
                lines.append(
                    "Post \(id): title=\(text(row.title)) author=\(number(row.author)) tags=\(row.tags) "
                        + "labels=\(row.labels.sorted()) comments=\(row.comments)")
            }
            for (id, label) in tags { lines.append("Tag \(id): label=\(text(label))") }
            for (id, row) in comments { lines.append("Comment \(id): body=\(text(row.body)) post=\(number(row.post))") }
            for (id, views) in stats { lines.append("Stats \(id): views=\(number(views))") }
            return lines.sorted()
        }
    }

    /// What one sync names and does, for the counts.
    struct Track {
        var posts: Set<Int> = []
        var authors: Set<Int> = []
        var tags: Set<String> = []
        var comments: Set<Int> = []
        var stats: Set<Int> = []
        /// Posts that gave a comments list, and the members each list gave.
        var givenComments: [Int: Set<Int>] = [:]
        var statsRemoved: Set<Int> = []
        var statsRecreated = false
        /// The values of the stats a post's `null` removed in this sync, before it did.
        var statsBeforeRemoval: [Int: Int?] = [:]
    }

    /// The expected counts of one entity; `split` false when the documents do not decide
    /// between updated and unchanged for some record.
    struct Expected {
        var counts = ChangeCounts()
        var split = true
    }

    /// Applies one top-level occurrence in response order. Returns false when the occurrence
    /// uses something the model leaves out.
    static func apply(
        _ given: PostGiven, to model: inout Model, track: inout Track, wiresComments: Bool = true
    ) -> Bool {
        let id = given.id
        var post = model.posts[id] ?? PostRow()
        track.posts.insert(id)
        switch given.title {
        case .absent: break
        case .null: post.title = nil
        case .value(let title): post.title = title
        }
        switch given.author {
        case .absent: break
        case .null: post.author = nil
        case .value(.key(let key, _)):
            if model.authors[key] == nil { model.authors[key] = AuthorRow() }
            track.authors.insert(key)
            post.author = key
        case .value(.object(let key, _, let name, let age, _)):
            guard let target = key ?? post.author else { return false }
            var author = model.authors[target] ?? AuthorRow()
            switch name {
            case .absent: break
            case .null: author.name = nil
            case .value(let value): author.name = value
            }
            switch age {
            case .absent: break
            case .null: author.age = nil
            case .value(let value): author.age = value
            }
            model.authors[target] = author
            track.authors.insert(target)
            post.author = target
        }
        func tag(_ given: TagGiven, _ model: inout Model, _ track: inout Track) {
            var label = model.tags[given.id] ?? nil
            switch given.label {
            case nil, .absent?: break
            case .null?: label = nil
            case .value(let value)?: label = value
            }
            model.tags[given.id] = .some(label)
            track.tags.insert(given.id)
        }
        switch given.tags {
        case .absent: break
        case .null: post.tags = []
        case .value(let list):
            if Set(list.map(\.id)).count != list.count { return false }
            for element in list { tag(element, &model, &track) }
            post.tags = list.map(\.id)
        }
        if let labels = given.labels {
            if labels.contains(where: { $0.label != nil }) { return false }
            for element in labels { tag(element, &model, &track) }
            post.labels.formUnion(labels.map(\.id))
        }
        var newList: [Int]?
        switch given.comments {
        case .absent: break
        case .null: newList = []
        case .value(let list):
            if Set(list.map(\.id)).count != list.count { return false }
            newList = list.map(\.id)
        }
        if newList != nil && !wiresComments {
            // Docs/Population.md, "A member a list takes from another record and a later
            // occurrence drops": only the owner's last list is wired; the members are named.
            for member in given.comments.list {
                var comment = model.comments[member.id] ?? CommentRow()
                switch member.body {
                case nil, .absent?: break
                case .null?: comment.body = nil
                case .value(let value)?: comment.body = value
                }
                model.comments[member.id] = comment
                track.comments.insert(member.id)
            }
        } else if let newList {
            let list = given.comments.list
            for dropped in post.comments where !newList.contains(dropped) {
                model.comments[dropped]?.post = nil
                model.comments[dropped]?.position = nil
                model.comments[dropped]?.positionKnown = true
            }
            for (index, member) in list.enumerated() {
                var comment = model.comments[member.id] ?? CommentRow()
                switch member.body {
                case nil, .absent?: break
                case .null?: comment.body = nil
                case .value(let value)?: comment.body = value
                }
                if let owner = comment.post, owner != id {
                    model.posts[owner]?.comments.removeAll { $0 == member.id }
                }
                comment.post = id
                comment.position = index
                comment.positionKnown = true
                model.comments[member.id] = comment
                track.comments.insert(member.id)
            }
            post.comments = newList
            track.givenComments[id, default: []].formUnion(newList)
        }
        switch given.stats {
        case .absent: break
        case .null:
            if let removed = model.stats[id] {
                model.stats[id] = nil
                track.statsRemoved.insert(id)
                track.statsBeforeRemoval[id] = removed
            }
        case .value(let views):
            if model.stats[id] == nil {
                if let removed = track.statsBeforeRemoval[id] {
                    // Named again after its post's `null` in the same sync: the deletion a
                    // response's own link starts spares a record the response contains, and the
                    // post is its key, so this is that record, as it was (Docs/Population.md,
                    // "What a response contained is never deleted by its own links either").
                    track.statsRecreated = true
                    model.stats[id] = removed
                } else {
                    model.stats[id] = .some(nil)
                }
            }
            switch views {
            case .absent: break
            case .null: model.stats[id] = .some(nil)
            case .value(let value): model.stats[id] = .some(value)
            }
            track.stats.insert(id)
        }
        model.posts[id] = post
        return true
    }

    /// Applies a whole sync; returns the expected counts by entity, or nil when the sync uses
    /// something the model leaves out.
    static func apply(_ sync: Sync, to model: inout Model) -> [String: Expected]? {
        let before = model
        var track = Track()
        var lastList: [Int: Int] = [:]
        for (index, post) in sync.posts.enumerated() where post.comments != .absent { lastList[post.id] = index }
        for (index, post) in sync.posts.enumerated()
        where !apply(post, to: &model, track: &track, wiresComments: lastList[post.id] == index) {
            return nil
        }
        var expected: [String: Expected] = [:]
        if sync.deleteOrphans {
            for id in model.posts.keys where !track.posts.contains(id) {
                model.posts[id] = nil
                expected["Post", default: Expected()].counts.deleted += 1
                model.stats[id] = nil
                for (key, comment) in model.comments where comment.post == id {
                    model.comments[key]?.post = nil
                    model.comments[key]?.positionKnown = false
                }
            }
        }
        // Authors, tags and comments named: inserted, or updated when their row changed.
        func count<Key: Hashable, Row: Equatable>(
            _ entity: String, _ named: Set<Key>, _ old: [Key: Row], _ new: [Key: Row],
            uncertain: (Row, Row) -> Bool = { _, _ in false }, same: (Row, Row) -> Bool = { $0 == $1 }
        ) {
            var result = expected[entity] ?? Expected()
            for key in named {
                guard let now = new[key] else { continue }
                if let was = old[key] {
                    if uncertain(was, now) {
                        result.split = false
                        result.counts.unchanged += 1
                    } else if same(was, now) {
                        result.counts.unchanged += 1
                    } else {
                        result.counts.updated += 1
                    }
                } else {
                    result.counts.inserted += 1
                }
            }
            expected[entity] = result
        }
        count("Author", track.authors, before.authors, model.authors)
        count("Tag", track.tags, before.tags, model.tags)
        count(
            "Comment", track.comments, before.comments, model.comments,
            uncertain: { was, now in
                !was.positionKnown && was.body == now.body && was.post == now.post
            },
            // A comment a list unlinks (its latest occurrence drops it) counts as its row ends:
            // updated. One whose post goes (orphan deletion, which leaves its position to the
            // store) counts as it was: the delete rule unlinks it.
            same: { was, now in was == now || (now.post == nil && !now.positionKnown && was.body == now.body) })
        // Posts: their row (title, author) and the lists they give.
        var posts = expected["Post"] ?? Expected()
        for id in track.posts {
            guard let now = model.posts[id] else { continue }
            guard let was = before.posts[id] else {
                posts.counts.inserted += 1
                continue
            }
            let gaveComments = track.givenComments[id] != nil
            let changed =
                was.title != now.title || was.author != now.author || Set(was.tags) != Set(now.tags)
                || was.labels != now.labels || (gaveComments && Set(was.comments) != Set(now.comments))

            let undecided =
                was.tags != now.tags || was.comments != now.comments
                || (before.stats[id] == nil) != (model.stats[id] == nil)
            if changed {
                posts.counts.updated += 1
            } else {
                if undecided { posts.split = false }
                posts.counts.unchanged += 1
            }
        }
        expected["Post"] = posts
        // Stats: named through their post; deleted by `null` or with their post.
        var stats = Expected()
        for id in track.stats {
            guard let now = model.stats[id] else { continue }
            if let was = before.stats[id] {
                if track.statsRemoved.contains(id) { continue }
                if was == now { stats.counts.unchanged += 1 } else { stats.counts.updated += 1 }
            } else {
                stats.counts.inserted += 1
            }
        }
        stats.counts.deleted = before.stats.keys.filter { model.stats[$0] == nil }.count
        if track.statsRecreated { return expected.merging(["Stats": Expected(split: false)]) { $1 } }
        expected["Stats"] = stats
        return expected
    }

    // MARK: - The store, read back

    static func model(of store: RecordStore) throws -> Model {
        func int(_ value: DatabaseValue) -> Int? {
            if case .integer(let number) = value { return Int(number) }
            return nil
        }
        func text(_ value: DatabaseValue) -> String? {
            if case .text(let string) = value { return string }
            return nil
        }
        return try store.read { connection in
            var model = Model()
            for row in try connection.rows(#"SELECT "id", "name", "age" FROM "Author""#) {
                model.authors[int(row[0]) ?? -1] = AuthorRow(name: text(row[1]), age: int(row[2]))
            }
            for row in try connection.rows(
                #"SELECT p."id", p."title", a."id" FROM "Post" p LEFT JOIN "Author" a ON a."_id" = p."author""#)
            {
                model.posts[int(row[0]) ?? -1] = PostRow(title: text(row[1]), author: int(row[2]))
            }
            for row in try connection.rows(#"SELECT "id", "label" FROM "Tag""#) {
                model.tags[text(row[0]) ?? "?"] = .some(text(row[1]))
            }
            for row in try connection.rows(
                #"SELECT c."id", c."body", p."id" FROM "Comment" c LEFT JOIN "Post" p ON p."_id" = c."post""#)
            {
                model.comments[int(row[0]) ?? -1] = CommentRow(body: text(row[1]), post: int(row[2]))
            }
            for row in try connection.rows(
                #"SELECT p."id", s."views" FROM "Stats" s LEFT JOIN "Post" p ON p."_id" = s."post""#)
            {
                model.stats[int(row[0]) ?? -1] = .some(int(row[1]))
            }
            for row in try connection.rows(
                #"""
                SELECT p."id", t."id" FROM "_Post_tags" j JOIN "Post" p ON p."_id" = j."owner"
                JOIN "Tag" t ON t."_id" = j."target" ORDER BY p."id", j."position", t."_id"
                """#)
            {
                model.posts[int(row[0]) ?? -1]?.tags.append(text(row[1]) ?? "?")
            }
            for row in try connection.rows(
                #"""
                SELECT p."id", t."id" FROM "_Post_labels" j JOIN "Post" p ON p."_id" = j."owner"
                JOIN "Tag" t ON t."_id" = j."target"
                """#)
            {
                model.posts[int(row[0]) ?? -1]?.labels.insert(text(row[1]) ?? "?")
            }
            for row in try connection.rows(
                #"""
                SELECT p."id", c."id" FROM "Comment" c JOIN "Post" p ON p."_id" = c."post"
                ORDER BY p."id", c."_position_post", c."_id"
                """#)
            {
                model.posts[int(row[0]) ?? -1]?.comments.append(int(row[1]) ?? -1)
            }
            return model
        }
    }

    // MARK: - Running a sequence

    /// The first disagreement of a sequence of syncs with the model, or nil.
    static func firstMismatch(_ syncs: [Sync], schema: Schema) throws -> String? {
        let store = try RecordStore(inMemory: schema)
        var model = Model()
        for (index, sync) in syncs.enumerated() {
            guard let expected = apply(sync, to: &model) else { return nil }
            var options = PopulationOptions()
            if sync.deleteOrphans { options.deleteOrphans = .all }
            let text = json(sync)
            let result: PopulationResult
            do {
                result = try store.populate(try JSONReader().read(text), entity: "Post", options: options)
            } catch {
                return "sync \(index + 1) \(text) failed: \(error)"
            }
            var problems: [String] = []
            let stored = try Self.model(of: store).lines
            let wanted = model.lines
            if stored != wanted {
                problems += stored.filter { !wanted.contains($0) }.map { "  store holds: \($0)" }
                problems += wanted.filter { !stored.contains($0) }.map { "  model holds: \($0)" }
            }
            for entity in entities {
                let got = result.changesByEntity[entity] ?? ChangeCounts()
                let want = expected[entity] ?? Expected()
                let same =
                    want.split
                    ? got == want.counts
                    : got.inserted == want.counts.inserted && got.deleted == want.counts.deleted
                        && got.updated + got.unchanged == want.counts.updated + want.counts.unchanged
                if !same && !(entity == "Stats" && !want.split && want.counts == ChangeCounts()) {
                    problems.append("  counts of \(entity): \(got), model: \(want.counts)\(want.split ? "" : " (sum)")")
                }
            }
            if !problems.isEmpty {
                let history = syncs[...index].map { ($0.deleteOrphans ? "orphans " : "") + json($0) }
                return "after sync \(index + 1) of\n" + history.joined(separator: "\n") + "\n"
                    + problems.joined(separator: "\n")
            }
        }
        return nil
    }

    // MARK: - Generating sequences

    struct Generator {
        var random: SeededRandom

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        mutating func string(absent: Int = 30, null: Int = 15) -> Field<String> {
            let roll = below(100)
            if roll < absent { return .absent }
            if roll < absent + null { return .null }
            return .value(pick(["a", "b", "c"]))
        }

        mutating func integer(absent: Int = 30, null: Int = 15) -> Field<Int> {
            let roll = below(100)
            if roll < absent { return .absent }
            if roll < absent + null { return .null }
            return .value(1 + below(3))
        }

        mutating func tag(objects: Bool) -> TagGiven {
            let id = pick(["t1", "t2", "7", "8"])
            let number = id.first?.isNumber == true && chance(40)
            return TagGiven(id: id, number: number, label: objects && chance(60) ? string(absent: 20) : nil)
        }

        mutating func post(in model: Model) -> PostGiven {
            var post = PostGiven(id: 1 + below(5))
            post.text = chance(20)
            post.title = string()
            let author = below(100)
            if author < 30 {
                post.author = .absent
            } else if author < 40 {
                post.author = .null
            } else if author < 65 {
                post.author = .value(.key(1 + below(3), text: chance(30)))
            } else if author < 92 || model.posts[post.id]?.author == nil {
                post.author = .value(
                    .object(
                        id: 1 + below(3), text: chance(30), name: string(), age: integer(), ageText: chance(30)))
            } else {
                post.author = .value(.object(id: nil, text: false, name: string(), age: integer(), ageText: false))
            }
            let tags = below(100)
            if tags < 40 {
                post.tags = .absent
            } else if tags < 50 {
                post.tags = .null
            } else {
                let count = below(4)
                var made: [TagGiven] = []
                for _ in 0..<count {
                    let element = tag(objects: true)
                    if !made.contains(where: { $0.id == element.id }) { made.append(element) }
                }
                post.tags = .value(made)
            }
            if chance(45) {
                var made: [TagGiven] = []
                for _ in 0..<below(3) {
                    let element = tag(objects: false)
                    if !made.contains(where: { $0.id == element.id }) { made.append(element) }
                }
                post.labels = made
            }
            let comments = below(100)
            if comments < 45 {
                post.comments = .absent
            } else if comments < 55 {
                post.comments = .null
            } else {
                var made: [CommentGiven] = []
                for _ in 0..<below(4) {
                    let element = CommentGiven(
                        id: 1 + below(6), text: chance(20), body: chance(60) ? string(absent: 20) : nil)
                    if !made.contains(where: { $0.id == element.id }) { made.append(element) }
                }
                post.comments = .value(made)
            }
            let stats = below(100)
            if stats < 50 {
                post.stats = .absent
            } else if stats < 65 {
                post.stats = .null
            } else {
                post.stats = .value(integer(absent: 20, null: 15))
            }
            return post
        }

        /// A sequence of syncs, each a response of repeated and changing posts.
        mutating func syncs() -> [Sync] {
            var model = Model()
            var syncs: [Sync] = []
            for _ in 0..<(3 + below(3)) {
                var sync = Sync(posts: [], deleteOrphans: chance(25))
                var track = Track()
                if !(sync.deleteOrphans && chance(10)) {
                    for _ in 0..<(1 + below(6)) {
                        let given = post(in: model)
                        _ = OracleSyncTests.apply(given, to: &model, track: &track)
                        sync.posts.append(given)
                    }
                }
                if sync.deleteOrphans {
                    for id in model.posts.keys where !track.posts.contains(id) { model.posts[id] = nil }
                }
                syncs.append(sync)
            }
            return syncs
        }
    }

    // MARK: - Shrinking a failing sequence

    /// Smaller variants of a sequence: a sync left out, an occurrence left out, a member of an
    /// occurrence left out or emptied.
    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in syncs.indices {
            if syncs[index].deleteOrphans {
                var plain = syncs
                plain[index].deleteOrphans = false
                variants.append(plain)
            }
            for post in syncs[index].posts.indices {
                var fewer = syncs
                fewer[index].posts.remove(at: post)
                variants.append(fewer)
                let given = syncs[index].posts[post]
                var edits: [(inout PostGiven) -> Void] = [
                    { $0.title = .absent }, { $0.author = .absent }, { $0.tags = .absent },
                    { $0.labels = nil }, { $0.comments = .absent }, { $0.stats = .absent }, { $0.text = false },
                ]
                if case .value(let tags) = given.tags {
                    for element in tags.indices {
                        edits.append {
                            $0.tags = .value(tags.enumerated().filter { $0.offset != element }.map(\.element))
                        }
                        if tags[element].label != nil {
                            edits.append {
                                var shorter = tags
                                shorter[element].label = nil
                                $0.tags = .value(shorter)
                            }
                        }
                    }
                }
                if let labels = given.labels {
                    for element in labels.indices {
                        edits.append { $0.labels = labels.enumerated().filter { $0.offset != element }.map(\.element) }
                    }
                }
                if case .value(let comments) = given.comments {
                    for element in comments.indices {
                        edits.append {
                            $0.comments = .value(comments.enumerated().filter { $0.offset != element }.map(\.element))
                        }
                        if comments[element].body != nil {
                            edits.append {
                                var shorter = comments
                                shorter[element].body = nil
                                $0.comments = .value(shorter)
                            }
                        }
                    }
                }
                if case .value(.object(let id, let text, let name, let age, let ageText)) = given.author {
                    edits.append {
                        $0.author = .value(.object(id: id, text: text, name: .absent, age: age, ageText: ageText))
                    }
                    edits.append {
                        $0.author = .value(.object(id: id, text: text, name: name, age: .absent, ageText: false))
                    }
                    if let id { edits.append { $0.author = .value(.key(id, text: false)) } }
                }
                for edit in edits {
                    var changed = syncs
                    edit(&changed[index].posts[post])
                    if changed != syncs { variants.append(changed) }
                }
            }
        }
        return variants
    }

    static func shrink(_ syncs: [Sync], schema: Schema) throws -> [Sync] {
        var current = syncs
        var progress = true
        while progress {
            progress = false
            for variant in smaller(current) where try firstMismatch(variant, schema: schema) != nil {
                current = variant
                progress = true
                break
            }
        }
        return current
    }

    // MARK: - Focused cases the comparison found

    /// The store after `responses`, each populated in turn, whole or streamed in batches of
    /// `batchBytes`, and the last population's counts.
    static func populated(
        _ responses: [String], batchBytes: Int? = nil
    ) async throws -> (lines: [String], counts: [String: ChangeCounts]) {
        let store = try RecordStore(inMemory: try schema())
        var counts: [String: ChangeCounts] = [:]
        for text in responses {
            if let batchBytes {
                let data = Data(text.utf8)
                let population = ResponsePopulation(store: try #require(store.sqlite), options: PopulationOptions())
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes)
                }
                counts = try await population.populate(streaming: open, entity: "Post", reopens: true).changesByEntity
            } else {
                counts = try await store.populate(try JSONReader().read(text), entity: "Post").changesByEntity
            }
        }
        return (try model(of: store).lines, counts)
    }

    /// Expects `responses` to leave `lines`, whole and streamed, and the last one's counts of
    /// `entity` to be `counts` (inserted, updated, unchanged, deleted).
    static func expect(
        _ responses: [String], leave lines: [String], counts: (String, [Int])? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for size in [nil, 1, 64] as [Int?] {
            let label = size.map { "batches of \($0) bytes" } ?? "whole"
            let outcome = try await populated(responses, batchBytes: size)
            #expect(outcome.lines == lines.sorted(), "\(label)", sourceLocation: sourceLocation)
            if let (entity, wanted) = counts {
                let got = outcome.counts[entity] ?? ChangeCounts()
                #expect(
                    [got.inserted, got.updated, got.unchanged, got.deleted] == wanted, "\(label): \(entity) \(got)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// Docs/Population.md, "Unchanged rows": a change to a list counts on the list's owner, and
    /// on a member the response names as its row ends. Comment 4, named by an occurrence of post
    /// 3's list that a later one supersedes, is unlinked by the latest: post 3 and comment 4 both
    /// count as updated.
    @Test("a member named by a superseded list and dropped by the latest counts as updated, and so does its owner")
    func memberNamedThenDroppedCountsItsOwner() async throws {
        try await Self.expect(
            [#"[{"id": 3, "comments": [4]}]"#, #"[{"id": 3, "comments": [4]}, {"id": 3, "comments": []}]"#],
            leave: [
                "Comment 4: body=nil post=nil",
                "Post 3: title=nil author=nil tags=[] labels=[] comments=[]",
            ],
            counts: ("Comment", [0, 1, 0, 0]))
        try await Self.expect(
            [#"[{"id": 3, "comments": [4]}]"#, #"[{"id": 3, "comments": [4]}, {"id": 3, "comments": []}]"#],
            leave: [
                "Comment 4: body=nil post=nil",
                "Post 3: title=nil author=nil tags=[] labels=[] comments=[]",
            ],
            counts: ("Post", [0, 1, 0, 0]))
    }

    /// Docs/Population.md, "Unchanged rows": a record the response names whose list gives a
    /// member it held before, which another record's list then takes, counts as `updated`: its
    /// list lost the member. Stored post 3 lists comment 4, which new post 2 then takes.
    @Test("an owner whose list gives a member it held, which another owner then takes, counts as updated")
    func ownerWhoseMemberIsTakenCountsUpdated() async throws {
        try await Self.expect(
            [#"[{"id": 3, "comments": [4]}]"#, #"[{"id": 3, "comments": [4]}, {"id": 2, "comments": [4]}]"#],
            leave: [
                "Comment 4: body=nil post=2",
                "Post 2: title=nil author=nil tags=[] labels=[] comments=[4]",
                "Post 3: title=nil author=nil tags=[] labels=[] comments=[]",
            ],
            counts: ("Post", [1, 1, 0, 0]))
    }

    /// Docs/Population.md, "Unchanged rows": lists are weighed as they end. Stored post 3 lists
    /// nothing; its list gives new comment 4, which new post 2 then takes: post 3 ends as it
    /// was, and counts as `unchanged`.
    @Test("an owner whose list gives a new member that another owner then takes counts as unchanged")
    func ownerWhoseNewMemberIsTakenCountsUnchanged() async throws {
        try await Self.expect(
            [#"[{"id": 3}]"#, #"[{"id": 3, "comments": [4]}, {"id": 2, "comments": [4]}]"#],
            leave: [
                "Comment 4: body=nil post=2",
                "Post 2: title=nil author=nil tags=[] labels=[] comments=[4]",
                "Post 3: title=nil author=nil tags=[] labels=[] comments=[]",
            ],
            counts: ("Post", [1, 0, 1, 0]))
    }

    /// Decisions 6 and 7: author 3, named with its key on post 4 and without it on post 5
    /// (where it is related), is one record whose occurrences merge in response order. The
    /// keyless occurrence's `null` name is later than the keyed `"a"`, and the last occurrence
    /// gives no name, so the name ends null.
    @Test("a keyless occurrence's null is not undone by a later keyed occurrence that omits the value")
    func keylessNullIsNotUndoneByLaterKeyedOccurrence() async throws {
        try await Self.expect(
            [
                #"[{"id": 5, "author": 3}]"#,
                #"[{"id": 4, "author": {"id": 3, "name": "a"}}, {"id": 5, "author": {"name": null}}, {"id": 1, "author": {"id": 3}}]"#,
            ],
            leave: [
                "Author 3: name=nil age=nil",
                "Post 1: title=nil author=3 tags=[] labels=[] comments=[]",
                "Post 4: title=nil author=3 tags=[] labels=[] comments=[]",
                "Post 5: title=nil author=3 tags=[] labels=[] comments=[]",
            ],
            counts: ("Author", [0, 0, 1, 0]))
    }

    /// Decisions 6 and 7, attribute by attribute: author 3, named with its key on posts 4 and 1
    /// and without it on post 5 (where it is related), takes for each attribute the value the
    /// occurrence that gave it last gave; an absent value changes nothing, and a value the
    /// attribute refuses keeps an earlier valid one.
    @Test(
        "a record named with and without its key takes each attribute from the occurrence that gave it last",
        arguments: [
            (
                #"[{"id": 4, "author": {"id": 3, "name": "a"}}, {"id": 5, "author": {"name": null}}, {"id": 1, "author": {"id": 3, "name": "b"}}]"#,
                "Author 3: name='b' age=nil"
            ),
            (
                #"[{"id": 4, "author": {"id": 3, "name": "a", "age": 2}}, {"id": 5, "author": {"name": "k"}}, {"id": 1, "author": {"id": 3}}]"#,
                "Author 3: name='k' age=2"
            ),
            (
                #"[{"id": 5, "author": {"name": "k", "age": 9}}, {"id": 4, "author": {"id": 3, "name": "a"}}]"#,
                "Author 3: name='a' age=9"
            ),
            (
                #"[{"id": 4, "author": {"id": 3, "age": 7}}, {"id": 5, "author": {"age": "x", "name": "k"}}, {"id": 1, "author": {"id": 3}}]"#,
                "Author 3: name='k' age=7"
            ),
        ])
    func keyedAndKeylessOccurrencesMergeByAttribute(response: String, author: String) async throws {
        try await Self.expect(
            [#"[{"id": 5, "author": 3}]"#, response],
            leave: [author]
                + response.ranges(of: #"{"id": "#).compactMap { range -> String? in
                    let digits = response[range.upperBound...].prefix { $0.isNumber }
                    return digits.isEmpty ? nil : "Post \(digits): title=nil author=3 tags=[] labels=[] comments=[]"
                }.filter { !$0.hasPrefix("Post 3:") })
    }

    // MARK: - The randomized comparison

    @Test("random re-syncs leave the store and the counts the model gives")
    func randomResyncsMatchTheModel() throws {
        let schema = try Self.schema()
        var failures = 0
        for seed in 1...200 {
            var generator = Generator(random: SeededRandom(seed: UInt64(seed)))
            let syncs = generator.syncs()
            guard try Self.firstMismatch(syncs, schema: schema) != nil else { continue }
            failures += 1
            if failures > 3 { continue }
            let minimal = try Self.shrink(syncs, schema: schema)
            let report = try Self.firstMismatch(minimal, schema: schema) ?? "(no longer fails)"
            Issue.record("seed \(seed), shrunk:\n\(report)")
        }
        #expect(failures == 0, "\(failures) of 200 seeds disagree with the model")
    }
}

extension OracleSyncTests.Field where Value == [OracleSyncTests.CommentGiven] {
    /// The members given; `null` gives none.
    var list: [OracleSyncTests.CommentGiven] {
        if case .value(let members) = self { return members }
        return []
    }
}
