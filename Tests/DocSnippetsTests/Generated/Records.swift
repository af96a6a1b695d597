// Generated from Docs/Records.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord
import Testing
import WebRecordTesting

// Docs/Records.md, block 1
extension DocSnippetContext {
    func records1() throws {
        let schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json"))
        let store = try RecordStore(path: "appnet.sqlite", schema: schema)

        let posts = try store.fetch("Post", orderBy: [.descending("date")], limit: 20)
        for post in posts {
            let text: String? = post["text"]
            let author = post.related("user")           // a Record, or nil
            print(author?["name"] as String? ?? "?", text ?? "")
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = schema
        _ = store
        _ = posts
    }
}

// Docs/Records.md, block 2
extension DocSnippetContext {
    func records2() throws {
        let id: String? = post["id"]
        let date = post["date"] as Date?
        if let followers: Int = counts["followers"] {
            print("\(followers) followers")
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = id
        _ = date
    }
}

// Docs/Records.md, block 3
extension DocSnippetContext {
    func records3() throws {
        func nanoseconds(of post: Record) -> Int32? {
            let stamp: Timestamp? = post["date"]
            return stamp?.nanoseconds
        }
    }
}

// Docs/Records.md, block 4
extension DocSnippetContext {
    func records4() throws {
        let user = post.related("user")                   // to-one: Record?
        let posts = user?.relatedRecords("posts") ?? []   // to-many: [Record]
        let typed: User? = post.related("user")           // as a subclass
        // Every name the block declares is used, as a reader would go on to use it.
        _ = user
        _ = posts
        _ = typed
    }
}

// Docs/Records.md, block 5
extension DocSnippetContext {
    func records5() throws {
        final class Post: ADNRecord {
            override class var entityName: String { "Post" }

            /// The `id` attribute, a string: the primary key, which every record has.
            var id: String { self[primaryKey: "id"] }

            /// The `thread_id` attribute, a string.
            var threadID: String? { self["thread_id"] }

            /// The `user` relationship, to one `User`; its inverse is `posts`.
            var user: User? { related("user") }
        }
    }
}

// Docs/Records.md, block 6
extension DocSnippetContext {
    func records6() async throws {
        AppNetRecords.register(on: store)            // Post, User, Counts, Source, CoverImage
        let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
        print(posts.first?.user?.name ?? "")
        // Every name the block declares is used, as a reader would go on to use it.
        _ = posts
    }
}

// Docs/Records.md, block 7
extension DocSnippetContext {
    func records7() throws {
        // A plain subclass: typed accessors over the record's snapshot (see "Records and concurrency").
        final class Post: Record {
            override class var keyPathForResponseObject: String? { "data" }
            var text: String? { self["text"] }
            var date: Date? { self["date"] }
            var user: User? { related("user") }
        }

        final class User: Record {
            var name: String? { self["name"] }
            var posts: [Post] { relatedRecords("posts") }
        }

        store.register(recordClass: Post.self)                      // for the entity named "Post"
        store.register(recordClass: User.self)
        store.register(recordClass: FSCategory.self, forEntity: "Category")

        let posts: [Post] = try store.fetch(Post.self, orderBy: [.descending("date")])
        print(posts.first?.user?.name ?? "")
        // Every name the block declares is used, as a reader would go on to use it.
        _ = posts
    }
}

// Docs/Records.md, block 8
extension DocSnippetContext {
    func records8() async throws {
        @MainActor final class TimelineModel {
            var posts: [Post] = []

            func reload(from store: RecordStore) async throws {
                // Fetched off the main actor, then kept on it.
                posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
                for try await page in Post.pages(urn: "stream/0/posts/stream/global", in: store) {
                    posts += page.records              // [Post]: pages of Post.pages are typed
                }
            }

            func refreshFirst(in store: RecordStore) async throws {
                guard let first = posts.first else { return }
                posts[0] = try await first.refresh(in: store)   // runs on the main actor
            }
        }
    }
}

// Docs/Records.md, block 9
extension DocSnippetContext {
    func records9() throws {
        final class Checkin: Record {
            var description: String? { self["description"] }
        }
    }
}

// Docs/Records.md, block 10
extension DocSnippetContext {
    func records10() throws {
        struct PostSummary: Decodable {
            var id: String
            var text: String?
            var date: Date
            var user: String?        // a to-one decodes as the destination's primary key
        }
        let summary = try post.decode(PostSummary.self)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = summary
    }
}

// Docs/Records.md, block 11
extension DocSnippetContext {
    func records11() throws {
        let recent = try store.fetch("Post",
                                     where: "date > ? AND text LIKE ?", arguments: [cutoff, "%swift%"],
                                     orderBy: [.descending("date")], limit: 20, offset: 40)
        let howMany = try store.count("Post", where: #""user" = ?"#, arguments: [user.rowID])
        let post = try store.fetchOne("Post", primaryKey: "1644504")
        // Every name the block declares is used, as a reader would go on to use it.
        _ = recent
        _ = howMany
        _ = post
    }
}

// Docs/Records.md, block 12
extension DocSnippetContext {
    func records12() throws {
        let titles = try store.read { db in
            try db.rows("SELECT \"text\" FROM \"Post\" WHERE \"user\" = ?", [.integer(user.rowID)])
        }
        try store.write { db in
            try db.execute("UPDATE \"Post\" SET \"text\" = ? WHERE \"id\" = ?", [.text("edited"), .text("1644504")])
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = titles
    }
}

// Docs/Records.md, block 13
extension DocSnippetContext {
    func records13() throws {
        let test = try RecordingStore(schema: schema)
        _ = try test.store.populate(JSONReader().read(data), entity: "Post")
        let user = try #require(try test.store.fetch("User").first)
        test.resetStatements()
        _ = user.relatedRecords("posts")
        #expect(test.statements(matching: "SELECT").count == 1)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = test
        _ = user
    }
}

// Docs/Records.md, block 14
extension DocSnippetContext {
    func records14() throws {
        let log = SQLLog()
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = log.observer
        let store = try RecordStore(path: path, schema: schema, configuration: configuration)
        #expect(log.statements(matching: "CREATE").isEmpty)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = log
        _ = configuration
        _ = store
    }
}
