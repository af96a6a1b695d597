import Foundation

/// A stored record: a snapshot of one row, with typed access to its attributes and
/// navigation of its relationships.
///
/// Subclass it per entity for typed accessors, MMRecord-style, and register the subclass on
/// the store:
///
/// ```swift
/// final class Post: Record {
///     override class var keyPathForResponseObject: String? { "data" }
///     var text: String? { self["text"] }
///     var user: User? { related("user") }
/// }
/// store.register(recordClass: Post.self)
/// ```
///
/// A record is an immutable snapshot taken when it was fetched or populated; fetch it again to
/// see later changes. Relationships are loaded from the store each time they are asked for.
///
/// A record is not `Sendable`, as GRDB's records are not: a subclass is a plain subclass, free
/// to add what it likes, and the compiler checks every use of it across isolation. Requests,
/// pages, batches and async populations hand their records to the caller as `sending` values,
/// so a caller on the main actor keeps them there, and a task may send records it owns to
/// another task or actor. Tasks share the ``RecordStore``, which is `Sendable`, and fetch
/// records of their own (Docs/Records.md, "Records and concurrency").
open class Record: CustomDebugStringConvertible {
    /// The record's entity (the concrete one, for a sub-entity).
    public let entity: Entity
    /// The row's `_id` in its table.
    public let rowID: Int64
    /// The row's column values by column name.
    public let storedValues: [String: DatabaseValue]
    /// The store the record was read from, which its relationships are loaded from.
    package let store: any RecordReading

    /// The stored row a record is made from. Only a store makes one: records come from
    /// fetches, requests and populations.
    public struct StoredRow: Sendable {
        let entity: Entity
        let rowID: Int64
        let values: [String: DatabaseValue]
        let store: any RecordReading

        /// The row `rowID` of a record of `entity` in `store`, whose values are `values` by
        /// column name (without `_id` and `_entity`).
        package init(entity: Entity, rowID: Int64, values: [String: DatabaseValue], store: any RecordReading) {
            self.entity = entity
            self.rowID = rowID
            self.values = values
            self.store = store
        }
    }

    /// Creates a record from a stored row. The store calls this; subclasses inherit it.
    public required init(row: StoredRow) {
        self.entity = row.entity
        self.rowID = row.rowID
        self.storedValues = row.values
        self.store = row.store
    }

    /// The stored row this record was made from, to make a record of another class from it.
    package var storedRow: StoredRow {
        StoredRow(entity: entity, rowID: rowID, values: storedValues, store: store)
    }

    // MARK: - Hooks for subclasses

    /// The entity a subclass stands for. Default: the class's name.
    open class var entityName: String {
        String(describing: self)
    }

    /// Where this entity's records are in a dictionary response; overrides the schema's
    /// `keyPathForResponseObject` when non-nil.
    open class var keyPathForResponseObject: String? { nil }

    /// Picks the sub-entity for a response dictionary in code (DESIGN §3.13); nil defers to the
    /// schema's discriminator.
    ///
    /// - Parameters:
    ///   - dictionary: the record's dictionary in the response.
    ///   - entity: the entity being populated.
    /// - Returns: the name of a sub-entity of `entity`, or nil.
    open class func subentityName(for dictionary: JSONObject, of entity: Entity) -> String? { nil }

    /// The URN that refreshes this record alone, for detail requests. Default nil.
    open var recordDetailURN: String? { nil }

    // MARK: - Attributes

    /// The value of an attribute, converted to the type asked for; nil when null, unknown or
    /// not convertible.
    public subscript<T: AttributeValue>(_ name: String) -> T? {
        guard let attribute = entity.attribute(named: name), let stored = storedValues[name], !stored.isNull else {
            return nil
        }
        return T(storedValue: stored, type: attribute.type)
    }

    /// The value of a primary-key attribute, which every stored record has: the non-optional
    /// read that generated classes use for their key (`var id: Int64 { self[primaryKey: "id"] }`).
    ///
    /// Every row WebRecord writes holds its key, stubs made from a reference included, in the
    /// stored form of its type. So the value is always there and always converts, unless the
    /// store file was changed by another program; then the program stops with a message that
    /// names the record and the attribute, because no value would be right.
    ///
    /// - Precondition: `name` is an attribute of the record's primary key, and `T` can hold its
    ///   type (Docs/Records.md, "Typed access").
    public subscript<T: AttributeValue>(primaryKey name: String) -> T {
        let isKey = entity.primaryKey.map { key in
            if case .relationship = key { return false }
            return key.propertyNames.contains(name)
        }
        precondition(isKey == true, "\(entity.name).\(name) is not a primary-key attribute")
        guard let value: T = self[name] else {
            preconditionFailure(
                "\(self): the store holds no \(T.self) for the primary-key attribute '\(name)'; "
                    + "was the store file changed by another program?")
        }
        return value
    }

    /// The value of an attribute as JSON, the form `webrecord export` writes: dates as ISO-8601,
    /// data as base64, booleans as true/false. Nil when the entity has no such attribute.
    public func jsonValue(_ name: String) -> JSONValue? {
        guard let attribute = entity.attribute(named: name) else { return nil }
        return JSONValue(storedValue: storedValues[name] ?? .null, type: attribute.type)
    }

    /// The record's primary-key value as JSON: one value, or an array for a composite key, or
    /// the owner's key for a relationship key. Nil when the entity has none or it is not set.
    ///
    /// A relationship key is read from the store, through the owner: a record kept after it
    /// was deleted with its owner (a ``ChangeSet``'s deletion) has none left to read.
    public var primaryKeyValue: JSONValue? {
        guard let key = entity.primaryKey else { return nil }
        switch key {
        case .attribute(let name):
            guard let value = jsonValue(name), !value.isNull else { return nil }
            return value
        case .composite(let names):
            return .array(names.map { jsonValue($0) ?? .null })
        case .relationship(let name):
            return related(name)?.primaryKeyValue
        }
    }

