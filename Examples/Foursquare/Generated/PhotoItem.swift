// Generated from Foursquare.json: the record class of the entity PhotoItem.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `PhotoItem`, identified by its `id`.
final class PhotoItem: FoursquareRecord {
    override class var entityName: String { "PhotoItem" }

    /// The `id` attribute, a string: the primary key, which every record has.
    var id: String { self[primaryKey: "id"] }

    /// The `prefix` attribute, a string.
    var prefix: String? { self["prefix"] }

    /// The `suffix` attribute, a string.
    var suffix: String? { self["suffix"] }

    /// The `group` relationship, to one `PhotoGroup`; its inverse is `items`.
    var group: PhotoGroup? { related("group") }
}
