// Generated from Clashes.json: the registration of the record classes.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// The record classes generated from Clashes.json.
public enum ClashesRecords {
    /// Every generated class, each parent before its sub-entities.
    public static var classes: [WebRecord.Record.Type] {
        [
            TypeRecord.self,
            Date.self,
            Record.self,
            WebRecordRecord.self,
            FoundationRecord.self,
            ProtocolRecord.self,
        ]
    }

    /// Registers every generated class on `store` for its entity, so that the store makes its records of them.
    public static func register(on store: RecordStore) {
        for recordClass in classes {
            store.register(recordClass: recordClass)
        }
    }
}
