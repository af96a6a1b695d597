// Generated from AppNet.json: the record class of the entity Counts.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Counts`, identified by its `user`.
final class Counts: Record {
    override class var entityName: String { "Counts" }

    /// The `followers` attribute, an integer.
    var followers: Int64? { self["followers"] }

    /// The `following` attribute, an integer.
    var following: Int64? { self["following"] }

    /// The `posts` attribute, an integer.
    var posts: Int64? { self["posts"] }

    /// The `stars` attribute, an integer.
    var stars: Int64? { self["stars"] }

    /// The `user` relationship, to one `User`; its inverse is `counts`. It is the primary key.
    var user: User? { related("user") }
}
