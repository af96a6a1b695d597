// Generated from Docs/JSON.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord

// Docs/JSON.md, block 1
extension DocSnippetContext {
    func json1() throws {
        let body = #"{"meta": {"code": 200}, "data": [{"id": "1", "user": {"username": "alice"}}]}"#
        let response = try JSONReader().read(body)          // also reads Data

        let code = response.value(atKeyPath: "meta.code")                // .integer(200)
        let username = response.value(atKeyPath: "data.0.user.username") // .string("alice")
        let id = response["data"]?[0]?["id"]?.stringValue                 // "1"

        print(response.serialized(sortedKeys: true, prettyPrinted: true))

        do {
            _ = try JSONReader().read("{\n  \"a\": 1,\n}")
        } catch {
            print(error)   // invalidJSON: line 3, column 1: unexpected character '}' (expected a string key)
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = body
        _ = response
        _ = code
        _ = username
        _ = id
    }
}

// Docs/JSON.md, block 2
extension DocSnippetContext {
    func json2() throws {
        let value: JSONValue = ["id": 12, "score": 0.5, "tags": ["a"], "reply_to": nil]
        // Every name the block declares is used, as a reader would go on to use it.
        _ = value
    }
}
