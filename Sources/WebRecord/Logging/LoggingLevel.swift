/// How much WebRecord logs, with MMRecord's four levels.
///
/// Each level is a threshold on ``LogLevel``, which uses swift-log's names and order, so a
/// bridge to swift-log maps one level onto the other one to one.
///
/// | LoggingLevel | logs events at | what that means |
/// |---|---|---|
/// | `none` | nothing | the default |
/// | `info` | `.warning` and above | warnings and errors |
/// | `debug` | `.debug` and above | also each record created and updated |
/// | `all` | `.trace` and above | everything, the proto-record graph included |
///
/// For example:
///
/// ```swift
/// WebRecord.loggingLevel = .debug
/// ```
public enum LoggingLevel: String, Sendable, CaseIterable, Comparable {
    /// Logs nothing. The default.
    case none
    /// Logs warnings and errors.
    case info
    /// Also logs each record created and updated.
    case debug
    /// Logs everything, the proto-record graph and HTTP traffic included (secrets redacted).
    case all

    /// The least severe ``LogLevel`` this level lets through, or nil for ``none``.
    public var threshold: LogLevel? {
        switch self {
        case .none: nil
        case .info: .warning
        case .debug: .debug
        case .all: .trace
        }
    }

    /// Whether an event at `level` is logged.
    public func allows(_ level: LogLevel) -> Bool {
        guard let threshold else { return false }
        return level >= threshold
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: LoggingLevel, rhs: LoggingLevel) -> Bool { lhs.rank < rhs.rank }
}

/// The severity of one log event, with swift-log's `Logger.Level` names and order.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case trace, debug, info, notice, warning, error, critical

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
