import WebRecord

/// The members of one schema problem (an `invalidSchema` error in a schema error's
/// `problems`), as a value the tests compare whole: every member must match.
struct SchemaProblem: Hashable, CustomStringConvertible {
    var file: String?
    var entity: String?
    var property: String?
    var message: String
    var line: Int?
    var column: Int?

    init(
        file: String, entity: String? = nil, property: String? = nil, message: String, line: Int? = nil,
        column: Int? = nil
    ) {
        (self.file, self.entity, self.property, self.message, self.line, self.column) =
            (file, entity, property, message, line, column)
    }

    init(_ error: WebRecordError) {
        (file, entity, property, message, line, column) =
            (error.file, error.entity, error.property, error.message, error.line, error.column)
    }

    /// The problem as `webrecord lint` prints it.
    var description: String {
        var error = WebRecordError(.invalidSchema, message, entity: entity, property: property)
        (error.file, error.line, error.column) = (file, line, column)
        return error.locatedMessage
    }
}

extension WebRecordError {
    /// Every problem of a schema error, as values to compare.
    var schemaProblems: [SchemaProblem] { problems.map(SchemaProblem.init) }
}
