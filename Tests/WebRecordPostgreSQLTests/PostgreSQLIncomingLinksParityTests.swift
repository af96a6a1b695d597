import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Records a streamed batch drops as incomplete and carries, with the links records of its
/// batch hold to them, to the batch that completes them (Docs/Population.md, "Large responses:
/// streamed population": "Carried, with the links to it", "An object without a key where a
/// dropped record was named", "A record a batch stored, made an incomplete sub-entity later"),
/// populated into a SQLite store and a PostgreSQL one.
///
/// The cases of `StreamedIncomingLinksTests` and `AdversarialIncomingLinksTests` (the
/// WebRecordTests target, whose schemas and responses are copied here), and random responses
/// of posts with compact users (without their non-optional `name`) and full ones, made by a
/// generator of the same shape as theirs that draws the same numbers, so a seed gives the
/// same response here as there. Each response, after the earlier one the case gives, is
/// populated whole, and streamed in batches of several sizes from a reader opened once and
/// from one that can be opened again.
///
/// Docs/PostgreSQL.md: a PostgreSQL store "populates with the same semantics", and "both stores
/// give the same rows the same `_id`s in the same order". After every population both stores
/// must hold the same rows (`_id`s ranked, as ``PostgreSQLStores/content(of:rows:)`` ranks
/// them, `_entity` and every value as exact text), report the same counts, the same records in
/// the same order and as many warnings, open the response as many times, and refuse the same
/// responses with the same kind of message.
@Suite(.serialized, .timeLimit(MachineLoad.hangTimeLimit))
struct PostgreSQLIncomingLinksParityTests {
    typealias P = PostgreSQLAdversarialParityTests

    // MARK: - The schemas

