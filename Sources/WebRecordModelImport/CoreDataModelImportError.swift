import WebRecord

// MARK: - Why a Core Data model could not be converted

/// The importer throws WebRecord's one error type, with code `invalidSchema`: a model is a
/// schema's source. The error names the model ``WebRecordError/file`` and, when known, the
/// ``WebRecordError/line`` and ``WebRecordError/column`` of the element concerned; a message
/// about one property starts with `Entity.property:`.
extension WebRecordError {
    static func unreadable(file: String, reason: String) -> Self {
        modelProblem(file: file, message: "cannot read the model: \(reason)")
    }

    static func notAModel(file: String, _ reason: String) -> Self {
        modelProblem(
            file: file, message: "not a Core Data model: \(reason); expected the contents XML of an .xcdatamodel")
    }

    static func malformedXML(file: String, _ error: ModelXMLError) -> Self {
        modelProblem(file: file, line: error.line, column: error.column, message: "malformed XML: \(error.message)")
    }

    static func at(_ node: ModelXMLElement, file: String, _ message: String) -> Self {
        modelProblem(file: file, line: node.line, column: node.column, message: message)
    }

    private static func modelProblem(file: String, line: Int? = nil, column: Int? = nil, message: String) -> Self {
        var error = WebRecordError(.invalidSchema, message)
        error.file = file
        error.line = line
        error.column = column
        return error
    }
}
