import Foundation
import Testing

@testable import WebRecord

/// Loading schema files that are valid: what the loader builds from them.
@Suite struct SchemaLoadingTests {
    // MARK: - Helpers

    static func load(_ json: String, file: String = "schema.json") throws -> Schema {
        try Schema(json: json, fileName: file)
    }

    static func entity(_ name: String, in schema: Schema) throws -> Entity {
        try #require(schema.entity(named: name), "\(name) is loaded")
    }

    static func attribute(_ entity: String, _ name: String, in schema: Schema) throws -> Attribute {
        try #require(try self.entity(entity, in: schema).attribute(named: name), "\(entity).\(name) is loaded")
    }

    static func relationship(_ entity: String, _ name: String, in schema: Schema) throws -> Relationship {
        try #require(try self.entity(entity, in: schema).relationship(named: name), "\(entity).\(name) is loaded")
    }

    /// A blog: posts by authors, with comments. Used by several tests.
    static let blog = """
        {
          "version": 1,
          "description": "A blog.",
          "dateFormats": ["yyyy-MM-dd HH:mm", "dd/MM/yyyy"],
          "entities": {
            "Post": {
              "description": "A post.",
              "primaryKey": "id",
              "keyPathForResponseObject": "data.posts",
              "attributes": {
                "id": { "type": "integer" },
                "title": { "type": "string", "key": ["headline", "meta.title"], "optional": false },
                "published": { "type": "date", "key": "published_at", "dateFormat": "yyyyMMdd", "indexed": true },
                "score": { "type": "double", "default": 1.5 },
                "draft": { "type": "boolean", "default": false },
                "body": { "type": "json", "transformer": "markdown", "description": "Raw body." }
              },
              "relationships": {
                "author": { "destination": "Author", "inverse": "posts", "key": "written_by", "optional": false },
                "comments": {
                  "destination": "Comment", "toMany": true, "ordered": true, "inverse": "post",
                  "deleteRule": "cascade", "merge": "replace", "description": "In thread order."
                }
              }
            },
            "Author": {
              "primaryKey": "handle",
              "attributes": { "handle": { "type": "string" } },
              "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "author" } }
            },
            "Comment": {
              "primaryKey": ["post_id", "number"],
              "attributes": {
                "post_id": { "type": "integer" },
                "number": { "type": "integer" },
                "text": { "type": "string", "default": null }
              },
              "relationships": { "post": { "destination": "Post", "inverse": "comments", "deleteRule": "deny" } }
            }
          }
        }
        """

    // MARK: - One file

    @Test func loadsEntitiesInDeclarationOrder() throws {
        let schema = try Self.load(Self.blog)
        #expect(schema.version == 1)
        #expect(schema.entities.map(\.name) == ["Post", "Author", "Comment"])
        #expect(schema.rootEntities.map(\.name) == ["Post", "Author", "Comment"])
        #expect(schema.dateFormats == ["yyyy-MM-dd HH:mm", "dd/MM/yyyy"])
        #expect(schema.entity(named: "post") == nil, "lookup is by exact name")
        let post = try Self.entity("Post", in: schema)
        #expect(post.fileName == "schema.json")
        #expect(post.keyPathForResponseObject == "data.posts")
        #expect(post.attributes.map(\.name) == ["id", "title", "published", "score", "draft", "body"])
        #expect(post.relationships.map(\.name) == ["author", "comments"])
        #expect(post.attributes.allSatisfy { $0.entityName == "Post" })
    }

    @Test func readsEveryAttributeOption() throws {
        let schema = try Self.load(Self.blog)
        let title = try Self.attribute("Post", "title", in: schema)
        #expect(title.type == .string)
        #expect(title.keyPaths == ["headline", "meta.title", "title"])
        #expect(title.isOptional == false)

        let published = try Self.attribute("Post", "published", in: schema)
        #expect(published.type == .date)
        #expect(published.keyPaths == ["published_at", "published"])
        #expect(published.dateFormat == "yyyyMMdd")
        #expect(published.isIndexed)

        let score = try Self.attribute("Post", "score", in: schema)
        #expect(score.defaultValue == .double(1.5))
        #expect(try Self.attribute("Post", "draft", in: schema).defaultValue == .bool(false))
        #expect(try Self.attribute("Post", "body", in: schema).transformer == "markdown")
        #expect(try Self.attribute("Comment", "text", in: schema).defaultValue == nil, "a null default is no default")
    }

    @Test func fillsAttributeDefaults() throws {
        let schema = try Self.load(Self.blog)
        let id = try Self.attribute("Post", "id", in: schema)
        #expect(id.keyPaths == ["id"])
        #expect(id.isOptional)
        #expect(id.defaultValue == nil)
        #expect(!id.isIndexed)
        #expect(id.dateFormat == nil)
        #expect(id.transformer == nil)
    }

