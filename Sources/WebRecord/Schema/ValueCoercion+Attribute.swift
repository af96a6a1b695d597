// Coercion for a declared attribute: its type and date format, read from the attribute.
// Here rather than in Values/, which knows attribute types but not the schema's attributes.
extension ValueCoercion {
    /// The stored value for `value`, or nil when it cannot be coerced. JSON null is `.null`.
    func storedValue(_ value: JSONValue, for attribute: Attribute) -> DatabaseValue? {
        storedValue(value, type: attribute.type, dateFormat: attribute.dateFormat)
    }

    /// The primary-key form of a value: normalized to the attribute's type so `"5"` matches 5.
    func keyValue(_ value: JSONValue, for attribute: Attribute) -> DatabaseValue? {
        keyValue(value, type: attribute.type, dateFormat: attribute.dateFormat)
    }
}
