// Generated from Foursquare.json: the record class of the entity Menu.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Menu`, identified by its `venue`.
final class Menu: FoursquareRecord {
    override class var entityName: String { "Menu" }

    /// The `label` attribute, a string.
    var label: String? { self["label"] }

    /// The `url` attribute, a string.
    var url: String? { self["url"] }

    /// The `venue` relationship, to one `Venue`; its inverse is `menu`. It is the primary key.
    var venue: Venue? { related("venue") }
}
