import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

@Suite struct LoggingTests {
    @Test(arguments: [
        (LogLevel?.none, [LogLevel]()),
        (.info, [.info, .notice, .warning, .error, .critical]),
        (.debug, [.debug, .info, .notice, .warning, .error, .critical]),
        (.all, LogLevel.allCases),
    ])
    func mmRecordLevelsAreThresholdsOnSwiftLogLevels(threshold: LogLevel?, passing: [LogLevel]) {
        #expect(LogLevel.allCases.filter { $0.passes(threshold) } == passing)
    }

    @Test func logLevelsUseSwiftLogNamesAndOrder() {
        #expect(
            LogLevel.allCases.map(\.rawValue) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(LogLevel.trace < LogLevel.critical)
        #expect(LogLevel.all == .trace)
    }

    /// Other suites may log while a capture runs: these tests mark their own messages.
    static let mark = "LoggingTests: "

    @Test func recordForwardsToTheGlobalSettings() async throws {
        let handler = InMemoryLogHandler()
        let mark = Self.mark
        _ = try await InMemoryLogHandler.capture(level: .none) {
            Record.loggingLevel = .debug
            Record.logHandler = handler
            #expect(Logger.globalLevel == .debug)
            #expect(Logger.global.isEnabled(.debug))
            #expect(!Logger.global.isEnabled(.trace))
            Logger.global.log(.debug, mark + "to the global handler")
            Logger.global.log(.trace, mark + "below the level")
            Record.loggingLevel = .none
            #expect(Logger.globalLevel == nil)
            #expect(!Logger.global.isEnabled(.critical))
            Logger.global.log(.critical, mark + "nothing is logged at none")
        }
        #expect(handler.messages.filter { $0.hasPrefix(mark) } == [mark + "to the global handler"])
    }

    @Test func aLoggerOverridesTheGlobalHandlerAndLevel() async throws {
        let own = InMemoryLogHandler()
        let mark = Self.mark
        let (_, global) = try await InMemoryLogHandler.capture(level: .info) {
            Logger(handler: own, level: .some(.trace)).log(.trace, mark + "own level and handler")
            Logger(handler: own).log(.debug, mark + "below the global level")
            Logger(handler: own).log(.warning, mark + "global level, own handler")
            Logger(level: .some(.debug)).log(.debug, mark + "own level, global handler")
            Logger(handler: own, level: .some(.none)).log(.critical, mark + "own level logs nothing")
            Logger.global.log(.info, mark + "global level and handler")
        }
        #expect(own.messages == [mark + "own level and handler", mark + "global level, own handler"])
        #expect(
            global.map(\.message).filter { $0.hasPrefix(mark) }
                == [mark + "own level, global handler", mark + "global level and handler"])
    }

    /// The shipped default is checked in a fresh process by the CLI tests
    /// (`DefaultLoggingTests`); here, `.none` prints nothing even when there is much to say.
    @Test func noneLogsNothing() async throws {
        let (warnings, messages) = try await withLogging(.none) {
            let test = try makeDecisionStore()
            return try test.store.populate(
                json(#"[{"title": "no key"}, {"id": "x1y", "title": "t"}, {"id": 2, "title": "t"}]"#), entity: "Post"
            ).debugger.warnings.count
        }
        #expect(warnings > 0)
        #expect(messages.isEmpty)
    }

    /// `.info` shows what MMRecord's info level did: warnings and errors, not each request or
    /// record.
    @Test func infoLogsWarningsAndErrorsOnly() async throws {
        let (_, messages) = try await withLogging(.info) {
            let test = try makeDecisionStore()
            _ = try test.store.populate(json(#"[{"id": 1, "title": "t", "score": "high"}]"#), entity: "Post")
        }
        #expect(
            messages.contains { $0.contains("warning") && $0.contains("typeMismatch") && $0.contains("Post.score") })
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
        #expect(
            messages.contains { $0.contains("proto-record graph") && $0.contains(#"Post(1) { user -> [User("u")] }"#) })
    }

    @Test func secretsAreRecognizedForRedaction() {
        #expect(Redaction.isSecret("Authorization"))
        #expect(Redaction.isSecret("cookie"))
        #expect(Redaction.isSecret("access_token"))
        #expect(!Redaction.isSecret("page"))
    }

    @Test func eventsDescribeThemselvesOnOneLine() {
        let event = LogEvent(level: .warning, message: "m", entity: "Post", metadata: ["b": "2", "a": "1"])
        #expect(event.description == "[webrecord] warning: m (Post) a=1 b=2")
    }

    @Test func anEventWhoseMessageNamesItsEntityDoesNotNameItAgain() {
        #expect(
            LogEvent(level: .debug, message: #"created Post("1") _id 5"#, entity: "Post").description
                == #"[webrecord] debug: created Post("1") _id 5"#)
        // A word that only starts with the entity's name is not the name.
        #expect(
            LogEvent(level: .debug, message: "Postcard m", entity: "Post").description
                == "[webrecord] debug: Postcard m (Post)")
    }

    @Test func debugLinesNameTheChangedFieldsAndTheDeletedKeys() async throws {
        let schema = try Schema(
            json: #"""
                { "entities": { "Account": { "primaryKey": "login", "attributes": {
                  "login": { "type": "string" }, "name": { "type": "string" },
                  "password": { "type": "string" }, "visits": { "type": "integer" } } } } }
                """#, fileName: "Accounts.json")
        let (_, messages) = try await withLogging(.debug) {
            let store = try RecordStore(inMemory: schema)
            _ = try store.populate(
                json(#"[{"login": "ann", "name": "Ann", "password": "hunter2", "visits": 1}, {"login": "bob"}]"#),
                entity: "Account")
            var options = PopulationOptions()
            options.deleteOrphans = .all
            _ = try store.populate(
                json(#"[{"login": "ann", "name": "Anne", "password": "swordfish", "visits": 1}]"#), entity: "Account",
                options: options)
        }
        let updated = try #require(messages.first { $0.contains(#"updated Account("ann")"#) }, "\(messages)")
        #expect(updated.contains(#"name "Ann" -> "Anne""#), "\(updated)")
        #expect(updated.contains("password <redacted> -> <redacted>"), "\(updated)")
        #expect(!updated.contains("visits"), "an unchanged field is not listed")
        #expect(!updated.hasSuffix("(Account)"), "the entity is named once")
        #expect(!messages.contains { $0.contains("hunter2") || $0.contains("swordfish") })
        #expect(messages.contains { $0.hasSuffix(#"deleted Account("bob") _id 2"#) }, "\(messages)")
    }
}
