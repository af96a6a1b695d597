import Foundation
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// PostgreSQL's limits a valid schema may still exceed, found from the layout alone (no
/// server): names of at most 63 bytes, tables of at most 1600 columns, indexes of at most 32.
@Suite struct PostgreSQLLimitsTests {
    /// A schema of one entity, `Wide` by default, with `count` integer attributes `a0`, `a1`, ...
    /// and, when given, the first `keyParts` of them as its primary key.
    static func wide(_ count: Int, keyParts: Int? = nil, entity: String = "Wide") throws -> Schema {
        let attributes = (0..<count).map { "\"a\($0)\": {\"type\": \"integer\"}" }.joined(separator: ", ")
        let key = keyParts.map { parts in
            "\"primaryKey\": [" + (0..<parts).map { "\"a\($0)\"" }.joined(separator: ", ") + "], "
        }
        return try Schema(
            json: "{\"entities\": {\"\(entity)\": {\(key ?? "")\"attributes\": {\(attributes)}}}}",
            fileName: "Wide.json")
    }

    /// A schema whose `Post` has an attribute named `name`, indexed when `indexed` is true.
    static func post(attribute name: String, indexed: Bool = true) throws -> Schema {
        try Schema(
            json: """
                {"entities": {"Post": {"primaryKey": "id", "attributes": {
                  "id": {"type": "integer"}, "\(name)": {"type": "string", "indexed": \(indexed)}
                }}}}
                """)
    }

    static func problems(_ schema: Schema, namespace: String? = nil) -> [WebRecordError] {
        PostgreSQLLimits.problems(in: StorageLayout(schema: schema), namespace: namespace)
    }

