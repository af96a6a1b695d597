// Generated from Atlassian.json: the record class of the entity Issue.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `Issue`, identified by its `primaryKey`.
public final class Issue: Record {
    override public class var entityName: String { "Issue" }

    /// The `id` attribute, a string.
    public var id: String? { self["id"] }

    /// The `primaryKey` attribute, a string: the primary key, which every record has.
    public var primaryKey: String { self[primaryKey: "primaryKey"] }

    /// The `issueLinks` relationship, to many `Link` records in order; its inverse is `issue`.
    public var issueLinks: [Link] { relatedRecords("issueLinks") }
}
