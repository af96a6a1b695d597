// Generated from Atlassian.json: the record class of the entity OutwardLink.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `OutwardLink`, a kind of `Link`, identified by its `id`.
public final class OutwardLink: Link {
    override public class var entityName: String { "OutwardLink" }
}
