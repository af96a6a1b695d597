import Foundation
import TestSupport
import Testing
import WebRecord

/// The other forms a subclass takes: a typed accessor named `description`, a non-final base
/// with a stored `let`, and mutable state of its own.
@Suite struct SubclassFormTests {
    static let checkinSchema = """
        {
          "version": 1,
          "entities": {
            "Checkin": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "description": { "type": "string" } }
            }
          }
        }
        """

    @Test func anAttributeNamedDescriptionHasAnOrdinaryTypedAccessor() async throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(path: directory.path(), schema: Schema(json: Self.checkinSchema))
        store.register(recordClass: Checkin.self)
        _ = try await store.populate(
            JSONReader().read(#"[{"id": "c1", "description": "Coffee at noon"}]"#), entity: "Checkin")

        let checkins = try store.fetch(Checkin.self)
        // The record still describes itself as a record.
        #expect("\(checkins[0])" == #"Checkin(_id: 1, key: "c1")"#)
        #expect(String(reflecting: checkins[0]) == #"Checkin(_id: 1, key: "c1")"#)

        let described = await MainActor.run { checkins.map(\.description) }

        #expect(described == ["Coffee at noon"])
    }

    @Test func aNonFinalBaseWithAStoredLetMakesTypedRecords() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: ADNPost.self)
        fixture.store.register(recordClass: ADNUser.self)
        fixture.store.register(fixture.server, for: ADNRecord.self)

        let posts = try await ADNPost.startRequest(urn: AppNetFixture.urn, in: fixture.store)
        let fetched = try fixture.store.fetch(ADNPost.self)

        #expect(posts.map(\.text) == fixture.textsInResponse)
        #expect(posts.map { $0.author?.name } == fixture.authorsInResponse)
        #expect(posts.allSatisfy { $0.api == "App.net" && $0.author?.api == "App.net" })
        #expect(fetched.count == 20)
    }

    @Test func aSubclassKeepsMutableStateOfItsOwn() async throws {
        let fixture = try AppNetFixture()
        fixture.store.register(recordClass: WordCountedPost.self)
        fixture.store.register(fixture.server, for: WordCountedPost.self)
        let posts = try await WordCountedPost.startRequest(urn: AppNetFixture.urn, in: fixture.store)
        let expected = fixture.textsInResponse.map { $0?.split(whereSeparator: \.isWhitespace).count ?? 0 }

        // The lazy value is computed once per record, on whichever side has the record.
        let counts = posts.map(\.wordCount)
        let (again, computations) = await MainActor.run { (posts.map(\.wordCount), posts.map(\.computations)) }

        #expect(counts == expected)
        #expect(again == expected)
        #expect(computations == Array(repeating: 1, count: 20))
    }
}
