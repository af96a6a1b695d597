/// WebRecord's internal front of logging: checks the level before building anything, then
/// hands the event to a handler.
///
/// A logger may carry its own handler and level. What it does not carry is read from the
/// global settings (``Record/logHandler`` and ``Record/loggingLevel``) each time it logs, so
/// a change of those applies at once to ``global`` and to every logger that does not override
/// them.
package struct Logger: Sendable {
    /// The handler events go to, or nil for the global ``Record/logHandler``.
    var handler: (any LogHandler)?

    /// The threshold, or nil for the global ``Record/loggingLevel``; `.some(nil)` logs nothing.
    var level: LogLevel??

    /// Creates a logger that overrides the global handler, level, both or neither.
    init(handler: (any LogHandler)? = nil, level: LogLevel?? = nil) {
        self.handler = handler
        self.level = level
    }

    /// The logger that follows the global settings: the one used wherever no other is given.
    package static let global = Logger()

    /// Whether an event at `level` would be logged. Check it before building costly metadata.
    func isEnabled(_ level: LogLevel) -> Bool {
        level.passes(self.level ?? Self.globalLevel)
    }

    /// Logs an event at `level` when it is enabled; the message and metadata are built only
    /// then.
    func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, entity: String? = nil,
        metadata: @autoclosure () -> [String: String] = [:], file: String = #fileID, line: UInt = #line
    ) {
        guard isEnabled(level) else { return }
        (handler ?? Self.globalHandler).log(
            event: LogEvent(
                level: level, message: message(), entity: entity, metadata: metadata(), file: file, line: line))
    }
}

// MARK: - The global settings

extension Logger {
    private struct GlobalSettings {
        var level: LogLevel? = nil
        var handler: any LogHandler = StandardErrorLogHandler()
    }

    private static let globalSettings = Locked(GlobalSettings())

    /// The storage of ``Record/loggingLevel``. `nil`, the default, logs nothing.
    static var globalLevel: LogLevel? {
        get { globalSettings.withLock { $0.level } }
        set { globalSettings.withLock { $0.level = newValue } }
    }

    /// The storage of ``Record/logHandler``. The default writes to standard error.
    static var globalHandler: any LogHandler {
        get { globalSettings.withLock { $0.handler } }
        set { globalSettings.withLock { $0.handler = newValue } }
    }
}

/// A logging setup of its own for one store (``RecordStore/Configuration/logging``): where its
/// events go and how much it logs, whatever the process-wide settings say.
public struct LogSettings: Sendable {
    /// Where events go.
    public var handler: any LogHandler
    /// The threshold, with MMRecord's levels: `.none` (nil) logs nothing, `.info`, `.debug`,
    /// `.all`.
    public var level: LogLevel?

    /// Creates the settings.
    public init(handler: any LogHandler, level: LogLevel?) {
        self.handler = handler
        self.level = level
    }
}
