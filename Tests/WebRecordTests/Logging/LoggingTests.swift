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

    /// The shipped default is checked in a fresh process by the CLI tests
    /// (`DefaultLoggingTests`); here, `.none` prints nothing even when there is much to say.
    @Test func noneLogsNothing() async throws {
        let (warnings, messages) = try await withLogging(.none) {
            let test = try makeDecisionStore()
            return try test.store.populate(json(#"[{"title": "no key"}, {"id": "x1y", "title": "t"}, {"id": 2, "title": "t"}]"#), entity: "Post").debugger.warnings.count
        }
        #expect(warnings > 0)
        #expect(messages.isEmpty)
    }

    @Test func infoLogsWarningsAndErrorsOnly() async throws {
        let (_, messages) = try await withLogging(.info) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "score": "high"}]"#), entity: "Post")
        }
        #expect(messages.contains { $0.contains("warning") && $0.contains("typeMismatch") && $0.contains("Post.score") })
        #expect(!messages.contains { $0.contains("created") })
    }

    @Test func debugLogsRecordsCreatedAndUpdated() async throws {
        let (_, messages) = try await withLogging(.debug) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t"}]"#), entity: "Post")
            _ = try test.store.populate(json(#"[{"id": 1, "title": "u"}]"#), entity: "Post")
        }
        #expect(messages.contains { $0.contains("created Post(1)") })
        #expect(messages.contains { $0.contains("updated Post(1)") })
        #expect(!messages.contains { $0.contains("proto-record graph") })
    }

    @Test func allLogsTheProtoRecordGraph() async throws {
        let (_, messages) = try await withLogging(.all) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "user": {"id": "u"}}]"#), entity: "Post")
        }
        // Other suites may populate while the level is raised; look for this population's graph.
        #expect(messages.contains { $0.contains("proto-record graph") && $0.contains(#"Post(1) { user -> [User("u")] }"#) })
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
