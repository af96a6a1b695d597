// Generated from AppNet.json: the registration of the record classes.
// Written by `webrecord generate-swift AppNet.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// The record classes generated from AppNet.json.
enum AppNetRecords {
    /// Every generated class, each parent before its sub-entities.
    static var classes: [Record.Type] {
        [
            Post.self,
            User.self,
            Counts.self,
            Source.self,
            CoverImage.self,
        ]
    }

    /// Registers every generated class on `store` for its entity, so that the store makes its records of them.
    static func register(on store: RecordStore) {
        for recordClass in classes {
            store.register(recordClass: recordClass)
        }
    }
}
