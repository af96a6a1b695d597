// Generated from Atlassian.json: the registration of the record classes.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// The record classes generated from Atlassian.json.
public enum AtlassianRecords {
    /// Every generated class, each parent before its sub-entities.
    public static var classes: [Record.Type] {
        [
            Issue.self,
            Link.self,
            InwardLink.self,
            OutwardLink.self,
            Plan.self,
        ]
    }

    /// Registers every generated class on `store` for its entity, so that the store makes its records of them.
    public static func register(on store: RecordStore) {
        for recordClass in classes {
            store.register(recordClass: recordClass)
        }
    }
}