    /// `StreamedIncomingLinksTests.schemaJSON`.
    static let streamedSchemaJSON = #"""
        {"version": 1, "entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {
              "user": {"destination": "User", "inverse": "posts"},
              "editor": {"destination": "User"},
              "pinned": {"destination": "User", "inverse": "pin"}}},
          "User": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false},
              "handle": {"type": "string"}},
            "relationships": {
              "posts": {"destination": "Post", "toMany": true, "inverse": "user"},
              "pin": {"destination": "Post", "inverse": "pinned"}}}
        }}
        """#

    /// `AdversarialIncomingLinksTests.schemaJSON`.
    static let adversarialSchemaJSON = #"""
        {"version": 1, "entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "subentities": {"key": "type", "map": {"photo": "Photo"}},
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {
              "user": {"destination": "User", "inverse": "posts"},
              "editor": {"destination": "User"},
              "reviewer": {"destination": "User", "inverse": "reviewed"},
              "pinned": {"destination": "User", "inverse": "pin"},
              "manager": {"destination": "Admin", "inverse": "managed"},
              "repostOf": {"destination": "Post", "inverse": "reposts"},
              "reposts": {"destination": "Post", "toMany": true, "inverse": "repostOf"},
              "quoted": {"destination": "Post"},
              "team": {"destination": "Team"}}},
          "Photo": {"parent": "Post",
            "attributes": {"url": {"type": "string", "optional": false}},
            "relationships": {"camera": {"destination": "User", "inverse": "shots"}}},
          "User": {"primaryKey": "id",
            "subentities": {"key": "role", "map": {"admin": "Admin", "bot": "Bot"}},
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false},
              "handle": {"type": "string"}},
            "relationships": {
              "posts": {"destination": "Post", "toMany": true, "inverse": "user"},
              "reviewed": {"destination": "Post", "toMany": true, "ordered": true, "inverse": "reviewer"},
              "pin": {"destination": "Post", "inverse": "pinned"},
              "shots": {"destination": "Photo", "toMany": true, "inverse": "camera"},
              "stats": {"destination": "Stats", "inverse": "user"},
              "team": {"destination": "Team", "inverse": "members"}}},
          "Admin": {"parent": "User", "attributes": {"level": {"type": "integer"}},
            "relationships": {"managed": {"destination": "Post", "toMany": true, "inverse": "manager"}}},
          "Bot": {"parent": "User", "attributes": {"model": {"type": "string"}}},
          "Stats": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
            "relationships": {
              "user": {"destination": "User", "inverse": "stats"},
              "fan": {"destination": "User"}}},
          "Team": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {"members": {"destination": "User", "toMany": true, "inverse": "team"}}}
        }}
        """#

    /// Which of the two schemas a case is populated with.
    enum Shape: String {
        case streamed
        case adversarial

        var schema: Schema {
            switch self {
            case .streamed: PostgreSQLIncomingLinksParityTests.streamedSchema
            case .adversarial: PostgreSQLIncomingLinksParityTests.adversarialSchema
            }
        }
    }

    static let streamedSchema = P.schema(streamedSchemaJSON)
    static let adversarialSchema = P.schema(adversarialSchemaJSON)

    // MARK: - Cases

    /// The options a case populates its response with (its earlier response is populated
    /// with none).
    enum Hooks: String {
        case none
        /// `User.posts` merged by union.
        case union
        /// Every orphan deleted.
        case orphans
        /// Orphans whose `id` is above 2 deleted.
        case orphansMatching
        /// Orphans deleted by a closure, when the response has more than one record.
        case orphanClosure
        /// Keys given as `uid` and `pid` injected.
        case injection
        /// The name of a user marked `"stub": true` removed before population.
        case stubs

        var options: PopulationOptions {
            var options = PopulationOptions()
            switch self {
            case .none: break
            case .union: options.mergePolicies["User.posts"] = .union
            case .orphans: options.deleteOrphans = .all
            case .orphansMatching: options.deleteOrphans = .matching("id > ?", [2])
            case .orphanClosure: options.orphanDeletion = { _, records, _, _ in records.count > 1 }
            case .injection:
                options.primaryKeyInjection = { entity, dictionary, _ in
                    switch entity.name {
                    case "User", "Admin", "Bot": dictionary["uid"]
                    case "Post", "Photo": dictionary["pid"]
                    default: nil
                    }
                }
            case .stubs:
                options.prePopulation = { entity, dictionary in
                    if entity.name == "User", dictionary["stub"] == .bool(true) { dictionary["name"] = nil }
                }
            }
            return options
        }
    }

    /// A response of posts (`list`) populated after `earlier`, with `hooks`.
    struct Case: CustomStringConvertible {
        var shape = Shape.adversarial
        var earlier = "[]"
        var list: String
        var hooks = Hooks.none

        var description: String {
            "schema \(shape.rawValue), options \(hooks.rawValue)\nearlier: \(earlier)\nresponse: \(list)"
        }
    }

    /// `StreamedIncomingLinksTests.aRecordLinkedToWhereItIsDroppedEndsAsInOneBatch`.
    static let streamedCarried: [(earlier: String, list: String)] = [
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 3, "editor": {"id": 5}}, {"id": 2, "title": "b", "editor": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            #"[{"id": 1, "user": {"id": 5}}, {"id": 4, "title": "x"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "handle": "i"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "handle": "i"}}, {"id": 3, "title": "c", "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "user": {"id": 5, "handle": "h"}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}, "editor": 5}]"#
        ),
    ]

    /// `StreamedIncomingLinksTests.aLinkThatCouldEndOtherwiseIsReadAgain`.
    static let streamedReadAgain: [String] = [
        #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 1, "title": "a2"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 1, "title": "a2", "editor": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "title": "a", "user": {"id": 5}}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "title": "a", "pinned": {"id": 5}}, {"id": 2, "title": "b", "pinned": {"id": 5, "name": "N"}}]"#,
    ]

    /// `AdversarialIncomingLinksTests.carriedCasesEqualTheWholeResponse`.
    static let carried: [(earlier: String, list: String)] = [
        (
            #"[]"#,
            #"[{"id": 1, "type": "photo", "url": "u", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "type": "photo", "url": "u", "camera": {"id": 5, "handle": "h"}}, {"id": 2, "type": "photo", "url": "v", "camera": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "role": "admin", "level": 3}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "role": "admin", "level": 3}}, {"id": 2, "editor": {"id": 5, "role": "bot", "name": "N", "model": "m"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "manager": {"id": 5, "role": "admin", "handle": "h"}}, {"id": 2, "manager": {"id": 5, "name": "N", "level": 2}}]"#
        ),
        (
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}, "editor": 9}]"#,
            #"[{"id": 1, "editor": {"id": 5}, "user": {"id": 5, "handle": "h"}}, {"id": 4, "title": "x"}, {"id": 2, "title": "b", "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[{"id": 40, "team": {"id": 1, "name": "t"}}]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "team": {"id": 1, "members": [{"id": 5, "name": "N"}]}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 7, "name": "Y", "stats": {"followers": 1, "fan": {"id": 5, "name": "N"}}}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "editor": {"id": 5, "handle": "i"}}, {"id": 3, "type": "photo", "url": "u", "camera": {"id": 5}}, {"id": 4, "editor": 5}, {"id": 6, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5}, "editor": {"id": 6}}, {"id": 2, "user": {"id": 6, "name": "M"}}, {"id": 3, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5}, "editor": {"id": 6}}, {"id": 2, "title": "z"}, {"id": 3, "editor": {"id": 6, "name": "M"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}, "editor": 5}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h", "stats": {"followers": 3}}}, {"id": 2, "user": {"id": 5, "name": "N", "stats": {"followers": 4}}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "user": {"id": 5, "handle": "h", "stats": {"followers": 3}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "title": "a", "quoted": {"id": 5, "type": "photo", "title": "p"}}, {"id": 3, "title": "c"}, {"id": 5, "type": "photo", "url": "u"}]"#
        ),
        (
            #"[]"#,
            #"[{"id": 1, "repostOf": {"id": 5, "type": "photo", "title": "p"}}, {"id": 3, "repostOf": {"id": 5, "type": "photo", "url": "u"}}]"#
        ),
    ]

    /// `AdversarialIncomingLinksTests.equalOrRefused`.
    static let equalOrRefused: [String] = [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": []}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": null}}]"#,
        #"[{"id": 1, "reviewer": {"id": 5}}, {"id": 2, "reviewer": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "reviewer": {"id": 5}}, {"id": 2, "reviewer": {"id": 5, "name": "N", "reviewed": [2, 1]}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 7, "name": "Y", "posts": [1, 3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": null}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 7, "name": "Y"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"id": 7, "name": "Y"}}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 1, "user": 5}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "quoted": 1}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "type": "photo", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 1, "type": "photo", "url": "u"}]"#,
        #"[{"id": 1, "type": "photo", "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}, "pinned": {"id": 8, "name": "P"}}, {"id": 3, "pinned": {"id": 8}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "pinned": {"id": 5}}, {"id": 2, "pinned": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5}}, {"id": 3}, {"id": 1, "title": "x", "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "pin": {"id": 2}}}]"#,
        #"[{"id": 1, "type": "photo", "url": "u", "user": {"id": 5, "handle": "h"}}, {"id": 1, "type": "post"}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "pin": 3}}, {"id": 3, "type": "photo", "url": "u"}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "team": {"id": 1}}}, {"id": 3, "team": {"id": 1, "members": []}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 7, "name": "Y", "stats": {"followers": 1, "fan": {"id": 5, "handle": "h"}}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h", "pin": {"id": 1}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "repostOf": {"id": 5, "type": "photo", "quoted": 1}}, {"id": 5, "type": "photo", "url": "u"}]"#,
    ]

    /// `AdversarialIncomingLinksTests.listsBackMergedByUnion`.
    static let listsBack: [String] = [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N", "posts": [2]}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 7, "name": "Y", "posts": [3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 9, "name": "Y", "posts": []}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
    ]

    /// `AdversarialIncomingLinksTests.orphanDeletion`.
    static let orphanLists: [String] = [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "handle": "i"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "quoted": {"id": 5, "type": "photo"}}, {"id": 5, "type": "photo"}, {"id": 3}, {"id": 5, "type": "photo", "url": "u"}]"#,
        #"[{"id": 1, "quoted": {"id": 5, "type": "photo"}}, {"id": 5, "type": "photo"}, {"id": 3}]"#,
        #"[{"id": 5, "type": "photo", "repostOf": {"id": 1, "quoted": 5}}, {"id": 2}, {"id": 5, "type": "photo", "url": "u"}]"#,
    ]

    /// `AdversarialIncomingLinksTests.primaryKeyInjection`.
    static let injected: [String] = [
        #"[{"pid": 1, "user": {"uid": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"uid": 5, "handle": "h"}, "editor": {"uid": 6}}, {"pid": 2, "user": {"uid": 5, "name": "N"}}, {"id": 3, "editor": {"uid": 6, "name": "M"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"pid": 1}, {"id": 2, "user": {"uid": 5, "name": "N"}}]"#,
    ]

    /// `AdversarialIncomingLinksTests.prePopulation`.
    static let stubbed: [String] = [
        #"[{"id": 1, "user": {"id": 5, "name": "A", "stub": true}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "name": "A"}}, {"id": 2, "user": {"id": 5, "name": "N", "stub": true}}]"#,
        #"[{"id": 1, "user": {"id": 5, "name": "A", "stub": true}}, {"id": 2, "user": {"id": 5, "name": "B", "stub": true}}]"#,
    ]

    /// `AdversarialIncomingLinksTests.theHolderReachedWithoutAKey` and `theHolderRelinkedWithoutAKeyInBetween`.
    static let holderWithoutAKey: [String] = [
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"title": "a2"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"type": "photo", "url": "u"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"title": "a2", "user": null}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
        #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "repostOf": {"user": {"id": 7, "name": "Y"}}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#,
    ]

    /// `AdversarialIncomingLinksTests.aStoredPostMadeAPhotoWithoutItsURL`.
    static let madePhotos: [String] = [
        #"[{"id": 1}, {"id": 2}, {"id": 2, "type": "photo"}]"#,
        #"[{"id": 1}, {"id": 2, "user": {"id": 5, "name": "N"}}, {"id": 2, "type": "photo", "user": {"id": 5, "handle": "h"}}]"#,
    ]

    /// An earlier response of `AdversarialIncomingLinksTests`: post 1 by user 9.
    static let storedPost = #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}]"#

    /// Every case of the two WebRecordTests suites, with the earlier responses and the options
    /// they are populated with there.
    static var scenarios: [Case] {
        var cases: [Case] = []
        cases += streamedCarried.map { Case(shape: .streamed, earlier: $0.earlier, list: $0.list) }
        cases += streamedReadAgain.map { Case(shape: .streamed, list: $0) }
        cases += carried.map { Case(earlier: $0.earlier, list: $0.list) }
        let edited =
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}, {"id": 2, "editor": {"id": 8, "name": "E"}}]"#
        for list in equalOrRefused {
            cases += [Case(list: list), Case(earlier: edited, list: list)]
        }
        for list in listsBack {
            cases += [
                Case(list: list, hooks: .union), Case(earlier: storedPost, list: list, hooks: .union),
                Case(earlier: storedPost, list: list),
            ]
        }
        cases.append(
            Case(
                earlier: storedPost,
                list:
                    #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 3, "user": {"id": 9, "name": "Y", "posts": [3]}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#
            ))
        let orphansEarlier =
            #"[{"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}, {"id": 8, "user": 9}, {"id": 3}]"#
        for list in orphanLists {
            for hooks in [Hooks.orphans, .orphansMatching, .orphanClosure] {
                cases.append(Case(earlier: orphansEarlier, list: list, hooks: hooks))
            }
        }
        cases += injected.map { Case(list: $0, hooks: .injection) }
        cases += stubbed.map { Case(list: $0, hooks: .stubs) }
        let reposted =
            #"[{"id": 3, "title": "c", "repostOf": {"id": 1, "title": "a", "user": {"id": 9, "name": "Z"}}}]"#
        cases += holderWithoutAKey.map { Case(earlier: reposted, list: $0) }
        let reachedWithoutAKey =
            #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2}, {"id": 1, "user": {"name": "N"}}, {"id": 4, "user": 5}]"#
        let completedWithoutAKey = #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 1, "user": {"name": "N"}}]"#
        let laterLink = #"[{"id": 2, "user": {"id": 8, "name": "n", "posts": []}}, {"id": 2, "user": {"id": 5}}]"#
        for list in [reachedWithoutAKey, completedWithoutAKey] {
            cases += [Case(list: list), Case(earlier: storedPost, list: list)]
        }
        cases += madePhotos.map { Case(list: $0) }
        cases += [
            Case(list: laterLink), Case(earlier: #"[{"id": 6, "user": {"id": 8, "name": "z"}}]"#, list: laterLink),
        ]
        return cases
    }

    // MARK: - Running a case

    /// How a response is populated: whole, or streamed in batches of the bytes given (nil: the
    /// store's own, 2 MB into SQLite and 8 MB into PostgreSQL) from a reader opened once, or
    /// from one that can be opened again.
    enum Run: Equatable, CustomStringConvertible {
        case whole
        case once(Int?)
        case reopening(Int?)

        var description: String {
            switch self {
            case .whole: "whole"
            case .once(let bytes): "streamed in \(Self.batches(bytes)), read once"
            case .reopening(let bytes): "streamed in \(Self.batches(bytes)), read again when needed"
            }
        }

        static func batches(_ bytes: Int?) -> String {
            bytes.map { "batches of \($0) bytes" } ?? "the store's own batches"
        }
    }

    static let batchSizes = [1, 40, 200, 1 << 20]

    /// The runs of every case: whole, streamed from a reader opened once at three batch sizes,
    /// and from one that can be opened again at batches of one byte.
    static let runs: [Run] = [.whole, .once(1), .once(40), .once(1 << 20), .reopening(1)]

    final class Openings {
        var count = 0
    }

    /// A population's result or its failure, and how many times the response was opened.
    struct Populated {
        var result: PopulationResult?
        var failure: String?
        var openings = 0
    }

    static func populate(_ store: some RecordStorage, _ scenario: Case, run: Run) async -> Populated {
        var populated = Populated()
        do {
            _ = try await ResponsePopulation(store: store).populate(
                try JSONReader().read(#"{"data": \#(scenario.earlier)}"#), entity: "Post")
        } catch {
            populated.failure = "the earlier response failed: \(error.message)"
            return populated
        }
        let text = #"{"data": \#(scenario.list)}"#
        let openings = Openings()
        do {
            let population = ResponsePopulation(store: store, options: scenario.hooks.options)
            switch run {
            case .whole:
                populated.result = try await population.populate(try JSONReader().read(text), entity: "Post")
            case .once(let bytes), .reopening(let bytes):
                let data = Data(text.utf8)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath in
                    openings.count += 1
                    return JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: bytes)
                }
                populated.result = try await population.populate(
                    streaming: open, entity: "Post", reopens: run != .once(bytes))
            }
        } catch {
            populated.failure = error.message
        }
        populated.openings = openings.count
        return populated
    }

    /// The kind of a failure's message: the refusals Docs/Population.md words, or the message.
    static func kind(of failure: String) -> String {
        if failure.contains("occurs again later in the response") { return "refused: occurs again later" }
        if failure.contains("was stored from a reference by key where it first occurs") {
            return "refused: stored from a reference by key"
        }
        return failure
    }

    /// What a store holds after a case, and what its population reported.
    struct Outcome: Equatable {
        var rows: [String]
        var counts: [String: ChangeCounts]
        /// Each record the population gives, in order: its entity and its `_id`'s rank.
        var records: [String]
        var warnings: Int
        /// The kind of the failure (``kind(of:)``), if the population failed.
        var failure: String?
        var openings: Int
    }

    static func outcome(
        _ populated: Populated, content: [String: [[DatabaseValue]]], rowIDs: [DatabaseValue]
    ) -> Outcome {
        var ranks: [Int64: Int] = [:]
        for (index, value) in rowIDs.enumerated() {
            if case .integer(let rowID) = value { ranks[rowID] = index + 1 }
        }
        let records = (populated.result?.records ?? []).map { record in
            "\(record.entity.name) \(ranks[record.rowID].map(String.init) ?? "gone")"
        }
        return Outcome(
            rows: P.lines(content), counts: populated.result?.changesByEntity ?? [:], records: records,
            warnings: populated.result?.debugger.warnings.count ?? 0, failure: populated.failure.map(kind(of:)),
            openings: populated.openings)
    }

    static let postIDs = #"SELECT "_id" FROM "Post" ORDER BY "_id""#

    static func outcome(of store: SQLiteDatabase, _ populated: Populated) throws -> Outcome {
        let rowIDs = try store.read { connection in try connection.rows(postIDs).map { $0[0] } }
        return outcome(populated, content: try PostgreSQLStores.content(of: store), rowIDs: rowIDs)
    }

    static func outcome(of store: PostgreSQLDatabase, _ populated: Populated) throws -> Outcome {
        let rowIDs = try store.withConnection { connection in try connection.rows(postIDs).map { $0[0] } }
        return outcome(populated, content: try PostgreSQLStores.content(of: store), rowIDs: rowIDs)
    }

    /// What differs between PostgreSQL's outcome and SQLite's (`+` only on PostgreSQL, `-` only
    /// on SQLite).
    static func difference(_ postgreSQL: Outcome, _ sqlite: Outcome) -> String {
        var lines: [String] = []
        if postgreSQL.failure != sqlite.failure {
            lines.append("failure: PostgreSQL \(postgreSQL.failure ?? "none"), SQLite \(sqlite.failure ?? "none")")
        }
        for entity in Set(postgreSQL.counts.keys).union(sqlite.counts.keys).sorted()
        where postgreSQL.counts[entity] != sqlite.counts[entity] {
            lines.append(
                "counts of \(entity): PostgreSQL \(postgreSQL.counts[entity].map { "\($0)" } ?? "none"), "
                    + "SQLite \(sqlite.counts[entity].map { "\($0)" } ?? "none")")
        }
        if postgreSQL.records != sqlite.records {
            lines.append("records: PostgreSQL \(postgreSQL.records), SQLite \(sqlite.records)")
        }
        if postgreSQL.warnings != sqlite.warnings {
            lines.append("warnings: PostgreSQL \(postgreSQL.warnings), SQLite \(sqlite.warnings)")
        }
        if postgreSQL.openings != sqlite.openings {
            lines.append("openings: PostgreSQL \(postgreSQL.openings), SQLite \(sqlite.openings)")
        }
        lines += postgreSQL.rows.filter { !sqlite.rows.contains($0) }.prefix(30).map { "+ " + String($0.prefix(200)) }
        lines += sqlite.rows.filter { !postgreSQL.rows.contains($0) }.prefix(30).map { "- " + String($0.prefix(200)) }
        return lines.map { String($0.prefix(1_000)) }.joined(separator: "\n")
    }

    /// A PostgreSQL store of each schema, emptied before each run (its `_id`s restarted, as a
    /// new store's), and what the runs reached on SQLite.
    final class SharedStores {
        var databases: [Shape: PostgreSQLDatabase] = [:]
        var populations = 0
        /// Streams read once that SQLite refused as Docs/Population.md says, and that it did not.
        var refused = 0
        var carriedThrough = 0

        func emptied(_ shape: Shape) throws -> PostgreSQLDatabase {
            let database = try databases[shape] ?? PostgreSQLStores.postgreSQL(shape.schema)
            databases[shape] = database
            let tables = database.layout.tables.map(\.name) + database.layout.joinTables.map(\.name)
            let list = tables.map { "\"\($0)\"" }.joined(separator: ", ")
            try database.write { connection in _ = try connection.execute("TRUNCATE \(list) RESTART IDENTITY") }
            return database
        }
    }

    /// How the two stores differ after `scenario` populated at `run`, described, or nil.
    static func firstDifference(_ scenario: Case, run: Run, stores: SharedStores) async throws -> String? {
        let sqlite = try PostgreSQLStores.sqlite(scenario.shape.schema)
        let postgreSQL = try stores.emptied(scenario.shape)
        let expected = await populate(sqlite, scenario, run: run)
        let result = await populate(postgreSQL, scenario, run: run)
        let sqliteOutcome = try outcome(of: sqlite, expected)
        let postgreSQLOutcome = try outcome(of: postgreSQL, result)
        stores.populations += 1
        if case .once = run {
            #expect(expected.openings <= 1, "SQLite read a response read once again: \(scenario)")
            if let failure = sqliteOutcome.failure, failure.hasPrefix("refused") {
                stores.refused += 1
            } else if sqliteOutcome.failure == nil {
                stores.carriedThrough += 1
            }
        }
        guard postgreSQLOutcome != sqliteOutcome else { return nil }
        var failures = ""
        if let failure = result.failure { failures += "\nPostgreSQL failed: \(failure)" }
        if let failure = expected.failure { failures += "\nSQLite failed: \(failure)" }
        let shown = { (rows: [String]) in rows.prefix(30).map { String($0.prefix(200)) }.joined(separator: "\n") }
        return "\(run), \(String(scenario.description.prefix(2_000)))\n" + difference(postgreSQLOutcome, sqliteOutcome)
            + failures + "\nSQLite rows:\n" + shown(sqliteOutcome.rows) + "\nPostgreSQL rows:\n"
            + shown(postgreSQLOutcome.rows)
    }

    // MARK: - A response larger than SQLite's batches and smaller than PostgreSQL's

    /// A compact user 5 in post 1, through `relationship`, posts 100 to 147 of 64 KB titles
    /// (3 MB), and the full user 5 in post 2: streamed in each store's own batches, SQLite's
    /// 2 MB ones drop user 5 and complete it in a later batch, where PostgreSQL's 8 MB one
    /// holds the whole response.
    static func acrossSQLiteBatches(_ relationship: String) -> Case {
        let title = String(repeating: "x", count: 64 << 10)
        let filler = (100..<148).map { #"{"id": \#($0), "title": "\#(title)"}"# }
        let list =
            [#"{"id": 1, "\#(relationship)": {"id": 5, "handle": "h"}}"#] + filler
            + [#"{"id": 2, "\#(relationship)": {"id": 5, "name": "N"}}"#]
        return Case(list: "[" + list.joined(separator: ", ") + "]")
    }

    /// A user carried across SQLite's batches (a post's `user`) ends as in PostgreSQL's one.
    @Test("A record carried across SQLite's 2 MB batches ends as in PostgreSQL's one 8 MB batch")
    func carriedAcrossSQLiteBatches() async throws {
        let stores = SharedStores()
        for run in [Run.whole, .once(nil), .reopening(nil)] {
            let report = try await Self.firstDifference(Self.acrossSQLiteBatches("user"), run: run, stores: stores)
            #expect(report == nil, "\(report ?? "")")
        }
        #expect(stores.carriedThrough == 1 && stores.refused == 0, "\(stores.carriedThrough), \(stores.refused)")
    }

    /// A user that SQLite's batches cannot carry (a post's `pinned`, a one-to-one): a stream
    /// read once is refused by SQLite, where PostgreSQL, whose one batch holds the response,
    /// populates it; from a stream that can be read again, SQLite reads it twice and
    /// PostgreSQL once. The rows, counts and records are the same.
    @Test("A response one store streams in one batch and the other in several is refused by both, or by neither")
    func refusedAcrossSQLiteBatches() async throws {
        let stores = SharedStores()
        let scenario = Self.acrossSQLiteBatches("pinned")
        #expect(try await Self.firstDifference(scenario, run: .whole, stores: stores) == nil)
        for run in [Run.once(nil), .reopening(nil)] {
            await withKnownIssue("a stream of 2 to 8 MB is one batch into PostgreSQL and several into SQLite") {
                let report = try await Self.firstDifference(scenario, run: run, stores: stores)
                #expect(report == nil, "\(report ?? "")")
            }
        }
        #expect(stores.refused == 1, "SQLite refused \(stores.refused) streams read once")
    }

    // MARK: - Random responses

    /// A JSON value of a response: a scalar as its text, an object, or a list.
    indirect enum Node: Equatable {
        case raw(String)
        case object([(key: String, node: Node)])
        case list([Node])

        static func == (lhs: Node, rhs: Node) -> Bool { lhs.json == rhs.json }

        var json: String {
            switch self {
            case .raw(let text): text
            case .object(let members):
                "{" + members.map { "\"\($0.key)\": \($0.node.json)" }.joined(separator: ", ") + "}"
            case .list(let elements): "[" + elements.map(\.json).joined(separator: ", ") + "]"
            }
        }

        /// This value with one member or element left out, anywhere in it.
        var smaller: [Node] {
            switch self {
            case .raw: return []
            case .object(let members):
                var variants = members.indices.map { index in
                    var fewer = members
                    fewer.remove(at: index)
                    return Node.object(fewer)
                }
                for index in members.indices {
                    for inner in members[index].node.smaller {
                        var changed = members
                        changed[index].node = inner
                        variants.append(.object(changed))
                    }
                }
                return variants
            case .list(let elements):
                var variants = elements.indices.map { index in
                    var fewer = elements
                    fewer.remove(at: index)
                    return Node.list(fewer)
                }
                for index in elements.indices {
                    for inner in elements[index].smaller {
                        var changed = elements
                        changed[index] = inner
                        variants.append(.list(changed))
                    }
                }
                return variants
            }
        }
    }

    /// `AdversarialIncomingLinksTests.Generator`, drawing the same numbers in the same order:
    /// posts 1 to 6 that nest users 5 to 8, compact (a handle, or nothing, besides the key) or
    /// full, sometimes admins or bots, with lists back, stats, editors, reposts, photos and
    /// repeated posts.
    struct Generator {
        var random: SeededRandom
        /// Whether posts may be photos (an earlier response has none).
        var photos = true

        mutating func below(_ bound: Int) -> Int { random.next(below: bound) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

        mutating func user(depth: Int) -> Node {
            let id = 5 + below(4)
            var members: [(key: String, node: Node)] = [("id", .raw("\(id)"))]
            switch below(10) {
            case 0: return .raw("\(id)")
            case 1: return .raw("null")
            case 2, 3, 4: members.append(("handle", .raw("\"h\(below(3))\"")))
            case 5: break
            default: members.append(("name", .raw("\"n\(below(3))\"")))
            }
            if chance(10) { members.append(("role", .raw(chance(50) ? #""admin""# : #""bot""#))) }
            if depth == 0, chance(12) {
                members.append(("posts", .list((0..<below(3)).map { _ in .raw("\(1 + below(6))") })))
            }
            if chance(8) { members.append(("stats", .object([("followers", .raw("\(below(3))"))]))) }
            return .object(members)
        }

        mutating func post(depth: Int = 0) -> Node {
            var members: [(key: String, node: Node)] = [("id", .raw("\(1 + below(6))"))]
            if chance(40) { members.append(("title", .raw("\"t\(below(3))\""))) }
            if photos, chance(10) {
                members.append(("type", .raw(#""photo""#)))
                members.append(("url", .raw("\"u\(below(2))\"")))
            }
            if chance(75) { members.append(("user", user(depth: depth))) }
            if chance(25) { members.append(("editor", user(depth: depth))) }
            if depth == 0, chance(10) { members.append(("repostOf", post(depth: 1))) }
            return .object(members)
        }

        mutating func response(count: Int) -> Node {
            var posts: [Node] = []
            for _ in 0..<count {
                if !posts.isEmpty, chance(10) {
                    posts.append(posts[below(posts.count)])
                } else {
                    posts.append(post())
                }
            }
            return .list(posts)
        }
    }

    /// A random case: what `AdversarialIncomingLinksTests.randomPostsWithCompactAndFullUsers`
    /// populates for `seed`.
    struct RandomCase {
        var earlier: Node
        var list: Node
        var hooks: Hooks

        init(earlier: Node, list: Node, hooks: Hooks) {
            self.earlier = earlier
            self.list = list
            self.hooks = hooks
        }

        init(seed: UInt64) {
            var generator = Generator(random: SeededRandom(seed: seed &* 104_729))
            generator.photos = false
            earlier = generator.chance(50) ? generator.response(count: 1 + generator.below(3)) : .list([])
            generator.photos = true
            list = generator.response(count: 3 + generator.below(8))
            hooks = generator.chance(30) ? .union : .none
        }

        var scenario: Case { Case(earlier: earlier.json, list: list.json, hooks: hooks) }

        /// Smaller variants: the options left out, a member or an element left out anywhere.
        var smaller: [RandomCase] {
            var variants: [RandomCase] = []
            if hooks != .none { variants.append(RandomCase(earlier: earlier, list: list, hooks: .none)) }
            variants += list.smaller.map { RandomCase(earlier: earlier, list: $0, hooks: hooks) }
            variants += earlier.smaller.map { RandomCase(earlier: $0, list: list, hooks: hooks) }
            return variants
        }
    }

    /// Whether `list` names a user first without a name and later with one
    /// (`AdversarialIncomingLinksTests.completesAUserLater`).
    static func completesAUserLater(_ list: String) -> Bool {
        guard let posts = try? JSONReader().read(list).arrayValue else { return false }
        var firstLacks: [Int64: Bool] = [:]
        func visit(_ value: JSONValue?) -> Bool {
            guard let object = value?.objectValue, case .integer(let id)? = object["id"] else { return false }
            let hasName = object["name"] != nil
            if let lacks = firstLacks[id] {
                if lacks && hasName { return true }
            } else {
                firstLacks[id] = !hasName
            }
            return false
        }
        for post in posts {
            guard let object = post.objectValue else { continue }
            for value in [object["user"], object["editor"], object["repostOf"]?.objectValue?["user"]]
            where visit(value) {
                return true
            }
        }
        return false
    }

    /// `random` made as small as it can be while the stores still differ at `run`, within
    /// `budget` runs.
    static func shrink(_ random: RandomCase, run: Run, stores: SharedStores, budget: Int = 250) async throws
        -> RandomCase
    {
        var current = random
        var tries = 0
        var progress = true
        while progress && tries < budget {
            progress = false
            for variant in current.smaller {
                tries += 1
                if tries > budget { break }
                if try await firstDifference(variant.scenario, run: run, stores: stores) != nil {
                    current = variant
                    progress = true
                    break
                }
            }
        }
        return current
    }

    // MARK: - The comparison itself

    /// A case populated into SQLite only differs in its rows, counts and records; a failure on
    /// one store only, or of another kind, differs too.
    @Test("The comparison finds rows, counts, records and failures that only one store has")
    func comparisonFindsADifference() async throws {
        let stores = SharedStores()
        let scenario = Case(
            shape: .streamed,
            list: #"[{"id": 1, "user": {"id": 5, "handle": "h"}}, {"id": 2, "user": {"id": 5, "name": "N"}}]"#)
        #expect(try await Self.firstDifference(scenario, run: .once(1), stores: stores) == nil)
        let sqlite = try PostgreSQLStores.sqlite(scenario.shape.schema)
        let expected = await Self.populate(sqlite, scenario, run: .once(1))
        let sqliteOutcome = try Self.outcome(of: sqlite, expected)
        let postgreSQL = try stores.emptied(scenario.shape)
        let postgreSQLOutcome = try Self.outcome(of: postgreSQL, Populated(failure: "not populated"))
        let difference = Self.difference(postgreSQLOutcome, sqliteOutcome)
        #expect(difference.contains("failure: PostgreSQL not populated, SQLite none"), "\(difference)")
        #expect(difference.contains("counts of User"), "\(difference)")
        #expect(difference.contains("records: PostgreSQL [], SQLite [\"Post 1\", \"Post 2\"]"), "\(difference)")
        #expect(difference.contains("- User: 1 | 'User' | 5 | 'N' | 'h'"), "\(difference)")
        #expect(difference.contains("openings: PostgreSQL 0, SQLite 1"), "\(difference)")
        var refused = sqliteOutcome
        refused.failure = Self.kind(of: "User 5 occurs again later in the response")
        var other = sqliteOutcome
        other.failure = Self.kind(of: "User 5 was stored from a reference by key where it first occurs")
        #expect(Self.difference(refused, other).hasPrefix("failure: PostgreSQL refused: occurs again later"))
    }

    // MARK: - The cases of the WebRecordTests suites

    @Test("Carried records and the links to them end the same on PostgreSQL as on SQLite, whole and streamed")
    func scenariosEndTheSame() async throws {
        let stores = SharedStores()
        let scenarios = Self.scenarios
        #expect(scenarios.count == 116, "\(scenarios.count) cases")
        var reports: [String] = []
        for scenario in scenarios {
            for run in Self.runs {
                if let report = try await Self.firstDifference(scenario, run: run, stores: stores) {
                    reports.append(report)
                }
            }
        }
        #expect(reports.isEmpty, "\(reports.count) runs differ:\n\(reports.joined(separator: "\n\n"))")
        // Some streams read once are refused as documented, and more are populated.
        #expect(stores.refused > 80 && stores.carriedThrough > 180, "\(stores.refused), \(stores.carriedThrough)")
    }

    // MARK: - Random responses

    @Test("Random posts with compact and full users end the same on PostgreSQL as on SQLite, whole and streamed")
    func randomPostsWithCompactAndFullUsers() async throws {
        let stores = SharedStores()
        var reports: [String] = []
        var carried = 0
        for seed in Self.seeds {
            let random = RandomCase(seed: seed)
            let bytes = Self.batchSizes[Int(seed % 3)]
            for run in [Run.whole, .once(1), .once(bytes), .reopening(seed % 2 == 0 ? 1 : bytes)] {
                let scenario = random.scenario
                let before = stores.carriedThrough
                guard try await Self.firstDifference(scenario, run: run, stores: stores) != nil else {
                    if run == .once(1), stores.carriedThrough > before, Self.completesAUserLater(scenario.list) {
                        carried += 1
                    }
                    continue
                }
                guard reports.count < 3 else {
                    reports.append("seed \(seed), \(run)")
                    continue
                }
                let minimal = try await Self.shrink(random, run: run, stores: stores)
                let report =
                    try await Self.firstDifference(minimal.scenario, run: run, stores: stores) ?? "(no longer differs)"
                reports.append("seed \(seed), shrunk:\n\(report)")
            }
        }
        #expect(reports.isEmpty, "\(reports.count) runs differ:\n\(reports.joined(separator: "\n\n"))")
        // Streams read once are populated with a user a later batch completes (22 seeds when this
        // was written, at batches of one byte, and 111 runs refused; 35 and 75 once overlapping
        // pages and a compact user's keyless cover image were carried), and others are refused.
        #expect(carried >= 30 && stores.refused > 50, "carried \(carried), refused \(stores.refused)")
    }

    /// The seeds of ``randomPostsWithCompactAndFullUsers()``.
    static let seeds = UInt64(1)...UInt64(150)
}
