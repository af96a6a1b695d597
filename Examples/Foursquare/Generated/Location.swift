// Generated from Foursquare.json: the record class of the entity Location.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Location`, identified by its `venue`.
final class Location: FoursquareRecord {
    override class var entityName: String { "Location" }

    /// The `address` attribute, a string.
    var address: String? { self["address"] }

    /// The `crossStreet` attribute, a string.
    var crossStreet: String? { self["crossStreet"] }

    /// The `city` attribute, a string.
    var city: String? { self["city"] }

    /// The `state` attribute, a string.
    var state: String? { self["state"] }

    /// The `postalCode` attribute, a string.
    var postalCode: String? { self["postalCode"] }

    /// The `country` attribute, a string.
    var country: String? { self["country"] }

    /// The `cc` attribute, a string.
    var cc: String? { self["cc"] }

    /// The `lat` attribute, a double.
    var lat: Double? { self["lat"] }

    /// The `lng` attribute, a double.
    var lng: Double? { self["lng"] }

    /// The `venue` relationship, to one `Venue`; its inverse is `location`. It is the primary key.
    var venue: Venue? { related("venue") }
}
