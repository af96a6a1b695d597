import Foundation
import Testing
import WebRecord
import WebRecordTesting

@Suite struct DebuggerTests {
    @Test func theFirstFatalErrorIsThePrimaryError() {
        let debugger = Debugger(initialEntity: "Post")
        debugger.record(WebRecordError(.typeMismatch, "soft", isFatal: false))
        debugger.record(WebRecordError(.storeError, "first"))
        debugger.record(WebRecordError(.serverError, "second"))
        #expect(debugger.primaryError?.message == "first")
        #expect(debugger.errors.count == 3)
        #expect(debugger.warnings.map(\.message) == ["soft"])
        #expect(debugger.initialEntity == "Post")
    }

    @Test func entriesCarryTheirContext() throws {
        let test = try makeDecisionStore()
        let result = try test.store.populate(
            json(#"{"data": [{"id": 1, "title": "t", "flag": "perhaps"}]}"#), entity: "Post")
        let entry = try #require(result.debugger.errors.first { $0.code == .typeMismatch })
        #expect(entry.isFatal == false)
        #expect(entry.entity == "Post")
        #expect(entry.property == "flag")
        #expect(entry.keyPath == "flag")
        #expect(entry.value == "perhaps")
        #expect(entry.description.contains("Post.flag"))
        #expect(result.debugger.responseObject?["data"]?[0]?["id"] == 1)
        #expect(result.debugger.initialEntity == "Post")
    }

    @Test func aFailureCarriesTheDebuggerWithEveryError() throws {
        let test = try makeDecisionStore()
        do {
            _ = try test.store.populate(json(#"{"data": {"id": "x", "title": "t"}, "extra": 1}"#), entity: "Nope")
            Issue.record("expected a failure")
        } catch let error as WebRecordError {
            #expect(error.debugger?.primaryError?.code == .invalidEntityDescription)
            #expect(error.debugger?.errors.contains { $0.isFatal } == true)
            #expect(error.description.contains("Nope"))
        }
    }

    @Test func storeErrorsCarrySQLitesExtendedCodeAndHideBoundValues() throws {
        let test = try makeDecisionStore()
        do {
            try test.store.write { try $0.execute("INSERT INTO \"Nowhere\" VALUES (?)", [.text("secret-token")]) }
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .storeError)
            #expect(error.sqliteCode == 1)
            #expect(error.sql?.contains("Nowhere") == true)
            #expect(!error.description.contains("secret-token"))
        }
    }

    @Test func codesHaveStableNames() {
        let codes: [WebRecordError.Code] = [
            .undefinedServer, .missingPrimaryKey, .invalidEntityDescription, .invalidResponseFormat, .invalidJSON,
            .emptyResultSet, .typeMismatch, .storeError, .serverError, .cancelled, .invalidSchema, .incompatibleStore,
            .invalidArgument, .notFound, .closureFailed,
        ]
        #expect(
            codes.map(\.description) == [
                "undefinedServer", "missingPrimaryKey", "invalidEntityDescription", "invalidResponseFormat",
                "invalidJSON",
                "emptyResultSet", "typeMismatch", "storeError", "serverError", "cancelled", "invalidSchema",
                "incompatibleStore",
                "invalidArgument", "notFound", "closureFailed",
            ])
    }
}
