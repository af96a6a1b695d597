import Foundation
import WebRecord

// The record classes: typed accessors over the entities of Schemas/AppNet.json, MMRecord-style.
// A record is an immutable snapshot, and these classes add computed accessors over it.

/// The base of the App.net classes: a server registered for it serves them all.
class ADNRecord: Record {}

/// A post in a stream.
final class Post: ADNRecord {
    var text: String? { self["text"] }
    var date: Date? { self["date"] }
    var user: User? { related("user") }
}

/// The author of posts.
final class User: ADNRecord {
    var name: String? { self["name"] }
    var counts: Counts? { related("counts") }
    var posts: [Post] { relatedRecords("posts") }
}

/// A user's counters: nested in the user with no id of their own, so the user identifies them.
final class Counts: ADNRecord {
    var followers: Int? { self["followers"] }
    var following: Int? { self["following"] }
}