    // MARK: - Relationships

    /// The record related by a to-one relationship, or nil when nothing is related.
    ///
    /// Asked for as a subclass (`related("user") as User?`), the record is made an instance of
    /// it when the class stands for the record's entity (it is registered for it, or named like
    /// it), registered or not. When it stands for another entity, the result is nil and a
    /// warning says so: for an entity of the schema, to ask for the record's own class; for
    /// any other, the registration that would make the class stand for the record's entity.
    /// An unknown relationship name, or a store error, gives nil too, with an error logged:
    /// navigation never throws, so that typed accessors stay plain properties.
    public func related<T: Record>(_ name: String, as type: T.Type = T.self) -> T? {
        related(name, limit: 1).first.flatMap { typed($0, as: T.self, relationship: name) }
    }

    /// The records related by a to-many relationship: in stored order when ordered, else by
    /// `_id`. Records are typed as ``related(_:as:)`` types them; errors give `[]`, logged.
    public func relatedRecords<T: Record>(_ name: String, as type: T.Type = T.self) -> [T] {
        related(name, limit: nil).compactMap { typed($0, as: T.self, relationship: name) }
    }

    private func related(_ name: String, limit: Int?) -> [Record] {
        do {
            return try store.relatedRecords(of: self, relationship: name, limit: limit)
        } catch {
            store.logger.log(.error, "\(self).\(name) could not be read: \(error)", entity: entity.name)
            return []
        }
    }

    /// `record` as an instance of `T`: itself when it is one, else a `T` made from its row when
    /// `T` stands for its entity, else nil with a warning.
    private func typed<T: Record>(_ record: Record, as type: T.Type, relationship: String) -> T? {
        if let typed = record as? T { return typed }
        let standsFor = store.entityName(registeredFor: T.self) ?? T.entityName
        if store.schema.entity(record.entity.name, isKindOf: standsFor) { return T(row: record.storedRow) }
        // A class of another entity of the schema is the wrong class to ask for, not one to
        // register for this entity: that registration would make the other entity's records
        // instances of a class that is not theirs.
        let advice =
            store.schema.entity(named: standsFor) != nil
            ? "ask for it as the class of \(record.entity.name), or as Record"
            : "register it with store.register(recordClass: \(T.self).self, forEntity: \"\(record.entity.name)\")"
        store.logger.log(
            .warning,
            "\(self).\(relationship) is a \(record.entity.name), and \(T.self) stands for \(standsFor); \(advice)",
            entity: entity.name)
        return nil
    }

    // MARK: - Decoding

    /// Decodes the record into a `Decodable` type.
    ///
    /// The record is seen as a JSON object of its attributes (by name, in the ``jsonValue(_:)``
    /// form) plus each to-one relationship as the destination's primary-key value. Dates decode
    /// from their ISO-8601 text (or from seconds since 1970 for a numeric attribute). Decimals
    /// are JSON numbers written with all their digits, so they decode into `Decimal` exactly
    /// (or into `Double`).
    ///
    /// For example:
    ///
    /// ```swift
    /// struct PostSummary: Decodable { var id: String; var text: String?; var date: Date? }
    /// let summary = try post.decode(PostSummary.self)
    /// ```
    ///
    /// - Parameter type: the type to decode.
    /// - Returns: the decoded value.
    /// - Throws: a ``WebRecordError`` with code `typeMismatch` when the record does not fit the
    ///   type; its cause is the `DecodingError`.
    public func decode<T: Decodable>(_ type: T.Type) throws(WebRecordError) -> T {
        var members: [String] = []
        for attribute in entity.attributes {
            members.append(JSONValue.string(attribute.name).serialized() + ":" + decodingText(of: attribute))
        }
        for relationship in entity.relationships where !relationship.isToMany {
            let key = related(relationship.name, as: Record.self)?.primaryKeyValue ?? .null
            members.append(JSONValue.string(relationship.name).serialized() + ":" + key.serialized())
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) {
                return Date(timeIntervalSince1970: seconds)
            }
            let text = try container.decode(String.self)
            guard let date = DateCoding.date(fromISO8601: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO-8601 date: \(text)")
            }
            return date
        }
        do {
            return try decoder.decode(T.self, from: Data(("{" + members.joined(separator: ",") + "}").utf8))
        } catch {
            throw WebRecordError(
                .typeMismatch, "\(self) does not decode as \(T.self): \(error)", entity: entity.name, cause: error)
        }
    }

    /// An attribute as JSON text for ``decode(_:)``: the ``jsonValue(_:)`` form, except that a
    /// decimal is a JSON number with all its digits rather than a string.
    private func decodingText(of attribute: Attribute) -> String {
        if attribute.type == .decimal, let stored = storedValues[attribute.name],
            let decimal = Decimal(storedValue: stored, type: .decimal), !decimal.isNaN
        {
            return DecimalCoding.string(from: decimal)
        }
        return (jsonValue(attribute.name) ?? .null).serialized()
    }

    /// `Entity(_id: N, key: value)`: what `print(record)` and `"\(record)"` show.
    ///
    /// A record describes itself through `debugDescription`, not `description`, so that a
    /// schema attribute named `description` can have a typed accessor of that name:
    /// `var description: String? { self["description"] }`.
    open var debugDescription: String {
        "\(entity.name)(_id: \(rowID)" + (primaryKeyValue.map { ", key: \($0.serialized())" } ?? "") + ")"
    }
}
