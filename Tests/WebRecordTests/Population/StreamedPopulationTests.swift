import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// A response populated as a stream, a batch at a time, leaves exactly the store that the
/// whole response leaves, and that the same records leave when populated as several smaller
/// responses: on the shipped fixtures, on a generated response, and on the decision schema's
/// hardest cases (duplicates, owners, ordered and replaced to-manys across batches).
@Suite struct StreamedPopulationTests {
    // MARK: - Helpers

    /// A fresh file store for `schema`.
    func makeStore(_ schema: Schema) throws -> RecordingStore {
        try RecordingStore(schema: schema)
    }

    func shippedSchema(_ name: String) throws -> Schema {
        try Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/\(name).json"))
    }

    /// Populates `text` as a stream with batches of about `batchBytes` bytes of records.
    @discardableResult
    func stream(
        _ text: String, into store: RecordStore, entity: String, options: PopulationOptions = PopulationOptions(),
        batchBytes: Int
    ) async throws(WebRecordError) -> PopulationResult {
        let data = Data(text.utf8)
        return try await ResponsePopulation(store: store.sqlite!, options: options).populate(
            streaming: { keyPath in JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes) },
            entity: entity)
    }

    /// The records at `keyPath` in `text`, and a function that puts a list back there.
    func split(_ text: String, keyPath: String?) throws -> (records: [JSONValue], wrap: ([JSONValue]) -> JSONValue) {
        let whole = try JSONReader().read(text)
        guard let keyPath else {
            return (whole.arrayValue ?? [], { .array($0) })
        }
        let components = keyPath.split(separator: ".").map(String.init)
        let records = whole.value(atKeyPath: keyPath)?.arrayValue ?? []
        func put(_ list: [JSONValue], into value: JSONValue, at path: ArraySlice<String>) -> JSONValue {
            guard let key = path.first, var object = value.objectValue else { return .array(list) }
            object[key] = put(list, into: object[key] ?? .null, at: path.dropFirst())
            return .object(object)
        }
        return (records, { put($0, into: whole, at: components[...]) })
    }

    /// Populates `text` three ways into three stores, and checks the stores are the same row
    /// for row, and that the whole and the streamed populations report the same.
    func expectSameStores(
        _ text: String, schema: Schema, entity: String, keyPath: String?,
        options: PopulationOptions = PopulationOptions(),
        parts: Int = 3, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let whole = try makeStore(schema)
        let streamed = try makeStore(schema)
        let pieces = try makeStore(schema)
        let wholeResult = try await whole.store.populate(try JSONReader().read(text), entity: entity, options: options)
        // A batch of about one record, and a few records, and the default.
        for batchBytes in [1, 600] {
            let fresh = try makeStore(schema)
            let result = try await stream(
                text, into: fresh.store, entity: entity, options: options, batchBytes: batchBytes)
            #expect(try dumpContent(fresh.store) == dumpContent(whole.store), sourceLocation: sourceLocation)
            #expect(result.changesByEntity == wholeResult.changesByEntity, sourceLocation: sourceLocation)
            #expect(result.records.map(\.rowID) == wholeResult.records.map(\.rowID), sourceLocation: sourceLocation)
            #expect(
                result.records.map(\.storedValues) == wholeResult.records.map(\.storedValues),
                sourceLocation: sourceLocation)
        }
        try await stream(text, into: streamed.store, entity: entity, options: options, batchBytes: 4 << 20)
        #expect(try dumpContent(streamed.store) == dumpContent(whole.store), sourceLocation: sourceLocation)

        let (records, wrap) = try split(text, keyPath: keyPath)
        let size = max(1, (records.count + parts - 1) / parts)
        for start in stride(from: 0, to: records.count, by: size) {
            let part = Array(records[start..<min(records.count, start + size)])
            _ = try await pieces.store.populate(wrap(part), entity: entity, options: options)
        }
        #expect(try dumpContent(pieces.store) == dumpContent(whole.store), sourceLocation: sourceLocation)

        // A re-import of the same response, streamed, changes nothing and says so.
        let again = try await stream(text, into: whole.store, entity: entity, options: options, batchBytes: 600)
        let wholeAgain = try await streamed.store.populate(
            try JSONReader().read(text), entity: entity, options: options)
        #expect(again.changesByEntity == wholeAgain.changesByEntity, sourceLocation: sourceLocation)
        #expect(again.changes.inserted == 0 && again.changes.updated == 0, sourceLocation: sourceLocation)
        #expect(try dumpContent(whole.store) == dumpContent(streamed.store), sourceLocation: sourceLocation)
    }

    func fixtureText(_ name: String) throws -> String {
        try String(contentsOf: fixtureURL("mmrecord/\(name)"), encoding: .utf8)
    }

    /// `count` App.net posts made from the fixture's, with new ids; their users repeat every
    /// `users` posts, so that one user's occurrences fall in many batches.
    func generatedPosts(_ count: Int, users: Int) throws -> String {
        let posts = try JSONReader().read(try fixtureText("appnet-posts.json"))["data"]?.arrayValue ?? []
        try #require(!posts.isEmpty)
        var list: [JSONValue] = []
        for index in 0..<count {
            var post = posts[index % posts.count].objectValue ?? JSONObject()
            post["id"] = .string("g\(index)")
            if var user = post["user"]?.objectValue {
                user["id"] = .string("u\(index % users)")
                // A later occurrence of a user changes its name: the last one wins, in any batch.
                user["name"] = .string("user \(index % users) as of post \(index)")
                post["user"] = .object(user)
            }
            list.append(.object(post))
        }
        return JSONValue.object(["meta": .object(["code": .integer(200)]), "data": .array(list)]).serialized()
    }

    // MARK: - The same store

    @Test func appNetFixture() async throws {
        try await expectSameStores(
            fixtureText("appnet-posts.json"), schema: shippedSchema("AppNet"), entity: "Post", keyPath: "data")
    }

    @Test func foursquareFixture() async throws {
        try await expectSameStores(
            fixtureText("foursquare-venues.json"), schema: shippedSchema("Foursquare"), entity: "Venue",
            keyPath: "response.venues")
    }

    @Test func atlassianFixture() async throws {
        try await expectSameStores(
            fixtureText("atlassian-plans.json"), schema: shippedSchema("Atlassian"), entity: "Plan",
            keyPath: "plans.plan")
    }

    @Test func generatedResponseWithUsersRepeatedAcrossBatches() async throws {
        try await expectSameStores(
            generatedPosts(300, users: 7), schema: shippedSchema("AppNet"), entity: "Post", keyPath: "data", parts: 4)
    }

    @Test func aTopLevelArrayIsStreamedToo() async throws {
        let posts = try JSONReader().read(try generatedPosts(40, users: 3))["data"] ?? .null
        try await expectSameStores(
            posts.serialized(), schema: shippedSchema("AppNet"), entity: "Post", keyPath: nil)
    }

    @Test func duplicatesOwnersAndToManysAcrossBatches() async throws {
        // Post 1 appears three times: its title and a nested comment change between
        // occurrences; user "a" and its counts (identified by their owner) repeat with new
        // values; a post is named by reference before its data arrives; a to-one is cleared.
        let text = """
            {"data": [
              {"id": 1, "title": "one", "tags": [{"name": "x"}, {"name": "y"}], "user": {"id": "a", "name": "A", "counts": {"followers": 1}},
               "comments": [{"id": 10, "body": "first"}, {"id": 11, "body": "second"}]},
              {"id": 2, "title": "two", "user": "a", "attachment": {"id": 5, "url": "u"}},
              {"id": 1, "title": "one again", "tags": [{"name": "x"}, {"name": "y"}], "user": {"id": "a", "counts": {"followers": 2}},
               "comments": [{"id": 10, "body": "first"}, {"id": 11, "body": "second, edited"}]},
              {"id": 3, "title": "three", "date": "01/02/2020", "score": "2.5", "flag": "yes", "user": {"id": "b", "name": "B"}},
              {"id": 1, "text": "body", "user": null},
              {"id": 4, "title": "four", "views": null, "user": {"id": "a", "name": "A2"}}
            ]}
            """
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        try await expectSameStores(text, schema: schema, entity: "Post", keyPath: "data")
    }

    @Test func aMemberAnEarlierBatchListsAndALaterOneDropsStaysAsInTheWholeResponse() async throws {
        // Occurrences of one record in different batches are applied in turn, but the deletes
        // their links start wait for the last batch and spare what the response contained
        // (Docs/Population.md). A whole response merges the occurrences first, so a member
        // that only the first occurrence lists is created but never linked; streamed, it is
        // linked, then replaced, and kept, unlinked: the same store.
        let text = """
            {"data": [
              {"id": 1, "title": "one", "comments": [{"id": 10, "body": "first"}, {"id": 11, "body": "second"}]},
              {"id": 1, "title": "one", "comments": [{"id": 11, "body": "second"}]}
            ]}
            """
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let streamed = try makeStore(schema)
        let whole = try makeStore(schema)
        try await stream(text, into: streamed.store, entity: "Post", batchBytes: 1)
        _ = try await whole.store.populate(try JSONReader().read(text), entity: "Post")
        #expect(try dumpContent(streamed.store) == dumpContent(whole.store))
        #expect(try streamed.store.count("Comment") == 2)
    }

    @Test func aMemberGainedCountsItsOwnerOnlyIfItStillNamesItAfterTheLastBatch() async throws {
        // Post 1 gains a new comment, 5: it is updated. It also claims comment 9 in the first
        // batch, which post 2 claims back in the next: neither counts for that, as in a whole
        // response, where post 2's claim is the one applied.
        let before =
            #"{"data": [{"id": 1, "title": "a", "comments": [{"id": 1}]}, {"id": 2, "title": "b", "comments": [{"id": 2}, {"id": 9}]}]}"#
        let text =
            #"{"data": [{"id": 1, "title": "a", "comments": [{"id": 1}, {"id": 9}, {"id": 5}]}, {"id": 2, "title": "b", "comments": [{"id": 2}, {"id": 9}]}]}"#
        let schema = try Schema(json: decisionSchemaJSON, fileName: "Decisions.json")
        let whole = try makeStore(schema)
        _ = try await whole.store.populate(try JSONReader().read(before), entity: "Post")
        let wholeResult = try await whole.store.populate(try JSONReader().read(text), entity: "Post")
        let posts = wholeResult.changesByEntity["Post"]
        let comments = wholeResult.changesByEntity["Comment"]
        #expect(posts?.updated == 1 && posts?.unchanged == 1, "\(wholeResult.changesByEntity)")
        #expect(comments?.inserted == 1 && comments?.updated == 0, "\(wholeResult.changesByEntity)")
        for batchBytes in [1, 4 << 20] {
            let streamed = try makeStore(schema)
            _ = try await streamed.store.populate(try JSONReader().read(before), entity: "Post")
            let result = try await stream(text, into: streamed.store, entity: "Post", batchBytes: batchBytes)
            #expect(result.changesByEntity == wholeResult.changesByEntity, "batches of \(batchBytes) bytes")
            #expect(try dumpContent(streamed.store) == dumpContent(whole.store))
        }
    }

    @Test func orphanDeletionKeepsWhatAnyBatchNamed() async throws {
        let schema = try shippedSchema("AppNet")
        var options = PopulationOptions()
        options.deleteOrphans = .all
        let first = try generatedPosts(60, users: 5)
        // The second response drops every third post and names the rest.
        let posts = try JSONReader().read(first)["data"]?.arrayValue ?? []
        let kept = posts.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        let second = JSONValue.object(["data": .array(kept)]).serialized()
        let whole = try makeStore(schema)
        let streamed = try makeStore(schema)
        _ = try await whole.store.populate(try JSONReader().read(first), entity: "Post")
        _ = try await streamed.store.populate(try JSONReader().read(first), entity: "Post")
        let wholeResult = try await whole.store.populate(
            try JSONReader().read(second), entity: "Post", options: options)
        let result = try await stream(second, into: streamed.store, entity: "Post", options: options, batchBytes: 500)
        #expect(wholeResult.changesByEntity["Post"]?.deleted == 20)
        #expect(result.changesByEntity == wholeResult.changesByEntity)
        #expect(try dumpContent(streamed.store) == dumpContent(whole.store))
    }

    // MARK: - What differs, and failures

    @Test func withoutRecordsTheCountsStayComplete() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        var options = PopulationOptions()
        options.returnsRecords = false
        let result = try await stream(
            try generatedPosts(50, users: 4), into: test.store, entity: "Post", options: options, batchBytes: 800)
        #expect(result.records.isEmpty)
        #expect(result.storedRecordCount == 50)
        #expect(result.changesByEntity["Post"]?.inserted == 50)
        #expect(result.changesByEntity["User"]?.inserted == 4)
        #expect(try test.store.count("Post") == 50)
    }

    @Test func theDebuggerHoldsTheResponseWithoutItsRecords() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        let result = try await stream(
            try generatedPosts(5, users: 2), into: test.store, entity: "Post", batchBytes: 100)
        #expect(result.debugger.responseObject == ["meta": ["code": 200], "data": []])
    }

    @Test func malformedJSONInALaterBatchLeavesTheStoreAsItWas() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        _ = try await test.store.populate(try JSONReader().read(try generatedPosts(10, users: 2)), entity: "Post")
        let before = try dumpContent(test.store)
        var text = try generatedPosts(40, users: 3)
        // Break the last post: the first batches are written before the reader meets it.
        text = String(text.dropLast(3)) + ",}]}"
        await #expect(throws: WebRecordError.self) {
            try await stream(text, into: test.store, entity: "Post", batchBytes: 300)
        }
        do {
            try await stream(text, into: test.store, entity: "Post", batchBytes: 300)
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.line == 1)
        }
        #expect(try dumpContent(test.store) == before)
    }

    @Test func anUnidentifiedRecordInALaterBatchFailsOrphanDeletionAndWritesNothing() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        var options = PopulationOptions()
        options.deleteOrphans = .all
        _ = try await test.store.populate(try JSONReader().read(try generatedPosts(10, users: 2)), entity: "Post")
        let before = try dumpContent(test.store)
        var posts = try JSONReader().read(try generatedPosts(30, users: 3))["data"]?.arrayValue ?? []
        posts.append(["text": "no id"])
        let text = JSONValue.object(["data": .array(posts)]).serialized()
        do {
            try await stream(text, into: test.store, entity: "Post", options: options, batchBytes: 300)
            Issue.record("an unidentified record under orphan deletion must fail")
        } catch {
            #expect(error.code == .invalidResponseFormat)
            #expect(error.message.contains("with orphan deletion"), "\(error.message)")
            #expect(error.message.contains("'data.30'"), "\(error.message)")
        }
        #expect(try dumpContent(test.store) == before)
    }

    @Test func noIdentifiableRecordInAnyBatchFails() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        let text = #"{"data": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}"#
        do {
            try await stream(text, into: test.store, entity: "Post", batchBytes: 1)
            Issue.record("a list of no records must fail")
        } catch {
            #expect(error.code == .invalidResponseFormat)
            #expect(error.message.contains("none of the 3 top-level records"), "\(error.message)")
        }
        #expect(try test.store.count("Post") == 0)
    }

    @Test func aResponseWithNoListIsReadWhole() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        let post = try JSONReader().read(try generatedPosts(1, users: 1))["data"]?.arrayValue?.first ?? .null
        let result = try await stream(
            JSONValue.object(["data": post]).serialized(), into: test.store, entity: "Post", batchBytes: 1)
        #expect(result.records.count == 1)
        #expect(result.responseRecordCount == nil)
        let empty = try await stream(#"{"data": null, "meta": {}}"#, into: test.store, entity: "Post", batchBytes: 1)
        #expect(empty.records.isEmpty)
        #expect(empty.debugger.errors.contains { $0.code == .emptyResultSet })
        // A key path missing from the object fails the response, streamed as whole (DESIGN §3.1).
        let before = try dumpContent(test.store)
        await #expect {
            _ = try await stream(#"{"meta": {}, "error": "down"}"#, into: test.store, entity: "Post", batchBytes: 1)
        } throws: { error in
            let error = error as? WebRecordError
            return error?.code == .invalidResponseFormat && error?.message.contains("'meta', 'error'") == true
        }
        #expect(try dumpContent(test.store) == before)
    }

    @Test func anEmptyListIsAnEmptyResult() async throws {
        let test = try makeStore(try shippedSchema("AppNet"))
        let result = try await stream(#"{"data": []}"#, into: test.store, entity: "Post", batchBytes: 1)
        #expect(result.records.isEmpty)
        #expect(result.responseRecordCount == 0)
        #expect(result.debugger.errors.contains { $0.code == .emptyResultSet })
    }

    @Test func theLibrarysFileEntryPointStreams() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("posts.json")
        let text = try generatedPosts(30, users: 4)
        try text.write(to: file, atomically: true, encoding: .utf8)
        let test = try makeStore(try shippedSchema("AppNet"))
        let whole = try makeStore(try shippedSchema("AppNet"))
        let result = try await test.store.populate(contentsOf: file, entity: "Post")
        _ = try await whole.store.populate(try JSONReader().read(text), entity: "Post")
        #expect(result.records.count == 30)
        #expect(try dumpContent(test.store) == dumpContent(whole.store))
        do {
            _ = try await test.store.populate(
                contentsOf: directory.appendingPathComponent("missing.json"), entity: "Post")
            Issue.record("a missing file must fail")
        } catch {
            #expect(error.message.contains("missing.json"), "\(error.message)")
        }
    }
}
