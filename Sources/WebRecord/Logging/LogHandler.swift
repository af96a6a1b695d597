import Foundation

/// Receives WebRecord's log events. Install one with ``Record/logHandler``.
///
/// One requirement, shaped like swift-log's `LogHandler.log(event:)`, so a bridge is a
/// small struct. Qualify the names both modules declare:
///
/// ```swift
/// import Logging
/// import WebRecord
///
/// struct SwiftLogBridge: WebRecord.LogHandler {
///     let logger: Logging.Logger
///     func log(event: LogEvent) {
///         let level = Logging.Logger.Level(rawValue: event.level.rawValue) ?? .critical
///         logger.log(level: level, "\(event.description)")
///     }
/// }
/// Record.logHandler = SwiftLogBridge(logger: Logging.Logger(label: "webrecord"))
/// Record.loggingLevel = .debug
/// ```
public protocol LogHandler: Sendable {
    /// Handles one event that passed the current ``Record/loggingLevel``.
    func log(event: LogEvent)
}

/// Writes each event as one line on standard error. The default handler.
public struct StandardErrorLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}

    /// Writes the event's ``LogEvent/description`` and a newline on standard error.
    public func log(event: LogEvent) {
        FileHandle.standardError.write(Data((event.description + "\n").utf8))
    }
}