    @Test func aNameOf63BytesFitsAndOneOf64DoesNot() throws {
        #expect(Self.problems(try Self.post(attribute: String(repeating: "a", count: 63), indexed: false)).isEmpty)
        // Its index, `_index_Post_` and the name, is 75 bytes; with a name of 51, 63 bytes.
        #expect(Self.problems(try Self.post(attribute: String(repeating: "a", count: 63))).count == 1)
        #expect(Self.problems(try Self.post(attribute: String(repeating: "a", count: 51))).isEmpty)
        #expect(Self.problems(try Self.post(attribute: String(repeating: "a", count: 52))).count == 1)

        let long = String(repeating: "b", count: 64)
        let problems = Self.problems(try Self.post(attribute: long))
        #expect(
            problems.map(\.message) == [
                "the column name '\(long)' is 64 bytes; PostgreSQL names are at most 63 bytes",
                "the index name '_index_Post_\(long)' is 76 bytes; PostgreSQL names are at most 63 bytes",
            ])
        #expect(problems.allSatisfy { $0.code == .invalidSchema && $0.entity == "Post" && $0.property == long })
    }

    /// PostgreSQL's system columns are in every table: a property of that exact name is refused
    /// before any store exists, naming it; another spelling (quoted, `XMIN` is another name) fits.
    @Test(arguments: ["xmin", "ctid", "cmin", "cmax", "xmax", "tableoid"])
    func aPropertyNamedLikeASystemColumnIsRefused(name: String) throws {
        let problems = Self.problems(try Self.post(attribute: name, indexed: false))
        #expect(problems.count == 1)
        #expect(
            problems.first?.message.contains("the column name '\(name)' is one of PostgreSQL's system columns") == true)
        #expect(problems.first?.entity == "Post" && problems.first?.property == name)
        #expect(Self.problems(try Self.post(attribute: name.uppercased(), indexed: false)).isEmpty)
    }

    @Test func bytesAreCountedNotCharacters() throws {
        // 32 characters, 63 bytes: one more character of two bytes is one too many.
        let name = "n" + String(repeating: "é", count: 31)
        #expect(name.count == 32 && name.utf8.count == 63)
        #expect(Self.problems(try Self.post(attribute: "x"), namespace: name).isEmpty)
        let problems = Self.problems(try Self.post(attribute: "x"), namespace: name + "é")
        #expect(
            problems.map(\.message) == [
                "the schema (namespace) name '\(name)é' is 65 bytes; PostgreSQL names are at most 63 bytes"
            ])
        #expect(problems.first?.entity == nil)
    }

    /// Every identifier the DDL quotes that is longer than 63 bytes is named by a problem, and
    /// every name a problem names is one the DDL quotes.
    @Test func theNamesCheckedAreThoseTheDDLCreates() throws {
        let long = String(repeating: "L", count: 60)
        let json = """
            {"entities": {
              "\(long)": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "rank": {"type": "integer", "indexed": true}},
                "relationships": {"tags": {"destination": "Tag", "toMany": true, "ordered": true},
                                  "owner": {"destination": "Owner", "inverse": "items"}}},
              "Owner": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
                "relationships": {"items": {"destination": "\(long)", "toMany": true, "ordered": true, "inverse": "owner"}}},
              "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}}}
            }}
            """
        let layout = StorageLayout(schema: try Schema(json: json))
        let ddl = PostgreSQLLayoutDDL()
        let statements =
            layout.tables.flatMap { ddl.createStatements(for: $0) }
            + layout.joinTables.flatMap {
                ddl.createStatements(for: $0)
            }
        let quoted = try Regex(#""((?:[^"]|"")*)""#)
        let identifiers = Set(
            statements.flatMap { statement in
                statement.matches(of: quoted).map { String(statement[$0.range].dropFirst().dropLast()) }
            })
        let tooLong = identifiers.filter { $0.utf8.count > PostgreSQLLimits.maximumNameLength }
        let named = try Regex(#"name '([^']*)'"#)
        let problems = PostgreSQLLimits.problems(in: layout)
        let reported = problems.compactMap { problem in
            problem.message.firstMatch(of: named).map { String(problem.message[$0.range].dropFirst(6).dropLast()) }
        }
        #expect(
            Set(reported) == [
                "_pk_\(long)", "_index_\(long)_rank", "_index_\(long)_owner", "_\(long)_tags",
                "_index__\(long)_tags_target",
            ])
        #expect(Set(reported) == tooLong, "the DDL's long names: \(tooLong.sorted())")
        #expect(reported.count == problems.count)
        // The join table's problems name the relationship after which it is named.
        let join = problems.filter { $0.message.contains("_tags") }
        #expect(join.count == 2)
        #expect(join.allSatisfy { $0.entity == long && $0.property == "tags" })
    }

    @Test func aTableOf1600ColumnsFitsAndOneOf1601DoesNot() throws {
        // `_id` and `_entity` count: 1598 attributes make 1600 columns.
        #expect(Self.problems(try Self.wide(1598)).isEmpty)
        let problems = Self.problems(try Self.wide(1599))
        #expect(
            problems.map(\.message) == [
                "its table would have 1601 columns (_id, _entity, the attributes of its hierarchy and the foreign keys stored there); PostgreSQL allows at most 1600"
            ])
        #expect(problems.first?.entity == "Wide")
        #expect(problems.first?.property == nil)
    }

    @Test func everyColumnOfTheHierarchyCounts() throws {
        // The attributes, `_id`, `_entity`, a sub-entity's attribute, a to-one's foreign key and
        // its position in the ordered inverse: 5 columns more than the root's attributes.
        func schema(_ count: Int) throws -> Schema {
            let attributes = (0..<count).map { "\"a\($0)\": {\"type\": \"integer\"}" }.joined(separator: ", ")
            return try Schema(
                json: """
                    {"entities": {
                      "Base": {"attributes": {\(attributes)},
                        "relationships": {"list": {"destination": "List", "inverse": "items"}}},
                      "Sub": {"parent": "Base", "attributes": {"extra": {"type": "string"}}},
                      "List": {"relationships": {"items": {"destination": "Base", "toMany": true, "ordered": true, "inverse": "list"}}}
                    }}
                    """)
        }
        let fits = StorageLayout(schema: try schema(1595))
        #expect(fits.table(named: "Base")?.columns.count == 1600)
        #expect(PostgreSQLLimits.problems(in: fits).isEmpty)
        let problems = Self.problems(try schema(1596))
        #expect(problems.count == 1)
        #expect(problems.first?.message.hasPrefix("its table would have 1601 columns") == true)
        #expect(problems.first?.entity == "Base")
    }

    @Test func aKeyOf32PartsFitsAndOneOf33DoesNot() throws {
        #expect(Self.problems(try Self.wide(40, keyParts: 32)).isEmpty)
        let problems = Self.problems(try Self.wide(40, keyParts: 33))
        #expect(
            problems.map(\.message) == [
                "its primary key's unique index '_pk_Wide' would cover 33 columns; PostgreSQL allows at most 32"
            ])
        #expect(problems.first?.entity == "Wide")
    }

    @Test func openingADatabaseRefusesEveryProblemAtOnce() throws {
        let layout = StorageLayout(schema: try Self.wide(1599, keyParts: 33))
        #expect(throws: Never.self) {
            try PostgreSQLLimits.check(StorageLayout(schema: try Self.wide(3)), namespace: "public")
        }
        let error = try #require(throws: WebRecordError.self) {
            try PostgreSQLLimits.check(layout, namespace: String(repeating: "n", count: 64))
        }
        #expect(error.code == .invalidSchema)
        #expect(error.problems.count == 3)
        #expect(error.message.hasPrefix("3 problems for PostgreSQL's limits; the first: the schema (namespace) name"))
        #expect(error.problems.map(\.entity) == [nil, "Wide", "Wide"])
    }

    /// Names that PostgreSQL would take for two relations: an entity named as another table's
    /// primary key index or `_id` sequence, and a relationship whose join table is named as
    /// another's primary key index. Each is reported with the two relations; a schema without
    /// such a name reports none. (A name of WebRecord's own indexes starts with `_`, which no
    /// entity's may.)
    @Test(arguments: [
        (#"{"Post": {}, "Post_pkey": {}}"#, "Post_pkey"),
        (#"{"Post": {}, "Post__id_seq": {}}"#, "Post__id_seq"),
        (
            #"{"Post": {"relationships": {"tags": {"destination": "Tag", "toMany": true, "inverse": "posts"}, "tags_pkey": {"destination": "Tag", "toMany": true, "inverse": "pinned"}}}, "Tag": {"relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "tags"}, "pinned": {"destination": "Post", "toMany": true, "inverse": "tags_pkey"}}}}"#,
            "_Post_tags_pkey"
        ),
    ])
    func namesTheServerWouldGiveTwiceAreReported(entities: String, name: String) throws {
        let problems = Self.problems(try Schema(json: "{\"entities\": \(entities)}"))
        #expect(problems.count == 1, "\(problems.map(\.message))")
        #expect(problems.first?.message.hasPrefix("the name '\(name)' would be PostgreSQL's for both the ") == true)
        #expect(problems.first?.code == .invalidSchema)
    }

    @Test func namesThatDifferOnlyFromTheServersAreNotReported() throws {
        let schema = try Schema(
            json: #"{"entities": {"Post": {}, "Post_pkeys": {}, "Post_id_seq": {}, "pk_Post": {}}}"#)
        #expect(Self.problems(schema).isEmpty)
    }
}
