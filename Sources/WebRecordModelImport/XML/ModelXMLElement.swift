/// One element of a model's XML: its name, attributes and child elements, and where it starts.
struct ModelXMLElement: Sendable {
    /// The element's name, as written (prefix included).
    var name: String
    /// The attributes, with entity and character references resolved.
    var attributes: [String: String]
    /// The child elements in document order. Text content is not kept.
    var children: [ModelXMLElement]
    /// The 1-based line of the element's `<`.
    var line: Int
    /// The 1-based column of the element's `<`, counted in Unicode scalars.
    var column: Int

    /// The value of the attribute with this name, or `nil` when the element has none.
    func attribute(_ name: String) -> String? {
        attributes[name]
    }

    /// The child elements with this name, in document order.
    func children(named name: String) -> [ModelXMLElement] {
        children.filter { $0.name == name }
    }
}

/// Why a model's XML could not be read: it is not well-formed, or it holds markup the importer
/// refuses. Located by 1-based line and column (in Unicode scalars).
struct ModelXMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line of the problem.
    var line: Int
    /// The 1-based column of the problem, counted in Unicode scalars.
    var column: Int
    /// What is wrong, in one sentence.
    var message: String

    var description: String { "line \(line), column \(column): \(message)" }
}
