import Foundation
import WebRecord

// The record classes of this target, written as users write them. The target is built with
// warnings as errors, so each form here compiles without a single warning under Swift 6.
//
// Every subclass restates `@unchecked Sendable`: Swift 6 asks it of any subclass of an
// `@unchecked Sendable` class, because the compiler cannot check what a subclass adds. The
// restatement is the subclass's promise to keep Record's rule: no stored mutable state.

/// DESIGN §4's record: a final subclass with computed accessors only.
final class Post: Record, @unchecked Sendable {
    override class var keyPathForResponseObject: String? { "data" }
    var text: String? { self["text"] }
    var user: User? { self.related("user") }
}

/// The author of a ``Post``.
final class User: Record, @unchecked Sendable {
    var name: String? { self["name"] }
    var posts: [Post] { relatedRecords("posts") }
}

/// A non-final base for an API's records, as a code generator may write one per API. Its
/// stored property is a `let` of a Sendable type: the only kind a subclass may add.
class ADNRecord: Record, @unchecked Sendable {
    /// The API the record came from.
    let api = "App.net"
}

/// A post through the non-final base: each class in the chain restates the conformance.
final class ADNPost: ADNRecord, @unchecked Sendable {
    override class var entityName: String { "Post" }
    override class var keyPathForResponseObject: String? { "data" }
    var text: String? { self["text"] }
    var author: ADNUser? { related("user") }
}

/// A user through the non-final base.
final class ADNUser: ADNRecord, @unchecked Sendable {
    override class var entityName: String { "User" }
    var name: String? { self["name"] }
}

/// A record with an attribute named `description`. Record describes itself through
/// `debugDescription` (it is `CustomDebugStringConvertible`, not `CustomStringConvertible`),
/// so the name is free for an ordinary typed accessor.
final class Checkin: Record, @unchecked Sendable {
    var description: String? { self["description"] }
}
