// Generated from Blog.json: the record class of the entity Person.
// Written by `webrecord generate-swift Blog.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Person`, identified by its `id`.
final class Person: Record {
    override class var entityName: String { "Person" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `articles` relationship, to many `Article` records; its inverse is `author`.
    var articles: [Article] { relatedRecords("articles") }
}
