// Generated from AppNet.json: the record class of the entity Post.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import Foundation
import WebRecord

/// A record of the entity `Post`, identified by its `id`.
final class Post: Record {
    override class var entityName: String { "Post" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `date` attribute, a date.
    var date: Date? { self["date"] }

    /// The `text` attribute, a string.
    var text: String? { self["text"] }

    /// The `thread_id` attribute, a string.
    var threadID: String? { self["thread_id"] }

    /// The `user` relationship, to one `User`; its inverse is `posts`.
    var user: User? { related("user") }

    /// The `source` relationship, to one `Source`; its inverse is `post`.
    var source: Source? { related("source") }
}
