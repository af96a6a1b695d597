// Generated from Blog.json: the record class of the entity Comment.
// Written by `webrecord generate-swift Blog.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Comment`, identified by its `id`.
final class Comment: Record {
    override class var entityName: String { "Comment" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `body` attribute, a string.
    var body: String? { self["body"] }

    /// The `article` relationship, to one `Article`; its inverse is `comments`.
    var article: Article? { related("article") }

    /// The `author` relationship, to one `Person`.
    var author: Person? { related("author") }
}
