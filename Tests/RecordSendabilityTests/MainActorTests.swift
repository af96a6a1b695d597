import Foundation
import Testing
import WebRecord

/// What an app's view model does with records: it keeps them on the main actor.
@MainActor final class TimelineModel {
    private(set) var posts: [Post] = []
    private(set) var updates = 0

    /// Shows the records it is given.
    func show(_ posts: [Post]) {
        self.posts = posts
        updates += 1
    }

    /// The text of each post shown, as a view would list it.
    var lines: [String] { posts.map { "\($0.user?.name ?? "?"): \($0.text ?? "")" } }
}

/// A main-actor function that takes the records themselves.
@MainActor func authorNames(of posts: [Post]) -> [String] {
    posts.compactMap { $0.user?.name }
}

/// Records fetched off the main actor and consumed on it, as a change-observation feature
/// will deliver them there.
@Suite struct MainActorTests {
    func requestPosts(_ fixture: AppNetFixture) async throws -> [Post] {
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        return try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)
    }

    @Test func recordsGoToTheMainActorThroughMainActorRun() async throws {
        let fixture = try AppNetFixture()
        let model = TimelineModel()
        let posts = try await requestPosts(fixture)

        let lines = await MainActor.run {
            model.show(posts)
            return model.lines
        }

        // Still usable here after the main actor has them.
        #expect(posts.count == 20)
        #expect(lines.count == 20)
        #expect(lines.first == "sensei: " + (fixture.textsInResponse.first.flatMap { $0 } ?? "-"))
        #expect(await model.updates == 1)
    }

    @Test func aMainActorFunctionTakesTheRecords() async throws {
        let fixture = try AppNetFixture()
        let posts = try await requestPosts(fixture)

        let names = await authorNames(of: posts)

        #expect(names == fixture.authorsInResponse.compactMap { $0 })
        #expect(names.count == 20)
    }

    @Test @MainActor func aMainActorCallerAwaitsTheRequestAndKeepsTheRecords() async throws {
        let fixture = try AppNetFixture()
        let model = TimelineModel()

        model.show(try await requestPosts(fixture))

        #expect(model.posts.map(\.text) == fixture.textsInResponse)
        #expect(model.posts.first?.user?.name == "sensei")
    }

    @Test func recordsOfANonFinalBaseGoToTheMainActor() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: ADNPost.self)
        fixture.store.register(recordClass: ADNUser.self)
        fixture.store.register(fixture.server, for: ADNRecord.self)
        let posts = try await ADNPost.startRequest(urn: AppNetFixture.urn, in: fixture.store)

        let summary = await MainActor.run { (posts.compactMap { $0.author?.name }, Set(posts.map(\.api))) }

        #expect(summary.0 == fixture.authorsInResponse.compactMap { $0 })
        #expect(summary.1 == ["App.net"])
    }
}
