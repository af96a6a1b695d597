import Foundation
import Logging
import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// What the documentation's swift blocks use without declaring it: the store and records a
// reader has at hand by then, and the app's own functions and classes they call. Each block
// is compiled as a method of `DocSnippetContext` (see `generate.py`), so it sees these
// properties as plain names, and a block that declares its own `store` or `Post` shadows them.
//
// The blocks are compiled, not run (README.md's example runs: see `ReadmeExampleTests`), so
// nothing here is ever made.

/// The values the documentation's blocks refer to.
struct DocSnippetContext {
    /// A schema, as `Schema(contentsOf:)` loads it.
    let schema: Schema
    /// A store for `schema`, and a store file's path.
    let store: RecordStore
    let path: String
    /// A fetched post, its user and the user's counts.
    let post: Post
    let user: User
    let counts: Record
    /// A fetched venue.
    let venue: Venue
    /// A response body.
    let data: Data
    /// A date to compare with.
    let cutoff: Date
    /// Credentials.
    let token: String
    let key: String
    let userToken: String
    /// A dispatch queue for completion handlers.
    let queue: DispatchQueue
    /// A directory of recorded responses, and a server reading it.
    let responses: URL
    let filesServer: JSONFileServer
}

/// The records of an App.net-style API, as Docs/Servers.md declares them.
class ADNRecord: Record {}

final class Post: ADNRecord {
    var text: String? { self["text"] }
    var date: Date? { self["date"] }
    var user: User? { related("user") }
}

final class User: ADNRecord {
    var name: String? { self["name"] }
    var posts: [Post] { relatedRecords("posts") }
}

/// Foursquare's records, as Examples/Foursquare declares them.
/// What `webrecord generate-swift` writes for the App.net schema's classes (Docs/Records.md).
enum AppNetRecords {
    static var classes: [Record.Type] { [Post.self, User.self] }

    static func register(on store: RecordStore) {
        for recordClass in classes { store.register(recordClass: recordClass) }
    }
}

final class Venue: Record {
    override var recordDetailURN: String? { (self["id"] as String?).map { "venues/\($0)" } }
}

final class FSCategory: Record {}

/// App.net's server, as Docs/Servers.md declares it.
final class ADNServer: HTTPServer, @unchecked Sendable {
    init(token: String) {
        super.init(baseURL: URL(string: "https://api.app.net/")!, headers: ["Authorization": "Bearer \(token)"])
    }
}

/// The app's own functions.
func show(_ records: [Record]) {}
func signIn() {}
func signature(of request: URLRequest, with secret: String) -> String { "" }

/// swift-log's `Logger(label:)`, which the module shaped like swift-log's `Logging` lacks.
extension Logging.Logger {
    init(label: String) {
        self.init(label: label, handler: DiscardingLogHandler())
    }
}

/// A `Logging.LogHandler` that drops every message.
struct DiscardingLogHandler: Logging.LogHandler {
    func log(level: Logging.Logger.Level, message: String, label: String) {}
}
