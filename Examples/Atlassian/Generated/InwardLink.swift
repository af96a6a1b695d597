// Generated from Atlassian.json: the record class of the entity InwardLink.
// Written by `webrecord generate-swift --access public Atlassian.json`.
// Do not edit: change the schema and generate it again.

import WebRecord

/// A record of the entity `InwardLink`, a kind of `Link`, identified by its `id`.
public final class InwardLink: Link {
    override public class var entityName: String { "InwardLink" }
}
