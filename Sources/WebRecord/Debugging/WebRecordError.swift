import Foundation

/// The one error WebRecord throws: a code, a message, the context it was met in, an optional
/// cause and, for a request or population, the ``Debugger`` that ran it.
///
/// Every throwing API of the library throws this type (`throws(WebRecordError)`), so
/// `catch { error.code }` works everywhere: requests, paged requests, populations, schema
/// loading, the JSON reader and the store. Errors are values: the ``Debugger`` collects every
/// one met during a request, fatal and not, and the fatal one that ended it is its
/// ``Debugger/primaryError``.
///
/// For example:
///
/// ```swift
/// do {
///     let posts = try await Post.startRequest(urn: "posts", in: store)
/// } catch where error.code == .undefinedServer {
///     print(error.message)
/// }
/// ```
///
/// The context members are set when they apply: ``entity``, ``property``, ``keyPath`` and
/// ``value`` for a record's data; ``file``, ``line`` and ``column`` for a place in a schema
/// file or a JSON text; ``sqliteCode`` or ``sqlState``, and ``sql``, for the store; ``httpStatus``
/// for a server.
/// ``location`` formats them, the one way every message of WebRecord places an error.
public struct WebRecordError: Error, Sendable, CustomStringConvertible, CustomReflectable {
    /// What kind of error this is.
    public var code: Code
    /// A human-readable explanation. It does not repeat the ``location``.
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
    /// The file the error is in (a schema file, a response's source), if any.
    public var file: String?
    /// The 1-based line of the offending text, for a schema file or a JSON text.
    public var line: Int?
    /// The 1-based column of the offending text, counted in bytes from the start of its line.
    public var column: Int?
    /// The 0-based byte offset of the offending byte, for ``Code/invalidJSON``.
    public var offset: Int?
    /// What is wrong with a JSON text, for ``Code/invalidJSON`` and for a response that is not
    /// valid JSON.
    public var jsonSyntax: JSONSyntax?
    /// Every problem found, for ``Code/invalidSchema``: schema loading reports them all at
    /// once, each with its ``file``, ``entity``, ``property`` or ``line`` and ``column``.
    public var problems: [WebRecordError] = []
    /// The underlying error, if any: for ``Code/closureFailed``, the error your closure threw.
    public var cause: (any Error & Sendable)?
    /// The SQLite extended result code, for ``Code/storeError``.
    public var sqliteCode: Int32?
    /// The SQLSTATE PostgreSQL reported (`42601` for a syntax error, say), for ``Code/storeError``
    /// from a PostgreSQL store. The server's message is the error's ``message``.
    public var sqlState: String?
    /// The SQL that failed, for ``Code/storeError``. Bound values are never included.
    public var sql: String?
    /// The HTTP status code, for ``Code/serverError``.
    public var httpStatus: Int?
    /// For a failed request or population: everything recorded while it ran, this error among
    /// them. Nil for errors that did not come from one (a schema, the JSON reader, a fetch).
    public var debugger: Debugger?

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

    /// The error delivered with the debugger of the work it ended, recorded on it if it is not
    /// there yet (the debugger keeps a copy without itself, so that nothing holds itself).
    package init(_ error: WebRecordError, debugger: Debugger, logged: Bool = true) {
        self = error
        self.debugger = debugger
        if debugger.primaryError == nil { debugger.record(error, logged: logged) }
    }

    /// Where the error was met, in the one form WebRecord uses everywhere: the file, then the
    /// entity and property or the line and column, then the key path.
    ///
    /// `Blog.json: Post.title`, `Blog.json: line 3, column 7`, `Post.date, key path
    /// 'created_at'`, `line 1, column 12`; nil when the error has no place.
    public var location: String? {
        var place: [String] = []
        if let entity {
            place.append(property.map { "\(entity).\($0)" } ?? entity)
        } else if let line {
            place.append("line \(line)" + (column.map { ", column \($0)" } ?? ""))
        }
        if let keyPath { place.append("key path '\(keyPath)'") }
        let rest = place.isEmpty ? nil : place.joined(separator: ", ")
        switch (file, rest) {
        case (let file?, let rest?): return "\(file): \(rest)"
        case (let file?, nil): return file
        case (nil, let rest?): return rest
        case (nil, nil): return nil
        }
    }

