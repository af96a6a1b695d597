import Foundation
import Testing
@testable import WebRecord
import WebRecordTesting

@Suite struct LoggingTests {
    @Test(arguments: [
        (LoggingLevel.none, [LogLevel]()),
        (.info, [.warning, .error, .critical]),
        (.debug, [.debug, .info, .notice, .warning, .error, .critical]),
        (.all, LogLevel.allCases),
    ])
    func levelsMapOntoSwiftLogLevels(level: LoggingLevel, allowed: [LogLevel]) {
        #expect(LogLevel.allCases.filter { level.allows($0) } == allowed)
    }

    @Test func logLevelsUseSwiftLogNamesAndOrder() {
        #expect(LogLevel.allCases.map(\.rawValue) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(LogLevel.trace < LogLevel.critical)
    }

    @Test func theDefaultLevelIsNoneAndPrintsNothing() throws {
        #expect(defaultLoggingLevel() == LoggingLevel.none)
        let recorder = InMemoryLogRecorder()
        try withLogging(.none, recorder: recorder) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"title": "no key"}, {"id": "x1y", "title": "t"}]"#), entity: "Post")
        }
        #expect(recorder.messages.isEmpty)
    }

    @Test func infoLogsWarningsAndErrorsOnly() throws {
        let recorder = InMemoryLogRecorder()
        try withLogging(.info, recorder: recorder) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "score": "high"}]"#), entity: "Post")
        }
        #expect(recorder.messages.contains { $0.contains("warning") && $0.contains("typeMismatch") && $0.contains("Post.score") })
        #expect(!recorder.messages.contains { $0.contains("created") })
    }

    @Test func debugLogsRecordsCreatedAndUpdated() throws {
        let recorder = InMemoryLogRecorder()
        try withLogging(.debug, recorder: recorder) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t"}]"#), entity: "Post")
            _ = try test.store.populate(json(#"[{"id": 1, "title": "u"}]"#), entity: "Post")
        }
        #expect(recorder.messages.contains { $0.contains("created Post(1)") })
        #expect(recorder.messages.contains { $0.contains("updated Post(1)") })
        #expect(!recorder.messages.contains { $0.contains("proto-record graph") })
    }

    @Test func allLogsTheProtoRecordGraph() throws {
        let recorder = InMemoryLogRecorder()
        try withLogging(.all, recorder: recorder) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "user": {"id": "u"}}]"#), entity: "Post")
        }
        let graph = try #require(recorder.messages.first { $0.contains("proto-record graph") })
        #expect(graph.contains(#"Post(1) { user -> [User("u")] }"#))
    }

    @Test func secretsAreRecognizedForRedaction() {
        #expect(WebRecord.isSecret("Authorization"))
        #expect(WebRecord.isSecret("cookie"))
        #expect(WebRecord.isSecret("access_token"))
        #expect(!WebRecord.isSecret("page"))
    }

    @Test func eventsDescribeThemselvesOnOneLine() {
        let event = LogEvent(level: .warning, message: "m", entity: "Post", metadata: ["b": "2", "a": "1"])
        #expect(event.description == "[webrecord] warning: m (Post) a=1 b=2")
    }
}
