/// The type of an attribute, as named in schema files.
///
/// Each type has one SQLite storage class; see `Docs/StorageLayout.md`.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// The name with its indefinite article, for messages: `an integer`, `a date`.
    var withArticle: String { (rawValue == "integer" ? "an " : "a ") + rawValue }

    /// Text. Stored as TEXT.
    case string
    /// A 64-bit signed integer. Stored as INTEGER.
    case integer
    /// A double-precision number. Stored as REAL.
    case double
    /// An exact decimal number. Stored as TEXT in its canonical decimal form.
    case decimal
    /// True or false. Stored as INTEGER 0 or 1.
    case boolean
    /// A point in time. Stored as TEXT, ISO-8601 in UTC with nine fraction digits: `2012-11-21T02:33:42.000000000Z`.
    case date
    /// Bytes, base64 in JSON. Stored as BLOB.
    case data
    /// A UUID. Stored as TEXT, upper-case canonical form.
    case uuid
    /// A URL. Stored as TEXT.
    case url
    /// Any JSON value. Stored as TEXT, compact JSON.
    case json

    /// The SQLite column type used to store this type.
    var sqlType: String {
        switch self {
        case .string, .decimal, .date, .uuid, .url, .json: "TEXT"
        case .integer, .boolean: "INTEGER"
        case .double: "REAL"
        case .data: "BLOB"
        }
    }

    /// Whether values of this type may form a primary key.
    var canBePrimaryKey: Bool {
        switch self {
        case .string, .integer, .decimal, .uuid, .url, .date, .double: true
        case .boolean, .data, .json: false
        }
    }
}
