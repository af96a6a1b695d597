// MARK: - Schema problems

extension WebRecordError {
    /// One problem found in a schema file: an ``Code/invalidSchema`` error that names its file,
    /// and the entity and property concerned, or the line and column of malformed JSON.
    ///
    /// Its ``location`` and ``message`` make the line `webrecord lint` prints:
    /// `FILE: Entity.property: message`, `FILE: Entity: message` for an entity-level problem,
    /// and `FILE: line L, column C: message` for malformed JSON.
    static func schemaProblem(
        file: String, entity: String? = nil, property: String? = nil, message: String,
        line: Int? = nil, column: Int? = nil
    ) -> WebRecordError {
        var problem = WebRecordError(.invalidSchema, message, entity: entity, property: property)
        problem.file = file
        problem.line = line
        problem.column = column
        return problem
    }

    /// Schema files that failed to load: one ``Code/invalidSchema`` error whose ``problems``
    /// list every problem found, in file order.
    static func invalidSchema(_ problems: [WebRecordError]) -> WebRecordError {
        let files = Set(problems.compactMap(\.file)).sorted()
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        var error = WebRecordError(.invalidSchema, "\(count) in \(files.joined(separator: ", "))")
        error.problems = problems
        return error
    }
}
