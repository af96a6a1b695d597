import Foundation
import TestSupport
import Testing

@testable import WebRecord

/// `webrecord generate-swift` on schemas of awkward names and every attribute type, its output
/// checked line by line and compiled against the built module (Docs/Records.md, "Generated
/// classes"; Docs/CLI.md, "webrecord generate-swift"), and `Record.decode(_:)` on values at the
/// edges of their types (Docs/Records.md, "Decoding into your own types").
@Suite struct AdversarialGeneratedAndDecodingTests {
    // MARK: - Running the generator and the compiler

    static func webrecord() throws -> URL {
        try BuiltExecutables.executable("webrecord", besides: Bundle.module)
    }

    static func generate(_ schema: String, _ options: [String] = [], name: String = "Shapes.json") async throws
        -> ChildProcess.Result
    {
        let directory = try TemporaryDirectory()
        let path = try directory.write(name, schema)
        return try await ChildProcess.run(try webrecord(), ["generate-swift", path] + options)
    }

    /// The products directory's `Modules`, which holds the built `WebRecord` module.
    static var modulesDirectory: URL {
        Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("Modules")
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Type-checks `files` (name → text) as one Swift 6 module over the built `WebRecord`, with
    /// warnings as errors, as the package builds its generated targets.
    static func typecheck(_ files: [String: String]) async throws -> ChildProcess.Result {
        let directory = try TemporaryDirectory()
        var paths: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) { paths.append(try directory.write(name, text)) }
        let moduleMap = packageRoot.appendingPathComponent("Sources/WebRecordSQLite/module.modulemap").path
        return try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "swiftc", "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-module-name", "UserApp",
                "-I", modulesDirectory.path, "-Xcc", "-fmodule-map-file=\(moduleMap)",
            ] + paths)
    }

    static func lines(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    // MARK: - Names

    static let namesSchema = """
        {"entities": {
          "Thing": {
            "primaryKey": "id",
            "attributes": {
              "id": {"type": "integer"},
              "class": {"type": "string"},
              "protocol": {"type": "string"},
              "Self": {"type": "string"},
              "init": {"type": "double"},
              "is": {"type": "boolean"},
              "in": {"type": "string"},
              "Type": {"type": "string"},
              "entity": {"type": "string"},
              "rowID": {"type": "integer"},
              "storedValues": {"type": "json"},
              "decode": {"type": "string"},
              "description": {"type": "string"},
              "avatar_URL": {"type": "url"},
              "URLPath": {"type": "string"},
              "user_ids": {"type": "json"},
              "thread_id": {"type": "string"},
              "threadID": {"type": "string"}
            },
            "relationships": {
              "related": {"destination": "Any", "inverse": "thing"}
            }
          },
          "Any": {
            "primaryKey": "code",
            "attributes": {"code": {"type": "string"}},
            "relationships": {"thing": {"destination": "Thing", "inverse": "related"}}
          },
          "json_api_doc": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}},
          "Swift": {"primaryKey": "id", "attributes": {"id": {"type": "string"}}}
        }}
        """

    /// "Keywords are escaped with backticks where they are declared"; "Clashes are renamed with a
    /// suffix"; "An entity named like a Swift keyword (`Protocol`, `Type`, `Self`, `Any`…) or like
    /// a module … gets the suffix `Record`"; "Two names that come out the same … are told apart
    /// with a number, in declaration order".
    @Test func keywordsMembersAndInitialismsAreNamedAsDocumented() async throws {
        let result = try await Self.generate(Self.namesSchema)
        #expect(result.status == 0, "\(result)")
        let lines = Self.lines(result.stdout)
        let expected = [
            "final class Thing: Record {",
            "final class AnyRecord: Record {",
            "final class JSONAPIDoc: Record {",
            "final class SwiftRecord: Record {",
            "    var id: Int64 { self[primaryKey: \"id\"] }",
            "    var `class`: String? { self[\"class\"] }",
            "    var `protocol`: String? { self[\"protocol\"] }",
            "    var selfAttribute: String? { self[\"Self\"] }",
            "    var initAttribute: Double? { self[\"init\"] }",
            "    var `is`: Bool? { self[\"is\"] }",
            "    var `in`: String? { self[\"in\"] }",
            "    var type: String? { self[\"Type\"] }",
            "    var entityAttribute: String? { self[\"entity\"] }",
            "    var rowIDAttribute: Int64? { self[\"rowID\"] }",
            "    var storedValuesAttribute: JSONValue? { self[\"storedValues\"] }",
            "    var decodeAttribute: String? { self[\"decode\"] }",
            "    var description: String? { self[\"description\"] }",
            "    var avatarURL: URL? { self[\"avatar_URL\"] }",
            "    var urlPath: String? { self[\"URLPath\"] }",
            "    var userIDs: JSONValue? { self[\"user_ids\"] }",
            "    var threadID: String? { self[\"thread_id\"] }",
            "    var threadID2: String? { self[\"threadID\"] }",
            "    var relatedRelationship: AnyRecord? { related(\"related\") }",
            "    var thing: Thing? { related(\"thing\") }",
            "    var code: String { self[primaryKey: \"code\"] }",
            "    override class var entityName: String { \"json_api_doc\" }",
            "enum ShapesRecords {",
        ]
        for line in expected {
            #expect(lines.contains(line), "missing: \(line)\n\(result.stdout)")
        }
    }

    static let typesSchema = """
        {"entities": {
          "Sample": {
            "primaryKey": ["name", "version"],
            "attributes": {
              "name": {"type": "string"},
              "version": {"type": "integer"},
              "s": {"type": "string"},
              "i": {"type": "integer", "optional": false},
              "dbl": {"type": "double", "optional": false, "default": 1.5},
              "dec": {"type": "decimal"},
              "flag": {"type": "boolean", "optional": false, "default": true},
              "at": {"type": "date"},
              "bytes": {"type": "data"},
              "token": {"type": "uuid"},
              "link": {"type": "url"},
              "extra": {"type": "json"}
            },
            "relationships": {
              "owner": {"destination": "Owner", "inverse": "samples"},
              "inward": {"destination": "InwardLink", "toMany": true, "ordered": true, "inverse": "sample"},
              "latest": {"destination": "OutwardLink", "inverse": "latestOf"}
            }
          },
          "Owner": {
            "primaryKey": "id",
            "attributes": {"id": {"type": "uuid"}},
            "relationships": {"samples": {"destination": "Sample", "toMany": true, "inverse": "owner"}}
          },
          "Link": {
            "primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "label": {"type": "string"}}
          },
          "InwardLink": {
            "parent": "Link",
            "attributes": {"weight": {"type": "double"}},
            "relationships": {"sample": {"destination": "Sample", "inverse": "inward"}}
          },
          "OutwardLink": {
            "parent": "Link",
            "attributes": {"note": {"type": "string"}},
            "relationships": {"latestOf": {"destination": "Sample", "inverse": "latest"}}
          },
          "Date": {
            "primaryKey": "day",
            "attributes": {"day": {"type": "date"}, "until": {"type": "date"}}
          }
        }}
        """

    /// "An attribute is read as the Swift type of its schema type … A to-one relationship is
    /// `Destination?`, a to-many one `[Destination]`"; "An attribute of the primary key is
    /// non-optional"; "Every other attribute is optional, `required` ones too"; "Sub-entities are
    /// subclasses of their parent's class and declare only their own properties"; an entity named
    /// `Date` "keeps its name, and the generated code writes that type with its module".
    @Test func everyTypeAndRelationshipIsReadAsItsDocumentedSwiftType() async throws {
        let result = try await Self.generate(Self.typesSchema)
        #expect(result.status == 0, "\(result)")
        let lines = Self.lines(result.stdout)
        let expected = [
            "    var name: String { self[primaryKey: \"name\"] }",
            "    var version: Int64 { self[primaryKey: \"version\"] }",
            "    var s: String? { self[\"s\"] }",
            "    var i: Int64? { self[\"i\"] }",
            "    var dbl: Double? { self[\"dbl\"] }",
            "    var dec: Decimal? { self[\"dec\"] }",
            "    var flag: Bool? { self[\"flag\"] }",
            "    var at: Foundation.Date? { self[\"at\"] }",
            "    var bytes: Data? { self[\"bytes\"] }",
            "    var token: UUID? { self[\"token\"] }",
            "    var link: URL? { self[\"link\"] }",
            "    var extra: JSONValue? { self[\"extra\"] }",
            "    var owner: Owner? { related(\"owner\") }",
            "    var inward: [InwardLink] { relatedRecords(\"inward\") }",
            "    var latest: OutwardLink? { related(\"latest\") }",
            "    var id: UUID { self[primaryKey: \"id\"] }",
            "    var samples: [Sample] { relatedRecords(\"samples\") }",
            "class Link: Record {",
            "final class InwardLink: Link {",
            "final class OutwardLink: Link {",
            "    var weight: Double? { self[\"weight\"] }",
            "    var sample: Sample? { related(\"sample\") }",
            "    var latestOf: Sample? { related(\"latestOf\") }",
            "final class Date: Record {",
            "    var day: Foundation.Date { self[primaryKey: \"day\"] }",
            "    var until: Foundation.Date? { self[\"until\"] }",
        ]
        for line in expected {
            #expect(lines.contains(line), "missing: \(line)\n\(result.stdout)")
        }
        // A sub-entity declares only its own properties.
        let inward = try #require(result.stdout.range(of: "final class InwardLink: Link {"))
        let body = result.stdout[inward.upperBound...].prefix { $0 != "}" }
        #expect(!body.contains("var label"), "\(body)")
        #expect(!body.contains("var id"), "\(body)")
    }

    /// Code that uses each accessor at its documented type, beside the generated classes.
    static let usesOfTypes = """
        import Foundation
        import WebRecord

        func readEverything(_ sample: Sample, _ link: Link, _ day: Date) {
            let name: String = sample.name
            let version: Int64 = sample.version
            let s: String? = sample.s
            let i: Int64? = sample.i
            let dbl: Double? = sample.dbl
            let dec: Decimal? = sample.dec
            let flag: Bool? = sample.flag
            let at: Foundation.Date? = sample.at
            let bytes: Data? = sample.bytes
            let token: UUID? = sample.token
            let url: URL? = sample.link
            let extra: JSONValue? = sample.extra
            let owner: Owner? = sample.owner
            let inward: [InwardLink] = sample.inward
            let latest: OutwardLink? = sample.latest
            let ownerID: UUID? = owner?.id
            let label: String? = inward.first?.label
            let weight: Double? = inward.first?.weight
            let back: Sample? = latest?.latestOf
            let kind: Link = link
            let until: Foundation.Date? = day.until
            let when: Foundation.Date = day.day
            _ = (name, version, s, i, dbl, dec, flag, at, bytes, token, url, extra, ownerID, label, weight)
            _ = (back, kind, until, when)
        }

        func register(_ store: RecordStore) {
            ShapesRecords.register(on: store)
            let classes: [Record.Type] = ShapesRecords.classes
            _ = classes
        }
        """

    /// "The generated code compiles with no warning in Swift 6 mode", one file per class
    /// (`--output`) and as public declarations (`--access public`).
    @Test func generatedFilesCompileAndHaveTheDocumentedTypes() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write("Shapes.json", Self.typesSchema)
        let output = directory.url.appendingPathComponent("out")
        let generated = try await ChildProcess.run(
            try Self.webrecord(), ["generate-swift", schema, "--output", output.path, "--access", "public"])
        #expect(generated.status == 0, "\(generated)")
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: output.path) {
            files[name] = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
        }
        #expect(
            files.keys.sorted() == [
                "Date.swift", "InwardLink.swift", "Link.swift", "OutwardLink.swift", "Owner.swift", "Sample.swift",
                "ShapesRecords.swift",
            ])
        files["Uses.swift"] = Self.usesOfTypes
        let compiled = try await Self.typecheck(files)
        #expect(compiled.status == 0, "\(compiled)")
    }

    /// The names schema compiles too, and the escaped keywords read "as usual where they are used
    /// (`issue.default`, `record.class`)".
    @Test func keywordAccessorsCompileAndReadAsUsual() async throws {
        let result = try await Self.generate(Self.namesSchema)
        #expect(result.status == 0, "\(result)")
        let uses = """
            import Foundation
            import WebRecord

            func read(_ thing: Thing) {
                let c: String? = thing.class
                let p: String? = thing.protocol
                let i: Bool? = thing.is
                let n: String? = thing.in
                let s: String? = thing.selfAttribute
                let t: String? = thing.type
                let related: AnyRecord? = thing.relatedRelationship
                let back: Thing? = related?.thing
                let entity: Entity = thing.entity
                _ = (c, p, i, n, s, t, back, entity)
            }
            """
        let compiled = try await Self.typecheck(["All.swift": result.stdout, "Uses.swift": uses])
        #expect(compiled.status == 0, "\(compiled)")
    }

    /// "`--base-class NAME` makes the root entities' classes inherit from a class of yours";
    /// "a sub-entity's class is a subclass of its parent's"; the code compiles with that class
    /// declared by the user.
    @Test func aBaseClassIsInheritedByRootsAndTheCodeCompiles() async throws {
        let result = try await Self.generate(Self.typesSchema, ["--base-class", "ShapesRecord"])
        #expect(result.status == 0, "\(result)")
        let lines = Self.lines(result.stdout)
        #expect(lines.contains("final class Sample: ShapesRecord {"), "\(result.stdout)")
        #expect(lines.contains("class Link: ShapesRecord {"), "\(result.stdout)")
        #expect(lines.contains("final class InwardLink: Link {"), "\(result.stdout)")
        #expect(lines.contains("final class Date: ShapesRecord {"), "\(result.stdout)")
        let base = "import WebRecord\n\nclass ShapesRecord: Record {}\n"
        let compiled = try await Self.typecheck([
            "All.swift": result.stdout, "Base.swift": base, "Uses.swift": Self.usesOfTypes,
        ])
        #expect(compiled.status == 0, "\(compiled)")
    }

    /// "`--base-class NAME` makes the root entities' classes inherit from a class of yours (itself
    /// a subclass of `Record`)"; "The generated code compiles with no warning in Swift 6 mode".
    /// A base class named `Date` is a valid name, and the generator knows `Date` as a type its
    /// code uses ("the generated code writes that type with its module: `Foundation.Date`"), so a
    /// date accessor beside that base class must still be a `Foundation.Date`.
    @Test func aBaseClassNamedLikeAFoundationTypeStillCompiles() async throws {
        let schema =
            #"{"entities": {"Event": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "at": {"type": "date"}}}}}"#
        let result = try await Self.generate(schema, ["--base-class", "Date"], name: "Events.json")
        #expect(result.status == 0, "\(result)")
        #expect(Self.lines(result.stdout).contains("final class Event: Date {"), "\(result.stdout)")
        #expect(Self.lines(result.stdout).contains("    var at: Foundation.Date? { self[\"at\"] }"), "\(result.stdout)")
        let base = "import WebRecord\n\nclass Date: Record {}\n"
        let compiled = try await Self.typecheck(["All.swift": result.stdout, "Base.swift": base])
        #expect(compiled.status == 0, "\(compiled)")
    }

    // MARK: - Generated-shape classes at run time

    /// Classes as the generator writes them for `typesSchema` (the lines checked above), used
    /// on a store: relationships to sub-entities come back as the sub-entities' classes.
    final class Sample: Record {
        override class var entityName: String { "Sample" }
        var name: String { self[primaryKey: "name"] }
        var version: Int64 { self[primaryKey: "version"] }
        var i: Int64? { self["i"] }
        var dbl: Double? { self["dbl"] }
        var flag: Bool? { self["flag"] }
        var inward: [InwardLink] { relatedRecords("inward") }
        var latest: OutwardLink? { related("latest") }
    }
    class Link: Record {
        override class var entityName: String { "Link" }
        var id: String { self[primaryKey: "id"] }
        var label: String? { self["label"] }
    }
    final class InwardLink: Link {
        override class var entityName: String { "InwardLink" }
        var weight: Double? { self["weight"] }
        var sample: Sample? { related("sample") }
    }
    final class OutwardLink: Link {
        override class var entityName: String { "OutwardLink" }
        var note: String? { self["note"] }
        var latestOf: Sample? { related("latestOf") }
    }

    @Test func orderedToManyAndToOneToSubEntitiesReadTheirRecords() throws {
        let store = try RecordStore(inMemory: Schema(json: Self.typesSchema, fileName: "Shapes.json"))
        for recordClass: Record.Type in [Sample.self, Link.self, InwardLink.self, OutwardLink.self] {
            store.register(recordClass: recordClass)
        }
        _ = try store.populate(
            JSONReader().read(
                #"""
                {"name": "n", "version": 9223372036854775807, "i": -9223372036854775808,
                 "inward": [{"id": "c", "label": "third", "weight": 0.30000000000000004}, {"id": "a", "weight": 1}],
                 "latest": {"id": "z", "note": "last"}}
                """#),
            entity: "Sample")
        let sample = try #require(try store.fetch(Sample.self).first)
        #expect(sample.version == Int64.max)
        #expect(sample.i == Int64.min)
        #expect(sample.dbl == 1.5, "a required attribute with a default gets it")
        #expect(sample.flag == true)
        #expect(sample.inward.map(\.id) == ["c", "a"], "ordered: in response order")
        #expect(sample.inward.first?.weight == 0.30000000000000004)
        #expect(sample.inward.first?.label == "third")
        #expect(sample.inward.first?.sample?.name == "n")
        #expect(sample.latest?.note == "last")
        #expect(sample.latest?.latestOf?.version == Int64.max)
    }

    // MARK: - Decoding

    static let decodingSchema = """
        {"entities": {
          "Event": {
            "primaryKey": "id",
            "attributes": {
              "id": {"type": "integer"},
              "at": {"type": "date"},
              "stamp": {"type": "integer"},
              "price": {"type": "decimal"},
              "huge": {"type": "decimal"},
              "ratio": {"type": "double"},
              "flag": {"type": "boolean"},
              "bytes": {"type": "data"},
              "token": {"type": "uuid"},
              "link": {"type": "url"},
              "extra": {"type": "json"},
              "note": {"type": "string"}
            },
            "relationships": {
              "venue": {"destination": "Venue", "inverse": "events"},
              "slot": {"destination": "Slot", "inverse": "event"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "event"}
            }
          },
          "Venue": {
            "primaryKey": "code",
            "attributes": {"code": {"type": "string"}},
            "relationships": {"events": {"destination": "Event", "toMany": true, "inverse": "venue"}}
          },
          "Slot": {
            "primaryKey": ["room", "hour"],
            "attributes": {"room": {"type": "string"}, "hour": {"type": "integer"}},
            "relationships": {"event": {"destination": "Event", "inverse": "slot"}}
          },
          "Tag": {
            "primaryKey": "name",
            "attributes": {"name": {"type": "string"}},
            "relationships": {"event": {"destination": "Event", "inverse": "tags"}}
          }
        }}
        """

    static func decodingStore(_ response: String) throws -> (RecordStore, Record) {
        let store = try RecordStore(inMemory: Schema(json: decodingSchema, fileName: "Events.json"))
        _ = try store.populate(JSONReader().read(response), entity: "Event")
        let record = try #require(try store.fetch("Event").first)
        return (store, record)
    }

    /// "dates decode from their ISO-8601 text": the same instant typed access gives, to the
    /// nearest `Date`; "or from seconds since 1970 when the attribute is numeric".
    @Test func datesDecodeToTheInstantTypedAccessGives() throws {
        let (_, record) = try Self.decodingStore(
            #"{"id": 1, "at": "2024-01-01T12:00:00.123456789Z", "stamp": 1704110400}"#)
        struct Dates: Decodable {
            var at: Date
            var stamp: Date
        }
        let decoded = try record.decode(Dates.self)
        let typed: Date = try #require(record["at"])
        let exact: Timestamp = try #require(record["at"])
        #expect(exact.seconds == 1_704_110_400)
        #expect(exact.nanoseconds == 123_456_789)
        #expect(decoded.at == typed)
        #expect(decoded.stamp == Date(timeIntervalSince1970: 1_704_110_400))
    }

    /// "decimals are JSON numbers written with all their digits, so they decode into `Decimal`
    /// exactly, or into `Double`": 38 significant digits, beyond a `Double`.
    @Test func aDecimalOfThirtyEightDigitsDecodesExactly() throws {
        let digits = "12345678901234567890.123456789012345678"
        let (_, record) = try Self.decodingStore(#"{"id": 1, "price": \#(digits)}"#)
        struct Price: Decodable { var price: Decimal }
        struct PriceAsDouble: Decodable { var price: Double }
        #expect(try record.decode(Price.self).price == Decimal(string: digits))
        #expect(try record.decode(PriceAsDouble.self).price == Double(digits))
    }

    /// The same sentence for decimals far from 1, which a decimal column keeps as canonical text
    /// with no exponent (Docs/StorageLayout.md): `1e100` and `-1e-30`.
    @Test func decimalsWithLargeAndSmallExponentsDecodeExactly() throws {
        let (_, record) = try Self.decodingStore(#"{"id": 1, "huge": 1e100, "price": -1e-30}"#)
        struct Exponents: Decodable {
            var huge: Decimal
            var price: Decimal
        }
        struct ExponentsAsDouble: Decodable {
            var huge: Double
            var price: Double
        }
        let decoded = try record.decode(Exponents.self)
        #expect(decoded.huge == Decimal(string: "1e100"))
        #expect(decoded.price == Decimal(string: "-1e-30"))
        let doubles = try record.decode(ExponentsAsDouble.self)
        #expect(doubles.huge == 1e100)
        #expect(doubles.price == -1e-30)
    }

    /// Big integers, doubles at full precision, booleans, base64 data, UUIDs and URLs.
    @Test func scalarsDecodeToTheirExactValues() throws {
        let (_, record) = try Self.decodingStore(
            #"""
            {"id": 9223372036854775807, "ratio": 0.30000000000000004, "flag": false, "bytes": "AAEC/w==",
             "token": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "link": "https://example.com/a?b=c%20d",
             "note": "1e5"}
            """#)
        struct Scalars: Decodable {
            var id: Int64
            var ratio: Double
            var flag: Bool
            var bytes: Data
            var token: UUID
            var link: URL
            var note: String
        }
        let decoded = try record.decode(Scalars.self)
        #expect(decoded.id == Int64.max)
        #expect(decoded.ratio == 0.30000000000000004)
        #expect(decoded.flag == false)
        #expect(decoded.bytes == Data([0, 1, 2, 255]))
        #expect(decoded.token == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(decoded.link == URL(string: "https://example.com/a?b=c%20d"))
        #expect(decoded.note == "1e5")
    }

    /// "`json` attributes decode as nested values", with every digit of their numbers (a
    /// `.number` is written "as it is", Docs/JSON.md).
    @Test func jsonAttributesDecodeAsNestedValues() throws {
        let (_, record) = try Self.decodingStore(
            #"{"id": 1, "extra": {"big": 18446744073709551615, "list": ["one", "two", null], "deep": {"ok": true}}}"#)
        struct Extra: Decodable {
            struct Deep: Decodable { var ok: Bool }
            var big: UInt64
            var list: [String?]
            var deep: Deep
        }
        struct Outer: Decodable { var extra: Extra }
        let decoded = try record.decode(Outer.self)
        #expect(decoded.extra.big == UInt64.max)
        #expect(decoded.extra.list == ["one", "two", nil])
        #expect(decoded.extra.deep.ok == true)
    }

    /// "each to-one relationship is there as the destination's primary-key value, or null";
    /// `primaryKeyValue` is "an array for a composite key"; to-many relationships are not there.
    @Test func toOneRelationshipsDecodeAsTheirDestinationsKeys() throws {
        let (_, record) = try Self.decodingStore(
            #"""
            {"id": 1, "venue": {"code": "V-1"}, "slot": {"room": "A", "hour": 9},
             "tags": [{"name": "x"}, {"name": "y"}]}
            """#)
        struct Keys: Decodable {
            struct SlotKey: Decodable {
                var room: String
                var hour: Int
                init(from decoder: any Decoder) throws {
                    var container = try decoder.unkeyedContainer()
                    room = try container.decode(String.self)
                    hour = try container.decode(Int.self)
                }
            }
            var venue: String
            var slot: SlotKey
            var tags: [String]?
        }
        let decoded = try record.decode(Keys.self)
        #expect(decoded.venue == "V-1")
        #expect(decoded.slot.room == "A")
        #expect(decoded.slot.hour == 9)
        #expect(decoded.tags == nil)
    }

    /// "Optional properties may be missing or null. A required property that is NULL throws
    /// `DecodingError`".
    @Test func missingAndNullFollowJSONDecoder() throws {
        let (_, record) = try Self.decodingStore(#"{"id": 1}"#)
        struct Loose: Decodable {
            var note: String?
            var venue: String?
            var notInTheSchema: Int?
        }
        let loose = try record.decode(Loose.self)
        #expect(loose.note == nil)
        #expect(loose.venue == nil)
        #expect(loose.notInTheSchema == nil)
        struct Strict: Decodable { var note: String }
        let error = #expect(throws: WebRecordError.self) { try record.decode(Strict.self) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.cause is DecodingError, "\(String(describing: error))")
    }
}
