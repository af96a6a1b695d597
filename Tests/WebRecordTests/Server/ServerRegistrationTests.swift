import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Registering servers on a store and finding them through class and entity chains.
@Suite struct ServerRegistrationTests {
    let store: RecordStore
    let directory: TemporaryDirectory

    init() throws {
        (store, directory) = try RequestSupport.makeStore()
        store.register(recordClass: FeedPost.self)
        store.register(recordClass: FeedUser.self)
        store.register(recordClass: FeedPhoto.self)
    }

    @Test func nothingRegisteredFindsNothing() {
        #expect(store.server(forEntity: "Post") == nil)
        #expect(store.server(forEntity: "Post", recordClass: FeedPost.self) == nil)
    }

    @Test func aBaseClassRegistrationCoversItsSubclasses() {
        store.register(NamedServer(name: "api"), for: FeedRecord.self)

        #expect(store.namedServer(forEntity: "Post", recordClass: FeedPost.self) == "api")
        #expect(store.namedServer(forEntity: "User", recordClass: FeedUser.self) == "api")
        #expect(store.namedServer(forEntity: "Post") == "api", "through the class registered for the entity")
        #expect(store.namedServer(forEntity: "Media", recordClass: FeedMedia.self) == nil, "not a FeedRecord")
    }

    @Test func aSubclassRegistrationOverridesItsBaseClass() {
        store.register(NamedServer(name: "api"), for: FeedRecord.self)
        store.register(NamedServer(name: "users"), for: FeedUser.self)

        #expect(store.namedServer(forEntity: "User", recordClass: FeedUser.self) == "users")
        #expect(store.namedServer(forEntity: "Post", recordClass: FeedPost.self) == "api")
    }

    @Test func aRecordRegistrationIsTheDefaultForEveryClass() {
        store.register(NamedServer(name: "default"), for: Record.self)
        store.register(NamedServer(name: "media"), for: FeedMedia.self)

        #expect(store.namedServer(forEntity: "Post", recordClass: FeedPost.self) == "default")
        #expect(store.namedServer(forEntity: "Photo", recordClass: FeedPhoto.self) == "media")
        #expect(store.namedServer(forEntity: "Media", recordClass: Record.self) == "default")
    }

    @Test func anEntityRegistrationCoversItsSubEntitiesAndASubEntityCanOverride() {
        store.register(NamedServer(name: "media"), forEntity: "Media")

        #expect(store.namedServer(forEntity: "Photo", recordClass: Record.self) == "media")
        #expect(store.namedServer(forEntity: "Panorama", recordClass: Record.self) == "media")

        store.register(NamedServer(name: "photos"), forEntity: "Photo")
        #expect(store.namedServer(forEntity: "Panorama", recordClass: Record.self) == "photos")
        #expect(store.namedServer(forEntity: "Media", recordClass: Record.self) == "media")
    }

    @Test func theClassItselfWinsOverTheEntityAndTheEntityOverASuperclass() {
        store.register(NamedServer(name: "base"), for: FeedRecord.self)
        store.register(NamedServer(name: "entity"), forEntity: "Post")
        #expect(store.namedServer(forEntity: "Post", recordClass: FeedPost.self) == "entity")

        store.register(NamedServer(name: "class"), for: FeedPost.self)
        #expect(store.namedServer(forEntity: "Post", recordClass: FeedPost.self) == "class")
    }

    @Test func aSuperclassWinsOverAParentEntity() {
        store.register(NamedServer(name: "parent entity"), forEntity: "Media")
        store.register(NamedServer(name: "superclass"), for: FeedMedia.self)

        #expect(store.namedServer(forEntity: "Photo", recordClass: FeedPhoto.self) == "superclass")
    }

    @Test func aLaterRegistrationReplacesAnEarlierOne() {
        store.register(NamedServer(name: "first"), forEntity: "User")
        store.register(NamedServer(name: "second"), forEntity: "User")
        #expect(store.namedServer(forEntity: "User") == "second")
    }

    @Test func registrationsBelongToTheirStore() throws {
        let (other, otherDirectory) = try RequestSupport.makeStore()
        store.register(NamedServer(name: "mine"), forEntity: "Post")

        #expect(store.namedServer(forEntity: "Post") == "mine")
        #expect(other.server(forEntity: "Post") == nil)
        _ = otherDirectory
    }

    @Test func aRequestUsesTheRegisteredServerUnlessItOverridesIt() async throws {
        let registered = CannedServer()
        registered.enqueue(RequestSupport.postsBody([1]))
        let override = CannedServer()
        override.enqueue(RequestSupport.postsBody([2, 3]))
        store.register(registered, for: FeedRecord.self)

        let viaRegistered = try await FeedPost.startRequest(urn: "posts", in: store)
        let viaOverride = try await FeedPost.startRequest(
            urn: "posts", in: store, options: RequestOptions(server: override))

        #expect(viaRegistered.map(\.id) == [1])
        #expect(viaOverride.map(\.id) == [2, 3])
        #expect(registered.requests.count == 1)
        #expect(override.requests.count == 1)
    }
}
