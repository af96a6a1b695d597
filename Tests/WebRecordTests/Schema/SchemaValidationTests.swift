import Foundation
import Testing

@testable import WebRecord

/// Schema files that are wrong: every problem the loader reports, with its file, entity,
/// property and exact message.
@Suite struct SchemaValidationTests {
    /// One schema file given to the loader.
    struct Source: Sendable {
        var file: String
        var text: String
    }

    /// A named table row: files in, the exact problems out.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var sources: [Source]
        var problems: [SchemaProblem]

        var testDescription: String { name }

        init(_ name: String, _ text: String, _ problems: [SchemaProblem]) {
            self.init(name, files: [Source(file: "Blog.json", text: text)], problems)
        }

        init(_ name: String, files: [Source], _ problems: [SchemaProblem]) {
            self.name = name
            self.sources = files
            self.problems = problems
        }
    }

    /// A problem in Blog.json.
    static func problem(_ entity: String?, _ property: String?, _ message: String) -> SchemaProblem {
        SchemaProblem(file: "Blog.json", entity: entity, property: property, message: message)
    }

    /// A schema file holding these entities.
    static func entities(_ body: String) -> String {
        #"{ "version": 1, "entities": { \#(body) } }"#
    }

    static func load(_ sources: [Source]) throws(WebRecordError) -> Schema {
        try Schema(sources: sources.map { (file: $0.file, data: Data($0.text.utf8)) })
    }

    static let typeList = "string, integer, double, decimal, boolean, date, data, uuid, url, json"

    /// A Link hierarchy with room for one more declaration in each entity.
    static func links(link: String = "", inward: String = "", outward: String = "") -> String {
        entities(
            """
            "Link": { "primaryKey": "id", "attributes": { "id": { "type": "string" } }\(link) },
            "InwardLink": { "parent": "Link"\(inward) },
            "OutwardLink": { "parent": "Link"\(outward) },
            "Issue": { "primaryKey": "key", "attributes": { "key": { "type": "string" } } }
            """)
    }

    // MARK: - References

    static let references: [Case] = [
        Case(
            "unknown destination, with a suggestion",
            entities(#""Post": { "relationships": { "author": { "destination": "Auther" } } }, "Author": {}"#),
            [problem("Post", "author", "unknown destination 'Auther' (did you mean 'Author'?)")]),
        Case(
            "unknown destination, reported once: the inverse that names it is not reported again",
            entities(
                #""Item": { "relationships": { "publisher": { "destination": "Publsher", "inverse": "items" } } }, "Publisher": { "relationships": { "items": { "destination": "Item", "toMany": true, "inverse": "publisher" } } }"#
            ),
            [problem("Item", "publisher", "unknown destination 'Publsher' (did you mean 'Publisher'?)")]),
        Case(
            "unknown destination, nothing close",
            entities(#""Post": { "relationships": { "tags": { "destination": "Keyword", "toMany": true } } }"#),
            [problem("Post", "tags", "unknown destination 'Keyword'")]),
        Case(
            "unknown parent",
            entities(#""Link": {}, "InwardLink": { "parent": "Lnk" }"#),
            [problem("InwardLink", nil, "unknown parent 'Lnk' (did you mean 'Link'?)")]),
        Case(
            "primary key naming no property",
            entities(#""Post": { "primaryKey": "idd", "attributes": { "id": { "type": "string" } } }"#),
            [problem("Post", "idd", "primary key names no property (did you mean 'id'?)")]),
        Case(
            "inverse missing on the destination",
            entities(
                """
                "Post": { "relationships": { "author": { "destination": "Author", "inverse": "post" } } },
                "Author": { "relationships": { "posts": { "destination": "Post", "toMany": true } } }
                """),
            [problem("Post", "author", "inverse 'post' does not exist on Author (did you mean 'posts'?)")]),
        Case(
            "inverse pointing to another relationship",
            entities(
                """
                "Post": { "relationships": {
                  "author": { "destination": "Author", "inverse": "posts" },
                  "editor": { "destination": "Author", "inverse": "posts" } } },
                "Author": { "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "editor" } } }
                """),
            [problem("Post", "author", "inverse Author.posts does not point back (it points to Post.editor)")]),
        Case(
            "inverse pointing to another entity",
            entities(
                """
                "Post": { "relationships": { "author": { "destination": "Author", "inverse": "items" } } },
                "Author": { "relationships": { "items": { "destination": "Comment", "toMany": true, "inverse": "author" } } },
                "Comment": { "relationships": { "author": { "destination": "Author", "inverse": "items" } } }
                """),
            [problem("Post", "author", "inverse Author.items does not point back (it points to Comment.author)")]),
        Case(
            "inverse declared on one side only",
            entities(
                """
                "Post": { "relationships": { "author": { "destination": "Author", "inverse": "posts" } } },
                "Author": { "relationships": { "posts": { "destination": "Post", "toMany": true } } }
                """),
            [
                problem(
                    "Post", "author",
                    #"inverse Author.posts does not point back (it has no 'inverse'; add "inverse": "author")"#)
            ]),
        Case(
            "sub-entity discriminator naming an entity outside the hierarchy",
            links(link: #", "subentities": { "present": { "inwardIssue": "InwardLink", "issue": "Issue" } }"#),
            [problem("Link", nil, "subentities names 'Issue', which is not a sub-entity of Link")]),
        Case(
            "sub-entity discriminator naming the entity itself",
            links(link: #", "subentities": { "key": "kind", "map": { "base": "Link" } }"#),
            [problem("Link", nil, "subentities names 'Link', which is not a sub-entity of Link")]),
        Case(
            "sub-entity discriminator naming an unknown entity",
            links(link: #", "subentities": { "present": { "inwardIssue": "InwardLnk" } }"#),
            [problem("Link", nil, "subentities names 'InwardLnk', which is not an entity (did you mean 'InwardLink'?)")]
        ),
    ]

    // MARK: - Types, options and values

    static let options: [Case] = [
        Case(
            "unknown type, with a suggestion",
            entities(#""Post": { "attributes": { "title": { "type": "strng" } } }"#),
            [problem("Post", "title", "unknown type 'strng' (did you mean 'string'?)")]),
        Case(
            "Core Data type name",
            entities(#""Post": { "attributes": { "views": { "type": "Integer 32" }, "lat": { "type": "Float" } } }"#),
            [
                problem("Post", "views", "unknown type 'Integer 32' (did you mean 'integer'?)"),
                problem("Post", "lat", "unknown type 'Float' (did you mean 'double'?)"),
            ]),
        Case(
            "unknown type, nothing close",
            entities(#""Post": { "attributes": { "shape": { "type": "polygon" } } }"#),
            [problem("Post", "shape", "unknown type 'polygon'")]),
        Case(
            "missing type",
            entities(#""Post": { "attributes": { "title": { "key": "name" } } }"#),
            [problem("Post", "title", "missing 'type' (one of \(typeList))")]),
        Case(
            "type that is not a string",
            entities(#""Post": { "attributes": { "title": { "type": 1 } } }"#),
            [problem("Post", "title", "'type' must be one of \(typeList), not a number")]),
        Case(
            "attribute that is not an object",
            entities(#""Post": { "attributes": { "title": "string" } }"#),
            [problem("Post", "title", "an attribute must be an object, not a string")]),
        Case(
            "property with a bad type is not reported again where it is used",
            entities(
                """
                "Post": { "primaryKey": "id", "attributes": { "id": { "type": "strng" } },
                          "relationships": { "author": { "destination": "Author", "inverse": "posts" } } },
                "Author": { "relationships": { "posts": { "destinaton": "Post", "toMany": true, "inverse": "author" } } }
                """),
            [
                problem("Post", "id", "unknown type 'strng' (did you mean 'string'?)"),
                problem("Author", "posts", "unknown relationship key 'destinaton' (did you mean 'destination'?)"),
                problem("Author", "posts", "missing 'destination'"),
            ]),
        Case(
            "entity that is not an object",
            entities(#""Post": "entity""#),
            [problem("Post", nil, "an entity must be an object, not a string")]),
        Case(
            "attributes and relationships that are not objects",
            entities(#""Post": { "attributes": [], "relationships": "none" }"#),
            [
                problem("Post", nil, "'attributes' must be an object, not an empty array"),
                problem("Post", nil, "'relationships' must be an object, not a string"),
            ]),
        Case(
            "relationship that is not an object",
            entities(#""Post": { "relationships": { "user": "string" } }"#),
            [problem("Post", "user", "a relationship must be an object, not a string")]),
        Case(
            "missing destination",
            entities(#""Post": { "relationships": { "author": { "inverse": "posts" } } }"#),
            [problem("Post", "author", "missing 'destination'")]),
        Case(
            "unknown deleteRule",
            entities(
                #""Post": { "relationships": { "tags": { "destination": "Post", "toMany": true, "deleteRule": "delete" } } }"#
            ),
            [problem("Post", "tags", "unknown deleteRule 'delete' (use nullify, cascade or deny)")]),
        Case(
            "unknown merge",
            entities(
                #""Post": { "relationships": { "tags": { "destination": "Post", "toMany": true, "merge": "merge" } } }"#
            ),
            [problem("Post", "tags", "unknown merge 'merge' (use union or replace)")]),
        Case(
            "merge on a to-one",
            entities(#""Post": { "relationships": { "next": { "destination": "Post", "merge": "replace" } } }"#),
            [problem("Post", "next", "'merge' applies only to to-many relationships")]),
        Case(
            "ordered on a to-one",
            entities(#""Post": { "relationships": { "next": { "destination": "Post", "ordered": true } } }"#),
            [problem("Post", "next", "'ordered' applies only to to-many relationships")]),
        Case(
            "dateFormat on a string",
            entities(#""Post": { "attributes": { "title": { "type": "string", "dateFormat": "yyyy" } } }"#),
            [problem("Post", "title", "'dateFormat' applies only to date attributes")]),
        Case(
            "options of the wrong JSON type",
            entities(
                """
                "Post": { "abstract": 1, "parent": 5, "attributes": { "title": { "type": "string", "optional": "yes" } } }
                """),
            [
                problem("Post", nil, "'parent' must be a string, not a number"),
                problem("Post", nil, "'abstract' must be true or false, not a number"),
                problem("Post", "title", "'optional' must be true or false, not a string"),
            ]),
        Case(
            "key of the wrong JSON type",
            entities(#""Post": { "attributes": { "title": { "type": "string", "key": 7 } } }"#),
            [problem("Post", "title", "'key' must be a key path or an array of key paths, not a number")]),
        Case(
            "key paths with empty components",
            entities(
                """
                "Post": { "keyPathForResponseObject": "data.", "attributes": { "title": { "type": "string", "key": ["meta..title"] } } }
                """),
            [
                problem("Post", nil, "'keyPathForResponseObject' key path 'data.' has an empty component"),
                problem("Post", "title", "'key' key path 'meta..title' has an empty component"),
            ]),
        Case(
            "a detail key path: empty is the response itself, a malformed one or another type is refused",
            entities(
                """
                "Post": { "keyPathForDetailResponse": "", "attributes": { "title": { "type": "string" } } },
                "Note": { "keyPathForDetailResponse": "data..note", "attributes": { "title": { "type": "string" } } },
                "Tag": { "keyPathForDetailResponse": 5, "attributes": { "title": { "type": "string" } } }
                """),
            [
                problem("Note", nil, "'keyPathForDetailResponse' key path 'data..note' has an empty component"),
                problem("Tag", nil, "'keyPathForDetailResponse' must be a string, not a number"),
            ]),
        Case(
            "bad defaults",
            entities(
                """
                "Post": { "attributes": {
                  "views": { "type": "integer", "default": "zero" },
                  "ratio": { "type": "double", "default": true },
                  "draft": { "type": "boolean", "default": "maybe" },
                  "published": { "type": "date", "default": "yesterday" },
                  "edited": { "type": "date", "default": "2016-12-31T23:59:60Z" },
                  "token": { "type": "uuid", "default": "not-a-uuid" },
                  "blob": { "type": "data", "default": "%%%" },
                  "half": { "type": "integer", "default": 0.5 }
                } }
                """),
            [
                problem("Post", "views", #"default "zero" is not an integer"#),
                problem("Post", "ratio", "default true is not a number (finite, in a double's range)"),
                problem("Post", "draft", #"default "maybe" is not a boolean"#),
                problem("Post", "published", #"default "yesterday" is not a date"#),
                problem(
                    "Post", "edited",
                    #"default "2016-12-31T23:59:60Z" is not a date (second 60 is a leap second, which Unix time has no instant for)"#
                ),
                problem("Post", "token", #"default "not-a-uuid" is not a UUID"#),
                problem("Post", "blob", #"default "%%%" is not base64 data"#),
                problem("Post", "half", "default 0.5 is not an integer"),
            ]),
        Case(
            "sub-entity discriminator with both forms",
            links(
                link:
                    #", "subentities": { "key": "kind", "map": { "in": "InwardLink" }, "present": { "inwardIssue": "InwardLink" } }"#
            ),
            [problem("Link", nil, "'subentities' takes either 'key' and 'map' or 'present', not both")]),
        Case(
            "sub-entity discriminator by presence not naming entities",
            links(link: #", "subentities": { "present": { "inwardIssue": true } }"#),
            [problem("Link", nil, "'subentities.present' must map keys to entity names")]),
        Case(
            "sub-entity discriminator without its map",
            links(link: #", "subentities": { "key": "kind" }"#),
            [problem("Link", nil, "'subentities' needs 'key' (a key path) and 'map' (values to entity names)")]),
    ]

    // MARK: - Unknown keys

    static let unknownKeys: [Case] = [
        Case(
            "unknown top-level key",
            #"{ "version": 1, "entitys": {} }"#,
            [
                problem(nil, nil, "unknown schema key 'entitys' (did you mean 'entities'?)"),
                problem(nil, nil, "missing 'entities'"),
            ]),
        Case(
            "unknown entity key",
            entities(#""Post": { "primarykey": "id", "attributes": { "id": { "type": "string" } } }"#),
            [problem("Post", nil, "unknown entity key 'primarykey' (did you mean 'primaryKey'?)")]),
        Case(
            "unknown attribute key",
            entities(#""Post": { "attributes": { "id": { "type": "string", "optinal": false } } }"#),
            [problem("Post", "id", "unknown attribute key 'optinal' (did you mean 'optional'?)")]),
        Case(
            "unknown relationship key",
            entities(#""Post": { "relationships": { "tags": { "destination": "Post", "tomany": true } } }"#),
            [problem("Post", "tags", "unknown relationship key 'tomany' (did you mean 'toMany'?)")]),
        Case(
            "unknown key far from any known one",
            entities(#""Post": { "attributes": { "id": { "type": "string", "color": "red" } } }"#),
            [problem("Post", "id", "unknown attribute key 'color'")]),
        Case(
            "unknown sub-entity discriminator key",
            links(link: #", "subentities": { "key": "kind", "map": { "in": "InwardLink" }, "maps": {} }"#),
            [problem("Link", nil, "unknown subentities key 'maps' (did you mean 'map'?)")]),
    ]

    // MARK: - Names

    static let names: [Case] = [
        Case(
            "attribute and relationship with one name",
            entities(
                """
                "Post": { "attributes": { "user": { "type": "string" } }, "relationships": { "user": { "destination": "Post" } } }
                """),
            [problem("Post", "user", "duplicate property name; also declared as attribute 'user'")]),
        Case(
            "names differing only in case",
            entities(#""Post": { "attributes": { "name": { "type": "string" }, "Name": { "type": "string" } } }"#),
            [
                problem(
                    "Post", "Name",
                    "duplicate property name; also declared as attribute 'name' (names are case-insensitive in SQLite)")
            ]),
        Case(
            "sub-entity redeclaring an inherited name",
            links(
                inward:
                    #", "attributes": { "id": { "type": "string" } }, "relationships": { "ID": { "destination": "Issue" } }"#
            ),
            [
                problem("InwardLink", "id", "duplicate property name; Link already declares attribute 'id'"),
                problem(
                    "InwardLink", "ID",
                    "duplicate property name; Link already declares attribute 'id' (names are case-insensitive in SQLite)"
                ),
            ]),
        Case(
            "siblings declaring one column",
            entities(
                """
                "Link": { "primaryKey": "id", "attributes": { "id": { "type": "string" } } },
                "InwardLink": { "parent": "Link", "attributes": { "issueKey": { "type": "string" } },
                                "relationships": { "target": { "destination": "Issue" } } },
                "OutwardLink": { "parent": "Link", "attributes": { "issueKey": { "type": "string" } },
                                 "relationships": { "Target": { "destination": "Issue" } } },
                "Issue": {}
                """),
            [
                problem(
                    "OutwardLink", "issueKey",
                    "InwardLink declares 'issueKey' too; one table holds the Link hierarchy, so names must differ"),
                problem(
                    "OutwardLink", "Target",
                    "InwardLink declares 'target' too; one table holds the Link hierarchy, so names must differ (names are case-insensitive in SQLite)"
                ),
            ]),
        Case(
            "entity declared in two files",
            files: [
                Source(file: "A.json", text: entities(#""Post": {}"#)),
                Source(file: "B.json", text: entities(#""Post": {}, "Author": {}"#)),
            ],
            [SchemaProblem(file: "B.json", entity: "Post", message: "duplicate entity name; also declared in A.json")]),
        Case(
            "entity names differing only in case",
            files: [
                Source(file: "A.json", text: entities(#""Post": {}"#)),
                Source(file: "B.json", text: entities(#""post": {}"#)),
            ],
            [
                SchemaProblem(
                    file: "B.json", entity: "post",
                    message:
                        "duplicate entity name; also declared as 'Post' in A.json (names are case-insensitive in SQLite)"
                )
            ]),
        Case(
            "entity declared twice in one file",
            "{\n  \"entities\": {\n    \"Post\": {},\n    \"Post\": {}\n  }\n}",
            [problem("Post", nil, "entity declared twice in this file (again at line 4, column 5)")]),
        Case(
            "entity declared twice in one file, once with an escape",
            "{\n  \"entities\": {\n    \"Post\": {},\n    \"P\\u006fst\": {}\n  }\n}",
            [problem("Post", nil, "entity declared twice in this file (again at line 4, column 5)")]),
        Case(
            "attribute declared twice in one file",
            "{ \"entities\": { \"Post\": { \"attributes\": {\n  \"id\": { \"type\": \"string\" },\n  \"id\": { \"type\": \"integer\" }\n} } } }",
            [problem("Post", "id", "declared twice in 'attributes' (again at line 3, column 3)")]),
        Case(
            "option written twice",
            "{ \"entities\": { \"Post\": { \"attributes\": {\n  \"id\": { \"type\": \"string\", \"type\": \"integer\" }\n} } } }",
            [problem("Post", "id", "duplicate key 'type' at line 2, column 29; only the last value would be used")]),
        Case(
            "entity name that is not an identifier",
            entities(#""Post-Item": {}"#),
            [problem("Post-Item", nil, "entity name 'Post-Item' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)")]),
        Case(
            "property names that are not identifiers",
            entities(
                """
                "Post": { "attributes": { "2fast": { "type": "string" }, "": { "type": "string" } },
                          "relationships": { "has space": { "destination": "Post" } } }
                """),
            [
                problem("Post", "2fast", "attribute name '2fast' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
                problem("Post", "", "attribute name '' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
                problem(
                    "Post", "has space", "relationship name 'has space' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ]),
        Case(
            "reserved prefixes",
            entities(
                """
                "sqlite_stat1": {},
                "Post": { "attributes": { "_id": { "type": "integer" } }, "relationships": { "SQLite_master": { "destination": "Post" } } }
                """),
            [
                problem("sqlite_stat1", nil, "entity name 'sqlite_stat1' starts with 'sqlite_', which SQLite reserves"),
                problem(
                    "Post", "_id", "attribute name '_id' starts with '_', which WebRecord reserves for its own columns"),
                problem(
                    "Post", "SQLite_master",
                    "relationship name 'SQLite_master' starts with 'sqlite_', which SQLite reserves"),
            ]),
        Case(
            "join tables with one name",
            entities(
                """
                "A": { "relationships": { "b_c": { "destination": "Tag", "toMany": true } } },
                "A_b": { "relationships": { "c": { "destination": "Tag", "toMany": true } } },
                "webrecord": { "relationships": { "metadata": { "destination": "Tag", "toMany": true } } },
                "Tag": {}
                """),
            [
                problem(
                    "A_b", "c",
                    "its join table '_A_b_c' has the same name as the join table of A.b_c; rename one of them"),
                problem(
                    "webrecord", "metadata",
                    "its join table '_webrecord_metadata' has the same name as WebRecord's metadata table; rename one of them"
                ),
            ]),
    ]

    // MARK: - Inheritance and primary keys

    static let keys: [Case] = [
        Case(
            "inheritance cycle",
            entities(#""A": { "parent": "B" }, "B": { "parent": "A" }"#),
            [
                problem("A", nil, "inheritance cycle: A -> B -> A"),
                problem("B", nil, "inheritance cycle: B -> A -> B"),
            ]),
        Case(
            "entity that is its own parent",
            entities(#""A": { "parent": "A" }"#),
            [problem("A", nil, "inheritance cycle: A -> A")]),
        Case(
            "composite key with a relationship",
            entities(
                """
                "Post": { "primaryKey": ["id", "user"], "attributes": { "id": { "type": "string" } },
                          "relationships": { "user": { "destination": "Post" } } }
                """),
            [problem("Post", "user", "a composite primary key is made of attributes; 'user' is a relationship")]),
        Case(
            "composite key naming a property twice",
            entities(#""Post": { "primaryKey": ["id", "id"], "attributes": { "id": { "type": "string" } } }"#),
            [problem("Post", "id", "the primary key names 'id' twice")]),
        Case(
            "to-many as primary key",
            entities(
                """
                "Post": { "primaryKey": "tags", "relationships": { "tags": { "destination": "Tag", "toMany": true, "inverse": "post" } } },
                "Tag": { "relationships": { "post": { "destination": "Post", "inverse": "tags" } } }
                """),
            [problem("Post", "tags", "a primary key relationship must be to-one")]),
        Case(
            "a sub-entity keyed by a relationship under a root that is not",
            entities(
                """
                "Owner": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } }, "relationships": { "item": { "destination": "Item", "inverse": "owner" } } },
                "Item": { "attributes": { "n": { "type": "integer" } }, "relationships": { "owner": { "destination": "Owner", "inverse": "item" } } },
                "KeyedItem": { "parent": "Item", "primaryKey": "owner" }
                """),
            [
                problem(
                    "KeyedItem", "owner",
                    "a sub-entity cannot be identified by a relationship it inherits from Item, which is not keyed by it; declare the relationship on the sub-entity, or the key on Item"
                )
            ]),
        Case(
            "a sub-entity keyed by an attribute under a root that is not",
            entities(
                """
                "Item": { "attributes": { "code": { "type": "string" } } },
                "KeyedItem": { "parent": "Item", "primaryKey": "code" },
                "OwnKeyItem": { "parent": "Item", "primaryKey": "serial", "attributes": { "serial": { "type": "integer" } } }
                """),
            [
                problem(
                    "KeyedItem", "code",
                    "a sub-entity cannot be identified by an attribute it inherits from Item, which is not keyed by it; declare the attribute on the sub-entity, or the key on Item"
                )
            ]),
        Case(
            "a sub-entity key's index named like another table's",
            entities(
                """
                "Human": { "attributes": { "name": { "type": "string" } } },
                "Parent": { "parent": "Human", "primaryKey": "parentID", "attributes": { "parentID": { "type": "integer" } } },
                "Human_Parent": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } } }
                """),
            [
                problem(
                    "Human_Parent", nil,
                    "its index '_pk_Human_Parent' has the same name as the primary-key index of Parent; rename one of them"
                )
            ]),
        Case(
            "attribute types that cannot be keys",
            entities(
                """
                "Flag": { "primaryKey": "on", "attributes": { "on": { "type": "boolean" } } },
                "Blob": { "primaryKey": ["body", "raw"], "attributes": { "body": { "type": "json" }, "raw": { "type": "data" } } }
                """),
            [
                problem("Flag", "on", "a boolean attribute cannot be a primary key"),
                problem("Blob", "body", "a json attribute cannot be a primary key"),
                problem("Blob", "raw", "a data attribute cannot be a primary key"),
            ]),
        Case(
            "primary key with a default",
            entities(
                #""CoverImage": { "primaryKey": "id", "attributes": { "id": { "type": "integer", "default": 0 } } }"#),
            [
                problem(
                    "CoverImage", "id",
                    "a primary key attribute cannot have a default; every record created without a key would share it")
            ]),
        Case(
            "one-to-one identified from both sides",
            entities(
                """
                "User": { "primaryKey": "counts", "relationships": { "counts": { "destination": "Counts", "inverse": "user" } } },
                "Counts": { "primaryKey": "user", "relationships": { "user": { "destination": "User", "inverse": "counts" } } }
                """),
            [
                problem(
                    "User", "counts",
                    "Counts is identified by 'user', the inverse of this primary key; only one side of a one-to-one can identify the other"
                ),
                problem(
                    "Counts", "user",
                    "User is identified by 'counts', the inverse of this primary key; only one side of a one-to-one can identify the other"
                ),
            ]),
        Case(
            "key relationship without an inverse",
            entities(
                """
                "User": { "primaryKey": "id", "attributes": { "id": { "type": "integer" } } },
                "Counts": { "primaryKey": "user", "relationships": { "user": { "destination": "User" } } }
                """),
            [
                problem(
                    "Counts", "user",
                    #"a primary key relationship needs an inverse on User, by which the record it identifies is found again; declare one ("inverse": a to-one or to-many of User)"#
                )
            ]),
        Case(
            "key relationship to an entity without a key",
            entities(
                """
                "User": { "attributes": { "name": { "type": "string" } }, "relationships": { "counts": { "destination": "Counts", "inverse": "user" } } },
                "Counts": { "primaryKey": "user", "relationships": { "user": { "destination": "User", "inverse": "counts" } } }
                """),
            [
                problem(
                    "Counts", "user",
                    "a primary key relationship must lead to an entity with a primary key; User has none, so the records it identifies would be new on every import"
                )
            ]),
        Case(
            "sub-entity redefining the primary key",
            links(inward: #", "primaryKey": "name", "attributes": { "name": { "type": "string" } }"#),
            [problem("InwardLink", nil, "a sub-entity inherits its primary key; 'name' differs from Link's 'id'")]),
        Case(
            "primary key of the wrong JSON type",
            entities(#""Post": { "primaryKey": 5 }"#),
            [problem("Post", nil, "'primaryKey' must be a property name or a non-empty array of names, not a number")]),
    ]

    // MARK: - File shape

    static let shapes: [Case] = [
        Case(
            "malformed JSON, with line and column",
            "{\n  \"entities\": {\n    \"Post\": {},\n  }\n}",
            [
                SchemaProblem(
                    file: "Blog.json", message: "malformed JSON: unexpected character '}' (expected a string key)",
                    line: 4, column: 3)
            ]),
        Case(
            "file holding an array",
            "[]",
            [problem(nil, nil, "the file must hold a JSON object, not an empty array")]),
        Case(
            "entities that are not an object",
            #"{ "entities": [] }"#,
            [problem(nil, nil, "'entities' must be an object mapping entity names to entities, not an empty array")]),
        Case(
            "unsupported version",
            #"{ "version": 2, "entities": {} }"#,
            [problem(nil, nil, "unsupported version 2; this WebRecord reads version 1")]),
        Case(
            "date formats that are not strings",
            #"{ "dateFormats": "yyyy", "entities": {} }"#,
            [problem(nil, nil, "'dateFormats' must be an array of strings, not a string")]),
        Case(
            "an unknown key style",
            #"{ "keyStyle": "camel", "entities": {} }"#,
            [problem(nil, nil, "'keyStyle' must be as-is or snake_case, not 'camel'")]),
        Case(
            "two properties whose names convert to one key",
            #"{ "keyStyle": "snake_case", "entities": { "Post": { "attributes": { "createdAt": { "type": "date" }, "created_at": { "type": "date" } } } } }"#,
            [
                problem(
                    "Post", "created_at",
                    "its snake_case key 'created_at' is also Post.createdAt's; give one of them a 'key'")
            ]),
    ]

    @Test(arguments: allCases)
    func reportsExactly(_ row: Case) throws {
        let error = try #require(throws: WebRecordError.self) { try Self.load(row.sources) }
        #expect(error.schemaProblems == row.problems)
        for problem in error.schemaProblems {
            #expect(row.sources.contains { $0.file == problem.file }, "\(problem) names a file that was loaded")
            let location = problem.entity.map { entity in problem.property.map { "\(entity).\($0)" } ?? entity }
            if let location {
                #expect(problem.description == "\(problem.file ?? "?"): \(location): \(problem.message)")
            }
        }
    }

    static let allCases = references + options + unknownKeys + names + keys + shapes + SchemaStorabilityTests.cases

    /// Every example message in `Docs/SchemaFormat.md`'s Validation section is one the loader
    /// really gives, word for word.
    @Test func documentedMessagesAreTheLoadersOwn() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Docs/SchemaFormat.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "\n## Validation\n"))
        let end = try #require(text.range(of: "\n## A complete example\n"))
        let section = text[start.upperBound..<end.lowerBound]
        let examples = section.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && $0.element.contains(".json: ") }
            .map { String($0.element) }
        #expect(examples.count > 60, "the section quotes the loader's messages")

        var produced = Set<String>()
        for row in Self.allCases {
            do {
                _ = try Self.load(row.sources)
            } catch {
                produced.formUnion(error.schemaProblems.map(\.description))
            }
        }
        for example in examples where !example.hasSuffix(": no such file") && !example.contains(": cannot be read") {
            #expect(produced.contains(example), "documented but never produced: \(example)")
        }
    }

    // MARK: - Problems found together

    @Test func reportsEveryProblemOfEveryFileAtOnce() throws {
        let sources = [
            Source(file: "Broken.json", text: "{ \"entities\": { \"Tag\": { } }"),
            Source(
                file: "Posts.json",
                text: Self.entities(
                    """
                    "Post": {
                      "primaryKey": "idd",
                      "attributes": { "id": { "type": "strng" }, "title": { "type": "string", "indexd": true } },
                      "relationships": {
                        "tags": { "destination": "Tag", "toMany": true, "deleteRule": "remove" },
                        "author": { "destination": "Author", "inverse": "post" }
                      }
                    }
                    """)),
            Source(
                file: "Authors.json",
                text: Self.entities(
                    """
                    "Author": { "parent": "Persn", "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "author" } } }
                    """)),
        ]
        let error = try #require(throws: WebRecordError.self) { try Self.load(sources) }
        #expect(
            error.schemaProblems.map(\.description) == [
                "Broken.json: line 1, column 29: malformed JSON: unexpected end of input (expected ',' or '}')",
                "Posts.json: Post.id: unknown type 'strng' (did you mean 'string'?)",
                "Posts.json: Post.title: unknown attribute key 'indexd' (did you mean 'indexed'?)",
                "Posts.json: Post.tags: unknown deleteRule 'remove' (use nullify, cascade or deny)",
                "Authors.json: Author: unknown parent 'Persn'",
                "Posts.json: Post.idd: primary key names no property (did you mean 'id'?)",
                "Posts.json: Post.tags: unknown destination 'Tag'",
                "Posts.json: Post.author: inverse 'post' does not exist on Author (did you mean 'posts'?)",
                "Authors.json: Author.posts: inverse Post.author does not point back (it points to Author.post)",
            ])
        #expect(error.code == .invalidSchema)
        #expect(error.message == "\(error.problems.count) problems in Authors.json, Broken.json, Posts.json")
        #expect(
            error.description
                == (["invalidSchema: \(error.message)"] + error.schemaProblems.map { "  \($0)" }).joined(
                    separator: "\n"))
    }

    @Test func reportsAMissingFileWithTheOthersProblems() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SchemaValidationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let present = directory.appendingPathComponent("Present.json")
        try Data(Self.entities(#""Post": { "attributes": { "id": { "type": "text" } } }"#).utf8).write(to: present)
        let missing = directory.appendingPathComponent("Missing.json")

        let error = try #require(throws: WebRecordError.self) { try Schema(contentsOf: [missing, present]) }
        #expect(
            error.schemaProblems == [
                SchemaProblem(file: missing.relativePath, message: "no such file"),
                SchemaProblem(
                    file: present.relativePath, entity: "Post", property: "id",
                    message: "unknown type 'text' (did you mean 'string'?)"),
            ])

        let alone = try #require(throws: WebRecordError.self) { try Schema(contentsOf: missing) }
        #expect(alone.schemaProblems.map(\.description) == ["\(missing.relativePath): no such file"])

        let directoryError = try #require(throws: WebRecordError.self) { try Schema(contentsOf: directory) }
        #expect(directoryError.schemaProblems.map(\.message) == ["cannot be read: it is a directory, not a file"])
    }

    // MARK: - How problems read

    @Test(arguments: [
        (SchemaProblem(file: "A.json", entity: "Post", property: "id", message: "m"), "A.json: Post.id: m"),
        (SchemaProblem(file: "A.json", entity: "Post", message: "m"), "A.json: Post: m"),
        (SchemaProblem(file: "A.json", message: "m", line: 3, column: 7), "A.json: line 3, column 7: m"),
        (SchemaProblem(file: "A.json", message: "m", line: 3), "A.json: line 3: m"),
        (SchemaProblem(file: "A.json", message: "m"), "A.json: m"),
    ])
    func problemsReadAsLintLines(_ problem: SchemaProblem, _ line: String) {
        #expect(problem.description == line)
    }

    @Test func aValidSchemaHasNoProblems() throws {
        let schema = try Self.load([
            Source(
                file: "Blog.json",
                text: Self.links(
                    link:
                        #", "subentities": { "present": { "inwardIssue": "InwardLink", "outwardIssue": "OutwardLink" } }"#,
                    inward: #", "primaryKey": "id", "attributes": { "inwardKey": { "type": "string" } }"#,
                    outward: #", "attributes": { "outwardKey": { "type": "string" } }"#))
        ])
        #expect(schema.entities.map(\.name) == ["Link", "InwardLink", "OutwardLink", "Issue"])
    }
}
