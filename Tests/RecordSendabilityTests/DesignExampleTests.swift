import Foundation
import Testing
import WebRecord

/// DESIGN §4's example, the first thing a user writes: a record subclass, registered, and an
/// async request that returns instances of it.
@Suite struct DesignExampleTests {
    @Test func aSubclassRegisteredAndRequestedReturnsTypedRecords() async throws {
        let fixture = try AppNetFixture()
        let store = fixture.store

        store.register(recordClass: Post.self)
        store.register(recordClass: User.self)
        store.register(fixture.server, for: Post.self)
        let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)

        #expect(posts.count == 20)
        #expect(posts.map(\.text) == fixture.textsInResponse)
        #expect(posts.map { $0.user?.name } == fixture.authorsInResponse)
        #expect(posts.first?.user?.name == "sensei")
        #expect(try store.count("Post") == 20)
    }

    @Test func recordsMoveIntoAnotherTask() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        let posts = try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)
        #expect(posts.count == 20)

        // The request's records are this task's alone: it may send them to another task, which
        // then has them (this one no longer uses them).
        let authors = await Task.detached { posts.compactMap { $0.user?.name } }.value

        #expect(authors.count == 20)
        #expect(authors == fixture.authorsInResponse.compactMap { $0 })
    }

    @Test func twoTasksReadTheSameRowsThroughRecordsOfTheirOwn() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        _ = try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)

        // What tasks share is the store, which is Sendable: each fetches records of its own.
        let store = fixture.store
        async let other = Task.detached { try store.fetch(Post.self).compactMap { $0.user?.name } }.value
        let mine = try store.fetch(Post.self).compactMap { $0.user?.name }

        #expect(try await other == mine)
        #expect(mine.count == 20)
        #expect(Set(mine) == Set(fixture.authorsInResponse.compactMap { $0 }))
    }
}
