import Foundation
import Testing
import WebRecord

/// What an app's view model does with records: it keeps them on the main actor.
@MainActor final class TimelineModel {
    private(set) var posts: [Post] = []
    private(set) var updates = 0

    /// An empty model, made anywhere.
    nonisolated init() {}

    /// Shows the records it is given.
    func show(_ posts: [Post]) {
        self.posts = posts
        updates += 1
    }

    /// The `text` of each post shown: what other isolation domains read of the model.
    var texts: [String?] { posts.map(\.text) }

    /// The text of each post shown, as a view would list it.
    var lines: [String] { posts.map { "\($0.user?.name ?? "?"): \($0.text ?? "")" } }
}

/// A main-actor function that takes the records themselves.
@MainActor func authorNames(of posts: [Post]) -> [String] {
    posts.compactMap { $0.user?.name }
}

/// Records fetched off the main actor and consumed on it, as a change-observation feature
/// will deliver them there, and requests made from the main actor itself.
@Suite struct MainActorTests {
    /// The fixture with its classes and server registered.
    func registered(_ fixture: AppNetFixture) -> AppNetFixture {
        fixture.store.register(recordClass: Post.self)
        fixture.store.register(recordClass: User.self)
        fixture.store.register(fixture.server, for: Post.self)
        return fixture
    }

    /// The request's records, off the main actor, handed to the caller.
    func requestPosts(_ fixture: AppNetFixture) async throws -> sending [Post] {
        try await Post.startRequest(urn: AppNetFixture.urn, in: registered(fixture).store)
    }

    @Test func recordsGoToTheMainActorThroughMainActorRun() async throws {
        let fixture = try AppNetFixture()
        let model = TimelineModel()
        let posts = try await requestPosts(fixture)
        #expect(posts.count == 20)

        // The records go to the main actor, which keeps them: this task no longer uses them.
        let lines = await MainActor.run {
            model.show(posts)
            return model.lines
        }

        #expect(lines.count == 20)
        #expect(lines.first == "sensei: " + (fixture.textsInResponse.first.flatMap { $0 } ?? "-"))
        #expect(await model.updates == 1)
        #expect(await model.texts.count == 20)
    }

    @Test func aMainActorFunctionTakesTheRecords() async throws {
        let fixture = try AppNetFixture()
        let posts = try await requestPosts(fixture)

        let names = await authorNames(of: posts)

        #expect(names == fixture.authorsInResponse.compactMap { $0 })
        #expect(names.count == 20)
    }

    @Test @MainActor func aMainActorCallerAwaitsTheRequestAndKeepsTheRecords() async throws {
        let fixture = registered(try AppNetFixture())
        let model = TimelineModel()

        model.show(try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store))

        #expect(model.posts.map(\.text) == fixture.textsInResponse)
        #expect(model.posts.first?.user?.name == "sensei")
    }

    @Test @MainActor func aRecordKeptOnTheMainActorIsRefreshedThere() async throws {
        let fixture = registered(try AppNetFixture())
        let model = TimelineModel()
        model.show(try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store))
        let first = try #require(model.posts.first)
        let id = try #require(first["id"] as String?)
        try fixture.serveDetail(ofPost: id, text: "Edited on the server")

        let fresh = try await first.refresh(in: fixture.store)
        model.show([fresh] + model.posts.dropFirst())

        #expect(model.posts.first?.text == "Edited on the server")
        #expect(model.posts.first?.rowID == first.rowID)
        #expect(model.posts.first?.user?.name == "sensei")
        #expect(first.text == fixture.textsInResponse.first.flatMap { $0 }, "the old snapshot is unchanged")
    }

    @Test @MainActor func pagesAreIteratedOnTheMainActor() async throws {
        let fixture = registered(try AppNetFixture())
        let model = TimelineModel()

        var indexes: [Int] = []
        for try await page in Post.pages(urn: AppNetFixture.urn, in: fixture.store) {
            indexes.append(page.index)
            model.show(model.posts + page.records)  // [Post]: no cast
        }

        #expect(indexes == [0])
        #expect(model.posts.map(\.text) == fixture.textsInResponse)
        #expect(model.updates == 1)
    }

    @Test @MainActor func fetchFirstUpdatesArriveOnTheMainActor() async throws {
        let fixture = registered(try AppNetFixture())
        _ = try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)
        let model = TimelineModel()

        var kinds: [String] = []
        for try await update in Post.startRequestFetchingFirst(urn: AppNetFixture.urn, in: fixture.store) {
            switch update {
            case .local(let cached): kinds.append("local \(cached.count)")
            case .remote(let result): kinds.append("remote \(result.changesByEntity["Post"]?.unchanged ?? -1)")
            }
            model.show(update.records)  // Posts, typed by the request's class
        }

        #expect(kinds == ["local 20", "remote 20"])
        #expect(model.updates == 2)
        #expect(model.posts.map(\.text) == fixture.textsInResponse)
    }

    @Test @MainActor func batchResultsAndPopulationsArriveOnTheMainActor() async throws {
        let fixture = registered(try AppNetFixture())
        let model = TimelineModel()

        let results = await fixture.store.startBatch([BatchRequest(entity: "Post", urn: AppNetFixture.urn)])
        let batched = try results.map { try $0.get() }
        model.show(batched.flatMap(\.records).compactMap { $0 as? Post })
        #expect(model.posts.map(\.text) == fixture.textsInResponse)

        let population = try await fixture.store.populate(fixture.response, entity: "Post")
        model.show(population.records.compactMap { $0 as? Post })
        #expect(model.posts.map(\.text) == fixture.textsInResponse)
        #expect(population.changesByEntity["Post"]?.unchanged == 20)
        #expect(model.updates == 2)
    }

    @Test @MainActor func anAsyncReadHandsItsRecordsToTheMainActor() async throws {
        let fixture = registered(try AppNetFixture())
        _ = try await Post.startRequest(urn: AppNetFixture.urn, in: fixture.store)
        let (store, model) = (fixture.store, TimelineModel())

        // Fetched on the store's reader, without blocking the main actor, and kept there.
        model.show(try await store.read { _ in try store.fetch(Post.self) })
        let written = try await store.write { _ in try store.fetch(Post.self, limit: 1) }

        #expect(model.posts.map(\.text) == fixture.textsInResponse)
        #expect(model.posts.first?.user?.name == "sensei")
        #expect(written.map(\.rowID) == [model.posts[0].rowID])
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
