// Generated from Blog.json: the registration of the record classes.
// Written by `webrecord generate-swift Blog.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// The record classes generated from Blog.json.
enum BlogRecords {
    /// Every generated class, each parent before its sub-entities.
    static var classes: [Record.Type] {
        [
            Article.self,
            Person.self,
            Comment.self,
        ]
    }

    /// Registers every generated class on `store` for its entity, so that the store makes its records of them.
    static func register(on store: RecordStore) {
        for recordClass in classes {
            store.register(recordClass: recordClass)
        }
    }
}
