import Foundation
import Testing
import WebRecordModelImport

@testable import WebRecord

@Suite struct CoreDataModelImporterTests {
    // MARK: - Helpers

    enum ModelFixture: String, CaseIterable, Sendable {
        case appnet, atlassian, foursquare, instagram, twitter

        var fileName: String { "\(rawValue)-model.xml" }

        var expectedEntities: [String] {
            switch self {
            case .appnet: ["Counts", "CoverImage", "Post", "Source", "User"]
            case .atlassian: ["InwardLink", "Issue", "Link", "OutwardLink", "Plan"]
            case .foursquare: ["Contact", "FSCategory", "Location", "Menu", "PhotoGroup", "PhotoItem", "Venue"]
            case .instagram: ["Media", "Tag", "User"]
            case .twitter: ["Tweet", "User"]
            }
        }
    }

    static func fixtureURL(_ fixture: ModelFixture) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("mmrecord").appendingPathComponent(fixture.fileName)
    }

    static func convert(_ fixture: ModelFixture) throws -> String {
        try CoreDataModelImporter.schemaJSON(contentsOf: fixtureURL(fixture))
    }

    static func convert(xml: String) throws -> String {
        try CoreDataModelImporter.schemaJSON(fromModelXML: Data(xml.utf8), fileName: "Test/contents")
    }

    /// Wraps entity elements in a model element, as Xcode writes it.
    static func model(_ entities: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(entities)
        </model>
        """
    }

    static func entities(in text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let root = try #require(object as? [String: Any])
        return try #require(root["entities"] as? [String: Any])
    }

    static func entity(_ name: String, in text: String) throws -> [String: Any] {
        try #require(entities(in: text)[name] as? [String: Any])
    }

    static func property(_ entity: String, _ group: String, _ name: String, in text: String) throws -> [String: Any] {
        let definitions = try #require(self.entity(entity, in: text)[group] as? [String: Any])
        return try #require(definitions[name] as? [String: Any])
    }

    static func attribute(_ entity: String, _ name: String, in text: String) throws -> [String: Any] {
        try property(entity, "attributes", name, in: text)
    }

    static func relationship(_ entity: String, _ name: String, in text: String) throws -> [String: Any] {
        try property(entity, "relationships", name, in: text)
    }

    static func importError(xml: String) -> WebRecordError? {
        do {
            _ = try convert(xml: xml)
            return nil
        } catch {
            return error as? WebRecordError
        }
    }

    // MARK: - Fixtures

    @Test(arguments: ModelFixture.allCases)
    func convertsEachFixtureIntoAValidSchema(_ fixture: ModelFixture) throws {
        let text = try Self.convert(fixture)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["version"] as? Int == 1)
        #expect(Set(root.keys) == ["version", "entities"])
        let entities = try Self.entities(in: text)
        #expect(Set(entities.keys) == Set(fixture.expectedEntities))
        for (name, value) in entities {
            let definition = try #require(value as? [String: Any], "\(name) is an object")
            #expect(definition["attributes"] is [String: Any], "\(name) has an attributes object")
            #expect(definition["relationships"] is [String: Any], "\(name) has a relationships object")
        }
    }

    @Test(arguments: ModelFixture.allCases)
    func keepsTheModelsEntityOrderAndFormatting(_ fixture: ModelFixture) throws {
        let text = try Self.convert(fixture)
        let offsets = try fixture.expectedEntities.map { name in
            try #require(text.range(of: "\n    \"\(name)\": {\n")?.lowerBound, "\(name) is an entity")
        }
        #expect(offsets == offsets.sorted())
        #expect(text.hasPrefix("{\n  \"version\": 1,\n  \"entities\": {\n"))
        #expect(text.hasSuffix("\n  }\n}\n"))
        #expect(!text.contains("\t"))
    }

    @Test func appNetSpotChecks() throws {
        let text = try Self.convert(.appnet)
        #expect(try Self.entity("Counts", in: text)["primaryKey"] as? String == "user")
        #expect(try Self.entity("Source", in: text)["primaryKey"] as? String == "post")
        #expect(try Self.entity("User", in: text)["primaryKey"] as? String == "id")

        let avatar = try Self.attribute("User", "avatarImagePath", in: text)
        #expect(avatar["key"] as? String == "avatar_image.url")
        #expect(avatar["type"] as? String == "string")

        let coverImage = try Self.relationship("User", "coverImage", in: text)
        #expect(coverImage["key"] as? String == "cover_image")
        #expect(coverImage["inverse"] as? String == "user")
        #expect(coverImage["destination"] as? String == "CoverImage")
        #expect(coverImage["toMany"] == nil)
        #expect(coverImage["merge"] == nil, "merge is for to-many relationships only")

        let date = try Self.attribute("Post", "date", in: text)
        #expect(date["key"] as? String == "created_at")
        #expect(date["type"] as? String == "date")

        let followers = try Self.attribute("Counts", "followers", in: text)
        #expect(followers["type"] as? String == "integer")
        #expect(followers["default"] as? Int == 0)
        #expect(followers["optional"] == nil)

        let posts = try Self.relationship("User", "posts", in: text)
        #expect(posts["toMany"] as? Bool == true)
        #expect(posts["merge"] as? String == "union", "MMRecord's to-many behaviour, written explicitly")
        #expect(posts["ordered"] == nil)
        #expect(posts["deleteRule"] == nil)
    }

    /// MMRecord added to a to-many and never removed from it; the product's default may differ,
    /// so every to-many the importer writes says `union`, and no to-one does.
    @Test(arguments: ModelFixture.allCases)
    func everyToManyIsWrittenWithUnion(fixture: ModelFixture) throws {
        let schema = try Schema(json: try Self.convert(fixture), fileName: "\(fixture.rawValue).json")
        let relationships = schema.entities.flatMap(\.relationships)
        #expect(!relationships.isEmpty)
        for relationship in relationships {
            let written = try Self.relationship(
                relationship.entityName, relationship.name, in: try Self.convert(fixture))
            if relationship.isToMany {
                #expect(written["merge"] as? String == "union", "\(relationship.entityName).\(relationship.name)")
                #expect(relationship.mergePolicy == .union)
            } else {
                #expect(written["merge"] == nil, "\(relationship.entityName).\(relationship.name)")
            }
        }
    }

    @Test func foursquareSpotChecks() throws {
        let text = try Self.convert(.foursquare)
        let categories = try Self.relationship("Venue", "categories", in: text)
        #expect(categories["toMany"] as? Bool == true)
        #expect(categories["ordered"] as? Bool == true)
        #expect(categories["merge"] as? String == "union")
        #expect(categories["inverse"] as? String == "venue")
        #expect(categories["destination"] as? String == "FSCategory")

        #expect(try Self.relationship("Venue", "photoGroups", in: text)["key"] as? String == "photos.groups")

        let latitude = try Self.attribute("Location", "lat", in: text)
        #expect(latitude["type"] as? String == "double")
        #expect((latitude["default"] as? NSNumber)?.doubleValue == 0.0)
        #expect(text.contains(#""lat": { "type": "double", "default": 0.0 }"#))

        // The keys some Foursquare properties carry in their own userInfo are ignored,
        // because their entities name one themselves.
        #expect(try Self.entity("PhotoGroup", in: text)["primaryKey"] as? String == "venue")
        #expect(try Self.entity("Menu", in: text)["primaryKey"] as? String == "venue")
        #expect(try Self.attribute("PhotoGroup", "name", in: text)["key"] == nil)
    }

    @Test func atlassianSpotChecks() throws {
        let text = try Self.convert(.atlassian)
        for name in ["InwardLink", "OutwardLink"] {
            let subentity = try Self.entity(name, in: text)
            #expect(subentity["parent"] as? String == "Link")
            #expect(subentity["primaryKey"] == nil, "\(name) inherits Link's key")
            #expect(subentity["abstract"] == nil)
        }
        #expect(try Self.entity("Link", in: text)["primaryKey"] as? String == "id")
        #expect(try Self.entity("Issue", in: text)["primaryKey"] as? String == "primaryKey")

        let issueLinks = try Self.relationship("Issue", "issueLinks", in: text)
        #expect(issueLinks["key"] as? String == "fields.issuelinks")
        #expect(issueLinks["ordered"] as? Bool == true)
        #expect(issueLinks["toMany"] as? Bool == true)
        #expect(issueLinks["merge"] as? String == "union")
        #expect(try Self.attribute("Plan", "id", in: text)["key"] as? String == "key")
    }

    @Test func instagramAndTwitterSpotChecks() throws {
        let instagram = try Self.convert(.instagram)
        #expect(try Self.attribute("Media", "media", in: instagram)["type"] as? String == "json")
        #expect(try Self.entity("Tag", in: instagram)["primaryKey"] as? String == "text")

        let twitter = try Self.convert(.twitter)
        let favorited = try Self.attribute("Tweet", "favorited", in: twitter)
        #expect(favorited["type"] as? String == "boolean")
        #expect(favorited["default"] == nil)
        #expect(try Self.attribute("Tweet", "id", in: twitter)["type"] as? String == "integer")
        #expect(try Self.attribute("User", "avatarPath", in: twitter)["key"] as? String == "profile_image_url")
    }

    /// The exact text `webrecord import-model` prints for the App.net model: a contract.
    @Test func appNetGoldenOutput() throws {
        let expected = """
            {
              "version": 1,
              "entities": {
                "Counts": {
                  "primaryKey": "user",
                  "attributes": {
                    "followers": { "type": "integer", "default": 0 },
                    "following": { "type": "integer", "default": 0 },
                    "posts": { "type": "integer", "default": 0 },
                    "stars": { "type": "integer", "default": 0 }
                  },
                  "relationships": {
                    "user": { "destination": "User", "inverse": "counts" }
                  }
                },
                "CoverImage": {
                  "primaryKey": "id",
                  "attributes": {
                    "height": { "type": "integer", "default": 0 },
                    "id": { "type": "integer" },
                    "url": { "type": "string" },
                    "width": { "type": "integer", "default": 0 }
                  },
                  "relationships": {
                    "user": { "destination": "User", "inverse": "coverImage" }
                  }
                },
                "Post": {
                  "primaryKey": "id",
                  "attributes": {
                    "date": { "type": "date", "key": "created_at" },
                    "id": { "type": "string" },
                    "text": { "type": "string" },
                    "thread_id": { "type": "string" }
                  },
                  "relationships": {
                    "source": { "destination": "Source", "inverse": "post" },
                    "user": { "destination": "User", "inverse": "posts" }
                  }
                },
                "Source": {
                  "primaryKey": "post",
                  "attributes": {
                    "clientID": { "type": "string", "key": "client_id" },
                    "link": { "type": "string" },
                    "name": { "type": "string" }
                  },
                  "relationships": {
                    "post": { "destination": "Post", "inverse": "source" }
                  }
                },
                "User": {
                  "primaryKey": "id",
                  "attributes": {
                    "avatarImagePath": { "type": "string", "key": "avatar_image.url" },
                    "coverImagePath": { "type": "string", "key": "cover_image.url" },
                    "id": { "type": "string" },
                    "name": { "type": "string" }
                  },
                  "relationships": {
                    "counts": { "destination": "Counts", "inverse": "user" },
                    "coverImage": { "destination": "CoverImage", "inverse": "user", "key": "cover_image" },
                    "posts": { "destination": "Post", "toMany": true, "merge": "union", "inverse": "user" }
                  }
                }
              }
            }

            """
        let text = try Self.convert(.appnet)
        #expect(text == expected)
    }

    // MARK: - Mapping

    static let typeMapping: [(coreData: String, webRecord: String)] = [
        ("Integer 16", "integer"), ("Integer 32", "integer"), ("Integer 64", "integer"),
        ("Float", "double"), ("Double", "double"), ("Decimal", "decimal"),
        ("String", "string"), ("Boolean", "boolean"), ("Date", "date"),
        ("Binary", "data"), ("UUID", "uuid"), ("URI", "url"), ("Transformable", "json"),
    ]

    @Test(arguments: typeMapping)
    func mapsEachAttributeType(_ mapping: (coreData: String, webRecord: String)) throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E"><attribute name="a" optional="YES" attributeType="\(mapping.coreData)"/></entity>
                """))
        #expect(try Self.attribute("E", "a", in: text)["type"] as? String == mapping.webRecord)
    }

    @Test func emitsOptionalFalseOnlyForNonOptionalAttributes() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E">
                    <attribute name="required" attributeType="String"/>
                    <attribute name="explicitlyRequired" optional="NO" attributeType="String"/>
                    <attribute name="optional" optional="YES" attributeType="String"/>
                </entity>
                """))
        #expect(try Self.attribute("E", "required", in: text)["optional"] as? Bool == false)
        #expect(try Self.attribute("E", "explicitlyRequired", in: text)["optional"] as? Bool == false)
        #expect(try Self.attribute("E", "optional", in: text)["optional"] == nil)
        #expect(text.contains(#""required": { "type": "string", "optional": false }"#))
    }

    @Test func convertsDefaultValuesToTypedJSON() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E">
                    <attribute name="count" optional="YES" attributeType="Integer 64" defaultValueString="-42"/>
                    <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="1.50"/>
                    <attribute name="loose" optional="YES" attributeType="Float" defaultValueString=".5"/>
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.25"/>
                    <attribute name="on" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                    <attribute name="off" optional="YES" attributeType="Boolean" defaultValueString="0"/>
                    <attribute name="title" optional="YES" attributeType="String" defaultValueString="a &quot;b&quot;"/>
                    <attribute name="when" optional="YES" attributeType="Date" defaultValueString="2014-01-01"/>
                    <attribute name="emptyNumber" optional="YES" attributeType="Integer 32" defaultValueString=""/>
                </entity>
                """))
        #expect(try Self.attribute("E", "count", in: text)["default"] as? Int == -42)
        #expect(try Self.attribute("E", "ratio", in: text)["default"] as? Double == 1.5)
        #expect(text.contains(#""default": 1.50"#), "a JSON-valid spelling is kept")
        #expect(try Self.attribute("E", "loose", in: text)["default"] as? Double == 0.5)
        #expect(text.contains(#""default": 0.5 }"#), "a spelling that is not JSON is normalized")
        #expect(try Self.attribute("E", "price", in: text)["default"] as? Double == 12.25)
        #expect(try Self.attribute("E", "on", in: text)["default"] as? Bool == true)
        #expect(try Self.attribute("E", "off", in: text)["default"] as? Bool == false)
        #expect(try Self.attribute("E", "title", in: text)["default"] as? String == #"a "b""#)
        #expect(try Self.attribute("E", "when", in: text)["default"] == nil)
        #expect(try Self.attribute("E", "emptyNumber", in: text)["default"] == nil)
    }

    @Test func marksIndexedAttributes() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E">
                    <attribute name="old" optional="YES" indexed="YES" attributeType="String"/>
                    <attribute name="modern" optional="YES" attributeType="String"/>
                    <attribute name="pairA" optional="YES" attributeType="String"/>
                    <attribute name="pairB" optional="YES" attributeType="String"/>
                    <attribute name="plain" optional="YES" attributeType="String"/>
                    <fetchIndex name="byModern">
                        <fetchIndexElement property="modern" type="Binary" order="ascending"/>
                    </fetchIndex>
                    <fetchIndex name="byPair">
                        <fetchIndexElement property="pairA" type="Binary" order="ascending"/>
                        <fetchIndexElement property="pairB" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                """))
        #expect(try Self.attribute("E", "old", in: text)["indexed"] as? Bool == true)
        #expect(try Self.attribute("E", "modern", in: text)["indexed"] as? Bool == true)
        #expect(try Self.attribute("E", "pairA", in: text)["indexed"] == nil)
        #expect(try Self.attribute("E", "plain", in: text)["indexed"] == nil)
    }

    static let deletionRules: [(coreData: String, webRecord: String?)] = [
        ("Nullify", nil), ("Cascade", "cascade"), ("Deny", "deny"), ("No Action", nil),
    ]

    @Test(arguments: deletionRules)
    func mapsDeletionRules(_ rule: (coreData: String, webRecord: String?)) throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E">
                    <relationship name="r" optional="YES" toMany="YES" deletionRule="\(rule.coreData)" destinationEntity="E"/>
                </entity>
                """))
        let relationship = try Self.relationship("E", "r", in: text)
        #expect(relationship["deleteRule"] as? String == rule.webRecord)
        #expect(relationship["inverse"] == nil)
    }

    @Test func mapsAbstractEntitiesAndParents() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="Base" isAbstract="YES"><attribute name="id" optional="YES" attributeType="String"/></entity>
                <entity name="Child" parentEntity="Base"/>
                """))
        #expect(try Self.entity("Base", in: text)["abstract"] as? Bool == true)
        #expect(try Self.entity("Child", in: text)["abstract"] == nil)
        #expect(try Self.entity("Child", in: text)["parent"] as? String == "Base")
        #expect(try Self.entity("Base", in: text)["parent"] == nil)
    }

    @Test func inheritsPrimaryKeysUpTheParentChain() throws {
        let key = #"<userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="%@"/></userInfo>"#
        func keyed(_ name: String) -> String { key.replacingOccurrences(of: "%@", with: name) }
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="Grandchild" parentEntity="Child">\(keyed("id"))</entity>
                <entity name="Child" parentEntity="Root"/>
                <entity name="Root"><attribute name="id" optional="YES" attributeType="String"/>\(keyed("id"))</entity>
                <entity name="Different" parentEntity="Root">\(keyed("code"))</entity>
                """))
        #expect(try Self.entity("Root", in: text)["primaryKey"] as? String == "id")
        #expect(try Self.entity("Child", in: text)["primaryKey"] == nil)
        #expect(try Self.entity("Grandchild", in: text)["primaryKey"] == nil, "same key as Root, two levels up")
        #expect(
            try Self.entity("Different", in: text)["primaryKey"] as? String == "code",
            "a different key is kept for the validator to report")
    }

    @Test func fallsBackToAPropertyLevelPrimaryKeyThenToAUniquenessConstraint() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="PropertyKeyed">
                    <attribute name="code" optional="YES" attributeType="String">
                        <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="code"/></userInfo>
                    </attribute>
                    <attribute name="later" optional="YES" attributeType="String">
                        <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="later"/></userInfo>
                    </attribute>
                </entity>
                <entity name="Unique">
                    <attribute name="id" optional="YES" attributeType="String"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="id"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                <entity name="Composite">
                    <attribute name="a" optional="YES" attributeType="String"/>
                    <attribute name="b" optional="YES" attributeType="Integer 32"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint><constraint value="a"/><constraint value="b"/></uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="Keyless"><attribute name="x" optional="YES" attributeType="String"/></entity>
                """))
        #expect(try Self.entity("PropertyKeyed", in: text)["primaryKey"] as? String == "code")
        #expect(try Self.entity("Unique", in: text)["primaryKey"] as? String == "id")
        #expect(try Self.entity("Composite", in: text)["primaryKey"] as? [String] == ["a", "b"])
        #expect(text.contains(#""primaryKey": ["a", "b"],"#))
        #expect(try Self.entity("Keyless", in: text)["primaryKey"] == nil)
    }

    @Test func ignoresOtherUserInfoKeysAndModelParts() throws {
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E" representedClassName="MyE" syncable="YES" codeGenerationType="class">
                    <attribute name="a" optional="YES" attributeType="String" syncable="YES">
                        <userInfo><entry key="mappedKeyName" value="other"/></userInfo>
                    </attribute>
                    <fetchedProperty name="f" optional="YES"><fetchRequest name="fr" entity="E"/></fetchedProperty>
                    <userInfo><entry key="relatedByAttribute" value="a"/></userInfo>
                </entity>
                <fetchRequest name="All" entity="E"/>
                <configuration name="Cloud"><memberEntity name="E"/></configuration>
                <elements><element name="E" positionX="0" positionY="0" width="128" height="60"/></elements>
                """))
        #expect(try Self.entities(in: text).keys.sorted() == ["E"])
        #expect(try Self.entity("E", in: text).keys.sorted() == ["attributes", "relationships"])
        #expect(try Self.attribute("E", "a", in: text).keys.sorted() == ["type"])
        #expect(!text.contains("MyE") && !text.contains("mappedKeyName") && !text.contains("Cloud"))
    }

    @Test func escapesStringsAsJSON() throws {
        let awkward = #"quote " backslash \ slash / tab&#9;newline&#10;cr&#13;é ☕"#
        let text = try Self.convert(
            xml: Self.model(
                """
                <entity name="E">
                    <attribute name="a" optional="YES" attributeType="String" defaultValueString="\(awkward.replacingOccurrences(of: "\"", with: "&quot;"))">
                        <userInfo><entry key="MMRecordAttributeAlternateNameKey" value="x.&lt;y&gt;"/></userInfo>
                    </attribute>
                </entity>
                """))
        let attribute = try Self.attribute("E", "a", in: text)
        #expect(attribute["default"] as? String == "quote \" backslash \\ slash / tab\tnewline\ncr\ré ☕")
        #expect(attribute["key"] as? String == "x.<y>")
        #expect(text.contains(#""default": "quote \" backslash \\ slash / tab\tnewline\ncr\ré ☕""#))
    }

    // MARK: - Reading files

    @Test func readsAModelDirectoryOrItsContentsFile() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CoreDataModelImporterTests-\(UUID().uuidString)")
            .appendingPathComponent("AppNet.xcdatamodel")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.copyItem(
            at: Self.fixtureURL(.appnet), to: directory.appendingPathComponent("contents"))

        let fromDirectory = try CoreDataModelImporter.schemaJSON(contentsOf: directory)
        let fromFile = try CoreDataModelImporter.schemaJSON(contentsOf: directory.appendingPathComponent("contents"))
        #expect(fromDirectory == fromFile)
        #expect(fromDirectory == (try Self.convert(.appnet)))
    }

    @Test func reportsAMissingFileWithoutALocation() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/Model.xcdatamodel/contents")
        let error = try #require(throws: WebRecordError.self) {
            try CoreDataModelImporter.schemaJSON(contentsOf: missing)
        }
        #expect(error.file == missing.path)
        #expect(error.line == nil && error.column == nil)
        #expect(error.message.contains("no such file"))
        #expect(error.code == .invalidSchema)
        #expect(error.description == "invalidSchema: \(missing.path): cannot read the model: no such file")
    }

    // MARK: - Errors

    @Test func reportsMalformedXMLWithLineAndColumn() throws {
        let error = try #require(
            Self.importError(
                xml: """
                    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                    <model>
                        <entity name="E">
                            <attribute name="a" attributeType="String"/>
                        </entity>
                        <entity name="F">
                    </model>
                    """))
        #expect(error.file == "Test/contents")
        #expect(error.line == 7)
        #expect(error.column == 1)
        #expect(error.message.contains("mismatched end tag: expected </entity>"))
        #expect(error.description.hasPrefix("invalidSchema: Test/contents: line 7, column 1: malformed XML: "))
    }

    @Test func reportsAnUnknownAttributeTypeNamingEntityAndAttribute() throws {
        let error = try #require(
            Self.importError(
                xml: Self.model(
                    """
                    <entity name="Post">
                        <attribute name="id" optional="YES" attributeType="String"/>
                        <attribute name="blob" optional="YES" attributeType="Undefined"/>
                    </entity>
                    """)))
        #expect(error.message == #"Post.blob: unsupported attributeType "Undefined""#)
        #expect(error.line == 5)
        #expect(error.column == 5)
        #expect(
            error.description
                == #"invalidSchema: Test/contents: line 5, column 5: Post.blob: unsupported attributeType "Undefined""#)
    }

    @Test func reportsAnEntityWithoutAName() throws {
        let error = try #require(
            Self.importError(
                xml: Self.model(
                    """
                    <entity name="Fine"/>
                    <entity representedClassName="Nameless"/>
                    """)))
        #expect(error.message == "an <entity> element has no name")
        #expect(error.line == 4)
        #expect(error.column == 1)
    }

    struct InvalidModel: Sendable, CustomStringConvertible {
        var description: String
        var xml: String
        var message: String
    }

    static let invalidModels: [InvalidModel] = [
        InvalidModel(
            description: "root is not a model", xml: "<plist><dict/></plist>",
            message: "not a Core Data model: the root element is <plist>, not <model>"),
        InvalidModel(
            description: "attribute without a type", xml: model(#"<entity name="E"><attribute name="a"/></entity>"#),
            message: "E.a: the attribute has no attributeType"),
        InvalidModel(
            description: "object ID attribute",
            xml: model(#"<entity name="E"><attribute name="a" attributeType="ObjectID"/></entity>"#),
            message: #"E.a: unsupported attributeType "ObjectID""#),
        InvalidModel(
            description: "attribute without a name",
            xml: model(#"<entity name="E"><attribute attributeType="String"/></entity>"#),
            message: "E: an <attribute> element has no name"),
        InvalidModel(
            description: "relationship without a destination",
            xml: model(#"<entity name="E"><relationship name="r" deletionRule="Nullify"/></entity>"#),
            message: "E.r: the relationship has no destinationEntity"),
        InvalidModel(
            description: "unknown deletion rule",
            xml: model(
                #"<entity name="E"><relationship name="r" deletionRule="Explode" destinationEntity="E"/></entity>"#),
            message: #"E.r: unknown deletionRule "Explode""#),
        InvalidModel(
            description: "duplicate entity", xml: model(#"<entity name="E"/><entity name="E"/>"#),
            message: "E: the model declares this entity more than once"),
        InvalidModel(
            description: "duplicate property",
            xml: model(
                #"<entity name="E"><attribute name="a" attributeType="String"/><relationship name="a" destinationEntity="E"/></entity>"#
            ),
            message: "E.a: the entity declares this property more than once"),
        InvalidModel(
            description: "integer default that is not an integer",
            xml: model(
                #"<entity name="E"><attribute name="n" attributeType="Integer 16" defaultValueString="1.5"/></entity>"#),
            message: #"E.n: default value "1.5" is not an integer"#),
        InvalidModel(
            description: "double default that is not a number",
            xml: model(
                #"<entity name="E"><attribute name="d" attributeType="Double" defaultValueString="nan"/></entity>"#),
            message: #"E.d: default value "nan" is not a number"#),
        InvalidModel(
            description: "decimal default with more digits than a decimal holds",
            xml: model(
                #"<entity name="E"><attribute name="m" attributeType="Decimal" defaultValueString="0.10000000000000000000000000000000000000001"/></entity>"#
            ),
            message:
                #"E.m: default value "0.10000000000000000000000000000000000000001" is not a decimal number of at most 38 significant digits"#
        ),
        InvalidModel(
            description: "boolean default that is not a boolean",
            xml: model(
                #"<entity name="E"><attribute name="b" attributeType="Boolean" defaultValueString="maybe"/></entity>"#),
            message: #"E.b: default value "maybe" is not a boolean"#),
        InvalidModel(
            description: "userInfo entry without a key",
            xml: model(#"<entity name="E"><userInfo><entry value="x"/></userInfo></entity>"#),
            message: "E: a userInfo <entry> has no key"),
    ]

    @Test(arguments: invalidModels)
    func rejectsModelsWithoutAWebRecordEquivalent(_ example: InvalidModel) throws {
        let error = try #require(Self.importError(xml: example.xml))
        #expect(error.message == example.message)
        #expect(error.line != nil && error.column != nil)
    }
}
