// Generated from Foursquare.json: the record class of the entity FSCategory.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `FSCategory`, identified by its `id`.
final class FSCategory: FoursquareRecord {
    override class var entityName: String { "FSCategory" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `venue` relationship, to one `Venue`; its inverse is `categories`.
    var venue: Venue? { related("venue") }
}
