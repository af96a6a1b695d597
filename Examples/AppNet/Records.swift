import Foundation
import WebRecord

// The record classes: typed accessors over the entities of Schemas/AppNet.json, MMRecord-style.
// A record is an immutable snapshot and these classes add computed accessors only, so they are
// as safe to share as `Record` itself: hence `@unchecked Sendable`.

/// The base of the App.net classes: a server registered for it serves them all.
class ADNRecord: Record, @unchecked Sendable {}

/// A post in a stream.
final class Post: ADNRecord, @unchecked Sendable {
    var text: String? { self["text"] }
    var date: Date? { self["date"] }
    var user: User? { related("user") }
}

/// The author of posts.
final class User: ADNRecord, @unchecked Sendable {
    var name: String? { self["name"] }
    var counts: Counts? { related("counts") }
    var posts: [Post] { relatedRecords("posts") }
}

/// A user's counters: nested in the user with no id of their own, so the user identifies them.
final class Counts: ADNRecord, @unchecked Sendable {
    var followers: Int? { self["followers"] }
    var following: Int? { self["following"] }
}
