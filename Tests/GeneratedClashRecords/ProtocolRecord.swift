// Generated from Clashes.json: the record class of the entity Protocol.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Protocol`, a kind of `Record`, identified by `name` and `version`.
public final class ProtocolRecord: Record {
    override public class var entityName: String { "Protocol" }

    /// The `repeat` attribute, a string. Escaped with backticks: `repeat` is a Swift keyword.
    public var `repeat`: String? { self["repeat"] }

    /// The `self` relationship, to one `Type`. Named `selfRelationship`: `self` after a dot means something else in
    /// Swift.
    public var selfRelationship: TypeRecord? { related("self") }
}