    @Test func readsEveryRelationshipOption() throws {
        let schema = try Self.load(Self.blog)
        let comments = try Self.relationship("Post", "comments", in: schema)
        #expect(comments.destination == "Comment")
        #expect(comments.isToMany)
        #expect(comments.isOrdered)
        #expect(comments.inverse == "post")
        #expect(comments.deleteRule == .cascade)
        #expect(comments.mergePolicy == .replace)
        #expect(comments.keyPaths == ["comments"])

        let author = try Self.relationship("Post", "author", in: schema)
        #expect(author.keyPaths == ["written_by", "author"])
        #expect(author.isOptional == false)
        #expect(try Self.relationship("Comment", "post", in: schema).deleteRule == .deny)
    }

    @Test func fillsRelationshipDefaults() throws {
        let schema = try Self.load(Self.blog)
        let posts = try Self.relationship("Author", "posts", in: schema)
        #expect(posts.isToMany)
        #expect(!posts.isOrdered)
        #expect(posts.deleteRule == .nullify)
        #expect(posts.mergePolicy == .replace)  // DESIGN §3.11: a nested list is the server's snapshot
        #expect(posts.isOptional)
        let post = try Self.relationship("Comment", "post", in: schema)
        #expect(!post.isToMany)
        #expect(post.mergePolicy == .replace)
    }

