import WebRecord

/// The SQL statements a store ran, in order, as its ``RecordStore/Configuration/sqlObserver``
/// reports them.
///
/// ``RecordingStore`` keeps one for its throwaway store; give one to any other store's
/// configuration to count or inspect its statements:
///
/// ```swift
/// let log = SQLLog()
/// var configuration = RecordStore.Configuration()
/// configuration.sqlObserver = log.observer
/// let store = try RecordStore(path: path, schema: schema, configuration: configuration)
/// _ = try store.populate(response, entity: "Post")
/// #expect(log.statements(matching: "CREATE").isEmpty)
/// ```
public final class SQLLog: Sendable {
    private let lines = Locked<[String]>([])

    /// Creates an empty log.
    public init() {}

    /// An observer that appends each statement it is given, for
    /// ``RecordStore/Configuration/sqlObserver``.
    public var observer: @Sendable (String) -> Void {
        { [self] sql in append(sql) }
    }

    /// Appends a statement.
    public func append(_ sql: String) {
        lines.withLock { $0.append(sql) }
    }

    /// Every statement logged so far, in order.
    public var statements: [String] { lines.withLock { $0 } }

    /// The statements logged so far that start with `prefix` (case-insensitive), such as
    /// "SELECT".
    public func statements(matching prefix: String) -> [String] {
        statements.filter { $0.uppercased().hasPrefix(prefix.uppercased()) }
    }

    /// Forgets the statements logged so far.
    public func removeAll() {
        lines.withLock { $0.removeAll() }
    }
}
