import Logging
import Testing
import WebRecord
import WebRecordTesting

/// Sends WebRecord's log to a swift-log `Logger`, as an application would. Both modules
/// declare a `LogHandler`, and both a `Logger` when WebRecord's internals are visible: each
/// name is qualified by its module.
struct SwiftLogBridge: WebRecord.LogHandler {
    let logger: Logging.Logger

    func log(event: LogEvent) {
        logger.log(level: Self.level(of: event.level), "\(event.description)")
    }

    /// The swift-log level of the same name.
    static func level(of level: WebRecord.LogLevel) -> Logging.Logger.Level {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

/// Keeps what reaches the swift-log logger.
final class RecordingHandler: Logging.LogHandler {
    private let stored = Locked<[(level: Logging.Logger.Level, message: String)]>([])

    func log(level: Logging.Logger.Level, message: String, label: String) {
        stored.withLock { $0.append((level, "\(label): \(message)")) }
    }

    /// What was logged, in order.
    var entries: [(level: Logging.Logger.Level, message: String)] { stored.withLock { $0 } }
}

@Suite struct SwiftLogBridgeTests {
    /// An entity no other suite populates, to pick this suite's events out of the log.
    static let schema =
        #"{"version": 1, "entities": {"BridgedPost": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "score": {"type": "double"}}}}}"#

    @Test func eachLevelMapsOntoTheSwiftLogLevelOfTheSameName() {
        let recorder = RecordingHandler()
        let bridge = SwiftLogBridge(logger: Logging.Logger(label: "webrecord", handler: recorder))
        for level in WebRecord.LogLevel.allCases {
            bridge.log(event: LogEvent(level: level, message: "at \(level)"))
        }
        #expect(
            recorder.entries.map(\.level.rawValue) == [
                "trace", "debug", "info", "notice", "warning", "error", "critical",
            ])
        #expect(recorder.entries.map(\.message).first == "webrecord: [webrecord] trace: at trace")
    }

    @Test(arguments: [
        (WebRecord.LogLevel?.none, [Logging.Logger.Level]()),
        (.info, [.warning]),
        (.debug, [.debug, .warning]),
        (.all, [.trace, .debug, .warning]),
    ])
    func installedBridgeReceivesWhatTheLevelLetsThrough(
        threshold: WebRecord.LogLevel?, expected: [Logging.Logger.Level]
    ) async throws {
        let recorder = RecordingHandler()
        let store = try RecordStore(inMemory: Schema(json: Self.schema))
        let response = try JSONReader().read(#"[{"id": 1, "score": "high"}]"#)
        _ = try await InMemoryLogHandler.capture(level: .none) {
            WebRecord.Record.logHandler = SwiftLogBridge(logger: Logging.Logger(label: "webrecord", handler: recorder))
            WebRecord.Record.loggingLevel = threshold
            #expect(WebRecord.Record.loggingLevel == threshold)
            let result = try store.populate(response, entity: "BridgedPost")
            #expect(result.debugger.warnings.count == 1)
        }
        // Other suites may log while the bridge is installed: keep this population's events.
        let entries = recorder.entries.filter { $0.message.contains("BridgedPost") }
        #expect(Set(entries.map(\.level)) == Set(expected), "\(entries)")
        if !expected.isEmpty {
            #expect(entries.contains { $0.level == .warning && $0.message.contains("typeMismatch") })
        }
    }
}
