// Generated from Clashes.json: the record class of the entity WebRecord.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `WebRecord`, identified by its `id`.
public final class WebRecordRecord: WebRecord.Record {
    override public class var entityName: String { "WebRecord" }

    /// The `id` attribute, an integer: the primary key, which every record has.
    public var id: Int64 { self[primaryKey: "id"] }
}
