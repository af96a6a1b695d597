// Generated from AppNet.json: the record class of the entity Source.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Source`, identified by its `post`.
final class Source: Record {
    override class var entityName: String { "Source" }

    /// The `clientID` attribute, a string.
    var clientID: String? { self["clientID"] }

    /// The `link` attribute, a string.
    var link: String? { self["link"] }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `post` relationship, to one `Post`; its inverse is `source`. It is the primary key.
    var post: Post? { related("post") }
}
