// Generated from Blog.json: the record class of the entity Article.
// Written by `webrecord generate-swift Blog.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Article`, identified by its `id`.
final class Article: Record {
    override class var entityName: String { "Article" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `title` attribute, a string.
    var title: String? { self["title"] }

    /// The `author` relationship, to one `Person`; its inverse is `articles`.
    var author: Person? { related("author") }

    /// The `comments` relationship, to many `Comment` records in order; its inverse is `article`.
    var comments: [Comment] { relatedRecords("comments") }
}
