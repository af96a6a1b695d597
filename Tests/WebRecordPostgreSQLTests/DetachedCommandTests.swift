import Foundation
import TestSupport
import Testing

@testable import PostgreSQLTestSupport

/// The PostgreSQL test support's commands (initdb, pg_ctl, psql) are waited for with a bound:
/// one that does not end fails its test, naming it, instead of hanging the suite.
@Suite("Detached commands", .timeLimit(.minutes(Sanitizer.isActive ? 20 : 2)))
struct DetachedCommandTests {
    @Test func aCommandThatDoesNotEndIsKilledAndNamed() throws {
        let started = Date()
        let error = #expect(throws: PostgreSQLTestServer.Failure.self) {
            _ = try DetachedCommand.run(["/bin/sh", "-c", "echo waiting; sleep 120"], timeout: 1)
        }
        let message = error?.description ?? ""
        let bound = Int(Sanitizer.bound(1))
        #expect(
            message.contains("/bin/sh -c echo waiting; sleep 120 did not finish within \(bound) s; it was killed"),
            "\(message)")
        #expect(message.contains("waiting"), "the output is quoted: \(message)")
        #expect(Date().timeIntervalSince(started) < Sanitizer.bound(1) + ChildProcess.killGrace)
    }

    @Test func aCommandThatEndsGivesItsStatusAndOutput() throws {
        let result = try DetachedCommand.run(["/bin/sh", "-c", "echo done; exit 4"], timeout: 60)
        #expect(result.status == 4)
        #expect(result.output == "done\n")
    }
}
