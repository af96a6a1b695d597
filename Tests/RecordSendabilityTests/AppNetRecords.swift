import Foundation
import WebRecord

// The record classes of this target, written as users write them. The target is built with
// warnings as errors, so each form here compiles without a single warning under Swift 6.
//
// Record is not Sendable, so a subclass is a plain subclass: it restates nothing, and the
// compiler checks every use of its records across isolation (Docs/Records.md, "Records and
// concurrency").

/// DESIGN §4's record: a final subclass with computed accessors only.
final class Post: Record {
    override class var keyPathForResponseObject: String? { "data" }
    override var recordDetailURN: String? { (self["id"] as String?).map { "stream/0/posts/\($0)" } }
    var text: String? { self["text"] }
    var user: User? { self.related("user") }
}

/// The author of a ``Post``.
final class User: Record {
    var name: String? { self["name"] }
    var posts: [Post] { relatedRecords("posts") }
}

/// A non-final base for an API's records, as a code generator may write one per API, with a
/// stored `let`.
class ADNRecord: Record {
    /// The API the record came from.
    let api = "App.net"
}

/// A post through the non-final base.
final class ADNPost: ADNRecord {
    override class var entityName: String { "Post" }
    override class var keyPathForResponseObject: String? { "data" }
    var text: String? { self["text"] }
    var author: ADNUser? { related("user") }
}

/// A user through the non-final base.
final class ADNUser: ADNRecord {
    override class var entityName: String { "User" }
    var name: String? { self["name"] }
}

/// A record with an attribute named `description`. Record describes itself through
/// `debugDescription` (it is `CustomDebugStringConvertible`, not `CustomStringConvertible`),
/// so the name is free for an ordinary typed accessor.
final class Checkin: Record {
    var description: String? { self["description"] }
}

/// A subclass with mutable state of its own: a lazily computed value. The compiler keeps each
/// record to one isolation domain at a time, so the cache needs no lock.
final class WordCountedPost: Record {
    override class var entityName: String { "Post" }
    override class var keyPathForResponseObject: String? { "data" }
    /// How many times the word count was computed.
    private(set) var computations = 0
    /// The number of words of the text, computed once.
    lazy var wordCount: Int = {
        computations += 1
        return (self["text"] as String?)?.split(whereSeparator: \.isWhitespace).count ?? 0
    }()
}