    /// One line: code, location and message, with any secret in the message redacted (a
    /// `name=value` pair whose name is secret, a URL's password; see ``Redaction/secretNames``).
    /// An error with ``problems`` adds one indented line for each.
    public var description: String {
        var text = "\(code): \(locatedMessage)"
        if let sqliteCode { text += " [SQLite \(sqliteCode)]" }
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        for problem in problems {
            text += "\n  \(problem.locatedMessage)"
        }
        return text
    }

    /// The ``location`` and the message, secrets redacted: `Blog.json: Post.title: message`,
    /// the line `webrecord lint` prints for a schema problem.
    package var locatedMessage: String {
        (location.map { "\($0): " } ?? "") + Redaction.text(message)
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
                "file": file as Any, "line": line as Any, "column": column as Any, "problems": problems,
                "cause": cause.map { Redaction.text(String(describing: $0)) } as Any, "sqliteCode": sqliteCode as Any,
                "sqlState": sqlState as Any, "sql": sql as Any, "httpStatus": httpStatus as Any,
            ],
            displayStyle: .struct)
    }
}

extension WebRecordError {
    /// An error code. New codes may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case undefinedServer, missingPrimaryKey, invalidEntityDescription
            case invalidResponseFormat, invalidJSON, emptyResultSet, typeMismatch, storeError, serverError, cancelled
            case invalidSchema, incompatibleStore, invalidArgument, notFound, closureFailed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A request names an entity for which no server is registered.
        public static let undefinedServer = Code(.undefinedServer)
        /// A record's primary key was missing and the injection closure supplied none.
        public static let missingPrimaryKey = Code(.missingPrimaryKey)
        /// An entity is unknown or cannot be populated as described.
        public static let invalidEntityDescription = Code(.invalidEntityDescription)
        /// The response is not JSON, is not shaped as expected, or nests too deep.
        public static let invalidResponseFormat = Code(.invalidResponseFormat)
        /// A text is not one valid JSON value: ``WebRecordError/line``, ``WebRecordError/column``,
        /// ``WebRecordError/offset`` and ``WebRecordError/jsonSyntax`` say where and what.
        public static let invalidJSON = Code(.invalidJSON)
        /// The response held no records at the key path. Never fatal.
        public static let emptyResultSet = Code(.emptyResultSet)
        /// A value could not be coerced to its attribute's type.
        public static let typeMismatch = Code(.typeMismatch)
        /// The database reported an error: ``WebRecordError/sqliteCode`` carries SQLite's
        /// extended code, ``WebRecordError/sqlState`` PostgreSQL's SQLSTATE.
        public static let storeError = Code(.storeError)
        /// The server failed: a transport error or a non-2xx status.
        public static let serverError = Code(.serverError)
        /// The request was cancelled.
        public static let cancelled = Code(.cancelled)
        /// A schema file is malformed or inconsistent; ``WebRecordError/problems`` lists every problem.
        public static let invalidSchema = Code(.invalidSchema)
        /// A store on disk does not match the schema and cannot be migrated in place.
        public static let incompatibleStore = Code(.incompatibleStore)
        /// An API was called with an argument it cannot use (an unknown property name, say).
        public static let invalidArgument = Code(.invalidArgument)
        /// A file or resource was not found.
        public static let notFound = Code(.notFound)
        /// A closure you supplied threw (a custom-response closure, a local fetch);
        /// ``WebRecordError/cause`` is the error it threw.
        public static let closureFailed = Code(.closureFailed)

        /// The code's name, such as `missingPrimaryKey`.
        public var description: String { base.rawValue }
    }
}

// MARK: - Factories

extension WebRecordError {
    static func undefinedServer(entity: String) -> WebRecordError {
        WebRecordError(.undefinedServer, "no server is registered for entity '\(entity)'", entity: entity)
    }

    /// A record that cannot be identified: `where` says which (`at index 3 of the list`, `in
    /// Post(5).user`), and an object's excerpt, secrets redacted, shows it.
    static func missingPrimaryKey(
        entity: String, keyPath: String?, value: JSONValue? = nil, where place: String? = nil
    ) -> WebRecordError {
        let shown = value.flatMap { $0.objectValue == nil ? nil : " (\(excerpt(of: $0)))" } ?? ""
        return WebRecordError(
            .missingPrimaryKey,
            "record\(place.map { " \($0)" } ?? "") has no primary key\(keyPath.map { " at '\($0)'" } ?? "")\(shown); it is not stored",
            isFatal: false, entity: entity, keyPath: keyPath, value: value)
    }

