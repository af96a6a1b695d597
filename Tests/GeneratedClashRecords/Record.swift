// Generated from Clashes.json: the record class of the entity Record.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Record`, identified by `name` and `version`.
open class Record: WebRecord.Record {
    override public class var entityName: String { "Record" }

    /// The `name` attribute, a string: part of the primary key, which every record has.
    public var name: String { self[primaryKey: "name"] }

    /// The `version` attribute, an integer: part of the primary key, which every record has.
    public var version: Int64 { self[primaryKey: "version"] }

    /// The `type` relationship, to one `Type`; its inverse is `store`.
    public var type: TypeRecord? { related("type") }
}
