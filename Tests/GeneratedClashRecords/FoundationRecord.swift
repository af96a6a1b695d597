// Generated from Clashes.json: the record class of the entity Foundation.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import Foundation
import WebRecord

/// A record of the entity `Foundation`, identified by its `id`.
public final class FoundationRecord: WebRecord.Record {
    override public class var entityName: String { "Foundation" }

    /// The `id` attribute, a string: the primary key, which every record has.
    public var id: String { self[primaryKey: "id"] }

    /// The `at` attribute, a date.
    public var at: Foundation.Date? { self["at"] }
}
