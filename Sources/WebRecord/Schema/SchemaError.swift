/// One problem found in a schema file.
///
/// Its ``description`` is the line `webrecord lint` prints: `FILE: Entity.property: message`,
/// `FILE: Entity: message` for an entity-level problem, and `FILE: line L, column C: message`
/// for malformed JSON.
public struct SchemaProblem: Sendable, Hashable, CustomStringConvertible {
    /// The schema file's path as given.
    public var file: String
    /// The entity concerned, if any.
    public var entity: String?
    /// The property concerned, if any.
    public var property: String?
    /// What is wrong.
    public var message: String
    /// For malformed JSON: the 1-based line.
    public var line: Int?
    /// For malformed JSON: the 1-based column.
    public var column: Int?

    /// Creates a problem.
    init(
        file: String, entity: String? = nil, property: String? = nil, message: String,
        line: Int? = nil, column: Int? = nil
    ) {
        self.file = file
        self.entity = entity
        self.property = property
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        var location: String?
        if let entity {
            location = property.map { "\(entity).\($0)" } ?? entity
        } else if let line {
            location = "line \(line)" + (column.map { ", column \($0)" } ?? "")
        }
        return location.map { "\(file): \($0): \(message)" } ?? "\(file): \(message)"
    }
}

/// Schema files that failed to load: every problem found, all at once.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in file order.
    public var problems: [SchemaProblem]

    /// Creates an error from its problems.
    init(problems: [SchemaProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
