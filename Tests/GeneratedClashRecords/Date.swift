// Generated from Clashes.json: the record class of the entity Date.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import Foundation
import WebRecord

/// A record of the entity `Date`, identified by its `owner`.
public final class Date: WebRecord.Record {
    override public class var entityName: String { "Date" }

    /// The `day` attribute, a date.
    public var day: Foundation.Date? { self["day"] }

    /// The `owner` relationship, to one `Type`; its inverse is `related`. It is the primary key.
    public var owner: TypeRecord? { related("owner") }
}
