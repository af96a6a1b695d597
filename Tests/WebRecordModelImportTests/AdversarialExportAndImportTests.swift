import Foundation
import Testing
import WebRecordModelImport

@testable import WebRecord

/// Exports of every value type (Docs/CLI.md, "webrecord export"), exports populated again, and
/// Core Data model conversion of defaults and keys (Docs/ImportingCoreDataModels.md).
@Suite struct AdversarialExportAndImportTests {
    // MARK: - Helpers

    static let schemaText = #"""
        {
          "version": 1,
          "entities": {
            "Thing": {
              "primaryKey": "id",
              "attributes": {
                "id": { "type": "integer" },
                "count": { "type": "integer" },
                "ratio": { "type": "double" },
                "amount": { "type": "decimal" },
                "flag": { "type": "boolean" },
                "at": { "type": "date" },
                "blob": { "type": "data" },
                "text": { "type": "string" },
                "payload": { "type": "json" },
                "uid": { "type": "uuid" },
                "link": { "type": "url" }
              },
              "relationships": {
                "parts": { "destination": "Part", "toMany": true, "ordered": true, "inverse": "thing" },
                "tags": { "destination": "Tag", "toMany": true },
                "parent": { "destination": "Thing", "inverse": "children" },
                "children": { "destination": "Thing", "toMany": true, "inverse": "parent" }
              }
            },
            "Part": {
              "primaryKey": "code",
              "attributes": { "code": { "type": "string" } },
              "relationships": { "thing": { "destination": "Thing", "inverse": "parts" } }
            },
            "Tag": {
              "primaryKey": "name",
              "attributes": { "name": { "type": "string" } },
              "relationships": {}
            },
            "Stamp": {
              "primaryKey": "at",
              "attributes": { "at": { "type": "date" } },
              "relationships": {}
            },
            "Price": {
              "primaryKey": "value",
              "attributes": { "value": { "type": "decimal" } },
              "relationships": {}
            }
          }
        }
        """#

    static func store() throws -> RecordStore {
        try RecordStore(inMemory: Schema(json: schemaText, fileName: "Export.json"))
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONReader().read(text)
    }

    @discardableResult
    static func populate(_ store: RecordStore, _ response: JSONValue, entity: String) throws -> PopulationResult {
        var options = PopulationOptions()
        options.keyPath = ""
        return try store.populate(response, entity: entity, options: options)
    }

    /// The exported records of `entity`, as compact JSON text of each object.
    static func exported(_ store: RecordStore, _ entity: String) throws -> [JSONObject] {
        let array = try #require(try store.exportJSON(entity: entity).arrayValue)
        return try array.map { try #require($0.objectValue) }
    }

    static func convert(_ entities: String) throws -> String {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380">
            \(entities)
            </model>
            """
        return try CoreDataModelImporter.schemaJSON(fromModelXML: Data(xml.utf8), fileName: "Test/contents")
    }

    // MARK: - Export: values

    @Test func exportWritesEveryScalarTypeInItsDocumentedForm() throws {
        let store = try Self.store()
        let long = String(repeating: "xé\u{301}", count: 200_000)
        try Self.populate(
            store,
            Self.json(
                #"""
                [{"id": 1, "count": 9223372036854775807, "ratio": -0.0, "amount": "0.12345678901234567890123",
                  "flag": "YES", "at": "2024-02-29T23:59:59.123456789-08:00", "blob": "AAEC/w==",
                  "text": "a\u0000b\u0301", "uid": "0f8fad5b-d9cb-469f-a165-70867728950e",
                  "link": "https://example.com/caf\u00e9?q=1#x"},
                 {"id": 2, "count": -9223372036854775808, "ratio": 9007199254740993, "amount": 1e-30,
                  "flag": 0, "at": 1704110400.123456, "blob": "", "text": ""},
                 {"id": 3, "count": "+5", "ratio": "-2e3", "amount": "-0", "flag": false,
                  "at": "2012-11-21 02:33:42", "text": "\#(long)"}]
                """#),
            entity: "Thing")
        let things = try Self.exported(store, "Thing")
        try #require(things.count == 3)

        #expect(things[0]["count"] == .integer(9_223_372_036_854_775_807))
        #expect(things[0]["ratio"]?.serialized() == "0.0")  // negative zero is stored as 0
        #expect(things[0]["amount"] == .string("0.12345678901234567890123"))
        #expect(things[0]["flag"] == .bool(true))
        #expect(things[0]["at"] == .string("2024-03-01T07:59:59.123456789Z"))
        #expect(things[0]["blob"] == .string("AAEC/w=="))
        #expect(things[0]["text"]?.stringValue?.utf8.elementsEqual("a\u{0}b\u{301}".utf8) == true)
        #expect(things[0]["uid"] == .string("0F8FAD5B-D9CB-469F-A165-70867728950E"))
        #expect(things[0]["link"] == .string("https://example.com/café?q=1#x"))
        #expect(things[0]["payload"] == .null)

        #expect(things[1]["count"] == .integer(-9_223_372_036_854_775_808))
        #expect(things[1]["ratio"] == .double(9_007_199_254_740_992))
        #expect(things[1]["amount"] == .string("0.000000000000000000000000000001"))
        #expect(things[1]["flag"] == .bool(false))
        #expect(things[1]["at"] == .string("2024-01-01T12:00:00.123456000Z"))
        #expect(things[1]["blob"] == .string(""))
        #expect(things[1]["text"] == .string(""))

        #expect(things[2]["count"] == .integer(5))
        #expect(things[2]["ratio"] == .double(-2000))
        #expect(things[2]["amount"] == .string("0"))
        #expect(things[2]["at"] == .string("2012-11-21T02:33:42.000000000Z"))
        #expect(things[2]["blob"] == .null)
        #expect(things[2]["text"]?.stringValue?.utf8.count == long.utf8.count)
        #expect(things[2]["text"]?.stringValue?.utf8.elementsEqual(long.utf8) == true)
    }

    /// Unix seconds before 1970 are read "exactly from their digits" (SchemaFormat.md, `date`):
    /// -1.25 is a quarter of a second before 23:59:59, not after it.
    @Test func negativeFractionalUnixSecondsExportTheirExactInstant() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(#"[{"id": 1, "at": -1.25}, {"id": 2, "at": -0.000000001}, {"id": 3, "at": -62167219200}]"#),
            entity: "Thing")
        let things = try Self.exported(store, "Thing")
        #expect(
            things.map { $0["at"] } == [
                .string("1969-12-31T23:59:58.750000000Z"),
                .string("1969-12-31T23:59:59.999999999Z"),
                .string("0000-01-01T00:00:00.000000000Z"),
            ])
    }

    /// Dates are kept only for the years 0000–9999 (SchemaFormat.md): an offset that moves the
    /// instant out of that range is refused, never stored as a year 10000 or -0001.
    @Test func offsetsThatLeaveTheYearRangeAreRefusedNotStored() throws {
        let store = try Self.store()
        let result = try Self.populate(
            store,
            Self.json(
                #"""
                [{"id": 1, "at": "9999-12-31T23:59:59-01:00"}, {"id": 2, "at": "0000-01-01T00:30:00+01:00"},
                 {"id": 3, "at": "9999-12-31T23:59:59.999999999+00:00"}, {"id": 4, "at": 253402300800}]
                """#),
            entity: "Thing")
        let things = try Self.exported(store, "Thing")
        #expect(things.map { $0["at"] } == [.null, .null, .string("9999-12-31T23:59:59.999999999Z"), .null])
        #expect(result.debugger.warnings.filter { $0.code == .typeMismatch }.count == 3)
    }

    /// `json`: "the JSON value itself" (CLI.md). Numbers keep their digits: `1.10` and `1.1`, `1`
    /// and `1.0` are different values (SchemaFormat.md), so the export must not respell them.
    @Test func exportedJSONAttributeKeepsItsNumbersAsWritten() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(#"[{"id": 1, "payload": {"b": 1.10, "a": 1e2, "c": [2.50, 1E-7, 100]}}]"#),
            entity: "Thing")
        let stored = try store.read { try $0.scalar(#"SELECT "payload" FROM "Thing""#) }
        #expect(stored == .text(#"{"a":1e2,"b":1.10,"c":[2.50,1E-7,100]}"#))
        let things = try Self.exported(store, "Thing")
        #expect(things[0]["payload"]?.serialized() == #"{"a":1e2,"b":1.10,"c":[2.50,1E-7,100]}"#)
    }

    /// Populating a store's own export again is no change: each exported value is one that
    /// coercion takes back to the same stored value.
    @Test func repopulatingAnExportChangesNoStoredValue() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"""
                [{"id": 7, "count": 12, "ratio": 0.1, "amount": "12.50", "flag": true,
                  "at": "2024-01-01T12:00:00.5+05:30", "blob": "3q2+7w==", "text": "e\u0301",
                  "payload": {"z": [1.0, 1.10, 1e2], "a": null}, "uid": "0f8fad5b-d9cb-469f-a165-70867728950e",
                  "link": "/a/b"}]
                """#),
            entity: "Thing")
        let before = try store.exportJSON(entity: "Thing")
        let payloadBefore = try store.read { try $0.scalar(#"SELECT "payload" FROM "Thing""#) }

        // Only attributes go back in (the relationships are empty lists and a null here).
        var records: [JSONValue] = []
        for case .object(var object) in try #require(before.arrayValue) {
            for name in ["parts", "tags", "parent", "children"] { object[name] = nil }
            records.append(.object(object))
        }
        let result = try Self.populate(store, .array(records), entity: "Thing")
        #expect(result.changes.updated == 0)
        #expect(try store.read { try $0.scalar(#"SELECT "payload" FROM "Thing""#) } == payloadBefore)
        #expect(try store.exportJSON(entity: "Thing") == before)
    }

    // MARK: - Export: order and relationships

    @Test func recordsSortByIntegerKeyAcrossTheWholeSixtyFourBitRange() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"[{"id": 10}, {"id": -5}, {"id": 9223372036854775807}, {"id": 9007199254740993}, {"id": 9007199254740992}, {"id": -9223372036854775808}, {"id": 9}]"#
            ),
            entity: "Thing")
        let ids = try Self.exported(store, "Thing").map { $0["id"] }
        #expect(
            ids == [
                .integer(-9_223_372_036_854_775_808), .integer(-5), .integer(9), .integer(10),
                .integer(9_007_199_254_740_992), .integer(9_007_199_254_740_993), .integer(9_223_372_036_854_775_807),
            ])
    }

    @Test func recordsSortByDateKeyChronologicallyWhateverTheirZone() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"[{"at": "2024-01-01T12:00:00+05:30"}, {"at": "2024-01-01T07:00:00Z"}, {"at": "2024-01-01T06:59:59.999999999-00:00"}, {"at": 1704088800.5}]"#
            ),
            entity: "Stamp")
        let keys = try Self.exported(store, "Stamp").map { $0["at"] }
        #expect(
            keys == [
                .string("2024-01-01T06:00:00.500000000Z"),
                .string("2024-01-01T06:30:00.000000000Z"),
                .string("2024-01-01T06:59:59.999999999Z"),
                .string("2024-01-01T07:00:00.000000000Z"),
            ])
    }

    @Test func recordsSortByDecimalKeyNumericallyToTheLastDigit() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"""
                [{"value": "100.25"}, {"value": "9.5"}, {"value": "-1"}, {"value": "10"},
                 {"value": "0.00000000000000000000000000000000000002"},
                 {"value": "0.00000000000000000000000000000000000001"},
                 {"value": "12345678901234567890123456789012345678"},
                 {"value": "12345678901234567890123456789012345677"}]
                """#),
            entity: "Price")
        let keys = try Self.exported(store, "Price").map { $0["value"] }
        #expect(
            keys == [
                .string("-1"),
                .string("0.00000000000000000000000000000000000001"),
                .string("0.00000000000000000000000000000000000002"),
                .string("9.5"), .string("10"), .string("100.25"),
                .string("12345678901234567890123456789012345677"),
                .string("12345678901234567890123456789012345678"),
            ])
    }

    @Test func toManyMembersKeepResponseOrderWhenOrderedAndByteOrderOtherwise() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"""
                [{"id": 1, "parts": [{"code": "z"}, {"code": "b"}, {"code": "é"}, {"code": "A"}],
                  "tags": [{"name": "é"}, {"name": "b"}, {"name": "e\u0301"}, {"name": "B"}, {"name": "a"}]}]
                """#),
            entity: "Thing")
        let thing = try #require(try Self.exported(store, "Thing").first)
        #expect(thing["parts"] == ["z", "b", "é", "A"])
        #expect(thing["tags"] == .array(["B", "a", "b", "e\u{301}", "é"].map { JSONValue.string($0) }))
        let parts = try Self.exported(store, "Part")
        #expect(parts.map { $0["code"] } == ["A", "b", "z", "é"])
        #expect(parts.map { $0["thing"] } == [1, 1, 1, 1])
    }

    @Test func aSelfReferenceExportsFromBothSides() throws {
        let store = try Self.store()
        try Self.populate(
            store,
            Self.json(
                #"[{"id": 9007199254740993, "parent": 9007199254740993}, {"id": 2, "parent": 9007199254740993}, {"id": 3, "parent": 2}]"#
            ),
            entity: "Thing")
        let things = try Self.exported(store, "Thing")
        #expect(things.map { $0["id"] } == [2, 3, 9_007_199_254_740_993])
        #expect(things.map { $0["parent"] } == [9_007_199_254_740_993, 2, 9_007_199_254_740_993])
        #expect(things.map { $0["children"] } == [[3], [], [2, 9_007_199_254_740_993]])
    }

    /// `_entity` first, inherited attributes before the sub-entity's own; a to-one whose record
    /// has no key exports as null (CLI.md, "webrecord export").
    @Test func aHierarchyExportsEntityNamesInheritedAttributesFirstAndKeylessTargetsAsNull() throws {
        let schema = try Schema(
            json: #"""
                {
                  "version": 1,
                  "entities": {
                    "Item": {
                      "primaryKey": "id",
                      "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
                      "relationships": { "cover": { "destination": "Cover", "inverse": "item" } }
                    },
                    "Book": {
                      "parent": "Item",
                      "attributes": { "isbn": { "type": "string" } },
                      "relationships": {}
                    },
                    "Cover": {
                      "attributes": { "url": { "type": "url" } },
                      "relationships": { "item": { "destination": "Item", "inverse": "cover" } }
                    }
                  }
                }
                """#, fileName: "Items.json")
        let store = try RecordStore(inMemory: schema)
        try Self.populate(
            store, Self.json(#"[{"id": 2, "title": "B", "isbn": "978", "cover": {"url": "/c.png"}}]"#), entity: "Book")
        try Self.populate(store, Self.json(#"[{"id": 1, "title": "I"}]"#), entity: "Item")
        let items = try #require(try store.exportJSON(entity: "Item").arrayValue)
        #expect(
            items.map { $0.serialized() } == [
                #"{"_entity":"Item","id":1,"title":"I","cover":null}"#,
                #"{"_entity":"Book","id":2,"title":"B","isbn":"978","cover":null}"#,
            ])
        let books = try #require(try store.exportJSON(entity: "Book").arrayValue)
        #expect(books.map { $0.serialized() } == [#"{"id":2,"title":"B","isbn":"978","cover":null}"#])
        let covers = try #require(try store.exportJSON(entity: "Cover").arrayValue)
        #expect(covers.map { $0.serialized() } == [#"{"url":"/c.png","item":2}"#])
    }

    // MARK: - Model import: defaults

    /// "a valid JSON spelling is kept as written, another one is normalized (`.5` becomes `0.5`)":
    /// normalizing a spelling must not change the number, and a decimal holds 38 digits.
    @Test func aDecimalDefaultWithoutLeadingZeroKeepsEveryDigit() throws {
        let text = try Self.convert(
            """
            <entity name="Price" representedClassName="Price" syncable="YES">
                <attribute name="id" attributeType="String"/>
                <attribute name="rate" optional="YES" attributeType="Decimal" defaultValueString=".1234567890123456789012"/>
                <attribute name="big" optional="YES" attributeType="Decimal" defaultValueString="+12345678901234567890.5"/>
                <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="id"/></userInfo>
            </entity>
            """)
        #expect(text.contains(#""rate": { "type": "decimal", "default": 0.1234567890123456789012 }"#), "\(text)")
        #expect(text.contains(#""big": { "type": "decimal", "default": 12345678901234567890.5 }"#), "\(text)")
        let schema = try Schema(json: text, fileName: "Price.json")
        let store = try RecordStore(inMemory: schema)
        try Self.populate(store, Self.json(#"[{"id": "p"}]"#), entity: "Price")
        let price = try #require(try Self.exported(store, "Price").first)
        #expect(price["rate"] == .string("0.1234567890123456789012"))
        #expect(price["big"] == .string("12345678901234567890.5"))
    }

    /// The other spellings Core Data reads and JSON does not: a sign, leading zeros, a trailing
    /// point, an exponent. Each keeps every digit; text that is no number stays an error.
    @Test func everyDecimalSpellingKeepsItsDigits() throws {
        let spellings: [(model: String, json: String)] = [
            ("-.00000000000000000001234567", "-0.00000000000000000001234567"),
            ("007.1234567890123456789", "7.1234567890123456789"),
            ("12345678901234567890.", "12345678901234567890"),
            ("+1.2345678901234567891E+3", "1.2345678901234567891e+3"),
        ]
        for (model, json) in spellings {
            let text = try Self.convert(
                """
                <entity name="Price" representedClassName="Price" syncable="YES">
                    <attribute name="id" attributeType="String"/>
                    <attribute name="rate" optional="YES" attributeType="Decimal" defaultValueString="\(model)"/>
                    <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="id"/></userInfo>
                </entity>
                """)
            #expect(text.contains(#""rate": { "type": "decimal", "default": \#(json) }"#), "\(model): \(text)")
        }
        #expect(throws: (any Error).self) {
            try Self.convert(
                """
                <entity name="Price" representedClassName="Price" syncable="YES">
                    <attribute name="id" attributeType="String"/>
                    <attribute name="rate" optional="YES" attributeType="Decimal" defaultValueString="1.5.2"/>
                    <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="id"/></userInfo>
                </entity>
                """)
        }
    }

    @Test func defaultsOfEachTypeConvertAsDocumented() throws {
        let text = try Self.convert(
            """
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="id" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="small" attributeType="Integer 16" defaultValueString="+5"/>
                <attribute name="padded" attributeType="Integer 32" defaultValueString="007"/>
                <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="0.0"/>
                <attribute name="half" optional="YES" attributeType="Float" defaultValueString=".5"/>
                <attribute name="on" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="blank" optional="YES" attributeType="String" defaultValueString=""/>
                <attribute name="none" optional="YES" attributeType="Integer 32" defaultValueString=""/>
                <attribute name="when" optional="YES" attributeType="Date" defaultValueString="2020-01-01"/>
                <uniquenessConstraints>
                    <uniquenessConstraint><constraint value="id"/></uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """)
        let expected = """
            {
              "version": 1,
              "entities": {
                "Item": {
                  "primaryKey": "id",
                  "attributes": {
                    "id": { "type": "integer", "optional": false },
                    "small": { "type": "integer", "optional": false, "default": 5 },
                    "padded": { "type": "integer", "optional": false, "default": 7 },
                    "ratio": { "type": "double", "default": 0.0 },
                    "half": { "type": "double", "default": 0.5 },
                    "on": { "type": "boolean", "default": true },
                    "blank": { "type": "string", "default": "" },
                    "none": { "type": "integer" },
                    "when": { "type": "date" }
                  },
                  "relationships": {}
                }
              }
            }

            """
        #expect(text == expected)
        _ = try Schema(json: text, fileName: "Item.json")
    }

    // MARK: - Model import: relationships and hierarchy

    @Test func relationshipsAndHierarchyConvertAsDocumented() throws {
        let text = try Self.convert(
            """
            <entity name="Link" representedClassName="Link" isAbstract="YES" syncable="YES">
                <attribute name="id" attributeType="String"/>
                <relationship name="issue" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Issue" inverseName="links" inverseEntity="Issue"/>
                <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="id"/></userInfo>
            </entity>
            <entity name="InwardLink" parentEntity="Link" syncable="YES">
                <attribute name="note" optional="YES" attributeType="String">
                    <userInfo><entry key="MMRecordAttributeAlternateNameKey" value="fields.note"/></userInfo>
                </attribute>
                <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="id"/></userInfo>
            </entity>
            <entity name="Issue" syncable="YES">
                <attribute name="key" attributeType="String" indexed="YES"/>
                <relationship name="links" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Link" inverseName="issue" inverseEntity="Link"/>
                <relationship name="watchers" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Issue"/>
                <userInfo><entry key="MMRecordEntityPrimaryAttributeKey" value="key"/></userInfo>
            </entity>
            """)
        let expected = """
            {
              "version": 1,
              "entities": {
                "Link": {
                  "primaryKey": "id",
                  "abstract": true,
                  "attributes": {
                    "id": { "type": "string", "optional": false }
                  },
                  "relationships": {
                    "issue": { "destination": "Issue", "inverse": "links" }
                  }
                },
                "InwardLink": {
                  "parent": "Link",
                  "attributes": {
                    "note": { "type": "string", "key": "fields.note" }
                  },
                  "relationships": {}
                },
                "Issue": {
                  "primaryKey": "key",
                  "attributes": {
                    "key": { "type": "string", "optional": false, "indexed": true }
                  },
                  "relationships": {
                    "links": { "destination": "Link", "toMany": true, "ordered": true, "merge": "union", "inverse": "issue", "deleteRule": "cascade" },
                    "watchers": { "destination": "Issue", "toMany": true, "merge": "union", "deleteRule": "deny" }
                  }
                }
              }
            }

            """
        #expect(text == expected)
        _ = try Schema(json: text, fileName: "Links.json")
    }
}
