/// The severity of one log event, with swift-log's `Logger.Level` names and order, from the
/// least severe to the most.
///
/// Every ``LogEvent`` carries one, and ``Record/loggingLevel``, an optional `LogLevel`, is the
/// threshold: an event is logged when its level is at least the threshold, and nothing is
/// logged when the threshold is `nil`. MMRecord's four logging levels read the same:
/// `Record.loggingLevel = .none`, `.info`, `.debug` or `.all` (an alias of ``trace``).
///
/// A bridge to swift-log maps the two level types one to one, by their raw values.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// The most detail: the proto-record graph of each response, and each HTTP request and
    /// response (secrets redacted).
    case trace
    /// Each request, and each record created, updated and deleted.
    case debug
    /// Information; WebRecord logs nothing at this level itself.
    case info
    /// Normal but significant conditions; WebRecord logs nothing at this level itself.
    case notice
    /// A problem the work went on after (a warning of the ``Debugger``).
    case warning
    /// A problem that failed the work (a fatal error of the ``Debugger``).
    case error
    /// A critical condition; WebRecord logs nothing at this level itself.
    case critical

    /// The lowest level, as a threshold: ``Record/loggingLevel`` `= .all` logs everything, as
    /// MMRecord's `MMRecordLoggingLevelAll` did.
    public static let all: LogLevel = .trace

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// Whether an event at this level passes `threshold`: it does when the threshold is not
    /// `nil` and this level is at least as severe.
    func passes(_ threshold: LogLevel?) -> Bool {
        guard let threshold else { return false }
        return self >= threshold
    }
}
