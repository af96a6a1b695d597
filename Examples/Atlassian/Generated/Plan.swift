// Generated from Atlassian.json: the record class of the entity Plan.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Plan`, identified by its `id`.
public final class Plan: Record {
    override public class var entityName: String { "Plan" }

    /// The `id` attribute, a string: the primary key, which every record has.
    public var id: String { self[primaryKey: "id"] }

    /// The `name` attribute, a string.
    public var name: String? { self["name"] }
}
