// Generated from Foursquare.json: the record class of the entity Venue.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Venue`, identified by its `id`.
final class Venue: FoursquareRecord {
    override class var entityName: String { "Venue" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `categories` relationship, to many `FSCategory` records in order; its inverse is `venue`.
    var categories: [FSCategory] { relatedRecords("categories") }

    /// The `contact` relationship, to one `Contact`; its inverse is `venue`.
    var contact: Contact? { related("contact") }

    /// The `location` relationship, to one `Location`; its inverse is `venue`.
    var location: Location? { related("location") }

    /// The `menu` relationship, to one `Menu`; its inverse is `venue`.
    var menu: Menu? { related("menu") }

    /// The `photoGroups` relationship, to many `PhotoGroup` records in order; its inverse is `venue`.
    var photoGroups: [PhotoGroup] { relatedRecords("photoGroups") }
}
