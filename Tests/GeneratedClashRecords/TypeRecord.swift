// Generated from Clashes.json: the record class of the entity Type.
// Written by `webrecord generate-swift --access public Clashes.json`.
// Do not edit: change the schema and generate it again.

import Foundation
import WebRecord

/// A record of the entity `Type`, identified by its `id`.
public final class TypeRecord: WebRecord.Record {
    override public class var entityName: String { "Type" }

    /// The `id` attribute, an integer: the primary key, which every record has.
    public var id: Int64 { self[primaryKey: "id"] }

    /// The `class` attribute, a string. Escaped with backticks: `class` is a Swift keyword.
    public var `class`: String? { self["class"] }

    /// The `default` attribute, a boolean, required in the schema, yet nil on a record stored before the attribute was
    /// added and on a stub made from a reference, until its data arrives. Escaped with backticks: `default` is a Swift
    /// keyword.
    public var `default`: Bool? { self["default"] }

    /// The `self` attribute, a string. Named `selfAttribute`: `self` after a dot means something else in Swift.
    public var selfAttribute: String? { self["self"] }

    /// The `init` attribute, a double. Named `initAttribute`: `init` after a dot means something else in Swift.
    public var initAttribute: Double? { self["init"] }

    /// The `entity` attribute, a string. Named `entityAttribute`: `entity` is a member of `Record`.
    public var entityAttribute: String? { self["entity"] }

    /// The `rowID` attribute, an integer. Named `rowIDAttribute`: `rowID` is a member of `Record`.
    public var rowIDAttribute: Int64? { self["rowID"] }

    /// The `description` attribute, a string.
    public var description: String? { self["description"] }

    /// The `hash` attribute, an integer.
    public var hash: Int64? { self["hash"] }

    /// The `Type` attribute, a string.
    public var type: String? { self["Type"] }

    /// The `thread_id` attribute, a string.
    public var threadID: String? { self["thread_id"] }

    /// The `threadID` attribute, a string. Named `threadID2`: `threadID` is taken by another property.
    public var threadID2: String? { self["threadID"] }

    /// The `avatar_URL` attribute, a URL.
    public var avatarURL: URL? { self["avatar_URL"] }

    /// The `is_2fa` attribute, a boolean.
    public var is2fa: Bool? { self["is_2fa"] }

    /// The `created` attribute, a date.
    public var created: Foundation.Date? { self["created"] }

    /// The `extra` attribute, any JSON value.
    public var extra: JSONValue? { self["extra"] }

    /// The `price` attribute, a decimal.
    public var price: Decimal? { self["price"] }

    /// The `token` attribute, a UUID.
    public var token: UUID? { self["token"] }

    /// The `bytes` attribute, bytes.
    public var bytes: Data? { self["bytes"] }

    /// The `user_ids` attribute, any JSON value.
    public var userIDs: JSONValue? { self["user_ids"] }

    /// The `related` relationship, to one `Date`; its inverse is `owner`. Named `relatedRelationship`: `related` is a
    /// member of `Record`.
    public var relatedRelationship: Date? { related("related") }

    /// The `store` relationship, to many `Record` records; its inverse is `type`. Named `storeRelationship`: `store` is
    /// a member of `Record`.
    public var storeRelationship: [Record] { relatedRecords("store") }
}
