// Generated from AppNet.json: the record class of the entity CoverImage.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `CoverImage`, identified by its `id`.
final class CoverImage: Record {
    override class var entityName: String { "CoverImage" }

    /// The `id` attribute, an integer: the primary key, which every record has.
    var id: Int64 { self[primaryKey: "id"] }

    /// The `url` attribute, a string.
    var url: String? { self["url"] }

    /// The `width` attribute, an integer.
    var width: Int64? { self["width"] }

    /// The `height` attribute, an integer.
    var height: Int64? { self["height"] }

    /// The `user` relationship, to one `User`; its inverse is `coverImage`.
    var user: User? { related("user") }
}
