import Foundation
import Testing
import WebRecord
import WebRecordTesting

/// Population of the real App.net, Foursquare and Atlassian responses that MMRecord's
/// examples used, with the shipped schemas.
@Suite struct FixtureConformanceTests {
    func store(_ schemaName: String) throws -> RecordingStore {
        try RecordingStore(schema: Schema(contentsOf: packageRoot.appendingPathComponent("Schemas/\(schemaName).json")))
    }

    func response(_ name: String) throws -> JSONValue {
        try JSONReader().read(Data(contentsOf: fixtureURL("mmrecord/\(name)")))
    }

    // MARK: App.net

    @Test func appNetPostsPopulateTheWholeGraph() throws {
        let test = try store("AppNet")
        let result = try test.store.populate(response("appnet-posts.json"), entity: "Post")
        #expect(result.records.count == 20)
        #expect(try test.store.count("Post") == 20)
        #expect(try test.store.count("User") == 18)
        // Counts and Source are identified through their owner: one each per user and per post.
        #expect(try test.store.count("Counts") == 18)
        #expect(try test.store.count("Source") == 20)
        #expect(try test.store.count("CoverImage") == 18)
        #expect(result.changes.inserted == 20 + 18 + 18 + 20 + 18)
        #expect(!result.debugger.contains(.missingPrimaryKey))
        #expect(!result.debugger.contains(.typeMismatch))
    }

