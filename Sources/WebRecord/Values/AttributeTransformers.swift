/// Named functions from a response value to the value to store, named by an attribute's
/// `transformer` in a schema file.
///
/// A transformer runs on the raw JSON before coercion to the attribute's type. It returns the
/// value to coerce and store, or nil to reject the value (a non-fatal `typeMismatch`).
///
/// Register transformers for every store of the process, as MMRecord users registered
/// `NSValueTransformer`s:
///
/// ```swift
/// AttributeTransformers.register("centsToDollars") { value in
///     value.doubleValue.map { .double($0 / 100) } ?? value
/// }
/// ```
///
/// or for one store only, in its configuration, where they take precedence over the
/// process-wide ones of the same name:
///
/// ```swift
/// var configuration = RecordStore.Configuration()
/// configuration.transformers["centsToDollars"] = { value in value.doubleValue.map { .double($0 / 100) } }
/// ```
///
/// A schema that names a transformer registered in neither place fails every population
/// before anything is written.
public enum AttributeTransformers {
    /// A transformer: the value to coerce and store, or nil to reject the value.
    public typealias Transform = @Sendable (JSONValue) -> JSONValue?

    private static let registry = Locked<[String: Transform]>([:])

    /// Registers (or replaces) the process-wide transformer named `name`.
    ///
    /// - Parameters:
    ///   - name: the name schema files use.
    ///   - transform: returns the value to coerce and store, or nil to reject the value.
    public static func register(_ name: String, _ transform: @escaping Transform) {
        registry.withLock { $0[name] = transform }
    }

    /// Removes the process-wide transformer named `name`.
    public static func unregister(_ name: String) {
        registry.withLock { $0[name] = nil }
    }

    /// The process-wide transformer named `name`.
    package static func transformer(named name: String) -> Transform? {
        registry.withLock { $0[name] }
    }
}
