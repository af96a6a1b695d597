extension Record {
    /// How much WebRecord logs: the least severe ``LogLevel`` it logs, or `nil` (`.none`), the
    /// default, to log nothing. The setting is global, as MMRecord's `+setLoggingLevel:` was.
    ///
    /// MMRecord's four levels read the same:
    ///
    /// | `Record.loggingLevel` | logs events at | what that shows |
    /// |---|---|---|
    /// | `.none` | nothing | nothing: the default |
    /// | `.info` | `.info` and above | warnings and errors (each ``Debugger`` entry) |
    /// | `.debug` | `.debug` and above | also each request, and each record created, updated and deleted |
    /// | `.all` | `.trace` and above | also the proto-record graph of each response and the HTTP traffic (secrets redacted) |
    ///
    /// WebRecord logs nothing at `.info`, `.notice` or `.critical` itself, so `.info`,
    /// `.notice` and `.warning` show the same events. Events go to ``logHandler``.
    ///
    /// For example:
    ///
    /// ```swift
    /// Record.loggingLevel = .debug
    /// ```
    public static var loggingLevel: LogLevel? {
        get { Logger.globalLevel }
        set { Logger.globalLevel = newValue }
    }

    /// Where WebRecord's log events go. The default, a ``StandardErrorLogHandler``, writes
    /// each one as a line on standard error; see ``LogHandler`` for a bridge to swift-log.
    ///
    /// The setting is global. Only the events that pass ``loggingLevel`` reach the handler.
    public static var logHandler: any LogHandler {
        get { Logger.globalHandler }
        set { Logger.globalHandler = newValue }
    }
}
