// Generated from Foursquare.json: the record class of the entity Contact.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Contact`, identified by its `venue`.
final class Contact: FoursquareRecord {
    override class var entityName: String { "Contact" }

    /// The `phone` attribute, a string.
    var phone: String? { self["phone"] }

    /// The `formattedPhone` attribute, a string.
    var formattedPhone: String? { self["formattedPhone"] }

    /// The `venue` relationship, to one `Venue`; its inverse is `contact`. It is the primary key.
    var venue: Venue? { related("venue") }
}
