import Foundation
import Testing

@testable import WebRecord

/// The schema files shipped in `Schemas/`: they load clean and their key paths find data in the
/// real responses. That they say what MMRecord's Core Data models say is checked against the
/// model importer, in `WebRecordModelImportTests`.
@Suite struct ShippedSchemasTests {
    // MARK: - Helpers

    /// The package's root: this file is `Tests/WebRecordTests/Schema/ShippedSchemasTests.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Schema
        .deletingLastPathComponent()  // WebRecordTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let schemasDirectory = packageRoot.appendingPathComponent("Schemas")

    /// A shipped schema and the MMRecord example it describes.
    enum Shipped: String, CaseIterable, Sendable {
        case appNet = "AppNet"
        case foursquare = "Foursquare"
        case atlassian = "Atlassian"

        var url: URL { ShippedSchemasTests.schemasDirectory.appendingPathComponent("\(rawValue).json") }
    }

    static func load(_ shipped: Shipped) throws -> Schema {
        try Schema(contentsOf: shipped.url)
    }

    static func entity(_ name: String, in schema: Schema) throws -> Entity {
        try #require(schema.entity(named: name), "\(name) is declared")
    }

    static func fixtureURL(_ name: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("mmrecord").appendingPathComponent(name)
    }

    static func response(_ name: String) throws -> JSONValue {
        try JSONReader().read(Data(contentsOf: fixtureURL(name)))
    }

    /// The value of the first candidate key present, as population reads it (DESIGN §3.9).
    static func value(for keyPaths: [String], in object: JSONValue) -> JSONValue? {
        keyPaths.lazy.compactMap { object.value(atKeyPath: $0) }.first
    }

    static func records(of entity: Entity, in response: JSONValue) throws -> [JSONValue] {
        let path = try #require(entity.keyPathForResponseObject, "\(entity.name) has a key path")
        return try #require(response.value(atKeyPath: path)?.arrayValue, "\(path) holds an array")
    }

    // MARK: - Loading

