// Generated from AppNet.json: the record class of the entity User.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `User`, identified by its `id`.
final class User: Record {
    override class var entityName: String { "User" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `avatarImagePath` attribute, a string.
    var avatarImagePath: String? { self["avatarImagePath"] }

    /// The `coverImagePath` attribute, a string.
    var coverImagePath: String? { self["coverImagePath"] }

    /// The `posts` relationship, to many `Post` records; its inverse is `user`.
    var posts: [Post] { relatedRecords("posts") }

    /// The `counts` relationship, to one `Counts`; its inverse is `user`.
    var counts: Counts? { related("counts") }

    /// The `coverImage` relationship, to one `CoverImage`; its inverse is `user`.
    var coverImage: CoverImage? { related("coverImage") }
}
