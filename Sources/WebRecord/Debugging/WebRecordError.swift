import Foundation

/// An error met by WebRecord: a code, a message, an optional cause and the context it was met in.
///
/// Errors are values. The ``Debugger`` collects every one met during a request; the fatal
/// one that ended it is the debugger's ``Debugger/primaryError``.
///
/// For example:
///
/// ```swift
/// do {
///     let posts = try await Post.startRequest(urn: "posts", in: store)
/// } catch let failure as WebRecordFailure where failure.code == .undefinedServer {
///     print(failure.error.message)
/// }
/// ```
public struct WebRecordError: Error, Sendable, CustomStringConvertible, CustomReflectable {
    /// What kind of error this is.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// Whether the error ended the operation. Non-fatal errors are recorded and the work goes on.
    public var isFatal: Bool
    /// The entity the error is about, if any.
    public var entity: String?
    /// The property (attribute or relationship) the error is about, if any.
    public var property: String?
    /// The key path in the response where the offending value was found, if any.
    public var keyPath: String?
    /// The offending value, if any. ``description`` shows it through the message, which names
    /// it in short (`got string "yesterday"`), with secrets redacted.
    public var value: JSONValue?
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?
    /// The SQLite extended result code, for ``Code/storeError``.
    public var sqliteCode: Int32?
    /// The SQL that failed, for ``Code/storeError``. Bound values are never included.
    public var sql: String?
    /// The HTTP status code, for ``Code/serverError``.
    public var httpStatus: Int?

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        isFatal: Bool = true,
        entity: String? = nil,
        property: String? = nil,
        keyPath: String? = nil,
        value: JSONValue? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.isFatal = isFatal
        self.entity = entity
        self.property = property
        self.keyPath = keyPath
        self.value = value
        self.cause = cause
    }

    /// One line: code, location and message, with any secret in the message redacted (a
    /// `name=value` pair whose name is secret, a URL's password; see ``Redaction/secretNames``).
    public var description: String {
        var parts: [String] = []
        if let entity {
            parts.append(property.map { "\(entity).\($0)" } ?? entity)
        }
        if let keyPath { parts.append("key path '\(keyPath)'") }
        let location = parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
        var text = "\(code)\(location): \(Redaction.text(message))"
        if let sqliteCode { text += " [SQLite \(sqliteCode)]" }
        return text
    }
}

extension WebRecordError {
    /// The error's members for `String(reflecting:)` and `dump`, with secrets redacted: in the
    /// message as in ``description``, in the offending value's secret members, and in the
    /// cause, shown by its description.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "code": code, "message": Redaction.text(message), "isFatal": isFatal, "entity": entity as Any,
                "property": property as Any, "keyPath": keyPath as Any, "value": Redaction.json(value) as Any,
                "cause": cause.map { Redaction.text(String(describing: $0)) } as Any, "sqliteCode": sqliteCode as Any,
                "sql": sql as Any, "httpStatus": httpStatus as Any,
            ],
            displayStyle: .struct)
    }
}

extension WebRecordError {
    /// An error code. New codes may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case undefinedServer, undefinedPageManager, missingPrimaryKey, invalidEntityDescription
            case invalidResponseFormat, emptyResultSet, typeMismatch, storeError, serverError, cancelled
            case invalidSchema, incompatibleStore, invalidArgument, notFound
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A request names an entity for which no server is registered.
        public static let undefinedServer = Code(.undefinedServer)
        /// A paged request met a response for which the server gives no page manager.
        public static let undefinedPageManager = Code(.undefinedPageManager)
        /// A record's primary key was missing and the injection closure supplied none.
        public static let missingPrimaryKey = Code(.missingPrimaryKey)
        /// An entity is unknown or cannot be populated as described.
        public static let invalidEntityDescription = Code(.invalidEntityDescription)
        /// The response is not JSON, is not shaped as expected, or nests too deep.
        public static let invalidResponseFormat = Code(.invalidResponseFormat)
        /// The response held no records at the key path. Never fatal.
        public static let emptyResultSet = Code(.emptyResultSet)
        /// A value could not be coerced to its attribute's type.
        public static let typeMismatch = Code(.typeMismatch)
        /// SQLite reported an error; ``WebRecordError/sqliteCode`` carries the extended code.
        public static let storeError = Code(.storeError)
        /// The server failed: a transport error or a non-2xx status.
        public static let serverError = Code(.serverError)
        /// The request was cancelled.
        public static let cancelled = Code(.cancelled)
        /// A schema file is malformed or inconsistent.
        public static let invalidSchema = Code(.invalidSchema)
        /// A store on disk does not match the schema and cannot be migrated in place.
        public static let incompatibleStore = Code(.incompatibleStore)
        /// An API was called with an argument it cannot use (an unknown property name, say).
        public static let invalidArgument = Code(.invalidArgument)
        /// A file or resource was not found.
        public static let notFound = Code(.notFound)

        /// The code's name, such as `missingPrimaryKey`.
        public var description: String { base.rawValue }
    }
}

// MARK: - Factories

extension WebRecordError {
    static func undefinedServer(entity: String) -> WebRecordError {
        WebRecordError(.undefinedServer, "no server is registered for entity '\(entity)'", entity: entity)
    }

    static func missingPrimaryKey(entity: String, keyPath: String?, value: JSONValue? = nil) -> WebRecordError {
        WebRecordError(
            .missingPrimaryKey, "record has no primary key\(keyPath.map { " at '\($0)'" } ?? ""); it is not stored",
            isFatal: false, entity: entity, keyPath: keyPath, value: value)
    }

    static func typeMismatch(
        entity: String, property: String, keyPath: String?, value: JSONValue, expected: String
    ) -> WebRecordError {
        WebRecordError(
            .typeMismatch, "expected \(expected), got \(value.typeName) \(excerpt(of: value))",
            isFatal: false, entity: entity, property: property, keyPath: keyPath, value: value)
    }

    static func emptyResultSet(entity: String, keyPath: String?) -> WebRecordError {
        WebRecordError(
            .emptyResultSet, "the response holds no records" + (keyPath.map { " at '\($0)'" } ?? ""),
            isFatal: false, entity: entity, keyPath: keyPath)
    }

    static func cancelled(entity: String? = nil) -> WebRecordError {
        WebRecordError(.cancelled, "the request was cancelled", entity: entity)
    }

    static func unknownEntity(_ name: String) -> WebRecordError {
        WebRecordError(.invalidEntityDescription, "the schema has no entity '\(name)'", entity: name)
    }

    static func unknownProperty(_ name: String, entity: String) -> WebRecordError {
        WebRecordError(
            .invalidArgument, "entity '\(entity)' has no property '\(name)'", entity: entity, property: name)
    }

    /// A short, single-line rendering of a value for messages (at most 60 characters).
    static func excerpt(of value: JSONValue) -> String {
        let text = value.serialized()
        if text.count <= 60 { return text }
        return String(text.prefix(57)) + "..."
    }
}
