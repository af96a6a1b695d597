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

    @Test func recordsCrossIntoAnotherTaskAsTheyAre() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        let posts = try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)

        // Records are Sendable: a detached task reads them while this one goes on using them.
        let authors = await Task.detached { posts.compactMap { $0.user?.name } }.value

        #expect(authors.count == 20)
        #expect(authors == fixture.authorsInResponse.compactMap { $0 })
        #expect(posts.count == 20)
    }
}
