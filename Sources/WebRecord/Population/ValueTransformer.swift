
/// A named function from a response value to the value to store, registered in code and
/// named by an attribute's `transformer` in a schema file.
///
/// It runs on the raw JSON before coercion to the attribute's type.
///
/// For example:
///
/// ```swift
/// ValueTransformers.register("centsToDollars") { value in
///     value.doubleValue.map { .double($0 / 100) } ?? value
/// }
/// ```
public enum ValueTransformers {
    private static let registry = Locked<[String: @Sendable (JSONValue) -> JSONValue?]>([:])

    /// Registers (or replaces) the transformer named `name`.
    ///
    /// - Parameters:
    ///   - name: the name schema files use.
    ///   - transform: returns the value to coerce and store, or nil to reject the value
    ///     (a non-fatal `typeMismatch`).
    public static func register(_ name: String, _ transform: @escaping @Sendable (JSONValue) -> JSONValue?) {
        registry.withLock { $0[name] = transform }
    }

    /// Removes the transformer named `name`.
    public static func unregister(_ name: String) {
        registry.withLock { $0[name] = nil }
    }

    static func transformer(named name: String) -> (@Sendable (JSONValue) -> JSONValue?)? {
        registry.withLock { $0[name] }
    }
}
