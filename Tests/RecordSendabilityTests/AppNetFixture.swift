import Foundation
import TestSupport
import WebRecord

/// A store with the App.net schema and a server answering DESIGN §4's URN with the recorded
/// App.net response: `Schemas/AppNet.json` and `Examples/AppNet/posts.json`, as README.md's
/// example uses them.
struct AppNetFixture {
    /// DESIGN §4's URN.
    static let urn = "stream/0/posts/stream/global"

    /// The package root: this file is `Tests/RecordSendabilityTests/AppNetFixture.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let store: RecordStore
    let server: JSONFileServer
    /// The recorded response, parsed, to compare the records with.
    let response: JSONValue
    /// Holds the store file and the server's copy of the response.
    let directory: TemporaryDirectory

    /// A fresh store, with no record class or server registered yet.
    init() throws {
        directory = try TemporaryDirectory()
        let body = try Data(contentsOf: Self.packageRoot.appendingPathComponent("Examples/AppNet/posts.json"))
        try directory.write("responses/\(Self.urn).json", body)
        response = try JSONReader().read(body)
        server = try JSONFileServer(root: directory.url.appendingPathComponent("responses"))
        let schema = try Schema(contentsOf: Self.packageRoot.appendingPathComponent("Schemas/AppNet.json"))
        store = try RecordStore(path: directory.path("appnet.sqlite"), schema: schema)
    }

    /// The posts of the recorded response, in response order.
    var postsInResponse: [JSONValue] { response["data"]?.arrayValue ?? [] }

    /// The `text` of each post in the response.
    var textsInResponse: [String?] { postsInResponse.map { $0["text"]?.stringValue } }

    /// The author's `name` of each post in the response.
    var authorsInResponse: [String?] { postsInResponse.map { $0["user"]?["name"]?.stringValue } }

    /// Makes the server answer the detail URN of the post `id` (``Post/recordDetailURN``) with
    /// the post, its text changed to `text`.
    func serveDetail(ofPost id: String, text: String) throws {
        let detail: JSONValue = ["data": ["id": .string(id), "text": .string(text)]]
        try directory.write("responses/stream/0/posts/\(id).json", Data(detail.serialized().utf8))
    }
}
