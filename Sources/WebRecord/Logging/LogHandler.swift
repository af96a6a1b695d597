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

    /// The names of headers, query parameters and JSON members whose values are secret,
    /// compared ignoring case.
    ///
    /// Their values are redacted (replaced by `<redacted>`) from logs, error messages and the
    /// `description`, `debugDescription` and `dump` output of requests, responses, results,
    /// servers and errors. `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
    /// are redacted whatever this set holds, and so is a URL's password.
    ///
    /// The default holds the usual names: the headers `X-Api-Key`, `X-Auth-Token`,
    /// `X-Access-Token`, `X-CSRF-Token`, `X-XSRF-Token`, `X-Amz-Security-Token`, `Private-Token`
    /// and `X-Goog-Api-Key`, and the parameters `access_token`, `refresh_token`, `id_token`,
    /// `client_secret`, `api_key`, `apikey`, `api-key`, `token`, `auth`, `auth_token`,
    /// `password`, `passwd`, `secret`, `signature`, `sig`, `oauth_token`, `oauth_token_secret`,
    /// `oauth_signature`, `X-Amz-Signature`, `X-Amz-Credential` and `session_token`. `key` is
    /// not among them: it names ordinary data too often (a Jira issue's `key`); add it for an
    /// API that takes its key as `?key=`.
    ///
    /// For example:
    ///
    /// ```swift
    /// WebRecord.secretNames.insert("key")
    /// ```
    public static var secretNames: Set<String> {
        get { secretState.withLock { $0 } }
        set { secretState.withLock { $0 = Set(newValue.map { $0.lowercased() }) } }
    }

    private static let secretState = Locked<Set<String>>(Redaction.defaultSecretNames)

    static let logger = Logger()

    /// Text with its secrets redacted the way WebRecord redacts its own messages: a URL's
    /// password, and every `name=value` pair whose name is secret (see ``secretNames``), in a
    /// URL's query or anywhere else.
    ///
    /// For example:
    ///
    /// ```swift
    /// WebRecord.redacted("https://me:pw@api.example.com/posts?access_token=abc&count=20")
    /// // "https://me:<redacted>@api.example.com/posts?access_token=<redacted>&count=20"
    /// ```
    ///
    /// - Parameter text: a URL, a URN or any message.
    /// - Returns: the text with each secret value replaced by `<redacted>`.
    public static func redacted(_ text: String) -> String {
        Redaction.text(text)
    }

    /// Whether `name` (a header, parameter or member name) holds a secret to redact.
    static func isSecret(_ name: String) -> Bool {
        Redaction.isSecret(name)
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