    @Test func appNetResultsKeepResponseOrderAndTypedValues() throws {
        let test = try store("AppNet")
        let raw = try response("appnet-posts.json")
        let result = try test.store.populate(raw, entity: "Post")
        let ids = raw["data"]?.arrayValue?.compactMap { $0["id"] } ?? []
        #expect(result.records.map(\.primaryKeyValue) == ids)
        let first = try #require(result.records.first)
        #expect(first["text"] as String? == raw["data"]?[0]?["text"]?.stringValue)
        #expect(first.jsonValue("date") == "2012-11-21T02:33:42.000000000Z")
        let user = try #require(first.related("user"))
        // The alternate key path avatar_image.url resolves.
        #expect(
            user["avatarImagePath"] as String?
                == raw["data"]?[0]?["user"]?.value(atKeyPath: "avatar_image.url")?.stringValue)
        #expect(user["avatarImagePath"] as String? != nil)
        #expect(user.related("counts")?["followers"] as Int? == 374)
        #expect(first.related("source")?["clientID"] as String? == "caYWDBvjwt2e9HWMm6qyKS6KcATHUkzQ")
    }

    @Test func appNetReimportChangesNothing() throws {
        let test = try store("AppNet")
        let raw = try response("appnet-posts.json")
        _ = try test.store.populate(raw, entity: "Post")
        let before = try dumpContent(test.store)
        test.resetStatements()
        let again = try test.store.populate(raw, entity: "Post")
        #expect(again.changes.inserted == 0)
        #expect(again.changes.updated == 0)
        #expect(again.changes.deleted == 0)
        #expect(again.changes.unchanged == 20 + 18 + 18 + 20 + 18)
        #expect(try dumpContent(test.store) == before)
        let writes = test.statements.filter {
            $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") || $0.hasPrefix("DELETE")
        }
        #expect(writes.isEmpty)
    }

    @Test func coverImagesKeepTheirIdentityThroughTheirOwner() throws {
        let test = try store("AppNet")
        let raw = try response("appnet-posts.json")
        _ = try test.store.populate(raw, entity: "Post")
        let ids = try test.store.fetch("CoverImage").map(\.rowID)
        _ = try test.store.populate(raw, entity: "Post")
        #expect(try test.store.fetch("CoverImage").map(\.rowID) == ids)
        let user = try #require(try test.store.fetchOne("User", primaryKey: raw["data"]?[0]?["user"]?["id"] ?? .null))
        #expect(user.related("coverImage")?["width"] as Int? == 1023)
    }

    @Test func populationRunsOneSelectPerEntity() throws {
        let test = try store("AppNet")
        let raw = try response("appnet-posts.json")
        _ = try test.store.populate(raw, entity: "Post")
        test.resetStatements()
        _ = try test.store.populate(raw, entity: "Post")
        let selects = test.statements(matching: "SELECT")
        // Post and User by key; Counts, Source and CoverImage through their owners.
        #expect(selects.count == 5)
        for table in ["Post", "User", "Counts", "Source", "CoverImage"] {
            #expect(selects.filter { $0.contains("FROM \"\(table)\"") || $0.contains("JOIN \"\(table)\"") }.count == 1)
        }
    }

    @Test func selectsStayBatchedForLargeResponses() throws {
        let test = try store("AppNet")
        var posts: [JSONValue] = []
        for index in 0..<2500 {
            posts.append([
                "id": .string("p\(index)"), "text": "t",
                "user": ["id": .string("u\(index % 700)"), "counts": ["followers": 1]],
            ])
        }
        let raw: JSONValue = ["data": .array(posts)]
        _ = try test.store.populate(raw, entity: "Post")
        test.resetStatements()
        _ = try test.store.populate(raw, entity: "Post")
        // However many records, the queries grow with the entities (chunks of up to 32k keys).
        #expect(test.statements(matching: "SELECT").count == 3)
    }

    // MARK: Foursquare

    @Test func foursquareCategoriesAreListedByExactlyOneVenue() throws {
        let test = try store("Foursquare")
        let raw = try response("foursquare-venues.json")
        let result = try test.store.populate(raw, entity: "Venue")
        #expect(result.records.count == 30)
        #expect(try test.store.count("FSCategory") == 24)
        let shared = try #require(try test.store.fetchOne("FSCategory", primaryKey: "4bf58dd8d48988d163941735"))
        var listing: [String] = []
        for venue in try test.store.fetch("Venue") {
            let categories = venue.relatedRecords("categories")
            if categories.contains(where: { $0.rowID == shared.rowID }) { listing.append(venue["id"] ?? "") }
            for category in categories {
                #expect(category.related("venue")?.rowID == venue.rowID)
            }
        }
        // The category appears in four venues; the last one to list it holds it.
        #expect(listing == ["5284fe6811d2114d599b3e15"])
        #expect(shared.related("venue")?["id"] as String? == "5284fe6811d2114d599b3e15")
    }

    @Test func foursquareOrderedCategoriesKeepResponseOrder() throws {
        let test = try store("Foursquare")
        let raw = try response("foursquare-venues.json")
        _ = try test.store.populate(raw, entity: "Venue")
        for venue in raw.value(atKeyPath: "response.venues")?.arrayValue ?? [] {
            let ids = (venue["categories"]?.arrayValue ?? []).compactMap { $0["id"] }
            guard ids.count > 1 else { continue }
            let stored = try #require(try test.store.fetchOne("Venue", primaryKey: venue["id"] ?? .null))
            #expect(stored.relatedRecords("categories").map(\.primaryKeyValue) == ids)
        }
        let location = try #require(
            try test.store.fetchOne("Venue", primaryKey: "42377700f964a52024201fe3")?.related("location"))
        #expect(location["city"] as String? == "Brooklyn")
    }

    // MARK: Atlassian

    @Test func atlassianLinksAreChosenByPresence() throws {
        let test = try store("Atlassian")
        let result = try test.store.populate(response("atlassian-issue.json"), entity: "Issue")
        let issue = try #require(result.records.first)
        #expect(issue.primaryKeyValue == "EX-1")
        let links = issue.relatedRecords("issueLinks")
        #expect(links.map(\.entity.name) == ["OutwardLink", "InwardLink"])
        #expect(links.map { $0["key"] as String? } == ["PRJ-2", "PRJ-3"])
        #expect(try test.store.count("InwardLink") == 1)
        #expect(try test.store.count("OutwardLink") == 1)
        #expect(try test.store.count("Link") == 2)
    }

    @Test func atlassianPlansComeFromTheirKeyPath() throws {
        let test = try store("Atlassian")
        let result = try test.store.populate(response("atlassian-plans.json"), entity: "Plan")
        #expect(result.records.map(\.primaryKeyValue) == ["MYPLAN1", "MYPLAN2", "MYPLAN3"])
        #expect(result.records.first?["name"] as String? == "My Plan 1")
    }
}
