import Foundation

/// Receives WebRecord's log events. Install one with ``WebRecord/logHandler``.
///
/// One requirement, shaped like swift-log's `LogHandler.log(event:)`, so a bridge is a
/// small struct:
///
/// ```swift
/// struct SwiftLogBridge: WebRecord.LogHandler {
///     let logger: Logging.Logger
///     func log(event: LogEvent) {
///         logger.log(level: Logger.Level(rawValue: event.level.rawValue)!, "\(event.message)")
///     }
/// }
/// WebRecord.logHandler = SwiftLogBridge(logger: Logger(label: "webrecord"))
/// ```
public protocol LogHandler: Sendable {
    /// Handles one event that passed the current ``WebRecord/loggingLevel``.
    func log(event: LogEvent)
}

/// Writes each event as one line on standard error. The default handler.
public struct StandardErrorLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}

    public func log(event: LogEvent) {
        FileHandle.standardError.write(Data((event.description + "\n").utf8))
    }
}

/// WebRecord's global settings: the logging level and the log handler.
public enum WebRecord {
    private struct LoggingState {
        var level: LoggingLevel = .none
        var handler: any LogHandler = StandardErrorLogHandler()
    }

    private static let loggingState = Locked(LoggingState())

    /// How much WebRecord logs. The default, ``LoggingLevel/none``, prints nothing.
    public static var loggingLevel: LoggingLevel {
        get { loggingState.withLock { $0.level } }
        set { loggingState.withLock { $0.level = newValue } }
    }

    /// Where log events go. The default writes to standard error.
    public static var logHandler: any LogHandler {
        get { loggingState.withLock { $0.handler } }
        set { loggingState.withLock { $0.handler = newValue } }
    }

    /// The names of request headers and parameters whose values are redacted in logs.
    /// `Authorization`, `Proxy-Authorization` and `Cookie` are always redacted.
    public static var secretNames: Set<String> {
        get { secretState.withLock { $0 } }
        set { secretState.withLock { $0 = Set(newValue.map { $0.lowercased() }) } }
    }

    private static let secretState = Locked<Set<String>>(["access_token", "api_key", "password", "token"])

    static let logger = Logger()

    /// Whether `name` (a header or parameter name) holds a secret to redact.
    static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(lower)
            || secretNames.contains(lower)
    }
}

/// The internal front of logging: checks the level before building anything.
struct Logger: Sendable {
    func isEnabled(_ level: LogLevel) -> Bool {
        WebRecord.loggingLevel.allows(level)
    }

    func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, entity: String? = nil,
        metadata: @autoclosure () -> [String: String] = [:], file: String = #fileID, line: UInt = #line
    ) {
        guard isEnabled(level) else { return }
        WebRecord.logHandler.log(
            event: LogEvent(
                level: level, message: message(), entity: entity, metadata: metadata(), file: file, line: line))
    }
}
