import WebRecord

// The record classes are generated from Schemas/Foursquare.json into Generated/ by
// `webrecord generate-swift Schemas/Foursquare.json --base-class FoursquareRecord --output Generated`
// (Scripts/generate-swift-examples). This file holds what the schema cannot say.

/// The base of the Foursquare classes: a server registered for it serves them all.
class FoursquareRecord: Record {}

extension Location {
    /// "address (cross street), city", leaving out what is unknown.
    var summary: String {
        let street = [address, crossStreet.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        let parts = [street, city ?? ""].filter { !$0.isEmpty }
        return parts.isEmpty ? "no address" : parts.joined(separator: ", ")
    }
}
