// Generated from Atlassian.json: the record class of the entity Link.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Link`, identified by its `id`.
open class Link: Record {
    override public class var entityName: String { "Link" }

    /// The `id` attribute, a string: the primary key, which every record has.
    public var id: String { self[primaryKey: "id"] }

    /// The `key` attribute, a string.
    public var key: String? { self["key"] }

    /// The `name` attribute, a string.
    public var name: String? { self["name"] }

    /// The `issue` relationship, to one `Issue`; its inverse is `issueLinks`.
    public var issue: Issue? { related("issue") }
}