    /// A refused value: the value of a secret property or key path (`token`, `auth.password`)
    /// is kept and shown as `<redacted>`, as a secret member of the response is.
    static func typeMismatch(
        entity: String, property: String, keyPath: String?, value: JSONValue, expected: String
    ) -> WebRecordError {
        let shown = shown(value, of: property, keyPath)
        return WebRecordError(
            .typeMismatch, "expected \(expected), got \(value.typeName) \(excerpt(of: shown))",
            isFatal: false, entity: entity, property: property, keyPath: keyPath, value: shown)
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

    package static func unknownProperty(_ name: String, entity: String) -> WebRecordError {
        WebRecordError(
            .invalidArgument, "entity '\(entity)' has no property '\(name)'", entity: entity, property: name)
    }

    /// The records' key path is missing from an object response (DESIGN §3.1): the message
    /// names the key path, the step that is missing, the keys of the object that lacks it, and
    /// quotes an excerpt of the response, its secrets redacted.
    ///
    /// For example: `the response has no 'data' (its keys: 'error'), where the Customer
    /// records are expected; it is not a list of them, and nothing was written: {"error": ...}`.
    static func missingKeyPath(_ keyPath: String, in response: JSONValue, entity: String) -> WebRecordError {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // The first prefix of the path that is missing, and the value it was looked for in.
        var missing = keyPath
        var parent = response
        var parentPath = ""
        for count in 1...max(components.count, 1) {
            let prefix = components.prefix(count).joined(separator: ".")
            guard let value = response.value(atKeyPath: prefix) else {
                missing = prefix
                break
            }
            parent = value
            parentPath = prefix
        }
        let container = parentPath.isEmpty ? "" : " at '\(parentPath)'"
        let what: String
        switch parent {
        case .object(let object):
            let keys = object.keys
            let shown = keys.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
            let more = keys.count > 8 ? ", and \(keys.count - 8) more" : ""
            what =
                keys.isEmpty
                ? "the object\(container) has no keys" : "the object\(container) has the keys \(shown)\(more)"
        case .array(let elements):
            what = "the value\(container) is an array of \(elements.count)"
        default:
            what = "the value\(container) is \(parent.typeName)"
        }
        return WebRecordError(
            .invalidResponseFormat,
            "the response has no '\(missing)', where the \(entity) records are expected (key path '\(keyPath)'; "
                + "\(what)): it is not a response of \(entity) records, and nothing was written; the response: "
                + bodyExcerpt(of: response),
            entity: entity, keyPath: keyPath, value: response)
    }

    /// The longest excerpt of a body or a request's parameters a message quotes.
    static let bodyExcerptCharacters = 200

    /// A value for a message, on one line of at most ``bodyExcerptCharacters`` characters: the
    /// members whose names are secret redacted, and any `name=value` secret in the text too (a
    /// token written into a GraphQL query).
    static func bodyExcerpt(of value: JSONValue, sortedKeys: Bool = false) -> String {
        let text = Redaction.text(Redaction.json(value).serialized(sortedKeys: sortedKeys))
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        if text.count <= bodyExcerptCharacters { return text }
        return String(text.prefix(bodyExcerptCharacters - 3)) + "..."
    }

    /// A short, single-line rendering of a value for messages (at most 60 characters).
    static func excerpt(of value: JSONValue) -> String {
        let text = Redaction.json(value).serialized()
        if text.count <= 60 { return text }
        return String(text.prefix(57)) + "..."
    }

    /// Whether the value of a property or key path is a secret: one of its names is a secret
    /// name (``Redaction/secretNames``), as a response's member is.
    static func holdsSecret(_ names: String?...) -> Bool {
        names.contains { name in
            name.map { $0.split(separator: ".").contains { Redaction.isSecret(String($0)) } } ?? false
        }
    }

    /// `value`, or the redaction placeholder when it is the value of a secret (``holdsSecret(_:)``).
    static func shown(_ value: JSONValue, of names: String?...) -> JSONValue {
        names.contains { holdsSecret($0) } ? .string(Redaction.placeholder) : value
    }
}
