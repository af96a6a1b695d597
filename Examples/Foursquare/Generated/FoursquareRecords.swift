// Generated from Foursquare.json: the registration of the record classes.
// Written by `webrecord generate-swift --base-class FoursquareRecord Foursquare.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// The record classes generated from Foursquare.json.
enum FoursquareRecords {
    /// Every generated class, each parent before its sub-entities.
    static var classes: [Record.Type] {
        [
            Venue.self,
            FSCategory.self,
            Contact.self,
            Location.self,
            Menu.self,
            PhotoGroup.self,
            PhotoItem.self,
        ]
    }

    /// Registers every generated class on `store` for its entity, so that the store makes its records of them.
    static func register(on store: RecordStore) {
        for recordClass in classes {
            store.register(recordClass: recordClass)
        }
    }
}