    @Test func readsTheThreeKindsOfPrimaryKey() throws {
        let schema = try Self.load(
            """
            {
              "entities": {
                "User": {
                  "primaryKey": ["id"],
                  "attributes": { "id": { "type": "string" } },
                  "relationships": { "counts": { "destination": "Counts", "inverse": "user" } }
                },
                "Counts": {
                  "primaryKey": "user",
                  "attributes": { "followers": { "type": "integer" } },
                  "relationships": { "user": { "destination": "User", "inverse": "counts" } }
                },
                "Edition": {
                  "primaryKey": ["isbn", "printing"],
                  "attributes": { "isbn": { "type": "string" }, "printing": { "type": "integer" } }
                },
                "Note": { "attributes": { "text": { "type": "string" } } }
              }
            }
            """)
        #expect(
            try Self.entity("User", in: schema).primaryKey == .attribute("id"), "a one-element array is one attribute")
        #expect(try Self.entity("Counts", in: schema).primaryKey == .relationship("user"))
        #expect(try Self.entity("Edition", in: schema).primaryKey == .composite(["isbn", "printing"]))
        #expect(try Self.entity("Edition", in: schema).primaryKey?.propertyNames == ["isbn", "printing"])
        #expect(try Self.entity("Note", in: schema).primaryKey == nil)
        #expect(schema.version == 1, "version defaults to 1")
        #expect(schema.dateFormats.isEmpty)
    }

    @Test func nullMeansAbsentForOptionalKeys() throws {
        let schema = try Self.load(
            """
            {
              "version": null, "dateFormats": null, "description": null,
              "entities": {
                "Post": {
                  "primaryKey": null, "keyPathForResponseObject": null, "parent": null, "abstract": null,
                  "subentities": null, "attributes": null, "relationships": null
                },
                "Tag": {
                  "attributes": { "name": { "type": "string", "key": null, "optional": null, "default": null,
                                            "indexed": null, "dateFormat": null, "transformer": null } },
                  "relationships": { "post": { "destination": "Post", "toMany": null, "ordered": null, "inverse": null,
                                               "key": null, "deleteRule": null, "merge": null, "optional": null } }
                }
              }
            }
            """)
        let post = try Self.entity("Post", in: schema)
        #expect(post.primaryKey == nil && post.keyPathForResponseObject == nil && post.parentName == nil)
        #expect(!post.isAbstract && post.subentityDiscriminator == nil)
        #expect(post.attributes.isEmpty && post.relationships.isEmpty)
        let name = try Self.attribute("Tag", "name", in: schema)
        #expect(name.keyPaths == ["name"] && name.isOptional && name.defaultValue == nil && !name.isIndexed)
        let relationship = try Self.relationship("Tag", "post", in: schema)
        #expect(!relationship.isToMany && relationship.deleteRule == .nullify && relationship.mergePolicy == .replace)
    }

    // MARK: - Candidate keys

    @Test(arguments: [
        (#""key": "created_at""#, ["created_at", "date"]),
        (#""key": ["created_at", "timestamp"]"#, ["created_at", "timestamp", "date"]),
        (#""key": ["created_at", "date", "timestamp"]"#, ["created_at", "date", "timestamp"]),
        (#""key": ["date", "created_at"]"#, ["date", "created_at"]),
        (#""key": []"#, ["date"]),
        (#""key": null"#, ["date"]),
        (#""optional": true"#, ["date"]),
    ])
    func candidateKeysAreTheKeyEntriesThenTheName(_ option: String, _ expected: [String]) throws {
        let schema = try Self.load(
            """
            { "entities": { "Post": { "attributes": { "date": { "type": "date", \(option) } } } } }
            """)
        #expect(try Self.attribute("Post", "date", in: schema).keyPaths == expected)
    }

    // MARK: - Several files

    static let people = """
        {
          "dateFormats": ["dd/MM/yyyy", "yyyy-MM-dd HH:mm"],
          "entities": {
            "Person": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "integer" } },
              "relationships": { "address": { "destination": "Address", "inverse": "resident" } }
            }
          }
        }
        """
    static let places = """
        {
          "dateFormats": ["yyyy"],
          "entities": {
            "Address": {
              "primaryKey": "resident",
              "attributes": { "street": { "type": "string" } },
              "relationships": { "resident": { "destination": "Person", "inverse": "address" } }
            }
          }
        }
        """

    @Test func relationshipsMayCrossFiles() throws {
        let schema = try Schema(sources: [
            (file: "people.json", data: Data(Self.people.utf8)),
            (file: "places.json", data: Data(Self.places.utf8)),
        ])
        #expect(schema.entities.map(\.name) == ["Person", "Address"])
        #expect(try Self.entity("Person", in: schema).fileName == "people.json")
        #expect(try Self.entity("Address", in: schema).fileName == "places.json")
        #expect(try Self.relationship("Person", "address", in: schema).destination == "Address")
        #expect(try Self.entity("Address", in: schema).primaryKey == .relationship("resident"))
        #expect(
            schema.dateFormats == ["dd/MM/yyyy", "yyyy-MM-dd HH:mm", "yyyy"],
            "formats merge, first file first, without repeats")
    }

    @Test func loadsSeveralFilesFromDisk() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SchemaLoadingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("people.json")
        let second = directory.appendingPathComponent("places.json")
        try Data(Self.people.utf8).write(to: first)
        try Data(Self.places.utf8).write(to: second)

        let schema = try Schema(contentsOf: [first, second])
        #expect(schema.entities.map(\.name) == ["Person", "Address"])
        #expect(try Self.entity("Address", in: schema).fileName == second.relativePath)

        let third = directory.appendingPathComponent("tags.json")
        try Data(
            #"{ "entities": { "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } } } }"#.utf8
        )
        .write(to: third)
        let single = try Schema(contentsOf: third)
        #expect(single.entities.map(\.name) == ["Tag"])
        #expect(single.entities.first?.fileName == third.relativePath)
    }

    @Test func aFileOnItsOwnCannotReachAnotherFilesEntity() throws {
        let error = try #require(throws: WebRecordError.self) {
            try Schema(json: Self.places, fileName: "places.json")
        }
        #expect(
            error.schemaProblems.map(\.description) == ["places.json: Address.resident: unknown destination 'Person'"])
    }

    // MARK: - Inheritance

    /// A hierarchy declared children first, over two files: Link > (InwardLink > Blocker), OutwardLink.
    static let links = """
        {
          "entities": {
            "Blocker": {
              "parent": "InwardLink",
              "keyPathForResponseObject": "blockers",
              "attributes": { "severity": { "type": "integer" } }
            },
            "InwardLink": {
              "parent": "Link",
              "primaryKey": "id",
              "subentities": { "key": "kind", "map": { "blocks": "Blocker", "7": "Blocker" } },
              "attributes": { "inwardKey": { "type": "string", "key": "inwardIssue.key" } },
              "relationships": { "inwardIssue": { "destination": "Issue" } }
            },
            "OutwardLink": { "parent": "Link" }
          }
        }
        """
    static let linkBase = """
        {
          "entities": {
            "Link": {
              "abstract": true,
              "primaryKey": "id",
              "keyPathForResponseObject": "fields.issuelinks",
              "subentities": { "present": { "outwardIssue": "OutwardLink", "inwardIssue": "InwardLink" } },
              "attributes": { "id": { "type": "string" }, "name": { "type": "string", "key": "type.name" } },
              "relationships": { "issue": { "destination": "Issue", "inverse": "links" } }
            },
            "Issue": {
              "primaryKey": "key",
              "attributes": { "key": { "type": "string" } },
              "relationships": { "links": { "destination": "Link", "toMany": true, "inverse": "issue" } }
            }
          }
        }
        """

    static func linkSchema() throws -> Schema {
        try Schema(sources: [
            (file: "links.json", data: Data(links.utf8)),
            (file: "base.json", data: Data(linkBase.utf8)),
        ])
    }

    @Test func subEntitiesInheritAttributesRelationshipsAndKey() throws {
        let schema = try Self.linkSchema()
        let inward = try Self.entity("InwardLink", in: schema)
        #expect(inward.parentName == "Link")
        #expect(inward.rootName == "Link")
        #expect(!inward.isRoot)
        #expect(!inward.isAbstract)
        #expect(inward.attributes.map(\.name) == ["id", "name", "inwardKey"], "inherited attributes come first")
        #expect(inward.attributes.map(\.entityName) == ["Link", "Link", "InwardLink"])
        #expect(inward.relationships.map(\.name) == ["issue", "inwardIssue"])
        #expect(inward.relationship(named: "issue")?.entityName == "Link")
        #expect(inward.attribute(named: "name")?.keyPaths == ["type.name", "name"])
        #expect(inward.primaryKey == .attribute("id"), "repeating the parent's key is allowed")
        #expect(inward.keyPathForResponseObject == "fields.issuelinks")

        let blocker = try Self.entity("Blocker", in: schema)
        #expect(blocker.rootName == "Link")
        #expect(blocker.attributes.map(\.name) == ["id", "name", "inwardKey", "severity"])
        #expect(blocker.relationships.map(\.name) == ["issue", "inwardIssue"])
        #expect(blocker.primaryKey == .attribute("id"))
        #expect(blocker.keyPathForResponseObject == "blockers", "a sub-entity may set its own key path")

        let outward = try Self.entity("OutwardLink", in: schema)
        #expect(outward.attributes.map(\.name) == ["id", "name"])
        #expect(outward.primaryKey == .attribute("id"))
        #expect(outward.subentityNames.isEmpty)
        #expect(outward.fileName == "links.json")
    }

    @Test func hierarchiesAreNavigable() throws {
        let schema = try Self.linkSchema()
        let link = try Self.entity("Link", in: schema)
        #expect(link.isAbstract)
        #expect(link.isRoot)
        #expect(link.subentityNames == ["InwardLink", "OutwardLink"], "in declaration order")
        #expect(try Self.entity("InwardLink", in: schema).subentityNames == ["Blocker"])
        #expect(schema.rootEntities.map(\.name) == ["Link", "Issue"])
        #expect(schema.hierarchy(from: "Link").map(\.name) == ["Link", "InwardLink", "Blocker", "OutwardLink"])
        #expect(schema.hierarchy(from: "Nothing").isEmpty)
        #expect(schema.entity("Blocker", isKindOf: "Link"))
        #expect(schema.entity("Blocker", isKindOf: "Blocker"))
        #expect(!schema.entity("OutwardLink", isKindOf: "InwardLink"))
        #expect(!schema.entity("Link", isKindOf: "Blocker"))
    }

    @Test func inverseMayNameAnInheritedRelationship() throws {
        let schema = try Self.linkSchema()
        #expect(try Self.relationship("Issue", "links", in: schema).inverse == "issue")
        #expect(try Self.entity("Blocker", in: schema).relationship(named: "issue")?.destination == "Issue")
    }

    @Test func readsDiscriminators() throws {
        let schema = try Self.linkSchema()
        let presence = try #require(try Self.entity("Link", in: schema).subentityDiscriminator)
        guard case .presence(let pairs) = presence else {
            Issue.record("Link's discriminator is by presence, not \(presence)")
            return
        }
        #expect(pairs.map(\.key) == ["outwardIssue", "inwardIssue"], "in declaration order")
        #expect(pairs.map(\.entity) == ["OutwardLink", "InwardLink"])
        #expect(presence.entityNames == ["OutwardLink", "InwardLink"])

        let byValue = try Self.entity("InwardLink", in: schema).subentityDiscriminator
        #expect(byValue == .value(key: "kind", map: ["blocks": "Blocker", "7": "Blocker"]))
        #expect(byValue?.entityNames == ["Blocker", "Blocker"])
        #expect(
            try Self.entity("Blocker", in: schema).subentityDiscriminator == nil, "discriminators are not inherited")
    }

    @Test func aDeeperDescendantMayBeChosenByTheRoot() throws {
        let schema = try Self.load(
            """
            {
              "entities": {
                "Shape": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } },
                           "subentities": { "key": "kind", "map": { "square": "Square" } } },
                "Polygon": { "parent": "Shape", "attributes": { "sides": { "type": "integer" } } },
                "Square": { "parent": "Polygon", "attributes": { "side": { "type": "double" } } }
              }
            }
            """)
        #expect(try Self.entity("Shape", in: schema).subentityDiscriminator?.entityNames == ["Square"])
        #expect(try Self.entity("Square", in: schema).attributes.map(\.name) == ["id", "sides", "side"])
    }
}
