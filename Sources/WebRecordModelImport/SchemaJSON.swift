import WebRecord

/// A JSON value as the importer writes it: object members keep their order.
indirect enum SchemaJSON {
    case string(String)
    case integer(Int64)
    /// A number already spelled as valid JSON.
    case number(String)
    case bool(Bool)
    case array([SchemaJSON])
    case object([(String, SchemaJSON)])

    var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// Pretty-printed text with a 2-space indent. An object or array that holds only
    /// scalars stays on one line: `{ "type": "date", "key": "created_at" }`.
    func prettyPrinted() -> String {
        var output = ""
        write(to: &output, indent: 0)
        return output
    }

    func write(to output: inout String, indent: Int) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .integer(let value): output += String(value)
        case .number(let text): output += text
        case .bool(let value): output += value ? "true" : "false"
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
            } else if elements.allSatisfy(\.isScalar) {
                output += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { output += ", " }
                    element.write(to: &output, indent: indent)
                }
                output += "]"
            } else {
                let padding = String(repeating: " ", count: indent + 2)
                output += "[\n"
                for (index, element) in elements.enumerated() {
                    output += padding
                    element.write(to: &output, indent: indent + 2)
                    output += index + 1 < elements.count ? ",\n" : "\n"
                }
                output += String(repeating: " ", count: indent) + "]"
            }
        case .object(let members):
            if members.isEmpty {
                output += "{}"
            } else if members.allSatisfy({ $0.1.isScalar }) {
                output += "{ "
                for (index, (key, value)) in members.enumerated() {
                    if index > 0 { output += ", " }
                    Self.writeString(key, to: &output)
                    output += ": "
                    value.write(to: &output, indent: indent)
                }
                output += " }"
            } else {
                let padding = String(repeating: " ", count: indent + 2)
                output += "{\n"
                for (index, (key, value)) in members.enumerated() {
                    output += padding
                    Self.writeString(key, to: &output)
                    output += ": "
                    value.write(to: &output, indent: indent + 2)
                    output += index + 1 < members.count ? ",\n" : "\n"
                }
                output += String(repeating: " ", count: indent) + "}"
            }
        }
    }

    /// Writes a JSON string literal, escaped as WebRecord's JSON writer escapes it.
    static func writeString(_ value: String, to output: inout String) {
        output += JSONValue.string(value).serialized()
    }
}
