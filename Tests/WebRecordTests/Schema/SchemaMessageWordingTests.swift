import Foundation
import Testing
import WebRecord

/// Every schema-file message built from a template reads naturally: it names what the value
/// is (`a string`, `an empty string`, `a number`, `an empty array`...) and never a bare type
/// name (`not string`, `non-empty string, not string`).
@Suite struct SchemaMessageWordingTests {
    /// The messages a schema file's problems carry, as `Entity.property: message`.
    func messages(_ json: String) -> [String] {
        do {
            _ = try Schema(json: json, fileName: "Blog.json")
            return []
        } catch {
            return error.schemaProblems.map { problem in
                let place = [problem.entity, problem.property].compactMap { $0 }.joined(separator: ".")
                return place.isEmpty ? problem.message : "\(place): \(problem.message)"
            }
        }
    }

    /// An entity `Post` with an `id` key and one more attribute given as JSON text.
    func post(_ members: String = "", title: String = #"{"type": "string"}"#) -> String {
        #"{"entities": {"Post": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "title": \#(title)}\#(members)}}}"#
    }

    static let cases: [(String, String, String)] = [
        (
            "a string option that is empty",
            #"{"entities": {"Post": {"parent": "", "attributes": {"id": {"type": "string"}}}}}"#,
            "Post: 'parent' must be a non-empty string"
        ),
        (
            "a string option that is a number", #"{"entities": {"Post": {"parent": 5}}}"#,
            "Post: 'parent' must be a string, not a number"
        ),
        (
            "a string option that is an array", #"{"entities": {"Post": {"keyPathForResponseObject": ["data"]}}}"#,
            "Post: 'keyPathForResponseObject' must be a string, not an array"
        ),
        (
            "a string option that is a boolean",
            #"{"entities": {"Post": {"attributes": {"d": {"type": "date", "dateFormat": true}}}}}"#,
            "Post.d: 'dateFormat' must be a string, not a boolean"
        ),
        (
            "a boolean option that is a string", #"{"entities": {"Post": {"abstract": "yes"}}}"#,
            "Post: 'abstract' must be true or false, not a string"
        ),
        (
            "a boolean option that is an empty string", #"{"entities": {"Post": {"abstract": ""}}}"#,
            "Post: 'abstract' must be true or false, not an empty string"
        ),
        ("a file that is an empty array", "[]", "the file must hold a JSON object, not an empty array"),
        ("a file that is a string", #""schema""#, "the file must hold a JSON object, not a string"),
        ("a file that is null", "null", "the file must hold a JSON object, not null"),
        (
            "a version that is a string", #"{"version": "1", "entities": {}}"#,
            "'version' must be the number 1, not a string"
        ),
        (
            "a version that is another number", #"{"version": 2.5, "entities": {}}"#,
            "unsupported version 2.5; this WebRecord reads version 1"
        ),
        (
            "date formats with a number", #"{"dateFormats": ["yyyy", 5], "entities": {}}"#,
            "'dateFormats' must be an array of strings; element 2 is a number"
        ),
        (
            "entities that are a string", #"{"entities": "Post"}"#,
            "'entities' must be an object mapping entity names to entities, not a string"
        ),
        (
            "an entity that is an array", #"{"entities": {"Post": [1]}}"#,
            "Post: an entity must be an object, not an array"
        ),
        (
            "a primary key that is empty",
            #"{"entities": {"Post": {"primaryKey": "", "attributes": {"id": {"type": "string"}}}}}"#,
            "Post: 'primaryKey' must be a property name or a non-empty array of names, not an empty string"
        ),
        (
            "a primary key that is an empty array",
            #"{"entities": {"Post": {"primaryKey": [], "attributes": {"id": {"type": "string"}}}}}"#,
            "Post: 'primaryKey' must be a property name or a non-empty array of names, not an empty array"
        ),
        (
            "a primary key holding a number",
            #"{"entities": {"Post": {"primaryKey": ["id", 2], "attributes": {"id": {"type": "string"}}}}}"#,
            "Post: 'primaryKey' must be a property name or a non-empty array of names; element 2 is a number"
        ),
        (
            "subentities that are a string", #"{"entities": {"Post": {"subentities": "type"}}}"#,
            "Post: 'subentities' must be an object with 'key' and 'map', or with 'present', not a string"
        ),
        (
            "relationships that are an array", #"{"entities": {"Post": {"relationships": [{"destination": "User"}]}}}"#,
            "Post: 'relationships' must be an object, not an array"
        ),
        (
            "an attribute that is a number", #"{"entities": {"Post": {"attributes": {"n": 5}}}}"#,
            "Post.n: an attribute must be an object, not a number"
        ),
        (
            "a type that is empty", #"{"entities": {"Post": {"attributes": {"n": {"type": ""}}}}}"#,
            "Post.n: 'type' must be one of string, integer, double, decimal, boolean, date, data, uuid, url, json, not an empty string"
        ),
        (
            "a type that is a boolean", #"{"entities": {"Post": {"attributes": {"n": {"type": true}}}}}"#,
            "Post.n: 'type' must be one of string, integer, double, decimal, boolean, date, data, uuid, url, json, not a boolean"
        ),
        (
            "a default that is not base64",
            #"{"entities": {"Post": {"attributes": {"b": {"type": "data", "default": "%%%"}}}}}"#,
            #"Post.b: default "%%%" is not base64 data"#
        ),
        (
            "a default that is not a UUID",
            #"{"entities": {"Post": {"attributes": {"u": {"type": "uuid", "default": 5}}}}}"#,
            "Post.u: default 5 is not a UUID"
        ),
        (
            "a relationship that is null-like", #"{"entities": {"Post": {"relationships": {"user": true}}}}"#,
            "Post.user: a relationship must be an object, not a boolean"
        ),
        (
            "a destination that is empty", #"{"entities": {"Post": {"relationships": {"user": {"destination": ""}}}}}"#,
            "Post.user: 'destination' must be an entity name, not an empty string"
        ),
        (
            "a destination that is a number",
            #"{"entities": {"Post": {"relationships": {"user": {"destination": 3}}}}}"#,
            "Post.user: 'destination' must be an entity name, not a number"
        ),
        (
            "a key that is an empty string",
            #"{"entities": {"Post": {"attributes": {"t": {"type": "string", "key": ""}}}}}"#,
            "Post.t: 'key' must be a key path, not an empty string"
        ),
        (
            "a key array holding a number",
            #"{"entities": {"Post": {"attributes": {"t": {"type": "string", "key": ["a", 1]}}}}}"#,
            "Post.t: 'key' must be a key path or an array of key paths; element 2 is a number"
        ),
        (
            "a key that is an object", #"{"entities": {"Post": {"attributes": {"t": {"type": "string", "key": {}}}}}}"#,
            "Post.t: 'key' must be a key path or an array of key paths, not an object"
        ),
        (
            "an empty key path for the response", #"{"entities": {"Post": {"keyPathForResponseObject": "."}}}"#,
            "Post: 'keyPathForResponseObject' key path '.' has an empty component"
        ),
    ]

    @Test(arguments: cases)
    func templatedMessagesReadNaturally(situation: String, json: String, message: String) {
        let produced = messages(json)
        #expect(produced.contains(message), "\(situation): \(produced)")
        for text in produced {
            for bare in [
                "not string", "not integer", "not array", "not object", "not boolean", "not number", "a valid data",
            ] {
                #expect(!text.contains(bare), "\(situation): \(text)")
            }
        }
    }
}
