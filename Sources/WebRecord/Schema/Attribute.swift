/// An attribute of an entity: one typed value, one column.
///
/// Declared in a schema file under an entity's `attributes`:
///
/// ```json
/// "date": { "type": "date", "key": ["created_at", "timestamp"], "optional": true }
/// ```
public struct Attribute: Sendable, Hashable {
    /// The attribute's name, also its column name.
    public var name: String
    /// The entity that declares the attribute (an ancestor, for an inherited one).
    package var entityName: String
    /// The attribute's type.
    public var type: AttributeType
    /// The key paths tried in order to find the value in a response: the `key` entries, then the name.
    var keyPaths: [String]
    /// Whether the attribute may be null. A null for a non-optional attribute is a `typeMismatch` and
    /// leaves the stored value as it was. Default true.
    public var isOptional: Bool
    /// The value a new record gets when the response does not give one.
    public var defaultValue: JSONValue?
    /// Whether the column has an index.
    var isIndexed: Bool
    /// A date format (Unicode TR35 pattern) tried before the schema's `dateFormats`.
    var dateFormat: String?
    /// The name of a transformer registered in code (``AttributeTransformers``, or a store's
    /// configuration), applied to the raw JSON before coercion.
    var transformer: String?

    /// Creates an attribute.
    init(
        name: String, entityName: String, type: AttributeType, keyPaths: [String]? = nil,
        isOptional: Bool = true, defaultValue: JSONValue? = nil, isIndexed: Bool = false,
        dateFormat: String? = nil, transformer: String? = nil
    ) {
        self.name = name
        self.entityName = entityName
        self.type = type
        self.keyPaths = keyPaths ?? [name]
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.dateFormat = dateFormat
        self.transformer = transformer
    }
}
