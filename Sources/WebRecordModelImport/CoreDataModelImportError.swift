/// Why a Core Data model could not be converted into a schema file.
///
/// Its `description` reads `FILE:LINE:COLUMN: message` (or `FILE: message` when there is no
/// location), and a message about a property starts with `Entity.property:`.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try CoreDataModelImporter.schemaJSON(contentsOf: url)
/// } catch let error as CoreDataModelImportError {
///     print(error)   // Model/contents:12:9: Post.date: unsupported attributeType "Undefined"
/// }
/// ```
public struct CoreDataModelImportError: Error, Sendable, CustomStringConvertible {
    /// The model file, as it was named to the importer.
    public var file: String
    /// The 1-based line of the problem in the model file, when known.
    public var line: Int?
    /// The 1-based column of the problem in the model file, when known.
    public var column: Int?
    /// What is wrong, starting with `Entity.property:` when it concerns one property.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - file: The model file.
    ///   - line: The 1-based line of the problem, if known.
    ///   - column: The 1-based column of the problem, if known.
    ///   - message: What is wrong.
    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `FILE:LINE:COLUMN: message`, or `FILE: message` when the location is unknown.
    public var description: String {
        switch (line, column) {
        case let (line?, column?): "\(file):\(line):\(column): \(message)"
        case let (line?, nil): "\(file):\(line): \(message)"
        default: "\(file): \(message)"
        }
    }
}

extension CoreDataModelImportError {
    static func unreadable(file: String, reason: String) -> Self {
        Self(file: file, message: "cannot read the model: \(reason)")
    }

    static func notAModel(file: String, _ reason: String) -> Self {
        Self(file: file, message: "not a Core Data model: \(reason); expected the contents XML of an .xcdatamodel")
    }

    static func malformedXML(file: String, _ error: ModelXMLError) -> Self {
        Self(file: file, line: error.line, column: error.column, message: "malformed XML: \(error.message)")
    }

    static func at(_ node: ModelXMLElement, file: String, _ message: String) -> Self {
        Self(file: file, line: node.line, column: node.column, message: message)
    }
}