    @Test func everyFileInSchemasLoadsClean() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemasDirectory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(Set(Shipped.allCases.map { "\($0.rawValue).json" }).isSubset(of: files))
        for file in files {
            do {
                let schema = try Schema(contentsOf: Self.schemasDirectory.appendingPathComponent(file))
                #expect(!schema.entities.isEmpty, "\(file) declares entities")
            } catch {
                Issue.record("\(file) does not load:\n\(error)")
            }
        }
    }

    @Test func allShippedSchemasLoadTogether() throws {
        // Their entity names differ, so one store could hold all three.
        let schema = try Schema(contentsOf: Shipped.allCases.map(\.url))
        #expect(schema.entities.count == 5 + 7 + 5)
    }

    /// Every whole schema file shown in `Docs/SchemaFormat.md` loads as it is.
    @Test func documentedSchemasLoad() throws {
        let text = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Docs/SchemaFormat.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```json\n").dropFirst()
            .compactMap { $0.components(separatedBy: "\n```").first }
            .filter { $0.hasPrefix("{") && $0.contains("\"entities\"") }
        #expect(blocks.count >= 2, "the first example and the complete example")
        for block in blocks {
            do {
                let schema = try Schema(json: block, fileName: "SchemaFormat.md")
                #expect(!schema.entities.isEmpty)
            } catch {
                Issue.record("a documented schema does not load:\n\(error)")
            }
        }
    }

    // MARK: - AppNet

    @Test func appNetDeclarations() throws {
        let schema = try Self.load(.appNet)
        let post = try Self.entity("Post", in: schema)
        #expect(post.keyPathForResponseObject == "data")
        #expect(post.primaryKey == .attribute("id"))
        #expect(post.attribute(named: "date")?.keyPaths == ["created_at", "date"])
        #expect(post.attribute(named: "date")?.type == .date)
        #expect(try Self.entity("Counts", in: schema).primaryKey == .relationship("user"))
        #expect(try Self.entity("Source", in: schema).primaryKey == .relationship("post"))
        let coverImage = try Self.entity("CoverImage", in: schema)
        #expect(coverImage.primaryKey == .attribute("id"))
        #expect(coverImage.attribute(named: "id")?.defaultValue == nil)
        let user = try Self.entity("User", in: schema)
        #expect(user.attribute(named: "avatarImagePath")?.keyPaths == ["avatar_image.url", "avatarImagePath"])
        #expect(user.attribute(named: "coverImagePath")?.keyPaths == ["cover_image.url", "coverImagePath"])
        #expect(user.relationship(named: "coverImage")?.keyPaths == ["cover_image", "coverImage"])
        #expect(user.relationship(named: "posts")?.isToMany == true)
    }

    @Test func appNetKeysFindTheResponsesData() throws {
        let schema = try Self.load(.appNet)
        let response = try Self.response("appnet-posts.json")
        let posts = try Self.records(of: Self.entity("Post", in: schema), in: response)
        #expect(posts.count == 20)
        let user = try Self.entity("User", in: schema)
        let coverImage = try #require(user.relationship(named: "coverImage"))
        let dateKeys = try #require(schema.entity(named: "Post")?.attribute(named: "date")?.keyPaths)
        for post in posts {
            let date = try #require(Self.value(for: dateKeys, in: post))
            #expect(DateCoding.date(fromISO8601: date.stringValue ?? "") != nil, "\(date) is an ISO-8601 date")
            let author = try #require(post["user"])
            #expect(
                Self.value(for: user.attribute(named: "avatarImagePath")?.keyPaths ?? [], in: author)?.stringValue?
                    .hasPrefix("https://") == true)
            let cover = try #require(Self.value(for: coverImage.keyPaths, in: author)?.objectValue)
            #expect(cover["id"] == nil, "cover images have no id: they are identified through their user")
            #expect(author["counts"]?["followers"]?.int64Value != nil)
            #expect(post["source"]?["client_id"]?.stringValue != nil)
        }
    }

    // MARK: - Foursquare

    @Test func foursquareDeclarations() throws {
        let schema = try Self.load(.foursquare)
        let venue = try Self.entity("Venue", in: schema)
        #expect(venue.keyPathForResponseObject == "response.venues")
        let categories = try #require(venue.relationship(named: "categories"))
        #expect(categories.isToMany && categories.isOrdered)
        #expect(categories.inverse == "venue")
        #expect(try Self.entity("FSCategory", in: schema).relationship(named: "venue")?.inverse == "categories")
        let photoGroups = try #require(venue.relationship(named: "photoGroups"))
        #expect(photoGroups.keyPaths == ["photos.groups", "photoGroups"])
        #expect(photoGroups.isOrdered)
        for name in ["Contact", "Location", "Menu", "PhotoGroup"] {
            #expect(
                try Self.entity(name, in: schema).primaryKey == .relationship("venue"),
                "\(name) is identified by its venue")
        }
        #expect(try Self.entity("Location", in: schema).attribute(named: "lat")?.type == .double)
        #expect(try Self.entity("PhotoItem", in: schema).primaryKey == .attribute("id"))
    }

    @Test func foursquareKeysFindTheResponsesData() throws {
        let schema = try Self.load(.foursquare)
        let venueEntity = try Self.entity("Venue", in: schema)
        let venues = try Self.records(of: venueEntity, in: Self.response("foursquare-venues.json"))
        #expect(venues.count == 30)
        for venue in venues {
            #expect(venue["id"]?.stringValue != nil)
            #expect(venue["categories"]?.arrayValue != nil)
            #expect(venue["location"]?["lat"]?.doubleValue != nil)
        }
        let detail = try #require(Self.response("foursquare-venue.json").value(atKeyPath: "response.venue"))
        let photoGroups = try #require(venueEntity.relationship(named: "photoGroups"))
        let groups = try #require(Self.value(for: photoGroups.keyPaths, in: detail)?.arrayValue)
        #expect(groups.count == 1, "one group, so identifying it by its venue loses nothing here")
        #expect(groups.first?["items"]?.arrayValue?.allSatisfy { $0["id"]?.stringValue != nil } == true)
        #expect(detail["menu"]?["label"]?.stringValue == "Menu")
        #expect(detail["contact"]?["formattedPhone"]?.stringValue != nil)
    }

    // MARK: - Atlassian

    @Test func atlassianDeclarations() throws {
        let schema = try Self.load(.atlassian)
        let issue = try Self.entity("Issue", in: schema)
        #expect(issue.primaryKey == .attribute("primaryKey"))
        #expect(issue.attribute(named: "primaryKey")?.keyPaths == ["key", "primaryKey"])
        let issueLinks = try #require(issue.relationship(named: "issueLinks"))
        #expect(issueLinks.keyPaths == ["fields.issuelinks", "issueLinks"])
        #expect(issueLinks.isToMany && issueLinks.isOrdered)

        let link = try Self.entity("Link", in: schema)
        #expect(
            link.subentityDiscriminator
                == .presence([
                    (key: "inwardIssue", entity: "InwardLink"), (key: "outwardIssue", entity: "OutwardLink"),
                ]))
        #expect(link.subentityNames == ["InwardLink", "OutwardLink"])
        #expect(link.primaryKey == .attribute("id"))
        #expect(link.attribute(named: "key")?.keyPaths == ["inwardIssue.key", "outwardIssue.key", "key"])
        for name in ["InwardLink", "OutwardLink"] {
            let sub = try Self.entity(name, in: schema)
            #expect(sub.parentName == "Link")
            #expect(sub.primaryKey == .attribute("id"), "\(name) inherits Link's key")
            #expect(sub.attributes.map(\.name) == link.attributes.map(\.name))
        }
        let plan = try Self.entity("Plan", in: schema)
        #expect(plan.keyPathForResponseObject == "plans.plan")
        #expect(plan.attribute(named: "id")?.keyPaths == ["key", "id"])
    }

    @Test func atlassianKeysFindTheResponsesData() throws {
        let schema = try Self.load(.atlassian)
        let issueResponse = try Self.response("atlassian-issue.json")
        let issue = try Self.entity("Issue", in: schema)
        let primaryKey = try #require(issue.attribute(named: "primaryKey"))
        #expect(Self.value(for: primaryKey.keyPaths, in: issueResponse) == "EX-1")

        let link = try Self.entity("Link", in: schema)
        let issueLinks = try #require(issue.relationship(named: "issueLinks"))
        let links = try #require(Self.value(for: issueLinks.keyPaths, in: issueResponse)?.arrayValue)
        let linkKey = try #require(link.attribute(named: "key"))
        guard case .presence(let pairs)? = link.subentityDiscriminator else {
            Issue.record("Link chooses sub-entities by presence")
            return
        }
        var chosen: [String] = []
        var linkedKeys: [String] = []
        for element in links {
            chosen += pairs.first { element[$0.key] != nil }.map { [$0.entity] } ?? []
            linkedKeys += Self.value(for: linkKey.keyPaths, in: element)?.stringValue.map { [$0] } ?? []
        }
        #expect(chosen == ["OutwardLink", "InwardLink"])
        #expect(links.compactMap { $0["id"]?.stringValue } == ["10001", "10002"], "each link has its own id")
        #expect(linkedKeys == ["PRJ-2", "PRJ-3"])
        #expect(
            links.compactMap { Self.value(for: link.attribute(named: "name")?.keyPaths ?? [], in: $0)?.stringValue }
                == ["Dependent", "Dependent"])

        let plans = try Self.records(of: Self.entity("Plan", in: schema), in: Self.response("atlassian-plans.json"))
        let planID = try #require(schema.entity(named: "Plan")?.attribute(named: "id"))
        #expect(
            plans.compactMap { Self.value(for: planID.keyPaths, in: $0)?.stringValue } == [
                "MYPLAN1", "MYPLAN2", "MYPLAN3",
            ])
    }
}
