/// A stand-in for swift-log's `Logging` module, with the shape that matters to a bridge from
/// WebRecord: a module named `Logging` that declares its own `LogHandler` protocol and
/// `Logger` struct, whose `Level` has swift-log's seven cases.
///
/// The tests declare a bridge to it as an application would to swift-log, to check that
/// WebRecord's names can be qualified by their module beside it.

/// Receives what a ``Logger`` logs, as swift-log's `LogHandler` does.
public protocol LogHandler: Sendable {
    /// Handles one message at `level`, from the logger labelled `label`.
    func log(level: Logger.Level, message: String, label: String)
}

/// A logger, as swift-log's: a label and the handler its messages go to.
public struct Logger: Sendable {
    /// swift-log's levels, from the least severe to the most.
    public enum Level: String, Sendable, CaseIterable, Codable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// The logger's label.
    public let label: String
    /// Where its messages go.
    public let handler: any LogHandler

    /// Creates a logger labelled `label` that sends its messages to `handler`.
    public init(label: String, handler: any LogHandler) {
        self.label = label
        self.handler = handler
    }

    /// Logs `message` at `level`.
    public func log(level: Level, _ message: @autoclosure () -> String) {
        handler.log(level: level, message: message(), label: label)
    }
}
