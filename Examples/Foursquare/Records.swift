import Foundation
import WebRecord

// The record classes: typed accessors over the entities of Schemas/Foursquare.json.
// A record is an immutable snapshot, and these classes add computed accessors over it.

/// The base of the Foursquare classes: a server registered for it serves them all.
class FoursquareRecord: Record {}

/// A place. Its response object sits at `response.venues` (the schema's key path).
final class Venue: FoursquareRecord {
    var name: String? { self["name"] }
    var categories: [FSCategory] { relatedRecords("categories") }
    var location: Location? { related("location") }
}

/// A kind of place. As in MMRecord's model, a category belongs to one venue.
final class FSCategory: FoursquareRecord {
    var name: String? { self["name"] }
    var venue: Venue? { related("venue") }
}

/// Where a venue is: nested in the venue with no id of its own, so the venue identifies it.
final class Location: FoursquareRecord {
    var address: String? { self["address"] }
    var crossStreet: String? { self["crossStreet"] }
    var city: String? { self["city"] }

    /// "address (cross street), city", leaving out what is unknown.
    var summary: String {
        let street = [address, crossStreet.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        let parts = [street, city ?? ""].filter { !$0.isEmpty }
        return parts.isEmpty ? "no address" : parts.joined(separator: ", ")
    }
}
