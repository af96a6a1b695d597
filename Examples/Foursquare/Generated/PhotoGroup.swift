// Generated from Foursquare.json: the record class of the entity PhotoGroup.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `PhotoGroup`, identified by its `venue`.
final class PhotoGroup: FoursquareRecord {
    override class var entityName: String { "PhotoGroup" }

    /// The `name` attribute, a string.
    var name: String? { self["name"] }

    /// The `type` attribute, a string.
    var type: String? { self["type"] }

    /// The `items` relationship, to many `PhotoItem` records in order; its inverse is `group`.
    var items: [PhotoItem] { relatedRecords("items") }

    /// The `venue` relationship, to one `Venue`; its inverse is `photoGroups`. It is the primary key.
    var venue: Venue? { related("venue") }
}
